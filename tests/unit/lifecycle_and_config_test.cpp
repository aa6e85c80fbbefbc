// Behaviour of svp_acl_init / svp_acl_finalize and of the acl.json configuration file.
//
// These tests manage init/finalize themselves (a plain ::testing::Test, not RuntimeTest)
// and always leave the library finalized.
#include <pthread.h>

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>

#include "runtime/config.h"
#include "target/device_profile.h"
#include "test_support.h"

namespace {

using svp::test::TaskOwner;
using svp::test::eventually;

using svp::test::TempConfig;

// Expects `call` to fail with `want` and to leave a recent-error message that names the
// failing API function and the code (so the message is fresh, not a left-over).

// Leaves the library finalized whatever the test did.
class LifecycleTest : public ::testing::Test {
 protected:
  void TearDown() override {
    const svp_acl_error rc = svp_acl_finalize();
    EXPECT_TRUE(rc == SVP_ACL_SUCCESS || rc == SVP_ACL_ERROR_REPEAT_FINALIZE || rc == SVP_ACL_ERROR_UNINITIALIZE)
        << rc;
  }
};

// ---------------------------------------------------------------------------------------
// init / finalize
// ---------------------------------------------------------------------------------------

// Runs in a freshly executed copy of the test binary (threadsafe death-test style), so
// svp_acl_init has really never been called in that process.
TEST_F(LifecycleTest, InAFreshProcessEveryApiFailsWithUninitializeUntilInit) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        int bad = 0;
        uint32_t count = 0;
        void* p = nullptr;
        svp_acl_rt_stream s = nullptr;
        if (svp_acl_rt_set_device(0) != SVP_ACL_ERROR_UNINITIALIZE) bad |= 1;
        if (svp_acl_rt_get_device_count(&count) != SVP_ACL_ERROR_UNINITIALIZE) bad |= 2;
        if (svp_acl_rt_malloc(&p, 64, SVP_ACL_MEM_MALLOC_NORMAL_ONLY) != SVP_ACL_ERROR_UNINITIALIZE) bad |= 4;
        if (svp_acl_rt_create_stream(&s) != SVP_ACL_ERROR_UNINITIALIZE) bad |= 8;
        if (svp_acl_finalize() != SVP_ACL_ERROR_UNINITIALIZE) bad |= 16;
        if (std::string(svp_acl_get_recent_err_msg()).empty()) bad |= 32;
        if (svp_acl_init(nullptr) != SVP_ACL_SUCCESS) bad |= 64;
        if (svp_acl_rt_get_device_count(&count) != SVP_ACL_SUCCESS || count != 1) bad |= 128;
        if (svp_acl_finalize() != SVP_ACL_SUCCESS) bad |= 256;
        std::_Exit(bad);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(LifecycleTest, ApisBeforeInitFailWithUninitialize) {
  uint32_t count = 0;
  void* p = nullptr;
  svp_acl_rt_context ctx = nullptr;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_UNINITIALIZE, svp_acl_rt_set_device(0));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_UNINITIALIZE, svp_acl_rt_get_device_count(&count));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_UNINITIALIZE, svp_acl_rt_create_context(&ctx, 0));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_UNINITIALIZE, svp_acl_rt_malloc(&p, 64, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_UNINITIALIZE, svp_acl_rt_process_report(0));
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(ctx, nullptr);
}

TEST_F(LifecycleTest, InitTwiceFailsWithRepeatInitialize) {
  ASSERT_ACL_OK(svp_acl_init(nullptr));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_REPEAT_INITIALIZE, svp_acl_init(nullptr));
  // Even with a broken configuration the second call is refused as a repeat first.
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_REPEAT_INITIALIZE, svp_acl_init("/nonexistent/acl.json"));
  // The first session is unharmed.
  EXPECT_ACL_OK(svp_acl_rt_set_device(0));
  EXPECT_ACL_OK(svp_acl_finalize());
}

TEST_F(LifecycleTest, FinalizeTwiceFailsWithRepeatFinalize) {
  ASSERT_ACL_OK(svp_acl_init(nullptr));
  ASSERT_ACL_OK(svp_acl_finalize());
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_REPEAT_FINALIZE, svp_acl_finalize());
}

TEST_F(LifecycleTest, ApisAfterFinalizeFailWithUninitialize) {
  ASSERT_ACL_OK(svp_acl_init(nullptr));
  ASSERT_ACL_OK(svp_acl_finalize());
  uint32_t count = 0;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_UNINITIALIZE, svp_acl_rt_set_device(0));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_UNINITIALIZE, svp_acl_rt_get_device_count(&count));
}

TEST_F(LifecycleTest, InitAfterFinalizeStartsAWorkingNewSession) {
  for (int session = 0; session < 3; ++session) {
    SCOPED_TRACE(session);
    ASSERT_ACL_OK(svp_acl_init(nullptr));
    ASSERT_ACL_OK(svp_acl_rt_set_device(0));
    svp_acl_rt_stream s = nullptr;
    ASSERT_ACL_OK(svp_acl_rt_create_stream(&s));
    std::atomic<int> ran{0};
    ASSERT_ACL_OK(svp_acl_ext_launch_segmented_task(
        [](void* d, uint32_t) -> svp_acl_error {
          static_cast<std::atomic<int>*>(d)->fetch_add(1);
          return SVP_ACL_SUCCESS;
        },
        &ran, 3, nullptr, s));
    ASSERT_ACL_OK(svp_acl_rt_synchronize_stream(s));
    EXPECT_EQ(ran.load(), 3);
    ASSERT_ACL_OK(svp_acl_rt_destroy_stream(s));
    ASSERT_ACL_OK(svp_acl_rt_reset_device(0));
    ASSERT_ACL_OK(svp_acl_finalize());
  }
}

TEST_F(LifecycleTest, HandlesOfAPreviousSessionAreRejectedAfterReinit) {
  ASSERT_ACL_OK(svp_acl_init(nullptr));
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  svp_acl_rt_context default_ctx = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_get_current_context(&default_ctx));
  svp_acl_rt_context ctx = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_context(&ctx, 0));
  svp_acl_rt_stream s = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&s));
  svp_acl_rt_event ev = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_event(&ev));
  void* mem = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_malloc(&mem, 256, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
  ASSERT_ACL_OK(svp_acl_finalize());

  ASSERT_ACL_OK(svp_acl_init(nullptr));
  // The finalizing thread has no current context in the new session.
  svp_acl_rt_context cur = nullptr;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_get_current_context(&cur));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_set_current_context(ctx));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_set_current_context(default_ctx));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_destroy_context(ctx));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_destroy_event(ev));
  svp_acl_rt_event_status st = SVP_ACL_EVENT_STATUS_RESERVED;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_query_event(ev, &st));

  // New objects of the new session may reuse the same slots: the old handles must still
  // be told apart from them.
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  svp_acl_rt_context ctx2 = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_context(&ctx2, 0));
  svp_acl_rt_stream s2 = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&s2));
  svp_acl_rt_event ev2 = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_event(&ev2));
  EXPECT_NE(s2, s);
  EXPECT_NE(ev2, ev);
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_synchronize_stream(s));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_destroy_stream(s));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_record_event(ev, s2));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, svp_acl_rt_query_event(ev, &st));
  // Device memory of the old session is gone with it.
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_PARAM, svp_acl_rt_free(mem));
  // The new objects work.
  EXPECT_ACL_OK(svp_acl_rt_record_event(ev2, s2));
  EXPECT_ACL_OK(svp_acl_rt_synchronize_event(ev2));
  EXPECT_ACL_OK(svp_acl_rt_destroy_event(ev2));
  EXPECT_ACL_OK(svp_acl_rt_destroy_stream(s2));
  EXPECT_ACL_OK(svp_acl_rt_destroy_context(ctx2));
  EXPECT_ACL_OK(svp_acl_finalize());
}

TEST_F(LifecycleTest, AnotherThreadsCurrentContextDoesNotSurviveReinit) {
  ASSERT_ACL_OK(svp_acl_init(nullptr));
  svp::test::Gate set, reinit_done;
  std::atomic<int> before{-1}, after{-1};
  std::thread worker([&] {
    before = svp_acl_rt_set_device(0);
    set.open();
    reinit_done.wait();
    svp_acl_rt_context cur = nullptr;
    after = svp_acl_rt_get_current_context(&cur);
  });
  set.wait();
  ASSERT_ACL_OK(svp_acl_finalize());
  ASSERT_ACL_OK(svp_acl_init(nullptr));
  reinit_done.open();
  worker.join();
  EXPECT_EQ(before.load(), SVP_ACL_SUCCESS);
  EXPECT_EQ(after.load(), SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_ACL_OK(svp_acl_finalize());
}

TEST_F(LifecycleTest, FinalizeWakesAThreadBlockedInProcessReport) {
  ASSERT_ACL_OK(svp_acl_init(nullptr));
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  svp::test::Gate subscribed;
  std::atomic<int> rc{-1};
  std::atomic<bool> returned{false};
  std::thread reporter([&] {
    subscribed.wait();
    rc = svp_acl_rt_process_report(-1);  // forever: only finalize can end it
    returned = true;
  });
  ASSERT_ACL_OK(svp_acl_rt_subscribe_report(static_cast<uint64_t>(reporter.native_handle()), nullptr));
  subscribed.open();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(returned.load()) << "process_report(-1) returned with nothing to do";
  ASSERT_ACL_OK(svp_acl_finalize());
  reporter.join();
  EXPECT_NE(rc.load(), SVP_ACL_SUCCESS);
  EXPECT_NE(rc.load(), -1);
}

TEST_F(LifecycleTest, FinalizeReleasesEverythingTheApplicationForgot) {
  ASSERT_ACL_OK(svp_acl_init(nullptr));
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));
  svp_acl_rt_context ctx = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_context(&ctx, 0));
  svp_acl_rt_stream s = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&s));
  svp_acl_rt_event ev = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_event(&ev));
  ASSERT_ACL_OK(svp_acl_rt_record_event(ev, s));
  void* mem = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_malloc_cached(&mem, 1024, SVP_ACL_MEM_MALLOC_HUGE_FIRST));
  std::atomic<int> ran{0};
  for (int i = 0; i < 8; ++i) {
    ASSERT_ACL_OK(svp_acl_ext_launch_segmented_task(
        [](void* d, uint32_t) -> svp_acl_error {
          static_cast<std::atomic<int>*>(d)->fetch_add(1);
          return SVP_ACL_SUCCESS;
        },
        &ran, 1, nullptr, s));
  }
  // No synchronize, no destroy, no reset: finalize must cope (and not hang).
  EXPECT_ACL_OK(svp_acl_finalize());
  EXPECT_LE(ran.load(), 8);
}

// ---------------------------------------------------------------------------------------
// acl.json
// ---------------------------------------------------------------------------------------

class ConfigTest : public LifecycleTest {
 protected:
  // svp_acl_init with `json` as the acl.json content; the returned code, with the
  // library finalized again on success.
  svp_acl_error init_with(const std::string& json, std::string* msg = nullptr) {
    TempConfig cfg(json);
    const svp_acl_error rc = svp_acl_init(cfg.path());
    if (msg != nullptr) *msg = rc == SVP_ACL_SUCCESS ? "" : svp_acl_get_recent_err_msg();
    if (rc != SVP_ACL_SUCCESS) {
      const std::string m = svp_acl_get_recent_err_msg();
      EXPECT_NE(m.find("svp_acl_init"), std::string::npos) << m;
      EXPECT_NE(m.find(std::to_string(rc)), std::string::npos) << m;
    } else {
      EXPECT_EQ(svp_acl_finalize(), SVP_ACL_SUCCESS);
    }
    return rc;
  }
  uint32_t device_count_with(const std::string& json) {
    TempConfig cfg(json);
    EXPECT_EQ(svp_acl_init(cfg.path()), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
    uint32_t n = 0;
    EXPECT_EQ(svp_acl_rt_get_device_count(&n), SVP_ACL_SUCCESS);
    EXPECT_EQ(svp_acl_finalize(), SVP_ACL_SUCCESS);
    return n;
  }
};

TEST_F(ConfigTest, NullEmptyPathAndEmptyObjectGiveTheDefaults) {
  for (const char* path : {static_cast<const char*>(nullptr), ""}) {
    ASSERT_ACL_OK(svp_acl_init(path));
    uint32_t n = 0;
    EXPECT_ACL_OK(svp_acl_rt_get_device_count(&n));
    EXPECT_EQ(n, 1u);
    ASSERT_ACL_OK(svp_acl_finalize());
  }
  EXPECT_EQ(device_count_with("{}"), 1u);
  EXPECT_EQ(device_count_with("  {\n}\n"), 1u);
}

TEST_F(ConfigTest, MissingFileFailsWithInvalidFile) {
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_FILE, svp_acl_init("/nonexistent/dir/acl.json"));
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("/nonexistent/dir/acl.json"), std::string::npos);
  // A failed init leaves the library uninitialised, and a later init works.
  uint32_t n = 0;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_UNINITIALIZE, svp_acl_rt_get_device_count(&n));
  EXPECT_ACL_OK(svp_acl_init(nullptr));
  EXPECT_ACL_OK(svp_acl_finalize());
}

TEST_F(ConfigTest, ADirectoryIsNotAReadableConfigFile) {
  // Regression: opening a directory "succeeds" on Linux and used to be reported as
  // malformed JSON (PARSE_FILE).
  char dir[] = "/tmp/svp_acl_cfg_dir_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_FILE, svp_acl_init(dir));
  rmdir(dir);
}

TEST_F(ConfigTest, MalformedJsonFailsWithParseFileNamingLineAndColumn) {
  std::string msg;
  // Line 3, column 5 holds the stray token.
  EXPECT_EQ(init_with("{\n  \"softnpu\": {},\n    x\n}\n", &msg), SVP_ACL_ERROR_PARSE_FILE);
  EXPECT_NE(msg.find("line 3, column 5"), std::string::npos) << msg;

  EXPECT_EQ(init_with("{\"softnpu\": {\"devices\": 2,}}", &msg), SVP_ACL_ERROR_PARSE_FILE);
  EXPECT_NE(msg.find("line 1, column"), std::string::npos) << msg;
  EXPECT_EQ(init_with("{\"profiler\": ", &msg), SVP_ACL_ERROR_PARSE_FILE);
  EXPECT_EQ(init_with("not json at all", &msg), SVP_ACL_ERROR_PARSE_FILE);
  // A number beyond a double is nlohmann's out_of_range, not a parse_error: it ended the
  // process in std::terminate (found by acl_json_fuzz).
  EXPECT_EQ(init_with(R"({"softnpu": {"wait_tick_us": 2e333333333}})", &msg), SVP_ACL_ERROR_PARSE_FILE);
  EXPECT_NE(msg.find("number overflow"), std::string::npos) << msg;
}

TEST_F(ConfigTest, TopLevelMustBeAnObject) {
  EXPECT_EQ(init_with("[]"), SVP_ACL_ERROR_PARSE_FILE);
  EXPECT_EQ(init_with("42"), SVP_ACL_ERROR_PARSE_FILE);
}

TEST_F(ConfigTest, NestingUpToTenLevelsIsAcceptedAndDeeperFailsWithParseFile) {
  auto nested_objects = [](int levels) {
    std::string s;
    for (int i = 0; i < levels; ++i) s += "{\"k\":";
    s += "1";
    for (int i = 0; i < levels; ++i) s += "}";
    return s;
  };
  // Arrays count too: one object plus (levels-1) arrays.
  auto nested_arrays = [](int levels) {
    std::string s = "{\"unknown_section\":";
    for (int i = 1; i < levels; ++i) s += "[";
    s += "1";
    for (int i = 1; i < levels; ++i) s += "]";
    return s + "}";
  };
  EXPECT_EQ(init_with(nested_objects(10)), SVP_ACL_SUCCESS);
  EXPECT_EQ(init_with(nested_arrays(10)), SVP_ACL_SUCCESS);
  std::string msg;
  EXPECT_EQ(init_with(nested_objects(11), &msg), SVP_ACL_ERROR_PARSE_FILE);
  EXPECT_NE(msg.find("10"), std::string::npos) << msg;
  EXPECT_EQ(init_with(nested_arrays(11)), SVP_ACL_ERROR_PARSE_FILE);
  EXPECT_EQ(init_with(nested_objects(40)), SVP_ACL_ERROR_PARSE_FILE);
}

// A host out of threads: the third emulated NPU core's thread fails to start (the fault
// backend's seam throws std::system_error as pthread_create's EAGAIN does). svp_acl_init
// returned nothing: std::terminate ended the process. Now: RT_FAILURE, the cores already
// started are stopped, and the next svp_acl_init works.
TEST_F(ConfigTest, AThreadThatCannotStartMakesInitFailWithRtFailureAndLeavesTheLibraryClean) {
  std::string msg;
  EXPECT_EQ(init_with(R"({"softnpu": {"cores": 4, "backend": "fault",
                                      "backend_options": {"fail_thread_start": "3"}}})", &msg),
            SVP_ACL_ERROR_RT_FAILURE);
  EXPECT_NE(msg.find("cannot start the threads"), std::string::npos) << msg;
  uint32_t n = 0;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_UNINITIALIZE, svp_acl_rt_get_device_count(&n));
  EXPECT_EQ(device_count_with(R"({"softnpu": {"devices": 2, "cores": 2}})"), 2u);
}

// A recursive depth check of the parsed tree overflowed the stack (SIGSEGV) on a file
// nested 100,000 deep (the bad-input probe, also through svp_run --acl_json_path).
TEST_F(ConfigTest, AFileNestedAHundredThousandDeepFailsWithParseFileNotACrash) {
  constexpr int kDeep = 100000;
  std::string msg;
  const std::string arrays = "{\"x\":" + std::string(kDeep, '[') + std::string(kDeep, ']') + "}";
  EXPECT_EQ(init_with(arrays, &msg), SVP_ACL_ERROR_PARSE_FILE);
  EXPECT_NE(msg.find("deeper than 10"), std::string::npos) << msg;
  std::string objects;
  for (int i = 0; i < kDeep; ++i) objects += "{\"k\":";
  objects += "1" + std::string(kDeep, '}');
  EXPECT_EQ(init_with(objects, &msg), SVP_ACL_ERROR_PARSE_FILE);
  EXPECT_NE(msg.find("deeper than 10"), std::string::npos) << msg;
  // Unclosed: still an error, not a crash.
  EXPECT_EQ(init_with(std::string(kDeep, '[')), SVP_ACL_ERROR_PARSE_FILE);
}

TEST_F(ConfigTest, UnknownSectionsAndKeysAreIgnored) {
  EXPECT_EQ(init_with(R"({"vendor_extra": {"a": [1, 2, {"b": "c"}]}, "x": 1})"), SVP_ACL_SUCCESS);
  EXPECT_EQ(device_count_with(R"({"softnpu": {"devices": 3, "no_such_key": true}})"), 3u);
}

TEST_F(ConfigTest, SoftnpuDevicesSetsTheDeviceCount) {
  TempConfig cfg(R"({"softnpu": {"devices": 2}})");
  ASSERT_ACL_OK(svp_acl_init(cfg.path()));
  uint32_t n = 0;
  EXPECT_ACL_OK(svp_acl_rt_get_device_count(&n));
  EXPECT_EQ(n, 2u);
  EXPECT_ACL_OK(svp_acl_rt_set_device(1));
  int32_t dev = -1;
  EXPECT_ACL_OK(svp_acl_rt_get_device(&dev));
  EXPECT_EQ(dev, 1);
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_DEVICE, svp_acl_rt_set_device(2));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_DEVICE, svp_acl_rt_set_device(-1));
  svp_acl_rt_context ctx = nullptr;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_DEVICE, svp_acl_rt_create_context(&ctx, 2));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_INVALID_DEVICE, svp_acl_rt_reset_device(2));
  EXPECT_ACL_OK(svp_acl_rt_reset_device(1));
  EXPECT_ACL_OK(svp_acl_finalize());
}

TEST_F(ConfigTest, ValidSoftnpuSettingsAreAccepted) {
  // Upper bounds (devices and cores separately: each core is a thread).
  EXPECT_EQ(device_count_with(R"({"softnpu": {"devices": 64}})"), 64u);
  EXPECT_EQ(init_with(R"({"softnpu": {"cores": 64, "cache_mode": "coherent", "strict": true,
                                       "backend": "softnpu", "max_streams": 1024, "wait_tick_us": 1,
                                       "wait_cap_ticks": 1048576}})"),
            SVP_ACL_SUCCESS);
  EXPECT_EQ(init_with(R"({"softnpu": {"devices": 1, "cores": 1, "cache_mode": "emulated", "strict": false,
                                       "max_streams": 2, "wait_tick_us": 60000000, "wait_cap_ticks": 1}})"),
            SVP_ACL_SUCCESS);
  EXPECT_EQ(init_with(R"({"softnpu": {"backend": "fault", "backend_options": {"fail_every_nth_task": "3"}}})"),
            SVP_ACL_SUCCESS);
}

TEST(ConfigParse, KernelThreadsDefaultsToOneAndIsRead) {
  auto d = svp::runtime::parse_config("{}", "test");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->kernel_threads, 1u);
  auto t = svp::runtime::parse_config(R"({"softnpu": {"kernel_threads": 2}})", "test");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->kernel_threads, 2u);
}

// The device memory limit is the board memory of the emulated SoC's profile unless
// device_memory_mb sets it (0 = none); an unknown SoC is refused naming the known ones.
TEST(ConfigParse, DeviceMemoryLimitIsTheSocProfilesBoardMemoryUnlessDeviceMemoryMbSetsIt) {
  auto d = svp::runtime::parse_config("{}", "test");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->backend.memory_limit, svp::target::default_profile().board_memory_bytes);
  EXPECT_EQ(d->backend.memory_limit, 4ull << 30);  // SS928V100, svp_atc's default target
  EXPECT_NE(d->backend.memory_limit_origin.find("SS928V100"), std::string::npos) << d->backend.memory_limit_origin;
  auto none = svp::runtime::load_config(nullptr);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->backend.memory_limit, d->backend.memory_limit);

  auto small = svp::runtime::parse_config(R"({"softnpu": {"soc_version": "Hi3516CV610"}})", "test");
  ASSERT_TRUE(small.ok()) << small.status().message();
  EXPECT_EQ(small->backend.memory_limit, svp::target::find_profile("Hi3516CV610")->board_memory_bytes);
  EXPECT_LT(small->backend.memory_limit, d->backend.memory_limit);

  auto set = svp::runtime::parse_config(R"({"softnpu": {"soc_version": "Hi3516CV610", "device_memory_mb": 64}})",
                                        "test");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->backend.memory_limit, 64ull << 20);
  EXPECT_NE(set->backend.memory_limit_origin.find("softnpu.device_memory_mb"), std::string::npos);
  auto unlimited = svp::runtime::parse_config(R"({"softnpu": {"device_memory_mb": 0}})", "test");
  ASSERT_TRUE(unlimited.ok()) << unlimited.status().message();
  EXPECT_EQ(unlimited->backend.memory_limit, 0u);

  auto bad = svp::runtime::parse_config(R"({"softnpu": {"soc_version": "Hi9999"}})", "test");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), svp::err::kFileAttrInvalid);
  EXPECT_NE(bad.status().message().find("Hi9999"), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("SS928V100"), std::string::npos) << bad.status().message();
  auto negative = svp::runtime::parse_config(R"({"softnpu": {"device_memory_mb": -1}})", "test");
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.status().message().find("device_memory_mb"), std::string::npos);
}

TEST_F(ConfigTest, OutOfRangeSoftnpuSettingsFailWithFileAttrInvalidNamingTheKey) {
  struct Case {
    const char* json;
    const char* key;
  };
  const Case cases[] = {
      {R"({"softnpu": {"devices": 0}})", "devices"},
      {R"({"softnpu": {"devices": 65}})", "devices"},
      {R"({"softnpu": {"devices": -1}})", "devices"},
      {R"({"softnpu": {"devices": 1.5}})", "devices"},
      {R"({"softnpu": {"devices": "2"}})", "devices"},
      {R"({"softnpu": {"cores": 0}})", "cores"},
      {R"({"softnpu": {"cores": 65}})", "cores"},
      {R"({"softnpu": {"max_streams": 1}})", "max_streams"},
      {R"({"softnpu": {"max_streams": 1025}})", "max_streams"},
      {R"({"softnpu": {"wait_tick_us": 0}})", "wait_tick_us"},
      {R"({"softnpu": {"wait_tick_us": 60000001}})", "wait_tick_us"},
      {R"({"softnpu": {"wait_cap_ticks": 0}})", "wait_cap_ticks"},
      {R"({"softnpu": {"wait_cap_ticks": 1048577}})", "wait_cap_ticks"},
      {R"({"softnpu": {"cache_mode": "writeback"}})", "cache_mode"},
      {R"({"softnpu": {"cache_mode": 1}})", "cache_mode"},
      {R"({"softnpu": {"strict": "yes"}})", "strict"},
      {R"({"softnpu": {"strict": 1}})", "strict"},
      {R"({"softnpu": {"backend": 7}})", "backend"},
      {R"({"softnpu": {"backend": "no_such_backend"}})", "no_such_backend"},
      {R"({"softnpu": {"backend_options": "fail"}})", "backend_options"},
      {R"({"softnpu": {"backend": "fault", "backend_options": {"fail_every_nth_task": "often"}}})",
       "fail_every_nth_task"},
      {R"({"softnpu": 5})", "softnpu"},
      {R"({"softnpu": {"kernel_threads": 0}})", "kernel_threads"},
      {R"({"softnpu": {"kernel_threads": 65}})", "kernel_threads"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.json);
    std::string msg;
    EXPECT_EQ(init_with(c.json, &msg), SVP_ACL_ERROR_FILE_ATTR_INVALID);
    EXPECT_NE(msg.find(c.key), std::string::npos) << msg;
  }
}

TEST_F(ConfigTest, ProfilerSwitchOffAcceptsEveryValidItem) {
  EXPECT_EQ(init_with(R"({"profiler": {"switch": "off"}})"), SVP_ACL_SUCCESS);
  EXPECT_EQ(init_with(R"({"profiler": {"switch": "off", "aicpu": "off", "acl_api": "on", "interval": "25",
                                        "output": "/tmp/prof", "aic_metrics": "ArithmeticUtilization"}})"),
            SVP_ACL_SUCCESS);
}

TEST_F(ConfigTest, InvalidProfilerValuesFailWithInvalidProfilingConfigNamingTheKey) {
  struct Case {
    const char* json;
    const char* key;
  };
  const Case cases[] = {
      {R"({"profiler": {}})", "switch"},
      {R"({"profiler": {"output": "/tmp"}})", "switch"},
      {R"({"profiler": {"switch": "yes"}})", "switch"},
      {R"({"profiler": {"switch": true}})", "switch"},
      {R"({"profiler": {"switch": "off", "aicpu": "maybe"}})", "aicpu"},
      {R"({"profiler": {"switch": "off", "acl_api": 1}})", "acl_api"},
      {R"({"profiler": {"switch": "off", "interval": "abc"}})", "interval"},
      {R"({"profiler": {"switch": "off", "interval": ""}})", "interval"},
      {R"({"profiler": {"switch": "off", "interval": 5}})", "interval"},
      {R"({"profiler": {"switch": "off", "interval": "-1"}})", "interval"},
      {R"({"profiler": {"switch": "off", "aic_metrics": "PipeUtilization"}})", "aic_metrics"},
      {R"({"profiler": {"switch": "off", "output": 3}})", "output"},
      {R"({"profiler": "on"})", "profiler"},
      // An invalid value is reported even when the switch is on.
      {R"({"profiler": {"switch": "on", "aicpu": "maybe"}})", "aicpu"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.json);
    std::string msg;
    EXPECT_EQ(init_with(c.json, &msg), SVP_ACL_ERROR_INVALID_PROFILING_CONFIG);
    EXPECT_NE(msg.find(c.key), std::string::npos) << msg;
  }
}

TEST_F(ConfigTest, DumpSectionIsValidatedNamingTheKey) {
  EXPECT_EQ(init_with(R"({"dump": {"dump_list": [{"model_name": "ResNet-50", "layer": ["conv1conv1_relu", "pool1"]}],
                                    "dump_path": "/tmp", "dump_mode": "output"}})"),
            SVP_ACL_SUCCESS);
  EXPECT_EQ(init_with(R"({"dump": {}})"), SVP_ACL_SUCCESS);  // enables nothing
  EXPECT_EQ(init_with(R"({"dump": "yes"})"), SVP_ACL_ERROR_INVALID_DUMP_CONFIG);
  const struct {
    const char* json;
    const char* key;
  } bad[] = {
      {R"({"dump": {"dump_list": []}})", "dump_path"},
      {R"({"dump": {"dump_list": [], "dump_path": "/nonexistent/dir"}})", "dump_path"},
      {R"({"dump": {"dump_list": [], "dump_path": "/tmp", "dump_mode": "weights"}})", "dump_mode"},
      {R"({"dump": {"dump_path": "/tmp"}})", "dump_list"},
      {R"({"dump": {"dump_path": "/tmp", "dump_list": [{"layer": ["a"]}]}})", "model_name"},
      {R"({"dump": {"dump_path": "/tmp", "dump_list": [{"model_name": "m", "layer": "a"}]}})", "layer"},
  };
  for (const auto& c : bad) {
    std::string msg;
    EXPECT_EQ(init_with(c.json, &msg), SVP_ACL_ERROR_INVALID_DUMP_CONFIG) << c.json;
    EXPECT_NE(msg.find(c.key), std::string::npos) << msg;
  }
}

TEST_F(ConfigTest, MaxStreamsLimitsStreamsPerDeviceIncludingDefaultStreams) {
  TempConfig cfg(R"({"softnpu": {"max_streams": 3}})");
  ASSERT_ACL_OK(svp_acl_init(cfg.path()));
  ASSERT_ACL_OK(svp_acl_rt_set_device(0));  // default stream: 1 of 3
  svp_acl_rt_stream a = nullptr, b = nullptr, c = nullptr;
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&a));
  ASSERT_ACL_OK(svp_acl_rt_create_stream(&b));
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_STORAGE_OVER_LIMIT, svp_acl_rt_create_stream(&c));
  EXPECT_EQ(c, nullptr);
  // A new context needs a default stream, which does not fit either.
  svp_acl_rt_context ctx = nullptr;
  EXPECT_ACL_ERROR(SVP_ACL_ERROR_STORAGE_OVER_LIMIT, svp_acl_rt_create_context(&ctx, 0));
  ASSERT_ACL_OK(svp_acl_rt_destroy_stream(a));
  EXPECT_ACL_OK(svp_acl_rt_create_stream(&c));
  EXPECT_ACL_OK(svp_acl_finalize());
}

}  // namespace
