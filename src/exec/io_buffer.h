// One application buffer as svp_acl_data_buffer describes it: what an execution request
// (exec/execution.h) holds per model input and output.
#pragma once

#include <cstdint>

namespace svp::exec {

struct IoBuffer {
  void *data = nullptr;
  std::uint64_t size = 0;
  std::uint64_t stride = 0;
};

}  // namespace svp::exec
