// Profiling under concurrency: executions on several streams and threads while another
// thread starts and stops file-mode sessions, then subscribes and unsubscribes, over and
// over. Every JOB directory must come out complete and consistent, every pipe must end in
// EOF with whole records only, and nothing may hang.
#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

#include "prof_support.h"
#include "test_support.h"

namespace {

using svp::compiler::BuiltModel;
using svp::test::chain_model;
using svp::test::job_dirs;
using svp::test::json;
using svp::test::ModelRun;
using svp::test::read_json;
using svp::test::read_jsonl;
using svp::test::SeedPipeReader;
using svp::test::TempDir;

class ProfStressTest : public svp::test::RuntimeTest {
 protected:
  std::string config_json() const override { return R"({"softnpu": {"cores": 2}})"; }
};

TEST_F(ProfStressTest, SessionsAndSubscriptionsComeAndGoWhileFourThreadsExecute) {
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  const BuiltModel m = chain_model("stress", 6, 3);
  constexpr int kThreads = 4;
  std::vector<std::unique_ptr<ModelRun>> runs;
  for (int i = 0; i < kThreads; ++i) runs.push_back(std::make_unique<ModelRun>(m.image));
  svp_acl_rt_context ctx = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_get_current_context(&ctx));
  std::atomic<bool> stop{false};
  std::atomic<int> executions{0};
  std::vector<std::thread> workers;
  for (int i = 0; i < kThreads; ++i) {
    workers.emplace_back([&, i] {
      EXPECT_ACL_OK(svp_acl_rt_set_current_context(ctx));
      svp_acl_rt_stream s = nullptr;
      EXPECT_ACL_OK(svp_acl_rt_create_stream(&s));
      while (!stop.load()) {
        if (i % 2 == 0) {
          EXPECT_ACL_OK(runs[i]->execute());
        } else {
          EXPECT_ACL_OK(runs[i]->execute_async(s));
          EXPECT_ACL_OK(svp_acl_ext_process_aicpu_task(5000));
          EXPECT_ACL_OK(svp_acl_rt_synchronize_stream(s));
        }
        ++executions;
      }
      EXPECT_ACL_OK(svp_acl_rt_destroy_stream(s));
    });
  }

  TempDir dir;
  const uint32_t devices[1] = {0};
  svp_acl_prof_config* config = svp_acl_prof_create_config(
      devices, 1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, nullptr,
      SVP_ACL_PROF_ACL_API | SVP_ACL_PROF_TASK_TIME | SVP_ACL_PROF_AICPU_TRACE);
  for (int round = 0; round < 20; ++round) {
    ASSERT_ACL_OK(svp_acl_prof_init(dir.path().c_str(), dir.path().size()));
    ASSERT_ACL_OK(svp_acl_prof_start(config));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_ACL_OK(svp_acl_prof_stop(config));
    ASSERT_ACL_OK(svp_acl_prof_finalize());

    int fd[2];
    ASSERT_EQ(pipe(fd), 0);
    svp_acl_prof_subscribe_config* sub =
        svp_acl_prof_create_subscribe_config(1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, &fd[1]);
    {
      SeedPipeReader reader(fd[0]);
      for (auto& r : runs) ASSERT_ACL_OK(svp_acl_prof_model_subscribe(r->id(), sub));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      for (auto& r : runs) ASSERT_ACL_OK(svp_acl_prof_model_unsubscribe(r->id()));
      close(fd[1]);
      reader.join();
      EXPECT_EQ(reader.errors(), 0);
      for (const auto& op : reader.ops()) EXPECT_EQ(op.name.rfind("stress_l", 0), 0u);
    }
    close(fd[0]);
    ASSERT_ACL_OK(svp_acl_prof_destroy_subscribe_config(sub));
  }
  stop = true;
  for (auto& w : workers) w.join();
  ASSERT_ACL_OK(svp_acl_prof_destroy_config(config));
  EXPECT_GT(executions.load(), 0);

  const auto jobs = job_dirs(dir.path());
  EXPECT_EQ(jobs.size(), 20u);
  for (const auto& job : jobs) {
    SCOPED_TRACE(job.string());
    const json end = read_json(job / "end_info.json");
    for (const auto& [file, count] : end["records"].items()) {
      EXPECT_EQ(read_jsonl(job / "data" / (file + ".jsonl")).size(), count.get<std::size_t>()) << file;
    }
  }
  runs.clear();
  ASSERT_ACL_OK(svp_acl_rt_reset_device(0));
}

}  // namespace
