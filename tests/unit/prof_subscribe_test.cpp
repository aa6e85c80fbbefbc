// Subscribe mode: operator records of subscribed models written to application pipes and
// decoded with the svp_acl_prof_get_* helpers, read with the vendor's loop.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <map>

#include "prof_support.h"
#include "profiling/op_desc.h"
#include "profiling/profiler.h"
#include "test_support.h"

namespace {

using svp::compiler::BuiltModel;
using svp::test::chain_model;
using svp::test::ModelRun;
using svp::test::OpSeen;
using svp::test::SeedPipeReader;

class ProfSubscribeTest : public svp::test::RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_ACL_OK(svp_acl_rt_set_device(0));
    ASSERT_EQ(pipe(fd_), 0);
  }
  void TearDown() override {
    svp::profiling::Profiler::instance().set_capacities(65536, 8192);
    close_write();
    if (fd_[0] >= 0) close(fd_[0]);
    EXPECT_ACL_OK(svp_acl_rt_reset_device(0));
    RuntimeTest::TearDown();
  }
  void close_write() {
    if (fd_[1] >= 0) close(fd_[1]);
    fd_[1] = -1;
  }
  int fd_[2] = {-1, -1};
};

TEST_F(ProfSubscribeTest, TheSeedReaderLoopReceivesEveryOperatorOfEveryExecution) {
  const BuiltModel m = chain_model("sub", 5);
  ModelRun run(m.image);
  svp_acl_prof_subscribe_config* config = svp_acl_prof_create_subscribe_config(1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, &fd_[1]);
  ASSERT_NE(config, nullptr) << svp_acl_get_recent_err_msg();
  ASSERT_ACL_OK(svp_acl_prof_model_subscribe(run.id(), config));
  SeedPipeReader reader(fd_[0]);
  for (int i = 0; i < 3; ++i) ASSERT_ACL_OK(run.execute());
  ASSERT_ACL_OK(svp_acl_prof_model_unsubscribe(run.id()));
  close_write();
  reader.join();
  ASSERT_ACL_OK(svp_acl_prof_destroy_subscribe_config(config));

  const std::vector<OpSeen> ops = reader.ops();
  EXPECT_EQ(reader.errors(), 0);
  ASSERT_EQ(ops.size(), 15u);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    SCOPED_TRACE(i);
    const int layer = static_cast<int>(i % 5);
    EXPECT_EQ(ops[i].model, run.id());
    EXPECT_EQ(ops[i].name, "sub_l" + std::to_string(layer));
    EXPECT_EQ(ops[i].type, layer % 2 == 0 ? "Relu" : "Sigmoid");
    EXPECT_GT(ops[i].start, 0u);
    EXPECT_LE(ops[i].start, ops[i].end);
    // Duration is computed from nanoseconds, so it may be one microsecond below end - start.
    EXPECT_LE(ops[i].duration, ops[i].end - ops[i].start);
    EXPECT_GE(ops[i].duration + 1, ops[i].end - ops[i].start);
    if (i > 0) {
      EXPECT_GE(ops[i].start, ops[i - 1].end) << "layers of one model run one after another";
    }
  }
}

TEST_F(ProfSubscribeTest, TimeInfoSwitchZeroSendsRecordsWithoutTimes) {
  const BuiltModel m = chain_model("notime", 3);
  ModelRun run(m.image);
  svp_acl_prof_subscribe_config* config = svp_acl_prof_create_subscribe_config(0, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, &fd_[1]);
  ASSERT_NE(config, nullptr);
  ASSERT_ACL_OK(svp_acl_prof_model_subscribe(run.id(), config));
  SeedPipeReader reader(fd_[0]);
  ASSERT_ACL_OK(run.execute());
  ASSERT_ACL_OK(svp_acl_prof_model_unsubscribe(run.id()));
  close_write();
  reader.join();
  ASSERT_ACL_OK(svp_acl_prof_destroy_subscribe_config(config));
  const auto ops = reader.ops();
  ASSERT_EQ(ops.size(), 3u);
  for (const OpSeen& o : ops) {
    EXPECT_EQ(o.start, 0u);
    EXPECT_EQ(o.end, 0u);
    EXPECT_EQ(o.duration, 0u);
    EXPECT_FALSE(o.name.empty());
  }
}

TEST_F(ProfSubscribeTest, TwoModelsOnTwoStreamsShareOnePipeAndARecordNeverTears) {
  const BuiltModel ma = chain_model("ma", 4);
  const BuiltModel mb = chain_model("mb", 6);
  ModelRun a(ma.image);
  ModelRun b(mb.image);
  svp_acl_prof_subscribe_config* config = svp_acl_prof_create_subscribe_config(1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, &fd_[1]);
  ASSERT_ACL_OK(svp_acl_prof_model_subscribe(a.id(), config));
  ASSERT_ACL_OK(svp_acl_prof_model_subscribe(b.id(), config));
  SeedPipeReader reader(fd_[0]);
  svp_acl_rt_stream s1 = nullptr;
  svp_acl_rt_stream s2 = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&s1));
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&s2));
  for (int i = 0; i < 10; ++i) {
    ASSERT_ACL_OK(a.execute_async(s1));
    ASSERT_ACL_OK(b.execute_async(s2));
    // The datasets are reused: wait before the next submission overwrites them.
    ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s1));
    ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s2));
  }
  ASSERT_ACL_OK(svp_acl_prof_model_unsubscribe(a.id()));
  ASSERT_ACL_OK(svp_acl_prof_model_unsubscribe(b.id()));
  close_write();
  reader.join();
  ASSERT_ACL_OK(svp_acl_prof_destroy_subscribe_config(config));
  ASSERT_ACL_OK(svp_acl_rt_destroy_stream(s1));
  ASSERT_ACL_OK(svp_acl_rt_destroy_stream(s2));
  std::map<std::size_t, int> per_model;
  for (const OpSeen& o : reader.ops()) {
    ++per_model[o.model];
    const std::string prefix = o.model == a.id() ? "ma_l" : "mb_l";
    EXPECT_EQ(o.name.rfind(prefix, 0), 0u) << o.name;
  }
  EXPECT_EQ(reader.errors(), 0);
  EXPECT_EQ(per_model[a.id()], 40);
  EXPECT_EQ(per_model[b.id()], 60);
}

TEST_F(ProfSubscribeTest, EachModelCanWriteToItsOwnPipe) {
  const BuiltModel ma = chain_model("pa", 2);
  const BuiltModel mb = chain_model("pb", 3);
  ModelRun a(ma.image);
  ModelRun b(mb.image);
  int other[2];
  ASSERT_EQ(pipe(other), 0);
  svp_acl_prof_subscribe_config* ca = svp_acl_prof_create_subscribe_config(1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, &fd_[1]);
  svp_acl_prof_subscribe_config* cb = svp_acl_prof_create_subscribe_config(1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, &other[1]);
  ASSERT_ACL_OK(svp_acl_prof_model_subscribe(a.id(), ca));
  ASSERT_ACL_OK(svp_acl_prof_model_subscribe(b.id(), cb));
  SeedPipeReader ra(fd_[0]);
  SeedPipeReader rb(other[0]);
  ASSERT_ACL_OK(a.execute());
  ASSERT_ACL_OK(b.execute());
  ASSERT_ACL_OK(svp_acl_prof_model_unsubscribe(a.id()));
  ASSERT_ACL_OK(svp_acl_prof_model_unsubscribe(b.id()));
  close_write();
  close(other[1]);
  ra.join();
  rb.join();
  close(other[0]);
  EXPECT_EQ(ra.ops().size(), 2u);
  EXPECT_EQ(rb.ops().size(), 3u);
  ASSERT_ACL_OK(svp_acl_prof_destroy_subscribe_config(ca));
  ASSERT_ACL_OK(svp_acl_prof_destroy_subscribe_config(cb));
}

TEST_F(ProfSubscribeTest, AiCpuOperatorsOfAsyncExecutionsAreRecordedToo) {
  const BuiltModel m = chain_model("cpu", 3, 1);
  ModelRun run(m.image);
  svp_acl_prof_subscribe_config* config = svp_acl_prof_create_subscribe_config(1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, &fd_[1]);
  ASSERT_ACL_OK(svp_acl_prof_model_subscribe(run.id(), config));
  SeedPipeReader reader(fd_[0]);
  svp_acl_rt_stream s = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&s));
  ASSERT_ACL_OK(run.execute_async(s));
  ASSERT_ACL_OK(svp_acl_ext_process_aicpu_task(5000));
  ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));
  ASSERT_ACL_OK(svp_acl_prof_model_unsubscribe(run.id()));
  close_write();
  reader.join();
  ASSERT_ACL_OK(svp_acl_rt_destroy_stream(s));
  ASSERT_ACL_OK(svp_acl_prof_destroy_subscribe_config(config));
  const auto ops = reader.ops();
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[1].name, "cpu_l1");
}

TEST_F(ProfSubscribeTest, SubscriptionErrorsAreReportedWithVendorCodes) {
  const BuiltModel m = chain_model("err", 1);
  ModelRun run(m.image);
  svp_acl_prof_subscribe_config* config = svp_acl_prof_create_subscribe_config(1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, &fd_[1]);
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(svp_acl_prof_model_subscribe(run.id() + 100, config), SVP_ACL_ERROR_INVALID_MODEL_ID);
  EXPECT_EQ(svp_acl_prof_model_subscribe(run.id(), nullptr), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(svp_acl_prof_model_unsubscribe(run.id()), SVP_ACL_ERROR_INVALID_MODEL_ID);
  ASSERT_ACL_OK(svp_acl_prof_model_subscribe(run.id(), config));
  EXPECT_EQ(svp_acl_prof_model_subscribe(run.id(), config), SVP_ACL_ERROR_PROF_REPEAT_SUBSCRIBE);
  // File mode cannot start while models are subscribed.
  svp::test::TempDir dir;
  EXPECT_EQ(svp_acl_prof_init(dir.path().c_str(), dir.path().size()), SVP_ACL_ERROR_PROF_API_CONFLICT);
  ASSERT_ACL_OK(svp_acl_prof_model_unsubscribe(run.id()));
  EXPECT_EQ(svp_acl_prof_model_unsubscribe(run.id()), SVP_ACL_ERROR_INVALID_MODEL_ID);

  // The read end, a closed descriptor and bad arguments are refused.
  svp_acl_prof_subscribe_config* read_end = svp_acl_prof_create_subscribe_config(1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, &fd_[0]);
  ASSERT_NE(read_end, nullptr);
  EXPECT_EQ(svp_acl_prof_model_subscribe(run.id(), read_end), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("write"), std::string::npos);
  int closed = dup(fd_[1]);
  close(closed);
  svp_acl_prof_subscribe_config* dead = svp_acl_prof_create_subscribe_config(1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, &closed);
  EXPECT_EQ(svp_acl_prof_model_subscribe(run.id(), dead), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(svp_acl_prof_create_subscribe_config(2, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, &fd_[1]), nullptr);
  EXPECT_EQ(svp_acl_prof_create_subscribe_config(1, static_cast<svp_acl_prof_aicore_metrics>(3), &fd_[1]), nullptr);
  EXPECT_EQ(svp_acl_prof_create_subscribe_config(1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, nullptr), nullptr);
  int negative = -1;
  EXPECT_EQ(svp_acl_prof_create_subscribe_config(1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, &negative), nullptr);
  ASSERT_ACL_OK(svp_acl_prof_destroy_subscribe_config(read_end));
  ASSERT_ACL_OK(svp_acl_prof_destroy_subscribe_config(dead));
  ASSERT_ACL_OK(svp_acl_prof_destroy_subscribe_config(config));
  EXPECT_EQ(svp_acl_prof_destroy_subscribe_config(config), SVP_ACL_ERROR_INVALID_PARAM);
}

TEST_F(ProfSubscribeTest, AReaderThatClosedItsEndCostsNeitherACrashNorAHang) {
  const BuiltModel m = chain_model("gone", 8);
  ModelRun run(m.image);
  svp_acl_prof_subscribe_config* config = svp_acl_prof_create_subscribe_config(1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, &fd_[1]);
  ASSERT_ACL_OK(svp_acl_prof_model_subscribe(run.id(), config));
  close(fd_[0]);  // the reader went away before anything was written (SIGPIPE must not kill us)
  fd_[0] = -1;
  for (int i = 0; i < 5; ++i) ASSERT_ACL_OK(run.execute());
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_ACL_OK(svp_acl_prof_model_unsubscribe(run.id()));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
  ASSERT_ACL_OK(svp_acl_prof_destroy_subscribe_config(config));
}

TEST_F(ProfSubscribeTest, ASlowReaderNeverBlocksExecutionAndDropsAreBounded) {
  // A small queue so the slow reader overflows it quickly.
  svp::profiling::Profiler::instance().set_capacities(65536, 16);
  const BuiltModel m = chain_model("slow", 20);
  ModelRun run(m.image);
  svp_acl_prof_subscribe_config* config = svp_acl_prof_create_subscribe_config(1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, &fd_[1]);
  ASSERT_ACL_OK(svp_acl_prof_model_subscribe(run.id(), config));
  // 20 layers × 200 executions = 4000 records (1.6 MB): far more than the pipe (64 KiB)
  // plus the queue hold; the reader sleeps before every read.
  std::unique_ptr<SeedPipeReader> reader;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 200; ++i) ASSERT_ACL_OK(run.execute());
  const auto exec_time = std::chrono::steady_clock::now() - t0;
  reader = std::make_unique<SeedPipeReader>(fd_[0], 1);
  ASSERT_ACL_OK(svp_acl_prof_model_unsubscribe(run.id()));
  close_write();
  reader->join();
  ASSERT_ACL_OK(svp_acl_prof_destroy_subscribe_config(config));
  const auto ops = reader->ops();
  EXPECT_EQ(reader->errors(), 0);
  EXPECT_LT(ops.size(), 4000u) << "the reader was not reading: something must have been dropped";
  EXPECT_GE(ops.size(), 100u) << "at least what the pipe (64 KiB) and the queue held";
  // Every record that arrived is whole and in order within its execution.
  for (const OpSeen& o : ops) EXPECT_EQ(o.name.rfind("slow_l", 0), 0u);
  EXPECT_LT(exec_time, std::chrono::seconds(20));
}

TEST_F(ProfSubscribeTest, UnloadingBeforeUnsubscribingAsTheSeedDoesEndsTheSubscriptionCleanly) {
  const BuiltModel m = chain_model("unl", 2);
  auto run = std::make_unique<ModelRun>(m.image);
  svp_acl_prof_subscribe_config* config = svp_acl_prof_create_subscribe_config(1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, &fd_[1]);
  ASSERT_ACL_OK(svp_acl_prof_model_subscribe(run->id(), config));
  SeedPipeReader reader(fd_[0]);
  ASSERT_ACL_OK(run->execute());
  const uint32_t id = run->id();
  run.reset();  // unloads
  close_write();
  reader.join();  // EOF: the library let go of the pipe
  EXPECT_EQ(reader.ops().size(), 2u);
  EXPECT_ACL_OK(svp_acl_prof_model_unsubscribe(id)) << "seed 003 §8.7 example 1 unsubscribes after unloading";
  EXPECT_EQ(svp_acl_prof_model_unsubscribe(id), SVP_ACL_ERROR_INVALID_MODEL_ID) << "but only once";
  ASSERT_ACL_OK(svp_acl_prof_destroy_subscribe_config(config));
}

// ---- the decoders --------------------------------------------------------------------------

std::vector<unsigned char> one_record(const char* name, const char* type) {
  svp::profiling::OpRecord r;
  r.model = 7;
  r.name = name;
  r.type = type;
  r.start = 5'000'000;
  r.end = 9'500'000;
  r.to_pipe = true;
  std::vector<unsigned char> buf(sizeof(svp::profiling::OpDesc));
  svp::profiling::OpDesc d;
  svp::profiling::encode(r, &d);
  std::memcpy(buf.data(), &d, sizeof d);
  return buf;
}

TEST(ProfDecoders, DecodeFieldsInMicrosecondsWithoutInitialisation) {
  auto buf = one_record("conv1", "Conv");
  size_t size = 0;
  ASSERT_EQ(svp_acl_prof_get_op_desc_size(&size), SVP_ACL_SUCCESS);
  EXPECT_EQ(size, buf.size());
  uint32_t n = 0;
  ASSERT_EQ(svp_acl_prof_get_op_num(buf.data(), buf.size(), &n), SVP_ACL_SUCCESS);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(svp_acl_prof_get_model_id(buf.data(), buf.size(), 0), 7u);
  EXPECT_EQ(svp_acl_prof_get_op_start(buf.data(), buf.size(), 0), 5000u);
  EXPECT_EQ(svp_acl_prof_get_op_end(buf.data(), buf.size(), 0), 9500u);
  EXPECT_EQ(svp_acl_prof_get_op_duration(buf.data(), buf.size(), 0), 4500u);
  size_t len = 0;
  ASSERT_EQ(svp_acl_prof_get_op_name_len(buf.data(), buf.size(), 0, &len), SVP_ACL_SUCCESS);
  EXPECT_EQ(len, 6u);
  char name[6];
  ASSERT_EQ(svp_acl_prof_get_op_name(buf.data(), buf.size(), 0, name, sizeof name), SVP_ACL_SUCCESS);
  EXPECT_STREQ(name, "conv1");
  ASSERT_EQ(svp_acl_prof_get_op_type_len(buf.data(), buf.size(), 0, &len), SVP_ACL_SUCCESS);
  EXPECT_EQ(len, 5u);
}

TEST(ProfDecoders, BadBuffersIndicesAndShortOutputsAreErrorsNeverReads) {
  auto buf = one_record("a_rather_long_operator_name", "Conv");
  uint32_t n = 0;
  size_t len = 0;
  char small[4];
  EXPECT_EQ(svp_acl_prof_get_op_num(nullptr, buf.size(), &n), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(svp_acl_prof_get_op_num(buf.data(), 0, &n), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(svp_acl_prof_get_op_num(buf.data(), buf.size() - 1, &n), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("multiple"), std::string::npos);
  EXPECT_EQ(svp_acl_prof_get_op_num(buf.data(), buf.size(), nullptr), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(svp_acl_prof_get_op_name_len(buf.data(), buf.size(), 1, &len), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("out of range"), std::string::npos);
  EXPECT_EQ(svp_acl_prof_get_op_name_len(buf.data(), buf.size(), 0, nullptr), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(svp_acl_prof_get_op_name(buf.data(), buf.size(), 0, small, sizeof small), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(svp_acl_prof_get_op_name(buf.data(), buf.size(), 0, nullptr, 100), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(svp_acl_prof_get_op_type(buf.data(), buf.size(), 0, small, sizeof small), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(svp_acl_prof_get_op_start(buf.data(), buf.size(), 3), 0u);
  EXPECT_EQ(svp_acl_prof_get_model_id(nullptr, buf.size(), 0), 0u);
  EXPECT_EQ(svp_acl_prof_get_op_desc_size(nullptr), SVP_ACL_ERROR_INVALID_PARAM);

  // Not a record (bad header) and a record whose strings lost their terminator.
  std::vector<unsigned char> garbage(buf.size(), 0xAB);
  EXPECT_EQ(svp_acl_prof_get_op_num(garbage.data(), garbage.size(), &n), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(svp_acl_prof_get_op_duration(garbage.data(), garbage.size(), 0), 0u);
  auto unterminated = buf;
  std::memset(unterminated.data() + offsetof(svp::profiling::OpDesc, op_name), 'x', svp::profiling::kOpNameCapacity);
  EXPECT_EQ(svp_acl_prof_get_op_name_len(unterminated.data(), unterminated.size(), 0, &len), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("terminated"), std::string::npos);
}

TEST(ProfDecoders, LongNamesAreTruncatedToTheVendorLimits) {
  const std::string long_name(400, 'n');
  const std::string long_type(100, 't');
  auto buf = one_record(long_name.c_str(), long_type.c_str());
  size_t len = 0;
  ASSERT_EQ(svp_acl_prof_get_op_name_len(buf.data(), buf.size(), 0, &len), SVP_ACL_SUCCESS);
  EXPECT_EQ(len, static_cast<size_t>(SVP_ACL_PROF_MAX_OP_NAME_LEN));
  ASSERT_EQ(svp_acl_prof_get_op_type_len(buf.data(), buf.size(), 0, &len), SVP_ACL_SUCCESS);
  EXPECT_EQ(len, static_cast<size_t>(SVP_ACL_PROF_MAX_OP_TYPE_LEN));
}

}  // namespace
