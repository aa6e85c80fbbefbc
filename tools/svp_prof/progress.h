// Progress lines for large data files ("svp_prof: read 120 MB / 300 MB of
// data/aicore.jsonl"): reading hundreds of MB takes seconds, and silence would look
// like a hang.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

namespace svp::prof {

class ProgressPrinter {
 public:
  // Files of at most `min_file_bytes` are quiet; others get a line at most every
  // `interval`, and one when they are finished.
  explicit ProgressPrinter(std::ostream& out, std::uint64_t min_file_bytes = 16u << 20,
                           std::chrono::milliseconds interval = std::chrono::seconds(1));

  // The ReadOptions::on_progress callback.
  void update(const std::string& file, std::uint64_t done, std::uint64_t total);

 private:
  std::ostream& out_;
  std::uint64_t min_file_bytes_;
  std::chrono::milliseconds interval_;
  std::string file_;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace svp::prof
