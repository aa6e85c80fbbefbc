// The C++ API (include/svp/acl.hpp) without Asio: ownership and move semantics, the
// error type and the std::error_code overloads on every kind of failure, model I/O built
// per spec §2.2 with stride-aware views, memory, events, AIPP sets and profiling.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "cpp_api_support.h"

namespace {

namespace acl = svp::acl;
using svp::test::CppApiTest;
using svp::test::random_floats;
using svp::test::relu;

TEST(CppApiError, ThrowsWithVendorCodeFunctionAndLibraryMessage) {
  auto rt = acl::runtime::init();
  EXPECT_ACL_THROW(acl::runtime::init(), SVP_ACL_ERROR_REPEAT_INITIALIZE, "svp_acl_init");
  try {
    (void)acl::runtime::init();
  } catch (const acl::error& e) {
    EXPECT_EQ(e.code(), acl::errc::repeat_initialize);
    EXPECT_EQ(&e.code().category(), &acl::category());
    EXPECT_NE(std::string(e.what()).find("SVP_ACL_ERROR_REPEAT_INITIALIZE"), std::string::npos) << e.what();
  }
  rt.finalize();
}

TEST(CppApiError, ErrorCodeOverloadSetsCodeAndLastFailure) {
  std::error_code ec;
  auto rt = acl::runtime::init(nullptr, ec);
  ASSERT_FALSE(ec);
  acl::device bad(rt, 77, ec);
  EXPECT_EQ(ec, acl::errc::invalid_device);
  EXPECT_FALSE(bad);
  EXPECT_EQ(acl::last_failure().function, "svp_acl_rt_set_device");
  EXPECT_NE(acl::last_failure().message.find("77"), std::string::npos) << acl::last_failure().message;
  acl::device good(rt, 0, ec);
  EXPECT_FALSE(ec) << "a success clears the code";
  good = {};
  rt.finalize(ec);
  EXPECT_FALSE(ec);
}

TEST(CppApiError, CategoryNamesEveryVendorCode) {
  EXPECT_STREQ(acl::category().name(), "svp_acl");
  EXPECT_EQ(acl::category().message(SVP_ACL_ERROR_STREAM_NOT_SUBSCRIBE), "SVP_ACL_ERROR_STREAM_NOT_SUBSCRIBE (100034)");
  EXPECT_EQ(acl::category().message(SVP_ACL_ERROR_RT_REPORT_TIMEOUT), "SVP_ACL_ERROR_RT_REPORT_TIMEOUT (507012)");
  EXPECT_EQ(acl::category().message(42), "svp_acl error 42");
}

TEST_F(CppApiTest, EmptyHandlesReportInvalidParamInsteadOfCrashing) {
  acl::stream s(ctx);
  acl::stream moved = std::move(s);
  EXPECT_FALSE(s);  // NOLINT(bugprone-use-after-move): the point of the test
  EXPECT_TRUE(moved);
  EXPECT_ACL_THROW(s.synchronize(), SVP_ACL_ERROR_INVALID_PARAM, "svp::acl::stream::synchronize");
  std::error_code ec;
  acl::event(ctx).record(s, ec);
  EXPECT_EQ(ec, acl::errc::invalid_param);
  EXPECT_ACL_THROW(acl::stream{acl::context{}}, SVP_ACL_ERROR_INVALID_PARAM, "svp::acl::stream");
  EXPECT_ACL_THROW(acl::model(acl::runtime{}, std::vector<std::uint8_t>{1}), SVP_ACL_ERROR_INVALID_PARAM,
                   "svp::acl::model");
  EXPECT_ACL_THROW(acl::data_buffer(acl::device_memory{}, 16), SVP_ACL_ERROR_INVALID_PARAM, "svp::acl::data_buffer");
  EXPECT_ACL_THROW(acl::dataset{}.add(acl::data_buffer{}), SVP_ACL_ERROR_INVALID_PARAM, "svp::acl::dataset::add");
}

TEST_F(CppApiTest, MoveAssignmentReleasesTheOverwrittenObject) {
  acl::stream a(ctx);
  acl::stream b(ctx);
  const svp_acl_rt_stream old = a.native_handle();
  a = std::move(b);
  EXPECT_FALSE(b);  // NOLINT(bugprone-use-after-move)
  ctx.make_current();
  // The first stream was destroyed by the assignment: its C handle is stale now.
  EXPECT_EQ(svp_acl_rt_synchronize_stream(old), SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE);
  a.synchronize();
}

TEST_F(CppApiTest, FinalizeIsRejectedWhileObjectsHoldTheRuntime) {
  acl::stream s(ctx);
  EXPECT_ACL_THROW(rt.finalize(), SVP_ACL_ERROR_INVALID_PARAM, "svp::acl::runtime::finalize");
  EXPECT_TRUE(rt) << "a rejected finalize leaves the runtime usable";
  s.synchronize();
}

TEST(CppApiOwnership, DroppingTheRuntimeFirstDefersFinalizeToTheLastObject) {
  std::optional<acl::stream> s;
  std::optional<acl::model> m;
  {
    auto rt = acl::runtime::init();
    acl::device dev(rt, 0);
    acl::context ctx(dev);
    s.emplace(ctx);
    m.emplace(rt, svp::test::relu_model_image());
  }  // runtime, device and context handles gone; the stream and model keep them alive
  s->synchronize();
  EXPECT_EQ(m->describe().num_outputs(), 1u);
  EXPECT_EQ(svp_acl_init(nullptr), SVP_ACL_ERROR_REPEAT_INITIALIZE) << "still initialised";
  s.reset();
  m.reset();  // the last holder: svp_acl_finalize runs here
  EXPECT_EQ(svp_acl_init(nullptr), SVP_ACL_SUCCESS) << "finalized when the last object went";
  EXPECT_EQ(svp_acl_finalize(), SVP_ACL_SUCCESS);
}

TEST_F(CppApiTest, DescriptionNamesTensorsWithShapeTypeFormatAndStride) {
  const acl::model_desc d = mdl.describe();
  ASSERT_EQ(d.num_inputs(), 3u);
  EXPECT_EQ(d.num_data_inputs(), 1u);
  const acl::tensor_desc x = d.input("x");
  EXPECT_EQ(x.index, 0u);
  EXPECT_EQ(x.dims, (std::vector<std::int64_t>{1, 2, 4, 6}));
  EXPECT_EQ(x.data_type, SVP_ACL_FLOAT);
  EXPECT_EQ(x.format, SVP_ACL_FORMAT_NCHW);
  EXPECT_EQ(x.row_bytes(), 24u);
  EXPECT_EQ(x.default_stride, 32u);
  EXPECT_EQ(x.size, 8u * 32u);
  EXPECT_EQ(d.output("y").dims, x.dims);
  EXPECT_EQ(d.task_buf().name, "task_buf");
  EXPECT_EQ(d.work_buf().name, "work_buf");
  EXPECT_ACL_THROW(d.input("nope"), SVP_ACL_ERROR_INVALID_PARAM, "svp_acl_mdl_get_input_index_by_name");
  EXPECT_ACL_THROW(d.output(5), SVP_ACL_ERROR_INVALID_PARAM, "svp_acl_mdl_get_output_dims");
}

TEST_F(CppApiTest, ModelIoBuildsTheVendorDatasetLayout) {
  acl::model_io io(rt, mdl);
  const acl::model_desc& d = io.desc();
  ASSERT_EQ(io.inputs().size(), d.num_inputs()) << "data inputs, task_buf, work_buf";
  ASSERT_EQ(io.outputs().size(), d.num_outputs());
  for (std::size_t i = 0; i < d.num_inputs(); ++i) {
    const acl::tensor_desc t = d.input(i);
    EXPECT_EQ(svp_acl_get_data_buffer_size(io.inputs().buffer(i)), t.size) << t.name;
    EXPECT_EQ(svp_acl_get_data_buffer_stride(io.inputs().buffer(i)), t.default_stride) << t.name;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(svp_acl_get_data_buffer_addr(io.inputs().buffer(i))) % 16, 0u);
  }
}

TEST_F(CppApiTest, ExecutionRoundTripsThroughStridedViewsWithoutTouchingPadding) {
  acl::model_io io(rt, mdl);
  const acl::tensor_view y = io.output("y");
  for (std::size_t r = 0; r < y.rows(); ++r) std::memset(y.row(r), 0xAB, y.stride());
  const std::vector<float> x = random_floats(48, 7);
  io.input("x").assign(x);
  mdl.execute(ctx, io.inputs(), io.outputs());
  EXPECT_EQ(y.to_vector<float>(), relu(x));
  for (std::size_t r = 0; r < y.rows(); ++r) {
    for (std::size_t b = y.row_bytes(); b < y.stride(); ++b) {
      ASSERT_EQ(static_cast<unsigned>(y.row(r)[b]), 0xABu) << "row " << r << " padding byte " << b;
    }
  }
}

TEST_F(CppApiTest, CustomStrideScalesBuffersAndStillComputes) {
  acl::io_options o;
  o.stride = [](const acl::tensor_desc&) { return std::size_t{64}; };
  acl::model_io io(rt, mdl, o);
  EXPECT_EQ(svp_acl_get_data_buffer_stride(io.inputs().buffer(0)), 64u);
  EXPECT_EQ(svp_acl_get_data_buffer_size(io.inputs().buffer(0)), 8u * 64u);
  EXPECT_EQ(io.output(0).stride(), 64u);
  const std::vector<float> x = random_floats(48, 8);
  io.input(0).assign(x);
  mdl.execute(ctx, io.inputs(), io.outputs());
  EXPECT_EQ(io.output(0).to_vector<float>(), relu(x));

  o.stride = [](const acl::tensor_desc&) { return std::size_t{40}; };
  EXPECT_ACL_THROW(acl::model_io(rt, mdl, o), SVP_ACL_ERROR_INVALID_PARAM, "svp::acl::model_io");
}

TEST_F(CppApiTest, BatchedModelIoScalesDataBuffersAndSetsTheBatch) {
  acl::io_options o;
  o.batch = 3;
  acl::model_io io(rt, mdl, o);
  EXPECT_EQ(svp_acl_get_data_buffer_size(io.inputs().buffer(0)), 3u * 8u * 32u);
  EXPECT_EQ(svp_acl_get_data_buffer_size(io.inputs().buffer(1)), io.desc().task_buf().size) << "never scaled";
  std::vector<std::vector<float>> xs;
  for (std::uint64_t i = 0; i < 3; ++i) {
    xs.push_back(random_floats(48, 20 + static_cast<unsigned>(i)));
    io.input("x").assign(xs.back(), i);
  }
  mdl.execute(ctx, io.inputs(), io.outputs());
  for (std::uint64_t i = 0; i < 3; ++i) EXPECT_EQ(io.output("y").to_vector<float>(i), relu(xs[i])) << i;
  EXPECT_ACL_THROW(io.output("y").to_vector<float>(3), SVP_ACL_ERROR_INVALID_PARAM, "svp::acl::tensor_view::to_vector");
}

TEST_F(CppApiTest, ViewsRejectWrongTypesSizesAndRows) {
  acl::model_io io(rt, mdl);
  const acl::tensor_view x = io.input("x");
  EXPECT_ACL_THROW(x.to_vector<std::int16_t>(), SVP_ACL_ERROR_INVALID_PARAM, "svp::acl::tensor_view::to_vector");
  EXPECT_ACL_THROW(x.assign(std::vector<float>(47)), SVP_ACL_ERROR_INVALID_PARAM, "svp::acl::tensor_view::write");
  EXPECT_ACL_THROW(x.row(8), SVP_ACL_ERROR_INVALID_PARAM, "svp::acl::tensor_view::row");
  EXPECT_ACL_THROW(acl::tensor_view{}.row(0), SVP_ACL_ERROR_INVALID_PARAM, "svp::acl::tensor_view::row");
}

TEST_F(CppApiTest, CachedModelIoNeedsFlushAndInvalidate) {
  acl::io_options o;
  o.cached = true;
  acl::model_io io(rt, mdl, o);
  const std::vector<float> x = random_floats(48, 9);
  io.input("x").assign(x);
  io.flush_inputs();
  mdl.execute(ctx, io.inputs(), io.outputs());
  io.invalidate_outputs();
  EXPECT_EQ(io.output("y").to_vector<float>(), relu(x));
}

TEST_F(CppApiTest, CachedMemoryChecksRangesAndMaintainsCaches) {
  acl::cached_memory m(rt, 256);
  std::memset(m.data(), 1, m.size());
  m.flush();
  m.invalidate(64, 64);
  EXPECT_ACL_THROW(m.flush(200, 100), SVP_ACL_ERROR_INVALID_PARAM, "svp::acl::cached_memory::flush");
  std::error_code ec;
  acl::device_memory none(rt, 0, SVP_ACL_MEM_MALLOC_NORMAL_ONLY, ec);
  EXPECT_EQ(ec, acl::errc::invalid_param);
  EXPECT_EQ(acl::last_failure().function, "svp_acl_rt_malloc");
}

TEST_F(CppApiTest, DataBufferKeepsItsMemoryAlive) {
  acl::data_buffer b;
  {
    acl::device_memory m(rt, 128);
    b = acl::data_buffer(m, 16);
  }
  // The allocation outlives its handle while the descriptor references it.
  std::memset(b.data(), 0, b.size());
  EXPECT_EQ(b.size(), 128u);
  EXPECT_EQ(b.stride(), 16u);
}

TEST_F(CppApiTest, LoadingGarbageNamesTheLoader) {
  std::vector<std::uint8_t> junk(4096, 0x5A);
  try {
    acl::model bad(rt, junk);
    ADD_FAILURE() << "loaded garbage";
  } catch (const acl::error& e) {
    EXPECT_EQ(e.function(), "svp_acl_mdl_load_from_mem");
    EXPECT_EQ(e.vendor_code(), SVP_ACL_ERROR_DESERIALIZE_MODEL) << e.what();
    // The library's message starts with the function's name; what() says it once.
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("svp_acl_mdl_load_from_mem: ", 0), 0u) << what;
    EXPECT_EQ(what.find("svp_acl_mdl_load_from_mem", 1), std::string::npos) << what;
  }
}

TEST_F(CppApiTest, ModelConfigLoadsAndReconfiguresScheduling) {
  auto cfg = acl::model_config::create();
  cfg.priority(1).preemption(false);
  acl::model m(rt, svp::test::relu_model_image(), cfg);
  std::int32_t priority = -1;
  ASSERT_EQ(svp_acl_mdl_get_config_opt(cfg.native_handle(), SVP_ACL_MDL_PRIORITY_INT32, &priority, sizeof priority),
            SVP_ACL_SUCCESS);
  EXPECT_EQ(priority, 1);
  acl::model_io io(rt, m);
  m.execute(ctx, io.inputs(), io.outputs());
  EXPECT_ACL_THROW(cfg.priority(9), SVP_ACL_ERROR_INVALID_PARAM, "svp_acl_mdl_set_config_opt");
  m.configure(acl::model_config::create().step_promotion_ms(50));
  EXPECT_ACL_THROW(acl::model_config{}.priority(1), SVP_ACL_ERROR_INVALID_PARAM, "svp::acl::model_config");
}

TEST_F(CppApiTest, EventsRecordSynchronizeAndMeasure) {
  acl::stream s(ctx);
  acl::event a(ctx), b(ctx);
  EXPECT_FALSE(a.query()) << "never recorded";
  EXPECT_ACL_THROW(a.synchronize(), SVP_ACL_ERROR_INVALID_PARAM, "svp_acl_rt_synchronize_event");
  acl::model_io io(rt, mdl);
  a.record(s);
  mdl.execute(ctx, io.inputs(), io.outputs());
  b.record(s);
  b.synchronize();
  EXPECT_TRUE(b.query());
  EXPECT_GE(b.elapsed_since(a), 0.0f);
  s.wait(b);
  s.synchronize();
}

TEST_F(CppApiTest, AippSetReportsTheRejectingSetter) {
  acl::aipp_set aipp(rt, 1);
  aipp.input_format(SVP_ACL_YUV420SP_U8).src_image_size(64, 32);
  EXPECT_ACL_THROW(aipp.crop(0, 0, 16, 16, /*batch=*/4), SVP_ACL_ERROR_INVALID_PARAM, "svp_acl_mdl_set_aipp_crop_params");
  acl::model_io io(rt, mdl);
  // The relu model has no dynamic-AIPP input.
  std::error_code ec;
  aipp.apply_to_input(mdl, io, 0, ec);
  EXPECT_TRUE(ec);
  EXPECT_EQ(acl::last_failure().function, "svp_acl_mdl_set_aipp_by_input_index");
}

TEST_F(CppApiTest, ProfilingSubscriptionWritesOneRecordPerOperator) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  {
    acl::prof_subscribe_config cfg(rt, fds[1]);
    acl::prof_subscription sub(mdl, cfg);
    EXPECT_ACL_THROW(acl::prof_subscription(mdl, cfg), SVP_ACL_ERROR_PROF_REPEAT_SUBSCRIBE,
                     "svp_acl_prof_model_subscribe");
    acl::model_io io(rt, mdl);
    mdl.execute(ctx, io.inputs(), io.outputs());
  }  // unsubscribed, configuration destroyed
  close(fds[1]);
  std::vector<char> data;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) data.insert(data.end(), buf, buf + n);
  close(fds[0]);
  std::uint32_t ops = 0;
  ASSERT_EQ(svp_acl_prof_get_op_num(data.data(), data.size(), &ops), SVP_ACL_SUCCESS) << data.size();
  EXPECT_EQ(ops, 1u) << "one Relu executed once";
}

TEST_F(CppApiTest, ProfilingCollectionWritesAJobDirectory) {
  char tmpl[] = "/tmp/svp_cpp_prof_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  {
    acl::prof_session session(rt, dir);
    acl::prof_config cfg(rt, {0}, SVP_ACL_PROF_ACL_API | SVP_ACL_PROF_TASK_TIME);
    acl::prof_collection run(session, cfg);
    EXPECT_ACL_THROW(acl::prof_collection(session, cfg), SVP_ACL_ERROR_PROF_ALREADY_RUN, "svp_acl_prof_start");
    acl::model_io io(rt, mdl);
    mdl.execute(ctx, io.inputs(), io.outputs());
  }  // stop, destroy the configuration, finalize: in that order, by ownership
  const std::string ls = "ls -d " + dir + "/JOB* > /dev/null 2>&1";
  EXPECT_EQ(std::system(ls.c_str()), 0) << "no JOB directory in " << dir;
  const std::string rm = "rm -rf " + dir;
  EXPECT_EQ(std::system(rm.c_str()), 0);
}

TEST_F(CppApiTest, ProfilingFileModeNeedsAnExistingDirectory) {
  EXPECT_ACL_THROW(acl::prof_session(rt, "/nonexistent/svp_prof_dir"), SVP_ACL_ERROR_INVALID_PARAM,
                   "svp_acl_prof_init");
  acl::prof_config cfg(rt, {0}, SVP_ACL_PROF_ACL_API | SVP_ACL_PROF_TASK_TIME);
  EXPECT_TRUE(cfg);
}

}  // namespace
