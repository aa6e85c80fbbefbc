// Conv fast path: oneDNN convolution_forward on NHWC activations.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "kernels/common.h"
#include "kernels/onednn/fast_op.h"
#include "kernels/onednn/int8_conv_avx2.h"
#include "kernels/onednn/q8_depthwise.h"
#include "kernels/onednn/quant_params.h"
#include "kernels/onednn/runtime.h"
#include "kernels/reference/spatial.h"

namespace svp::kernels::onednn {

using model::DType;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

namespace {

dt dnnl_type(DType t) {
  switch (t) {
    case DType::kInt8:
      return dt::s8;
    case DType::kUint8:
      return dt::u8;
    case DType::kInt32:
      return dt::s32;
    default:
      return dt::f32;
  }
}

// The taps of one spatial axis that some output reads from inside the input, as
// [first, last]; {-1, -1} when every tap reads padding only.
std::pair<std::int64_t, std::int64_t> live_taps(std::int64_t in, std::int64_t out, std::int64_t k, std::int64_t s,
                                                std::int64_t d, std::int64_t pb) {
  std::int64_t first = -1, last = -1;
  for (std::int64_t t = 0; t < k; ++t) {
    const std::int64_t off = t * d - pb;                       // input position read by output 0
    const std::int64_t o0 = off >= 0 ? 0 : (s - 1 - off) / s;  // first output reading at >= 0
    if (o0 < out && o0 * s + off < in) {
      if (first < 0) first = t;
      last = t;
    }
  }
  return {first, last};
}

// Drops the kernel rows and columns whose taps read padding only, for every output: a
// dilated kernel wider than its input, as DeepLabV3's ASPP branches (3x3, dilation 24 and 36
// on 14x14 maps, where only the centre tap reads data). Padding adds nothing to a sum (0,
// or on the integer path the input's zero point, whose shifted value is 0), so the smaller
// kernel gives the same sums; oneDNN's int8 kernels would otherwise multiply every padded
// tap (5.5 ms against 0.4 ms as a 1x1 on one Xeon core). The pads shrink by what the
// dropped taps spanned, so the output size stays. `w` then views `*kept`, which holds its
// weights.
void trim_dead_taps(const TensorView& x, detail::Window* win, TensorView* w, std::vector<std::uint8_t>* kept) {
  std::int64_t lo[2] = {0, 0}, hi[2] = {w->dims[2] - 1, w->dims[3] - 1};
  bool trimmed = false;
  for (int a = 0; a < 2; ++a) {
    const int i = a + 1;
    const auto [first, last] = live_taps(x.dims[2 + a], win->out[i], win->k[i], win->s[i], win->d[i], win->pb[i]);
    if (first < 0 || (first == 0 && last == win->k[i] - 1)) continue;
    const std::int64_t pb = win->pb[i] - first * win->d[i], pe = win->pe[i] - (win->k[i] - 1 - last) * win->d[i];
    if (pb < 0 || pe < 0) continue;
    lo[a] = first;
    hi[a] = last;
    win->pb[i] = pb;
    win->pe[i] = pe;
    win->k[i] = last - first + 1;
    if (win->k[i] == 1) win->d[i] = 1;
    trimmed = true;
  }
  if (!trimmed) return;
  const std::size_t es = w->dtype == DType::kFloat32 ? sizeof(float) : 1;
  const std::int64_t kh = w->dims[2], kw = w->dims[3], rows = w->dims[0] * w->dims[1];
  const std::int64_t nh = hi[0] - lo[0] + 1, nw = hi[1] - lo[1] + 1;
  kept->resize(static_cast<std::size_t>(rows * nh * nw) * es);
  const auto* src = static_cast<const std::uint8_t*>(w->data);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t h = 0; h < nh; ++h)
      std::memcpy(kept->data() + static_cast<std::size_t>((r * nh + h) * nw) * es,
                  src + static_cast<std::size_t>((r * kh + lo[0] + h) * kw + lo[1]) * es,
                  static_cast<std::size_t>(nw) * es);
  w->dims = {w->dims[0], w->dims[1], nh, nw};
  w->data = kept->data();
}

// True when every accumulator value in [lo, hi] gives the same int8/uint8 output in
// [qlo, qhi] under the reference's requantization (common.h, requantize_acc): the output
// is a constant of the input. The ends stay clear of rounding ties by more than float's
// error, so the float evaluation between them cannot step over one.
bool one_output(double lo, double hi, float scale, std::int32_t zp, std::int64_t qlo, std::int64_t qhi) {
  bool near_tie = false;
  const auto out = [&](double v) {
    const double y = v * static_cast<double>(scale) + zp;
    if (y <= static_cast<double>(qlo) - 1) return qlo;
    if (y >= static_cast<double>(qhi) + 1) return qhi;
    const double frac = y - std::floor(y);
    near_tie = near_tie || std::fabs(frac - 0.5) < 1e-3 + std::fabs(y) * 0x1p-20;
    return std::min(std::max(static_cast<std::int64_t>(std::llrint(y)), qlo), qhi);
  };
  const std::int64_t a = out(lo), b = out(hi);
  return a == b && !near_tie;
}

// The int32 bias with the source zero point folded in: bias[m] − zx·Σ_k w[m][k] for the
// `k` weights of each of the `m` output channels (OIHW, or GOIHW's same order). Empty when
// some channel's result could differ from the reference's (the zero point then stays
// oneDNN's).
//
// Both compute v = (float)acc + (float)bias; folding only moves zx·Σw from one term to the
// other (acc' = acc + zx·Σw, bias' = bias − zx·Σw). A channel folds when
// - every term is exact in float (|·| ≤ 2^24): v is then the same float;
// - or a term may pass 2^24 but the biases are within 2^23, so |v| then exceeds 2^23 and
//   the scale (≥ 2^-14) sends it past any int8/uint8 output: saturated either way;
// - or its output is one constant for every reachable v in both forms (a dead channel:
//   PP-OCRv4 rec and det have several, weight scales of 1e-18 to 1e-42, or biases
//   saturated at ±2^31 with scales that leave one output); its folded bias is clamped to
//   int32.
std::vector<std::int32_t> fold_source_zero_point(const IntParams& ip, DType x_type, DType y_type, const std::int8_t* w,
                                                 std::int64_t m, std::int64_t k) {
  constexpr std::int64_t kExact = std::int64_t{1} << 24, kHalf = std::int64_t{1} << 23;
  constexpr float kLarge = 0x1p-14f;
  constexpr double kFloatSlack = 1024;  // rounding of both terms and of their sum, |v| < 2^33
  const bool s8 = x_type == DType::kInt8;
  const std::int64_t raw_max = s8 ? 128 : 255;
  const std::int64_t shifted_max = s8 ? std::max(ip.zp_x + 128, 127 - ip.zp_x) : std::max(ip.zp_x, 255 - ip.zp_x);
  const bool quantized_y = y_type != DType::kFloat32;
  const std::int64_t qlo = y_type == DType::kInt8 ? -128 : 0, qhi = y_type == DType::kInt8 ? 127 : 255;
  std::vector<std::int32_t> out(static_cast<std::size_t>(m));
  for (std::int64_t o = 0; o < m; ++o) {
    std::int64_t sum = 0, abs_sum = 0;
    for (std::int64_t i = 0; i < k; ++i) {
      sum += w[o * k + i];
      abs_sum += std::abs(static_cast<std::int64_t>(w[o * k + i]));
    }
    // oneDNN wraps an int32 accumulator; the raw sum of a uint8 input can exceed the
    // shifted one int_params bounded.
    if (raw_max * abs_sum > std::numeric_limits<std::int32_t>::max()) return {};
    const std::int64_t b = ip.bias.empty() ? 0 : ip.bias[static_cast<std::size_t>(o)];
    const std::int64_t v = b - static_cast<std::int64_t>(ip.zp_x) * sum;
    const std::int32_t folded = detail::saturate_i32(v);
    out[static_cast<std::size_t>(o)] = folded;
    const std::int64_t acc_max = std::max(raw_max, shifted_max) * abs_sum;
    if (acc_max <= kExact && std::abs(b) <= kExact && std::abs(v) <= kExact) continue;
    if (!quantized_y) return {};
    const float scale = ip.scales[ip.scales.size() == 1 ? 0 : static_cast<std::size_t>(o)];
    if (scale >= kLarge && std::abs(b) <= kHalf && std::abs(v) <= kHalf) continue;
    // One output over both forms' reachable values (each centred on its own bias) and
    // everything between: then both give that output.
    const double span = static_cast<double>(acc_max) + kFloatSlack;
    const double lo = static_cast<double>(std::min<std::int64_t>(b, folded)) - span;
    const double hi = static_cast<double>(std::max<std::int64_t>(b, folded)) + span;
    if (!one_output(lo, hi, scale, ip.zp_y, qlo, qhi)) return {};
  }
  return out;
}

}  // namespace

std::unique_ptr<FastOp> make_conv(const model::Attrs& attrs, const TensorView& x, const TensorView& w_in,
                                  const TensorView* bias, const TensorView& y, const Fusion& fusion, int threads,
                                  std::string* why) {
  using namespace detail;
  if (x.dims.size() != 4 || w_in.dims.size() != 4 || y.dims.size() != 4) return *why = "not 2-D", nullptr;
  TensorView w = w_in;
  const AttrReader a("Conv", attrs);
  Window win;
  if (!spatial_input("Conv", x.dims, win).ok()) return *why = "geometry", nullptr;
  win.k[1] = w.dims[2];
  win.k[2] = w.dims[3];
  auto group_r = a.i("group", 1);
  auto ap = read_auto_pad(a);
  if (!group_r.ok() || !ap.ok() || !read_window_attrs(a, win, ap.value()).ok() ||
      !forward_window("Conv", win, ap.value(), false, false).ok())
    return *why = "attributes", nullptr;
  const std::int64_t g = group_r.value();
  const std::int64_t N = x.dims[0], C = x.dims[1], M = w.dims[0];
  if (g < 1 || C % g != 0 || M % g != 0 || w.dims[1] != C / g) return *why = "channels", nullptr;
  if (y.dims != std::vector<std::int64_t>{N, M, win.out[1], win.out[2]}) return *why = "output shape", nullptr;
  std::vector<std::uint8_t> kept;
  trim_dead_taps(x, &win, &w, &kept);

  const bool fp32 = x.dtype == DType::kFloat32 && w.dtype == DType::kFloat32 && y.dtype == DType::kFloat32 &&
                    (bias == nullptr || bias->dtype == DType::kFloat32);
  IntParams ip;
  const std::int64_t kred = (C / g) * w.dims[2] * w.dims[3];
  if (!fp32) {
    if (!int_params(x, w, 0, M, kred, kred, 1, bias, y, &ip, why)) return nullptr;
    // A fused sum would add the raw integers of dst; the reference requantizes the Add.
    if (fusion.sum) return *why = "sum fusion on the integer path", nullptr;
    const bool relu = fusion.eltwise.size() == 1 && fusion.eltwise[0].alg == dnnl::algorithm::eltwise_relu &&
                      fusion.eltwise[0].alpha == 0.f;
    Int8ConvShape s;
    s.n = N;
    s.c = C;
    s.h = x.dims[2];
    s.w = x.dims[3];
    s.m = M;
    s.oh = y.dims[2];
    s.ow = y.dims[3];
    s.kh = w.dims[2];
    s.kw = w.dims[3];
    s.sh = win.s[1];
    s.sw = win.s[2];
    s.dh = win.d[1];
    s.dw = win.d[2];
    s.pt = win.pb[1];
    s.pl = win.pb[2];
    s.groups = g;
    const Int8Weights wv{static_cast<const std::int8_t*>(w.data), kred, w.dims[2] * w.dims[3], w.dims[3], 1};
    // Depthwise layers on our VNNI kernel where it was measured faster (q8_depthwise.h). With
    // pads and a zero point, or an int8 input (turned into uint8), the oneDNN path below
    // copies the input to pad it.
    const bool copied =
        (ip.zp_x != 0 || x.dtype == DType::kInt8) && (win.pb[1] | win.pb[2] | win.pe[1] | win.pe[2]) != 0;
    if (g > 1 && g == C && M == C && y.dtype != DType::kFloat32 && (fusion.eltwise.empty() || relu) &&
        q8_depthwise_available() && q8_depthwise_preferred(C, s.kh * s.kw, copied)) {
      if (auto op = make_q8_depthwise(s, wv, ip, x.dtype, y.dtype, relu, threads)) return op;
    }
    if (!exact_int8_isa()) {
      if (!int8_avx2_available()) return *why = "no VNNI nor AVX2: no exact int8 fast path", nullptr;
      if (!fusion.eltwise.empty() && !relu) return *why = "avx2_int8 folds a Relu only", nullptr;
      return make_int8_conv_avx2(s, wv, ip, x.dtype, y.dtype, relu, threads);
    }
  }

  try {
    const dnnl::engine& eng = cpu_engine();
    ThreadScope threads_scope(threads);
    dnnl::memory::dims wdims = g > 1 ? dnnl::memory::dims{g, M / g, C / g, w.dims[2], w.dims[3]}
                                     : dnnl::memory::dims{M, C, w.dims[2], w.dims[3]};
    const dt wdt = dnnl_type(w.dtype), ydt = dnnl_type(y.dtype);
    dt xdt = dnnl_type(x.dtype);
    const dt bdt = fp32 ? dt::f32 : dt::s32;
    // An integer input with a zero point is padded by FastOp itself (the zero point's
    // byte) and the primitive gets no pads: with padding, oneDNN 2.6 corrects the padded
    // taps' zero points in its jit_int8 kernels (or AMX ones) instead of brgconv, 1.1–2.8×
    // slower for 3x3 convolutions and 2.8–4× for dilated ones (docs/kernels.md).
    // With no pads left, the source zero point is a constant per output channel,
    // Σ w·(x − zx) = Σ w·x − zx·Σ w, and goes into the int32 bias: oneDNN then sees no
    // zero point at all and takes its plain kernels (brdgmm for depthwise, brgconv for
    // 1x1; with one, jit_int8 and jit_1x1 took half of PP-OCRv4 rec's int8 time).
    // Where folding could change a result (fold_source_zero_point), the zero point stays
    // oneDNN's, the padding still ours. `pad_fill` keeps the zero point's byte for the
    // padding after ip.zp_x is folded away.
    //
    // Grouped int8 inputs are also turned into uint8 (x + 128, zero point zx + 128) by
    // the same copy: oneDNN 2.6 runs signed depthwise inputs in jit_int8 and unsigned ones
    // in brdgmm, 1.3–1.5× faster on one Xeon core (interleaved: PP-OCRv4 rec's 5x5 on 240 ×
    // 12 × 80 235 against 170 µs, the classifier's 5x5 stride 2 on 104 channels 21 against
    // 14). Only where the fold holds in the uint8 form, so the primitive sees no zero
    // point; the copy costs one pass over the input.
    std::uint8_t pad_fill = static_cast<std::uint8_t>(ip.zp_x);
    bool flip_sign = false;
    if (!fp32 && g > 1 && x.dtype == DType::kInt8) {
      IntParams shifted = ip;
      shifted.zp_x = ip.zp_x + 128;
      std::vector<std::int32_t> folded =
          fold_source_zero_point(shifted, DType::kUint8, y.dtype, static_cast<const std::int8_t*>(w.data), M, kred);
      if (!folded.empty()) {
        flip_sign = true;
        xdt = dt::u8;
        pad_fill = static_cast<std::uint8_t>(shifted.zp_x);
        ip.bias = std::move(folded);
        ip.zp_x = 0;
      }
    }
    const bool zero_point = !fp32 && ip.zp_x != 0;
    if (zero_point) {
      std::vector<std::int32_t> folded =
          fold_source_zero_point(ip, x.dtype, y.dtype, static_cast<const std::int8_t*>(w.data), M, kred);
      if (!folded.empty()) {
        ip.bias = std::move(folded);
        ip.zp_x = 0;
      }
    }
    const bool pads = (win.pb[1] | win.pb[2] | win.pe[1] | win.pe[2]) != 0;
    const bool pad_input = flip_sign || (zero_point && pads);
    const std::int64_t ih = x.dims[2] + (pad_input ? win.pb[1] + win.pe[1] : 0);
    const std::int64_t iw = x.dims[3] + (pad_input ? win.pb[2] + win.pe[2] : 0);
    dnnl::memory::desc src_md({N, C, ih, iw}, xdt, tag::nhwc);
    dnnl::memory::desc wei_md(wdims, wdt, tag::any);
    dnnl::memory::desc dst_md({N, M, y.dims[2], y.dims[3]}, ydt, tag::nhwc);
    const bool has_bias = bias != nullptr || (!fp32 && !ip.bias.empty());
    dnnl::memory::desc bias_md = has_bias ? dnnl::memory::desc({M}, bdt, tag::a) : dnnl::memory::desc();
    // ONNX dilation 1 = dense; oneDNN counts the gaps (0 = dense).
    dnnl::memory::dims strides{win.s[1], win.s[2]}, dil{win.d[1] - 1, win.d[2] - 1}, pl{0, 0}, pr{0, 0};
    if (!pad_input) {
      pl = {win.pb[1], win.pb[2]};
      pr = {win.pe[1], win.pe[2]};
    }
    dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md,
                                      wei_md, bias_md, dst_md, strides, dil, pl, pr);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (!fp32) {
      const bool uniform = std::all_of(ip.scales.begin(), ip.scales.end(), [&](float s) { return s == ip.scales[0]; });
      if (uniform) {
        attr.set_output_scales(0, {ip.scales[0]});
      } else {
        attr.set_output_scales(1 << 1, ip.scales);
      }
      if (ip.zp_x != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {ip.zp_x});
    }
    // The destination zero point of a grouped or small convolution becomes the last
    // post-op, x + zp (eltwise_linear), which oneDNN evaluates as it does the zero point —
    // one float addition after the other post-ops, before saturation and rounding. With the
    // zero-point attribute oneDNN 2.6 leaves brdgmm for jit_int8 (depthwise) and, on AMX,
    // brgconv_1x1 for jit_1x1, which costs about 6 µs more per call; the post-op costs
    // about 10 % of a large layer's time instead (one Xeon core, 1x1 int8 convolutions:
    // 32 → 64 channels on 96 pixels 8.3 µs with the attribute, 2.6 with the post-op; 480 →
    // 480 on 1920 pixels 543 against 643 µs). Hence up to 8 M multiply-adds.
    const std::int64_t macs = N * y.dims[2] * y.dims[3] * M * kred;
    const bool zp_y_post_op = !fp32 && ip.zp_y != 0 && (g > 1 || macs <= (std::int64_t{8} << 20));
    if (!fp32 && ip.zp_y != 0 && !zp_y_post_op) attr.set_zero_points(DNNL_ARG_DST, 0, {ip.zp_y});
    dnnl::post_ops po;
    if (fusion.sum) po.append_sum(1.f);
    for (const PostEltwise& e : fusion.eltwise) po.append_eltwise(1.f, e.alg, e.alpha, e.beta);
    if (zp_y_post_op) po.append_eltwise(1.f, dnnl::algorithm::eltwise_linear, 1.f, static_cast<float>(ip.zp_y));
    attr.set_post_ops(po);
    dnnl::convolution_forward::primitive_desc pd(d, attr, eng);
    std::string impl = pd.impl_info_str();
    // The reference implementations are slower than our own kernels and their int8
    // arithmetic is not the one the integer rule was matched against.
    if (impl.rfind("ref", 0) == 0) return *why = "oneDNN offers only " + impl, nullptr;

    dnnl::memory user_w({wdims, wdt, g > 1 ? tag::goihw : tag::oihw}, eng, const_cast<void*>(w.data));
    dnnl::memory wmem = reordered_weights(user_w, pd.weights_desc());

    auto op = std::make_unique<FastOp>(dnnl::convolution_forward(pd), src_md, dst_md, pd.scratchpad_desc());
    op->set_weights(wmem);
    if (has_bias) {
      const auto n = static_cast<std::size_t>(M);
      op->set_bias(fp32 ? copied_memory(bias_md, bias->data, n * sizeof(float))
                        : copied_memory(bias_md, ip.bias.data(), n * sizeof(std::int32_t)));
    }
    if (pad_input) {
      op->set_input_padding(
          {N, x.dims[2], x.dims[3], C, win.pb[1], win.pb[2], win.pe[1], win.pe[2], pad_fill, flip_sign});
    }
    op->set_impl(impl);
    op->set_one_thread_twin(threads,
                            [d, attr, eng] { return dnnl::convolution_forward::primitive_desc(d, attr, eng); });
    return op;
  } catch (const dnnl::error& e) {
    *why = std::string("oneDNN: ") + e.what();
    return nullptr;
  }
}

}  // namespace svp::kernels::onednn
