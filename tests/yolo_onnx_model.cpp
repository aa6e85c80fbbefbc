// Writes a YOLOv5-style detector as an ONNX file, for the model zoo style YOLO demo
// (samples/rknn/yolo) and convert.py: the topology of netzoo's build_yolov5s (Ultralytics
// YOLOv5 v6+ as airockchip/yolov5 exports it for RKNN: Conv + SiLU written as x * Sigmoid(x),
// C3 blocks, SPPF, the PAN neck, three 1x1 detection convolutions with their sigmoid, box
// decoding left to the application), at width 0.25 (YOLOv5n) so that tests stay fast.
// netzoo builds compiled programs, not ONNX files, hence this writer of the same graph.
// Weights are synthetic (a fixed-seed generator, He-scaled); the detection biases are set
// as YOLOv5 initialises them (objectness and classes start unlikely) so that a few dozen
// cells pass the zoo's 0.25 threshold on natural images instead of all or none.
//   yolo_onnx_model OUT.onnx [SIZE=320]
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "onnx_builder.h"

namespace {

class Yolo {
 public:
  explicit Yolo(svp::test::OnnxBuilder& b) : b_(b) {}

  // Conv (+ bias) then SiLU as the Ultralytics export writes it (Sigmoid, Mul).
  std::string conv(const std::string& p, const std::string& x, std::int64_t cin, std::int64_t cout, std::int64_t k,
                   std::int64_t s, std::int64_t pad = -1) {
    const std::string y = plain_conv(p, x, cin, cout, k, s, pad < 0 ? k / 2 : pad, 1.1f, 0.1f, 0.f);
    b_.node("Sigmoid", {y}, {p + ".sig"}, p + ".act.sigmoid");
    b_.node("Mul", {y, p + ".sig"}, {p + ".out"}, p + ".act.mul");
    return p + ".out";
  }
  std::string plain_conv(const std::string& p, const std::string& x, std::int64_t cin, std::int64_t cout,
                         std::int64_t k, std::int64_t s, std::int64_t pad, float gain, float bias_range,
                         float bias_offset) {
    const std::int64_t fan_in = cin * k * k;
    const float a = gain * std::sqrt(6.f / static_cast<float>(fan_in));
    std::vector<float> w(static_cast<std::size_t>(cout * fan_in));
    for (std::size_t i = 0; i < w.size(); ++i) {
      // A head's box channels (0-3 of each anchor's 85) vary little around sigmoid 0.5:
      // boxes of about their anchor's size near their cell, as a trained model's are.
      const bool box = cout == 255 && (i / static_cast<std::size_t>(fan_in)) % 85 < 4;
      w[i] = (box ? 0.1f : 1.f) * a * uniform();
    }
    std::vector<float> bias(static_cast<std::size_t>(cout));
    for (std::size_t c = 0; c < bias.size(); ++c) {
      // A detection head's objectness (channel 4 of each anchor's 85) starts lower than its
      // classes, as YOLOv5's initialisation has it.
      // Box channels (0-3) centre on sigmoid 0.5: boxes of about their anchor's size.
      const bool head = cout == 255, objectness = head && c % 85 == 4, box = head && c % 85 < 4;
      bias[c] = (box ? 0.f : bias_offset * (objectness ? 1.6f : 1.f)) + bias_range * uniform();
    }
    b_.initializer(p + ".w", {cout, cin, k, k}, w).initializer(p + ".b", {cout}, bias);
    auto& n = b_.node("Conv", {x, p + ".w", p + ".b"}, {p + ".conv"}, p);
    svp::test::OnnxBuilder::attr_ints(n, "kernel_shape", {k, k});
    svp::test::OnnxBuilder::attr_ints(n, "strides", {s, s});
    svp::test::OnnxBuilder::attr_ints(n, "pads", {pad, pad, pad, pad});
    return p + ".conv";
  }
  std::string concat(const std::string& p, const std::vector<std::string>& xs) {
    auto& n = b_.node("Concat", xs, {p + ".out"}, p);
    auto* a = n.add_attribute();
    a->set_name("axis");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(1);
    return p + ".out";
  }
  std::string c3(const std::string& p, const std::string& x, std::int64_t cin, std::int64_t cout, int blocks,
                 bool shortcut) {
    const std::int64_t h = cout / 2;
    std::string a = conv(p + ".cv1", x, cin, h, 1, 1);
    const std::string b = conv(p + ".cv2", x, cin, h, 1, 1);
    for (int i = 0; i < blocks; ++i) {
      const std::string q = p + ".m." + std::to_string(i);
      const std::string y = conv(q + ".cv2", conv(q + ".cv1", a, h, h, 1, 1), h, h, 3, 1);
      if (shortcut) {
        b_.node("Add", {a, y}, {q + ".add"}, q + ".add");
        a = q + ".add";
      } else {
        a = y;
      }
    }
    return conv(p + ".cv3", concat(p + ".cat", {a, b}), 2 * h, cout, 1, 1);
  }
  std::string max_pool(const std::string& p, const std::string& x) {
    auto& n = b_.node("MaxPool", {x}, {p + ".out"}, p);
    svp::test::OnnxBuilder::attr_ints(n, "kernel_shape", {5, 5});
    svp::test::OnnxBuilder::attr_ints(n, "strides", {1, 1});
    svp::test::OnnxBuilder::attr_ints(n, "pads", {2, 2, 2, 2});
    return p + ".out";
  }
  std::string upsample(const std::string& p, const std::string& x) {
    b_.initializer(p + ".scales", {4}, {1.f, 1.f, 2.f, 2.f});
    auto& n = b_.node("Resize", {x, "", p + ".scales"}, {p + ".out"}, p);
    auto* a = n.add_attribute();
    a->set_name("mode");
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s("nearest");
    return p + ".out";
  }

 private:
  float uniform() {  // [-1, 1), a 64-bit LCG: the same weights on every machine
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>((state_ >> 40) & 0xFFFFFF) / 8388608.f - 1.f;
  }
  svp::test::OnnxBuilder& b_;
  std::uint64_t state_ = 20240526;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s OUT.onnx [SIZE=320]\n", argv[0]);
    return 2;
  }
  const std::int64_t size = argc == 3 ? std::atoll(argv[2]) : 320;
  if (size < 64 || size % 32 != 0) {
    std::fprintf(stderr, "yolo_onnx_model: SIZE %lld is not a multiple of 32 (at least 64)\n",
                 static_cast<long long>(size));
    return 2;
  }
  svp::test::OnnxBuilder b;
  b.model().mutable_graph()->set_name("yolov5n_synthetic");
  b.input("images", {1, 3, size, size});
  Yolo y(b);
  const std::int64_t c = 16;  // width 0.25: the first layer's 64 channels x 0.25
  std::string x = y.conv("model.0", "images", 3, c, 6, 2, 2);  // k6 s2 p2: the former Focus
  x = y.conv("model.1", x, c, 2 * c, 3, 2);
  x = y.c3("model.2", x, 2 * c, 2 * c, 1, true);
  x = y.conv("model.3", x, 2 * c, 4 * c, 3, 2);
  const std::string p3 = y.c3("model.4", x, 4 * c, 4 * c, 2, true);
  x = y.conv("model.5", p3, 4 * c, 8 * c, 3, 2);
  const std::string p4 = y.c3("model.6", x, 8 * c, 8 * c, 3, true);
  x = y.conv("model.7", p4, 8 * c, 16 * c, 3, 2);
  x = y.c3("model.8", x, 16 * c, 16 * c, 1, true);
  x = y.conv("model.9.cv1", x, 16 * c, 8 * c, 1, 1);
  const std::string m1 = y.max_pool("model.9.m1", x), m2 = y.max_pool("model.9.m2", m1);
  const std::string m3 = y.max_pool("model.9.m3", m2);
  x = y.conv("model.9.cv2", y.concat("model.9.cat", {x, m1, m2, m3}), 32 * c, 16 * c, 1, 1);
  const std::string h10 = y.conv("model.10", x, 16 * c, 8 * c, 1, 1);
  x = y.concat("model.12", {y.upsample("model.11", h10), p4});
  x = y.c3("model.13", x, 16 * c, 8 * c, 1, false);
  const std::string h14 = y.conv("model.14", x, 8 * c, 4 * c, 1, 1);
  x = y.concat("model.16", {y.upsample("model.15", h14), p3});
  const std::string o3 = y.c3("model.17", x, 8 * c, 4 * c, 1, false);
  x = y.concat("model.19", {y.conv("model.18", o3, 4 * c, 4 * c, 3, 2), h14});
  const std::string o4 = y.c3("model.20", x, 8 * c, 8 * c, 1, false);
  x = y.concat("model.22", {y.conv("model.21", o4, 8 * c, 8 * c, 3, 2), h10});
  const std::string o5 = y.c3("model.23", x, 16 * c, 16 * c, 1, false);
  const std::string levels[3] = {o3, o4, o5};
  const std::int64_t widths[3] = {4 * c, 8 * c, 16 * c};
  for (int i = 0; i < 3; ++i) {
    const std::string p = "model.24.m." + std::to_string(i);
    const std::int64_t grid = size / (8 << i);
    // Logits of spread ~2 around a negative offset: few cells pass the threshold.
    const std::string head = y.plain_conv(p, levels[i], widths[i], 255, 1, 1, 0, 1.5f, 0.5f, -2.5f);
    const std::string out = "output" + std::to_string(i);
    b.node("Sigmoid", {head}, {out}, p + ".sigmoid");
    b.output(out, {1, 255, grid, grid});
  }
  b.write(argv[1]);
  std::printf("wrote %s (%lldx%lld)\n", argv[1], static_cast<long long>(size), static_cast<long long>(size));
  return 0;
}
