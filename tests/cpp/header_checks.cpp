// Compile-only checks of include/svp/acl.hpp in the configurations the header promises:
// built without Asio (SVP_ACL_WITH_ASIO=0) and without exceptions, where only the
// std::error_code overloads may be used.
#include "svp/acl.hpp"

#if SVP_ACL_WITH_ASIO
#error "SVP_ACL_WITH_ASIO=0 must leave the Asio part out"
#endif

int svp_acl_cpp_header_check_no_exceptions() {
  std::error_code ec;
  auto rt = svp::acl::runtime::init(nullptr, ec);
  if (ec) return 1;
  svp::acl::device dev(rt, 0, ec);
  svp::acl::context ctx(dev, ec);
  svp::acl::stream s(ctx, ec);
  s.synchronize(ec);
  return ec ? 2 : 0;
}
