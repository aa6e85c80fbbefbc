// Dequantization of a dumped quantized tensor: real = scale · (q − zero_point).
//
// Per-tensor when scales has one entry; per-channel along `axis` otherwise (scales and
// zero_points then have dims[axis] entries; a single zero_point applies to every channel).
// Returns false with `error` set on any inconsistency; never reads out of bounds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace svp::compare {

bool Dequantize(const std::vector<std::int64_t>& dims, const std::vector<double>& scales,
                const std::vector<double>& zero_points, int axis, std::vector<double>* values,
                std::string* error);

}  // namespace svp::compare
