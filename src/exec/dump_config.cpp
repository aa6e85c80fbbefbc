#include "exec/dump_config.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/log.h"

namespace svp::exec {
namespace {

using nlohmann::json;

Status bad(const std::string& origin, const std::string& what) {
  return Error(err::kInvalidDumpConfig, "{}: dump.{}", origin, what);
}

// "0|5|10-20": executions and inclusive ranges, separated by '|'.
Result<DumpSteps> parse_steps(const std::string& text) {
  const auto fail = [] {
    return Error(err::kInvalidDumpConfig,
                 "give executions (counted from 0) and ranges separated by '|', e.g. \"0|5|10-20\"");
  };
  if (text.empty() || text.back() == '|') return fail();  // getline would drop a trailing empty part
  DumpSteps steps;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, '|')) {
    const auto dash = part.find('-');
    const auto number = [](const std::string& t, std::uint64_t* v) {
      if (t.empty() || t.size() > 18 || t.find_first_not_of("0123456789") != std::string::npos) return false;
      *v = std::stoull(t);
      return true;
    };
    std::uint64_t lo = 0, hi = 0;
    if (dash == std::string::npos ? !number(part, &lo) : !number(part.substr(0, dash), &lo) || !number(part.substr(dash + 1), &hi)) {
      return fail();
    }
    if (dash == std::string::npos) hi = lo;
    if (hi < lo) return fail();
    steps.emplace_back(lo, hi);
  }
  if (steps.empty()) return fail();
  return steps;
}

}  // namespace

bool step_selected(const DumpSteps& steps, std::uint64_t n) {
  if (steps.empty()) return true;
  for (const auto& [lo, hi] : steps) {
    if (n >= lo && n <= hi) return true;
  }
  return false;
}

Result<DumpConfig> parse_dump_config(const json& d, const std::string& origin) {
  if (!d.is_object()) return Error(err::kInvalidDumpConfig, "{}: \"dump\" must be an object", origin);
  DumpConfig c;
  for (const auto& [key, value] : d.items()) {
    if (key != "dump_path" && key != "dump_mode" && key != "dump_list" && key != "dump_step") {
      SVP_LOG_WARN("{}: dump.{} is not a key svp-acl knows (dump_path, dump_mode, dump_list, dump_step); ignored",
                   origin, key);
    }
  }
  auto path = d.find("dump_path");
  if (path == d.end() || !path->is_string() || path->get<std::string>().empty()) {
    return bad(origin, "dump_path is required: a string naming an existing writable directory");
  }
  c.path = path->get<std::string>();
  std::error_code ec;
  if (!std::filesystem::is_directory(c.path, ec) || ::access(c.path.c_str(), W_OK) != 0) {
    return bad(origin, "dump_path \"" + c.path + "\" is not an existing writable directory (create it first)");
  }
  if (auto mode = d.find("dump_mode"); mode != d.end()) {
    const std::string m = mode->is_string() ? mode->get<std::string>() : std::string();
    if (m == "output") {
      c.inputs = false, c.outputs = true;
    } else if (m == "input") {
      c.inputs = true, c.outputs = false;
    } else if (m == "all") {
      c.inputs = true, c.outputs = true;
    } else {
      return bad(origin, "dump_mode must be \"output\", \"input\" or \"all\", got " + mode->dump());
    }
  }
  if (auto step = d.find("dump_step"); step != d.end()) {
    auto steps = parse_steps(step->is_string() ? step->get<std::string>() : std::string());
    if (!steps.ok()) return bad(origin, "dump_step " + step->dump() + ": " + steps.status().message());
    c.steps = std::move(*steps);
  }
  auto list = d.find("dump_list");
  if (list == d.end() || !list->is_array()) {
    return bad(origin, "dump_list is required: an array of {\"model_name\": ..., \"layer\": [...]} (empty = every model)");
  }
  for (std::size_t i = 0; i < list->size(); ++i) {
    const json& e = (*list)[i];
    const std::string where = "dump_list[" + std::to_string(i) + "]";
    if (!e.is_object()) return bad(origin, where + " must be an object");
    auto name = e.find("model_name");
    if (name == e.end() || !name->is_string() || name->get<std::string>().empty()) {
      return bad(origin, where + ".model_name is required (the model's name, svp_atc's --output basename)");
    }
    DumpConfig::Entry entry;
    entry.model_name = name->get<std::string>();
    if (auto layers = e.find("layer"); layers != e.end()) {
      if (!layers->is_array()) return bad(origin, where + ".layer must be an array of layer names");
      for (const json& l : *layers) {
        if (!l.is_string() || l.get<std::string>().empty()) {
          return bad(origin, where + ".layer holds " + l.dump() + ", not a layer name");
        }
        entry.layers.push_back(l.get<std::string>());
      }
    }
    c.list.push_back(std::move(entry));
  }
  return c;
}

Result<DumpConfig> load_dump_config_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error(err::kInvalidDumpConfig, "cannot read the dump configuration \"{}\"", path);
  std::stringstream text;
  text << in.rdbuf();
  json j;
  try {
    j = json::parse(text.str());
  } catch (const json::parse_error& e) {
    return Error(err::kInvalidDumpConfig, "{}: malformed JSON: {}", path, e.what());
  }
  if (!j.is_object() || !j.contains("dump")) {
    return Error(err::kInvalidDumpConfig, "{}: the file must be a JSON object with a \"dump\" member", path);
  }
  return parse_dump_config(j["dump"], path);
}

}  // namespace svp::exec
