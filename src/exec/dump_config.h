// The model-dump configuration: the "dump" object of acl.json, or of the file given to
// svp_acl_mdl_set_dump (spec §2.7):
//   { "dump_list": [ { "model_name": "lenet", "layer": ["conv1", "fc3"] } ],
//     "dump_path": "/abs/dir", "dump_mode": "output" }
// dump_path (required): an existing writable directory. dump_mode: "output" (default),
// "input" or "all". dump_list (required): the models to dump, matched by model name;
// "layer" absent or empty = every layer; an empty dump_list = every model. dump_step
// (optional, Ascend ACL's key): "0|5|10-20", the executions to dump.
// Errors are err::kInvalidDumpConfig naming the key and what is accepted.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/status.h"

namespace svp::exec {

using DumpSteps = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
// Execution `n` is in `steps` (empty: every execution is).
bool step_selected(const DumpSteps& steps, std::uint64_t n);

struct DumpConfig {
  struct Entry {
    std::string model_name;
    std::vector<std::string> layers;  // empty = all
  };
  std::string path;
  bool inputs = false;   // dump_mode "input" or "all"
  bool outputs = true;   // dump_mode "output" or "all"
  std::vector<Entry> list;  // empty = every model
  // dump_step (Ascend ACL's key, "0|5|10-20"): the executions of each model to dump,
  // counted from 0 per loaded model, as inclusive ranges; empty = every execution.
  DumpSteps steps;

  bool dumps_execution(std::uint64_t n) const { return step_selected(steps, n); }
};

// `origin` names the source in messages (a file path, or "acl.json").
Result<DumpConfig> parse_dump_config(const nlohmann::json& dump, const std::string& origin);
// Reads a JSON file holding a top-level object with a "dump" member (svp_acl_mdl_set_dump).
Result<DumpConfig> load_dump_config_file(const std::string& path);

}  // namespace svp::exec
