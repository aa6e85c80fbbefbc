// The Boost.Asio side of the C++ API (include/svp/acl/asio.hpp): completions on the
// handler's executor, NPU errors as error codes, many executions over several streams
// into one io_context with two threads and strands, io_context stop and destruction
// while the NPU works, teardown of streams/models/contexts with work in flight, and the
// operation_aborted cases.
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/system/system_error.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "cpp_api_support.h"

namespace {

namespace acl = svp::acl;
namespace net = boost::asio;
using boost::system::error_code;
using svp::test::CppApiTest;
using svp::test::Gate;
using svp::test::random_floats;
using svp::test::relu;
using namespace std::chrono_literals;

static_assert(SVP_ACL_WITH_ASIO == 1, "Boost is installed: the Asio part must be active");

class CppAsioTest : public CppApiTest, protected svp::test::TaskHelpers {
 protected:
  void TearDown() override {
    open_gates();
    CppApiTest::TearDown();
  }
  // A synthetic NPU task on `s` that blocks until `g` opens.
  void block(const acl::stream& s, Gate& g) {
    ctx.make_current();
    ASSERT_EQ(launch_gated(s.native_handle(), g), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
  }
};

TEST_F(CppAsioTest, ExecutionCompletesOnTheHandlersExecutorWithTheOutputs) {
  net::io_context ioc;
  acl::stream s(ctx);
  acl::model_io io(rt, mdl);
  const std::vector<float> x = random_floats(48, 3);
  io.input("x").assign(x);
  std::thread::id ran_on;
  error_code result = net::error::would_block;
  acl::async_execute(mdl, io, s, net::bind_executor(ioc, [&](error_code ec) {
                       ran_on = std::this_thread::get_id();
                       result = ec;
                     }));
  EXPECT_EQ(result, net::error::would_block) << "never completed inline";
  ioc.run();  // returns once the completion ran: the operation counts as work
  EXPECT_FALSE(result) << result.message();
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  EXPECT_EQ(io.output("y").to_vector<float>(), relu(x));
}

TEST_F(CppAsioTest, AThousandExecutionsOverFourStreamsCompleteInOrderOnStrands) {
  constexpr int kStreams = 4;
  constexpr int kPerStream = 250;
  net::io_context ioc;
  struct lane {
    std::optional<acl::stream> stream;
    std::optional<acl::model_io> io;
    std::optional<net::strand<net::io_context::executor_type>> strand;
    std::vector<int> order;  // touched only on the strand: TSan checks the serialisation
    int errors = 0;
  };
  std::array<lane, kStreams> lanes;
  for (lane& l : lanes) {
    l.stream.emplace(ctx);
    l.io.emplace(rt, mdl);
    l.io->input("x").assign(random_floats(48, 5));
    l.strand.emplace(net::make_strand(ioc));
  }
  for (int i = 0; i < kPerStream; ++i) {
    for (lane& l : lanes) {
      acl::async_execute(mdl, *l.io, *l.stream, net::bind_executor(*l.strand, [&l, i](error_code ec) {
                           l.order.push_back(i);
                           if (ec) ++l.errors;
                         }));
    }
  }
  std::thread second([&] { ioc.run(); });
  ioc.run();
  second.join();
  for (const lane& l : lanes) {
    ASSERT_EQ(l.order.size(), static_cast<std::size_t>(kPerStream));
    EXPECT_EQ(l.errors, 0);
    for (int i = 0; i < kPerStream; ++i) ASSERT_EQ(l.order[i], i) << "a stream completes in submission order";
  }
}

TEST_F(CppAsioTest, FailedNpuWorkArrivesAsTheHandlersErrorCode) {
  net::io_context ioc;
  acl::stream s(ctx);
  ctx.make_current();
  ASSERT_EQ(tasks_.launch(s.native_handle(), [](std::uint32_t) { return SVP_ACL_ERROR_FAILURE; }), SVP_ACL_SUCCESS);
  error_code result;
  s.async_wait(net::bind_executor(ioc, [&](error_code ec) { result = ec; }));
  ioc.run();
  EXPECT_EQ(result, error_code(SVP_ACL_ERROR_FAILURE, acl::asio_category())) << result.message();
  const std::error_code as_std = result;  // Boost.System converts to std::error_code
  EXPECT_EQ(as_std.value(), SVP_ACL_ERROR_FAILURE);
  EXPECT_NE(as_std.message().find("SVP_ACL_ERROR_FAILURE"), std::string::npos) << as_std.message();
  // As with the C API, the failure stays on the stream until a synchronize reports it.
  EXPECT_ACL_THROW(s.synchronize(), SVP_ACL_ERROR_FAILURE, "svp_acl_rt_synchronize_stream");
  // use_future: a successful wait leaves a ready future (a failed one would throw
  // boost::system::system_error from get(); see the coroutine test for the throwing path).
  std::future<void> ok = s.async_wait(net::use_future);
  EXPECT_NO_THROW(ok.get());
}

TEST_F(CppAsioTest, AnExecutionTheNpuCannotRunReportsTheModelError) {
  net::io_context ioc;
  acl::stream s(ctx);
  acl::model_io io(rt, mdl);
  // Input memory the NPU cannot reach (not from svp_acl_rt_malloc): the task fails.
  std::unique_ptr<void, decltype(&std::free)> host(std::aligned_alloc(64, 256), &std::free);
  ASSERT_EQ(svp_acl_update_data_buffer(io.inputs().buffer(0), host.get(), 256, 32), SVP_ACL_SUCCESS);
  error_code result;
  acl::async_execute(mdl, io, s, net::bind_executor(ioc, [&](error_code ec) { result = ec; }));
  ioc.run();
  EXPECT_TRUE(result);
  EXPECT_EQ(&result.category(), &acl::asio_category()) << result.message();
  std::error_code ec;
  s.synchronize(ec);  // clears the stream's error before the buffer goes away
}

TEST_F(CppAsioTest, SubmissionErrorsArePostedNotRaised) {
  net::io_context ioc;
  acl::stream s(ctx);
  acl::model_io io(rt, mdl);
  // Outputs where inputs belong: rejected by svp_acl_mdl_execute_async at once.
  error_code result;
  bool called = false;
  acl::async_execute(mdl, io.outputs(), io.outputs(), s, net::bind_executor(ioc, [&](error_code ec) {
                       called = true;
                       result = ec;
                     }));
  EXPECT_FALSE(called) << "not from inside the initiating function";
  ioc.run();
  ASSERT_TRUE(called);
  EXPECT_EQ(result, error_code(SVP_ACL_ERROR_INVALID_PARAM, acl::asio_category())) << result.message();
  // Empty objects too.
  acl::async_wait(acl::stream{}, net::bind_executor(ioc, [&](error_code ec) { result = ec; }));
  ioc.restart();
  ioc.run();
  EXPECT_EQ(result.value(), SVP_ACL_ERROR_INVALID_PARAM);
}

TEST_F(CppAsioTest, CompletionsAfterIoContextStopRunOnRestart) {
  net::io_context ioc;
  acl::stream s(ctx);
  acl::model_io io(rt, mdl);
  int done = 0;
  ioc.stop();
  for (int i = 0; i < 20; ++i) {
    acl::async_execute(mdl, io, s, net::bind_executor(ioc, [&](error_code ec) { done += ec ? 0 : 1; }));
  }
  s.synchronize();  // the NPU finished; the completions are queued on the stopped context
  EXPECT_EQ(ioc.run(), 0u) << "a stopped io_context runs nothing";
  EXPECT_EQ(done, 0);
  ioc.restart();
  ioc.run();
  EXPECT_EQ(done, 20);
}

TEST_F(CppAsioTest, DestroyingTheIoContextFirstDropsHandlersUnrun) {
  acl::stream s(ctx);
  Gate& gate = new_gate();
  block(s, gate);
  auto sentinel = std::make_shared<int>(0);
  bool ran = false;
  {
    net::io_context ioc;
    s.async_wait(net::bind_executor(ioc, [&ran, sentinel](error_code) { ran = true; }));
    EXPECT_EQ(sentinel.use_count(), 2);
  }  // destroyed while the NPU is still blocked
  EXPECT_EQ(sentinel.use_count(), 1) << "the handler was destroyed with its execution context";
  gate.open();
  s.synchronize();  // the callback still arrives and must not touch the dead io_context
  EXPECT_FALSE(ran);
}

TEST_F(CppAsioTest, DroppingEveryHandleWithWorkInFlightStillCompletes) {
  net::io_context ioc;
  std::atomic<int> ok{0};
  Gate& gate = new_gate();
  {
    acl::context own(dev);
    acl::stream s(own);
    acl::model m(rt, svp::test::relu_model_image());
    acl::model_io io(rt, m);
    own.make_current();
    ASSERT_EQ(launch_gated(s.native_handle(), gate), SVP_ACL_SUCCESS);
    for (int i = 0; i < 8; ++i) {
      acl::async_execute(m, io, s, net::bind_executor(ioc, [&](error_code ec) { ok += ec ? 0 : 1; }));
    }
    std::thread opener([&] {
      std::this_thread::sleep_for(20ms);
      gate.open();
    });
    // Model, datasets, stream and context handles go now, in the worst order: the stream
    // waits for its work, the model and the datasets live on in the operations.
    m = {};
    io = {};
    s = {};
    own = {};
    opener.join();
  }
  ioc.run();
  EXPECT_EQ(ok.load(), 8);
}

TEST_F(CppAsioTest, StreamTornDownAfterASynchronizeTimeoutAbortsItsOperations) {
  ASSERT_EQ(svp_acl_rt_set_op_wait_timeout(1), SVP_ACL_SUCCESS);
  net::io_context ioc;
  error_code result;
  Gate& gate = new_gate();
  std::thread opener;
  {
    acl::stream s(ctx);
    block(s, gate);
    s.async_wait(net::bind_executor(ioc, [&](error_code ec) { result = ec; }));
    opener = std::thread([&] {
      std::this_thread::sleep_for(1500ms);  // after the 1 s synchronize timeout
      gate.open();
    });
  }  // synchronize times out, destroy_stream cancels the queued callback
  opener.join();
  ioc.run();
  EXPECT_EQ(result, net::error::operation_aborted) << result.message();
  ASSERT_EQ(svp_acl_rt_set_op_wait_timeout(0), SVP_ACL_SUCCESS);
}

TEST_F(CppAsioTest, EventWaitCompletesWhenTheRecordDoes) {
  net::io_context ioc;
  acl::stream s(ctx);
  acl::event ev(ctx);
  Gate& gate = new_gate();
  block(s, gate);
  ev.record(s);
  bool done = false;
  error_code result;
  ev.async_wait(net::bind_executor(ioc, [&](error_code ec) {
    done = true;
    result = ec;
  }));
  ioc.poll();
  std::this_thread::sleep_for(20ms);
  ioc.poll();
  EXPECT_FALSE(done) << "the record is behind a blocked task";
  gate.open();
  ioc.run();
  EXPECT_TRUE(done);
  EXPECT_FALSE(result) << result.message();
}

TEST_F(CppAsioTest, EventWaitOnANeverRecordedEventFails) {
  net::io_context ioc;
  acl::event ev(ctx);
  error_code result;
  ev.async_wait(net::bind_executor(ioc, [&](error_code ec) { result = ec; }));
  ioc.run();
  EXPECT_EQ(result, error_code(SVP_ACL_ERROR_INVALID_PARAM, acl::asio_category())) << result.message();
}

TEST_F(CppAsioTest, EventDestroyedWhileAwaitedCompletesWithAnError) {
  net::io_context ioc;
  acl::stream s(ctx);
  Gate& gate = new_gate();
  block(s, gate);
  error_code result;
  {
    acl::event ev(ctx);
    ev.record(s);
    ev.async_wait(net::bind_executor(ioc, [&](error_code ec) { result = ec; }));
  }
  ioc.run();
  EXPECT_EQ(result, error_code(SVP_ACL_ERROR_INVALID_RESOURCE_HANDLE, acl::asio_category()))
      << "the awaited event is gone: " << result.message();
  gate.open();
}

TEST_F(CppAsioTest, AiCpuOperatorsOfAsyncExecutionsRunOnTheWorker) {
  acl::model m(rt, svp::test::relu_model_image(/*aicpu=*/true));
  std::uint32_t aicpu = 0;
  ASSERT_EQ(svp_acl_ext_get_mdl_aicpu_task_num(m.id(), &aicpu), SVP_ACL_SUCCESS);
  ASSERT_EQ(aicpu, 1u);
  acl::aicpu_worker worker(ctx, 2);
  EXPECT_ACL_THROW(acl::aicpu_worker(ctx, 1), SVP_ACL_ERROR_INVALID_PARAM, "svp::acl::aicpu_worker");
  net::io_context ioc;
  acl::stream s(ctx);
  acl::model_io io(rt, m);
  const std::vector<float> x = random_floats(48, 11);
  io.input("x").assign(x);
  error_code result = net::error::would_block;
  acl::async_execute(m, io, s, net::bind_executor(ioc, [&](error_code ec) { result = ec; }));
  ioc.run();
  EXPECT_FALSE(result) << result.message();
  EXPECT_EQ(io.output("y").to_vector<float>(), relu(x));
}

TEST_F(CppAsioTest, ABareCallbackRunsOnTheSystemExecutor) {
  acl::stream s(ctx);
  std::promise<std::thread::id> where;
  s.async_wait([&](error_code) { where.set_value(std::this_thread::get_id()); });
  auto f = where.get_future();
  ASSERT_EQ(f.wait_for(5s), std::future_status::ready);
  EXPECT_NE(f.get(), std::this_thread::get_id());
}

}  // namespace
