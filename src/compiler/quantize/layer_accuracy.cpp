#include "compiler/quantize/layer_accuracy.h"

#include <algorithm>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "common/layer_chart_html.h"
#include "compiler/quantize/evaluate.h"
#include "kernels/common.h"
#include "kernels/invoke.h"

namespace svp::compiler::quant {
namespace {

using model::DType;

bool integer_quantized(const model::TensorView& t) {
  return t.quant != nullptr && !t.quant->empty() &&
         (t.dtype == DType::kInt8 || t.dtype == DType::kUint8 || t.dtype == DType::kInt16);
}

// A value as doubles: float32 as is, quantized integers dequantized (per tensor), other
// types empty.
std::vector<double> as_real(const model::TensorView& t) {
  const auto n = static_cast<std::size_t>(t.elements());
  std::vector<float> f(n);
  if (t.dtype == DType::kFloat32) {
    std::memcpy(f.data(), t.data, n * sizeof(float));
  } else if (integer_quantized(t) && t.quant->scale.size() == 1) {
    const float s = t.quant->scale[0];
    const std::int32_t zp = t.quant->zero_point.empty() ? 0 : t.quant->zero_point[0];
    const auto count = static_cast<std::int64_t>(n);
    if (t.dtype == DType::kInt8) kernels::detail::dequantize_per_tensor(t.as<const std::int8_t>(), count, zp, s, f.data());
    if (t.dtype == DType::kUint8) kernels::detail::dequantize_per_tensor(t.as<const std::uint8_t>(), count, zp, s, f.data());
    if (t.dtype == DType::kInt16) kernels::detail::dequantize_per_tensor(t.as<const std::int16_t>(), count, zp, s, f.data());
  } else {
    return {};
  }
  return std::vector<double>(f.begin(), f.end());
}

// `x` (float) stored as the quantized value `like` describes.
kernels::OwnedTensor quantize_like(const std::vector<float>& x, const std::vector<std::int64_t>& dims, const Value& like) {
  kernels::OwnedTensor t(like.dtype, dims);
  t.set_quant(like.quant);
  const float s = like.quant.scale[0];
  const std::int32_t zp = like.quant.zero_point.empty() ? 0 : like.quant.zero_point[0];
  const auto n = static_cast<std::int64_t>(x.size());
  if (like.dtype == DType::kInt8) kernels::detail::quantize_per_tensor(x.data(), n, s, zp, t.data<std::int8_t>());
  if (like.dtype == DType::kUint8) kernels::detail::quantize_per_tensor(x.data(), n, s, zp, t.data<std::uint8_t>());
  if (like.dtype == DType::kInt16) kernels::detail::quantize_per_tensor(x.data(), n, s, zp, t.data<std::int16_t>());
  return t;
}

// A quantized value whose only reader is a Relu: its encoding is the Relu's range
// (quantize.h, rule 4), so the producer saturates below 0 or, in int16 (symmetric over
// that range), below -max — what the Relu makes irrelevant. Only its non-negative part
// matters to the model.
bool read_only_by_relu(const Graph& g, ValueId v) {
  const std::vector<NodeId> readers = g.consumers(v);
  return !g.value(v).quant.empty() && readers.size() == 1 && g.node(readers[0]).op == "Relu";
}

// The [0, max] encoding (uint8, zero point 0): the layer saturates below 0 itself.
bool relu_range(const Value& v) {
  return v.dtype == DType::kUint8 && !v.quant.zero_point.empty() && v.quant.zero_point[0] == 0;
}

}  // namespace

Result<std::vector<LayerAccuracy>> analyse_layers(const Graph& float_graph, const Graph& quantized,
                                                  const CalibrationSet& data, std::size_t max_batches,
                                                  const std::function<void(std::size_t, std::size_t)>& progress) {
  const std::vector<NodeId> order = quantized.live_nodes();
  // Metrics are accumulated batch by batch and the quantized graph's values compared as
  // they are produced, so memory holds one batch's float values and no more, however many
  // inputs are analysed.
  std::map<NodeId, compare::MetricsAccumulator> single, entire;
  std::map<ValueId, NodeId> analysed_output;  // a quantized layer's first output → the layer
  for (NodeId id : order) {
    if (static_cast<std::size_t>(id) >= float_graph.node_count() || float_graph.node(id).dead) continue;
    if (quantized.node(id).outputs.empty() || float_graph.node(id).outputs.empty()) continue;
    analysed_output[quantized.node(id).outputs[0]] = id;
  }
  // Both sides clamped at 0 where the output's encoding or its only reader is a Relu's range.
  const auto add = [](compare::MetricsAccumulator& acc, const std::vector<float>& golden, const std::vector<double>& actual,
                      bool clamp) {
    for (std::size_t i = 0; i < golden.size(); ++i) {
      acc.Add(clamp ? std::max(0.0, static_cast<double>(golden[i])) : golden[i], clamp ? std::max(0.0, actual[i]) : actual[i]);
    }
  };
  // The runtime's kernels when both graphs compile for them (the quantized graph's integer
  // arithmetic is the software NPU's either way); the reference evaluation otherwise.
  auto fast_float = CompiledEvaluator::create(float_graph);
  auto fast_quantized = CompiledEvaluator::create(quantized);
  const auto run = [](Result<std::unique_ptr<CompiledEvaluator>>& fast, const Graph& g,
                      const std::vector<kernels::OwnedTensor>& inputs, const ValueObserver& observe) {
    return fast.ok() ? (*fast)->run(inputs, observe) : evaluate(g, inputs, observe);
  };
  const std::size_t batches = std::min(max_batches == 0 ? data.batches.size() : max_batches, data.batches.size());
  for (std::size_t b = 0; b < batches; ++b) {
    // The float graph's values (graph inputs and every node output).
    std::map<ValueId, std::vector<float>> golden;
    std::map<ValueId, std::vector<std::int64_t>> dims;
    for (std::size_t i = 0; i < float_graph.inputs.size() && i < data.batches[b].size(); ++i) {
      const model::TensorView& t = data.batches[b][i].view();
      if (t.dtype != DType::kFloat32) continue;
      golden[float_graph.inputs[i]].assign(t.as<const float>(), t.as<const float>() + t.elements());
      dims[float_graph.inputs[i]] = t.dims;
    }
    auto ran = run(fast_float, float_graph, data.batches[b], [&](ValueId v, const model::TensorView& t) {
      if (t.dtype != DType::kFloat32) return;
      golden[v].assign(t.as<const float>(), t.as<const float>() + t.elements());
      dims[v] = t.dims;
    });
    if (!ran.ok()) return Error(ran.status().code(), "accuracy analysis, float graph: {}", ran.status().message());
    // Entire: the quantized graph whole, each analysed output compared when produced.
    auto qran = run(fast_quantized, quantized, data.batches[b], [&](ValueId v, const model::TensorView& t) {
      auto layer = analysed_output.find(v);
      if (layer == analysed_output.end()) return;
      auto g = golden.find(float_graph.node(layer->second).outputs[0]);
      if (g == golden.end()) return;
      const std::vector<double> a = as_real(t);
      if (a.size() != g->second.size()) return;
      add(entire[layer->second], g->second, a, relu_range(quantized.value(v)) || read_only_by_relu(quantized, v));
    });
    if (!qran.ok()) return Error(qran.status().code(), "accuracy analysis, quantized graph: {}", qran.status().message());
    for (NodeId id : order) {
      if (static_cast<std::size_t>(id) >= float_graph.node_count() || float_graph.node(id).dead) continue;
      const Node& nq = quantized.node(id);
      const Node& nf = float_graph.node(id);
      if (nq.outputs.empty() || nf.outputs.empty()) continue;
      auto g = golden.find(nf.outputs[0]);
      if (g == golden.end()) continue;
      const bool clamp = relu_range(quantized.value(nq.outputs[0])) || read_only_by_relu(quantized, nq.outputs[0]);
      // Single: the float inputs, quantized as this layer reads them.
      bool reads_quantized = false;
      std::vector<kernels::OwnedTensor> owned;
      std::vector<model::TensorView> in;
      owned.reserve(nq.inputs.size());
      bool ok = nq.inputs.size() == nf.inputs.size();
      for (std::size_t k = 0; ok && k < nq.inputs.size(); ++k) {
        const ValueId vq = nq.inputs[k];
        if (vq == kNoValue) {
          in.emplace_back();
          continue;
        }
        const Value& q = quantized.value(vq);
        if (q.is_constant()) {
          in.push_back(q.view());
          continue;
        }
        auto src = golden.find(nf.inputs[k]);
        if (src == golden.end()) {
          ok = false;
          break;
        }
        if (q.dtype == DType::kFloat32) {
          owned.push_back(kernels::OwnedTensor::f32(dims[nf.inputs[k]], src->second));
        } else if ((q.dtype == DType::kInt8 || q.dtype == DType::kUint8 || q.dtype == DType::kInt16) &&
                   q.quant.scale.size() == 1) {
          owned.push_back(quantize_like(src->second, dims[nf.inputs[k]], q));
          reads_quantized = true;
        } else {
          ok = false;
          break;
        }
        in.push_back(owned.back().view());
      }
      const Value& out0 = quantized.value(nq.outputs[0]);
      const bool writes_quantized = !out0.quant.empty();
      if (!ok || !(reads_quantized || writes_quantized)) continue;
      std::vector<kernels::OutputSpec> specs;
      for (ValueId o : nq.outputs) {
        const Value& v = quantized.value(o);
        specs.push_back({v.dtype, v.quant.empty() ? std::nullopt : std::optional<model::Quant>(v.quant)});
      }
      auto r = kernels::run_reference_owned(nq.op, nq.attrs, in, specs);
      if (!r.ok()) return Error(r.status().code(), "accuracy analysis, {} alone: {}", quantized.describe(id), r.status().message());
      const std::vector<double> y = as_real((*r)[0].view());
      if (y.size() != g->second.size()) continue;
      add(single[id], g->second, y, clamp);
    }
    if (progress) progress(b + 1, batches);
  }
  std::vector<LayerAccuracy> out;
  std::size_t position = 0;
  for (NodeId id : order) {
    if (static_cast<std::size_t>(id) >= float_graph.node_count() || float_graph.node(id).dead) continue;
    auto e = entire.find(id);
    if (e == entire.end()) continue;
    LayerAccuracy l;
    l.order = position++;
    l.node = id;
    const Node& n = quantized.node(id);
    l.name = n.origin.onnx_name.empty() ? n.name : n.origin.onnx_name;
    l.op = n.op;
    l.entire = e->second.Result();
    if (auto s = single.find(id); s != single.end()) {
      l.quantized = true;
      l.single = s->second.Result();
    }
    out.push_back(std::move(l));
  }
  return out;
}

namespace {

// Worst single cosine first; layers without a single figure (float) last, by entire.
std::vector<std::size_t> worst_first(const std::vector<LayerAccuracy>& layers) {
  std::vector<std::size_t> order(layers.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    const LayerAccuracy &a = layers[x], &b = layers[y];
    if (a.quantized != b.quantized) return a.quantized;
    return a.quantized ? a.single.cosine < b.single.cosine : a.entire.cosine < b.entire.cosine;
  });
  return order;
}

}  // namespace

std::string layer_accuracy_csv(const std::vector<LayerAccuracy>& layers) {
  std::vector<const LayerAccuracy*> rows;
  for (std::size_t i : worst_first(layers)) rows.push_back(&layers[i]);
  std::string csv =
      "order,layer,op,single_cosine,single_relative_distance,single_max_abs_error,single_kl,entire_cosine,"
      "entire_relative_distance,entire_max_abs_error,entire_kl\n";
  auto quote = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  for (const LayerAccuracy* l : rows) {
    const std::string single =
        l->quantized ? fmt::format("{:.6f},{:.6g},{:.6g},{:.6g}", l->single.cosine, l->single.relative_distance,
                                   l->single.max_abs_error, l->single.kl_divergence)
                     : std::string(",,,");
    csv += fmt::format("{},{},{},{},{:.6f},{:.6g},{:.6g},{:.6g}\n", l->order, quote(l->name), l->op, single,
                       l->entire.cosine, l->entire.relative_distance, l->entire.max_abs_error, l->entire.kl_divergence);
  }
  return csv;
}

std::string layer_accuracy_html(const std::vector<LayerAccuracy>& layers, const std::string& model, double threshold) {
  using report::format_metric;
  report::LayerChartPage page;
  page.title = "svp_atc: per-layer accuracy";
  page.threshold = threshold;
  const std::vector<std::string> summary = layer_accuracy_summary(layers, threshold);
  page.meta_html = "model <code>" + report::html_escape(model) + "</code>; the quantized graph against the float "
                   "graph on the calibration data. <b>single</b>: the layer alone on float inputs (its own loss); "
                   "<b>entire</b>: the quantized graph run whole (errors accumulate). Threshold " +
                   format_metric(threshold) + ".<br>";
  for (const std::string& line : summary) page.meta_html += report::html_escape(line) + "<br>";
  page.series = {"single", "entire"};
  page.columns = {"#",           "layer",      "op",          "single cosine", "single rel. distance",
                  "single max abs", "single KL", "entire cosine", "entire rel. distance", "entire max abs",
                  "entire KL"};
  page.name_columns = {1, 2};
  for (const LayerAccuracy& l : layers) {
    auto single = [&](double v) { return l.quantized ? format_metric(v) : std::string(); };
    page.rows.push_back({l.name,
                         {l.quantized ? std::optional<double>(l.single.cosine) : std::nullopt, l.entire.cosine},
                         {std::to_string(l.order + 1), l.name, l.op, single(l.single.cosine),
                          single(l.single.relative_distance), single(l.single.max_abs_error),
                          single(l.single.kl_divergence), format_metric(l.entire.cosine),
                          format_metric(l.entire.relative_distance), format_metric(l.entire.max_abs_error),
                          format_metric(l.entire.kl_divergence)}});
  }
  page.table_order = worst_first(layers);
  return report::render_layer_chart_page(page);
}

std::vector<std::string> layer_accuracy_summary(const std::vector<LayerAccuracy>& layers, double threshold) {
  const LayerAccuracy *first_single = nullptr, *first_entire = nullptr, *worst = nullptr;
  for (const LayerAccuracy& l : layers) {
    if (l.quantized && first_single == nullptr && l.single.cosine < threshold) first_single = &l;
    if (first_entire == nullptr && l.entire.cosine < threshold) first_entire = &l;
    if (l.quantized && (worst == nullptr || l.single.cosine < worst->single.cosine)) worst = &l;
  }
  std::vector<std::string> out;
  out.push_back(fmt::format("accuracy: {} layers analysed; first below cosine {} alone (single): {}; "
                            "in the quantized chain (entire): {}",
                            layers.size(), threshold,
                            first_single ? fmt::format("\"{}\" ({}) {:.4f}", first_single->name, first_single->op,
                                                       first_single->single.cosine)
                                         : std::string("none"),
                            first_entire ? fmt::format("\"{}\" ({}) {:.4f}", first_entire->name, first_entire->op,
                                                       first_entire->entire.cosine)
                                         : std::string("none")));
  if (worst != nullptr) {
    out.push_back(fmt::format("accuracy: worst layer alone: \"{}\" ({}) cosine {:.4f}", worst->name, worst->op,
                              worst->single.cosine));
  }
  return out;
}

}  // namespace svp::compiler::quant
