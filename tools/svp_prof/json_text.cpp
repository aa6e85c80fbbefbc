#include "svp_prof/json_text.h"

#include <nlohmann/json.hpp>

namespace svp::prof {

std::string json_string(const std::string& s) {
  const std::string dumped = nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (dumped.find('<') == std::string::npos) return dumped;
  std::string out;
  out.reserve(dumped.size() + 8);
  for (char c : dumped) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

void JsonObject::key(const char* k) {
  if (text_.size() > 1) text_ += ',';
  text_ += json_string(k);
  text_ += ':';
}

JsonObject& JsonObject::add(const char* k, std::int64_t value) {
  key(k);
  text_ += std::to_string(value);
  return *this;
}

JsonObject& JsonObject::add(const char* k, const std::optional<std::int64_t>& value) {
  key(k);
  text_ += value ? std::to_string(*value) : "null";
  return *this;
}

JsonObject& JsonObject::add(const char* k, const std::string& value) {
  key(k);
  text_ += json_string(value);
  return *this;
}

JsonObject& JsonObject::add_raw(const char* k, const std::string& json_text) {
  key(k);
  text_ += json_text;
  return *this;
}

void JsonArray::next() {
  if (text_.size() > 1) text_ += ',';
}

JsonArray& JsonArray::add(std::int64_t value) {
  next();
  text_ += std::to_string(value);
  return *this;
}

JsonArray& JsonArray::add(const std::optional<std::int64_t>& value) {
  next();
  text_ += value ? std::to_string(*value) : "null";
  return *this;
}

JsonArray& JsonArray::add(const std::string& value) {
  next();
  text_ += json_string(value);
  return *this;
}

JsonArray& JsonArray::add_raw(const std::string& json_text) {
  next();
  text_ += json_text;
  return *this;
}

}  // namespace svp::prof
