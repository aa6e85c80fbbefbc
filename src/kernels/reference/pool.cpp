// MaxPool (with its optional Indices output), AveragePool, GlobalAveragePool, GlobalMaxPool,
// MaxUnpool.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/reference/ops.h"
#include "kernels/tensor_buffer.h"
#include "kernels/reference/typed.h"
#include "kernels/reference/spatial.h"

namespace svp::kernels::detail {
namespace {

struct PoolSetup {
  Window w;
  std::int64_t planes = 0;  // N * C
  Shape out_shape;
};

Result<PoolSetup> pool_setup(const InferCtx& c) {
  PoolSetup p;
  const Shape& x = c.in[0];
  SVP_RETURN_IF_ERROR(spatial_input(c.op, x, p.w));
  const AttrReader a = c.attr();
  if (!a.has("kernel_shape")) return Malformed(c.op, "attribute \"kernel_shape\" is required");
  KN_ASSIGN(std::vector<std::int64_t> ks, a.ints("kernel_shape", {}));
  if (ks.size() != static_cast<std::size_t>(p.w.nsp)) {
    return Malformed(c.op, "attribute \"kernel_shape\" must have {} values, got {}", p.w.nsp, ks.size());
  }
  for (int i = 0; i < p.w.nsp; ++i) {
    const std::int64_t k = ks[static_cast<std::size_t>(i)];
    if (k < 1 || k > (1 << 30)) return Invalid(c.op, "attribute \"kernel_shape\" values must be positive, got {}", k);
    if (x[2 + static_cast<std::size_t>(i)] < 1)
      return Invalid(c.op, "input X has an empty spatial dim: {}", shape_str(x));
    p.w.k[3 - p.w.nsp + i] = k;
  }
  KN_ASSIGN(AutoPad ap, read_auto_pad(a));
  KN_ASSIGN(bool ceil_mode, a.flag("ceil_mode", false));
  if (std::string(c.op) == "AveragePool") {
    KN_ASSIGN(bool include_pad, a.flag("count_include_pad", false));
    (void)include_pad;
  }
  if (std::string(c.op) == "MaxPool") {
    KN_ASSIGN(std::int64_t so, a.i("storage_order", 0));
    if (so != 0 && so != 1) return Invalid(c.op, "attribute \"storage_order\" must be 0 or 1");
  }
  SVP_RETURN_IF_ERROR(read_window_attrs(a, p.w, ap));
  SVP_RETURN_IF_ERROR(forward_window(c.op, p.w, ap, ceil_mode, true));
  p.planes = x[0] * x[1];
  p.out_shape = {x[0], x[1]};
  for (int i = 3 - p.w.nsp; i < 3; ++i) p.out_shape.push_back(p.w.out[i]);
  return p;
}

Result<std::vector<Shape>> infer_pool(const InferCtx& c) {
  KN_ASSIGN(PoolSetup p, pool_setup(c));
  return std::vector<Shape>{p.out_shape};
}

// Max over the valid taps; NaN propagates; a window without valid taps gives lowest.
// With `idx`, also the index of the (first) maximum in the whole input: N and C row-major,
// the spatial dims row-major or, with `col_major` (storage_order 1), column-major.
template <typename T>
void max_pool(const PoolSetup& p, const T* x, T* y, std::int64_t* idx = nullptr, bool col_major = false) {
  const Window& w = p.w;
  const T lowest =
      std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
  for (std::int64_t pl = 0; pl < p.planes; ++pl) {
    const T* xp = x + pl * w.in_size();
    T* yp = y + pl * w.out_size();
    T m = lowest;
    std::int64_t at = 0;
    for_each_window(
        w,
        [&](std::int64_t) {
          m = lowest;
          at = 0;
        },
        [&](std::int64_t, std::int64_t i) {
          const T v = xp[i];
          if (v > m || v != v) {
            m = v;
            at = i;
          }
        },
        [&](std::int64_t o) {
          yp[o] = m;
          if (idx == nullptr) return;
          std::int64_t local = at;
          if (col_major) {
            const std::int64_t i2 = at % w.in[2], i1 = (at / w.in[2]) % w.in[1], i0 = at / (w.in[2] * w.in[1]);
            local = (i2 * w.in[1] + i1) * w.in[0] + i0;
          }
          idx[pl * w.out_size() + o] = pl * w.in_size() + local;
        });
  }
}

Result<std::vector<Shape>> infer_max_pool(const InferCtx& c) {
  KN_ASSIGN(PoolSetup p, pool_setup(c));
  if (c.num_outputs > 2) return Invalid(c.op, "has at most 2 outputs (Y, Indices), got {}", c.num_outputs);
  if (c.num_outputs == 2) return std::vector<Shape>{p.out_shape, p.out_shape};
  return std::vector<Shape>{p.out_shape};
}

// Every float and integer type (float16 through the float path would round: it is not
// offered); quantized tensors with a shared encoding pool their integers, as max commutes
// with a monotonic dequantization; others go through the generic int8 path.
Status run_max_pool(const RunCtx& c) {
  const TensorView &x = c.in[0], &y = c.out[0];
  KN_ASSIGN(PoolSetup p, with_infer_ctx(c, pool_setup));
  std::int64_t* idx = nullptr;
  if (c.out.size() == 2) {
    if (c.out[1].dtype != DType::kInt64) return BadType(c.op, "output 1 (Indices) must be int64, got {}", type_desc(c.out[1]));
    idx = c.out[1].as<std::int64_t>();
  }
  KN_ASSIGN(std::int64_t so, c.attr().i("storage_order", 0));
  if (same_encoding(x, y) && (is_quantized(x) || !has_quant(x))) {
    const bool ok = visit_types<kNumericTypes>(x.dtype, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, Half>) max_pool(p, x.as<const T>(), y.as<T>(), idx, so == 1);
    });
    if (ok && x.dtype != DType::kFloat16) return Status::Ok();
    return bad_type(c.op, "input 0", x, kNumericTypes);
  }
  if (idx != nullptr) return BadType(c.op, "the Indices output needs the input and output Y of one encoding");
  return run_via_float(c, [](const RunCtx& fc) -> Status {
    SVP_RETURN_IF_ERROR(require_f32(fc, {0}));
    KN_ASSIGN(PoolSetup fp, with_infer_ctx(fc, pool_setup));
    max_pool(fp, fc.in[0].as<const float>(), fc.out[0].as<float>());
    return Status::Ok();
  });
}

}  // namespace

Result<AvgPoolGeometry> avg_pool_geometry(const char* op, const Attrs& attrs, const Shape& x) {
  const std::vector<Shape> shapes{x};
  const std::vector<const TensorView*> values{nullptr};
  KN_ASSIGN(PoolSetup p, pool_setup(InferCtx{op, attrs, shapes, values, 1}));
  KN_ASSIGN(bool include_pad, AttrReader(op, attrs).flag("count_include_pad", false));
  AvgPoolGeometry g;
  g.w = p.w;
  g.planes = p.planes;
  const Window& w = p.w;
  // Divisor per output element: with count_include_pad, the taps inside the padded input
  // [-pad_begin, in + pad_end); without, the taps inside the input. Separable per dim.
  std::array<std::vector<std::int64_t>, 3> cnt;
  for (int d = 0; d < 3; ++d) {
    const std::int64_t lo = include_pad ? -w.pb[d] : 0, hi = include_pad ? w.in[d] + w.pe[d] : w.in[d];
    for (std::int64_t o = 0; o < w.out[d]; ++o) {
      std::int64_t n = 0;
      for (std::int64_t k = 0; k < w.k[d]; ++k) {
        const std::int64_t i = o * w.s[d] - w.pb[d] + k * w.d[d];
        n += (i >= lo && i < hi) ? 1 : 0;
      }
      cnt[static_cast<std::size_t>(d)].push_back(n);
    }
  }
  g.div.reserve(static_cast<std::size_t>(w.out_size()));
  for (std::int64_t o0 = 0; o0 < w.out[0]; ++o0)
    for (std::int64_t o1 = 0; o1 < w.out[1]; ++o1)
      for (std::int64_t o2 = 0; o2 < w.out[2]; ++o2)
        g.div.push_back(cnt[0][static_cast<std::size_t>(o0)] * cnt[1][static_cast<std::size_t>(o1)] *
                        cnt[2][static_cast<std::size_t>(o2)]);
  return g;
}

namespace {

Status run_avg_pool_float(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0}));
  KN_ASSIGN(AvgPoolGeometry g, avg_pool_geometry(c.op, c.attrs, c.in[0].dims));
  const Window& w = g.w;
  const float* x = c.in[0].as<const float>();
  float* y = c.out[0].as<float>();
  for (std::int64_t pl = 0; pl < g.planes; ++pl) {
    const float* xp = x + pl * w.in_size();
    float* yp = y + pl * w.out_size();
    double sum = 0;
    for_each_window(
        w, [&](std::int64_t) { sum = 0; }, [&](std::int64_t, std::int64_t i) { sum += xp[i]; },
        [&](std::int64_t o) {
          const std::int64_t n = g.div[static_cast<std::size_t>(o)];
          yp[o] = n > 0 ? static_cast<float>(sum / static_cast<double>(n)) : 0.0f;
        });
  }
  return Status::Ok();
}

Status run_avg_pool(const RunCtx& c) { return run_via_float(c, run_avg_pool_float); }

Result<std::vector<Shape>> infer_global_pool(const InferCtx& c) {
  const Shape& x = c.in[0];
  if (x.size() < 3) return Invalid(c.op, "input X must have rank >= 3 (N, C, spatial...), got {}", shape_str(x));
  Shape out = x;
  for (std::size_t i = 2; i < x.size(); ++i) {
    if (x[i] < 1) return Invalid(c.op, "input X has an empty spatial dim: {}", shape_str(x));
    out[i] = 1;
  }
  return std::vector<Shape>{out};
}

// Global pooling: y[plane] = reduce(the plane's spatial values), planes = N * C.
template <class Reduce>
Status run_global_pool_float(const RunCtx& c, Reduce&& reduce) {
  SVP_RETURN_IF_ERROR(require_f32(c, {0}));
  const Shape& x = c.in[0].dims;
  const std::int64_t planes = x[0] * x[1];
  const std::int64_t sp = numel(x) / std::max<std::int64_t>(planes, 1);
  const float* xp = c.in[0].as<const float>();
  float* yp = c.out[0].as<float>();
  for (std::int64_t pl = 0; pl < planes; ++pl) yp[pl] = reduce(xp + pl * sp, sp);
  return Status::Ok();
}

Status run_global_avg_pool_float(const RunCtx& c) {
  return run_global_pool_float(c, [](const float* p, std::int64_t n) {
    double sum = 0;
    for (std::int64_t i = 0; i < n; ++i) sum += p[i];
    return static_cast<float>(sum / static_cast<double>(n));
  });
}

Status run_global_avg_pool(const RunCtx& c) { return run_via_float(c, run_global_avg_pool_float); }

// NaN propagates, like MaxPool.
Status run_global_max_pool_float(const RunCtx& c) {
  return run_global_pool_float(c, [](const float* p, std::int64_t n) {
    float m = -std::numeric_limits<float>::infinity();
    for (std::int64_t i = 0; i < n; ++i) {
      if (p[i] > m || std::isnan(p[i])) m = p[i];
      if (std::isnan(m)) break;
    }
    return m;
  });
}

Status run_global_max_pool(const RunCtx& c) { return run_via_float(c, run_global_max_pool_float); }

// ---------------------------------------------------------------------------
// MaxUnpool(X, I, output_shape?): zeros with X's values scattered to the flat indices I
// (as MaxPool's Indices give them) of the default output (in - 1) * stride + kernel - pads;
// a larger output_shape pads that at the end of each spatial dim with zeros (ONNX).

struct UnpoolShapes {
  Shape def, out;
};

Result<UnpoolShapes> unpool_shapes(const InferCtx& c) {
  const Shape& x = c.in[0];
  if (c.in[1] != x) return Invalid(c.op, "indices I {} must have X's shape {}", shape_str(c.in[1]), shape_str(x));
  Window w;
  SVP_RETURN_IF_ERROR(spatial_input(c.op, x, w));
  const AttrReader a = c.attr();
  if (!a.has("kernel_shape")) return Malformed(c.op, "attribute \"kernel_shape\" is required");
  KN_ASSIGN(std::vector<std::int64_t> ks, a.ints_n("kernel_shape", static_cast<std::size_t>(w.nsp), 1));
  for (int i = 0; i < w.nsp; ++i) {
    const std::int64_t k = ks[static_cast<std::size_t>(i)];
    if (k < 1 || k > (1 << 30)) return Invalid(c.op, "attribute \"kernel_shape\" values must be positive, got {}", k);
    w.k[3 - w.nsp + i] = k;
  }
  SVP_RETURN_IF_ERROR(read_window_attrs(a, w, AutoPad::kNotSet, false));
  UnpoolShapes u;
  u.def = {x[0], x[1]};
  for (int i = 3 - w.nsp; i < 3; ++i) {
    const std::int64_t o = (w.in[i] - 1) * w.s[i] + w.k[i] - w.pb[i] - w.pe[i];
    if (o < 1) return Invalid(c.op, "strides, kernel and pads leave no output in spatial dim {}", i);
    u.def.push_back(o);
  }
  u.out = u.def;
  if (c.has(2)) {
    KN_ASSIGN(const TensorView* t, c.need_value(2, "output_shape"));
    KN_ASSIGN(std::vector<std::int64_t> os, read_ints(c.op, "output_shape", *t));
    bool ok = os.size() == u.def.size() && os[0] == x[0] && os[1] == x[1];
    for (std::size_t i = 2; ok && i < os.size(); ++i) ok = os[i] >= u.def[i] && os[i] <= (std::int64_t{1} << 30);
    if (!ok) {
      return Invalid(c.op, "output_shape {} must be [N, C, spatial...] at least the default {}", shape_str(os),
                     shape_str(u.def));
    }
    u.out = os;
  }
  return u;
}

Result<std::vector<Shape>> infer_max_unpool(const InferCtx& c) {
  KN_ASSIGN(UnpoolShapes u, unpool_shapes(c));
  return std::vector<Shape>{u.out};
}

Status run_max_unpool(const RunCtx& c) {
  const TensorView &x = c.in[0], &ind = c.in[1], &y = c.out[0];
  if (!same_encoding(x, y)) return BadType(c.op, "X is {} but Y is {}", type_desc(x), type_desc(y));
  if (ind.dtype != DType::kInt64) return BadType(c.op, "indices I must be int64, got {}", type_desc(ind));
  KN_ASSIGN(UnpoolShapes u, with_infer_ctx(c, unpool_shapes));
  const std::size_t es = model::dtype_size(x.dtype);
  OwnedTensor dense(x.dtype, u.def);
  const std::int64_t n = dense.elements();
  for (std::int64_t i = 0; i < x.elements(); ++i) {
    const std::int64_t at = ind.as<const std::int64_t>()[i];
    if (at < 0 || at >= n) return Invalid(c.op, "index {} is outside the unpooled {} elements", at, n);
    std::memcpy(static_cast<std::uint8_t*>(dense.view().data) + static_cast<std::size_t>(at) * es,
                static_cast<const std::uint8_t*>(x.data) + static_cast<std::size_t>(i) * es, es);
  }
  // Out-of-range table entries (-1) read the fill value 0.
  const std::vector<std::int64_t> st = strides_of(u.def);
  std::vector<std::vector<std::int64_t>> tables(u.out.size());
  for (std::size_t d = 0; d < u.out.size(); ++d) {
    for (std::int64_t o = 0; o < u.out[d]; ++o) tables[d].push_back(o < u.def[d] ? o * st[d] : -1);
  }
  gather_tables(y.data, dense.view().data, es, tables, 0);
  return Status::Ok();
}

}  // namespace

void add_pool_ops(std::vector<OpDef>& ops) {
  ops.push_back({"MaxPool", 1, 1, infer_max_pool, run_max_pool});
  ops.push_back({"AveragePool", 1, 1, infer_pool, run_avg_pool});
  ops.push_back({"GlobalAveragePool", 1, 1, infer_global_pool, run_global_avg_pool});
  ops.push_back({"GlobalMaxPool", 1, 1, infer_global_pool, run_global_max_pool});
  ops.push_back({"MaxUnpool", 2, 3, infer_max_unpool, run_max_unpool});
}

}  // namespace svp::kernels::detail
