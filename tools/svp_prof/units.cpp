#include "svp_prof/units.h"

#include <cstdio>

namespace svp::prof {

std::string format_us(std::int64_t ns) {
  // Magnitude in unsigned arithmetic: -INT64_MIN does not fit an int64.
  const bool negative = ns < 0;
  const std::uint64_t mag = negative ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s%llu.%03llu", negative ? "-" : "", static_cast<unsigned long long>(mag / 1000),
                static_cast<unsigned long long>(mag % 1000));
  return buf;
}

std::string format_percent(double pct) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", pct);
  return buf;
}

}  // namespace svp::prof
