#include "svp_prof/progress.h"

#include <cstdio>

namespace svp::prof {
namespace {

std::string megabytes(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f MB", static_cast<double>(bytes) / 1e6);
  return buf;
}

}  // namespace

ProgressPrinter::ProgressPrinter(std::ostream& out, std::uint64_t min_file_bytes, std::chrono::milliseconds interval)
    : out_(out), min_file_bytes_(min_file_bytes), interval_(interval) {}

void ProgressPrinter::update(const std::string& file, std::uint64_t done, std::uint64_t total) {
  if (total <= min_file_bytes_) return;
  const auto now = std::chrono::steady_clock::now();
  if (file != file_) {
    // A new file starts its own interval, so its first line comes after `interval_`.
    file_ = file;
    last_ = now;
  }
  const bool finished = done >= total;
  if (!finished && now - last_ < interval_) return;
  last_ = now;
  out_ << "svp_prof: read " << megabytes(done) << " / " << megabytes(total) << " of " << file << "\n";
  out_.flush();
}

}  // namespace svp::prof
