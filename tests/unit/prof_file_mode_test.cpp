// File mode: svp_acl_prof_init/create_config/start/stop/finalize (seed 003 §8.7 example 2)
// and acl.json "profiler", writing JOB directories (docs/profiling.md).
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

#include "prof_support.h"
#include "profiling/profiler.h"
#include "test_support.h"

namespace {

using svp::compiler::BuiltModel;
using svp::test::chain_model;
using svp::test::job_dirs;
using svp::test::json;
using svp::test::ModelRun;
using svp::test::read_json;
using svp::test::read_jsonl;
using svp::test::TempDir;
namespace fs = std::filesystem;

constexpr uint64_t kAll = SVP_ACL_PROF_ACL_API | SVP_ACL_PROF_TASK_TIME | SVP_ACL_PROF_AICORE_METRICS |
                          SVP_ACL_PROF_AICPU_TRACE;

svp_acl_prof_config* make_config(uint64_t types, uint32_t device = 0) {
  const uint32_t devices[1] = {device};
  return svp_acl_prof_create_config(devices, 1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, nullptr, types);
}

// Checks what every JOB directory must satisfy and returns the one JOB under `root`.
fs::path complete_job(const std::string& root) {
  const auto jobs = job_dirs(root);
  EXPECT_EQ(jobs.size(), 1u);
  if (jobs.empty()) return {};
  const fs::path job = jobs.front();
  const json info = read_json(job / "info.json");
  EXPECT_EQ(info["format"], "svp-acl-profile");
  EXPECT_EQ(info["version"], 1);
  EXPECT_EQ(info["pid"], static_cast<int>(getpid()));
  const json end = read_json(job / "end_info.json");
  EXPECT_TRUE(end["complete"].get<bool>());
  for (const auto& [file, count] : end["records"].items()) {
    EXPECT_EQ(read_jsonl(job / "data" / (file + ".jsonl")).size(), count.get<std::size_t>()) << file;
    EXPECT_EQ(end["dropped"][file], 0) << file;
  }
  return job;
}

class ProfFileModeTest : public svp::test::RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  }
  void TearDown() override {
    EXPECT_ACL_OK(svp_acl_rt_reset_device(0));
    RuntimeTest::TearDown();
  }
  svp_acl_error init_prof() { return svp_acl_prof_init(dir_.path().c_str(), dir_.path().size()); }
  TempDir dir_;
};

TEST_F(ProfFileModeTest, StateRulesFollowTheVendor) {
  svp_acl_prof_config* config = make_config(SVP_ACL_PROF_TASK_TIME);
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(svp_acl_prof_start(config), SVP_ACL_ERROR_PROF_NOT_RUN);
  EXPECT_EQ(svp_acl_prof_stop(config), SVP_ACL_ERROR_PROF_NOT_RUN);
  EXPECT_EQ(svp_acl_prof_finalize(), SVP_ACL_ERROR_PROF_NOT_RUN);
  ASSERT_ACL_OK(init_prof());
  EXPECT_EQ(init_prof(), SVP_ACL_ERROR_PROF_ALREADY_RUN);
  EXPECT_EQ(svp_acl_prof_stop(config), SVP_ACL_ERROR_PROF_NOT_RUN);
  ASSERT_ACL_OK(svp_acl_prof_start(config));
  EXPECT_EQ(svp_acl_prof_start(config), SVP_ACL_ERROR_PROF_ALREADY_RUN);
  svp_acl_prof_config* other = make_config(SVP_ACL_PROF_ACL_API);
  EXPECT_EQ(svp_acl_prof_start(other), SVP_ACL_ERROR_PROF_ALREADY_RUN) << "device 0 is already started";
  EXPECT_EQ(svp_acl_prof_stop(other), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(svp_acl_prof_destroy_config(config), SVP_ACL_ERROR_INVALID_PARAM) << "started configs stay alive";
  // Subscribe mode conflicts with file mode.
  const BuiltModel m = chain_model("conflict", 1);
  ModelRun run(m.image);
  int fd[2];
  ASSERT_EQ(pipe(fd), 0);
  svp_acl_prof_subscribe_config* sub = svp_acl_prof_create_subscribe_config(1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, &fd[1]);
  EXPECT_EQ(svp_acl_prof_model_subscribe(run.id(), sub), SVP_ACL_ERROR_PROF_API_CONFLICT);
  ASSERT_ACL_OK(svp_acl_prof_stop(config));
  EXPECT_EQ(svp_acl_prof_stop(config), SVP_ACL_ERROR_PROF_NOT_RUN);
  ASSERT_ACL_OK(svp_acl_prof_finalize());
  EXPECT_EQ(svp_acl_prof_finalize(), SVP_ACL_ERROR_PROF_NOT_RUN);
  // A new session may follow; subscriptions may follow a finished one.
  ASSERT_ACL_OK(svp_acl_prof_model_subscribe(run.id(), sub));
  EXPECT_EQ(init_prof(), SVP_ACL_ERROR_PROF_API_CONFLICT);
  ASSERT_ACL_OK(svp_acl_prof_model_unsubscribe(run.id()));
  ASSERT_ACL_OK(init_prof());
  ASSERT_ACL_OK(svp_acl_prof_finalize());
  ASSERT_ACL_OK(svp_acl_prof_destroy_subscribe_config(sub));
  ASSERT_ACL_OK(svp_acl_prof_destroy_config(config));
  ASSERT_ACL_OK(svp_acl_prof_destroy_config(other));
  EXPECT_EQ(svp_acl_prof_destroy_config(other), SVP_ACL_ERROR_INVALID_PARAM);
  close(fd[0]);
  close(fd[1]);
}

TEST_F(ProfFileModeTest, BadArgumentsAreRefused) {
  EXPECT_EQ(svp_acl_prof_init(nullptr, 4), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(svp_acl_prof_init(dir_.path().c_str(), dir_.path().size() + 1), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(svp_acl_prof_init(dir_.path().c_str(), 0), SVP_ACL_ERROR_INVALID_PARAM);
  const std::string missing = dir_.path() + "/does/not/exist";
  EXPECT_EQ(svp_acl_prof_init(missing.c_str(), missing.size()), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find(missing), std::string::npos);
  const uint32_t devices[2] = {0, 0};
  EXPECT_EQ(svp_acl_prof_create_config(nullptr, 1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, nullptr, kAll), nullptr);
  EXPECT_EQ(svp_acl_prof_create_config(devices, 0, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, nullptr, kAll), nullptr);
  EXPECT_EQ(svp_acl_prof_create_config(devices, 2, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, nullptr, kAll), nullptr);
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("twice"), std::string::npos);
  EXPECT_EQ(svp_acl_prof_create_config(devices, 1, static_cast<svp_acl_prof_aicore_metrics>(7), nullptr, kAll), nullptr);
  EXPECT_EQ(svp_acl_prof_create_config(devices, 1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION,
                                       reinterpret_cast<const svp_acl_prof_aicore_events*>(devices), kAll),
            nullptr);
  EXPECT_EQ(svp_acl_prof_create_config(devices, 1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, nullptr, 0), nullptr);
  EXPECT_EQ(svp_acl_prof_create_config(devices, 1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, nullptr, 0x10), nullptr);
  EXPECT_EQ(svp_acl_prof_start(nullptr), SVP_ACL_ERROR_INVALID_PARAM);
  svp_acl_prof_config* far = make_config(SVP_ACL_PROF_TASK_TIME, 5);
  ASSERT_NE(far, nullptr);
  ASSERT_ACL_OK(init_prof());
  EXPECT_EQ(svp_acl_prof_start(far), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("device 5"), std::string::npos);
  ASSERT_ACL_OK(svp_acl_prof_finalize());
  ASSERT_ACL_OK(svp_acl_prof_destroy_config(far));
}

TEST(ProfFileModeUninitialised, ControlCallsNeedSvpAclInit) {
  EXPECT_EQ(svp_acl_prof_init("/tmp", 4), SVP_ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(svp_acl_prof_finalize(), SVP_ACL_ERROR_UNINITIALIZE);
}

TEST_F(ProfFileModeTest, SeedExampleTwoRecordsApiCallsTasksAndEveryOperator) {
  const BuiltModel m = chain_model("file", 4, 2);  // layer 2 on the AI-CPU
  ModelRun run(m.image);
  ASSERT_ACL_OK(init_prof());
  svp_acl_prof_config* config = make_config(SVP_ACL_PROF_AICORE_METRICS | SVP_ACL_PROF_AICPU | SVP_ACL_PROF_ACL_API);
  ASSERT_ACL_OK(svp_acl_prof_start(config));
  ASSERT_ACL_OK(run.execute());  // synchronous: the AI-CPU layer runs inline on the core
  svp_acl_rt_stream s = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&s));
  ASSERT_ACL_OK(run.execute_async(s));  // asynchronous: served by this thread
  ASSERT_ACL_OK(svp_acl_ext_process_aicpu_task(5000));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  ASSERT_ACL_OK(svp_acl_rt_destroy_stream(s));
  ASSERT_ACL_OK(svp_acl_prof_stop(config));
  ASSERT_ACL_OK(svp_acl_prof_destroy_config(config));
  ASSERT_ACL_OK(svp_acl_prof_finalize());

  const fs::path job = complete_job(dir_.path());
  ASSERT_FALSE(job.empty());
  const json info = read_json(job / "info.json");
  EXPECT_EQ(info["source"], "api");
  EXPECT_EQ(info["devices"][0]["id"], 0);
  // The model is named (svp_prof labels its tasks with it): built without svp_atc, by its own name.
  ASSERT_TRUE(info["models"].is_object()) << info.dump();
  bool named = false;
  for (const auto& [id, name] : info["models"].items()) named = named || name == "file";
  EXPECT_TRUE(named) << info["models"].dump();

  const auto api = read_jsonl(job / "data" / "acl_api.jsonl");
  std::multiset<std::string> api_names;
  for (const json& a : api) {
    api_names.insert(a["name"].get<std::string>());
    EXPECT_LE(a["start_ns"].get<uint64_t>(), a["end_ns"].get<uint64_t>());
  }
  EXPECT_EQ(api_names.count("svp_acl_mdl_execute"), 1u);
  EXPECT_EQ(api_names.count("svp_acl_mdl_execute_async"), 1u);
  EXPECT_EQ(api_names.count("svp_acl_rt_synchronize_stream"), 1u);

  // Two tasks (one per execution), each submitted, started and ended successfully.
  const auto events = read_jsonl(job / "data" / "task.jsonl");
  std::map<uint64_t, std::vector<json>> tasks;
  for (const json& e : events) tasks[e["task"].get<uint64_t>()].push_back(e);
  ASSERT_EQ(tasks.size(), 2u);
  for (auto& [id, evs] : tasks) {
    std::stable_sort(evs.begin(), evs.end(), [](const json& a, const json& b) { return a["t"] < b["t"]; });
    EXPECT_EQ(evs.front()["ev"], "submit");
    EXPECT_EQ(evs.front()["model"], run.id());
    EXPECT_EQ(evs.front()["segments"], 4);
    EXPECT_EQ(evs.back()["ev"], "end");
    EXPECT_EQ(evs.back()["status"], 0);
  }
  // The asynchronous task released its core for the AI-CPU layer and resumed afterwards.
  const auto& async_events = tasks.rbegin()->second;
  std::vector<std::string> kinds;
  for (const json& e : async_events) kinds.push_back(e["ev"]);
  EXPECT_EQ(kinds, (std::vector<std::string>{"submit", "start", "aicpu_post", "aicpu_start", "aicpu_end", "resume",
                                             "end"}));
  EXPECT_EQ(async_events[2]["core"], -1);

  // Every NPU operator in aicore.jsonl, the AI-CPU one in aicpu.jsonl, inside its task.
  const auto npu = read_jsonl(job / "data" / "aicore.jsonl");
  const auto cpu = read_jsonl(job / "data" / "aicpu.jsonl");
  ASSERT_EQ(npu.size(), 6u);
  ASSERT_EQ(cpu.size(), 2u);
  for (const json& op : cpu) {
    EXPECT_EQ(op["name"], "file_l2");
    EXPECT_EQ(op["unit"], "aicpu");
  }
  EXPECT_EQ(cpu[0]["core"], 0) << "synchronous execution runs AI-CPU layers on the core";
  EXPECT_EQ(cpu[1]["core"], -1) << "asynchronous execution runs them on the application's thread";
  for (const json& op : npu) {
    EXPECT_EQ(op["unit"], "npu");
    EXPECT_EQ(op["model"], run.id());
    EXPECT_EQ(op["prio"], 3);
    const auto& evs = tasks.at(op["task"].get<uint64_t>());
    EXPECT_GE(op["start_ns"].get<uint64_t>(), evs[1]["t"].get<uint64_t>());
    EXPECT_LE(op["end_ns"].get<uint64_t>(), evs.back()["t"].get<uint64_t>());
  }
}

TEST_F(ProfFileModeTest, OnlyTheRequestedDataTypesAreWritten) {
  const BuiltModel m = chain_model("types", 2);
  ModelRun run(m.image);
  ASSERT_ACL_OK(init_prof());
  svp_acl_prof_config* config = make_config(SVP_ACL_PROF_ACL_API);
  ASSERT_ACL_OK(svp_acl_prof_start(config));
  ASSERT_ACL_OK(run.execute());
  ASSERT_ACL_OK(svp_acl_prof_stop(config));
  ASSERT_ACL_OK(svp_acl_prof_finalize());
  ASSERT_ACL_OK(svp_acl_prof_destroy_config(config));
  const fs::path job = complete_job(dir_.path());
  EXPECT_TRUE(fs::exists(job / "data" / "acl_api.jsonl"));
  EXPECT_FALSE(fs::exists(job / "data" / "task.jsonl"));
  EXPECT_FALSE(fs::exists(job / "data" / "aicore.jsonl"));
  EXPECT_FALSE(fs::exists(job / "data" / "aicpu.jsonl"));
}

TEST_F(ProfFileModeTest, NothingIsRecordedOutsideStartAndStop) {
  const BuiltModel m = chain_model("window", 2);
  ModelRun run(m.image);
  ASSERT_ACL_OK(init_prof());
  svp_acl_prof_config* config = make_config(kAll);
  ASSERT_ACL_OK(run.execute());  // before start
  ASSERT_ACL_OK(svp_acl_prof_start(config));
  ASSERT_ACL_OK(run.execute());
  ASSERT_ACL_OK(svp_acl_prof_stop(config));
  ASSERT_ACL_OK(run.execute());  // after stop
  ASSERT_ACL_OK(svp_acl_prof_finalize());
  ASSERT_ACL_OK(svp_acl_prof_destroy_config(config));
  const fs::path job = complete_job(dir_.path());
  EXPECT_EQ(read_jsonl(job / "data" / "aicore.jsonl").size(), 2u);
}

TEST_F(ProfFileModeTest, AFullBufferDropsRecordsAndEndInfoCountsEveryOne) {
  const BuiltModel m = chain_model("drops", 6);
  ModelRun run(m.image);
  svp::profiling::Profiler::instance().set_capacities(8, 8192);
  ASSERT_ACL_OK(init_prof());
  svp_acl_prof_config* config = make_config(SVP_ACL_PROF_TASK_TIME);
  ASSERT_ACL_OK(svp_acl_prof_start(config));
  svp::profiling::Profiler::instance().hold_writer(true);  // the buffer fills, whatever the timing
  for (int i = 0; i < 200; ++i) ASSERT_ACL_OK(run.execute());
  svp::profiling::Profiler::instance().hold_writer(false);
  ASSERT_ACL_OK(svp_acl_prof_stop(config));
  ASSERT_ACL_OK(svp_acl_prof_finalize());
  ASSERT_ACL_OK(svp_acl_prof_destroy_config(config));
  svp::profiling::Profiler::instance().set_capacities(65536, 8192);
  const auto jobs = job_dirs(dir_.path());
  ASSERT_EQ(jobs.size(), 1u);
  const json end = read_json(jobs[0] / "end_info.json");
  const auto ops = read_jsonl(jobs[0] / "data" / "aicore.jsonl");
  EXPECT_EQ(ops.size(), end["records"]["aicore"].get<std::size_t>());
  EXPECT_GT(end["dropped"]["aicore"].get<std::size_t>(), 0u) << "an 8-record buffer cannot hold 1200 operators";
  EXPECT_EQ(ops.size() + end["dropped"]["aicore"].get<std::size_t>(), 200u * 6u) << "every operator written or counted";
  // task.jsonl: 3 events per task (submit, start, end), written or counted.
  EXPECT_EQ(read_jsonl(jobs[0] / "data" / "task.jsonl").size() + end["dropped"]["task"].get<std::size_t>(), 600u);
}

TEST_F(ProfFileModeTest, AnExecutionInFlightAtFinalizeStaysOutOfTheNextSession) {
  const BuiltModel m = chain_model("straddle", 3, 1);  // waits for its AI-CPU layer
  ModelRun run(m.image);
  svp_acl_rt_stream s = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&s));
  svp_acl_prof_config* config = make_config(SVP_ACL_PROF_TASK_TIME | SVP_ACL_PROF_AICPU_TRACE);
  ASSERT_ACL_OK(init_prof());
  ASSERT_ACL_OK(svp_acl_prof_start(config));
  ASSERT_ACL_OK(run.execute_async(s));  // blocks at layer 1 until this thread serves it
  ASSERT_ACL_OK(svp_acl_prof_stop(config));
  ASSERT_ACL_OK(svp_acl_prof_finalize());
  TempDir second;
  ASSERT_ACL_OK(svp_acl_prof_init(second.path().c_str(), second.path().size()));
  ASSERT_ACL_OK(svp_acl_prof_start(config));
  ASSERT_ACL_OK(svp_acl_ext_process_aicpu_task(5000));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  ASSERT_ACL_OK(svp_acl_prof_stop(config));
  ASSERT_ACL_OK(svp_acl_prof_finalize());
  ASSERT_ACL_OK(svp_acl_prof_destroy_config(config));
  ASSERT_ACL_OK(svp_acl_rt_destroy_stream(s));
  const fs::path job2 = complete_job(second.path());
  EXPECT_EQ(read_jsonl(job2 / "data" / "task.jsonl").size(), 0u) << "the task belongs to the first session";
  EXPECT_EQ(read_jsonl(job2 / "data" / "aicore.jsonl").size(), 0u);
  EXPECT_EQ(read_jsonl(job2 / "data" / "aicpu.jsonl").size(), 0u);
  const fs::path job1 = complete_job(dir_.path());
  EXPECT_GE(read_jsonl(job1 / "data" / "task.jsonl").size(), 2u) << "submitted and started in the first";
}

class ProfPreemptionTest : public ProfFileModeTest {
 protected:
  std::string config_json() const override { return R"({"softnpu": {"cores": 1}})"; }
};

TEST_F(ProfPreemptionTest, APreemptedExecutionKeepsWellFormedTaskAndOperatorRecords) {
  const BuiltModel lm = svp::test::preemptible_aicpu_model("low");
  const BuiltModel hm = chain_model("high", 2);
  ModelRun low(lm.image);
  ModelRun high(hm.image);
  svp::test::set_model_priority(low.id(), 6);
  svp::test::set_model_priority(high.id(), 1);
  svp_acl_rt_stream a = nullptr;
  svp_acl_rt_stream b = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&a));
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&b));
  ASSERT_ACL_OK(init_prof());
  svp_acl_prof_config* config = make_config(SVP_ACL_PROF_TASK_TIME | SVP_ACL_PROF_AICPU_TRACE);
  ASSERT_ACL_OK(svp_acl_prof_start(config));
  ASSERT_ACL_OK(low.execute_async(a));
  ASSERT_ACL_OK(svp_acl_ext_process_aicpu_task(5000));  // low holds the core (busy-wait)
  ASSERT_ACL_OK(high.execute_async(b));
  ASSERT_ACL_OK(svp_acl_ext_process_aicpu_task(5000));  // low's second AI-CPU layer
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(b));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(a));
  ASSERT_ACL_OK(svp_acl_prof_stop(config));
  ASSERT_ACL_OK(svp_acl_prof_finalize());
  ASSERT_ACL_OK(svp_acl_prof_destroy_config(config));
  ASSERT_ACL_OK(svp_acl_rt_destroy_stream(a));
  ASSERT_ACL_OK(svp_acl_rt_destroy_stream(b));

  const fs::path job = complete_job(dir_.path());
  std::map<uint64_t, std::vector<json>> tasks;
  std::map<uint64_t, uint64_t> model_of;
  for (const json& e : read_jsonl(job / "data" / "task.jsonl")) {
    tasks[e["task"].get<uint64_t>()].push_back(e);
    if (e["ev"] == "submit") model_of[e["task"].get<uint64_t>()] = e["model"].get<uint64_t>();
  }
  ASSERT_EQ(tasks.size(), 2u);
  uint64_t low_task = 0;
  uint64_t high_task = 0;
  for (const auto& [t, m] : model_of) (m == low.id() ? low_task : high_task) = t;
  auto& le = tasks[low_task];
  auto& he = tasks[high_task];
  auto by_time = [](const json& x, const json& y) { return x["t"] < y["t"]; };
  std::stable_sort(le.begin(), le.end(), by_time);
  std::stable_sort(he.begin(), he.end(), by_time);
  auto find = [](const std::vector<json>& evs, const char* kind) {
    return std::find_if(evs.begin(), evs.end(), [&](const json& e) { return e["ev"] == kind; });
  };
  auto pre = find(le, "preempt");
  ASSERT_NE(pre, le.cend()) << "the low-priority task was preempted; events: " << json(le).dump() << " high: "
                            << json(he).dump();
  EXPECT_EQ((*pre)["by_task"], high_task);
  EXPECT_GE((*pre)["seg"].get<int>(), 1) << "preempted at a boundary after its first AI-CPU layer";
  EXPECT_LE((*pre)["seg"].get<int>(), 3);
  const auto resume = std::find_if(pre, le.cend(), [](const json& e) { return e["ev"] == "resume"; });
  ASSERT_NE(resume, le.cend());
  EXPECT_EQ((*resume)["seg"], (*pre)["seg"]) << "resumed where it stopped";
  const uint64_t pre_t = (*pre)["t"];
  const uint64_t resume_t = (*resume)["t"];
  const uint64_t high_start = (*find(he, "start"))["t"];
  const uint64_t high_end = (*find(he, "end"))["t"];
  EXPECT_GE(high_start, pre_t);
  EXPECT_LE(high_end, resume_t);
  EXPECT_EQ((*find(he, "start"))["prio"], 1);

  // Operators: low's never overlap the preemption window; high's run inside it.
  std::vector<json> ops = read_jsonl(job / "data" / "aicore.jsonl");
  const std::vector<json> cpu_ops = read_jsonl(job / "data" / "aicpu.jsonl");
  EXPECT_EQ(cpu_ops.size(), 2u);
  ops.insert(ops.end(), cpu_ops.begin(), cpu_ops.end());
  EXPECT_EQ(ops.size(), 6u);
  for (const json& op : ops) {
    const uint64_t s = op["start_ns"];
    const uint64_t e = op["end_ns"];
    if (op["task"] == low_task) {
      EXPECT_EQ(op["prio"], 6);
      EXPECT_TRUE(e <= pre_t || s >= resume_t) << op.dump();
      EXPECT_EQ(op["layer"].get<int>() < (*pre)["seg"].get<int>(), e <= pre_t) << op.dump();
    } else {
      EXPECT_EQ(op["prio"], 1);
      EXPECT_GE(s, pre_t);
      EXPECT_LE(e, resume_t);
    }
  }
}

// ---- acl.json ------------------------------------------------------------------------------

class ProfJsonTest : public svp::test::RuntimeTest {
 protected:
  std::string config_json() const override {
    return R"({"profiler": {"switch": "on", "output": ")" + dir_.path() +
           R"(", "interval": "3", "aic_metrics": "ArithmeticUtilization", "aicpu": "off", "acl_api": "on"}})";
  }
  TempDir dir_;
};

TEST_F(ProfJsonTest, AclJsonCollectsEveryIntervalthInferenceUntilFinalize) {
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  {
    const BuiltModel m = chain_model("json", 3);
    ModelRun run(m.image);
    for (int i = 0; i < 7; ++i) ASSERT_ACL_OK(run.execute());
    // File-mode API calls conflict with acl.json, and so does subscribe mode.
    EXPECT_EQ(svp_acl_prof_init(dir_.path().c_str(), dir_.path().size()), SVP_ACL_ERROR_PROF_API_CONFLICT);
    EXPECT_EQ(svp_acl_prof_finalize(), SVP_ACL_ERROR_PROF_API_CONFLICT);
    int fd[2];
    ASSERT_EQ(pipe(fd), 0);
    svp_acl_prof_subscribe_config* sub = svp_acl_prof_create_subscribe_config(1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, &fd[1]);
    EXPECT_EQ(svp_acl_prof_model_subscribe(run.id(), sub), SVP_ACL_ERROR_PROF_API_CONFLICT);
    ASSERT_ACL_OK(svp_acl_prof_destroy_subscribe_config(sub));
    close(fd[0]);
    close(fd[1]);
  }
  ASSERT_ACL_OK(svp_acl_rt_reset_device(0));
  const auto jobs = job_dirs(dir_.path());
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_FALSE(fs::exists(jobs[0] / "end_info.json")) << "the session runs until svp_acl_finalize";
  finalize_now();
  const fs::path job = complete_job(dir_.path());
  const json info = read_json(job / "info.json");
  EXPECT_EQ(info["source"], "acl.json");
  EXPECT_EQ(info["interval"], 3);
  // Inferences 1, 4 and 7 of 7 are saved.
  EXPECT_EQ(read_jsonl(job / "data" / "aicore.jsonl").size(), 9u);
  std::size_t submits = 0;
  for (const json& e : read_jsonl(job / "data" / "task.jsonl")) submits += e["ev"] == "submit";
  EXPECT_EQ(submits, 3u);
  EXPECT_FALSE(fs::exists(job / "data" / "aicpu.jsonl")) << "\"aicpu\": \"off\"";
  std::size_t executes = 0;
  for (const json& a : read_jsonl(job / "data" / "acl_api.jsonl")) executes += a["name"] == "svp_acl_mdl_execute";
  EXPECT_EQ(executes, 7u) << "API calls are not sampled";
}

class ProfJsonFallbackTest : public svp::test::RuntimeTest {
 protected:
  std::string config_json() const override {
    // Under a character device: no directory can ever be made there, not even by root.
    return R"({"profiler": {"switch": "on", "output": "/dev/null/svp_prof_out"}})";
  }
};

TEST_F(ProfJsonFallbackTest, AnOutputThatCannotBeMadeFallsBackToTheApplicationDirectory) {
  const std::string job = svp::profiling::Profiler::instance().last_job_dir();
  const std::string exe_dir = fs::read_symlink("/proc/self/exe").parent_path().string();
  EXPECT_EQ(job.rfind(exe_dir + "/JOB", 0), 0u) << job;
  finalize_now();
  EXPECT_TRUE(fs::exists(fs::path(job) / "end_info.json"));
  std::error_code ec;
  fs::remove_all(job, ec);
}

class ProfJsonCreateTest : public svp::test::RuntimeTest {
 protected:
  static fs::path out() {
    return fs::temp_directory_path() / ("svp_prof_create_" + std::to_string(::getpid())) / "nested" / "prof";
  }
  std::string config_json() const override {
    return R"({"profiler": {"switch": "on", "output": ")" + out().string() + R"("}})";
  }
};

TEST_F(ProfJsonCreateTest, AMissingOutputDirectoryIsCreatedAndHoldsTheJob) {
  const std::string job = svp::profiling::Profiler::instance().last_job_dir();
  EXPECT_EQ(job.rfind(out().string() + "/JOB", 0), 0u) << job;
  finalize_now();
  EXPECT_TRUE(fs::exists(fs::path(job) / "end_info.json"));
  std::error_code ec;
  fs::remove_all(out().parent_path().parent_path(), ec);
}

}  // namespace
