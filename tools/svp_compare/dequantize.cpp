#include "svp_compare/dequantize.h"

namespace svp::compare {

bool Dequantize(const std::vector<std::int64_t>& dims, const std::vector<double>& scales,
                const std::vector<double>& zero_points, int axis, std::vector<double>* values,
                std::string* error) {
  if (scales.empty()) {
    *error = "quantized tensor has no scale";
    return false;
  }
  if (scales.size() == 1) {
    if (zero_points.size() > 1) {
      *error = "one scale but " + std::to_string(zero_points.size()) + " zero points";
      return false;
    }
    const double zp = zero_points.empty() ? 0.0 : zero_points[0];
    for (double& v : *values) v = scales[0] * (v - zp);
    return true;
  }
  const int rank = static_cast<int>(dims.size());
  const int ax = axis < 0 ? axis + rank : axis;
  if (ax < 0 || ax >= rank) {
    *error = "per-channel axis " + std::to_string(axis) + " is outside rank " + std::to_string(rank);
    return false;
  }
  const std::uint64_t channels = static_cast<std::uint64_t>(dims[ax]);
  if (scales.size() != channels || (zero_points.size() != 1 && zero_points.size() != channels && !zero_points.empty())) {
    *error = std::to_string(scales.size()) + " scales / " + std::to_string(zero_points.size()) +
             " zero points do not match " + std::to_string(channels) + " channels on axis " + std::to_string(axis);
    return false;
  }
  std::uint64_t inner = 1;
  for (int d = ax + 1; d < rank; ++d) inner *= static_cast<std::uint64_t>(dims[d]);
  for (std::size_t i = 0; i < values->size(); ++i) {
    const std::size_t c = static_cast<std::size_t>((i / inner) % channels);
    const double zp = zero_points.empty() ? 0.0 : zero_points.size() == 1 ? zero_points[0] : zero_points[c];
    (*values)[i] = scales[c] * ((*values)[i] - zp);
  }
  return true;
}

}  // namespace svp::compare
