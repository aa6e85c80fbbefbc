// A textbook int8 quantization of an ONNX model, written as a QDQ ONNX model for
// onnxruntime to run: the independent reference svp_atc's A8W8 is measured against
// (docs/quantization.md "Against a textbook quantizer"). It shares no code with the
// compiler: it reads and writes ONNX protobuf only, and onnxruntime does the arithmetic on
// fake-quantized float values.
//
// The algorithm (the one post-training quantization textbooks and onnxruntime's own
// quantize_static describe):
// - BatchNormalization after a Conv is folded into it first;
// - weights of Conv / ConvTranspose / Gemm / MatMul: per output channel, symmetric int8
//   (scale = max|w| / 127), replaced by their dequantized values; biases stay float;
// - activations: per tensor, asymmetric uint8 over the min-max range seen on the
//   calibration items (widened to hold 0), a QuantizeLinear/DequantizeLinear pair after the
//   producing node; a Conv/Gemm/Add whose only reader is Relu or Clip is not quantized
//   before it (fused activation); data-movement ops (Reshape, Transpose, MaxPool, nearest
//   Resize, Slice, ...) keep their input's encoding (no pair after them); graph inputs are
//   quantized like activations.
//
//   qdq_reference expose MODEL.onnx OUT.onnx        every float tensor becomes a graph output
//   qdq_reference build MODEL.onnx RANGES.json OUT.onnx [--float-outputs] [--keep NAME,...]
//   qdq_reference image PNG OUT.npy MEAN_0,1,2 SCALE_0,1,2 [bgr] [WxH]
//
// RANGES.json ({"tensor": [min, max], ...}) comes from qdq_ranges.mjs running the exposed
// model on the calibration items. `image` writes an RGB PNG as a normalised NCHW float32
// .npy ((v - mean) * scale per channel; bgr: channel 0 is blue; WxH: stretched bilinearly), the preprocessing of the OCR
// sample's AIPP (RGB888 with rbuv_swap_switch).
#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

namespace {

using Tensors = std::map<std::string, onnx::TensorProto*>;

std::vector<float> floats_of(const onnx::TensorProto& t) {
  if (t.data_type() != onnx::TensorProto::FLOAT) throw std::runtime_error(t.name() + ": not float");
  if (t.has_raw_data()) {
    std::vector<float> v(t.raw_data().size() / sizeof(float));
    std::copy_n(t.raw_data().data(), v.size() * sizeof(float), reinterpret_cast<char*>(v.data()));
    return v;
  }
  return {t.float_data().begin(), t.float_data().end()};
}

void set_floats(onnx::TensorProto* t, const std::vector<float>& v) {
  t->clear_float_data();
  t->set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)));
}

std::int64_t attr_int(const onnx::NodeProto& n, const std::string& name, std::int64_t dflt) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a.i();
  return dflt;
}

float attr_float(const onnx::NodeProto& n, const std::string& name, float dflt) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a.f();
  return dflt;
}

onnx::ModelProto load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  onnx::ModelProto m;
  if (!in || !m.ParseFromIstream(&in)) throw std::runtime_error(path + ": not an ONNX model");
  return m;
}

void save(const onnx::ModelProto& m, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !m.SerializeToOstream(&out)) throw std::runtime_error(path + ": cannot write");
}

Tensors initializers(onnx::GraphProto* g) {
  Tensors t;
  for (auto& i : *g->mutable_initializer()) t[i.name()] = &i;
  return t;
}

std::map<std::string, std::vector<int>> readers_of(const onnx::GraphProto& g) {
  std::map<std::string, std::vector<int>> r;
  for (int i = 0; i < g.node_size(); ++i)
    for (const auto& in : g.node(i).input()) r[in].push_back(i);
  return r;
}

// Conv -> BatchNormalization with the Conv's output read only by the BN: scale the Conv's
// weights and bias per output channel and drop the BN.
void fold_batch_norms(onnx::GraphProto* g) {
  Tensors init = initializers(g);
  auto readers = readers_of(*g);
  std::map<std::string, int> producer;
  for (int i = 0; i < g->node_size(); ++i)
    for (const auto& o : g->node(i).output()) producer[o] = i;
  std::set<int> dropped;
  for (int i = 0; i < g->node_size(); ++i) {
    const auto& bn = g->node(i);
    if (bn.op_type() != "BatchNormalization" || !producer.count(bn.input(0))) continue;
    auto* conv = g->mutable_node(producer[bn.input(0)]);
    if (conv->op_type() != "Conv" || readers[bn.input(0)].size() != 1 || !init.count(conv->input(1))) continue;
    bool params = true;
    for (int k = 1; k <= 4; ++k) params = params && init.count(bn.input(k));
    if (!params) continue;
    auto gamma = floats_of(*init[bn.input(1)]), beta = floats_of(*init[bn.input(2)]);
    auto mean = floats_of(*init[bn.input(3)]), var = floats_of(*init[bn.input(4)]);
    const float eps = attr_float(bn, "epsilon", 1e-5f);
    auto* wt = init[conv->input(1)];
    auto w = floats_of(*wt);
    const std::size_t oc = gamma.size(), per = w.size() / oc;
    std::vector<float> bias(oc, 0.0f);
    if (conv->input_size() > 2 && init.count(conv->input(2))) bias = floats_of(*init[conv->input(2)]);
    for (std::size_t c = 0; c < oc; ++c) {
      const float s = gamma[c] / std::sqrt(var[c] + eps);
      for (std::size_t k = 0; k < per; ++k) w[c * per + k] *= s;
      bias[c] = (bias[c] - mean[c]) * s + beta[c];
    }
    set_floats(wt, w);
    auto* b = g->add_initializer();
    b->set_name(conv->name() + "_folded_bias");
    b->set_data_type(onnx::TensorProto::FLOAT);
    b->add_dims(static_cast<std::int64_t>(oc));
    set_floats(b, bias);
    if (conv->input_size() > 2) conv->set_input(2, b->name());
    else conv->add_input(b->name());
    conv->set_output(0, bn.output(0));
    dropped.insert(i);
    init = initializers(g);  // add_initializer may move the repeated field's elements
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (int i = 0; i < g->node_size(); ++i)
    if (!dropped.count(i)) *kept.Add() = g->node(i);
  g->mutable_node()->Swap(&kept);
}

// Per output channel symmetric int8, replaced by the dequantized values. `axis` is the
// output-channel axis of the weight's layout.
void fake_quantize_weight(onnx::TensorProto* t, int axis) {
  auto w = floats_of(*t);
  std::vector<std::int64_t> dims(t->dims().begin(), t->dims().end());
  if (dims.empty()) return;
  std::int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= dims[d];
  for (std::size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
  const std::int64_t channels = dims[axis];
  for (std::int64_t c = 0; c < channels; ++c) {
    float amax = 0.0f;
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t k = 0; k < inner; ++k) amax = std::max(amax, std::fabs(w[(o * channels + c) * inner + k]));
    if (amax == 0.0f) continue;
    const float scale = amax / 127.0f;
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t k = 0; k < inner; ++k) {
        float& v = w[(o * channels + c) * inner + k];
        v = std::clamp(std::nearbyint(v / scale), -127.0f, 127.0f) * scale;
      }
  }
  set_floats(t, w);
}

void quantize_weights(onnx::GraphProto* g) {
  Tensors init = initializers(g);
  for (const auto& n : g->node()) {
    const std::string& op = n.op_type();
    if (n.input_size() < 2 || !init.count(n.input(1))) continue;
    auto* w = init[n.input(1)];
    if (op == "Conv") fake_quantize_weight(w, 0);
    else if (op == "ConvTranspose" && attr_int(n, "group", 1) == 1) fake_quantize_weight(w, 1);
    else if (op == "ConvTranspose") fake_quantize_weight(w, 0);  // grouped: per input channel group
    else if (op == "Gemm") fake_quantize_weight(w, attr_int(n, "transB", 0) ? 0 : 1);
    else if (op == "MatMul" && w->dims_size() == 2) fake_quantize_weight(w, 1);
  }
}

bool keeps_encoding(const onnx::NodeProto& n) {
  static const std::set<std::string> moving = {"Reshape", "Transpose", "Flatten", "Squeeze", "Unsqueeze",
                                               "MaxPool", "Slice", "Split", "Identity", "Gather", "Pad",
                                               "DepthToSpace", "SpaceToDepth"};
  if (moving.count(n.op_type())) return true;
  if (n.op_type() == "Resize") {
    for (const auto& a : n.attribute())
      if (a.name() == "mode") return a.s() == "nearest";
    return true;  // nearest is the default mode
  }
  return false;
}

// Float tensors by name, from ONNX shape inference (graph inputs, outputs, value_info).
std::set<std::string> float_tensors(onnx::ModelProto m) {
  onnx::shape_inference::InferShapes(m);
  std::set<std::string> f;
  auto add = [&](const onnx::ValueInfoProto& v) {
    if (v.type().tensor_type().elem_type() == onnx::TensorProto::FLOAT) f.insert(v.name());
  };
  for (const auto& v : m.graph().input()) add(v);
  for (const auto& v : m.graph().output()) add(v);
  for (const auto& v : m.graph().value_info()) add(v);
  return f;
}

int expose(const std::string& in, const std::string& out) {
  auto m = load(in);
  fold_batch_norms(m.mutable_graph());
  const auto floats = float_tensors(m);
  std::set<std::string> outputs;
  for (const auto& o : m.graph().output()) outputs.insert(o.name());
  for (const auto& n : m.graph().node())
    for (const auto& o : n.output()) {
      if (!floats.count(o) || outputs.count(o)) continue;
      auto* v = m.mutable_graph()->add_output();
      v->set_name(o);
      v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
      outputs.insert(o);
    }
  save(m, out);
  std::cerr << "qdq_reference: " << outputs.size() << " float tensors exposed in " << out << "\n";
  return 0;
}

std::pair<float, std::uint8_t> uint8_encoding(float lo, float hi) {
  lo = std::min(lo, 0.0f);
  hi = std::max(hi, 0.0f);
  if (hi - lo < 1e-12f) return {1.0f, 0};
  const float scale = (hi - lo) / 255.0f;
  const float zp = std::clamp(std::nearbyint(-lo / scale), 0.0f, 255.0f);
  return {scale, static_cast<std::uint8_t>(zp)};
}

void add_qdq(onnx::GraphProto* g, const std::string& tensor, float lo, float hi, std::vector<onnx::NodeProto>* added) {
  const auto [scale, zp] = uint8_encoding(lo, hi);
  const std::string base = tensor + "_qdq";
  auto* s = g->add_initializer();
  s->set_name(base + "_scale");
  s->set_data_type(onnx::TensorProto::FLOAT);
  s->add_float_data(scale);
  auto* z = g->add_initializer();
  z->set_name(base + "_zp");
  z->set_data_type(onnx::TensorProto::UINT8);
  z->set_raw_data(std::string(1, static_cast<char>(zp)));
  onnx::NodeProto q, dq;
  q.set_op_type("QuantizeLinear");
  q.set_name(base + "_q");
  q.add_input(tensor + "_pre");
  q.add_input(s->name());
  q.add_input(z->name());
  q.add_output(base + "_u8");
  dq.set_op_type("DequantizeLinear");
  dq.set_name(base + "_dq");
  dq.add_input(base + "_u8");
  dq.add_input(s->name());
  dq.add_input(z->name());
  dq.add_output(tensor);
  added->push_back(q);
  added->push_back(dq);
}

// Renames `tensor` where it is produced (node output or graph input) to tensor_pre, so the
// QDQ pair's output takes the original name and every reader sees the quantized value.
void rename_producer(onnx::GraphProto* g, const std::string& tensor) {
  for (auto& n : *g->mutable_node())
    for (int k = 0; k < n.output_size(); ++k)
      if (n.output(k) == tensor) n.set_output(k, tensor + "_pre");
}

int build(const std::string& in, const std::string& ranges_path, const std::string& out, bool float_outputs,
          const std::set<std::string>& keep) {
  auto m = load(in);
  auto* g = m.mutable_graph();
  fold_batch_norms(g);
  quantize_weights(g);
  const auto floats = float_tensors(m);
  std::ifstream rf(ranges_path);
  const auto ranges = nlohmann::json::parse(rf);
  std::set<std::string> graph_outputs, inits;
  for (const auto& o : g->output()) graph_outputs.insert(o.name());
  for (const auto& i : g->initializer()) inits.insert(i.name());
  const auto readers = readers_of(*g);
  std::vector<std::string> targets;
  for (const auto& i : g->input())
    if (!inits.count(i.name()) && floats.count(i.name())) targets.push_back(i.name());
  for (const auto& n : g->node()) {
    if (keeps_encoding(n) || n.op_type() == "Shape" || n.op_type() == "Constant") continue;
    for (const auto& o : n.output()) {
      if (!floats.count(o) || keep.count(n.name())) continue;
      if (float_outputs && graph_outputs.count(o)) continue;
      auto r = readers.find(o);
      const bool fused = r != readers.end() && r->second.size() == 1 && !graph_outputs.count(o) &&
                         (g->node(r->second[0]).op_type() == "Relu" || g->node(r->second[0]).op_type() == "Clip") &&
                         (n.op_type() == "Conv" || n.op_type() == "Gemm" || n.op_type() == "Add" ||
                          n.op_type() == "ConvTranspose" || n.op_type() == "MatMul");
      if (!fused) targets.push_back(o);
    }
  }
  std::vector<onnx::NodeProto> added;
  int missing = 0;
  for (const auto& t : targets) {
    if (!ranges.contains(t)) {
      ++missing;
      continue;
    }
    const bool is_input = std::any_of(g->input().begin(), g->input().end(), [&](auto& v) { return v.name() == t; });
    if (is_input) {
      for (auto& n : *g->mutable_node())
        for (int k = 0; k < n.input_size(); ++k)
          if (n.input(k) == t) n.set_input(k, t + "_in");
      // The graph input keeps its name; its readers read the QDQ copy.
      add_qdq(g, t + "_in", ranges[t][0].get<float>(), ranges[t][1].get<float>(), &added);
      added.back().set_output(0, t + "_in");
      added[added.size() - 2].set_input(0, t);
      continue;
    }
    rename_producer(g, t);
    add_qdq(g, t, ranges[t][0].get<float>(), ranges[t][1].get<float>(), &added);
  }
  // Topological order: each QDQ pair right after its producer (or first for inputs).
  google::protobuf::RepeatedPtrField<onnx::NodeProto> ordered;
  std::map<std::string, std::vector<const onnx::NodeProto*>> after;
  for (std::size_t i = 0; i + 1 < added.size(); i += 2) after[added[i].input(0)].push_back(&added[i]);
  auto emit_after = [&](const std::string& tensor) {
    for (const auto* q : after[tensor]) {
      *ordered.Add() = *q;
      *ordered.Add() = *(q + 1);
    }
  };
  for (const auto& i : g->input()) emit_after(i.name());
  for (const auto& n : g->node()) {
    *ordered.Add() = n;
    for (const auto& o : n.output()) emit_after(o);
  }
  g->mutable_node()->Swap(&ordered);
  save(m, out);
  std::cerr << "qdq_reference: " << targets.size() - missing << " activations quantized, " << missing
            << " without a range left float, in " << out << "\n";
  return 0;
}

std::vector<float> parse3(const std::string& s) {
  std::vector<float> v;
  std::stringstream ss(s);
  for (std::string p; std::getline(ss, p, ',');) v.push_back(std::stof(p));
  if (v.size() != 3) throw std::runtime_error("expected three comma-separated values: " + s);
  return v;
}

int image(const std::string& png_path, const std::string& out, const std::string& mean_s, const std::string& scale_s,
          bool bgr, std::size_t out_w, std::size_t out_h) {
  const auto mean = parse3(mean_s), scale = parse3(scale_s);
  png_image img{};
  img.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&img, png_path.c_str())) throw std::runtime_error(png_path + ": " + img.message);
  img.format = PNG_FORMAT_RGB;
  std::vector<std::uint8_t> rgb(PNG_IMAGE_SIZE(img));
  if (!png_image_finish_read(&img, nullptr, rgb.data(), 0, nullptr)) throw std::runtime_error(png_path + ": " + img.message);
  const std::size_t src_h = img.height, src_w = img.width;
  const std::size_t h = out_h ? out_h : src_h, w = out_w ? out_w : src_w;
  // Bilinear stretch to w x h (half-pixel centres), then per-channel normalisation.
  auto pixel = [&](std::size_t y, std::size_t x, std::size_t c) -> float {
    const float sy = std::clamp((y + 0.5f) * src_h / h - 0.5f, 0.0f, src_h - 1.0f);
    const float sx = std::clamp((x + 0.5f) * src_w / w - 0.5f, 0.0f, src_w - 1.0f);
    const std::size_t y0 = static_cast<std::size_t>(sy), x0 = static_cast<std::size_t>(sx);
    const std::size_t y1 = std::min(y0 + 1, src_h - 1), x1 = std::min(x0 + 1, src_w - 1);
    const float fy = sy - y0, fx = sx - x0;
    auto at = [&](std::size_t yy, std::size_t xx) { return static_cast<float>(rgb[(yy * src_w + xx) * 3 + c]); };
    return (at(y0, x0) * (1 - fx) + at(y0, x1) * fx) * (1 - fy) + (at(y1, x0) * (1 - fx) + at(y1, x1) * fx) * fy;
  };
  std::vector<float> chw(3 * h * w);
  for (std::size_t c = 0; c < 3; ++c)
    for (std::size_t y = 0; y < h; ++y)
      for (std::size_t x = 0; x < w; ++x)
        chw[(c * h + y) * w + x] = (pixel(y, x, bgr ? 2 - c : c) - mean[c]) * scale[c];
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, " + std::to_string(h) + ", " +
                       std::to_string(w) + "), }";
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  std::ofstream f(out, std::ios::binary);
  f.write("\x93NUMPY\x01\x00", 8);
  const std::uint16_t len = static_cast<std::uint16_t>(header.size());
  f.write(reinterpret_cast<const char*>(&len), 2);
  f << header;
  f.write(reinterpret_cast<const char*>(chw.data()), static_cast<std::streamsize>(chw.size() * sizeof(float)));
  return f ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::string> a(argv + 1, argv + argc);
    if (a.size() == 3 && a[0] == "expose") return expose(a[1], a[2]);
    if (a.size() >= 5 && a[0] == "image") {
      bool bgr = false;
      std::size_t w = 0, h = 0;
      for (std::size_t i = 5; i < a.size(); ++i) {
        if (a[i] == "bgr") bgr = true;
        else if (std::sscanf(a[i].c_str(), "%zux%zu", &w, &h) != 2) throw std::runtime_error("unknown option " + a[i]);
      }
      return image(a[1], a[2], a[3], a[4], bgr, w, h);
    }
    if (a.size() >= 4 && a[0] == "build") {
      bool float_outputs = false;
      std::set<std::string> keep;
      for (std::size_t i = 4; i < a.size(); ++i) {
        if (a[i] == "--float-outputs") float_outputs = true;
        else if (a[i] == "--keep" && i + 1 < a.size()) {
          std::stringstream ss(a[++i]);
          for (std::string n; std::getline(ss, n, ',');) keep.insert(n);
        } else throw std::runtime_error("unknown option " + a[i]);
      }
      return build(a[1], a[2], a[3], float_outputs, keep);
    }
    std::cerr << "usage: qdq_reference expose MODEL OUT | build MODEL RANGES.json OUT [--float-outputs] [--keep N,..] |"
                 " image PNG OUT.npy MEAN_0,1,2 SCALE_0,1,2 [bgr] [WxH]\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "qdq_reference: " << e.what() << "\n";
    return 1;
  }
}
