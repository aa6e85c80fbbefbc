// The C API's element types as svp_run needs them: .npy dtype strings, readable names, and
// element values as doubles (for comparison and TXT output; float16 widened exactly).
#pragma once

#include <cstddef>
#include <cstdint>

#include "acl/svp_acl_base.h"

namespace svp::run {

const char* npy_descr(svp_acl_data_type t);
const char* dtype_name(svp_acl_data_type t);
// Element `i` of `data`, which holds elements of type `t`.
double element(svp_acl_data_type t, const std::uint8_t* data, std::size_t i);

}  // namespace svp::run
