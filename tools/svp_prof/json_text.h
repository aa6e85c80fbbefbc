// JSON text written piece by piece: trace.json and the report's embedded data can hold
// millions of events, too many to build as one nlohmann::json document first.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace svp::prof {

// A JSON string literal. '<' is written as \u003c so that the text can sit inside an
// HTML <script> element whatever an operator is called ("</script>" cannot end it).
// Invalid UTF-8 is replaced rather than refused.
std::string json_string(const std::string& s);

// A JSON object built field by field: {"a":1,"b":"x"}.
class JsonObject {
 public:
  JsonObject& add(const char* key, std::int64_t value);
  JsonObject& add(const char* key, const std::optional<std::int64_t>& value);  // null when unset
  JsonObject& add(const char* key, const std::string& value);
  JsonObject& add(const char* key, const char* value) { return add(key, std::string(value)); }
  JsonObject& add_raw(const char* key, const std::string& json_text);  // a value already in JSON
  std::string str() const { return text_ + "}"; }

 private:
  void key(const char* k);
  std::string text_ = "{";
};

// A JSON array built element by element: [1,"x",null].
class JsonArray {
 public:
  JsonArray& add(std::int64_t value);
  JsonArray& add(const std::optional<std::int64_t>& value);  // null when unset
  JsonArray& add(const std::string& value);
  JsonArray& add(const char* value) { return add(std::string(value)); }
  JsonArray& add_raw(const std::string& json_text);
  std::string str() const { return text_ + "]"; }
  bool empty() const { return text_.size() == 1; }

 private:
  void next();
  std::string text_ = "[";
};

}  // namespace svp::prof
