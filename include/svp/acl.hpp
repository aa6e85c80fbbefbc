// svp/acl.hpp: the C++ API of svp-acl, header-only over the C API of include/acl (C++17,
// usable from C++20). Nothing here is exported by libsvp_acl.so: link the library as a C
// application does (find_package(SvpAcl) -> SvpAcl::svp_acl, or pkg-config svp_acl).
//
//   auto rt = svp::acl::runtime::init();              // svp_acl_init; finalize when all is gone
//   svp::acl::device dev(rt, 0);                      // set_device / reset_device
//   svp::acl::context ctx(dev);                       // create_context / destroy_context
//   svp::acl::stream s(ctx);                          // create_stream / destroy_stream
//   svp::acl::model m(rt, std::move(om_bytes));       // load_from_mem / unload
//   svp::acl::model_io io(rt, m);                     // datasets per spec §2.2
//   io.input("x").assign(values);                     // dense -> strided rows
//   svp::acl::async_execute(m, io, s, [&](boost::system::error_code ec) { ... });
//
// Parts (each documents ownership, threading and errors):
//   svp/acl/error.hpp      svp::acl::error, the error category, error_code overloads
//   svp/acl/runtime.hpp    runtime, device, context, stream, event
//   svp/acl/memory.hpp     device_memory, cached_memory (flush/invalidate), data_buffer
//   svp/acl/model.hpp      model, model_config, model_desc, tensor_desc, dataset, model_io,
//                          tensor_view
//   svp/acl/aicpu.hpp      aicpu_worker (AI-CPU operators of asynchronous executions)
//   svp/acl/aipp.hpp       aipp_set (dynamic AIPP parameters)
//   svp/acl/profiling.hpp  prof_session, prof_config, prof_collection,
//                          prof_subscribe_config, prof_subscription
//   svp/acl/asio.hpp       async_execute, stream/event async_wait (Boost.Asio; only when
//                          <boost/asio.hpp> is available, see SVP_ACL_WITH_ASIO there)
// docs/cpp_api.md has the full story.
#pragma once

#include "svp/acl/aicpu.hpp"
#include "svp/acl/aipp.hpp"
#include "svp/acl/asio.hpp"
#include "svp/acl/error.hpp"
#include "svp/acl/memory.hpp"
#include "svp/acl/model.hpp"
#include "svp/acl/profiling.hpp"
#include "svp/acl/runtime.hpp"
