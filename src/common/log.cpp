#include "common/log.h"

#include <cstdlib>
#include <memory>

#include <spdlog/sinks/stdout_sinks.h>

namespace svp::log {
namespace {

spdlog::level::level_enum level_from_env() {
  const char* v = std::getenv("SVP_ACL_LOG_LEVEL");
  if (v == nullptr || v[0] == '\0' || v[1] != '\0') return spdlog::level::err;
  switch (v[0]) {
    case '0': return spdlog::level::debug;
    case '1': return spdlog::level::info;
    case '2': return spdlog::level::warn;
    case '3': return spdlog::level::err;
    case '4': return spdlog::level::off;
    default: return spdlog::level::err;
  }
}

std::shared_ptr<spdlog::logger> make_logger() {
  // Not registered in spdlog's global registry: an application that uses spdlog itself
  // must be free to configure its own loggers without touching ours.
  auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  auto logger = std::make_shared<spdlog::logger>("svp_acl", std::move(sink));
  logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [svp_acl] [%l] [tid %t] %v");
  logger->set_level(level_from_env());
  logger->flush_on(spdlog::level::warn);
  return logger;
}

}  // namespace

spdlog::logger& get() {
  // Never destroyed: device and worker threads may still log while static destructors
  // run at process exit (an application that returns from main() without tearing down
  // its contexts), and a destroyed logger there is a use-after-free.
  static const auto* const logger = new std::shared_ptr<spdlog::logger>(make_logger());
  return **logger;
}

void reload_level_from_env() { get().set_level(level_from_env()); }

}  // namespace svp::log
