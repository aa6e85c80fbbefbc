// The C API's plain descriptor objects, shared by the files that read them: data buffers
// (base.cpp), datasets (dataset.cpp) and model execution (model_exec.cpp). Both are
// registered in a LiveSet so a NULL, destroyed or foreign pointer is an error, not a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "acl/svp_acl_mdl.h"
#include "capi/live_set.h"

struct svp_acl_data_buffer {
  void* data;
  size_t size;
  size_t stride;
};

struct svp_acl_mdl_dataset {
  std::vector<svp_acl_data_buffer*> buffers;
  // svp_acl_mdl_set_dynamic_batch_size: the batch count of executions using this dataset
  // as input (vendor default 1).
  std::uint64_t batch = 1;
  // svp_acl_mdl_set_total_t: time steps of recurrent nets for executions using this dataset
  // as input; 0 = the model's compiled maximum (vendor default).
  std::uint64_t total_t = 0;
};

namespace svp::capi {
LiveSet<svp_acl_data_buffer>& data_buffers();  // base.cpp
LiveSet<svp_acl_mdl_dataset>& datasets();      // dataset.cpp
}  // namespace svp::capi
