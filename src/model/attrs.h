// Layer attributes: a small typed map, serialised in the model metadata.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "common/status.h"

namespace svp::model {

using AttrValue = std::variant<std::int64_t, double, std::string, std::vector<std::int64_t>, std::vector<double>>;

class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<std::pair<const std::string, AttrValue>> init) : values_(init) {}

  void set(const std::string& name, AttrValue v) { values_[name] = std::move(v); }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  const std::map<std::string, AttrValue>& all() const { return values_; }

  // Typed getters with defaults; a present attribute of the wrong type is an error.
  Result<std::int64_t> get_int(const std::string& name, std::int64_t def) const { return get<std::int64_t>(name, def); }
  Result<double> get_float(const std::string& name, double def) const {
    auto it = values_.find(name);
    if (it != values_.end() && std::holds_alternative<std::int64_t>(it->second)) {
      return static_cast<double>(std::get<std::int64_t>(it->second));
    }
    return get<double>(name, def);
  }
  Result<std::string> get_string(const std::string& name, std::string def) const {
    return get<std::string>(name, std::move(def));
  }
  Result<std::vector<std::int64_t>> get_ints(const std::string& name, std::vector<std::int64_t> def) const {
    return get<std::vector<std::int64_t>>(name, std::move(def));
  }
  Result<std::vector<double>> get_floats(const std::string& name, std::vector<double> def) const {
    return get<std::vector<double>>(name, std::move(def));
  }

 private:
  template <typename T>
  Result<T> get(const std::string& name, T def) const {
    auto it = values_.find(name);
    if (it == values_.end()) return def;
    if (!std::holds_alternative<T>(it->second)) {
      return Error(err::kParseModel, "attribute \"{}\" has the wrong type", name);
    }
    return std::get<T>(it->second);
  }

  std::map<std::string, AttrValue> values_;
};

}  // namespace svp::model
