// Task assembly from task.jsonl events: run time, preemption and AI-CPU accounting,
// ordering, and tasks whose sequence is incomplete or contradictory.
#include "svp_prof/timeline.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "job_fixture.h"
#include "svp_prof/job_reader.h"

namespace svp::prof {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::add_reference_scenario;
using test::ev;
using test::JobWriter;
using test::kT0;
using test::TempDir;

struct Assembled {
  Job job;
  Timeline timeline;
  std::vector<std::string> warnings;

  const Task& task(std::int64_t id) const {
    for (const Task& t : timeline.tasks) {
      if (t.task == id) return t;
    }
    ADD_FAILURE() << "no task " << id;
    static const Task none;
    return none;
  }
};

Assembled assemble(const JobWriter& w) {
  TempDir tmp;
  w.write(tmp.path());
  Assembled a;
  Status s = read_job(tmp.path(), {}, &a.job);
  EXPECT_TRUE(s.ok()) << s.message();
  a.timeline = build_timeline(a.job, &a.warnings);
  return a;
}

Assembled reference(unsigned shuffle_seed = 0) {
  JobWriter w;
  add_reference_scenario(w);
  if (shuffle_seed) w.shuffle(DataFile::kTask, shuffle_seed);
  return assemble(w);
}

TEST(SvpProfTimeline, PreemptedTaskRunTimeExcludesThePreemptedGap) {
  Assembled a = reference();
  const Task& t = a.task(1);
  EXPECT_EQ(t.state, TaskState::kOk);
  EXPECT_EQ(*t.submit_ns, kT0 + 1000);
  EXPECT_EQ(*t.start_ns, kT0 + 2000);
  EXPECT_EQ(*t.end_ns, kT0 + 10000);
  EXPECT_EQ(*t.queue_wait_ns(), 1000);
  EXPECT_EQ(t.run_ns, 5000);
  EXPECT_EQ(t.preempted_ns, 3000);
  EXPECT_EQ(t.preemptions, 1);
  EXPECT_EQ(t.aicpu_wait_ns, 0);
  EXPECT_EQ(*t.prio, 2);
  EXPECT_EQ(*t.max_prio, 3);  // promoted when resumed
  ASSERT_EQ(t.runs.size(), 2u);
  ASSERT_EQ(t.gaps.size(), 1u);
  EXPECT_EQ(t.gaps[0].kind, GapKind::kPreempted);
  EXPECT_EQ(t.gaps[0].begin_ns, kT0 + 5000);
  EXPECT_EQ(t.gaps[0].end_ns, kT0 + 8000);
  EXPECT_EQ(*t.gaps[0].by_stream, 2);
  EXPECT_EQ(*t.gaps[0].by_task, 2);
  EXPECT_EQ(t.ops, 2);
}

TEST(SvpProfTimeline, ReleasedAicpuWaitIsOffCoreUntilResume) {
  Assembled a = reference();
  const Task& t = a.task(3);
  EXPECT_EQ(t.run_ns, 2000);
  EXPECT_EQ(t.aicpu_wait_ns, 3000);  // post 12000 → resume 15000
  EXPECT_EQ(t.preemptions, 0);
  ASSERT_EQ(t.gaps.size(), 1u);
  EXPECT_EQ(t.gaps[0].kind, GapKind::kAicpuReleased);
  EXPECT_EQ(t.gaps[0].core, 1);  // the core it left
  EXPECT_EQ(*t.gaps[0].aicpu_tid, 99);
  ASSERT_EQ(t.runs.size(), 2u);
  EXPECT_EQ(t.runs[0].core, 1);
  EXPECT_EQ(t.runs[1].core, 0);  // resumed on the other core
}

TEST(SvpProfTimeline, HeldAicpuWaitCountsAsRunTimeAndAsWait) {
  Assembled a = reference();
  const Task& t = a.task(4);
  EXPECT_EQ(t.run_ns, 2500);
  EXPECT_EQ(t.aicpu_wait_ns, 1000);  // post 17000 → aicpu_end 18000
  ASSERT_EQ(t.gaps.size(), 1u);
  EXPECT_EQ(t.gaps[0].kind, GapKind::kAicpuHeld);
  EXPECT_EQ(t.gaps[0].core, 1);
  EXPECT_EQ(t.state, TaskState::kFailed);
  EXPECT_EQ(t.status, 507011);
  EXPECT_FALSE(t.model.has_value());
}

TEST(SvpProfTimeline, TaskWithoutEndIsIncompleteAndRunsToTheCollectionEnd) {
  Assembled a = reference();
  const Task& t = a.task(5);
  EXPECT_EQ(t.state, TaskState::kIncomplete);
  EXPECT_FALSE(t.end_ns.has_value());
  EXPECT_EQ(t.run_ns, 9000);  // 21000 → end_ns 30000
  EXPECT_EQ(t.bar_end_ns(a.timeline.end_ns), kT0 + 30000);
  EXPECT_EQ(a.timeline.incomplete, 1u);
}

TEST(SvpProfTimeline, SubmittedTaskThatNeverStartedIsNotStarted) {
  Assembled a = reference();
  const Task& t = a.task(6);
  EXPECT_EQ(t.state, TaskState::kNotStarted);
  EXPECT_EQ(t.run_ns, 0);
  EXPECT_EQ(a.timeline.not_started, 1u);
  EXPECT_EQ(a.timeline.tasks.back().task, 6);  // after every started task
}

TEST(SvpProfTimeline, TasksAreOrderedByStartTime) {
  Assembled a = reference();
  std::vector<std::int64_t> order;
  for (const Task& t : a.timeline.tasks) order.push_back(t.task);
  EXPECT_EQ(order, (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(a.timeline.begin_ns, kT0);
  EXPECT_EQ(a.timeline.end_ns, kT0 + 30000);
}

TEST(SvpProfTimeline, ShuffledEventsGiveTheSameTasks) {
  Assembled sorted = reference();
  for (unsigned seed : {1u, 2u, 3u}) {
    Assembled shuffled = reference(seed);
    ASSERT_EQ(shuffled.timeline.tasks.size(), sorted.timeline.tasks.size());
    for (std::size_t i = 0; i < sorted.timeline.tasks.size(); ++i) {
      const Task& x = sorted.timeline.tasks[i];
      const Task& y = shuffled.timeline.tasks[i];
      EXPECT_EQ(x.task, y.task);
      EXPECT_EQ(x.run_ns, y.run_ns) << "task " << x.task << " seed " << seed;
      EXPECT_EQ(x.preempted_ns, y.preempted_ns);
      EXPECT_EQ(x.aicpu_wait_ns, y.aicpu_wait_ns);
      EXPECT_TRUE(y.anomalies.empty()) << y.anomalies.front();
    }
  }
}

TEST(SvpProfTimeline, TasksOnDifferentDevicesWithTheSameNumberStayApart) {
  JobWriter w;
  w.info["devices"] = json::array({{{"id", 0}, {"cores", 1}}, {{"id", 1}, {"cores", 1}}});
  for (std::int64_t d : {0, 1}) {
    w.add(DataFile::kTask, ev("start", 1, 7, 100 * (d + 1), {{"core", 0}, {"prio", 1}}, d));
    w.add(DataFile::kTask, ev("end", 1, 7, 100 * (d + 1) + 50, {{"core", 0}, {"status", 0}}, d));
  }
  Assembled a = assemble(w);
  ASSERT_EQ(a.timeline.tasks.size(), 2u);
  EXPECT_EQ(a.timeline.tasks[0].device, 0);
  EXPECT_EQ(a.timeline.tasks[1].device, 1);
  EXPECT_EQ(a.timeline.tasks[1].run_ns, 50);
}

TEST(SvpProfTimeline, ContradictorySequencesAreAnomaliesNotCrashes) {
  JobWriter w;
  // A resume without a preempt, a second start, and events after the end.
  w.add(DataFile::kTask, ev("start", 1, 1, 100, {{"core", 0}, {"prio", 1}}));
  w.add(DataFile::kTask, ev("resume", 1, 1, 200, {{"core", 0}, {"seg", 1}, {"prio", 1}}));
  w.add(DataFile::kTask, ev("start", 1, 1, 250, {{"core", 0}, {"prio", 1}}));
  w.add(DataFile::kTask, ev("end", 1, 1, 300, {{"core", 0}, {"status", 0}}));
  w.add(DataFile::kTask, ev("preempt", 1, 1, 400, {{"core", 0}, {"seg", 1}, {"by_stream", 2}, {"by_task", 2}}));
  // An end during a preemption, and aicpu events without a post.
  w.add(DataFile::kTask, ev("start", 1, 2, 500, {{"core", 0}, {"prio", 1}}));
  w.add(DataFile::kTask, ev("aicpu_end", 1, 2, 550, {{"seg", 1}, {"tid", 5}}));
  w.add(DataFile::kTask, ev("preempt", 1, 2, 600, {{"core", 0}, {"seg", 1}, {"by_stream", 2}, {"by_task", 3}}));
  w.add(DataFile::kTask, ev("end", 1, 2, 700, {{"core", 0}, {"status", 0}}));
  // An end without a start.
  w.add(DataFile::kTask, ev("end", 1, 3, 800, {{"core", 0}, {"status", 0}}));
  Assembled a = assemble(w);
  EXPECT_EQ(a.task(1).anomalies.size(), 3u);
  EXPECT_EQ(a.task(1).run_ns, 200);
  EXPECT_EQ(a.task(2).anomalies.size(), 2u);
  EXPECT_EQ(a.task(2).run_ns, 100);
  EXPECT_EQ(a.task(2).preempted_ns, 100);
  EXPECT_EQ(a.task(3).anomalies.size(), 1u);
  EXPECT_EQ(a.timeline.with_anomalies, 3u);
  bool warned = false;
  for (const std::string& s : a.warnings) warned = warned || s.find("contradict") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(SvpProfTimeline, TaskMayEndInItsFinalAicpuSegmentWithoutAResume) {
  // The last segment is an AI-CPU one, run with the core released: nothing to resume for.
  JobWriter w;
  w.add(DataFile::kTask, ev("start", 1, 1, 100, {{"core", 0}, {"prio", 1}}));
  w.add(DataFile::kTask, ev("aicpu_post", 1, 1, 300, {{"seg", 2}, {"core", -1}}));
  w.add(DataFile::kTask, ev("aicpu_start", 1, 1, 350, {{"seg", 2}, {"tid", 9}}));
  w.add(DataFile::kTask, ev("aicpu_end", 1, 1, 600, {{"seg", 2}, {"tid", 9}}));
  w.add(DataFile::kTask, ev("end", 1, 1, 650, {{"core", -1}, {"status", 0}}));
  Assembled a = assemble(w);
  const Task& t = a.task(1);
  EXPECT_TRUE(t.anomalies.empty()) << t.anomalies.front();
  EXPECT_EQ(t.state, TaskState::kOk);
  EXPECT_EQ(t.run_ns, 200);
  EXPECT_EQ(t.aicpu_wait_ns, 350);
}

TEST(SvpProfTimeline, CutShortJobEndsAtTheLastRecord) {
  JobWriter w;
  add_reference_scenario(w);
  w.write_end_info = false;
  Assembled a = assemble(w);
  // The latest time in any record: E's conv4 ends at 23000, F is submitted at 25000.
  EXPECT_EQ(a.timeline.end_ns, kT0 + 25000);
  EXPECT_EQ(a.task(5).run_ns, 4000);
}

}  // namespace
}  // namespace svp::prof
