#include "kernels/time_steps.h"

#include <algorithm>
#include <cstdint>

#include "kernels/kernels.h"
#include "model/custom_op.h"

namespace svp::kernels {

namespace {
// ONNX input index of sequence_lens for LSTM, GRU and RNN.
constexpr std::size_t kSequenceLens = 4;
}  // namespace

Status run_reference_with_steps(const model::Layer& layer, std::vector<model::TensorView> in,
                                const std::vector<model::TensorView>& out, const RunArgs& args) {
  if (model::is_custom_op(layer.attrs)) {
    if (args.custom_ops != nullptr) return args.custom_ops->run(layer, in, out);
    return Error(err::kFeatureUnsupported,
                 "{} is a custom operator and no implementation of it was registered (librknnrt: "
                 "rknn_register_custom_ops with op_type \"{}\" before rknn_run)",
                 layer.op, layer.op);
  }
  if (args.total_t == 0 || !model::is_recurrent_op(layer.op) || in.empty()) {
    return run_reference(layer.op, layer.attrs, in, out);
  }
  const auto steps = model::recurrent_time_steps(layer, in[0].dims);
  if (!steps) return Error(err::kInvalidParam, "{}: input X must be 3-D", layer.op);
  if (args.total_t >= static_cast<std::uint64_t>(*steps)) return run_reference(layer.op, layer.attrs, in, out);
  auto layout = layer.attrs.get_int("layout", 0);  // valid: recurrent_time_steps checked it
  const std::int64_t batch = in[0].dims[*layout == 1 ? 0 : 1];
  // The execution's limit, or the model's own shorter lengths where it gives them.
  std::vector<std::int32_t> lens(static_cast<std::size_t>(batch), static_cast<std::int32_t>(args.total_t));
  if (in.size() > kSequenceLens && in[kSequenceLens].data != nullptr) {
    const model::TensorView& given = in[kSequenceLens];
    if (given.dtype != model::DType::kInt32 || given.elements() != batch) {
      return Error(err::kInvalidParam, "{}: sequence_lens must be int32 of {} entries", layer.op, batch);
    }
    for (std::int64_t b = 0; b < batch; ++b) {
      lens[static_cast<std::size_t>(b)] = std::min(lens[static_cast<std::size_t>(b)], given.as<std::int32_t>()[b]);
    }
  }
  if (in.size() <= kSequenceLens) in.resize(kSequenceLens + 1);
  model::TensorView seq;
  seq.dtype = model::DType::kInt32;
  seq.dims = {batch};
  seq.data = lens.data();
  in[kSequenceLens] = seq;
  return run_reference(layer.op, layer.attrs, in, out);
}

}  // namespace svp::kernels
