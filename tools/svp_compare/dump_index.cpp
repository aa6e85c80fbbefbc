#include "svp_compare/dump_index.h"

#include <nlohmann/json.hpp>

#include <sstream>

namespace svp::compare {
namespace {

using nlohmann::json;

// Numbers may be a scalar or an array of scalars (per-channel quantization).
bool NumberList(const json& j, std::vector<double>* out) {
  if (j.is_number()) {
    out->push_back(j.get<double>());
    return true;
  }
  if (!j.is_array()) return false;
  for (const auto& v : j) {
    if (!v.is_number()) return false;
    out->push_back(v.get<double>());
  }
  return true;
}

bool ParseEntry(const json& j, DumpEntry* e, std::string* error) {
  if (!j.is_object()) {
    *error = "not a JSON object";
    return false;
  }
  auto str = [&](const char* key, std::string* out) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_string()) {
      *error = std::string("key '") + key + "' is missing or not a string";
      return false;
    }
    *out = it->get<std::string>();
    return true;
  };
  auto integer = [&](const char* key, std::int64_t* out) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer()) {
      *error = std::string("key '") + key + "' is missing or not an integer";
      return false;
    }
    *out = it->get<std::int64_t>();
    return true;
  };
  std::string io;
  if (!str("model", &e->model) || !integer("model_id", &e->model_id) || !integer("execution", &e->execution) ||
      !integer("batch_item", &e->batch_item) || !str("layer", &e->layer) || !str("op", &e->op) ||
      !str("io", &io) || !integer("index", &e->index) || !str("tensor", &e->tensor) || !str("dtype", &e->dtype)) {
    return false;
  }
  if (io != "input" && io != "output") {
    *error = "key 'io' is \"" + io + "\", expected \"input\" or \"output\"";
    return false;
  }
  e->input = io == "input";
  auto dims = j.find("dims");
  if (dims == j.end() || !dims->is_array()) {
    *error = "key 'dims' is missing or not an array";
    return false;
  }
  for (const auto& d : *dims) {
    if (!d.is_number_integer() || d.get<std::int64_t>() < 0) {
      *error = "key 'dims' holds a value that is not a non-negative integer";
      return false;
    }
    e->dims.push_back(d.get<std::int64_t>());
  }
  if (auto s = j.find("scale"); s != j.end()) {
    if (!NumberList(*s, &e->scale)) {
      *error = "key 'scale' is not a number or an array of numbers";
      return false;
    }
    if (auto z = j.find("zero_point"); z != j.end() && !NumberList(*z, &e->zero_point)) {
      *error = "key 'zero_point' is not a number or an array of numbers";
      return false;
    }
    if (auto a = j.find("axis"); a != j.end()) {
      if (!a->is_number_integer()) {
        *error = "key 'axis' is not an integer";
        return false;
      }
      e->axis = a->get<int>();
    }
  }
  auto file = j.find("file");
  if (file != j.end() && file->is_string()) e->file = file->get<std::string>();
  else if (file != j.end() && !file->is_null()) {
    *error = "key 'file' is neither a string nor null";
    return false;
  }
  if (auto n = j.find("note"); n != j.end() && n->is_string()) e->note = n->get<std::string>();
  return true;
}

}  // namespace

DumpIndexResult ParseDumpIndex(const std::string& text, const std::string& source) {
  DumpIndexResult r;
  std::istringstream in(text);
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    DumpEntry e;
    std::string error;
    if (j.is_discarded()) error = "not valid JSON";
    else if (ParseEntry(j, &e, &error)) {
      e.line = number;
      r.entries.push_back(std::move(e));
      continue;
    }
    r.error = source + ":" + std::to_string(number) + ": " + error;
    return r;
  }
  r.ok = true;
  return r;
}

}  // namespace svp::compare
