// Number formatting shared by the outputs. Times are printed from integer nanoseconds
// as microseconds with exactly three decimals, so no value is rounded twice and the
// CSVs compare byte for byte across platforms.
#pragma once

#include <cstdint>
#include <string>

namespace svp::prof {

// 1234567 → "1234.567", -5 → "-0.005".
std::string format_us(std::int64_t ns);
// 12.3456 → "12.35".
std::string format_percent(double pct);

}  // namespace svp::prof
