#include "runtime/config.h"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/log.h"
#include "target/device_profile.h"

namespace svp::runtime {
namespace {

using nlohmann::json;

constexpr int kMaxDepth = 10;  // vendor limit on {/[ nesting

// 1-based line and column of byte offset `pos` (also 1-based, as nlohmann reports it).
std::pair<std::size_t, std::size_t> line_col(const std::string& text, std::size_t pos) {
  std::size_t line = 1;
  std::size_t col = 1;
  for (std::size_t i = 0; i + 1 < pos && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

Status check_on_off(const json& section, const char* key, const std::string& origin, int code, bool required,
                    bool* on) {
  auto it = section.find(key);
  if (it == section.end()) {
    if (required) return Error(code, "{}: profiler.{} is required (\"on\" or \"off\")", origin, key);
    *on = false;
    return Status::Ok();
  }
  if (!it->is_string() || (*it != "on" && *it != "off")) {
    return Error(code, "{}: profiler.{} must be \"on\" or \"off\", got {}", origin, key, it->dump());
  }
  *on = *it == "on";
  return Status::Ok();
}

Status parse_profiler(const json& p, const std::string& origin, profiling::JsonSettings* out) {
  const int code = err::kInvalidProfilingConfig;
  if (!p.is_object()) return Error(code, "{}: \"profiler\" must be an object", origin);
  // The contract (spec §2.7) makes the switch mandatory in a "profiler" section, and a
  // value other than "on"/"off" is an error rather than a silent "off" (a typo would
  // otherwise disable profiling without a word).
  SVP_RETURN_IF_ERROR(check_on_off(p, "switch", origin, code, true, &out->on));
  SVP_RETURN_IF_ERROR(check_on_off(p, "aicpu", origin, code, false, &out->aicpu));
  SVP_RETURN_IF_ERROR(check_on_off(p, "acl_api", origin, code, false, &out->acl_api));
  if (auto it = p.find("interval"); it != p.end()) {
    const bool ok = it->is_string() && !it->get<std::string>().empty() &&
                    it->get<std::string>().find_first_not_of("0123456789") == std::string::npos &&
                    it->get<std::string>().size() <= 9;
    if (!ok) return Error(code, "{}: profiler.interval must be a decimal string, got {}", origin, it->dump());
    out->interval = static_cast<std::uint32_t>(std::stoul(it->get<std::string>()));
  }
  if (auto it = p.find("aic_metrics"); it != p.end()) {
    if (*it != "ArithmeticUtilization") {
      return Error(code, "{}: profiler.aic_metrics supports only \"ArithmeticUtilization\", got {}", origin,
                   it->dump());
    }
    out->aic_metrics = true;
  }
  if (auto it = p.find("output"); it != p.end()) {
    if (!it->is_string()) return Error(code, "{}: profiler.output must be a string path", origin);
    out->output = it->get<std::string>();
  }
  static const char* const kKnown[] = {"switch", "output", "interval", "aic_metrics", "aicpu", "acl_api"};
  for (const auto& [k, v] : p.items()) {
    if (std::find(std::begin(kKnown), std::end(kKnown), k) == std::end(kKnown)) {
      SVP_LOG_WARN("{}: unknown key profiler.{} ignored", origin, k);
    }
  }
  return Status::Ok();
}

template <typename T>
Status read_uint(const json& s, const char* key, T lo, T hi, T* out, const std::string& origin) {
  auto it = s.find(key);
  if (it == s.end()) return Status::Ok();
  if (!it->is_number_unsigned() || it->get<std::uint64_t>() < lo || it->get<std::uint64_t>() > hi) {
    return Error(err::kFileAttrInvalid, "{}: softnpu.{} must be an integer in [{}, {}], got {}", origin, key, lo, hi,
                 it->dump());
  }
  *out = static_cast<T>(it->get<std::uint64_t>());
  return Status::Ok();
}

// The device memory limit: softnpu.device_memory_mb if given, else the board memory of
// softnpu.soc_version's profile (default: svp_atc's default target). `s` is null when the
// file has no softnpu section.
Status parse_memory_limit(const json* s, const std::string& origin, hal::BackendConfig* b) {
  const target::DeviceProfile* soc = &target::default_profile();
  if (s != nullptr) {
    if (auto it = s->find("soc_version"); it != s->end()) {
      soc = it->is_string() ? target::find_profile(it->get<std::string>()) : nullptr;
      if (soc == nullptr) {
        return Error(err::kFileAttrInvalid, "{}: softnpu.soc_version {} is not a known target (one of {}, {})", origin,
                     it->dump(), target::profile_names(target::Family::kSvp),
                     target::profile_names(target::Family::kRknn));
      }
    }
  }
  b->board_target = soc->name;
  b->memory_limit = soc->board_memory_bytes;
  b->memory_limit_origin = fmt::format(
      "a typical {} board's memory; raise it with softnpu.device_memory_mb in acl.json", soc->name);
  if (s == nullptr || !s->contains("device_memory_mb")) return Status::Ok();
  std::uint64_t mb = 0;  // 0 = no limit (the host's memory)
  SVP_RETURN_IF_ERROR(read_uint<std::uint64_t>(*s, "device_memory_mb", 0, 1u << 24, &mb, origin));
  b->memory_limit = mb * 1024 * 1024;
  b->memory_limit_origin = fmt::format("softnpu.device_memory_mb in {}", origin);
  return Status::Ok();
}

Status parse_softnpu(const json& s, const std::string& origin, RuntimeConfig* cfg) {
  if (!s.is_object()) return Error(err::kFileAttrInvalid, "{}: \"softnpu\" must be an object", origin);
  hal::BackendConfig& b = cfg->backend;
  SVP_RETURN_IF_ERROR(read_uint<std::uint32_t>(s, "devices", 1, 64, &b.devices, origin));
  SVP_RETURN_IF_ERROR(read_uint<std::uint32_t>(s, "cores", 1, 64, &b.cores, origin));
  SVP_RETURN_IF_ERROR(read_uint<std::uint32_t>(s, "wait_cap_ticks", 1, 1u << 20, &b.wait_cap_ticks, origin));
  SVP_RETURN_IF_ERROR(read_uint<std::uint32_t>(s, "max_streams", 2, 1024, &b.max_sqs, origin));
  SVP_RETURN_IF_ERROR(read_uint<std::uint32_t>(s, "kernel_threads", 1, 64, &cfg->kernel_threads, origin));
  std::uint64_t tick_us = b.wait_tick / 1000;
  SVP_RETURN_IF_ERROR(read_uint<std::uint64_t>(s, "wait_tick_us", 1, 60'000'000, &tick_us, origin));
  b.wait_tick = tick_us * 1000;
  bool coherent = false;
  if (auto it = s.find("cache_mode"); it != s.end()) {
    if (*it == "coherent") {
      coherent = true;
    } else if (*it != "emulated") {
      return Error(err::kFileAttrInvalid, "{}: softnpu.cache_mode must be \"emulated\" or \"coherent\", got {}", origin,
                   it->dump());
    }
  }
  if (auto it = s.find("wait_policy"); it != s.end()) {
    static const std::pair<const char*, WaitMode> kModes[] = {
        {"auto", WaitMode::kAuto}, {"spin", WaitMode::kSpin}, {"yield", WaitMode::kYield}, {"block", WaitMode::kBlock}};
    const auto* mode = std::find_if(std::begin(kModes), std::end(kModes),
                                    [&](const auto& m) { return it->is_string() && *it == m.first; });
    if (mode == std::end(kModes)) {
      return Error(err::kFileAttrInvalid,
                   "{}: softnpu.wait_policy must be \"auto\", \"spin\", \"yield\" or \"block\", got {}", origin,
                   it->dump());
    }
    b.wait.mode = mode->second;
  }
  SVP_RETURN_IF_ERROR(read_uint<std::uint32_t>(s, "spin_us", 0, 1'000'000, &b.wait.spin_us, origin));
  if (auto it = s.find("kernel_spin"); it != s.end()) {
    static const std::pair<const char*, kernels::KernelSpin> kSpins[] = {{"auto", kernels::KernelSpin::kAuto},
                                                                         {"spin", kernels::KernelSpin::kSpin},
                                                                         {"throttle", kernels::KernelSpin::kThrottle}};
    const auto* spin = std::find_if(std::begin(kSpins), std::end(kSpins),
                                    [&](const auto& m) { return it->is_string() && *it == m.first; });
    if (spin == std::end(kSpins)) {
      return Error(err::kFileAttrInvalid,
                   "{}: softnpu.kernel_spin must be \"auto\" (shorten OpenMP spin-waits while the machine is busy), "
                   "\"spin\" (libgomp's own) or \"throttle\" (always short), got {}",
                   origin, it->dump());
    }
    cfg->kernel_spin = spin->second;
  }
  if (auto it = s.find("clock"); it != s.end()) {
    if (!it->is_string() || (*it != "host" && *it != "board")) {
      return Error(err::kFileAttrInvalid,
                   "{}: softnpu.clock must be \"host\" (device time is host time) or \"board\" (device time is "
                   "the predicted board time of softnpu.soc_version), got {}",
                   origin, it->dump());
    }
    b.board_clock = *it == "board";
  }
  if (auto it = s.find("strict"); it != s.end()) {
    if (!it->is_boolean()) return Error(err::kFileAttrInvalid, "{}: softnpu.strict must be true or false", origin);
    cfg->strict = it->get<bool>();
  }
  b.cache_mode = coherent ? hal::CacheMode::kCoherent : (cfg->strict ? hal::CacheMode::kStrict : hal::CacheMode::kEmulated);
  if (auto it = s.find("backend"); it != s.end()) {
    if (!it->is_string()) return Error(err::kFileAttrInvalid, "{}: softnpu.backend must be a string", origin);
    b.backend = it->get<std::string>();
  }
  if (auto it = s.find("backend_options"); it != s.end()) {
    if (!it->is_object()) return Error(err::kFileAttrInvalid, "{}: softnpu.backend_options must be an object", origin);
    for (const auto& [k, v] : it->items()) b.options[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  SVP_RETURN_IF_ERROR(parse_memory_limit(&s, origin, &b));
  cfg->soc_version_given = s.contains("soc_version");
  static const char* const kKnown[] = {"devices", "cores", "wait_cap_ticks", "max_streams", "wait_tick_us",
                                       "cache_mode", "strict", "backend", "backend_options", "kernel_threads",
                                       "wait_policy", "spin_us", "soc_version", "device_memory_mb", "clock",
                                       "kernel_spin"};
  for (const auto& [k, v] : s.items()) {
    if (std::find(std::begin(kKnown), std::end(kKnown), k) == std::end(kKnown)) {
      SVP_LOG_WARN("{}: unknown key softnpu.{} ignored", origin, k);
    }
  }
  return Status::Ok();
}

}  // namespace

Result<RuntimeConfig> parse_config(const std::string& text, const std::string& origin) {
  json j;
  // The depth is checked while parsing (the parser is iterative): values nested deeper than
  // the limit are dropped, never built. A recursive check of the parsed tree overflowed
  // the stack on a file nested 100,000 deep (found by the bad-input probe).
  bool too_deep = false;
  const json::parser_callback_t limit_depth = [&too_deep](int depth, json::parse_event_t event, json&) {
    const bool opens = event == json::parse_event_t::object_start || event == json::parse_event_t::array_start;
    if (opens && depth >= kMaxDepth) too_deep = true;
    return !too_deep;
  };
  try {
    j = json::parse(text, limit_depth);
  } catch (const json::parse_error& e) {
    auto [line, col] = line_col(text, e.byte);
    return Error(err::kParseFile, "{}: malformed JSON at line {}, column {}: {}", origin, line, col, e.what());
  } catch (const json::exception& e) {
    // A number too large for a double (1e999) is out_of_range, not a parse_error: it ended
    // svp_acl_init in std::terminate (found by acl_json_fuzz).
    return Error(err::kParseFile, "{}: malformed JSON: {}", origin, e.what());
  }
  if (too_deep) {
    return Error(err::kParseFile, "{}: JSON nesting is deeper than {} levels (the limit of acl.json)", origin,
                 kMaxDepth);
  }
  if (!j.is_object()) return Error(err::kParseFile, "{}: the top level must be a JSON object", origin);
  RuntimeConfig cfg;
  if (auto it = j.find("profiler"); it != j.end()) SVP_RETURN_IF_ERROR(parse_profiler(*it, origin, &cfg.profiler));
  if (auto it = j.find("dump"); it != j.end()) {
    if (!it->is_object()) return Error(err::kInvalidDumpConfig, "{}: \"dump\" must be an object", origin);
    if (!it->empty()) {  // an empty object enables nothing
      auto dump = exec::parse_dump_config(*it, origin);
      if (!dump.ok()) return dump.status();
      cfg.dump = std::move(*dump);
    }
  }
  if (auto it = j.find("softnpu"); it != j.end()) {
    SVP_RETURN_IF_ERROR(parse_softnpu(*it, origin, &cfg));
  } else {
    SVP_RETURN_IF_ERROR(parse_memory_limit(nullptr, origin, &cfg.backend));
  }
  return cfg;
}

Result<RuntimeConfig> load_config(const char* path) {
  if (path == nullptr || path[0] == '\0') return parse_config("{}", "the default configuration");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Error(err::kInvalidFile, "configuration file \"{}\" does not exist or is not a regular file", path);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(err::kInvalidFile, "cannot open configuration file \"{}\"", path);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Error(err::kInvalidFile, "cannot read configuration file \"{}\"", path);
  return parse_config(ss.str(), path);
}

}  // namespace svp::runtime
