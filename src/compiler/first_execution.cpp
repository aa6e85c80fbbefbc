#include "compiler/first_execution.h"

#include <algorithm>

#include <fmt/format.h>

namespace svp::compiler {

std::vector<void*> tensor_addresses(const model::Program& p, const std::vector<void*>& inputs,
                                    const std::vector<void*>& outputs, std::uint8_t* work_buf,
                                    const std::uint8_t* weights) {
  std::vector<void*> data(p.tensors.size(), nullptr);
  for (std::size_t t = 0; t < p.tensors.size(); ++t) {
    const model::Tensor& x = p.tensors[t];
    const auto io = static_cast<std::size_t>(x.io_index);
    switch (x.placement) {
      case model::Placement::kModelInput: data[t] = io < inputs.size() ? inputs[io] : nullptr; break;
      case model::Placement::kModelOutput: data[t] = io < outputs.size() ? outputs[io] : nullptr; break;
      case model::Placement::kWorkBuf: data[t] = work_buf + x.offset; break;
      case model::Placement::kWeights: data[t] = const_cast<std::uint8_t*>(weights) + x.offset; break;
    }
  }
  return data;
}

namespace {

// A zeroed, 64-byte aligned buffer of `bytes` (as the runtime's allocations are).
struct Zeroed {
  explicit Zeroed(std::uint64_t bytes) : words(static_cast<std::size_t>(bytes + 63) / 8 + 8, 0) {}
  std::uint8_t* data() {
    return reinterpret_cast<std::uint8_t*>((reinterpret_cast<std::uintptr_t>(words.data()) + 63) &
                                           ~std::uintptr_t{63});
  }
  std::vector<std::uint64_t> words;
};

}  // namespace

Status first_execution(const model::Program& p, const std::uint8_t* weights, const kernels::CompiledProgram& compiled,
                       std::vector<std::string>* notes) {
  std::vector<Zeroed> ins, outs;
  for (std::int32_t t : p.input_tensors()) ins.emplace_back(p.tensors[static_cast<std::size_t>(t)].size);
  for (std::int32_t t : p.output_tensors()) outs.emplace_back(p.tensors[static_cast<std::size_t>(t)].size);
  std::vector<void*> in_data, out_data;
  for (Zeroed& z : ins) in_data.push_back(z.data());
  for (Zeroed& z : outs) out_data.push_back(z.data());
  // With an I/O buffer-reuse type the work_buf tensors' arena runs on into the input and
  // output memory (model::arena_parts): one zeroed block covers all of it here.
  std::uint64_t arena = p.flags.work_buf_size;
  for (const model::Tensor& x : p.tensors) {
    if (x.placement == model::Placement::kWorkBuf) arena = std::max(arena, x.offset + x.size);
  }
  Zeroed work(arena);
  const std::vector<void*> data = tensor_addresses(p, in_data, out_data, work.data(), weights);
  for (std::size_t l = 0; l < compiled.layer_count(); ++l) {
    const Status st = compiled.run_layer(l, data, kernels::RunArgs{});
    if (st.ok()) continue;
    const model::Layer& layer = p.layers[l];
    if (st.code() != err::kUnsupportedDataType && st.code() != err::kParseModel) {
      notes->push_back(fmt::format("first execution: node \"{}\" ({}) failed on zero inputs, not refused (it may be "
                                   "the zero values; the runtime checks the real ones): {}",
                                   layer.name, layer.op, st.message()));
      continue;
    }
    return Error(err::kParseModel,
                 "node \"{}\" ({}): the runtime refuses this layer at the model's first execution: {}\n"
                 "svp_atc ran the model once (on zero inputs, through the runtime's own kernels) before writing it; "
                 "fix the node in the model (its operand types or attributes), or cut the model before it",
                 layer.name, layer.op, st.message());
  }
  return Status::Ok();
}

}  // namespace svp::compiler
