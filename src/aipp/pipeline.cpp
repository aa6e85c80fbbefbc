#include "aipp/pipeline.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

namespace svp::aipp {
namespace {

using model::DType;

constexpr int kWeightBits = 11;  // OpenCV's INTER_RESIZE_COEF_BITS
constexpr int kOne = 1 << kWeightBits;

// Resize along one axis: output i reads crop positions i0[i], i1[i] with weight w[i] (Q11)
// on i1. Off and nearest have w = 0.
struct AxisMap {
  std::vector<std::int32_t> i0, i1, w;
};

AxisMap axis_map(Resize mode, std::int32_t in, std::int32_t out) {
  AxisMap m;
  m.i0.resize(static_cast<std::size_t>(out));
  m.i1.resize(static_cast<std::size_t>(out));
  m.w.assign(static_cast<std::size_t>(out), 0);
  const double scale = static_cast<double>(in) / out;
  for (std::int32_t i = 0; i < out; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (mode == Resize::kOff) {
      m.i0[k] = m.i1[k] = i;
    } else if (mode == Resize::kNearest) {
      // OpenCV INTER_NEAREST: floor(i * in / out), exact in integers.
      const auto s = static_cast<std::int32_t>(static_cast<std::int64_t>(i) * in / out);
      m.i0[k] = m.i1[k] = std::min(s, in - 1);
    } else {
      // OpenCV INTER_LINEAR: half-pixel centres, clamped at both ends (weight 0 there).
      const float f = static_cast<float>((i + 0.5) * scale - 0.5);
      auto s = static_cast<std::int32_t>(std::floor(f));
      float frac = f - static_cast<float>(s);
      if (s < 0) {
        s = 0;
        frac = 0;
      }
      if (s >= in - 1) {
        s = in - 1;
        frac = 0;
      }
      m.i0[k] = s;
      m.i1[k] = std::min(s + 1, in - 1);
      m.w[k] = static_cast<std::int32_t>(std::lrint(frac * kOne));
    }
  }
  return m;
}

// Padding index map: output coordinate -> inner coordinate, or -1 for a constant border.
std::int32_t border(std::int32_t i, std::int32_t n, Padding mode) {
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case Padding::kReplication:
      return i < 0 ? 0 : n - 1;
    case Padding::kReflection:  // ... 2 1 | 0 1 2 ... (the edge pixel is not repeated)
      if (n == 1) return 0;
      return i < 0 ? -i : 2 * (n - 1) - i;
    case Padding::kSymmetric:  // ... 1 0 | 0 1 2 ... (the edge pixel is repeated)
      return i < 0 ? -i - 1 : 2 * n - 1 - i;
    default:
      return -1;
  }
}

// The kernels' float -> integer rule (src/kernels/common.h round_saturate).
std::int32_t quantize(float y, float scale, std::int32_t zp, std::int32_t lo, std::int32_t hi) {
  const float x = y / scale;
  if (std::isnan(x)) return std::clamp(zp, lo, hi);
  const double v = static_cast<double>(std::nearbyint(x)) + zp;
  if (v < lo) return lo;
  if (v > hi) return hi;
  return static_cast<std::int32_t>(v);
}

// Reads the needed source pixels of one crop row, applies swap and CSC, and stores
// `channels` uint8 values per needed column.
class RowConverter {
 public:
  RowConverter(const AippParams& p, const FormatInfo& f, const BatchParams& e, const std::uint8_t* src,
               std::uint64_t stride, std::vector<std::int32_t> cols)
      : p_(p), f_(f), src_(src), stride_(stride), cols_(std::move(cols)) {
    cx_ = e.crop ? e.crop_x : 0;
    cy_ = e.crop ? e.crop_y : 0;
    pos_ = f.pos;
    if (p.ax_swap && f.x_pos >= 0) {
      // The X byte sits at the other end: every colour byte moves by one towards it.
      const int shift = f.x_pos == 0 ? -1 : 1;
      for (auto& q : pos_) q += shift;
    }
    if (p.rbuv_swap) {
      if (f.yuv) std::swap(pos_[1], pos_[2]);
      else std::swap(pos_[0], pos_[2]);
    }
    for (int i = 0; i < 9; ++i) m_[i] = p.matrix[i];
    for (int i = 0; i < 3; ++i) {
      ib_[i] = p.in_bias[i];
      ob_[i] = p.out_bias[i];
    }
    sx_.resize(cols_.size());
    for (std::size_t k = 0; k < cols_.size(); ++k) sx_[k] = cx_ + cols_[k];
    g_.resize(3 * cols_.size());
  }

  std::size_t columns() const { return cols_.size(); }

  // Asks the CPU to start loading the source bytes of crop row y. Downscaling reads a few
  // scattered rows of a frame far larger than the caches, so without this every row costs
  // a series of cache misses (the hardware prefetcher cannot guess the row jumps).
  void prefetch(std::int32_t y) const {
    if (cols_.empty()) return;
    const std::int64_t sy = static_cast<std::int64_t>(cy_) + y;
    const std::int64_t x0 = cx_ + cols_.front(), x1 = cx_ + cols_.back();
    auto span = [](const std::uint8_t* p, std::int64_t from, std::int64_t to) {
      for (std::int64_t i = from; i <= to; i += 64) __builtin_prefetch(p + i);
      __builtin_prefetch(p + to);
    };
    const std::uint8_t* row = src_ + static_cast<std::uint64_t>(sy) * stride_;
    switch (f_.storage) {
      case Storage::kYuvSemiPlanar: {
        span(row, x0, x1);
        const std::int64_t crow = static_cast<std::int64_t>(p_.src_h) + sy / (f_.chroma_rows_div == 2 ? 2 : 1);
        span(src_ + static_cast<std::uint64_t>(crow) * stride_, x0 & ~1, x1 | 1);
        break;
      }
      case Storage::kYuv400:
        span(row, x0, x1);
        break;
      case Storage::kPacked:
        span(row, x0 * f_.bytes_per_pixel, (x1 + 1) * f_.bytes_per_pixel - 1);
        break;
      case Storage::kPlanar:
        for (int k = 0; k < 3; ++k) {
          span(row + static_cast<std::uint64_t>(p_.src_h) * stride_ * static_cast<std::uint64_t>(pos_[static_cast<std::size_t>(k)]),
               x0, x1);
        }
        break;
    }
  }

  // Converts crop row y: out holds `channels` planes of columns() bytes each, `plane_stride`
  // bytes apart. Gathering the
  // canonical channels into int32 planes first keeps the CSC loop branch-free and
  // vectorizable (pipeline.cpp is built with -O3, src/aipp/sources.cmake).
  void convert(std::int32_t y, std::uint8_t* out, std::size_t plane_stride) const {
    const std::int64_t sy = static_cast<std::int64_t>(cy_) + y;
    const std::uint8_t* row = src_ + static_cast<std::uint64_t>(sy) * stride_;
    const std::size_t n = cols_.size();
    const std::int32_t* sx = sx_.data();
    if (f_.channels == 1) {  // YUV400: Y only (no CSC or swap, validate() rejects them)
      for (std::size_t k = 0; k < n; ++k) out[k] = row[sx[k]];
      return;
    }
    std::int32_t* c0 = g_.data();
    std::int32_t* c1 = c0 + n;
    std::int32_t* c2 = c1 + n;
    switch (f_.storage) {
      case Storage::kYuvSemiPlanar: {
        const std::int64_t crow = static_cast<std::int64_t>(p_.src_h) + sy / (f_.chroma_rows_div == 2 ? 2 : 1);
        const std::uint8_t* uv = src_ + static_cast<std::uint64_t>(crow) * stride_;
        const std::uint8_t* u = uv + pos_[1];
        const std::uint8_t* v = uv + pos_[2];
        for (std::size_t k = 0; k < n; ++k) {
          const std::int32_t pair = sx[k] & ~1;
          c0[k] = row[sx[k]];
          c1[k] = u[pair];
          c2[k] = v[pair];
        }
        break;
      }
      case Storage::kPacked: {
        const std::uint8_t* r0 = row + pos_[0];
        const std::uint8_t* r1 = row + pos_[1];
        const std::uint8_t* r2 = row + pos_[2];
        const std::int32_t bpp = f_.bytes_per_pixel;
        for (std::size_t k = 0; k < n; ++k) {
          const std::int32_t o = sx[k] * bpp;
          c0[k] = r0[o];
          c1[k] = r1[o];
          c2[k] = r2[o];
        }
        break;
      }
      case Storage::kPlanar: {
        const std::uint64_t plane = static_cast<std::uint64_t>(p_.src_h) * stride_;
        const std::uint8_t* r0 = row + plane * static_cast<std::uint64_t>(pos_[0]);
        const std::uint8_t* r1 = row + plane * static_cast<std::uint64_t>(pos_[1]);
        const std::uint8_t* r2 = row + plane * static_cast<std::uint64_t>(pos_[2]);
        for (std::size_t k = 0; k < n; ++k) {
          c0[k] = r0[sx[k]];
          c1[k] = r1[sx[k]];
          c2[k] = r2[sx[k]];
        }
        break;
      }
      case Storage::kYuv400:
        break;  // handled above
    }
    if (!p_.csc) {
      for (std::size_t k = 0; k < n; ++k) {
        out[k] = static_cast<std::uint8_t>(c0[k]);
        out[plane_stride + k] = static_cast<std::uint8_t>(c1[k]);
        out[2 * plane_stride + k] = static_cast<std::uint8_t>(c2[k]);
      }
      return;
    }
    for (int i = 0; i < 3; ++i) {
      const std::int32_t m0 = m_[3 * i], m1 = m_[3 * i + 1], m2 = m_[3 * i + 2];
      // Input biases folded into a constant: sum m_j (c_j - b_j) = sum m_j c_j - sum m_j b_j.
      const std::int32_t k0 = (1 << (kCscShift - 1)) - (m0 * ib_[0] + m1 * ib_[1] + m2 * ib_[2]);
      const std::int32_t ob = ob_[i];
      std::uint8_t* o = out + static_cast<std::size_t>(i) * plane_stride;
      for (std::size_t k = 0; k < n; ++k) {
        std::int32_t v = ((m0 * c0[k] + m1 * c1[k] + m2 * c2[k] + k0) >> kCscShift) + ob;
        v = v < 0 ? 0 : v;
        v = v > 255 ? 255 : v;
        o[k] = static_cast<std::uint8_t>(v);
      }
    }
  }

 private:
  const AippParams& p_;
  const FormatInfo& f_;
  const std::uint8_t* src_;
  std::uint64_t stride_;
  std::vector<std::int32_t> cols_;  // needed crop columns, ascending
  std::vector<std::int32_t> sx_;    // their source columns
  mutable std::vector<std::int32_t> g_;  // gathered channels, 3 planes of cols_.size()
  std::int32_t cx_ = 0, cy_ = 0;
  std::array<std::int32_t, 3> pos_{};
  int m_[9] = {};
  int ib_[3] = {};
  int ob_[3] = {};
};

// Writes DTC'd values of one resized row (rw pixels × C channels, uint8 in) as T.
template <typename T>
struct Lut {
  std::array<std::array<T, 256>, 4> v;
};

template <typename T>
Status run_typed(const AippParams& p, const FormatInfo& f, const BatchParams& e, const std::uint8_t* src,
                 std::uint64_t stride, model::Layout layout, const model::TensorView& out, const Lut<T>& lut) {
  const auto b = static_cast<std::size_t>(&e - p.batches.data());
  const Size crop = after_crop(p, b);
  const Size padded = after_padding(p, b);  // what the resize stage reads
  const bool pad = e.padding != Padding::kOff;
  const std::int32_t left = pad ? e.pad_left : 0;
  const std::int32_t top = pad ? e.pad_top : 0;
  const std::int32_t rw = e.resize != Resize::kOff ? e.resize_out_w : padded.w;
  const std::int32_t rh = e.resize != Resize::kOff ? e.resize_out_h : padded.h;
  const AxisMap mx = axis_map(e.resize, padded.w, rw);
  const AxisMap my = axis_map(e.resize, padded.h, rh);
  const int C = f.channels;

  // Padded-image coordinates -> crop coordinates, or -1 for a constant border pixel.
  auto crop_x = [&](std::int32_t px) { return border(px - left, crop.w, e.padding); };
  auto crop_y = [&](std::int32_t py) { return border(py - top, crop.h, e.padding); };

  // Needed crop columns and each output column's two positions among them; a constant
  // border pixel reads the extra slot `ncols` (pixel value 0) at the end of every row plane.
  std::vector<std::int32_t> cols;
  cols.reserve(2 * static_cast<std::size_t>(rw));
  for (std::int32_t i = 0; i < rw; ++i) {
    for (const std::int32_t px : {mx.i0[static_cast<std::size_t>(i)], mx.i1[static_cast<std::size_t>(i)]}) {
      const std::int32_t cx = crop_x(px);
      if (cx >= 0) cols.push_back(cx);
    }
  }
  std::sort(cols.begin(), cols.end());
  cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
  const auto ncols = cols.size();
  auto slot = [&](std::int32_t px) {
    const std::int32_t cx = crop_x(px);
    if (cx < 0) return static_cast<std::int32_t>(ncols);
    return static_cast<std::int32_t>(std::lower_bound(cols.begin(), cols.end(), cx) - cols.begin());
  };
  std::vector<std::int32_t> k0(static_cast<std::size_t>(rw)), k1(static_cast<std::size_t>(rw));
  for (std::int32_t i = 0; i < rw; ++i) {
    const auto u = static_cast<std::size_t>(i);
    k0[u] = slot(mx.i0[u]);
    k1[u] = slot(mx.i1[u]);
  }
  RowConverter conv(p, f, e, src, stride, std::move(cols));

  // Two converted crop rows (C planes of the needed columns + the constant slot each),
  // reused while consecutive output rows share them, and one all-constant border row.
  const std::size_t plane_len = ncols + 1;
  const std::size_t row_len = plane_len * static_cast<std::size_t>(C);
  std::vector<std::uint8_t> rows_buf(2 * row_len, 0);
  const std::vector<std::uint8_t> border_row(row_len, 0);
  std::int32_t tag[2] = {-1, -1};
  // `keep` is a slot that must survive (the other row of the current pair), or -1.
  auto get_row = [&](std::int32_t y, int keep) -> int {
    for (int s = 0; s < 2; ++s) {
      if (tag[s] == y) return s;
    }
    // Rows mostly move forward, so the smaller tag is the better victim.
    const int s = keep >= 0 ? 1 - keep : (tag[0] < tag[1] ? 0 : 1);
    tag[s] = y;
    std::uint8_t* r = rows_buf.data() + static_cast<std::size_t>(s) * row_len;
    conv.convert(y, r, plane_len);
    return s;
  };
  // Row pointer for padded row py: a converted crop row or the constant border row.
  auto row_ptr = [&](std::int32_t py, int keep, int* used) -> const std::uint8_t* {
    const std::int32_t cy = crop_y(py);
    if (cy < 0) {
      *used = -1;
      return border_row.data();
    }
    *used = get_row(cy, keep);
    return rows_buf.data() + static_cast<std::size_t>(*used) * row_len;
  };

  T* o = static_cast<T*>(out.data);
  const bool nchw = layout == model::Layout::kNCHW;
  const std::size_t plane = static_cast<std::size_t>(rh) * static_cast<std::size_t>(rw);

  // One resized + DTC'd row of rw pixels, interleaved channels.
  std::vector<T> line(static_cast<std::size_t>(rw) * static_cast<std::size_t>(C));
  auto make_line = [&](std::int32_t ry) {
    const auto u = static_cast<std::size_t>(ry);
    int sa = -1, sb = -1;
    const std::uint8_t* a = row_ptr(my.i0[u], -1, &sa);
    const std::uint8_t* bb = row_ptr(my.i1[u], sa, &sb);
    if (u + 1 < my.i0.size()) {  // the next output row's source rows, while this one computes
      const std::int32_t n0 = crop_y(my.i0[u + 1]), n1 = crop_y(my.i1[u + 1]);
      if (n0 >= 0 && n0 != crop_y(my.i0[u]) && n0 != crop_y(my.i1[u])) conv.prefetch(n0);
      if (n1 >= 0 && n1 != crop_y(my.i1[u])) conv.prefetch(n1);
    }
    const std::int32_t wy = my.w[u];
    T* l = line.data();
    const std::int32_t* i0 = k0.data();
    const std::int32_t* i1 = k1.data();
    const std::int32_t* wxs = mx.w.data();
    for (int c = 0; c < C; ++c) {
      const auto uc = static_cast<std::size_t>(c);
      const std::uint8_t* ac = a + uc * plane_len;
      const std::uint8_t* bc = bb + uc * plane_len;
      const T* lt = lut.v[uc].data();
      T* lc = l + uc;
      if (e.resize == Resize::kBilinear) {
        // Q11 weights: top/bottom sums ≤ 255·2048, the blend ≤ 255·2^22, inside uint32.
        const auto wy1 = static_cast<std::uint32_t>(wy), wy0 = static_cast<std::uint32_t>(kOne - wy);
        for (std::int32_t x = 0; x < rw; ++x) {
          const auto ux = static_cast<std::size_t>(x);
          const auto wx = static_cast<std::uint32_t>(wxs[ux]), wx0 = static_cast<std::uint32_t>(kOne) - wx;
          const std::uint32_t t = ac[i0[ux]] * wx0 + ac[i1[ux]] * wx;
          const std::uint32_t d = bc[i0[ux]] * wx0 + bc[i1[ux]] * wx;
          const std::uint32_t v = (t * wy0 + d * wy1 + (1u << (2 * kWeightBits - 1))) >> (2 * kWeightBits);
          lc[ux * static_cast<std::size_t>(C)] = lt[v];
        }
      } else {
        for (std::int32_t x = 0; x < rw; ++x) {
          const auto ux = static_cast<std::size_t>(x);
          lc[ux * static_cast<std::size_t>(C)] = lt[ac[i0[ux]]];
        }
      }
    }
  };

  for (std::int32_t y = 0; y < rh; ++y) {
    make_line(y);
    const auto uy = static_cast<std::size_t>(y);
    if (!nchw) {  // NHWC: the line is the output row
      std::memcpy(o + uy * static_cast<std::size_t>(rw) * static_cast<std::size_t>(C), line.data(),
                  line.size() * sizeof(T));
      continue;
    }
    for (int c = 0; c < C; ++c) {
      const auto uc = static_cast<std::size_t>(c);
      T* dst = o + uc * plane + uy * static_cast<std::size_t>(rw);
      for (std::int32_t x = 0; x < rw; ++x) {
        dst[x] = line[static_cast<std::size_t>(x) * static_cast<std::size_t>(C) + uc];
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status run(const AippParams& p, std::size_t batch_image, const std::uint8_t* src, std::uint64_t src_stride,
           std::uint64_t src_bytes, model::Layout layout, const model::TensorView& out) {
  SVP_RETURN_IF_ERROR(validate(p));
  const FormatInfo& f = *format_info(p.format);
  const std::size_t entry = p.batches.size() == 1 ? 0 : batch_image;
  if (entry >= p.batches.size()) {
    return Error(err::kInvalidParam, "AIPP: batch image {} has no parameter entry ({} entries)", batch_image,
                 p.batches.size());
  }
  const BatchParams& e = p.batches[entry];

  // Source bounds: the last row only needs its pixel bytes, not a whole stride.
  auto geo = source_geometry(p.format, p.src_w, p.src_h, 1);
  if (!geo.ok()) return geo.status();
  if (src == nullptr) return Error(err::kInvalidParam, "AIPP: source image is NULL");
  if (src_stride < geo->row_bytes) {
    return Error(err::kInvalidParam, "AIPP: source stride {} is smaller than a {}-pixel row of {} ({} bytes)",
                 src_stride, p.src_w, f.name, geo->row_bytes);
  }
  const std::uint64_t need = (geo->rows - 1) * src_stride + geo->row_bytes;
  if (src_bytes < need) {
    return Error(err::kInvalidParam, "AIPP: source buffer of {} bytes is smaller than a {}x{} {} image ({} bytes)",
                 src_bytes, p.src_w, p.src_h, f.name, need);
  }

  // Output tensor: one image of the post-AIPP size.
  if (layout != model::Layout::kNCHW && layout != model::Layout::kNHWC) {
    return Error(err::kInvalidParam, "AIPP output layout must be NCHW or NHWC");
  }
  const Size s = output_size(p, entry);
  const bool nchw = layout == model::Layout::kNCHW;
  const std::vector<std::int64_t> want =
      nchw ? std::vector<std::int64_t>{1, f.channels, s.h, s.w} : std::vector<std::int64_t>{1, s.h, s.w, f.channels};
  if (out.dims != want) {
    return Error(err::kInvalidParam,
                 "AIPP output {}x{} with {} channel(s) does not match the model input tensor of this execution "
                 "(dims {}; a dynamic-HW model needs the post-AIPP size of the selected gear)",
                 s.w, s.h, f.channels, fmt::join(out.dims, "x"));
  }
  if (out.data == nullptr) return Error(err::kInvalidParam, "AIPP output tensor has no data");

  if (out.dtype == DType::kFloat32) {
    Lut<float> lut;
    for (int c = 0; c < 4; ++c) {
      for (int v = 0; v < 256; ++v) {
        lut.v[static_cast<std::size_t>(c)][static_cast<std::size_t>(v)] =
            ((static_cast<float>(v) - e.mean[c]) - e.min[c]) * e.var_reci[c];
      }
    }
    return run_typed<float>(p, f, e, src, src_stride, layout, out, lut);
  }
  if (out.dtype == DType::kInt8 || out.dtype == DType::kUint8) {
    if (out.quant == nullptr || out.quant->scale.size() != 1 || out.quant->zero_point.size() != 1 ||
        !(out.quant->scale[0] > 0)) {
      return Error(err::kInvalidParam, "AIPP: an int8/uint8 model input needs per-tensor quantization");
    }
    const float scale = out.quant->scale[0];
    const std::int32_t zp = out.quant->zero_point[0];
    const bool s8 = out.dtype == DType::kInt8;
    const std::int32_t lo = s8 ? -128 : 0, hi = s8 ? 127 : 255;
    Lut<std::uint8_t> lut;  // int8 stored as its bytes
    for (int c = 0; c < 4; ++c) {
      for (int v = 0; v < 256; ++v) {
        const float y = ((static_cast<float>(v) - e.mean[c]) - e.min[c]) * e.var_reci[c];
        lut.v[static_cast<std::size_t>(c)][static_cast<std::size_t>(v)] =
            static_cast<std::uint8_t>(quantize(y, scale, zp, lo, hi));
      }
    }
    return run_typed<std::uint8_t>(p, f, e, src, src_stride, layout, out, lut);
  }
  return Error(err::kInvalidParam, "AIPP output type {} is not supported (float32, int8, uint8)",
               model::dtype_name(out.dtype));
}

}  // namespace svp::aipp
