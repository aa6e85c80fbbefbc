// Logging for the whole library, through one spdlog logger named "svp_acl".
//
// The level comes from SVP_ACL_LOG_LEVEL (0 debug, 1 info, 2 warning, 3 error, 4 off;
// default 3), read once when the logger is first used. Messages go to stderr, which is
// where a board's vendor library prints too. The logger is thread-safe; callers must not
// log while holding a scheduler or queue lock (collect the facts, unlock, then log).
#pragma once

#include <spdlog/spdlog.h>

namespace svp::log {

spdlog::logger& get();

// Re-reads SVP_ACL_LOG_LEVEL; svp_acl_init calls it so that a test can change the level
// between init/finalize cycles.
void reload_level_from_env();

}  // namespace svp::log

#define SVP_LOG_DEBUG(...) ::svp::log::get().debug(__VA_ARGS__)
#define SVP_LOG_INFO(...) ::svp::log::get().info(__VA_ARGS__)
#define SVP_LOG_WARN(...) ::svp::log::get().warn(__VA_ARGS__)
#define SVP_LOG_ERROR(...) ::svp::log::get().error(__VA_ARGS__)
