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

namespace svp::compiler::quant {
namespace {

using model::DType;

// Ops that only move or select values: their output has their input's encoding.
bool passes_encoding(const std::string& op) {
  static const std::set<std::string> ops = {"Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze", "Slice",
                                            "Split",   "MaxPool", "GlobalMaxPool", "Identity", "Dropout"};
  return ops.count(op) > 0;
}

// Nodes that read and write plain (not quantized) values: Cast, the layers the user keeps
// at high precision (--high_precision_layer) and the nodes forced onto the AI-CPU
// (--force_to_cpu: the AI-CPU computes in float; the only placement known before this pass).
bool float_node(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  return n.op == "Cast" || n.high_precision || n.target == model::Target::kAiCpu;
}

// A range that starts at 0 (after a ReLU) uses all 256 levels either as int8 with zero
// point -128 or as uint8 with zero point 0; the same values, but the second is what the
// integer fast paths take (oneDNN's inner product has no zero points) — so uint8 it is.
bool unsigned_range(const Encoding& e) { return e.zero_point == -128; }
DType dtype_of(const Encoding& e) { return unsigned_range(e) ? DType::kUint8 : DType::kInt8; }
model::Quant quant_of(const Encoding& e) {
  model::Quant q;
  q.scale = {e.scale};
  q.zero_point = {unsigned_range(e) ? 0 : e.zero_point};
  return q;
}

ValueId scalar_constant(Graph& g, const std::string& name, DType dtype, const void* bytes, std::size_t size) {
  auto data = std::make_shared<std::vector<std::uint8_t>>(size);
  std::memcpy(data->data(), bytes, size);
  return g.add_constant(g.unique_name(name), dtype, {}, data);
}

// A QuantizeLinear (float → int8) or DequantizeLinear (int8 → float) node from `from` to
// `to`, with `e`'s scale and zero point as its constant inputs.
void add_boundary(Graph& g, const std::string& op, ValueId from, ValueId to, const Encoding& e) {
  // The zero point's type is the quantized side's type (ONNX's rule).
  const std::int32_t zp32 = quant_of(e).zero_point[0];
  const std::uint8_t zp = static_cast<std::uint8_t>(static_cast<std::int8_t>(zp32));
  Node n;
  n.name = g.unique_name(g.value(from).name + (op == "QuantizeLinear" ? "_quantize" : "_dequantize"));
  n.op = op;
  n.inputs = {from, scalar_constant(g, n.name + "_scale", DType::kFloat32, &e.scale, sizeof e.scale),
              scalar_constant(g, n.name + "_zero_point", dtype_of(e), &zp, sizeof zp)};
  n.outputs = {to};
  g.add_node(std::move(n));
}

// Symmetric int8 weights: per slice along `axis` (-1 = one scale for the tensor), with
// the scales `fixed` gives (--gfpq_param_file) or else max |w| / 127.
ValueId quantize_weight(Graph& g, ValueId w, std::int32_t axis, const std::vector<float>* fixed) {
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

bool is_float_constant(const Graph& g, ValueId v) {
  return v != kNoValue && g.value(v).is_constant() && g.value(v).dtype == DType::kFloat32 && g.value(v).quant.empty();
}

}  // namespace

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

Result<QuantizeReport> quantize_a8w8(Graph& g, const CalibrationSet& data, const QuantizeOptions& options) {
  if (data.batches.empty()) return Error(err::kInvalidParam, "no calibration batches");
  QuantizeReport report;
  report.batches = data.batches.size();
  const std::vector<NodeId> order = g.live_nodes();

  // Float activations: graph inputs and node outputs.
  std::set<ValueId> floats;
  for (ValueId v : g.inputs) {
    if (g.value(v).dtype == DType::kFloat32) floats.insert(v);
  }
  for (NodeId id : order) {
    for (ValueId v : g.node(id).outputs) {
      if (g.value(v).dtype == DType::kFloat32 && g.value(v).quant.empty()) floats.insert(v);
    }
  }
  const bool histograms = options.calibration.method != Method::kMinMax;
  const std::size_t passes = histograms ? 2 : 1;
  const std::size_t total = passes * data.batches.size();
  std::map<ValueId, RangeObserver> ranges;
  std::map<ValueId, std::unique_ptr<HistogramObserver>> hists;
  // The runtime's fast paths when the float graph compiles for them (it always should);
  // the reference evaluation otherwise — slower, same values up to float rounding.
  auto fast = CompiledEvaluator::create(g);
  auto run = [&](const std::vector<kernels::OwnedTensor>& in, const ValueObserver& obs) {
    return fast.ok() ? (*fast)->run(in, obs) : evaluate(g, in, obs);
  };
  for (std::size_t pass = 0; pass < passes; ++pass) {
    for (std::size_t b = 0; b < data.batches.size(); ++b) {
      auto feed = [&](ValueId v, const model::TensorView& t) {
        if (!floats.count(v)) return;
        const float* x = t.as<const float>();
        const auto n = static_cast<std::size_t>(t.elements());
        if (pass == 0) {
          ranges[v].add(x, n);
        } else if (auto it = hists.find(v); it != hists.end()) {
          it->second->add(x, n);
        }
      };
      for (std::size_t i = 0; i < g.inputs.size(); ++i) feed(g.inputs[i], data.batches[b][i].view());
      auto r = run(data.batches[b], feed);
      if (!r.ok()) {
        return Error(r.status().code(), "calibration batch {}: {}", b + 1, r.status().message());
      }
      if (options.progress) options.progress(pass * data.batches.size() + b + 1, total);
    }
    if (pass == 0 && histograms) {
      for (auto& [v, range] : ranges) {
        if (!range.empty()) hists[v] = std::make_unique<HistogramObserver>(range.min(), range.max());
      }
    }
  }
  std::map<ValueId, Encoding> enc;
  CalibrationOptions whole_range = options.calibration;
  whole_range.method = Method::kMinMax;
  for (auto& [v, range] : ranges) {
    if (range.empty()) continue;
    auto it = hists.find(v);
    // The model's outputs are never clipped: clipping saturates the largest scores, the
    // ones that decide a classifier's answer (entropy calibration cost the Fashion-MNIST
    // LeNet 5 points that way).
    const CalibrationOptions& how = g.is_graph_output(v) ? whole_range : options.calibration;
    auto e = choose_encoding(range, it == hists.end() ? nullptr : it->second.get(), how);
    if (!e.ok()) return Error(e.status().code(), "value \"{}\": {}", g.value(v).name, e.status().message());
    enc[v] = *e;
    // A scale calibration_param.txt can carry exactly (a float reciprocal), so that a
    // compile repeated with --gfpq_param_file gives this model bit for bit.
    enc[v].scale = representable_scale(enc[v].scale);
  }
  // --gfpq_param_file: the listed layers' inputs take the file's encodings (before the
  // rules below, which then treat them like calibrated ones).
  std::map<NodeId, const std::vector<float>*> fixed_weights;
  if (options.external != nullptr) {
    for (const auto& [v, e] : options.external->encodings) enc[v] = e;
    for (const auto& [id, scales] : options.external->weight_scales) fixed_weights[id] = &scales;
    report.external_values = options.external->encodings.size();
  }
  // A Relu that is the only reader of its input gives that input its own encoding
  // (range [0, max]): the producer (Conv, Add, …) then saturates negatives to the zero
  // point, which is exactly what the Relu would do, so the runtime fuses the pair (its
  // integer Conv + Relu and Add + Relu need equal encodings) and no level is spent on
  // values the Relu discards — what the hardware's fused ReLU does.
  // The same for a Clip(0, hi) (ReLU6) whose output encoding ends at or below hi: with
  // the shared encoding the producer's saturation already clips above, so in int8 the Clip
  // is exactly a Relu (max(q, zp)), and becomes one below once the types are known.
  std::vector<NodeId> relu_like_clips;
  for (NodeId id : order) {
    const Node& n = g.node(id);
    if ((n.op != "Relu" && n.op != "Clip") || float_node(g, id) || n.inputs.empty() || !enc.count(n.outputs[0]) ||
        !enc.count(n.inputs[0])) {
      continue;
    }
    const ValueId x = n.inputs[0];
    if (g.value(x).producer < 0 || g.consumers(x).size() != 1 || g.is_graph_output(x)) continue;
    if (n.op == "Clip") {
      float lo = 0, hi = 0;
      const Encoding& e = enc[n.outputs[0]];
      if (!passes::clip_range(g, n, &lo, &hi) || lo != 0.0f || e.hi > hi || e.lo > 0.0f) continue;
      relu_like_clips.push_back(id);
    }
    enc[x] = enc[n.outputs[0]];
  }
  for (NodeId id : order) {
    const Node& n = g.node(id);
    if (!passes_encoding(n.op) || float_node(g, id) || n.inputs.empty() || !enc.count(n.inputs[0])) continue;
    for (ValueId o : n.outputs) {
      if (enc.count(o)) enc[o] = enc[n.inputs[0]];
    }
  }

  // Which values become int8: produced by a node that can write int8, read by no node
  // that needs float.
  std::set<ValueId> boundary_in;  // float values quantized by an inserted QuantizeLinear
  std::set<ValueId> quantized;
  for (ValueId v : floats) {
    if (!enc.count(v)) continue;
    bool float_reader = false;
    for (NodeId c : g.consumers(v)) float_reader = float_reader || float_node(g, c);
    const Value& val = g.value(v);
    const bool float_producer = val.producer < 0 || float_node(g, val.producer);
    if (float_producer) {
      boundary_in.insert(v);
    } else if (!float_reader) {
      quantized.insert(v);
    }
  }
  for (ValueId v : quantized) {
    Value& val = g.value(v);
    val.dtype = dtype_of(enc[v]);
    val.quant = quant_of(enc[v]);
    ++report.activations;
  }
  for (NodeId id : relu_like_clips) {
    Node& n = g.node(id);
    if (!quantized.count(n.inputs[0]) || !quantized.count(n.outputs[0])) continue;
    n.op = "Relu";
    n.attrs = model::Attrs{};
    n.inputs.resize(1);
    ++report.clips_as_relu;
  }
  // Float values entering the quantized part: a QuantizeLinear in front of their readers.
  for (ValueId v : boundary_in) {
    std::vector<NodeId> readers;
    for (NodeId c : g.consumers(v)) {
      if (!float_node(g, c)) readers.push_back(c);
    }
    if (readers.empty()) continue;
    Value q;
    q.name = g.unique_name(g.value(v).name + "_int8");
    q.dtype = dtype_of(enc[v]);
    q.shape = g.value(v).shape;
    q.quant = quant_of(enc[v]);
    const ValueId qid = g.add_value(std::move(q));
    for (NodeId c : readers) {
      for (ValueId& in : g.node(c).inputs) {
        if (in == v) in = qid;
      }
    }
    add_boundary(g, "QuantizeLinear", v, qid, enc[v]);
    ++report.boundaries;
  }
  // Quantized values read by float-only ops, or leaving the model: a DequantizeLinear.
  for (ValueId v : quantized) {
    std::vector<NodeId> readers;
    for (NodeId c : g.consumers(v)) {
      if (float_node(g, c)) readers.push_back(c);
    }
    const bool output = g.is_graph_output(v);
    if (readers.empty() && !output) continue;
    Value f;
    f.dtype = DType::kFloat32;
    f.shape = g.value(v).shape;
    if (output) {
      // The application's output keeps the ONNX name.
      f.name = g.value(v).name;
      g.value(v).name = g.unique_name(f.name + "_int8");
    } else {
      f.name = g.unique_name(g.value(v).name + "_float");
    }
    const ValueId fid = g.add_value(std::move(f));
    for (NodeId c : readers) {
      for (ValueId& in : g.node(c).inputs) {
        if (in == v) in = fid;
      }
    }
    for (ValueId& o : g.outputs) {
      if (o == v) o = fid;
    }
    add_boundary(g, "DequantizeLinear", v, fid, enc[v]);
    ++report.boundaries;
  }
  // Weights.
  for (NodeId id : order) {
    if (float_node(g, id)) {
      report.float_layers += g.node(id).op != "Cast";
      continue;
    }
    Node& n = g.node(id);
    std::int32_t axis = -2;  // -2: not a weight input
    if (n.op == "Conv") axis = options.conv_per_channel ? 0 : -1;
    if (n.op == "ConvTranspose") axis = -1;
    if (n.op == "MatMul" && n.inputs.size() == 2 && is_float_constant(g, n.inputs[1])) {
      axis = options.matmul_per_channel ? static_cast<std::int32_t>(g.value(n.inputs[1]).shape.size()) - 1 : -1;
    }
    if (n.op == "Gemm") {
      auto tb = n.attrs.get_int("transB", 0);
      axis = options.matmul_per_channel ? (tb.ok() && *tb != 0 ? 0 : 1) : -1;
    }
    const auto fixed = fixed_weights.find(id);
    if (axis == -2 || n.inputs.size() < 2 || !is_float_constant(g, n.inputs[1])) {
      if (fixed != fixed_weights.end()) {
        return Error(err::kInvalidParam,
                     "--gfpq_param_file gives weight scales for {}, which has no int8 weight; remove its weight block",
                     g.describe(id));
      }
      continue;
    }
    const std::vector<float>* scales = nullptr;
    if (fixed != fixed_weights.end()) {
      scales = fixed->second;
      const auto& shape = g.value(n.inputs[1]).shape;
      const bool per_channel_ok = axis >= 0 && static_cast<std::size_t>(axis) < shape.size() &&
                                  static_cast<std::size_t>(shape[static_cast<std::size_t>(axis)]) == scales->size();
      if (scales->size() == 1) {
        axis = -1;
      } else if (!per_channel_ok) {
        return Error(err::kInvalidParam,
                     "--gfpq_param_file gives {} weight scales for {}; give 1{}", scales->size(), g.describe(id),
                     axis >= 0 && static_cast<std::size_t>(axis) < shape.size()
                         ? fmt::format(" or {} (one per output channel)", shape[static_cast<std::size_t>(axis)])
                         : std::string(" (this op's int8 weights are per tensor)"));
      }
    }
    n.inputs[1] = quantize_weight(g, n.inputs[1], axis, scales);
    ++report.weights;
  }
  SVP_RETURN_IF_ERROR(g.topo_sort());
  return report;
}

}  // namespace svp::compiler::quant
