// svp_acl_mdl.h execution: svp_acl_mdl_execute, svp_acl_mdl_execute_async and the dynamic
// shape setters that configure an execution's dataset.
//
// The shims resolve the model id and the datasets' handles and call the runtime
// (src/runtime/execute.cpp: Runtime::execute and the dataset settings' checks).
#include <memory>
#include <vector>

#include "acl/svp_acl_mdl.h"
#include "capi/guard.h"
#include "capi/objects.h"
#include "capi/shim.h"
#include "runtime/runtime.h"

using svp::capi::with_runtime;
using svp::runtime::ExecuteArgs;
using svp::runtime::IoBuffer;
using svp::runtime::Runtime;

namespace {

// The dataset's buffers; `pins` receives the tokens that keep the dataset and its
// descriptors from being destroyed until the execution is done (a dataset destroyed
// under an execute_async in flight raced with it: ThreadSanitizer, the bad-input probe).
Result<std::vector<IoBuffer>> buffers_of(const svp_acl_mdl_dataset* d, const char* side,
                                         std::vector<std::shared_ptr<void>>* pins) {
  if (d == nullptr) return Error(err::kInvalidParam, "the {} dataset is NULL", side);
  auto dataset_pin = svp::capi::datasets().pin(d);
  if (!dataset_pin.ok()) return dataset_pin.status();
  pins->push_back(std::move(*dataset_pin));
  std::vector<IoBuffer> out;
  out.reserve(d->buffers.size());
  for (std::size_t i = 0; i < d->buffers.size(); ++i) {
    const svp_acl_data_buffer* b = d->buffers[i];
    auto buffer_pin = svp::capi::data_buffers().pin(b);
    if (!buffer_pin.ok()) {
      return Error(err::kInvalidParam, "{} dataset entry {} is a destroyed data buffer", side, i);
    }
    pins->push_back(std::move(*buffer_pin));
    out.push_back({b->data, b->size, b->stride});
  }
  return out;
}

Result<ExecuteArgs> args_of(const svp_acl_mdl_dataset* input, const svp_acl_mdl_dataset* output) {
  std::vector<std::shared_ptr<void>> pins;
  auto in = buffers_of(input, "input", &pins);
  if (!in.ok()) return in.status();
  auto out = buffers_of(output, "output", &pins);
  if (!out.ok()) return out.status();
  ExecuteArgs args;
  args.inputs = std::move(*in);
  args.outputs = std::move(*out);
  args.batch = input->batch;
  args.total_t = input->total_t;
  args.pins = std::move(pins);
  return args;
}

Status execute(uint32_t model_id, const svp_acl_mdl_dataset* input, const svp_acl_mdl_dataset* output,
               svp_acl_rt_stream stream, bool sync) {
  return with_runtime([&](Runtime& rt) -> Status {
    auto loaded = rt.models().lookup(model_id);
    if (!loaded.ok()) return loaded.status();
    auto args = args_of(input, output);
    if (!args.ok()) return args.status();
    return rt.execute(*loaded, model_id, std::move(*args), stream, sync);
  });
}

// Resolves the model and the dataset, checks `check(model)` and then applies `set(dataset)`.
template <typename Check, typename Set>
Status set_on_dataset(uint32_t model_id, svp_acl_mdl_dataset* dataset, Check check, Set set) {
  return with_runtime([&](Runtime& rt) -> Status {
    auto loaded = rt.models().lookup(model_id);
    if (!loaded.ok()) return loaded.status();
    SVP_RETURN_IF_ERROR(svp::capi::datasets().check(dataset));
    SVP_RETURN_IF_ERROR(check(*loaded));
    set(*dataset);
    return Status::Ok();
  });
}

}  // namespace

svp_acl_error svp_acl_mdl_execute(uint32_t model_id, const svp_acl_mdl_dataset* input,
                                  const svp_acl_mdl_dataset* output) {
  return guard(__func__, [&] { return execute(model_id, input, output, nullptr, true); });
}

svp_acl_error svp_acl_mdl_execute_async(uint32_t model_id, const svp_acl_mdl_dataset* input,
                                        const svp_acl_mdl_dataset* output, svp_acl_rt_stream stream) {
  return guard(__func__, [&] { return execute(model_id, input, output, stream, false); });
}

svp_acl_error svp_acl_mdl_set_dynamic_batch_size(uint32_t model_id, svp_acl_mdl_dataset* dataset, size_t index,
                                                 uint64_t batch_size) {
  return guard(__func__, [&] {
    return set_on_dataset(
        model_id, dataset, [&](const auto& m) { return Runtime::check_batch_size(*m.model, index, batch_size); },
        [&](svp_acl_mdl_dataset& d) { d.batch = batch_size; });
  });
}

svp_acl_error svp_acl_mdl_set_total_t(uint32_t model_id, svp_acl_mdl_dataset* dataset, uint64_t total_t) {
  return guard(__func__, [&] {
    return set_on_dataset(
        model_id, dataset, [&](const auto& m) { return Runtime::check_total_t(*m.model, model_id, total_t); },
        [&](svp_acl_mdl_dataset& d) { d.total_t = total_t; });
  });
}

svp_acl_error svp_acl_mdl_set_dynamic_hw_size(uint32_t model_id, svp_acl_mdl_dataset* dataset, size_t index,
                                              uint64_t height, uint64_t width) {
  return guard(__func__, [&] {
    return set_on_dataset(
        model_id, dataset,
        [&](const auto& m) { return Runtime::select_resolution(m, model_id, index, height, width); },
        [](svp_acl_mdl_dataset&) {});
  });
}
