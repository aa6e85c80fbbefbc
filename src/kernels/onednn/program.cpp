// Planning and running a program with oneDNN fast paths.
//
// At compile time every layer gets one of these kinds:
//   kFast      a oneDNN primitive (Conv, pools, Gemm/MatMul, float eltwise), possibly with
//              the following layers folded in (their kind becomes kFused: a no-op), or
//              on CPUs where oneDNN's int8 is inexact our exact int8 Conv/Gemm/MatMul
//              (int8_conv_avx2.h, layer_impl "avx2_int8") in the same role;
//   kNative    our own kernels where oneDNN does not implement the reference rule: int8
//              Add, optionally with the following Relu (q8_add.h); int8
//              GlobalAveragePool (q8_gap.h); int8 Add/Sub/Mul with broadcasting
//              (q8_binary.h), which runs inside a kReference/kAgnostic layer's frame
//              (plan.q8_bin: the same views, conversions and NHWC dims the reference
//              kernel would get);
//   kAgnostic  the reference kernel run directly on the stored bytes, because the op is
//              elementwise over tensors of one shape and so does not care whether they
//              are NCHW or NHWC (int8 Relu/Clip/Add keep their exact reference rules); a
//              logical operand beside an NHWC one is converted to NHWC first, and with
//              several threads the elements are split between them (the same kernel on
//              each slice, so the bytes are the same);
//   kReference the reference kernel on logical (NCHW) tensors, NHWC inputs converted into
//              scratch first.
// Storage: a 4-D kWorkBuf tensor produced by a fast op is kept NHWC (nhwc_[t]); model
// inputs/outputs and reference outputs are logical. Consumers convert what they need.
#include "kernels/onednn/program.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "common/log.h"
#include "kernels/common.h"
#include "kernels/cost.h"
#include "kernels/kernels.h"
#include "kernels/onednn/deconv_as_conv.h"
#include "kernels/onednn/erf_f32.h"
#include "kernels/onednn/fast_op.h"
#include "kernels/onednn/gelu_pattern.h"
#include "kernels/onednn/layout.h"
#include "kernels/onednn/matmul_const.h"
#include "kernels/onednn/q8_add.h"
#include "kernels/onednn/q8_avg_pool.h"
#include "kernels/onednn/q8_binary.h"
#include "kernels/onednn/q8_deconv.h"
#include "kernels/onednn/q8_elementwise.h"
#include "kernels/onednn/q8_gap.h"
#include "kernels/onednn/q8_layer_norm.h"
#include "kernels/onednn/q8_matmul.h"
#include "kernels/onednn/q8_softmax.h"
#include "kernels/onednn/q8_table.h"
#include "kernels/onednn/quant_params.h"
#include "kernels/onednn/runtime.h"
#include "kernels/onednn/sgemm_matmul.h"
#include "kernels/onednn/spin_governor.h"
#include "kernels/onednn/swish_f32.h"
#include "kernels/time_steps.h"
#include "ops/op_def.h"

namespace svp::kernels::onednn {
namespace {

using model::DType;
using model::Placement;

enum class Kind { kReference, kAgnostic, kFast, kNative, kFused };

struct Plan {
  Kind kind = Kind::kReference;
  std::unique_ptr<FastOp> op;
  std::int32_t src = -1;    // kFast: the activation input
  std::int32_t dst = -1;    // kFast: the tensor finally written
  std::int32_t sum = -1;    // kFast: the residual operand of a fused Add
  bool spatial = false;     // kFast: src/dst are 4-D NHWC (conv, pool) rather than flat
  bool dst_in_scratch = false;  // kFast: computed in scratch, then copied/converted to dst
  // kFast: NCHW → NHWC of a logical src, NHWC → NCHW of a model-output dst (oneDNN
  // reorders; null = not needed or unavailable, then layout.h's converters).
  std::unique_ptr<FastOp> src_reorder, dst_reorder;
  std::size_t src_off = 0, dst_off = 0, pad_off = 0, scratch = 0;  // per-call scratch layout
  std::string fused_into;   // kFused: the layer that does the work
  std::string fused_impl;   // kFused into a NativeKernel FastOp: "<its impl>:fused"
  bool native_group = false;  // kFused: folded into a kNative layer
  // kNative (q8_add): operands a = src, b, the output dst, and the encodings.
  std::int32_t b = -1;     // -1: q8_global_avg_pool of src
  bool relu = false;
  Q8Operand qa{}, qb{}, qy{};
  std::shared_ptr<const Q8GapInput> gap;  // b < 0: qa prepared for q8_global_avg_pool
  // kReference float MatMul that oneDNN's sgemm computes instead of the reference loop
  // (inputs still converted to logical order as for any reference layer).
  bool sgemm = false;
  SgemmMatMul mm{};
  // kReference int8 MatMul computed by q8_matmul (inputs in logical order as for sgemm).
  bool q8_mm = false;
  Q8MatMul qmm{};
  // kReference float op computed on the logical views by `f32` (input 0 → output 0)
  // instead of the reference loop: Softmax, LayerNormalization, Erf. `f32_impl` names it.
  std::unique_ptr<FastOp> f32;
  std::string f32_impl;
  // kReference/kAgnostic int8 Add/Sub/Mul computed by q8_binary (encodings qa, qb, qy).
  bool q8_bin = false;
  Q8BinaryOp bin_op = Q8BinaryOp::kAdd;
  // kReference/kAgnostic int8 unary elementwise op as a table (q8_table.h), applied to
  // input lut_input (a Mul(x, U(x)) that absorbed U reads x alone).
  bool q8_lut = false;
  Q8Table lut{};
  std::size_t lut_input = 0;
  // kReference int8 Softmax along the last axis (q8_softmax.h).
  bool q8_smax = false;
  Q8Softmax smax{};
  // kReference int8 AveragePool (q8_avg_pool.h), on logical views.
  std::shared_ptr<const Q8AvgPool> avg_pool;
  // kReference int8/int16 LayerNormalization (q8_layer_norm.h), any target.
  bool q8_ln = false;
  Q8LayerNorm ln{};
  // kAgnostic with a per-channel operand ([n, C, 1, 1]): the reference kernel sees every
  // 4-D tensor with NHWC dims, so the channel broadcast lands on the innermost axis.
  bool nhwc_view = false;
  // kAgnostic: its 4-D logical (NCHW) inputs are converted to NHWC first.
  bool to_nhwc = false;
  // kAgnostic on NHWC views of a layer that is not elementwise: the layer as the reference
  // kernel sees it then (Concat's axis 1 becomes 3), and Resize's scales or sizes (input
  // `nhwc_param_input`) permuted like the dims.
  std::unique_ptr<model::Layer> nhwc_layer;
  std::vector<std::uint8_t> nhwc_param;
  int nhwc_param_input = -1;
};

// The op table's fast-path classes (src/ops): unary activations oneDNN's eltwise computes,
// and the float binary ops computed on NHWC views.
bool is_unary_eltwise(const std::string& op) { return ops::op_def(op).fast == ops::FastPath::kEltwise; }
bool is_binary(const std::string& op) { return ops::op_def(op).fast == ops::FastPath::kBinary; }

class FastProgram final : public CompiledProgram {
 public:
  FastProgram(const model::Program& p, const std::uint8_t* weights, int threads, KernelSpin spin, bool fuse)
      : program_(p),
        weights_(weights),
        threads_(threads),
        spin_(spin),
        fuse_(fuse),
        nhwc_(p.tensors.size(), false),
        plans_(p.layers.size()) {}

  void plan();

  std::size_t layer_count() const override { return program_.layers.size(); }
  Status run_layer(std::size_t index, const std::vector<void*>& tensor_data, const RunArgs& args) const override;
  Result<std::vector<std::uint8_t>> read_tensor(std::size_t t, const std::vector<void*>& data) const override;
  bool layer_folded(std::size_t index) const override { return plans_.at(index).kind == Kind::kFused; }
  std::string layer_impl(std::size_t index) const override {
    const Plan& p = plans_.at(index);
    switch (p.kind) {
      case Kind::kFast:
        return p.op->native() ? p.op->impl() : "onednn";
      case Kind::kFused:
        return p.native_group ? "native:fused" : p.fused_impl.empty() ? "onednn:fused" : p.fused_impl;
      case Kind::kNative:
        return "native";
      case Kind::kAgnostic:
        return p.q8_bin || p.q8_lut ? "native:nhwc" : "reference:nhwc";  // the reference kernel on the NHWC bytes as they are
      default:
        if (p.f32) return p.f32_impl;
        if (p.sgemm) return "onednn:sgemm";
        return p.q8_bin || p.q8_lut || p.q8_mm || p.q8_smax || p.q8_ln || p.avg_pool ? "native" : "reference";
    }
  }

 private:
  const model::Tensor& tensor(std::int32_t t) const { return program_.tensors[static_cast<std::size_t>(t)]; }
  // A view of a tensor; constants carry their data (for weight reordering).
  TensorView view(std::int32_t t, void* data = nullptr) const {
    const model::Tensor& x = tensor(t);
    TensorView v;
    v.dtype = x.dtype;
    v.dims = x.dims;
    v.quant = x.quant.empty() ? nullptr : &x.quant;
    v.data = data;
    if (data == nullptr && x.placement == Placement::kWeights) v.data = const_cast<std::uint8_t*>(weights_ + x.offset);
    return v;
  }
  bool is_const(std::int32_t t) const { return t >= 0 && tensor(t).placement == Placement::kWeights; }
  // t is an intermediate read by exactly one layer (so folding its producer into that
  // reader loses nothing).
  // Layers j and j + 1 are SiLU as torch exports it, Sigmoid(t) then Mul of t and that
  // (t read by both alone, the Sigmoid's output by the Mul alone, all float32): oneDNN's
  // eltwise_swish post-op, x·sigmoid(x), in the layer that writes t.
  bool self_gated_sigmoid(std::size_t j, std::int32_t t) const {
    if (j + 1 >= program_.layers.size() || tensor(t).placement != Placement::kWorkBuf ||
        readers_[static_cast<std::size_t>(t)] != 2)
      return false;
    const model::Layer &g = program_.layers[j], &m = program_.layers[j + 1];
    if (g.op != "Sigmoid" || g.inputs.size() != 1 || g.inputs[0] != t || g.outputs.size() != 1) return false;
    const std::int32_t u = g.outputs[0];
    if (!private_intermediate(u) || m.op != "Mul" || m.inputs.size() != 2 || m.outputs.size() != 1) return false;
    if (!((m.inputs[0] == t && m.inputs[1] == u) || (m.inputs[0] == u && m.inputs[1] == t))) return false;
    const model::Tensor& y = tensor(m.outputs[0]);
    return y.dtype == DType::kFloat32 && tensor(u).dtype == DType::kFloat32 && y.dims == tensor(t).dims;
  }
  bool private_intermediate(std::int32_t t) const {
    return tensor(t).placement == Placement::kWorkBuf && readers_[static_cast<std::size_t>(t)] == 1;
  }
  // work_buf byte ranges of a and b overlap (model I/O never does).
  bool overlap(std::int32_t a, std::int32_t b) const {
    const model::Tensor &x = tensor(a), &y = tensor(b);
    if (x.placement != Placement::kWorkBuf || y.placement != Placement::kWorkBuf) return false;
    return x.offset < y.offset + y.size && y.offset < x.offset + x.size;
  }
  bool same_bytes(std::int32_t a, std::int32_t b) const {
    return tensor(a).placement == Placement::kWorkBuf && tensor(b).placement == Placement::kWorkBuf &&
           tensor(a).offset == tensor(b).offset;
  }
  bool try_conv(std::size_t i);
  bool post_op(const model::Layer& e, std::int32_t dst, bool fp32, PostEltwise* pe) const;
  bool try_other(std::size_t i);
  bool try_linear(std::size_t i);
  std::size_t linear_post_ops(std::size_t j, std::int32_t* dst, std::vector<PostEltwise>* post) const;
  bool try_q8_add(std::size_t i);
  void plan_sgemm(std::size_t i);
  void plan_f32(std::size_t i);
  void plan_q8_layer_norm(std::size_t i);
  void plan_q8_binary(std::size_t i);
  void plan_scalar_table(std::size_t i);
  void plan_self_gated_tables();
  bool agnostic(std::size_t i, bool* nhwc_view, bool* to_nhwc) const;
  bool try_nhwc_view(std::size_t i);
  void finish_fast(std::size_t i);
  Status run_reference_layer(std::size_t index, const std::vector<void*>& data, bool convert,
                             const RunArgs& args) const;
  // kAgnostic on `in`/`out` (NHWC views where nhwc_view): on one thread, or sliced.
  Status run_sliced(const model::Layer& layer, const std::vector<TensorView>& in, const std::vector<TensorView>& out,
                    bool nhwc_view, const RunArgs& args) const;
  // The native int8 table and binary ops of layer `layer` (plan.q8_lut, plan.q8_bin), split
  // over the kernel threads when large and on the NPU (q8_elementwise.h).
  void run_q8_elementwise(const model::Layer& layer, const Plan& plan, const std::vector<TensorView>& in,
                          const std::vector<TensorView>& out) const;
  // The kernel threads a layer runs on: the program's on the NPU; one on the AI-CPU, whose
  // layers run in an application thread. Why one: an OpenMP region opened there starts a
  // second team, and with more OpenMP threads than CPUs libgomp shortens every spin-wait
  // of the process, so each NPU region then waits for a sleeping worker (a transformer's
  // small int8 layers took ~45 µs more each on two kernel threads).
  // This is the configured count, what the plans are made for; run_threads is what a run
  // uses now.
  int threads_for(const model::Layer& layer) const { return layer.target == model::Target::kNpu ? threads_ : 1; }
  // One while the spin governor finds the machine oversubscribed (spin_governor.h), except
  // for the layers large enough to keep their threads (keeps_threads_).
  int run_threads(const model::Layer& layer) const {
    const int t = threads_for(layer);
    if (t <= 1) return 1;
    const auto i = static_cast<std::size_t>(&layer - program_.layers.data());
    if (i < keeps_threads_.size() && keeps_threads_[i]) return t;
    return spin_governor_threads(spin_, t);
  }

  const model::Program& program_;
  const std::uint8_t* weights_;
  int threads_;
  KernelSpin spin_;
  bool fuse_;
  std::vector<bool> nhwc_;
  std::vector<int> readers_;
  std::vector<Plan> plans_;
  // Layers whose parallel regions are long enough that on a busy machine their threads'
  // CPU shares gain more than the waits for a descheduled partner cost (kBusyKeepsThreadsMacs).
  std::vector<char> keeps_threads_;
};

// On a busy machine (the spin governor's one-thread mode) a layer of at least this many
// MACs keeps its threads. Its regions run for a millisecond or more, so the CPU share a
// second thread wins beside the other processes outweighs the waits for a descheduled
// partner; below it the waits win. Measured beside one CPU-bound process per CPU on the
// 2-vCPU VM (fp32, P50 of 60 inferences, two runs each): ResNet-18 (convolutions of
// 58–118 M MACs) 55–63 ms with every layer on one thread, 33–51 ms keeping them;
// DeepLabV3-MobileNetV3 40 → 20–37 ms; EfficientNet-B0 (all layers below 30 M) unchanged.
constexpr std::uint64_t kBusyKeepsThreadsMacs = 50'000'000;

// Clip's bounds from constant inputs or opset-6 attributes; absent = unbounded.
bool clip_bounds(const model::Program& p, const model::Layer& l, const std::uint8_t* weights, float* lo, float* hi) {
  *lo = std::numeric_limits<float>::lowest();
  *hi = std::numeric_limits<float>::max();
  for (std::size_t k = 1; k < 3 && k < l.inputs.size(); ++k) {
    const std::int32_t t = l.inputs[k];
    if (t < 0) continue;
    const model::Tensor& x = p.tensors[static_cast<std::size_t>(t)];
    if (x.placement != Placement::kWeights || x.dtype != DType::kFloat32 || x.size != sizeof(float)) return false;
    float v;
    std::memcpy(&v, weights + x.offset, sizeof v);
    (k == 1 ? *lo : *hi) = v;
  }
  for (const char* name : {"min", "max"}) {
    if (!l.attrs.has(name)) continue;
    auto v = l.attrs.get_float(name, 0);
    if (!v.ok()) return false;
    (name[1] == 'i' ? *lo : *hi) = static_cast<float>(v.value());
  }
  return true;
}

void FastProgram::finish_fast(std::size_t i) {
  Plan& p = plans_[i];
  p.kind = Kind::kFast;
  const model::Tensor& d = tensor(p.dst);
  const model::Tensor& s = tensor(p.src);
  if (p.spatial) {
    if (d.placement == Placement::kWorkBuf) nhwc_[static_cast<std::size_t>(p.dst)] = layout_matters(d.dims);
  } else {
    // Flat ops (eltwise) keep their input's order.
    nhwc_[static_cast<std::size_t>(p.dst)] = nhwc_[static_cast<std::size_t>(p.src)];
  }
  std::size_t off = 0;
  if (p.spatial && !nhwc_[static_cast<std::size_t>(p.src)] && layout_matters(s.dims)) {
    p.src_off = off;
    off += align_up(s.size);
  }
  if (p.dst_in_scratch || (p.spatial && d.placement != Placement::kWorkBuf && layout_matters(d.dims))) {
    p.dst_in_scratch = true;
    p.dst_off = off;
    off += align_up(d.size);
  }
  p.pad_off = off;
  std::size_t pad = p.op->scratch_bytes();
  std::string why;
  if (p.spatial && !nhwc_[static_cast<std::size_t>(p.src)] && layout_matters(s.dims)) {
    p.src_reorder = make_layout_reorder(s.dims, s.dtype, true, threads_for(program_.layers[i]), &why);
    if (p.src_reorder) pad = std::max(pad, p.src_reorder->scratch_bytes());
  }
  if (p.dst_in_scratch && !nhwc_[static_cast<std::size_t>(p.dst)] && layout_matters(d.dims)) {
    p.dst_reorder = make_layout_reorder(d.dims, d.dtype, false, threads_for(program_.layers[i]), &why);
    if (p.dst_reorder) pad = std::max(pad, p.dst_reorder->scratch_bytes());
  }
  p.scratch = off + align_up(pad);
}

// Layer `e`, reading `dst` (the fused group's result so far), as a oneDNN post-op: a
// unary activation, or (float32) a Mul, Add or Sub with a float scalar constant as
// eltwise_linear alpha·x + beta, which alone computes exactly the reference's x·k, x + k,
// x − k or k − x (a product with 1 and a sum with 0 round nothing).
bool FastProgram::post_op(const model::Layer& e, std::int32_t dst, bool fp32, PostEltwise* pe) const {
  if (e.outputs.size() != 1 || e.inputs.empty()) return false;
  const model::Tensor& eo = tensor(e.outputs[0]);
  const model::Tensor& ei = tensor(dst);
  if (eo.dtype != ei.dtype || eo.dims != ei.dims) return false;
  if (is_unary_eltwise(e.op)) {
    float lo = 0, hi = 0;
    if (e.inputs[0] != dst || !clip_bounds(program_, e, weights_, &lo, &hi) || !eltwise_of(e.op, e.attrs, lo, hi, pe)) {
      return false;
    }
    // Integer path: only Relu, and only with unchanged encoding: relu before the rounding
    // equals max(q, zp) after it (docs/kernels.md).
    return fp32 || (e.op == "Relu" && eo.quant.scale == ei.quant.scale && eo.quant.zero_point == ei.quant.zero_point);
  }
  if (!fp32 || (e.op != "Mul" && e.op != "Add" && e.op != "Sub") || e.inputs.size() != 2) return false;
  if ((e.inputs[0] == dst) == (e.inputs[1] == dst)) return false;
  const bool dst_first = e.inputs[0] == dst;
  const std::int32_t k = dst_first ? e.inputs[1] : e.inputs[0];
  const model::Tensor& kt = tensor(k);
  if (!is_const(k) || kt.dtype != DType::kFloat32 || !kt.quant.empty() || kt.size != sizeof(float)) return false;
  float v;
  std::memcpy(&v, weights_ + kt.offset, sizeof v);
  if (e.op == "Mul") {
    *pe = {dnnl::algorithm::eltwise_linear, v, 0.f};
  } else if (e.op == "Add") {
    *pe = {dnnl::algorithm::eltwise_linear, 1.f, v};
  } else {
    *pe = dst_first ? PostEltwise{dnnl::algorithm::eltwise_linear, 1.f, -v}
                    : PostEltwise{dnnl::algorithm::eltwise_linear, -1.f, v};
  }
  return true;
}

bool FastProgram::try_conv(std::size_t i) {
  const model::Layer& l = program_.layers[i];
  if (l.inputs.size() < 2 || l.outputs.size() != 1 || !is_const(l.inputs[1])) return false;
  const std::int32_t b = l.inputs.size() > 2 ? l.inputs[2] : -1;
  if (b >= 0 && !is_const(b)) return false;
  const std::int32_t x = l.inputs[0], t = l.outputs[0];
  const bool fp32 = tensor(t).dtype == DType::kFloat32;

  // Fusion candidates: the next layers, each the only reader of the previous one's output.
  Fusion fusion;
  std::int32_t dst = t, sum = -1;
  std::vector<std::size_t> fused;
  std::size_t j = i + 1;
  if (fuse_ && j < program_.layers.size() && (private_intermediate(t) || self_gated_sigmoid(j, t))) {
    const model::Layer& n = program_.layers[j];
    if (fp32 && n.op == "Add" && n.inputs.size() == 2 && n.outputs.size() == 1 &&
        (n.inputs[0] == t) != (n.inputs[1] == t)) {
      const std::int32_t u = n.inputs[0] == t ? n.inputs[1] : n.inputs[0];
      if (tensor(u).dtype == DType::kFloat32 && tensor(u).dims == tensor(t).dims &&
          tensor(n.outputs[0]).dims == tensor(t).dims && tensor(n.outputs[0]).dtype == DType::kFloat32 && !is_const(u)) {
        fusion.sum = true;
        sum = u;
        dst = n.outputs[0];
        fused.push_back(j);
        ++j;
      }
    }
    // Then the activations and scalar affine steps that follow, each read only by the next
    // (PP-LCNetV3's "learnable affine block" after an activation: HardSwish, Mul by a
    // learnt scalar, Add of one). The integer path takes one Relu at most.
    // oneDNN 2.6's brgemm convolutions give every post-op of one algorithm the first one's
    // alpha and beta (measured: HardSwish, linear, Relu, linear computed the second linear
    // with the first's parameters), so an algorithm appears once per group: two linear
    // steps in a row compose into one (a2·(a1·x + b1) + b2, float rounding as any float
    // fusion), any other repeat ends the group.
    while (j < program_.layers.size() && private_intermediate(dst)) {
      PostEltwise pe;
      if (!post_op(program_.layers[j], dst, fp32, &pe)) break;
      auto& chain = fusion.eltwise;
      if (!chain.empty() && pe.alg == dnnl::algorithm::eltwise_linear && chain.back().alg == pe.alg) {
        chain.back() = {pe.alg, pe.alpha * chain.back().alpha, pe.alpha * chain.back().beta + pe.beta};
      } else if (std::any_of(chain.begin(), chain.end(), [&](const PostEltwise& q) { return q.alg == pe.alg; })) {
        break;
      } else {
        chain.push_back(pe);
      }
      dst = program_.layers[j].outputs[0];
      fused.push_back(j);
      ++j;
      if (!fp32) break;
    }
    if (fp32 && self_gated_sigmoid(j, dst) &&
        std::none_of(fusion.eltwise.begin(), fusion.eltwise.end(),
                     [](const PostEltwise& q) { return q.alg == dnnl::algorithm::eltwise_swish; })) {
      fusion.eltwise.push_back({dnnl::algorithm::eltwise_swish, 1.f, 0.f});
      dst = program_.layers[j + 1].outputs[0];
      fused.push_back(j);
      fused.push_back(j + 1);
    }
  }
  // Writing dst early (at layer i instead of its own layer) into bytes the group still
  // reads would corrupt them: then the result goes through scratch. (The residual may be
  // the very same bytes as dst: the sum is then done in place.)
  const bool via_scratch = dst != t && (overlap(dst, x) || (sum >= 0 && !same_bytes(dst, sum) && overlap(dst, sum)));
  // A swish ending the group runs as our own pass over dst (swish_f32.h: oneDNN's post-op
  // is twice as slow).
  const bool post_swish = fp32 && !fusion.eltwise.empty() &&
                          fusion.eltwise.back().alg == dnnl::algorithm::eltwise_swish && swish_f32_available();
  if (post_swish) fusion.eltwise.pop_back();
  std::string why;
  TensorView bv = b >= 0 ? view(b) : TensorView{};
  auto op =
      make_conv(l.attrs, view(x), view(l.inputs[1]), b >= 0 ? &bv : nullptr, view(t), fusion, threads_for(l), &why);
  if (op && post_swish) op->set_post_swish();
  if (!op && !fused.empty()) {
    SVP_LOG_DEBUG("layer \"{}\": conv fusion rejected ({}), trying without", l.name, why);
    fused.clear();
    dst = t;
    sum = -1;
    op =
        make_conv(l.attrs, view(x), view(l.inputs[1]), b >= 0 ? &bv : nullptr, view(t), Fusion{}, threads_for(l), &why);
  }
  if (!op) {
    SVP_LOG_DEBUG("layer \"{}\": Conv uses the reference kernel: {}", l.name, why);
    return false;
  }
  Plan& p = plans_[i];
  p.op = std::move(op);
  p.src = x;
  p.dst = dst;
  p.sum = sum;
  p.spatial = true;
  p.dst_in_scratch = via_scratch;
  finish_fast(i);
  for (std::size_t f : fused) {
    plans_[f].kind = Kind::kFused;
    plans_[f].fused_into = l.name;
    if (p.op->native()) plans_[f].fused_impl = p.op->impl() + ":fused";
  }
  return true;
}

// The activations after a Linear layer's output `*dst` from layer j on, as matmul
// post-ops: the erf GELU (torch's five-layer chain) and what post_op() takes (Relu, …),
// each algorithm once (as for Conv). Returns the number of layers folded; *dst becomes
// the last one's output.
std::size_t FastProgram::linear_post_ops(std::size_t j, std::int32_t* dst, std::vector<PostEltwise>* post) const {
  std::size_t taken = 0;
  while (j + taken < program_.layers.size()) {
    std::int32_t y = -1;
    PostEltwise pe;
    std::size_t n = match_gelu_erf(program_, weights_, readers_, j + taken, *dst, &y);
    if (n > 0) {
      pe = {dnnl::algorithm::eltwise_gelu_erf, 0.f, 0.f};
    } else if (private_intermediate(*dst) && post_op(program_.layers[j + taken], *dst, true, &pe)) {
      n = 1;
      y = program_.layers[j + taken].outputs[0];
    } else {
      break;
    }
    if (std::any_of(post->begin(), post->end(), [&](const PostEltwise& q) { return q.alg == pe.alg; })) break;
    post->push_back(pe);
    *dst = y;
    taken += n;
  }
  return taken;
}

// A float MatMul of an activation by a constant 2-D B — a Linear layer, its leading dims
// flattened into M — with the bias Add and the activation that follow folded in, as one
// oneDNN matmul with B reordered at load (matmul_const.h). A 2-D activation with nothing
// to fold stays with the inner product (try_other).
bool FastProgram::try_linear(std::size_t i) {
  const model::Layer& l = program_.layers[i];
  if (l.op != "MatMul" || l.inputs.size() != 2 || l.outputs.size() != 1 || l.inputs[0] < 0 || !is_const(l.inputs[1]))
    return false;
  const std::int32_t x = l.inputs[0], w = l.inputs[1], t = l.outputs[0];
  for (std::int32_t u : {x, w, t})
    if (tensor(u).dtype != DType::kFloat32 || !tensor(u).quant.empty()) return false;
  const auto& xd = tensor(x).dims;
  const auto& wd = tensor(w).dims;
  if (xd.size() < 2 || wd.size() != 2 || xd.back() != wd[0] || nhwc_[static_cast<std::size_t>(x)]) return false;
  std::vector<std::int64_t> yd(xd.begin(), xd.end() - 1);
  yd.push_back(wd[1]);
  if (tensor(t).dims != yd) return false;
  const std::int64_t K = wd[0], N = wd[1];
  std::int64_t M = 1;
  for (std::size_t k = 0; k + 1 < xd.size(); ++k) M *= xd[k];

  std::int32_t dst = t;
  const float* bias = nullptr;
  std::vector<PostEltwise> post;
  std::size_t folded = 0;
  if (fuse_ && private_intermediate(t)) {
    // The bias: Add of a constant with N values along the last axis ([N], [1, …, 1, N]).
    const model::Layer* a = i + 1 < program_.layers.size() ? &program_.layers[i + 1] : nullptr;
    if (a != nullptr && a->op == "Add" && a->inputs.size() == 2 && a->outputs.size() == 1 &&
        (a->inputs[0] == t) != (a->inputs[1] == t)) {
      const std::int32_t c = a->inputs[0] == t ? a->inputs[1] : a->inputs[0];
      const model::Tensor& ct = tensor(c);
      const model::Tensor& at = tensor(a->outputs[0]);
      const bool row = ct.dims.size() <= yd.size() && !ct.dims.empty() && ct.dims.back() == N &&
                       std::all_of(ct.dims.begin(), ct.dims.end() - 1, [](std::int64_t d) { return d == 1; });
      if (is_const(c) && ct.dtype == DType::kFloat32 && ct.quant.empty() && row && at.dims == yd &&
          at.dtype == DType::kFloat32 && at.quant.empty()) {
        bias = reinterpret_cast<const float*>(weights_ + ct.offset);
        dst = a->outputs[0];
        folded = 1;
      }
    }
    folded += linear_post_ops(i + 1 + folded, &dst, &post);
  }
  if (xd.size() == 2 && folded == 0) return false;
  std::string why;
  const auto* b = reinterpret_cast<const float*>(weights_ + tensor(w).offset);
  auto op = make_matmul_const(M, K, N, b, bias, post, threads_for(l), &why);
  if (!op) {
    SVP_LOG_DEBUG("layer \"{}\": MatMul with constant B uses sgemm: {}", l.name, why);
    return false;
  }
  Plan& p = plans_[i];
  p.op = std::move(op);
  p.src = x;
  p.dst = dst;
  // Writing dst early into bytes the matmul still reads (A's, when A dies here).
  p.dst_in_scratch = dst != t && overlap(dst, x);
  finish_fast(i);
  for (std::size_t f = i + 1; f <= i + folded; ++f) {
    plans_[f].kind = Kind::kFused;
    plans_[f].fused_into = l.name;
  }
  return true;
}

bool FastProgram::try_other(std::size_t i) {
  const model::Layer& l = program_.layers[i];
  if (l.outputs.size() != 1 || l.inputs.empty() || l.inputs[0] < 0) return false;
  const std::int32_t x = l.inputs[0], y = l.outputs[0];
  std::string why;
  std::unique_ptr<FastOp> op;
  bool spatial = false;
  const ops::FastPath path = ops::op_def(l.op).fast;
  if (path == ops::FastPath::kPooling) {
    op = make_pool(l.op, l.attrs, view(x), view(y), threads_for(l), &why);
    spatial = true;
  } else if (path == ops::FastPath::kDeconvolution && l.inputs.size() >= 2 && is_const(l.inputs[1])) {
    const std::int32_t b = l.inputs.size() > 2 ? l.inputs[2] : -1;
    if (b >= 0 && !is_const(b)) return false;
    TensorView bv = b >= 0 ? view(b) : TensorView{};
    // Kernel = stride: a 1×1 Conv and a pixel shuffle (deconv_as_conv.h), float or int8.
    // Otherwise int8 takes our exact kernel (q8_deconv.h): the reference's integer sums
    // through oneDNN's float deconvolution.
    op = make_deconv_as_conv(l.attrs, view(x), view(l.inputs[1]), b >= 0 ? &bv : nullptr, view(y), Fusion{},
                             threads_for(l), &why);
    if (!op) {
      op = is_q8(view(x)) ? make_q8_deconv(l.attrs, view(x), view(l.inputs[1]), b >= 0 ? &bv : nullptr, view(y),
                                           threads_for(l), &why)
                          : make_deconv(l.attrs, view(x), view(l.inputs[1]), b >= 0 ? &bv : nullptr, view(y), Fusion{},
                                        threads_for(l), &why);
    }
    spatial = true;
  } else if (path == ops::FastPath::kInnerProduct && l.inputs.size() >= 2 && is_const(l.inputs[1])) {
    const std::int32_t c = l.inputs.size() > 2 ? l.inputs[2] : -1;
    if (c >= 0 && !is_const(c)) return false;
    // A is read as [M, K] row-major: a 4-D NHWC tensor cannot be A (it never is: Gemm and
    // MatMul take 2-D tensors, and 2-D tensors are always logical).
    TensorView cv = c >= 0 ? view(c) : TensorView{};
    op = make_inner_product(l.op, l.attrs, view(x), view(l.inputs[1]), c >= 0 ? &cv : nullptr, view(y), threads_for(l),
                            &why);
  } else if (is_unary_eltwise(l.op) && tensor(x).dtype == DType::kFloat32 && tensor(y).dtype == DType::kFloat32 &&
             tensor(x).dims == tensor(y).dims) {
    // Flat: keeps its input's layout, so a model output needs a logical input.
    if (tensor(y).is_io() && nhwc_[static_cast<std::size_t>(x)]) return false;
    PostEltwise pe;
    float lo = 0, hi = 0;
    if (!clip_bounds(program_, l, weights_, &lo, &hi) || !eltwise_of(l.op, l.attrs, lo, hi, &pe)) return false;
    const auto n = tensor(x).elements();
    if (!n) return false;
    op = make_eltwise(pe, static_cast<std::int64_t>(*n), threads_for(l), &why);
  } else {
    return false;
  }
  if (!op) {
    SVP_LOG_DEBUG("layer \"{}\": {} uses the reference kernel: {}", l.name, l.op, why);
    return false;
  }
  Plan& p = plans_[i];
  p.op = std::move(op);
  p.src = x;
  p.dst = y;
  p.spatial = spatial;
  finish_fast(i);
  return true;
}

// Elementwise over tensors of one shape with per-tensor encodings: the reference kernel
// gives the same bytes in any element order, so NHWC data can be passed as it is.
bool FastProgram::agnostic(std::size_t i, bool* nhwc_view, bool* to_nhwc) const {
  const model::Layer& l = program_.layers[i];
  if (l.outputs.size() != 1 || l.target != model::Target::kNpu) return false;
  std::size_t data_inputs = 0;
  if (is_unary_eltwise(l.op)) {
    data_inputs = 1;
  } else if (is_binary(l.op)) {
    data_inputs = 2;
  } else {
    return false;
  }
  if (l.inputs.size() < data_inputs) return false;
  const model::Tensor& y = tensor(l.outputs[0]);
  if (y.quant.per_channel()) return false;
  bool any_nhwc = false, all_nhwc = true;
  for (std::size_t k = 0; k < data_inputs; ++k) {
    const std::int32_t t = l.inputs[k];
    // A constant scalar operand (a learnt scale, HardSwish's 3 and 6) is the same in any
    // layout; the other operand decides.
    if (data_inputs == 2 && t >= 0 && is_const(t) && tensor(t).elements().value_or(0) == 1) continue;
    // A per-channel operand ([n, C, 1, 1]: an SE block's gate) has the same bytes in NCHW
    // and NHWC; computing on NHWC dims broadcasts it along the innermost axis.
    if (data_inputs == 2 && t >= 0 && y.dims.size() == 4 && !tensor(t).quant.per_channel()) {
      const auto& d = tensor(t).dims;
      if (d.size() == 4 && (d[0] == 1 || d[0] == y.dims[0]) && d[1] == y.dims[1] && d[2] == 1 && d[3] == 1 &&
          (y.dims[2] != 1 || y.dims[3] != 1)) {
        *nhwc_view = true;
        continue;
      }
    }
    if (t < 0 || tensor(t).dims != y.dims || tensor(t).quant.per_channel()) return false;
    any_nhwc = any_nhwc || nhwc_[static_cast<std::size_t>(t)];
    all_nhwc = all_nhwc && nhwc_[static_cast<std::size_t>(t)];
  }
  // Worth it only when an input is NHWC and the output may stay NHWC. A logical operand
  // beside it is converted (one transposition, where the reference path would transpose
  // the NHWC one and then the consumer would transpose the logical result back).
  *to_nhwc = !all_nhwc;
  return any_nhwc && y.placement == Placement::kWorkBuf;
}

// Resize (nearest) and Concat along the channels run as the reference kernel on NHWC views
// when their input is NHWC already: otherwise a feature pyramid's upsampling and
// concatenation transpose every map to NCHW and the next Conv transposes it back (PP-OCRv4
// det at 640×640: ~2-4 ms per 10 MB map on these hosts, memory-bound). Exact: nearest
// resizing picks each axis's source index from that axis's own length, scale and mode,
// so permuting the axes with their parameters permutes the result; Concat copies bytes.
bool FastProgram::try_nhwc_view(std::size_t i) {
  const model::Layer& l = program_.layers[i];
  if (l.outputs.size() != 1 || l.target != model::Target::kNpu || l.inputs.empty() || l.inputs[0] < 0) return false;
  const model::Tensor& y = tensor(l.outputs[0]);
  if (y.dims.size() != 4 || y.placement != Placement::kWorkBuf || !layout_matters(y.dims)) return false;
  Plan& p = plans_[i];
  if (l.op == "Concat") {
    auto axis = l.attrs.get_int("axis", 0);
    if (!axis.ok() || (*axis != 1 && *axis != -3)) return false;
    bool any_nhwc = false;
    for (std::int32_t t : l.inputs) {
      // A constant would need its own NHWC copy; none of the models seen has one here.
      if (t < 0 || tensor(t).dims.size() != 4 || (is_const(t) && layout_matters(tensor(t).dims))) return false;
      any_nhwc = any_nhwc || nhwc_[static_cast<std::size_t>(t)];
    }
    if (!any_nhwc) return false;
    p.nhwc_layer = std::make_unique<model::Layer>(l);
    p.nhwc_layer->attrs.set("axis", std::int64_t{3});
    p.to_nhwc = true;
  } else if (l.op == "Resize") {
    const std::int32_t x = l.inputs[0];
    if (!nhwc_[static_cast<std::size_t>(x)] || tensor(x).dims.size() != 4) return false;
    auto mode = l.attrs.get_string("mode", "nearest");
    auto ctm = l.attrs.get_string("coordinate_transformation_mode", "half_pixel");
    if (!mode.ok() || *mode != "nearest" || !ctm.ok() || *ctm == "tf_crop_and_resize" || l.attrs.has("axes")) {
      return false;
    }
    int param = -1;
    for (int k : {2, 3}) {
      if (l.inputs.size() > static_cast<std::size_t>(k) && l.inputs[static_cast<std::size_t>(k)] >= 0) {
        if (param >= 0) return false;
        param = k;
      }
    }
    if (param < 0) return false;
    const model::Tensor& c = tensor(l.inputs[static_cast<std::size_t>(param)]);
    if (c.placement != Placement::kWeights || c.dims != std::vector<std::int64_t>{4}) return false;
    const std::size_t elem = model::dtype_size(c.dtype);
    if (c.size != 4 * elem) return false;
    const std::uint8_t* v = weights_ + c.offset;
    p.nhwc_param.resize(c.size);
    for (std::size_t k = 0; k < 4; ++k) {
      const std::size_t from = k == 0 ? 0 : k == 1 ? 2 : k == 2 ? 3 : 1;  // N, H, W, C
      std::memcpy(p.nhwc_param.data() + k * elem, v + from * elem, elem);
    }
    p.nhwc_param_input = param;
  } else {
    return false;
  }
  p.kind = Kind::kAgnostic;
  p.nhwc_view = true;
  nhwc_[static_cast<std::size_t>(l.outputs[0])] = true;
  return true;
}

bool FastProgram::try_q8_add(std::size_t i) {
  const model::Layer& l = program_.layers[i];
  if (l.op == "GlobalAveragePool" && l.inputs.size() == 1 && l.outputs.size() == 1 && l.inputs[0] >= 0) {
    const model::Tensor& x = tensor(l.inputs[0]);
    const model::Tensor& y = tensor(l.outputs[0]);
    if (x.dims.size() != 4 || !per_tensor_q8(x) || !per_tensor_q8(y) || x.dims[2] * x.dims[3] >= kQ8GapMaxSpatial) return false;
    Plan& p = plans_[i];
    p.qa = {x.dtype, x.quant.scale[0], x.quant.zero_point.empty() ? 0 : x.quant.zero_point[0]};
    p.qy = {y.dtype, y.quant.scale[0], y.quant.zero_point.empty() ? 0 : y.quant.zero_point[0]};
    p.gap = std::make_shared<const Q8GapInput>(q8_gap_input(p.qa));
    p.kind = Kind::kNative;
    p.src = l.inputs[0];
    p.dst = l.outputs[0];
    p.b = -1;
    return true;  // [N, C, 1, 1]: the same bytes in either layout
  }
  if (l.op != "Add" || l.inputs.size() != 2 || l.outputs.size() != 1) return false;
  const std::int32_t a = l.inputs[0], b = l.inputs[1], y = l.outputs[0];
  if (a < 0 || b < 0) return false;
  auto q8 = [&](std::int32_t t, Q8Operand* q) {
    const model::Tensor& x = tensor(t);
    if ((x.dtype != DType::kInt8 && x.dtype != DType::kUint8) || x.quant.scale.size() != 1) return false;
    *q = {x.dtype, x.quant.scale[0], x.quant.zero_point.empty() ? 0 : x.quant.zero_point[0]};
    return true;
  };
  Plan& p = plans_[i];
  if (!q8(a, &p.qa) || !q8(b, &p.qb) || !q8(y, &p.qy)) return false;
  if (tensor(a).dims != tensor(y).dims || tensor(b).dims != tensor(y).dims) return false;
  // Elementwise: any order works as long as both operands share it; the output takes it.
  const bool nhwc = nhwc_[static_cast<std::size_t>(a)];
  if (nhwc_[static_cast<std::size_t>(b)] != nhwc || (nhwc && tensor(y).placement != Placement::kWorkBuf)) return false;
  std::int32_t dst = y;
  if (fuse_ && i + 1 < program_.layers.size() && private_intermediate(y)) {
    const model::Layer& r = program_.layers[i + 1];
    const model::Tensor& ro = tensor(r.outputs[0]);
    // Relu keeps the encoding (max(q, zp)); its output is written now, so it must not
    // partly overlap the operands (the very same bytes are fine: element i is read
    // before it is written).
    auto clash = [&](std::int32_t t) { return overlap(r.outputs[0], t) && !same_bytes(r.outputs[0], t); };
    if (r.op == "Relu" && r.inputs.size() == 1 && r.inputs[0] == y && r.outputs.size() == 1 &&
        ro.dtype == tensor(y).dtype && ro.quant.scale == tensor(y).quant.scale &&
        ro.quant.zero_point == tensor(y).quant.zero_point && !clash(a) && !clash(b) &&
        !(nhwc && ro.placement != Placement::kWorkBuf)) {
      dst = r.outputs[0];
      p.relu = true;
      plans_[i + 1].kind = Kind::kFused;
      plans_[i + 1].fused_into = l.name;
      plans_[i + 1].native_group = true;
    }
  }
  p.kind = Kind::kNative;
  p.src = a;
  p.b = b;
  p.dst = dst;
  nhwc_[static_cast<std::size_t>(dst)] = nhwc;
  return true;
}

// A float MatMul stays a reference layer (layouts, read_tensor) whose arithmetic oneDNN's
// sgemm does when the batch layout allows (sgemm_matmul.h); an int8 one likewise through
// q8_matmul.h, when the reference would take its integer path (also an int8 Gemm that
// oneDNN's inner product declined).
void FastProgram::plan_sgemm(std::size_t i) {
  const model::Layer& l = program_.layers[i];
  Plan& p = plans_[i];
  if (l.op == "Gemm" && (l.inputs.size() == 2 || l.inputs.size() == 3) && l.outputs.size() == 1 && l.inputs[0] >= 0 &&
      is_const(l.inputs[1]) && (l.inputs.size() == 2 || l.inputs[2] < 0 || is_const(l.inputs[2])) &&
      is_q8(view(l.inputs[0]))) {
    std::string why;
    const std::int32_t c = l.inputs.size() > 2 ? l.inputs[2] : -1;
    const TensorView cv = c >= 0 ? view(c) : TensorView{};
    p.q8_mm = plan_q8_gemm(l.attrs, view(l.inputs[0]), view(l.inputs[1]), c >= 0 ? &cv : nullptr, view(l.outputs[0]),
                           threads_for(l), &p.qmm, &why);
    if (!p.q8_mm) SVP_LOG_DEBUG("layer \"{}\": int8 Gemm uses the reference kernel: {}", l.name, why);
    return;
  }
  if (l.op != "MatMul" || l.inputs.size() != 2 || l.outputs.size() != 1 || l.inputs[0] < 0 || l.inputs[1] < 0) {
    return;
  }
  if (is_q8(view(l.inputs[0]))) {
    std::string why;
    const std::int32_t b = l.inputs[1];
    p.q8_mm = plan_q8_matmul(view(l.inputs[0]), view(b), view(l.outputs[0]), is_const(b), threads_for(l), &p.qmm, &why);
    if (!p.q8_mm) SVP_LOG_DEBUG("layer \"{}\": int8 MatMul uses the reference kernel: {}", l.name, why);
    return;
  }
  for (std::int32_t t : {l.inputs[0], l.inputs[1], l.outputs[0]}) {
    if (tensor(t).dtype != DType::kFloat32 || !tensor(t).quant.empty()) return;
  }
  p.sgemm = plan_sgemm_matmul(tensor(l.inputs[0]).dims, tensor(l.inputs[1]).dims, tensor(l.outputs[0]).dims, &p.mm);
}

// A float Softmax, LayerNormalization or Erf stays a reference layer (logical views,
// read_tensor) whose arithmetic a oneDNN primitive or our vector kernel does. Any target:
// the board's AI CPU ops run on the host like the others, only faster.
void FastProgram::plan_f32(std::size_t i) {
  const model::Layer& l = program_.layers[i];
  Plan& p = plans_[i];
  if (p.sgemm || p.nhwc_layer || l.outputs.size() != 1 || l.inputs.empty() || l.inputs[0] < 0) return;
  const model::Tensor& x = tensor(l.inputs[0]);
  const model::Tensor& y = tensor(l.outputs[0]);
  if (x.dtype != DType::kFloat32 || !x.quant.empty() || y.dtype != DType::kFloat32 || !y.quant.empty()) return;
  if (x.dims != y.dims) return;
  // The kernels stream from x to y: the very same bytes or apart.
  if (overlap(l.outputs[0], l.inputs[0]) && !same_bytes(l.outputs[0], l.inputs[0])) return;
  const detail::AttrReader r(l.op.c_str(), l.attrs);
  const auto rank = static_cast<std::int64_t>(x.dims.size());
  std::string why;
  if (l.op == "Erf") {
    p.f32 = make_erf(static_cast<std::int64_t>(x.size / sizeof(float)), threads_for(l), &why);
    p.f32_impl = "native:erf";
  } else if (l.op == "Softmax" && l.inputs.size() == 1) {
    auto axis = r.i("axis", -1);
    if (!axis.ok() || rank == 0) return;
    p.f32 = make_softmax(x.dims, axis.value(), threads_for(l), &why);
    p.f32_impl = "onednn:softmax";
  } else if (l.op == "LayerNormalization" && l.inputs.size() >= 2 && l.inputs.size() <= 3) {
    auto axis = r.i("axis", -1);
    auto eps = r.f("epsilon", 1e-5);
    if (!axis.ok() || !eps.ok() || rank == 0) return;
    std::int64_t a = axis.value() < 0 ? axis.value() + rank : axis.value();
    if (a < 0 || a >= rank) return;
    std::int64_t outer = 1, inner = 1;
    for (std::int64_t d = 0; d < rank; ++d) (d < a ? outer : inner) *= x.dims[static_cast<std::size_t>(d)];
    // Scale and B: constants with one value per normalised element (no broadcast inside).
    const float* params[2] = {nullptr, nullptr};
    for (std::size_t k = 1; k < l.inputs.size(); ++k) {
      const std::int32_t t = l.inputs[k];
      if (t < 0) continue;
      const model::Tensor& w = tensor(t);
      if (!is_const(t) || w.dtype != DType::kFloat32 || !w.quant.empty() ||
          w.size != static_cast<std::size_t>(inner) * sizeof(float)) {
        return;
      }
      params[k - 1] = reinterpret_cast<const float*>(weights_ + w.offset);
    }
    if (params[0] == nullptr) return;  // Scale is a required input
    p.f32 = make_layer_norm(outer, inner, static_cast<float>(eps.value()), params[0], params[1], threads_for(l), &why);
    p.f32_impl = "onednn:layer_norm";
  }
  if (!p.f32) {
    p.f32_impl.clear();
    if (!why.empty()) SVP_LOG_DEBUG("layer \"{}\" ({}): reference kernel: {}", l.name, l.op, why);
  }
}

// An int8 (A8W8) or int16 (A16W8) LayerNormalization, which the reference runs through
// its generic path, computed by q8_layer_norm.h on the logical views. Any target, as
// plan_f32: svp_atc places LayerNormalization on the AI CPU, which runs on the host.
void FastProgram::plan_q8_layer_norm(std::size_t i) {
  const model::Layer& l = program_.layers[i];
  Plan& p = plans_[i];
  if (l.op != "LayerNormalization" || p.f32 || p.nhwc_layer || l.outputs.size() != 1 || l.inputs.size() < 2 ||
      l.inputs.size() > 3 || l.inputs[0] < 0 || !is_const(l.inputs[1])) {
    return;
  }
  const std::int32_t x = l.inputs[0], y = l.outputs[0], b = l.inputs.size() > 2 ? l.inputs[2] : -1;
  if (b >= 0 && !is_const(b)) return;
  // Row by row, each row read before it is written: in place (same element size) or apart.
  if (overlap(y, x) && !(same_bytes(y, x) && tensor(x).dtype == tensor(y).dtype)) return;
  const TensorView bv = b >= 0 ? view(b) : TensorView{};
  std::string why;
  p.q8_ln = q8_layer_norm_for(l, view(x), view(l.inputs[1]), b >= 0 ? &bv : nullptr, view(y), &p.ln, &why);
  if (!p.q8_ln) SVP_LOG_DEBUG("layer \"{}\": int8 LayerNormalization uses the reference kernel: {}", l.name, why);
}

// An int8 Add/Sub/Mul that stays a reference layer (any broadcast, any layout the planner
// chose for it) computed by q8_binary on the views the reference kernel would get.
void FastProgram::plan_q8_binary(std::size_t i) {
  const model::Layer& l = program_.layers[i];
  Plan& p = plans_[i];
  if (p.sgemm || p.q8_mm || p.nhwc_layer || l.inputs.size() != 2 || l.outputs.size() != 1) return;
  Q8BinaryOp op;
  if (l.op == "Add") {
    op = Q8BinaryOp::kAdd;
  } else if (l.op == "Sub") {
    op = Q8BinaryOp::kSub;
  } else if (l.op == "Mul") {
    op = Q8BinaryOp::kMul;
  } else if (l.op == "Div") {
    op = Q8BinaryOp::kDiv;
  } else {
    return;
  }
  const std::int32_t a = l.inputs[0], b = l.inputs[1], y = l.outputs[0];
  if (a < 0 || b < 0) return;
  auto q8 = [&](std::int32_t t, Q8Operand* q) {
    const model::Tensor& x = tensor(t);
    if ((x.dtype != DType::kInt8 && x.dtype != DType::kUint8) || x.quant.scale.size() != 1) return false;
    *q = {x.dtype, x.quant.scale[0], x.quant.zero_point.empty() ? 0 : x.quant.zero_point[0]};
    return true;
  };
  // Or a float32 constant (a scalar, a bias vector), which the reference keeps in float;
  // finite, so no NaN can arise whose rounding would differ.
  auto q8_or_scalar = [&](std::int32_t t, Q8Operand* q) {
    const model::Tensor& x = tensor(t);
    if (x.dtype == DType::kFloat32 && x.quant.empty() && is_const(t) && x.size >= sizeof(float)) {
      for (std::size_t k = 0; k < x.size; k += sizeof(float)) {
        float c;
        std::memcpy(&c, weights_ + x.offset + k, sizeof c);
        // A divisor must not be 0 either (x / 0 can be NaN).
        if (!std::isfinite(c) || (op == Q8BinaryOp::kDiv && t == b && c == 0.f)) return false;
        if (k == 0) *q = q8_float_scalar(c);
      }
      return true;
    }
    return q8(t, q);
  };
  Q8Operand qa, qb, qy;
  if (!q8_or_scalar(a, &qa) || !q8_or_scalar(b, &qb) || !q8(y, &qy) || !q8_binary_applies(qa, qb, qy)) return;
  if (qa.dtype == DType::kFloat32 && qb.dtype == DType::kFloat32) return;
  if (op == Q8BinaryOp::kDiv && qb.dtype != DType::kFloat32) return;
  // The reference reads both operands before writing; streaming through them is the same
  // only if the output is the very bytes of an operand or apart from it.
  for (std::int32_t t : {a, b})
    if (overlap(y, t) && !(same_bytes(y, t) && tensor(t).size == tensor(y).size)) return;
  const std::size_t rank = tensor(y).dims.size();
  if (rank == 0 || tensor(a).dims.size() > rank || tensor(b).dims.size() > rank) return;
  p.q8_bin = true;
  p.bin_op = op;
  p.qa = qa;
  p.qb = qb;
  p.qy = qy;
}

void FastProgram::plan() {
  keeps_threads_.assign(program_.layers.size(), 0);
  for (std::size_t i = 0; i < program_.layers.size(); ++i) {
    keeps_threads_[i] = layer_macs(program_, i) >= kBusyKeepsThreadsMacs;
  }
  readers_.assign(program_.tensors.size(), 0);
  for (const model::Layer& l : program_.layers)
    for (std::int32_t t : l.inputs)
      if (t >= 0) ++readers_[static_cast<std::size_t>(t)];
  for (std::size_t i = 0; i < program_.layers.size(); ++i) {
    if (plans_[i].kind == Kind::kFused) continue;
    const model::Layer& l = program_.layers[i];
    if (l.target != model::Target::kNpu) continue;
    if (ops::op_def(l.op).fast == ops::FastPath::kConvolution && try_conv(i)) continue;
    if (try_linear(i)) continue;
    if (try_other(i)) continue;
    if (try_q8_add(i)) continue;
    if (l.op == "MatMul" || l.op == "Gemm") plan_sgemm(i);
    if (try_nhwc_view(i)) continue;
    bool nhwc_view = false, to_nhwc = false;
    if (agnostic(i, &nhwc_view, &to_nhwc)) {
      plans_[i].kind = Kind::kAgnostic;
      plans_[i].nhwc_view = nhwc_view;
      plans_[i].to_nhwc = to_nhwc;
      nhwc_[static_cast<std::size_t>(l.outputs[0])] = true;
    }
  }
  for (std::size_t i = 0; i < program_.layers.size(); ++i) {
    const Kind k = plans_[i].kind;
    const model::Layer& l = program_.layers[i];
    if (k == Kind::kReference) plan_f32(i);
    if (k == Kind::kReference) plan_q8_layer_norm(i);
    // Any target: these kernels keep no state, and a layer's parallel regions follow
    // run_threads (one thread on the AI-CPU), so an AI-CPU layer (svp_atc puts int8 Erf
    // there) may run them on the AI-CPU worker's thread.
    if (k == Kind::kReference || k == Kind::kAgnostic) {
      plan_scalar_table(i);
      if (!plans_[i].q8_lut) plan_q8_binary(i);
      Plan& p = plans_[i];
      // In place or apart, as for q8_binary (the lookup streams through both).
      if (!p.q8_bin && !p.nhwc_layer && l.inputs.size() == 1 && l.inputs[0] >= 0 && l.outputs.size() == 1 &&
          (!overlap(l.outputs[0], l.inputs[0]) || same_bytes(l.outputs[0], l.inputs[0]))) {
        p.q8_lut = q8_table_for(l, tensor(l.inputs[0]), tensor(l.outputs[0]), &p.lut);
        // Row by row, each row read before it is written: in place or apart, logical order.
        if (k == Kind::kReference && !p.nhwc_view) {
          p.q8_smax = q8_softmax_for(l, tensor(l.inputs[0]), tensor(l.outputs[0]), &p.smax);
        }
      }
      if (k == Kind::kReference && !p.nhwc_view && l.op == "AveragePool" && l.inputs.size() == 1 &&
          l.inputs[0] >= 0 && l.outputs.size() == 1 && !overlap(l.outputs[0], l.inputs[0])) {
        auto pool = std::make_shared<Q8AvgPool>();
        if (q8_avg_pool_for(l, tensor(l.inputs[0]), tensor(l.outputs[0]), pool.get())) p.avg_pool = std::move(pool);
      }
    }
  }
  plan_self_gated_tables();
  // Model outputs stay logical (a fast op writing one converts from scratch).
  for (std::size_t t = 0; t < program_.tensors.size(); ++t)
    if (program_.tensors[t].placement != Placement::kWorkBuf) nhwc_[t] = false;
}

// An int8 binary op with a one-element constant operand (PP-LCNet's learnt affine steps
// after each HardSwish, x·k and x + c; a LayerNorm chain's Pow(x, 2)): one table over the
// other operand's bytes (q8_scalar_table), one lookup per element instead of q8_binary's
// dequantize, compute and requantize.
void FastProgram::plan_scalar_table(std::size_t i) {
  const model::Layer& l = program_.layers[i];
  Plan& p = plans_[i];
  if (p.sgemm || p.q8_mm || p.nhwc_layer || l.inputs.size() != 2 || l.outputs.size() != 1) return;
  for (std::size_t v = 0; v < 2; ++v) {
    const std::int32_t t = l.inputs[v], c = l.inputs[1 - v], y = l.outputs[0];
    if (t < 0 || c < 0 || !is_const(c) || is_const(t)) continue;
    if (overlap(y, t) && !same_bytes(y, t)) return;  // in place or apart, as the lookup streams
    const TensorView cv = view(c);
    if (cv.elements() != 1) continue;
    if (q8_scalar_table(l, v, tensor(t), cv, tensor(y), &p.lut)) {
      p.q8_lut = true;
      p.lut_input = v;
    }
    return;
  }
}

// Mul(x, U(x)) with U a table layer (SiLU's x·Sigmoid(x) in EfficientNet and YOLO, a
// HardSwish spelled x·HardSigmoid(x)): each output byte is a function of x's byte alone,
// so U and the Mul become one table over x, built at load from U's table and the reference
// Mul on every byte — exact by construction, one pass instead of two.
void FastProgram::plan_self_gated_tables() {
  if (!fuse_) return;  // every tensor must be written (calibration reads U's output)
  std::vector<int> producer(program_.tensors.size(), -1);
  for (std::size_t i = 0; i < program_.layers.size(); ++i)
    for (std::int32_t t : program_.layers[i].outputs)
      if (t >= 0) producer[static_cast<std::size_t>(t)] = static_cast<int>(i);
  for (std::size_t i = 0; i < program_.layers.size(); ++i) {
    const model::Layer& m = program_.layers[i];
    Plan& pm = plans_[i];
    if (m.op != "Mul" || m.inputs.size() != 2 || m.outputs.size() != 1 || m.target != model::Target::kNpu ||
        (pm.kind != Kind::kReference && pm.kind != Kind::kAgnostic) || pm.nhwc_layer || pm.q8_lut) {
      continue;
    }
    for (std::size_t g = 0; g < 2; ++g) {
      const std::int32_t gate = m.inputs[g], x = m.inputs[1 - g], y = m.outputs[0];
      if (gate < 0 || x < 0 || !private_intermediate(gate)) continue;
      const int u = producer[static_cast<std::size_t>(gate)];
      if (u < 0 || !plans_[static_cast<std::size_t>(u)].q8_lut ||
          program_.layers[static_cast<std::size_t>(u)].inputs[0] != x) {
        continue;
      }
      if (tensor(x).dims != tensor(y).dims || tensor(gate).dims != tensor(y).dims) continue;
      if (overlap(y, x) && !same_bytes(y, x)) continue;
      Plan& pu = plans_[static_cast<std::size_t>(u)];
      Q8Table table{};
      if (!q8_gated_table(m, g, tensor(x), pu.lut, tensor(gate), tensor(y), &table)) continue;
      pm.q8_bin = false;
      pm.q8_lut = true;
      pm.lut = table;
      pm.lut_input = 1 - g;
      pu = Plan{};
      pu.kind = Kind::kFused;
      pu.fused_into = m.name;
      pu.fused_impl = "native:fused";
      break;
    }
  }
}

Status FastProgram::run_reference_layer(std::size_t index, const std::vector<void*>& data, bool convert,
                                        const RunArgs& args) const {
  const model::Layer& layer = program_.layers[index];
  const int threads = run_threads(layer);
  std::vector<TensorView> in, out;
  in.reserve(layer.inputs.size());
  // NHWC inputs go to scratch in logical order (agnostic layers read them as they are, and
  // with to_nhwc their logical same-shape operands go to scratch in NHWC order).
  const Plan& plan = plans_[index];
  auto converted = [&](std::int32_t t) {
    if (t < 0) return false;
    if (convert) return bool(nhwc_[static_cast<std::size_t>(t)]);
    return plan.to_nhwc && !nhwc_[static_cast<std::size_t>(t)] && !is_const(t) && layout_matters(tensor(t).dims);
  };
  std::size_t need = 0;
  for (std::size_t k = 0; k < layer.inputs.size(); ++k)
    if ((!plan.q8_lut || k == plan.lut_input) && converted(layer.inputs[k])) need += align_up(tensor(layer.inputs[k]).size);
  if (plan.f32) need += align_up(plan.f32->scratch_bytes());  // after the converted inputs
  std::uint8_t* scratch = need > 0 ? thread_scratch(need) : nullptr;
  for (std::size_t k = 0; k < layer.inputs.size(); ++k) {
    const std::int32_t t = layer.inputs[k];
    // A table layer reads one input; the other (a gate it absorbed) is never written.
    if (t < 0 || (plan.q8_lut && k != plan.lut_input)) {
      in.emplace_back();
      continue;
    }
    void* p = data[static_cast<std::size_t>(t)];
    if (converted(t)) {
      if (convert) {
        nhwc_to_nchw(p, scratch, tensor(t).dims, model::dtype_size(tensor(t).dtype), threads);
      } else {
        nchw_to_nhwc(p, scratch, tensor(t).dims, model::dtype_size(tensor(t).dtype), threads);
      }
      p = scratch;
      scratch += align_up(tensor(t).size);
    }
    in.push_back(view(t, p));
  }
  if (plan.nhwc_param_input >= 0) in[static_cast<std::size_t>(plan.nhwc_param_input)].data =
      const_cast<std::uint8_t*>(plan.nhwc_param.data());
  for (std::int32_t t : layer.outputs) out.push_back(view(t, data[static_cast<std::size_t>(t)]));
  if (plan.nhwc_view) {
    for (auto* views : {&in, &out})
      for (TensorView& v : *views)
        if (v.dims.size() == 4) v.dims = {v.dims[0], v.dims[2], v.dims[3], v.dims[1]};
  }
  if (plan.q8_smax) {
    q8_softmax(plan.smax, in[0].data, out[0].data, out[0].elements(), threads);
    return Status::Ok();
  }
  if (plan.avg_pool) {
    const Q8AvgPool& pool = *plan.avg_pool;
    q8_split_rows(pool.g.planes, pool.g.w.in_size(), threads,
                  [&](std::int64_t p0, std::int64_t p1) { q8_avg_pool(pool, in[0].data, out[0].data, p0, p1); });
    return Status::Ok();
  }
  if (plan.q8_ln) {
    q8_layer_norm(plan.ln, in[0].data, out[0].data, out[0].elements() / plan.ln.inner, threads);
    return Status::Ok();
  }
  if (plan.q8_lut || plan.q8_bin) {
    run_q8_elementwise(layer, plan, in, out);
    return Status::Ok();
  }
  if (plan.f32) {
    ThreadScope scope(threads);
    try {
      plan.f32->run(in[0].data, out[0].data, scratch);  // past the converted inputs
    } catch (const dnnl::error& e) {
      return Status(err::kInternalError, "layer \"" + layer.name + "\": oneDNN execution failed: " + e.what());
    }
    return Status::Ok();
  }
  Status s = plan.q8_mm        ? run_q8_matmul(plan.qmm, in[0].data, in[1].data, out[0].data, threads)
             : plan.sgemm      ? run_sgemm_matmul(plan.mm, in[0].as<const float>(), in[1].as<const float>(),
                                                  out[0].as<float>(), threads)
             : plan.nhwc_layer ? run_reference_with_steps(*plan.nhwc_layer, std::move(in), out, args)
             : !convert && (is_binary(layer.op) || is_unary_eltwise(layer.op))
                 ? run_sliced(layer, in, out, plan.nhwc_view, args)
                 : run_reference_with_steps(layer, std::move(in), out, args);
  if (!s.ok()) return Status(s.code(), "layer \"" + layer.name + "\": " + s.message());
  return s;
}

void FastProgram::run_q8_elementwise(const model::Layer& layer, const Plan& plan, const std::vector<TensorView>& in,
                                     const std::vector<TensorView>& out) const {
  const int threads = run_threads(layer);
  if (plan.q8_lut) {
    const TensorView& x = in[plan.lut_input];
    q8_split_rows(x.elements(), 1, threads, [&](std::int64_t r0, std::int64_t r1) {
      q8_table_apply(plan.lut, static_cast<const std::uint8_t*>(x.data) + r0, static_cast<std::uint8_t*>(out[0].data) + r0,
                     r1 - r0);
    });
    return;
  }
  const Q8RowSplit split = q8_row_split(out[0].dims);
  q8_split_rows(split.rows, split.row_elements, threads, [&](std::int64_t r0, std::int64_t r1) {
    const Q8Slice a = split.slice(in[0], r0, r1), b = split.slice(in[1], r0, r1), y = split.slice(out[0], r0, r1);
    q8_binary(plan.bin_op, a.data, plan.qa, a.dims, b.data, plan.qb, b.dims, y.data, plan.qy, y.dims);
  });
}

Status FastProgram::run_sliced(const model::Layer& layer, const std::vector<TensorView>& in,
                               const std::vector<TensorView>& out, bool nhwc_view, const RunArgs& args) const {
  // Rows of the output: with nhwc_view the innermost axis is the channel a per-channel
  // operand broadcasts along, so slices are whole pixels; otherwise single elements.
  const TensorView& y = out[0];
  const std::int64_t total = y.elements();
  const std::int64_t inner = nhwc_view && !y.dims.empty() ? y.dims.back() : 1;
  const std::int64_t rows = inner > 0 ? total / inner : 0;
  // Below ~64 K elements a parallel region costs more than it saves. A per-channel
  // operand that also varies over the batch ([N, 1, 1, C] with N > 1) is not sliced.
  const int parts = run_threads(layer);
  bool sliceable = parts > 1 && total >= (1 << 16) && rows >= parts;
  for (const TensorView& v : in) {
    if (v.data == nullptr) continue;
    const std::int64_t n = v.elements();
    if (n != total && n != 1 && !(nhwc_view && n == inner)) sliceable = false;
  }
  if (!sliceable) return run_reference_with_steps(layer, in, out, args);
  std::vector<Status> status(static_cast<std::size_t>(parts));
#pragma omp parallel for num_threads(parts) schedule(static)
  for (int k = 0; k < parts; ++k) {
    const std::int64_t r0 = rows * k / parts, r1 = rows * (k + 1) / parts;
    // The slice as a [rows, inner] (or flat) tensor; operands of one element or of one
    // row broadcast over it as they did over the whole.
    auto slice = [&](const TensorView& v) {
      TensorView s = v;
      const std::int64_t n = v.elements();
      const std::size_t elem = model::dtype_size(v.dtype);
      if (n == total) {
        s.dims = inner > 1 ? std::vector<std::int64_t>{r1 - r0, inner} : std::vector<std::int64_t>{r1 - r0};
        s.data = static_cast<std::uint8_t*>(v.data) + static_cast<std::size_t>(r0 * inner) * elem;
      } else {
        s.dims = inner > 1 && n == inner ? std::vector<std::int64_t>{1, inner} : std::vector<std::int64_t>{n};
      }
      return s;
    };
    std::vector<TensorView> sin, sout;
    for (const TensorView& v : in) sin.push_back(v.data == nullptr ? v : slice(v));
    for (const TensorView& v : out) sout.push_back(slice(v));
    status[static_cast<std::size_t>(k)] = run_reference_with_steps(layer, std::move(sin), sout, args);
  }
  for (const Status& st : status)
    if (!st.ok()) return st;
  return Status::Ok();
}

Result<std::vector<std::uint8_t>> FastProgram::read_tensor(std::size_t t, const std::vector<void*>& data) const {
  const model::Tensor& x = program_.tensors.at(t);
  for (std::size_t i = 0; i < program_.layers.size(); ++i) {
    const model::Layer& l = program_.layers[i];
    if (l.outputs.empty() || l.outputs[0] != static_cast<std::int32_t>(t)) continue;
    const Plan& p = plans_[i];
    if ((p.kind == Kind::kFast || p.kind == Kind::kNative) && p.dst != static_cast<std::int32_t>(t)) {
      return Error(err::kInvalidParam, "tensor \"{}\" is not materialised: layer \"{}\" writes its result fused with the "
                   "following layer's", x.name, l.name);
    }
    break;
  }
  const auto* p = static_cast<const std::uint8_t*>(data.at(t));
  if (p == nullptr) return Error(err::kInvalidParam, "tensor \"{}\" has no storage in this execution", x.name);
  std::vector<std::uint8_t> out(x.size);
  if (nhwc_[t]) {
    nhwc_to_nchw(p, out.data(), x.dims, model::dtype_size(x.dtype));
  } else {
    std::memcpy(out.data(), p, x.size);
  }
  return out;
}

Status FastProgram::run_layer(std::size_t index, const std::vector<void*>& data, const RunArgs& args) const {
  const int configured = threads_for(program_.layers[index]);
  if (configured > 1) spin_governor_tick(spin_, configured);
  const int threads = run_threads(program_.layers[index]);
  const Plan& p = plans_.at(index);
  switch (p.kind) {
    case Kind::kFused:
      return Status::Ok();
    case Kind::kReference:
      return run_reference_layer(index, data, true, args);
    case Kind::kAgnostic:
      return run_reference_layer(index, data, false, args);
    case Kind::kNative: {
      if (p.b < 0) {
        const auto& d = tensor(p.src).dims;
        q8_global_avg_pool(data[static_cast<std::size_t>(p.src)], *p.gap, data[static_cast<std::size_t>(p.dst)], p.qy,
                           d[0], d[1], d[2] * d[3], nhwc_[static_cast<std::size_t>(p.src)]);
        return Status::Ok();
      }
      // Bands of the one-byte elements over the layer's threads, as the other native
      // elementwise kernels (q8_elementwise.h says why).
      const auto n = static_cast<std::int64_t>(tensor(p.dst).elements().value_or(0));
      const auto* a = static_cast<const std::uint8_t*>(data[static_cast<std::size_t>(p.src)]);
      const auto* b = static_cast<const std::uint8_t*>(data[static_cast<std::size_t>(p.b)]);
      auto* y = static_cast<std::uint8_t*>(data[static_cast<std::size_t>(p.dst)]);
      q8_split_rows(n, 1, threads, [&](std::int64_t e0, std::int64_t e1) {
        q8_add(a + e0, p.qa, b + e0, p.qb, y + e0, p.qy, p.relu, e1 - e0);
      });
      return Status::Ok();
    }
    case Kind::kFast:
      break;
  }
  const model::Tensor& s = tensor(p.src);
  const model::Tensor& d = tensor(p.dst);
  std::uint8_t* scratch = thread_scratch(p.scratch);
  const void* src = data[static_cast<std::size_t>(p.src)];
  // Runs oneDNN work of this layer (conversions and the op) with the layer's threads.
  ThreadScope scope(threads);
  if (p.spatial && !nhwc_[static_cast<std::size_t>(p.src)] && layout_matters(s.dims)) {
    if (p.src_reorder) {
      try {
        p.src_reorder->run(src, scratch + p.src_off, scratch + p.pad_off);
      } catch (const dnnl::error& e) {
        return Status(err::kInternalError, "layer \"" + program_.layers[index].name + "\": oneDNN: " + e.what());
      }
    } else {
      nchw_to_nhwc(src, scratch + p.src_off, s.dims, model::dtype_size(s.dtype), threads);
    }
    src = scratch + p.src_off;
  }
  void* dst = data[static_cast<std::size_t>(p.dst)];
  if (p.dst_in_scratch) dst = scratch + p.dst_off;
  if (p.sum >= 0) {
    // The fused Add's other operand, in dst's (NHWC) order, is what the sum post-op adds.
    const model::Tensor& u = tensor(p.sum);
    const void* up = data[static_cast<std::size_t>(p.sum)];
    if (nhwc_[static_cast<std::size_t>(p.sum)] || !layout_matters(u.dims)) {
      if (up != dst) std::memcpy(dst, up, u.size);
    } else {
      nchw_to_nhwc(up, dst, u.dims, model::dtype_size(u.dtype), threads);
    }
  }
  try {
    p.op->run(src, dst, scratch + p.pad_off);
    if (p.dst_in_scratch) {
      void* out = data[static_cast<std::size_t>(p.dst)];
      if (nhwc_[static_cast<std::size_t>(p.dst)] || !layout_matters(d.dims)) {
        std::memcpy(out, dst, d.size);
      } else if (p.dst_reorder) {
        p.dst_reorder->run(dst, out, scratch + p.pad_off);
      } else {
        nhwc_to_nchw(dst, out, d.dims, model::dtype_size(d.dtype), threads);
      }
    }
  } catch (const dnnl::error& e) {
    return Status(err::kInternalError,
                  "layer \"" + program_.layers[index].name + "\": oneDNN execution failed: " + e.what());
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<CompiledProgram>> compile_fast(const model::Program& program, const std::uint8_t* weights,
                                                      std::size_t, const CompileOptions& options) {
  auto fp = std::make_unique<FastProgram>(program, weights, options.threads < 1 ? 1 : options.threads, options.spin,
                                          options.fuse);
  fp->plan();
  return std::unique_ptr<CompiledProgram>(std::move(fp));
}

}  // namespace svp::kernels::onednn
