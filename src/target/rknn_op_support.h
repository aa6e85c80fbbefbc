// The RKNN NPUs' operator support sets (Rockchip's SDK 2.3.2 support list), one per group
// of platforms the vendor documents together. Generated data: rknn_op_support.cpp.
#pragma once

#include "target/device_profile.h"

namespace svp::target {

// In the column order of src/target/data/rknn_op_support_2.3.2.tsv.
enum class RknnOpSet : std::uint8_t { kRk3588, kRk3576, kRk3566, kRk3562, kRv1106 };

const OpSupport& rknn_ops(RknnOpSet set);

}  // namespace svp::target
