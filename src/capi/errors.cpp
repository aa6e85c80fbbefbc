#include <string>
#include <string_view>

#include "capi/guard.h"
#include "common/log.h"

namespace svp::capi {
namespace {
thread_local std::string t_recent_error;
}

void record_error(const char* fn, const Status& status) {
  // A Status without text still tells the application what its code means.
  const char* meaning = err::message(status.code());
  const std::string& text = status.message();
  t_recent_error = fmt::format("{}: {} (error {})", fn, !text.empty() ? text : meaning != nullptr ? meaning : "failed",
                               status.code());
  // A report timeout is the normal idle outcome of a polling loop, and vendor samples
  // keep polling process_report briefly before subscribing and after unsubscribing:
  // neither is worth an error line.
  const bool polling = status.code() == err::kRtReportTimeout ||
                       (status.code() == err::kThreadNotSubscribe && std::string_view(fn) == "svp_acl_rt_process_report");
  // (svp_acl_ext_process_aicpu_task also returns RT_REPORT_TIMEOUT when idle.)
  if (polling) {
    SVP_LOG_DEBUG("{}", t_recent_error);
  } else {
    SVP_LOG_ERROR("{}", t_recent_error);
  }
}

}  // namespace svp::capi

extern "C" SVP_ACL_FUNC_VISIBILITY const char* svp_acl_get_recent_err_msg(void) {
  return svp::capi::t_recent_error.c_str();
}
