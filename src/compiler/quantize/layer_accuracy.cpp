#include "compiler/quantize/layer_accuracy.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "common/layer_chart_html.h"
#include "compiler/quantize/evaluate.h"
#include "compiler/quantize/real_values.h"
#include "compiler/quantize/single_layer.h"

namespace svp::compiler::quant {
namespace {

using model::DType;

// A quantized value whose only reader is a Relu: its encoding is the Relu's range
// (quantize.h, rule 4), so the producer saturates below 0 or, in int16 (symmetric over
// that range), below -max — what the Relu makes irrelevant. Only its non-negative part
// matters to the model.
bool read_only_by_relu(const Graph& g, ValueId v) {
  const std::vector<NodeId> readers = g.consumers(v);
  return !g.value(v).quant.empty() && readers.size() == 1 && g.node(readers[0]).op == "Relu";
}

// Compared clamped at 0: the [0, max] encoding (uint8, zero point 0: the layer saturates
// below 0 itself), or a value only a Relu reads.
bool clamped(const Graph& g, ValueId v) {
  const Value& x = g.value(v);
  const bool relu_range = x.dtype == DType::kUint8 && !x.quant.zero_point.empty() && x.quant.zero_point[0] == 0;
  return relu_range || read_only_by_relu(g, v);
}

// Mismatched sizes (a layer whose float and quantized outputs differ in shape) are left out.
void add(compare::MetricsAccumulator& acc, Floats golden, Floats actual, bool clamp) {
  if (golden.size == actual.size) acc.Add(golden.data, actual.data, golden.size, clamp);
}

Floats floats_in(const std::vector<float>& v) { return {v.data(), v.size()}; }

// `t` (float32) into `to`, whose capacity is reused from the previous input: no page faults
// for the float graph's values after the first input.
void keep_floats(const model::TensorView& t, std::vector<float>* to) {
  to->assign(t.as<const float>(), t.as<const float>() + t.elements());
}

// A graph run on the runtime's compiled program when it builds, on the reference
// evaluation otherwise (the quantized graph's integer arithmetic is the software NPU's
// either way).
class Runner {
 public:
  Runner(const Graph& g, CompiledEvaluator::Mode mode) : g_(g) {
    auto fast = CompiledEvaluator::create(g, mode);
    if (fast.ok()) fast_ = std::move(*fast);
    else compiled_ = fast.status();
  }
  Result<std::vector<kernels::OwnedTensor>> run(const std::vector<kernels::OwnedTensor>& inputs,
                                                const ValueObserver& observe = {}) const {
    return fast_ ? fast_->run(inputs, observe) : evaluate(g_, inputs, observe);
  }
  const Status& compiled() const { return compiled_; }

 private:
  const Graph& g_;
  std::unique_ptr<CompiledEvaluator> fast_;
  Status compiled_ = Status::Ok();
};

// The float graph's values for one input: graph inputs, every node output, the outputs.
// Refilled in place for each input (the same values every time).
struct Golden {
  std::map<ValueId, std::vector<float>> values;
  std::map<ValueId, std::vector<std::int64_t>> dims;
  std::vector<kernels::OwnedTensor> outputs;
};

// One analysis, fed input by input. Memory: one input's float values, one accumulator per
// layer and output and the compiled programs, whatever the number of inputs.
class Analysis {
 public:
  Analysis(const Graph& float_graph, const Graph& quantized, bool model_outputs)
      : f_(float_graph), q_(quantized), order_(quantized.live_nodes()),
        float_(float_graph, CompiledEvaluator::Mode::kObservable),
        quantized_(quantized, CompiledEvaluator::Mode::kObservable) {
    for (NodeId id : order_) {
      if (shared(id)) analysed_output_[q_.node(id).outputs[0]] = id;
    }
    if (model_outputs) {
      executed_ = std::make_unique<Runner>(quantized, CompiledEvaluator::Mode::kAsExecuted);
      outputs_.resize(std::min(f_.outputs.size(), q_.outputs.size()));
      for (std::size_t k = 0; k < outputs_.size(); ++k) outputs_[k].name = f_.value(f_.outputs[k]).name;
    }
  }

  Status add_input(const std::vector<kernels::OwnedTensor>& inputs) {
    const Status golden = float_values(inputs);
    if (!golden.ok()) return Error(golden.code(), "accuracy analysis, float graph: {}", golden.message());
    SVP_RETURN_IF_ERROR(entire_and_single(inputs));
    if (executed_) SVP_RETURN_IF_ERROR(model_outputs(inputs));
    return Status::Ok();
  }

  std::vector<LayerAccuracy> layers() const;
  std::vector<OutputAccuracy> outputs() const;
  // Empty when the model outputs were computed by the runtime's program; else why not.
  std::string executed_note() const {
    return executed_ && !executed_->compiled().ok() ? executed_->compiled().message() : std::string();
  }

 private:
  // A layer in both graphs, with an output on each side.
  bool shared(NodeId id) const {
    if (static_cast<std::size_t>(id) >= f_.node_count() || f_.node(id).dead) return false;
    return !q_.node(id).outputs.empty() && !f_.node(id).outputs.empty();
  }
  Status float_values(const std::vector<kernels::OwnedTensor>& inputs);
  Status entire_and_single(const std::vector<kernels::OwnedTensor>& inputs);
  Status compare_layer(NodeId id, Floats golden, Floats entire, bool clamp);
  Result<bool> single(NodeId id);
  Status model_outputs(const std::vector<kernels::OwnedTensor>& inputs);

  const Graph& f_;
  const Graph& q_;
  const std::vector<NodeId> order_;
  Runner float_, quantized_;
  std::unique_ptr<Runner> executed_;  // the model outputs as executed (analyse_accuracy)
  std::map<ValueId, NodeId> analysed_output_;  // a layer's first output in `q_` → the layer
  std::map<NodeId, compare::MetricsAccumulator> single_, entire_;
  std::map<NodeId, std::unique_ptr<SingleLayer>> alone_;  // compiled at the first input
  std::vector<kernels::OwnedTensor> alone_out_;           // the last single run's outputs
  std::vector<OutputAccuracy> outputs_;
  std::vector<compare::MetricsAccumulator> executed_acc_, sensitivity_acc_;
  Golden golden_;                          // the current input's float values
  std::vector<float> scratch_, scratch2_;  // dequantized values, reused
};

Status Analysis::float_values(const std::vector<kernels::OwnedTensor>& inputs) {
  Golden& g = golden_;
  for (std::size_t i = 0; i < f_.inputs.size() && i < inputs.size(); ++i) {
    const model::TensorView& t = inputs[i].view();
    if (t.dtype != DType::kFloat32) continue;
    keep_floats(t, &g.values[f_.inputs[i]]);
    g.dims[f_.inputs[i]] = t.dims;
  }
  auto ran = float_.run(inputs, [&](ValueId v, const model::TensorView& t) {
    if (t.dtype != DType::kFloat32) return;
    keep_floats(t, &g.values[v]);
    g.dims[v] = t.dims;
  });
  if (!ran.ok()) return ran.status();
  g.outputs = std::move(*ran);
  return Status::Ok();
}

// Entire: the quantized graph whole, each analysed output compared when produced — and
// then single, the layer alone, so that both comparisons share the float side's work
// (MetricsAccumulator::AddBoth). Layers the quantized run does not show are not reported,
// so their single view is not computed.
Status Analysis::entire_and_single(const std::vector<kernels::OwnedTensor>& inputs) {
  Status failed = Status::Ok();
  auto ran = quantized_.run(inputs, [&](ValueId v, const model::TensorView& t) {
    auto layer = analysed_output_.find(v);
    if (layer == analysed_output_.end() || !failed.ok()) return;
    auto g = golden_.values.find(f_.node(layer->second).outputs[0]);
    if (g == golden_.values.end()) return;
    failed = compare_layer(layer->second, floats_in(g->second), real_values(t, &scratch_), clamped(q_, v));
  });
  if (!ran.ok()) return Error(ran.status().code(), "accuracy analysis, quantized graph: {}", ran.status().message());
  return failed;
}

// Layer `id`'s output in the whole quantized run (`entire`) and alone against the float
// graph's (`golden`); mismatched sizes are left out (add()).
Status Analysis::compare_layer(NodeId id, Floats golden, Floats entire, bool clamp) {
  compare::MetricsAccumulator& e = entire_[id];
  auto alone = single(id);
  if (!alone.ok()) return alone.status();
  if (!*alone) {
    add(e, golden, entire, clamp);
    return Status::Ok();
  }
  compare::MetricsAccumulator& s = single_[id];
  const Floats out = real_values(alone_out_[0].view(), &scratch2_);
  if (golden.size == entire.size && golden.size == out.size) {
    compare::MetricsAccumulator::AddBoth(e, entire.data, s, out.data, golden.data, golden.size, clamp);
  } else {
    add(e, golden, entire, clamp);
    add(s, golden, out, clamp);
  }
  return Status::Ok();
}

// Single: the layer alone on the float inputs, quantized as this layer reads them, its
// outputs in alone_out_; false for the layers left out: those that neither read nor write
// quantized values.
Result<bool> Analysis::single(NodeId id) {
  const Golden& golden = golden_;
  if (!shared(id)) return false;
  const Node& nq = q_.node(id);
  const Node& nf = f_.node(id);
  auto g = golden.values.find(nf.outputs[0]);
  if (g == golden.values.end() || nq.inputs.size() != nf.inputs.size()) return false;
  bool reads_quantized = false;
  std::vector<kernels::OwnedTensor> in;  // the layer's graph inputs (SingleLayer's order)
  std::set<ValueId> seen;
  for (std::size_t k = 0; k < nq.inputs.size(); ++k) {
    const ValueId vq = nq.inputs[k];
    if (vq == kNoValue || q_.value(vq).is_constant() || !seen.insert(vq).second) continue;
    const Value& q = q_.value(vq);
    auto src = golden.values.find(nf.inputs[k]);
    if (src == golden.values.end()) return false;
    const std::vector<std::int64_t>& dims = golden.dims.at(nf.inputs[k]);
    if (q.dtype == DType::kFloat32) {
      in.push_back(kernels::OwnedTensor::f32(dims, src->second));
    } else if ((q.dtype == DType::kInt8 || q.dtype == DType::kUint8 || q.dtype == DType::kInt16) &&
               q.quant.scale.size() == 1) {
      in.push_back(quantize_like(src->second, dims, q));
      reads_quantized = true;
    } else {
      return false;
    }
  }
  if (!reads_quantized && q_.value(nq.outputs[0]).quant.empty()) return false;
  std::unique_ptr<SingleLayer>& layer = alone_[id];
  if (!layer) layer = std::make_unique<SingleLayer>(q_, id);
  auto r = layer->run(in);
  if (!r.ok()) return Error(r.status().code(), "accuracy analysis, {} alone: {}", q_.describe(id), r.status().message());
  alone_out_ = std::move(*r);
  return true;
}

// The model's outputs: the quantized model as executed, and the float model on the input
// rounded to the quantized model's input encoding, each against the float model.
Status Analysis::model_outputs(const std::vector<kernels::OwnedTensor>& inputs) {
  const Golden& golden = golden_;
  executed_acc_.resize(outputs_.size());
  sensitivity_acc_.resize(outputs_.size());
  const auto compare = [&](std::vector<compare::MetricsAccumulator>& acc, const std::vector<kernels::OwnedTensor>& got) {
    for (std::size_t k = 0; k < acc.size() && k < got.size() && k < golden.outputs.size(); ++k) {
      add(acc[k], real_values(golden.outputs[k].view(), &scratch_), real_values(got[k].view(), &scratch2_), false);
    }
  };
  auto executed = executed_->run(inputs);
  if (!executed.ok()) {
    return Error(executed.status().code(), "accuracy analysis, quantized model as executed: {}",
                 executed.status().message());
  }
  compare(executed_acc_, *executed);
  bool rounded = false;
  const std::vector<kernels::OwnedTensor> x = round_to_input_encodings(q_, inputs, &rounded);
  if (!rounded) return Status::Ok();
  auto moved = float_.run(x);
  if (!moved.ok()) return Error(moved.status().code(), "accuracy analysis, float graph on rounded inputs: {}",
                                moved.status().message());
  compare(sensitivity_acc_, *moved);
  return Status::Ok();
}

std::vector<LayerAccuracy> Analysis::layers() const {
  std::vector<LayerAccuracy> out;
  std::size_t position = 0;
  for (NodeId id : order_) {
    if (!shared(id)) continue;
    auto e = entire_.find(id);
    if (e == entire_.end()) continue;
    LayerAccuracy l;
    l.order = position++;
    l.node = id;
    const Node& n = q_.node(id);
    l.name = n.origin.onnx_name.empty() ? n.name : n.origin.onnx_name;
    l.op = n.op;
    l.entire = e->second.Result();
    if (auto s = single_.find(id); s != single_.end()) {
      l.quantized = true;
      l.single = s->second.Result();
    }
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<OutputAccuracy> Analysis::outputs() const {
  std::vector<OutputAccuracy> out = outputs_;
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (k < executed_acc_.size()) out[k].executed = executed_acc_[k].Result();
    if (k < sensitivity_acc_.size()) out[k].sensitivity = sensitivity_acc_[k].Result();
  }
  return out;
}

Result<AccuracyReport> analyse(const Graph& float_graph, const Graph& quantized, const CalibrationSet& data,
                               std::size_t max_batches, bool model_outputs,
                               const std::function<void(std::size_t, std::size_t)>& progress) {
  Analysis a(float_graph, quantized, model_outputs);
  const std::size_t batches = std::min(max_batches == 0 ? data.batches.size() : max_batches, data.batches.size());
  for (std::size_t b = 0; b < batches; ++b) {
    SVP_RETURN_IF_ERROR(a.add_input(data.batches[b]));
    if (progress) progress(b + 1, batches);
  }
  AccuracyReport r;
  r.layers = a.layers();
  r.outputs = a.outputs();
  r.executed_note = a.executed_note();
  return r;
}

}  // namespace

Result<std::vector<LayerAccuracy>> analyse_layers(const Graph& float_graph, const Graph& quantized,
                                                  const CalibrationSet& data, std::size_t max_batches,
                                                  const std::function<void(std::size_t, std::size_t)>& progress) {
  auto r = analyse(float_graph, quantized, data, max_batches, false, progress);
  if (!r.ok()) return r.status();
  return std::move(r->layers);
}

Result<AccuracyReport> analyse_accuracy(const Graph& float_graph, const Graph& quantized, const CalibrationSet& data,
                                        std::size_t max_batches,
                                        const std::function<void(std::size_t, std::size_t)>& progress) {
  return analyse(float_graph, quantized, data, max_batches, true, progress);
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
      "entire_relative_distance,entire_max_abs_error,entire_kl,single_euclidean,entire_euclidean\n";
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
    const std::string single_euc = l->quantized ? fmt::format("{:.6g}", l->single.euclidean_distance) : std::string();
    csv += fmt::format("{},{},{},{},{:.6f},{:.6g},{:.6g},{:.6g},{},{:.6g}\n", l->order, quote(l->name), l->op, single,
                       l->entire.cosine, l->entire.relative_distance, l->entire.max_abs_error, l->entire.kl_divergence,
                       single_euc, l->entire.euclidean_distance);
  }
  return csv;
}

std::string layer_accuracy_html(const std::vector<LayerAccuracy>& layers, const std::string& model, double threshold,
                                const std::vector<std::string>& extra_lines) {
  using report::format_metric;
  report::LayerChartPage page;
  page.title = "svp_atc: per-layer accuracy";
  page.threshold = threshold;
  std::vector<std::string> summary = layer_accuracy_summary(layers, threshold);
  summary.insert(summary.end(), extra_lines.begin(), extra_lines.end());
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
