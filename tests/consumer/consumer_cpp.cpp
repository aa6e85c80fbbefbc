// The installed C++ API (include/svp/acl.hpp) compiled by a consumer project: RAII
// objects over the installed libsvp_acl.so, and an Asio completion when Boost is there.
#include <cstdio>

#include "svp/acl.hpp"
#if SVP_ACL_WITH_ASIO
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#endif

int main() {
  try {
    auto rt = svp::acl::runtime::init();
    svp::acl::device dev(rt, 0);
    svp::acl::context ctx(dev);
    svp::acl::stream s(ctx);
    s.synchronize();
#if SVP_ACL_WITH_ASIO
    boost::asio::io_context ioc;
    bool done = false;
    s.async_wait(boost::asio::bind_executor(ioc, [&](boost::system::error_code ec) { done = !ec; }));
    ioc.run();
    if (!done) return 2;
#endif
  } catch (const svp::acl::error& e) {
    std::printf("cpp consumer failed: %s\n", e.what());
    return 1;
  }
  std::printf("cpp consumer ok (asio %d)\n", SVP_ACL_WITH_ASIO);
  return 0;
}
