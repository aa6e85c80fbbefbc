// The integer path of Conv, ConvTranspose, MatMul and Gemm (docs/kernels.md, "Integer
// ops"): when it applies, how the bias is brought to int32 and how accumulators become
// outputs.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/common.h"

namespace svp::kernels::detail {

// True when x is a per-tensor quantized int8/uint8 activation, w a quantized int8/uint8
// weight (per-tensor, or per-channel along `w_axis`), y per-tensor quantized int8/uint8
// or float32, and the bias (null when absent) int32 or float32.
bool int_path_applies(const TensorView& x, const TensorView& w, std::int64_t w_axis, const TensorView* bias,
                      const TensorView& y);

// Bias values in the accumulator domain, element i of `b` having scale bias_scale(i)
// (= (float)s_x * (float)s_w[c] of its output channel): int32 values are taken as they
// are (a Quant on them must have zero point 0 and matching scales), float32 values are
// quantized as saturate_int32(nearbyint(b / bias_scale)) with the division in float.
Result<std::vector<std::int64_t>> bias_to_int(const char* op, const TensorView& b,
                                              const std::function<float(std::int64_t)>& bias_scale);

// Turns int64 accumulators (without bias) into outputs: acc is saturated to int32,
// v = (float)acc32 + (float)bias_q[c], then
// - quantized y: saturate(nearbyint(v * scale_c + (float)zp_y)),
//   scale_c = requant_scale(s_x, s_w[c], s_y);
// - float32 y: v * ((float)s_x * (float)s_w[c]).
class AccWriter {
 public:
  // w_scale(c) for c in [0, channels).
  AccWriter(const TensorView& x, const std::function<float(std::int64_t)>& w_scale, std::int64_t channels,
            const TensorView& y);
  float bias_scale(std::int64_t c) const { return bias_scale_[static_cast<std::size_t>(c)]; }
  void put(std::int64_t i, std::int64_t acc, std::int64_t c, std::int64_t bias = 0) const {
    const float v = static_cast<float>(saturate_i32(acc)) + static_cast<float>(bias);
    if (to_float_) {
      y_.as<float>()[i] = v * scale_[static_cast<std::size_t>(c)];
    } else {
      set_int(y_, i, requantize_acc(v, scale_[static_cast<std::size_t>(c)], zp_, lo_, hi_));
    }
  }

 private:
  const TensorView& y_;
  bool to_float_;
  std::vector<float> scale_, bias_scale_;
  std::int32_t zp_ = 0;
  std::int64_t lo_ = 0, hi_ = 0;
};

// The ONNX integer-op operands (ConvInteger, MatMulInteger, QLinearConv, QLinearMatMul):
// `data` given a Quant from separate scale and zero-point inputs (absent scale = 1, absent
// zero point = 0), per-tensor or, with one entry per index of `axis`, per-channel. The
// view points into `q`, which must outlive it.
Result<TensorView> with_quant(const char* op, const char* what, const TensorView& data, const TensorView* scale,
                              const TensorView* zero_point, std::int64_t axis, Quant* q);

// Runs f on an InferCtx of the inputs `pick` of c (an index past c's inputs is absent):
// the integer ops' data operands seen as the inputs of Conv or MatMul.
template <typename F>
auto with_inputs(const InferCtx& c, std::initializer_list<std::size_t> pick, F&& f) {
  std::vector<Shape> shapes;
  std::vector<const TensorView*> values;
  for (std::size_t i : pick) {
    shapes.push_back(i < c.in.size() ? c.in[i] : Shape{});
    values.push_back(c.value(i));
  }
  const InferCtx sub{c.op, c.attrs, shapes, values, c.num_outputs};
  return f(sub);
}

}  // namespace svp::kernels::detail
