#include "compiler/quantize/quantize.h"

#include "compiler/passes/const_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "compiler/quantize/evaluate.h"
#include "compiler/quantize/weight_search.h"
#include "ops/op_def.h"

namespace svp::compiler::quant {
namespace {

using model::DType;

// The node's precision in this mode (quantize.h, step 2). Cast reads and writes plain
// values; nodes forced onto the AI-CPU compute in float (--force_to_cpu: the only
// placement known before this pass).
Precision node_precision(const Node& n, const QuantizeOptions& o) {
  // A model's own QuantizeLinear/DequantizeLinear that absorb_qdq left (a pair writing a
  // model output) reads or writes float on its float side: it is a float node here, so
  // the value it quantizes stays float (a quantized producer gets a DequantizeLinear).
  const ops::QuantRole role = ops::op_def(n.op).quant;
  if (role == ops::QuantRole::kFloatOnly || role == ops::QuantRole::kBoundary || n.target == model::Target::kAiCpu ||
      n.keep_float) {
    return Precision::kFloat32;
  }
  const bool quantized_here = !o.cube_only || ops::is_quant_cube(n.op);
  const Precision own =
      !quantized_here ? Precision::kFp16 : (o.activation_bits == 16 ? Precision::kA16W8 : Precision::kA8W8);
  // --high_precision_layer: one step up from A8W8 is the vendor's A16W8; above A16W8 and
  // fp16 there is float32.
  if (n.high_precision) return own == Precision::kA8W8 ? Precision::kA16W8 : Precision::kFloat32;
  return own;
}

bool is_float(Precision p) { return p == Precision::kFp16 || p == Precision::kFloat32; }

// The element type and quantization parameters a value gets at 8 or 16 bits.
struct Chosen {
  DType dtype = DType::kInt8;
  model::Quant quant;
};

// At 8 bits a range that starts at 0 (after a ReLU) uses all 256 levels either as int8
// with zero point -128 or as uint8 with zero point 0; the same values, but the second is
// what the integer fast paths take (oneDNN's inner product has no zero points) — so uint8
// it is. At 16 bits: symmetric int16 over the whole observed range (65,536 levels leave
// nothing to gain by clipping, and zero point 0 is the common int16 convention).
Chosen choose(const ValueEncoding& e, int bits) {
  Chosen c;
  if (bits == 16) {
    c.dtype = DType::kInt16;
    c.quant.scale = {e.magnitude > 0.0f ? e.magnitude / 32767.0f : 1.0f};
    c.quant.zero_point = {0};
    return c;
  }
  const bool unsigned_range = e.narrow.zero_point == -128;
  c.dtype = unsigned_range ? DType::kUint8 : DType::kInt8;
  c.quant.scale = {e.narrow.scale};
  c.quant.zero_point = {unsigned_range ? 0 : e.narrow.zero_point};
  return c;
}

ValueId scalar_constant(Graph& g, const std::string& name, DType dtype, const void* bytes, std::size_t size) {
  auto data = std::make_shared<std::vector<std::uint8_t>>(size);
  std::memcpy(data->data(), bytes, size);
  return g.add_constant(g.unique_name(name), dtype, {}, data);
}

// A QuantizeLinear (float → integer) or DequantizeLinear (integer → float) node from
// `from` to `to`, with `c`'s scale and zero point as its constant inputs.
void add_boundary(Graph& g, const std::string& op, ValueId from, ValueId to, const Chosen& c) {
  // The zero point's type is the quantized side's type (ONNX's rule).
  const std::int32_t zp32 = c.quant.zero_point[0];
  const std::int16_t zp16 = static_cast<std::int16_t>(zp32);
  const std::uint8_t zp8 = static_cast<std::uint8_t>(static_cast<std::int8_t>(zp32));
  Node n;
  n.name = g.unique_name(g.value(from).name + (op == "QuantizeLinear" ? "_quantize" : "_dequantize"));
  n.op = op;
  const float scale = c.quant.scale[0];
  n.inputs = {from, scalar_constant(g, n.name + "_scale", DType::kFloat32, &scale, sizeof scale),
              c.dtype == DType::kInt16 ? scalar_constant(g, n.name + "_zero_point", c.dtype, &zp16, sizeof zp16)
                                       : scalar_constant(g, n.name + "_zero_point", c.dtype, &zp8, sizeof zp8)};
  n.outputs = {to};
  g.add_node(std::move(n));
}

// Emulated fp16 storage: the producer's output k goes through a Cast to float16 and back
// before its readers (which, and the graph outputs, keep reading the same value id).
void round_to_fp16(Graph& g, NodeId producer, std::size_t k) {
  const ValueId v = g.node(producer).outputs[k];
  const std::string name = g.value(v).name;
  const std::vector<std::int64_t> shape = g.value(v).shape;
  Value raw;
  raw.name = g.unique_name(name + "_fp32");
  raw.shape = shape;
  const ValueId rid = g.add_value(std::move(raw));
  g.node(producer).outputs[k] = rid;
  g.value(rid).producer = producer;
  Value half;
  half.name = g.unique_name(name + "_fp16");
  half.dtype = DType::kFloat16;
  half.shape = shape;
  const ValueId hid = g.add_value(std::move(half));
  constexpr std::int64_t kOnnxFloat = 1, kOnnxFloat16 = 10;
  auto cast = [&](const std::string& suffix, std::int64_t to, ValueId from, ValueId into) {
    Node n;
    n.name = g.unique_name(name + suffix);
    n.op = "Cast";
    n.attrs.set("to", to);
    n.inputs = {from};
    n.outputs = {into};
    g.add_node(std::move(n));
  };
  cast("_to_fp16", kOnnxFloat16, rid, hid);
  cast("_from_fp16", kOnnxFloat, hid, v);
}

// Symmetric int8 weights: per slice along `axis` (-1 = one scale for the tensor), with
// the scales `fixed` gives (--gfpq_param_file) or else max |w| / 127.
ValueId quantize_weight(Graph& g, ValueId w, std::int32_t axis, const std::vector<float>* fixed, bool search) {
  const Value& v = g.value(w);
  const std::size_t n = v.data->size() / sizeof(float);
  std::vector<float> f(n);
  std::memcpy(f.data(), v.data->data(), n * sizeof(float));
  std::size_t channels = 1, inner = n, outer = 1;
  if (axis >= 0) {
    channels = static_cast<std::size_t>(v.shape[static_cast<std::size_t>(axis)]);
    inner = 1;
    for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < v.shape.size(); ++d) {
      inner *= static_cast<std::size_t>(v.shape[d]);
    }
    outer = n / (channels * inner);
  }
  std::vector<float> scale(channels, 0.0f);
  for (std::size_t o = 0; o < outer; ++o) {
    for (std::size_t c = 0; c < channels; ++c) {
      for (std::size_t i = 0; i < inner; ++i) {
        scale[c] = std::max(scale[c], std::fabs(f[(o * channels + c) * inner + i]));
      }
    }
  }
  for (float& s : scale) s = representable_scale(s > 0 ? s / 127.0f : 1.0f);
  for (std::size_t c = 0; search && fixed == nullptr && c < channels; ++c) {
    scale[c] = search_weight_scale(f.data() + c * inner, outer, channels * inner, inner, scale[c]);
  }
  if (fixed != nullptr) scale = *fixed;
  auto data = std::make_shared<std::vector<std::uint8_t>>(n);
  for (std::size_t o = 0; o < outer; ++o) {
    for (std::size_t c = 0; c < channels; ++c) {
      for (std::size_t i = 0; i < inner; ++i) {
        const std::size_t k = (o * channels + c) * inner + i;
        const float q = std::nearbyint(f[k] / scale[c]);
        (*data)[k] = static_cast<std::uint8_t>(static_cast<std::int8_t>(std::clamp(q, -127.0f, 127.0f)));
      }
    }
  }
  const std::string name = v.name + "_int8";
  const std::vector<std::int64_t> shape = v.shape;
  const ValueId id = g.add_constant(g.unique_name(name), DType::kInt8, shape, data);
  Value& q = g.value(id);
  q.quant.scale = scale;
  q.quant.zero_point.assign(channels, 0);
  q.quant.axis = axis >= 0 ? axis : -1;
  return id;
}

// Bias correction (--bias_correction, ours): rounding the weights of a Conv shifts each
// output channel's mean by sum(dW * E[x]) — systematic for small kernels such as
// depthwise 3x3, where a few rounding errors do not average out. The expected shift is
// taken out of the bias, from the per-channel means of the Conv's input over the
// calibration data (padding is ignored: border pixels count as interior ones).
// `w` is the float weight [M, C/group, k...], `wq` its int8 replacement.
void correct_conv_bias(Graph& g, NodeId id, ValueId w, ValueId wq, const std::vector<double>& input_mean) {
  Node& n = g.node(id);
  const Value& wf = g.value(w);
  const Value& q = g.value(wq);
  if (wf.shape.size() < 2) return;
  const auto m = static_cast<std::size_t>(wf.shape[0]);
  const auto cg = static_cast<std::size_t>(wf.shape[1]);
  std::size_t k = 1;
  for (std::size_t d = 2; d < wf.shape.size(); ++d) k *= static_cast<std::size_t>(wf.shape[d]);
  auto grp = n.attrs.get_int("group", 1);
  const std::size_t groups = grp.ok() && *grp > 0 ? static_cast<std::size_t>(*grp) : 1;
  if (m % groups != 0 || cg * groups != input_mean.size()) return;
  const float* wv = reinterpret_cast<const float*>(wf.data->data());
  const auto* qv = reinterpret_cast<const std::int8_t*>(q.data->data());
  std::vector<float> shift(m, 0.0f);
  for (std::size_t o = 0; o < m; ++o) {
    const float scale = q.quant.scale.size() == m ? q.quant.scale[o] : q.quant.scale[0];
    const std::size_t first_in = (o / (m / groups)) * cg;
    double sum = 0;
    for (std::size_t i = 0; i < cg; ++i) {
      for (std::size_t j = 0; j < k; ++j) {
        const std::size_t e = (o * cg + i) * k + j;
        sum += (static_cast<double>(qv[e]) * scale - wv[e]) * input_mean[first_in + i];
      }
    }
    shift[o] = static_cast<float>(sum);
  }
  std::vector<float> bias(m, 0.0f);
  if (n.inputs.size() >= 3 && n.inputs[2] != kNoValue) {
    const Value& b = g.value(n.inputs[2]);
    if (!b.is_constant() || b.dtype != DType::kFloat32 || b.data->size() != m * sizeof(float)) return;
    std::memcpy(bias.data(), b.data->data(), m * sizeof(float));
  }
  for (std::size_t o = 0; o < m; ++o) bias[o] -= shift[o];
  auto bytes = std::make_shared<std::vector<std::uint8_t>>(m * sizeof(float));
  std::memcpy(bytes->data(), bias.data(), bytes->size());
  const ValueId nb = g.add_constant(g.unique_name(n.name + "_bias_corrected"), DType::kFloat32,
                                    {static_cast<std::int64_t>(m)}, bytes);
  n.inputs.resize(std::max<std::size_t>(n.inputs.size(), 3), kNoValue);
  n.inputs[2] = nb;
}

bool is_float_constant(const Graph& g, ValueId v) {
  return v != kNoValue && g.value(v).is_constant() && g.value(v).dtype == DType::kFloat32 && g.value(v).quant.empty();
}

// The axis of the weight (input 1) that gets one scale per slice, -1 for one scale per
// tensor, -2 for a node without an int8 weight (the op table's WeightAxis).
std::int32_t weight_scale_axis(const Graph& g, const Node& n, const QuantizeOptions& o) {
  switch (ops::op_def(n.op).weight_axis) {
    case ops::WeightAxis::kConvOutput: return o.conv_per_channel ? 0 : -1;
    // Per output channel as for Conv (the vendor's --weight_quant_per_channel covers Conv and
    // Deconv): W is (C, M/group, k…), so axis 1 — M/group scales shared by the groups.
    case ops::WeightAxis::kDeconvOutput: return o.conv_per_channel ? 1 : -1;
    case ops::WeightAxis::kMatMulLast:
      if (n.inputs.size() != 2 || !is_float_constant(g, n.inputs[1])) return -2;
      return o.matmul_per_channel ? static_cast<std::int32_t>(g.value(n.inputs[1]).shape.size()) - 1 : -1;
    case ops::WeightAxis::kGemmOutput: {
      auto tb = n.attrs.get_int("transB", 0);
      return o.matmul_per_channel ? (tb.ok() && *tb != 0 ? 0 : 1) : -1;
    }
    case ops::WeightAxis::kNone: break;
  }
  return -2;
}

}  // namespace

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::kA8W8:
      return "A8W8";
    case Precision::kA16W8:
      return "A16W8";
    case Precision::kFp16:
      return "FP16";
    case Precision::kFloat32:
      break;
  }
  return "FP32";
}

Status mark_high_precision(Graph& g, const std::vector<std::string>& names) {
  for (const std::string& want : names) {
    const std::vector<NodeId> found = g.nodes_named(want);
    if (found.empty()) {
      return Error(err::kInvalidParam,
                   "--high_precision_layer names \"{}\", which is not a node of the model (ONNX node names; "
                   "svp_atc --mode=1 lists them in om.json)",
                   want);
    }
    for (NodeId id : found) g.node(id).high_precision = true;
  }
  return Status::Ok();
}

Status mark_float_layers(Graph& g, const std::vector<std::string>& names) {
  for (const std::string& want : names) {
    const std::vector<NodeId> found = g.nodes_named(want);
    if (found.empty()) {
      return Error(err::kInvalidParam,
                   "float layer \"{}\" is not a node of the model (ONNX node names; svp_atc --mode=1 lists them in "
                   "om.json)",
                   want);
    }
    for (NodeId id : found) g.node(id).keep_float = true;
  }
  return Status::Ok();
}

namespace {

// The float activations: graph inputs and node outputs that are float32 and not yet
// quantized (the values calibration observes and quantization may turn into integers).
std::set<ValueId> float_activations(const Graph& g) {
  std::set<ValueId> floats;
  for (ValueId v : g.inputs) {
    if (g.value(v).dtype == DType::kFloat32) floats.insert(v);
  }
  for (NodeId id : g.live_nodes()) {
    for (ValueId v : g.node(id).outputs) {
      if (g.value(v).dtype == DType::kFloat32 && g.value(v).quant.empty()) floats.insert(v);
    }
  }
  return floats;
}

// --bias_correction reads the per-channel mean of every Conv's (NCHW, float) input.
std::map<NodeId, ValueId> conv_inputs(const Graph& g, const std::set<ValueId>& floats) {
  std::map<NodeId, ValueId> out;
  for (NodeId id : g.live_nodes()) {
    const Node& n = g.node(id);
    if (n.op == "Conv" && !n.inputs.empty() && floats.count(n.inputs[0]) && g.value(n.inputs[0]).shape.size() >= 3) {
      out[id] = n.inputs[0];
    }
  }
  return out;
}

// What one pass over the calibration data accumulates.
struct Observed {
  std::map<ValueId, RangeObserver> ranges;
  std::map<ValueId, std::unique_ptr<HistogramObserver>> hists;
  std::map<ValueId, std::pair<std::vector<double>, double>> channel_sums;  // sums, count per channel
};

void observe(const model::TensorView& t, ValueId v, bool first_pass, Observed* o) {
  const float* x = t.as<const float>();
  const auto n = static_cast<std::size_t>(t.elements());
  if (auto cs = o->channel_sums.find(v); first_pass && cs != o->channel_sums.end() && t.dims.size() >= 3) {
    std::vector<double>& sums = cs->second.first;
    const auto c = static_cast<std::size_t>(t.dims[1]);
    const std::size_t inner = c == 0 ? 0 : n / static_cast<std::size_t>(t.dims[0]) / c;
    for (std::size_t i = 0; i < n && c == sums.size(); ++i) sums[(i / inner) % c] += x[i];
    cs->second.second += static_cast<double>(n) / static_cast<double>(std::max<std::size_t>(c, 1));
  }
  if (first_pass) {
    o->ranges[v].add(x, n);
  } else if (auto it = o->hists.find(v); it != o->hists.end()) {
    it->second->add(x, n);
  }
}

// The precision of every node, in graph order (quantize.h, step 2).
std::map<NodeId, Precision> assign_precisions(const Graph& g, const QuantizeOptions& options, QuantizeReport* report) {
  std::map<NodeId, Precision> precision;
  for (NodeId id : g.live_nodes()) {
    const Precision p = node_precision(g.node(id), options);
    precision[id] = p;
    report->layers.push_back({g.node(id).name, g.node(id).op, p});
  }
  return precision;
}

// The state apply_quantization's steps hand on to each other.
struct Plan {
  std::vector<NodeId> order;  // the float graph's nodes, before any insertion
  std::map<NodeId, Precision> precision;
  std::map<ValueId, ValueEncoding> enc;
  std::set<ValueId> floats;
  std::map<NodeId, const std::vector<float>*> fixed_weights;  // --gfpq_param_file
  std::vector<NodeId> relu_like_clips;
  std::set<ValueId> boundary_in;  // float values quantized by an inserted QuantizeLinear
  std::set<ValueId> quantized;
  std::map<ValueId, Chosen> chosen;
  std::map<NodeId, ValueId> conv_input;  // --bias_correction: each Conv's float input, before any rewiring
  bool float_node(NodeId id) const { return is_float(precision.at(id)); }
};

// A Relu that is the only reader of its input gives that input its own encoding
// (range [0, max]): the producer (Conv, Add, …) then saturates negatives to the zero
// point, which is exactly what the Relu would do, so the runtime fuses the pair (its
// integer Conv + Relu and Add + Relu need equal encodings) and no level is spent on
// values the Relu discards — what the hardware's fused ReLU does.
// The same for a Clip(0, hi) (ReLU6) whose output encoding ends at or below hi: with
// the shared encoding the producer's saturation already clips above, so in int8 the Clip
// is exactly a Relu (max(q, zp)), and becomes one below once the types are known.
// Then data-movement ops pass their input's encoding on.
void share_encodings(const Graph& g, Plan* p) {
  for (NodeId id : p->order) {
    const Node& n = g.node(id);
    if ((n.op != "Relu" && n.op != "Clip") || p->float_node(id) || n.inputs.empty() || !p->enc.count(n.outputs[0]) ||
        !p->enc.count(n.inputs[0])) {
      continue;
    }
    const ValueId x = n.inputs[0];
    if (g.value(x).producer < 0 || g.consumers(x).size() != 1 || g.is_graph_output(x)) continue;
    if (n.op == "Clip") {
      float lo = 0, hi = 0;
      const Encoding& e = p->enc[n.outputs[0]].narrow;
      if (!passes::clip_range(g, n, &lo, &hi) || lo != 0.0f || e.hi > hi || e.lo > 0.0f) continue;
      p->relu_like_clips.push_back(id);
    }
    p->enc[x] = p->enc[n.outputs[0]];
  }
  for (NodeId id : p->order) {
    const Node& n = g.node(id);
    if (!ops::passes_encoding(n.op) || p->float_node(id) || n.inputs.empty() || !p->enc.count(n.inputs[0])) continue;
    for (ValueId o : n.outputs) {
      if (p->enc.count(o)) p->enc[o] = p->enc[n.inputs[0]];
    }
  }
}

// Which values become int8/int16: produced by a node that can write them, read by no
// node that needs float. A value a quantized node writes for float readers stays float,
// and its quantized readers get a QuantizeLinear as if a float node had written it (in
// modes 5/6: a CUBE op's output read by an fp16 op and by another CUBE op). 16 bits where
// an A16W8 node writes or reads the value, else 8.
void choose_types(Graph& g, Plan* p, QuantizeReport* report) {
  for (ValueId v : p->floats) {
    if (!p->enc.count(v)) continue;
    bool float_reader = false;
    for (NodeId c : g.consumers(v)) float_reader = float_reader || p->float_node(c);
    const Value& val = g.value(v);
    const bool float_producer = val.producer < 0 || p->float_node(val.producer);
    (float_producer || float_reader ? p->boundary_in : p->quantized).insert(v);
  }
  auto bits_of = [&](ValueId v) {
    const Value& val = g.value(v);
    bool wide = val.producer >= 0 && p->precision.at(val.producer) == Precision::kA16W8;
    for (NodeId c : g.consumers(v)) wide = wide || p->precision.at(c) == Precision::kA16W8;
    return wide ? 16 : 8;
  };
  for (ValueId v : p->quantized) p->chosen[v] = choose(p->enc[v], bits_of(v));
  for (ValueId v : p->boundary_in) p->chosen[v] = choose(p->enc[v], bits_of(v));
  for (ValueId v : p->quantized) {
    Value& val = g.value(v);
    val.dtype = p->chosen[v].dtype;
    val.quant = p->chosen[v].quant;
    ++report->activations;
    report->activations16 += val.dtype == DType::kInt16;
  }
  for (NodeId id : p->relu_like_clips) {
    Node& n = g.node(id);
    // Only at 8 bits: int16 encodings span the whole observed range, beyond the Clip's bound.
    if (!p->quantized.count(n.inputs[0]) || !p->quantized.count(n.outputs[0]) ||
        g.value(n.inputs[0]).dtype == DType::kInt16 || g.value(n.outputs[0]).dtype == DType::kInt16) {
      continue;
    }
    n.op = "Relu";
    n.attrs = model::Attrs{};
    n.inputs.resize(1);
    ++report->clips_as_relu;
  }
}

// Float values entering the quantized part get a QuantizeLinear in front of their
// quantized readers; quantized values read by float-only ops, or leaving the model, a
// DequantizeLinear.
void insert_boundaries(Graph& g, Plan* p, QuantizeReport* report) {
  for (ValueId v : p->boundary_in) {
    std::vector<NodeId> readers;
    for (NodeId c : g.consumers(v)) {
      if (!p->float_node(c)) readers.push_back(c);
    }
    if (readers.empty()) continue;
    const Chosen& c = p->chosen[v];
    Value q;
    q.name = g.unique_name(g.value(v).name + (c.dtype == DType::kInt16 ? "_int16" : "_int8"));
    q.dtype = c.dtype;
    q.shape = g.value(v).shape;
    q.quant = c.quant;
    const ValueId qid = g.add_value(std::move(q));
    for (NodeId r : readers) std::replace(g.node(r).inputs.begin(), g.node(r).inputs.end(), v, qid);
    add_boundary(g, "QuantizeLinear", v, qid, c);
    ++report->boundaries;
  }
  for (ValueId v : p->quantized) {
    std::vector<NodeId> readers;
    for (NodeId c : g.consumers(v)) {
      if (p->float_node(c)) readers.push_back(c);
    }
    const bool output = g.is_graph_output(v);
    if (readers.empty() && !output) continue;
    Value f;
    f.dtype = DType::kFloat32;
    f.shape = g.value(v).shape;
    if (output) {
      // The application's output keeps the ONNX name.
      f.name = g.value(v).name;
      g.value(v).name = g.unique_name(f.name + (g.value(v).dtype == DType::kInt16 ? "_int16" : "_int8"));
    } else {
      f.name = g.unique_name(g.value(v).name + "_float");
    }
    const ValueId fid = g.add_value(std::move(f));
    for (NodeId r : readers) std::replace(g.node(r).inputs.begin(), g.node(r).inputs.end(), v, fid);
    std::replace(g.outputs.begin(), g.outputs.end(), v, fid);
    add_boundary(g, "DequantizeLinear", v, fid, p->chosen[v]);
    ++report->boundaries;
  }
}

// fp16 storage (modes 5/6): what fp16 layers compute and what CUBE ops write for them.
// Ops that only move values move already rounded ones.
void round_fp16_outputs(Graph& g, const Plan& p, const QuantizeOptions& options, QuantizeReport* report) {
  for (NodeId id : p.order) {
    const Precision prec = p.precision.at(id);
    const bool rounds = prec == Precision::kFp16 ? !ops::moves_values(g.node(id).op)
                                                 : options.cube_only && !is_float(prec);
    if (!rounds) continue;
    for (std::size_t k = 0; k < g.node(id).outputs.size(); ++k) {
      const Value& v = g.value(g.node(id).outputs[k]);
      if (v.dtype != DType::kFloat32 || !v.quant.empty()) continue;
      round_to_fp16(g, id, k);
      ++report->fp16_roundings;
    }
  }
}

// The weight scales --gfpq_param_file fixes for node `id`, checked against its weight;
// updates `axis` to -1 for a single scale.
Result<const std::vector<float>*> fixed_weight_scales(const Graph& g, NodeId id, const Plan& p, std::int32_t* axis) {
  const auto fixed = p.fixed_weights.find(id);
  if (fixed == p.fixed_weights.end()) return static_cast<const std::vector<float>*>(nullptr);
  const std::vector<float>* scales = fixed->second;
  const auto& shape = g.value(g.node(id).inputs[1]).shape;
  const bool per_channel_ok = *axis >= 0 && static_cast<std::size_t>(*axis) < shape.size() &&
                              static_cast<std::size_t>(shape[static_cast<std::size_t>(*axis)]) == scales->size();
  if (scales->size() == 1) {
    *axis = -1;
  } else if (!per_channel_ok) {
    return Error(err::kInvalidParam, "--gfpq_param_file gives {} weight scales for {}; give 1{}", scales->size(),
                 g.describe(id),
                 *axis >= 0 && static_cast<std::size_t>(*axis) < shape.size()
                     ? fmt::format(" or {} (one per output channel)", shape[static_cast<std::size_t>(*axis)])
                     : std::string(" (this op's int8 weights are per tensor)"));
  }
  return scales;
}

// Int8 weights for every quantized layer that has one, with --bias_correction's
// adjusted biases; counts the layers by precision.
Status quantize_weights(Graph& g, const Plan& p, const Calibration& cal, const QuantizeOptions& options,
                        QuantizeReport* report) {
  for (NodeId id : p.order) {
    report->a16_layers += p.precision.at(id) == Precision::kA16W8;
    report->fp16_layers += p.precision.at(id) == Precision::kFp16;
    if (p.float_node(id)) {
      report->float_layers +=
          p.precision.at(id) == Precision::kFloat32 && ops::op_def(g.node(id).op).quant != ops::QuantRole::kFloatOnly;
      continue;
    }
    Node& n = g.node(id);
    std::int32_t axis = weight_scale_axis(g, n, options);
    if (axis == -2 || n.inputs.size() < 2 || !is_float_constant(g, n.inputs[1])) {
      if (p.fixed_weights.count(id)) {
        return Error(err::kInvalidParam,
                     "--gfpq_param_file gives weight scales for {}, which has no int8 weight; remove its weight block",
                     g.describe(id));
      }
      continue;
    }
    auto scales = fixed_weight_scales(g, id, p, &axis);
    if (!scales.ok()) return scales.status();
    const ValueId w_float = n.inputs[1];
    n.inputs[1] = quantize_weight(g, w_float, axis, *scales, options.weight_search);
    ++report->weights;
    if (auto ci = p.conv_input.find(id); ci != p.conv_input.end()) {
      if (auto mean = cal.channel_means.find(ci->second); mean != cal.channel_means.end()) {
        correct_conv_bias(g, id, w_float, g.node(id).inputs[1], mean->second);
        ++report->biases_corrected;
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Result<Calibration> calibrate(const Graph& g, const CalibrationSet& data, const QuantizeOptions& options) {
  if (data.batches.empty()) return Error(err::kInvalidParam, "no calibration batches");
  Calibration cal;
  cal.batches = data.batches.size();
  cal.values = g.value_count();
  const std::set<ValueId> floats = float_activations(g);
  const bool histograms = options.calibration.method != Method::kMinMax;
  const std::size_t passes = histograms ? 2 : 1;
  const std::size_t total = passes * data.batches.size();
  Observed seen;
  if (options.bias_correction) {
    for (const auto& [id, x] : conv_inputs(g, floats)) {
      seen.channel_sums[x].first.assign(static_cast<std::size_t>(g.value(x).shape[1]), 0.0);
    }
  }
  // The runtime's fast paths when the float graph compiles for them (it always should);
  // the reference evaluation otherwise — slower, same values up to float rounding.
  auto fast = CompiledEvaluator::create(g);
  for (std::size_t pass = 0; pass < passes; ++pass) {
    for (std::size_t b = 0; b < data.batches.size(); ++b) {
      auto feed = [&](ValueId v, const model::TensorView& t) {
        if (floats.count(v)) observe(t, v, pass == 0, &seen);
      };
      for (std::size_t i = 0; i < g.inputs.size(); ++i) feed(g.inputs[i], data.batches[b][i].view());
      auto r = fast.ok() ? (*fast)->run(data.batches[b], feed) : evaluate(g, data.batches[b], feed);
      if (!r.ok()) return Error(r.status().code(), "calibration batch {}: {}", b + 1, r.status().message());
      if (options.progress) options.progress(pass * data.batches.size() + b + 1, total);
    }
    if (pass == 0 && histograms) {
      for (auto& [v, range] : seen.ranges) {
        if (!range.empty()) seen.hists[v] = std::make_unique<HistogramObserver>(range.min(), range.max());
      }
    }
  }
  CalibrationOptions whole_range = options.calibration;
  whole_range.method = Method::kMinMax;
  for (auto& [v, range] : seen.ranges) {
    if (range.empty()) continue;
    auto it = seen.hists.find(v);
    // The model's outputs are never clipped: clipping saturates the largest scores, the
    // ones that decide a classifier's answer (entropy calibration cost the Fashion-MNIST
    // LeNet 5 points that way).
    const CalibrationOptions& how = g.is_graph_output(v) ? whole_range : options.calibration;
    auto e = choose_encoding(range, it == seen.hists.end() ? nullptr : it->second.get(), how);
    if (!e.ok()) return Error(e.status().code(), "value \"{}\": {}", g.value(v).name, e.status().message());
    ValueEncoding& enc = cal.encodings[v];
    enc = {*e, std::max(std::fabs(range.min()), std::fabs(range.max()))};
    // A scale calibration_param.txt can carry exactly (a float reciprocal), so that a
    // compile repeated with --gfpq_param_file gives this model bit for bit.
    enc.narrow.scale = representable_scale(enc.narrow.scale);
  }
  for (const auto& [v, sums] : seen.channel_sums) {
    if (sums.second <= 0) continue;
    std::vector<double>& mean = cal.channel_means[v];
    for (double s : sums.first) mean.push_back(s / sums.second);
  }
  return cal;
}

Result<QuantizeReport> apply_quantization(Graph& g, const Calibration& cal, const QuantizeOptions& options) {
  if (options.activation_bits != 8 && options.activation_bits != 16) {
    return Error(err::kInvalidParam, "activations are quantized to 8 or 16 bits, not {}", options.activation_bits);
  }
  if (cal.values != g.value_count()) {
    return Error(err::kInternalError, "quantization: the calibration is of another graph ({} values, this one has {})",
                 cal.values, g.value_count());
  }
  QuantizeReport report;
  report.batches = cal.batches;
  Plan p;
  p.order = g.live_nodes();
  p.precision = assign_precisions(g, options, &report);
  p.floats = float_activations(g);
  p.enc = cal.encodings;
  if (options.bias_correction) p.conv_input = conv_inputs(g, p.floats);
  // Encodings fixed by the model (QDQ) or --gfpq_param_file (A8W8 only): they replace the
  // calibrated ones before the rules below, which then treat them like calibrated ones.
  if (options.external != nullptr) {
    for (const auto& [v, e] : options.external->encodings) p.enc[v] = {e, std::max(std::fabs(e.lo), std::fabs(e.hi))};
    for (const auto& [id, scales] : options.external->weight_scales) p.fixed_weights[id] = &scales;
    report.external_values = options.external->encodings.size();
  }
  share_encodings(g, &p);
  choose_types(g, &p, &report);
  insert_boundaries(g, &p, &report);
  round_fp16_outputs(g, p, options, &report);
  SVP_RETURN_IF_ERROR(quantize_weights(g, p, cal, options, &report));
  SVP_RETURN_IF_ERROR(g.topo_sort());
  return report;
}

Result<QuantizeReport> quantize_graph(Graph& g, const CalibrationSet& data, const QuantizeOptions& options) {
  if (options.activation_bits != 8 && options.activation_bits != 16) {
    return Error(err::kInvalidParam, "activations are quantized to 8 or 16 bits, not {}", options.activation_bits);
  }
  auto cal = calibrate(g, data, options);
  if (!cal.ok()) return cal.status();
  return apply_quantization(g, *cal, options);
}

}  // namespace svp::compiler::quant
