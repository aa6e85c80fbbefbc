// Status: success, or an error message for the user.
//
// svp_prof reports every problem as text naming the file (and line) it came from, so a
// message is all an error carries; there is no code to map.
#pragma once

#include <string>
#include <utility>

namespace svp::prof {

class [[nodiscard]] Status {
 public:
  static Status Ok() { return Status(); }
  static Status Error(std::string message) { return Status(std::move(message), false); }

  bool ok() const { return ok_; }
  const std::string& message() const { return message_; }

 private:
  Status() = default;
  Status(std::string message, bool ok) : ok_(ok), message_(std::move(message)) {}

  bool ok_ = true;
  std::string message_;
};

}  // namespace svp::prof
