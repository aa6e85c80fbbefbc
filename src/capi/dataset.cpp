// svp_acl_mdl.h datasets: ordered lists of data buffer descriptors (model inputs or
// outputs). The dataset references descriptors; it owns neither them nor their memory.
#include <vector>

#include "acl/svp_acl_mdl.h"
#include "capi/guard.h"
#include "capi/live_set.h"
#include "capi/objects.h"
#include "capi/shim.h"

namespace svp::capi {
LiveSet<svp_acl_mdl_dataset>& datasets() {
  static LiveSet<svp_acl_mdl_dataset> set("dataset");
  return set;
}
}  // namespace svp::capi

using svp::capi::data_buffers;
using svp::capi::datasets;

svp_acl_mdl_dataset* svp_acl_mdl_create_dataset(void) {
  return guard_value<svp_acl_mdl_dataset*>(__func__, nullptr, [&]() -> Result<svp_acl_mdl_dataset*> {
    auto* d = new svp_acl_mdl_dataset();
    datasets().add(d);
    return d;
  });
}

svp_acl_error svp_acl_mdl_destroy_dataset(const svp_acl_mdl_dataset* dataset) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(datasets().remove(dataset));
    delete dataset;
    return Status::Ok();
  });
}

svp_acl_error svp_acl_mdl_add_dataset_buffer(svp_acl_mdl_dataset* dataset, svp_acl_data_buffer* data_buffer) {
  return guard(__func__, [&]() -> Status {
    SVP_RETURN_IF_ERROR(datasets().check(dataset));
    SVP_RETURN_IF_ERROR(data_buffers().check(data_buffer));
    dataset->buffers.push_back(data_buffer);
    return Status::Ok();
  });
}

size_t svp_acl_mdl_get_dataset_num_buffers(const svp_acl_mdl_dataset* dataset) {
  return guard_value<size_t>(__func__, 0, [&]() -> Result<size_t> {
    SVP_RETURN_IF_ERROR(datasets().check(dataset));
    return dataset->buffers.size();
  });
}

svp_acl_data_buffer* svp_acl_mdl_get_dataset_buffer(const svp_acl_mdl_dataset* dataset, size_t index) {
  return guard_value<svp_acl_data_buffer*>(__func__, nullptr, [&]() -> Result<svp_acl_data_buffer*> {
    SVP_RETURN_IF_ERROR(datasets().check(dataset));
    if (index >= dataset->buffers.size()) {
      return Error(err::kInvalidParam, "dataset index {} out of range (it holds {} buffers)", index,
                   dataset->buffers.size());
    }
    return dataset->buffers[index];
  });
}
