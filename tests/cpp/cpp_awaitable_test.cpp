// The C++ API under C++20: the Asio operations as coroutines (asio::use_awaitable), the
// error of failed NPU work thrown into the coroutine as boost::system::system_error.
#include <utility>  // before Boost 1.74's awaitable.hpp, which needs std::exchange

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/system_error.hpp>

#include "cpp_api_support.h"

static_assert(__cplusplus >= 202002L, "this test is built as C++20");

namespace {

namespace acl = svp::acl;
namespace net = boost::asio;
using svp::test::CppApiTest;
using svp::test::random_floats;
using svp::test::relu;

class CppAwaitableTest : public CppApiTest, protected svp::test::TaskHelpers {};

TEST_F(CppAwaitableTest, CoroutineAwaitsExecutionsAndStreamWaits) {
  net::io_context ioc;
  acl::stream s(ctx);
  acl::model_io io(rt, mdl);
  int executed = 0;
  bool finished = false;
  net::co_spawn(
      ioc,
      [&]() -> net::awaitable<void> {
        for (int i = 0; i < 10; ++i) {
          const std::vector<float> x = random_floats(48, 100 + static_cast<unsigned>(i));
          io.input("x").assign(x);
          co_await acl::async_execute(mdl, io, s, net::use_awaitable);
          EXPECT_EQ(io.output("y").to_vector<float>(), relu(x));
          ++executed;
        }
        co_await s.async_wait(net::use_awaitable);
        finished = true;
      },
      net::detached);
  ioc.run();
  EXPECT_EQ(executed, 10);
  EXPECT_TRUE(finished);
}

TEST_F(CppAwaitableTest, FailedWorkThrowsIntoTheCoroutine) {
  net::io_context ioc;
  acl::stream s(ctx);
  ctx.make_current();
  ASSERT_EQ(tasks_.launch(s.native_handle(), [](std::uint32_t) { return SVP_ACL_ERROR_FAILURE; }), SVP_ACL_SUCCESS);
  boost::system::error_code caught;
  net::co_spawn(
      ioc,
      [&]() -> net::awaitable<void> {
        try {
          co_await s.async_wait(net::use_awaitable);
        } catch (const boost::system::system_error& e) {
          caught = e.code();
        }
      },
      net::detached);
  ioc.run();
  EXPECT_EQ(caught, boost::system::error_code(SVP_ACL_ERROR_FAILURE, acl::asio_category())) << caught.message();
  std::error_code ec;
  s.synchronize(ec);
  EXPECT_EQ(ec.value(), SVP_ACL_ERROR_FAILURE);
}

}  // namespace
