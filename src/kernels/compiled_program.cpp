#include "kernels/compiled_program.h"

#include "kernels/kernels.h"
#include "kernels/onednn/program.h"
#include "kernels/time_steps.h"
#include "model/custom_op.h"

namespace svp::kernels {
namespace {

// Every layer through its reference kernel. Views are rebuilt per call from the program
// (cheap next to any real kernel) so the object holds no per-execution state.
class ReferenceProgram final : public CompiledProgram {
 public:
  explicit ReferenceProgram(const model::Program& p) : program_(p) {}

  std::size_t layer_count() const override { return program_.layers.size(); }

  Status run_layer(std::size_t index, const std::vector<void*>& tensor_data, const RunArgs& args) const override {
    const model::Layer& layer = program_.layers.at(index);
    std::vector<TensorView> in;
    std::vector<TensorView> out;
    in.reserve(layer.inputs.size());
    for (std::int32_t t : layer.inputs) in.push_back(t < 0 ? TensorView{} : view(t, tensor_data));
    out.reserve(layer.outputs.size());
    for (std::int32_t t : layer.outputs) out.push_back(view(t, tensor_data));
    Status s = run_reference_with_steps(layer, std::move(in), out, args);
    if (!s.ok()) return Status(s.code(), "layer \"" + layer.name + "\": " + s.message());
    return s;
  }

  std::string layer_impl(std::size_t) const override { return "reference"; }

  Result<std::vector<std::uint8_t>> read_tensor(std::size_t t, const std::vector<void*>& data) const override {
    const model::Tensor& tensor = program_.tensors.at(t);
    const auto* p = static_cast<const std::uint8_t*>(data.at(t));
    if (p == nullptr) return Error(err::kInvalidParam, "tensor \"{}\" has no storage in this execution", tensor.name);
    return std::vector<std::uint8_t>(p, p + tensor.size);
  }

 private:
  TensorView view(std::int32_t t, const std::vector<void*>& data) const {
    const model::Tensor& tensor = program_.tensors[static_cast<std::size_t>(t)];
    TensorView v;
    v.dtype = tensor.dtype;
    v.dims = tensor.dims;
    v.data = data[static_cast<std::size_t>(t)];
    v.quant = tensor.quant.empty() ? nullptr : &tensor.quant;
    return v;
  }

  const model::Program& program_;
};

}  // namespace

Result<std::unique_ptr<CompiledProgram>> CompiledProgram::compile(const model::Program& program, const std::uint8_t* weights,
                                                                  std::size_t weights_size,
                                                                  const CompileOptions& options) {
  const auto& ops = supported_ops();
  for (const model::Layer& l : program.layers) {
    bool known = model::is_custom_op(l.attrs);
    for (const std::string& op : ops) known = known || op == l.op;
    if (!known) return Error(err::kParseModel, "layer \"{}\": op \"{}\" has no kernel", l.name, l.op);
  }
  if (options.fast_paths) return onednn::compile_fast(program, weights, weights_size, options);
  return std::unique_ptr<CompiledProgram>(new ReferenceProgram(program));
}

}  // namespace svp::kernels
