#include "kernels/onednn/deconv_as_conv.h"

#include <cstring>
#include <vector>

#include "kernels/common.h"

namespace svp::kernels::onednn {
namespace {

using model::DType;

// The 1×1 Conv's output (NHWC, kH·kW·M channels ordered (i, j, m)) moved to its kH×kW
// output blocks: for input row h and kernel row i, the kW·M values of each input pixel are
// one contiguous run of output row h·kH + i.
class ShuffledConv final : public NativeKernel {
 public:
  struct Geometry {
    std::int64_t n, h, w, kh, kw, m;
    std::size_t elem;  // bytes per value
  };
  ShuffledConv(std::unique_ptr<FastOp> conv, std::vector<std::uint8_t> weights, Geometry g)
      : conv_(std::move(conv)), weights_(std::move(weights)), g_(g) {
    mid_bytes_ = static_cast<std::size_t>(g.n * g.h * g.w * g.kh * g.kw * g.m) * g.elem;
    mid_bytes_ = (mid_bytes_ + 63) / 64 * 64;
  }
  std::size_t scratch_bytes() const override { return mid_bytes_ + conv_->scratch_bytes(); }
  void run(const void* src, void* dst, void* scratch) const override {
    auto* mid = static_cast<std::uint8_t*>(scratch);
    conv_->run(src, mid, mid + mid_bytes_);
    const std::size_t run = static_cast<std::size_t>(g_.kw * g_.m) * g_.elem;  // bytes per input pixel and kernel row
    const std::size_t pixel = run * static_cast<std::size_t>(g_.kh);
    auto* out = static_cast<std::uint8_t*>(dst);
    for (std::int64_t n = 0; n < g_.n; ++n) {
      for (std::int64_t h = 0; h < g_.h; ++h) {
        const std::uint8_t* in_row = mid + static_cast<std::size_t>((n * g_.h + h) * g_.w) * pixel;
        for (std::int64_t i = 0; i < g_.kh; ++i) {
          std::uint8_t* out_row = out + static_cast<std::size_t>((n * g_.h + h) * g_.kh + i) * g_.w * run;
          copy_runs(in_row + static_cast<std::size_t>(i) * run, pixel, out_row, run);
        }
      }
    }
  }

 private:
  // g_.w runs of `run` bytes, `stride` apart in `from`, packed in `to`. The common short
  // runs get a fixed-size copy (a single load and store).
  void copy_runs(const std::uint8_t* from, std::size_t stride, std::uint8_t* to, std::size_t run) const {
    switch (run) {
      case 2:
        return copy_fixed<2>(from, stride, to);
      case 4:
        return copy_fixed<4>(from, stride, to);
      case 8:
        return copy_fixed<8>(from, stride, to);
      default:
        for (std::int64_t x = 0; x < g_.w; ++x, from += stride, to += run) std::memcpy(to, from, run);
    }
  }
  template <std::size_t kRun>
  void copy_fixed(const std::uint8_t* from, std::size_t stride, std::uint8_t* to) const {
    for (std::int64_t x = 0; x < g_.w; ++x, from += stride, to += kRun) std::memcpy(to, from, kRun);
  }

  std::unique_ptr<FastOp> conv_;
  std::vector<std::uint8_t> weights_;  // the conv may read these very bytes at run time
  Geometry g_;
  std::size_t mid_bytes_ = 0;
};

// Replicates `v` (one value per output channel m, `elem` bytes each) kk times in (i, j, m) order.
std::vector<std::uint8_t> per_tap(const void* v, std::int64_t m, std::int64_t kk, std::size_t elem) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(m * kk) * elem);
  for (std::int64_t t = 0; t < kk; ++t) std::memcpy(out.data() + static_cast<std::size_t>(t * m) * elem, v, static_cast<std::size_t>(m) * elem);
  return out;
}

// Per-channel parameters (one per m) repeated for every tap; per-tensor ones as they are.
model::Quant quant_per_tap(const model::Quant& q, std::int64_t kk) {
  if (!q.per_channel()) return q;
  model::Quant out = q;
  out.axis = 0;
  for (std::int64_t t = 1; t < kk; ++t) {
    out.scale.insert(out.scale.end(), q.scale.begin(), q.scale.end());
    if (q.zero_point.size() == q.scale.size())
      out.zero_point.insert(out.zero_point.end(), q.zero_point.begin(), q.zero_point.end());
  }
  return out;
}

}  // namespace

std::unique_ptr<FastOp> make_deconv_as_conv(const model::Attrs& attrs, const TensorView& x, const TensorView& w,
                                            const TensorView* bias, const TensorView& y, const Fusion& fusion,
                                            int threads, std::string* why) {
  if (x.dims.size() != 4 || w.dims.size() != 4 || y.dims.size() != 4) return *why = "not 2-D", nullptr;
  if (fusion.sum) return *why = "no sum fusion", nullptr;
  const detail::AttrReader a("ConvTranspose", attrs);
  auto group = a.i("group", 1);
  auto strides = a.ints("strides", {1, 1});
  auto dilations = a.ints("dilations", {1, 1});
  auto pads = a.ints("pads", {0, 0, 0, 0});
  auto out_pad = a.ints("output_padding", {0, 0});
  if (!group.ok() || !strides.ok() || !dilations.ok() || !pads.ok() || !out_pad.ok()) return *why = "attributes", nullptr;
  const std::int64_t N = x.dims[0], C = x.dims[1], H = x.dims[2], W = x.dims[3];
  const std::int64_t M = w.dims[1], kh = w.dims[2], kw = w.dims[3];
  if (group.value() != 1 || w.dims[0] != C) return *why = "groups", nullptr;
  if (strides.value() != std::vector<std::int64_t>{kh, kw}) return *why = "kernel is not the stride", nullptr;
  for (std::int64_t v : dilations.value())
    if (v != 1) return *why = "dilation", nullptr;
  for (std::int64_t v : pads.value())
    if (v != 0) return *why = "pads", nullptr;
  for (std::int64_t v : out_pad.value())
    if (v != 0) return *why = "output_padding", nullptr;
  // Also covers auto_pad and output_shape: with kernel = stride either gives exactly this
  // size without padding, or the shapes differ.
  if (y.dims != std::vector<std::int64_t>{N, M, H * kh, W * kw}) return *why = "output shape", nullptr;
  const std::int64_t kk = kh * kw, oc = kk * M;

  // Weights [C, M, kH, kW] → [kH·kW·M, C, 1, 1], output channel (i·kW + j)·M + m.
  const std::size_t we = model::dtype_size(w.dtype);
  std::vector<std::uint8_t> wt(static_cast<std::size_t>(oc * C) * we);
  const auto* ws = static_cast<const std::uint8_t*>(w.data);
  for (std::int64_t c = 0; c < C; ++c)
    for (std::int64_t m = 0; m < M; ++m)
      for (std::int64_t t = 0; t < kk; ++t)
        std::memcpy(wt.data() + static_cast<std::size_t>((t * M + m) * C + c) * we,
                    ws + static_cast<std::size_t>((c * M + m) * kk + t) * we, we);
  model::Quant wq;
  TensorView wv{w.dtype, {oc, C, 1, 1}, wt.data(), nullptr};
  if (w.quant != nullptr) {
    // ConvTranspose's weight channels are axis 1 (M); the Conv's are axis 0.
    if (w.quant->per_channel() && (detail::quant_axis(w) != 1 || static_cast<std::int64_t>(w.quant->scale.size()) != M))
      return *why = "weight quantization is not per output channel", nullptr;
    wq = quant_per_tap(*w.quant, kk);
    wv.quant = &wq;
  }
  std::vector<std::uint8_t> bt;
  model::Quant bq;
  TensorView bv;
  if (bias != nullptr) {
    if (bias->elements() != M) return *why = "bias size", nullptr;
    bt = per_tap(bias->data, M, kk, model::dtype_size(bias->dtype));
    bv = TensorView{bias->dtype, {oc}, bt.data(), nullptr};
    if (bias->quant != nullptr && !bias->quant->empty()) {
      bq = quant_per_tap(*bias->quant, kk);
      bv.quant = &bq;
    }
  }
  TensorView mid = y;
  mid.dims = {N, oc, H, W};
  mid.data = nullptr;
  auto conv = make_conv(model::Attrs{}, x, wv, bias != nullptr ? &bv : nullptr, mid, fusion, threads, why);
  if (!conv) return nullptr;
  const std::string impl = "shuffle:" + conv->impl();
  auto kernel = std::make_unique<ShuffledConv>(std::move(conv), std::move(wt),
                                               ShuffledConv::Geometry{N, H, W, kh, kw, M, model::dtype_size(y.dtype)});
  return std::make_unique<FastOp>(std::move(kernel), impl);
}

}  // namespace svp::kernels::onednn
