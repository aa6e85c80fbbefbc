// Index and selection ops: Gather, GatherElements, GatherND, ScatterElements (and the
// deprecated Scatter), ScatterND, Expand, Tile, OneHot, TopK, Trilu, CumSum, DepthToSpace,
// SpaceToDepth, EyeLike, Where, Dropout (inference), Size, ConstantOfShape, Range,
// ReverseSequence. Data moves as raw elements of any type;
// only the ops that compute (CumSum, scatter reductions, TopK's ordering) look at values.
// Indices are int32 or int64; negative ones count from the end; out-of-range ones are an
// error naming the op, the index and the dimension.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "kernels/reference/ops.h"
#include "kernels/reference/typed.h"

namespace svp::kernels::detail {
namespace {

std::size_t esize(const TensorView& t) { return model::dtype_size(t.dtype); }

const std::uint8_t* bytes_of(const TensorView& t) { return static_cast<const std::uint8_t*>(t.data); }
std::uint8_t* bytes_of_out(const TensorView& t) { return static_cast<std::uint8_t*>(t.data); }

Status require_index_type(const char* op, const char* what, const TensorView& t) {
  if (t.dtype != DType::kInt64 && t.dtype != DType::kInt32) {
    return BadType(op, "{} must be int64 or int32, got {}", what, type_desc(t));
  }
  return Status::Ok();
}

Status require_same_type(const char* op, const TensorView& a, const TensorView& y) {
  if (a.dtype != y.dtype) {
    return BadType(op, "data is {} but the output is {} (they must match)", type_desc(a), type_desc(y));
  }
  if (!same_encoding(a, y)) {
    // Same type, other quantization: these ops move values, so the model's encodings are at
    // fault (the compiler gives the output its input's encoding, docs/quantization.md).
    return BadType(op,
                   "data is {} but the output is {}: an op that moves values keeps its input's encoding; "
                   "recompile the model (its output encoding was chosen separately)",
                   encoding_desc(a), encoding_desc(y));
  }
  return Status::Ok();
}

// An index into a dimension of size n, negative counting from the end.
Result<std::int64_t> fix_index(const char* op, std::int64_t v, std::int64_t n, std::int64_t axis) {
  const std::int64_t r = v < 0 ? v + n : v;
  if (r < 0 || r >= n) return Invalid(op, "index {} is out of range for dimension {} of size {}", v, axis, n);
  return r;
}

// Calls f(flat, coords) for every element of `shape` in row-major order.
template <typename F>
void for_each_index(const Shape& shape, F&& f) {
  const std::int64_t n = numel(shape);
  std::vector<std::int64_t> idx(shape.size(), 0);
  for (std::int64_t flat = 0; flat < n; ++flat) {
    f(flat, idx);
    for (std::size_t d = shape.size(); d > 0; --d) {
      if (++idx[d - 1] < shape[d - 1]) break;
      idx[d - 1] = 0;
    }
  }
}

Result<std::int64_t> axis_attr(const InferCtx& c, std::int64_t rank, std::int64_t def = 0) {
  KN_ASSIGN(std::int64_t axis, c.attr().i("axis", def));
  return norm_axis(c.op, "attribute \"axis\"", axis, rank);
}

// ---------------------------------------------------------------------------
// Gather: out = data[:axis] + indices.shape + data[axis+1:].

Result<std::vector<Shape>> infer_gather(const InferCtx& c) {
  const Shape& d = c.in[0];
  if (d.empty()) return Invalid(c.op, "data must have rank >= 1");
  KN_ASSIGN(std::int64_t axis, axis_attr(c, static_cast<std::int64_t>(d.size())));
  Shape out(d.begin(), d.begin() + axis);
  out.insert(out.end(), c.in[1].begin(), c.in[1].end());
  out.insert(out.end(), d.begin() + axis + 1, d.end());
  return std::vector<Shape>{out};
}

Status run_gather(const RunCtx& c) {
  const TensorView &x = c.in[0], &ind = c.in[1], &y = c.out[0];
  SVP_RETURN_IF_ERROR(require_same_type(c.op, x, y));
  SVP_RETURN_IF_ERROR(require_index_type(c.op, "indices", ind));
  KN_ASSIGN(std::int64_t axis, with_infer_ctx(c, [&](const InferCtx& ic) {
              return axis_attr(ic, static_cast<std::int64_t>(x.dims.size()));
            }));
  const AxisSplit s = split_at(x.dims, axis);
  const std::size_t chunk = static_cast<std::size_t>(s.inner) * esize(x);
  const std::int64_t k = ind.elements();
  std::uint8_t* dst = bytes_of_out(y);
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t j = 0; j < k; ++j) {
      KN_ASSIGN(std::int64_t i, fix_index(c.op, int_at(ind, j), s.len, axis));
      if (chunk > 0) std::memcpy(dst, bytes_of(x) + static_cast<std::size_t>(o * s.len + i) * chunk, chunk);
      dst += chunk;
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// GatherElements / ScatterElements: indices (and updates) of data's rank; the element at
// coordinates p of indices addresses data at p with p[axis] replaced by the index.

Result<std::vector<Shape>> infer_gather_elements(const InferCtx& c) {
  const Shape &d = c.in[0], &i = c.in[1];
  if (d.empty() || d.size() != i.size()) {
    return Invalid(c.op, "data {} and indices {} must have the same rank >= 1", shape_str(d), shape_str(i));
  }
  KN_ASSIGN(std::int64_t axis, axis_attr(c, static_cast<std::int64_t>(d.size())));
  (void)axis;
  return std::vector<Shape>{i};
}

Result<std::vector<Shape>> infer_scatter_elements(const InferCtx& c) {
  const Shape &d = c.in[0], &i = c.in[1];
  if (d.empty() || d.size() != i.size() || c.in[2] != i) {
    return Invalid(c.op, "data {}, indices {} and updates {} must have one rank >= 1, indices and updates one shape",
                   shape_str(d), shape_str(i), shape_str(c.in[2]));
  }
  KN_ASSIGN(std::int64_t axis, axis_attr(c, static_cast<std::int64_t>(d.size())));
  KN_ASSIGN(std::string red, c.attr().s("reduction", "none"));
  if (red != "none" && red != "add" && red != "mul" && red != "max" && red != "min") {
    return Malformed(c.op, "attribute \"reduction\" must be none, add, mul, max or min, got \"{}\"", red);
  }
  (void)axis;
  return std::vector<Shape>{d};
}

// Calls f(j, data_offset) for every element j of indices.
template <typename F>
Status for_each_element_index(const RunCtx& c, const TensorView& data, const TensorView& ind, std::int64_t axis,
                              F&& f) {
  SVP_RETURN_IF_ERROR(require_index_type(c.op, "indices", ind));
  for (std::size_t d = 0; d < ind.dims.size(); ++d) {
    if (static_cast<std::int64_t>(d) != axis && ind.dims[d] > data.dims[d]) {
      return Invalid(c.op, "indices shape {} exceeds the data shape {} in dimension {}", shape_str(ind.dims),
                     shape_str(data.dims), d);
    }
  }
  const std::vector<std::int64_t> st = strides_of(data.dims);
  Status status = Status::Ok();
  for_each_index(ind.dims, [&](std::int64_t j, const std::vector<std::int64_t>& p) {
    if (!status.ok()) return;
    auto r = fix_index(c.op, int_at(ind, j), data.dims[static_cast<std::size_t>(axis)], axis);
    if (!r.ok()) {
      status = r.status();
      return;
    }
    std::int64_t off = 0;
    for (std::size_t d = 0; d < p.size(); ++d) off += (static_cast<std::int64_t>(d) == axis ? *r : p[d]) * st[d];
    f(j, off);
  });
  return status;
}

Status run_gather_elements(const RunCtx& c) {
  const TensorView &x = c.in[0], &y = c.out[0];
  SVP_RETURN_IF_ERROR(require_same_type(c.op, x, y));
  KN_ASSIGN(std::int64_t axis, with_infer_ctx(c, [&](const InferCtx& ic) {
              return axis_attr(ic, static_cast<std::int64_t>(x.dims.size()));
            }));
  const std::size_t es = esize(x);
  return for_each_element_index(c, x, c.in[1], axis, [&](std::int64_t j, std::int64_t off) {
    std::memcpy(bytes_of_out(y) + static_cast<std::size_t>(j) * es, bytes_of(x) + static_cast<std::size_t>(off) * es,
                es);
  });
}

// The scatter reductions on element pointers of type T.
template <typename T>
void scatter_one(T* dst, T v, const std::string& red) {
  if (red == "none") {
    *dst = v;
  } else if constexpr (!std::is_same_v<T, Half>) {
    if (red == "add") *dst = store<T>(load(*dst) + load(v));
    if (red == "mul") *dst = store<T>(load(*dst) * load(v));
    if (red == "max") *dst = std::max(*dst, v);
    if (red == "min") *dst = std::min(*dst, v);
  } else {
    const float a = load(*dst), b = load(v);
    if (red == "add") *dst = store<T>(a + b);
    if (red == "mul") *dst = store<T>(a * b);
    if (red == "max") *dst = store<T>(std::max(a, b));
    if (red == "min") *dst = store<T>(std::min(a, b));
  }
}

// Runs scatter(T) for the data type (any type with reduction none, numeric otherwise).
template <typename F>
Status visit_scatter(const RunCtx& c, const std::string& red, F&& f) {
  const TensorView &x = c.in[0], &u = c.in[2], &y = c.out[0];
  SVP_RETURN_IF_ERROR(require_same_type(c.op, x, y));
  SVP_RETURN_IF_ERROR(require_same_type(c.op, u, y));
  if (x.bytes() > 0) std::memcpy(y.data, x.data, x.bytes());
  Status st = Status::Ok();
  const unsigned set = red == "none" ? kAllTypes : kNumericTypes;
  const bool ok = visit_type(x.dtype, set, [&](auto tag) { st = f(tag); });
  if (!ok) return bad_type(c.op, "data", x, set);
  return st;
}

Status run_scatter_elements(const RunCtx& c) {
  const TensorView &x = c.in[0], &u = c.in[2], &y = c.out[0];
  KN_ASSIGN(std::int64_t axis, with_infer_ctx(c, [&](const InferCtx& ic) {
              return axis_attr(ic, static_cast<std::int64_t>(x.dims.size()));
            }));
  KN_ASSIGN(std::string red, c.attr().s("reduction", "none"));
  return visit_scatter(c, red, [&](auto tag) {
    using T = decltype(tag);
    return for_each_element_index(c, x, c.in[1], axis, [&](std::int64_t j, std::int64_t off) {
      scatter_one(y.as<T>() + off, u.as<const T>()[j], red);
    });
  });
}

// ---------------------------------------------------------------------------
// GatherND / ScatterND: indices [..., k] address data slices of data.shape[b + k:] (b =
// batch_dims, the leading dims indices and data share).

struct NdSetup {
  std::int64_t b = 0, k = 0, batch = 1, tuples = 1, slice = 1;  // tuples per batch
  Shape out;
};

Result<NdSetup> nd_setup(const InferCtx& c, bool scatter) {
  const Shape &d = c.in[0], &i = c.in[1];
  NdSetup s;
  if (!scatter) {
    KN_ASSIGN(s.b, c.attr().i("batch_dims", 0));
  }
  const auto rd = static_cast<std::int64_t>(d.size()), ri = static_cast<std::int64_t>(i.size());
  if (ri < 1 || rd < 1) return Invalid(c.op, "data and indices must have rank >= 1");
  s.k = i.back();
  if (s.b < 0 || s.b >= std::min(rd, ri) || s.k < 1 || s.b + s.k > rd) {
    return Invalid(c.op, "indices shape {} (batch_dims {}) does not fit the data shape {}", shape_str(i), s.b,
                   shape_str(d));
  }
  for (std::int64_t j = 0; j < s.b; ++j) {
    if (d[static_cast<std::size_t>(j)] != i[static_cast<std::size_t>(j)]) {
      return Invalid(c.op, "batch dimension {} differs: data {}, indices {}", j, shape_str(d), shape_str(i));
    }
    s.batch *= d[static_cast<std::size_t>(j)];
  }
  for (std::int64_t j = s.b; j < ri - 1; ++j) s.tuples *= i[static_cast<std::size_t>(j)];
  for (std::int64_t j = s.b + s.k; j < rd; ++j) s.slice *= d[static_cast<std::size_t>(j)];
  s.out.assign(i.begin(), i.end() - 1);
  s.out.insert(s.out.end(), d.begin() + s.b + s.k, d.end());
  return s;
}

Result<std::vector<Shape>> infer_gather_nd(const InferCtx& c) {
  KN_ASSIGN(NdSetup s, nd_setup(c, false));
  return std::vector<Shape>{s.out};
}

Result<std::vector<Shape>> infer_scatter_nd(const InferCtx& c) {
  KN_ASSIGN(NdSetup s, nd_setup(c, true));
  if (c.in[2] != s.out) {
    return Invalid(c.op, "updates must have shape {}, got {}", shape_str(s.out), shape_str(c.in[2]));
  }
  KN_ASSIGN(std::string red, c.attr().s("reduction", "none"));
  if (red != "none" && red != "add" && red != "mul" && red != "max" && red != "min") {
    return Malformed(c.op, "attribute \"reduction\" must be none, add, mul, max or min, got \"{}\"", red);
  }
  return std::vector<Shape>{c.in[0]};
}

// Calls f(tuple_number, data_element_offset_of_the_slice) for every index tuple.
template <typename F>
Status for_each_tuple(const RunCtx& c, const NdSetup& s, F&& f) {
  const TensorView &x = c.in[0], &ind = c.in[1];
  SVP_RETURN_IF_ERROR(require_index_type(c.op, "indices", ind));
  const std::vector<std::int64_t> st = strides_of(x.dims);
  const std::int64_t batch_stride = s.b > 0 ? st[static_cast<std::size_t>(s.b - 1)] : 0;
  for (std::int64_t bt = 0; bt < s.batch; ++bt) {
    for (std::int64_t t = 0; t < s.tuples; ++t) {
      const std::int64_t tuple = bt * s.tuples + t;
      std::int64_t off = bt * batch_stride;
      for (std::int64_t j = 0; j < s.k; ++j) {
        const auto dim = static_cast<std::size_t>(s.b + j);
        KN_ASSIGN(std::int64_t v, fix_index(c.op, int_at(ind, tuple * s.k + j), x.dims[dim], s.b + j));
        off += v * st[dim];
      }
      f(tuple, off);
    }
  }
  return Status::Ok();
}

Status run_gather_nd(const RunCtx& c) {
  const TensorView &x = c.in[0], &y = c.out[0];
  SVP_RETURN_IF_ERROR(require_same_type(c.op, x, y));
  KN_ASSIGN(NdSetup s, with_infer_ctx(c, [](const InferCtx& ic) { return nd_setup(ic, false); }));
  const std::size_t chunk = static_cast<std::size_t>(s.slice) * esize(x);
  return for_each_tuple(c, s, [&](std::int64_t tuple, std::int64_t off) {
    std::memcpy(bytes_of_out(y) + static_cast<std::size_t>(tuple) * chunk,
                bytes_of(x) + static_cast<std::size_t>(off) * esize(x), chunk);
  });
}

Status run_scatter_nd(const RunCtx& c) {
  const TensorView &u = c.in[2], &y = c.out[0];
  KN_ASSIGN(NdSetup s, with_infer_ctx(c, [](const InferCtx& ic) { return nd_setup(ic, true); }));
  KN_ASSIGN(std::string red, c.attr().s("reduction", "none"));
  return visit_scatter(c, red, [&](auto tag) {
    using T = decltype(tag);
    return for_each_tuple(c, s, [&](std::int64_t tuple, std::int64_t off) {
      for (std::int64_t e = 0; e < s.slice; ++e) scatter_one(y.as<T>() + off + e, u.as<const T>()[tuple * s.slice + e], red);
    });
  });
}

// ---------------------------------------------------------------------------
// Expand (bidirectional broadcast to a shape input) and Tile (repeats input).

Result<std::vector<std::int64_t>> const_ints(const InferCtx& c, std::size_t i, const char* what) {
  KN_ASSIGN(const TensorView* t, c.need_value(i, what));
  return read_ints(c.op, what, *t);
}

Result<std::vector<Shape>> infer_expand(const InferCtx& c) {
  KN_ASSIGN(std::vector<std::int64_t> shape, const_ints(c, 1, "shape"));
  for (std::int64_t d : shape) {
    if (d < 0) return Invalid(c.op, "shape {} has a negative dimension", shape_str(shape));
  }
  KN_ASSIGN(Shape out, broadcast_shapes(c.op, c.in[0], shape));
  return std::vector<Shape>{out};
}

Status run_expand(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_same_type(c.op, c.in[0], c.out[0]));
  broadcast_copy(c.in[0], c.out[0]);
  return Status::Ok();
}

Result<std::vector<Shape>> infer_tile(const InferCtx& c) {
  KN_ASSIGN(std::vector<std::int64_t> rep, const_ints(c, 1, "repeats"));
  if (rep.size() != c.in[0].size()) {
    return Invalid(c.op, "repeats has {} values for an input of rank {}", rep.size(), c.in[0].size());
  }
  Shape out = c.in[0];
  for (std::size_t d = 0; d < out.size(); ++d) {
    if (rep[d] < 0) return Invalid(c.op, "repeats must not be negative, got {}", rep[d]);
    if (out[d] != 0 && rep[d] > kMaxElements / out[d]) return Invalid(c.op, "the output is too large");
    out[d] *= rep[d];
  }
  return std::vector<Shape>{out};
}

Status run_tile(const RunCtx& c) {
  const TensorView &x = c.in[0], &y = c.out[0];
  SVP_RETURN_IF_ERROR(require_same_type(c.op, x, y));
  const std::vector<std::int64_t> st = strides_of(x.dims);
  std::vector<std::vector<std::int64_t>> tables(x.dims.size());
  for (std::size_t d = 0; d < x.dims.size(); ++d) {
    for (std::int64_t o = 0; o < y.dims[d]; ++o) tables[d].push_back((o % x.dims[d]) * st[d]);
  }
  gather_tables(y.data, x.data, esize(x), tables, 0);
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// OneHot(indices, depth, values[off, on], axis = -1): the depth dim inserted at axis.

Result<std::vector<Shape>> infer_onehot(const InferCtx& c) {
  KN_ASSIGN(const TensorView* dv, c.need_value(1, "depth"));
  if (dv->elements() != 1) return Invalid(c.op, "depth must hold one value, got shape {}", shape_str(dv->dims));
  const double depth = value_at(*dv, 0);
  if (!(depth >= 1) || depth > static_cast<double>(kMaxElements)) {
    return Invalid(c.op, "depth must be at least 1, got {}", depth);
  }
  if (c.in[2] != Shape{2}) return Invalid(c.op, "values must have shape [2], got {}", shape_str(c.in[2]));
  const auto r = static_cast<std::int64_t>(c.in[0].size());
  KN_ASSIGN(std::int64_t axis, c.attr().i("axis", -1));
  KN_ASSIGN(std::int64_t a, norm_axis(c.op, "attribute \"axis\"", axis, r + 1));
  Shape out = c.in[0];
  out.insert(out.begin() + a, static_cast<std::int64_t>(depth));
  return std::vector<Shape>{out};
}

Status run_onehot(const RunCtx& c) {
  const TensorView &ind = c.in[0], &vals = c.in[2], &y = c.out[0];
  SVP_RETURN_IF_ERROR(require_same_type(c.op, vals, y));
  KN_ASSIGN(const std::vector<Shape> checked, with_infer_ctx(c, infer_onehot));
  (void)checked;
  const auto r = static_cast<std::int64_t>(ind.dims.size());
  KN_ASSIGN(std::int64_t axis, c.attr().i("axis", -1));
  if (axis < 0) axis += r + 1;
  const AxisSplit s = split_at(y.dims, axis);
  const std::size_t es = esize(y);
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t k = 0; k < s.len; ++k) {
      for (std::int64_t i = 0; i < s.inner; ++i) {
        double v = std::trunc(value_at(ind, o * s.inner + i));
        if (v < 0) v += static_cast<double>(s.len);
        const bool on = v == static_cast<double>(k);
        std::memcpy(bytes_of_out(y) + static_cast<std::size_t>((o * s.len + k) * s.inner + i) * es,
                    bytes_of(vals) + (on ? es : 0), es);
      }
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// TopK(X, K, axis = -1, largest = 1, sorted = 1) → Values, Indices (int64). Ties keep the
// lower index first; NaN counts as larger than every number.

Result<std::vector<Shape>> infer_topk(const InferCtx& c) {
  const Shape& x = c.in[0];
  KN_ASSIGN(std::vector<std::int64_t> k, const_ints(c, 1, "K"));
  if (k.size() != 1) return Invalid(c.op, "K must hold one value, got {}", k.size());
  KN_ASSIGN(std::int64_t axis, axis_attr(c, static_cast<std::int64_t>(x.size()), -1));
  if (k[0] < 0 || k[0] > x[static_cast<std::size_t>(axis)]) {
    return Invalid(c.op, "K {} is outside [0, {}] for axis {}", k[0], x[static_cast<std::size_t>(axis)], axis);
  }
  Shape out = x;
  out[static_cast<std::size_t>(axis)] = k[0];
  return std::vector<Shape>{out, out};
}

Status run_topk(const RunCtx& c) {
  const TensorView &x = c.in[0], &y = c.out[0], &yi = c.out[1];
  SVP_RETURN_IF_ERROR(require_same_type(c.op, x, y));
  if (yi.dtype != DType::kInt64) return BadType(c.op, "output 1 (Indices) must be int64, got {}", type_desc(yi));
  KN_ASSIGN(std::int64_t axis, with_infer_ctx(c, [&](const InferCtx& ic) {
              return axis_attr(ic, static_cast<std::int64_t>(x.dims.size()), -1);
            }));
  KN_ASSIGN(bool largest, c.attr().flag("largest", true));
  const AxisSplit s = split_at(x.dims, axis);
  const std::int64_t k = y.dims[static_cast<std::size_t>(axis)];
  const bool ok = visit_types<kNumericTypes>(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* xs = x.as<const T>();
    std::vector<std::int64_t> order(static_cast<std::size_t>(s.len));
    for (std::int64_t o = 0; o < s.outer; ++o) {
      for (std::int64_t i = 0; i < s.inner; ++i) {
        const T* row = xs + o * s.len * s.inner + i;
        auto key = [&](std::int64_t j) { return static_cast<double>(load(row[j * s.inner])); };
        std::iota(order.begin(), order.end(), std::int64_t{0});
        std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
          const double va = key(a), vb = key(b);
          if (std::isnan(va) || std::isnan(vb)) return largest ? !std::isnan(vb) : !std::isnan(va);
          return largest ? va > vb : va < vb;
        });
        for (std::int64_t j = 0; j < k; ++j) {
          const std::int64_t at = (o * k + j) * s.inner + i;
          y.as<T>()[at] = row[order[static_cast<std::size_t>(j)] * s.inner];
          yi.as<std::int64_t>()[at] = order[static_cast<std::size_t>(j)];
        }
      }
    }
  });
  if (!ok) return bad_type(c.op, "input 0", x, kNumericTypes);
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Trilu(input, k = 0, upper = 1) over the last two dims: keeps j - i >= k (upper) or
// j - i <= k (lower), zeroes the rest.

Result<std::vector<Shape>> infer_trilu(const InferCtx& c) {
  if (c.in[0].size() < 2) return Invalid(c.op, "input must have rank >= 2, got {}", shape_str(c.in[0]));
  KN_ASSIGN(bool upper, c.attr().flag("upper", true));
  (void)upper;
  if (c.has(1)) {
    KN_ASSIGN(std::vector<std::int64_t> k, const_ints(c, 1, "k"));
    if (k.size() != 1) return Invalid(c.op, "k must hold one value, got {}", k.size());
  }
  return std::vector<Shape>{c.in[0]};
}

Status run_trilu(const RunCtx& c) {
  const TensorView &x = c.in[0], &y = c.out[0];
  SVP_RETURN_IF_ERROR(require_same_type(c.op, x, y));
  KN_ASSIGN(bool upper, c.attr().flag("upper", true));
  std::int64_t k = 0;
  if (c.has(1)) {
    SVP_RETURN_IF_ERROR(require_index_type(c.op, "k", c.in[1]));
    k = int_at(c.in[1], 0);
  }
  const std::int64_t rows = x.dims[x.dims.size() - 2], cols = x.dims.back();
  const std::int64_t mats = rows * cols > 0 ? x.elements() / (rows * cols) : 0;
  const std::size_t es = esize(x);
  if (x.bytes() > 0) std::memcpy(y.data, x.data, x.bytes());
  for (std::int64_t m = 0; m < mats; ++m) {
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t j = 0; j < cols; ++j) {
        const bool keep = upper ? j - i >= k : j - i <= k;
        if (!keep) std::memset(bytes_of_out(y) + static_cast<std::size_t>((m * rows + i) * cols + j) * es, 0, es);
      }
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// CumSum(x, axis, exclusive = 0, reverse = 0); the axis is a scalar input, read at run time.

Result<std::vector<Shape>> infer_cumsum(const InferCtx& c) {
  KN_ASSIGN(bool ex, c.attr().flag("exclusive", false));
  KN_ASSIGN(bool rev, c.attr().flag("reverse", false));
  (void)ex;
  (void)rev;
  if (numel(c.in[1]) != 1) return Invalid(c.op, "axis must hold one value, got shape {}", shape_str(c.in[1]));
  if (const TensorView* a = c.value(1)) {
    KN_ASSIGN(std::vector<std::int64_t> v, read_ints(c.op, "axis", *a));
    KN_ASSIGN(std::int64_t axis, norm_axis(c.op, "axis", v[0], static_cast<std::int64_t>(c.in[0].size())));
    (void)axis;
  }
  return std::vector<Shape>{c.in[0]};
}

Status run_cumsum(const RunCtx& c) {
  const TensorView &x = c.in[0], &y = c.out[0];
  SVP_RETURN_IF_ERROR(require_same_type(c.op, x, y));
  KN_ASSIGN(std::vector<std::int64_t> av, read_ints(c.op, "axis", c.in[1]));
  KN_ASSIGN(std::int64_t axis, norm_axis(c.op, "axis", av.at(0), static_cast<std::int64_t>(x.dims.size())));
  KN_ASSIGN(bool ex, c.attr().flag("exclusive", false));
  KN_ASSIGN(bool rev, c.attr().flag("reverse", false));
  const AxisSplit s = split_at(x.dims, axis);
  const bool ok = visit_types<kNumericTypes>(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* xs = x.as<const T>();
    T* ys = y.as<T>();
    for (std::int64_t o = 0; o < s.outer; ++o) {
      for (std::int64_t i = 0; i < s.inner; ++i) {
        calc_t<T> acc{};
        for (std::int64_t j = 0; j < s.len; ++j) {
          const std::int64_t jj = rev ? s.len - 1 - j : j;
          const std::int64_t at = (o * s.len + jj) * s.inner + i;
          const auto v = load(xs[at]);
          if (!ex) acc = static_cast<calc_t<T>>(acc + v);
          ys[at] = store<T>(acc);
          if (ex) acc = static_cast<calc_t<T>>(acc + v);
        }
      }
    }
  });
  if (!ok) return bad_type(c.op, "input 0", x, kNumericTypes);
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// DepthToSpace / SpaceToDepth: a 6-D reshape, transpose and reshape, done as one strided
// gather.

struct Rearrange {
  Shape out;   // the 4-D output
  Shape view;  // the 6-D view of the input
  std::array<std::size_t, 6> perm{};
};

Result<Rearrange> rearrange_setup(const InferCtx& c, bool to_space) {
  const Shape& x = c.in[0];
  if (x.size() != 4) return Invalid(c.op, "input must be 4-D (N, C, H, W), got {}", shape_str(x));
  if (!c.attrs.has("blocksize")) return Malformed(c.op, "attribute \"blocksize\" is required");
  KN_ASSIGN(std::int64_t b, c.attr().i("blocksize", 1));
  if (b < 1 || b > (1 << 20)) return Invalid(c.op, "attribute \"blocksize\" must be positive, got {}", b);
  const std::int64_t N = x[0], C = x[1], H = x[2], W = x[3];
  Rearrange r;
  if (to_space) {
    KN_ASSIGN(std::string mode, c.attr().s("mode", "DCR"));
    if (mode != "DCR" && mode != "CRD") return Malformed(c.op, "attribute \"mode\" must be DCR or CRD, got \"{}\"", mode);
    if (C % (b * b) != 0) return Invalid(c.op, "channels {} are not a multiple of blocksize² {}", C, b * b);
    const std::int64_t c2 = C / (b * b);
    if (mode == "DCR") {
      r.view = {N, b, b, c2, H, W};
      r.perm = {0, 3, 4, 1, 5, 2};
    } else {
      r.view = {N, c2, b, b, H, W};
      r.perm = {0, 1, 4, 2, 5, 3};
    }
    r.out = {N, c2, H * b, W * b};
  } else {
    if (H % b != 0 || W % b != 0) return Invalid(c.op, "spatial dims {}x{} are not multiples of blocksize {}", H, W, b);
    r.view = {N, C, H / b, b, W / b, b};
    r.perm = {0, 3, 5, 1, 2, 4};
    r.out = {N, C * b * b, H / b, W / b};
  }
  return r;
}

template <bool kToSpace>
Result<std::vector<Shape>> infer_rearrange(const InferCtx& c) {
  KN_ASSIGN(Rearrange r, rearrange_setup(c, kToSpace));
  return std::vector<Shape>{r.out};
}

template <bool kToSpace>
Status run_rearrange(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_same_type(c.op, c.in[0], c.out[0]));
  KN_ASSIGN(Rearrange r, with_infer_ctx(c, [](const InferCtx& ic) { return rearrange_setup(ic, kToSpace); }));
  const std::vector<std::int64_t> st = strides_of(r.view);
  Shape shape(6);
  std::vector<std::int64_t> src(6);
  for (std::size_t i = 0; i < 6; ++i) {
    shape[i] = r.view[r.perm[i]];
    src[i] = st[r.perm[i]];
  }
  gather_strided(c.out[0].data, c.in[0].data, esize(c.in[0]), 0, shape, src);
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// EyeLike(input, dtype?, k = 0): ones on the k-th diagonal of a 2-D tensor; the output
// type is the model's (the dtype attribute or the input's).

Result<std::vector<Shape>> infer_eyelike(const InferCtx& c) {
  if (c.in[0].size() != 2) return Invalid(c.op, "input must be 2-D, got {}", shape_str(c.in[0]));
  KN_ASSIGN(std::int64_t k, c.attr().i("k", 0));
  (void)k;
  return std::vector<Shape>{c.in[0]};
}

Status run_eyelike(const RunCtx& c) {
  const TensorView& y = c.out[0];
  KN_ASSIGN(std::int64_t k, c.attr().i("k", 0));
  const std::int64_t rows = y.dims[0], cols = y.dims[1];
  const bool ok = visit_types<kAllTypes>(y.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* ys = y.as<T>();
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t j = 0; j < cols; ++j) ys[i * cols + j] = store<T>(j - i == k ? 1 : 0);
    }
  });
  if (!ok) return bad_type(c.op, "the output", y, kAllTypes);
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Where(condition, X, Y) with three-way broadcasting.

Result<std::vector<Shape>> infer_where(const InferCtx& c) {
  KN_ASSIGN(Shape s, broadcast_shapes(c.op, c.in[0], c.in[1]));
  KN_ASSIGN(s, broadcast_shapes(c.op, s, c.in[2]));
  return std::vector<Shape>{s};
}

Status run_where(const RunCtx& c) {
  const TensorView &cond = c.in[0], &a = c.in[1], &b = c.in[2], &y = c.out[0];
  if (cond.dtype != DType::kBool) return BadType(c.op, "condition must be bool, got {}", type_desc(cond));
  SVP_RETURN_IF_ERROR(require_same_type(c.op, a, y));
  SVP_RETURN_IF_ERROR(require_same_type(c.op, b, y));
  const Shape& out = y.dims;
  const std::vector<std::int64_t> so = strides_of(out), sc = broadcast_strides(cond.dims, out),
                                  sa = broadcast_strides(a.dims, out), sb = broadcast_strides(b.dims, out);
  const std::uint8_t* cp = cond.as<const std::uint8_t>();
  with_elem_type(esize(y), [&](auto tag) {
    using T = decltype(tag);
    const T* ap = a.as<const T>();
    const T* bp = b.as<const T>();
    T* yp = y.as<T>();
    for_each_row<4>(out, {&so, &sc, &sa, &sb}, {0, 0, 0, 0},
                    [&](const std::array<std::int64_t, 4>& off, std::int64_t n, const std::array<std::int64_t, 4>& st) {
                      for (std::int64_t i = 0; i < n; ++i) {
                        yp[off[0] + i] = cp[off[1] + i * st[1]] != 0 ? ap[off[2] + i * st[2]] : bp[off[3] + i * st[3]];
                      }
                    });
  });
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Dropout in inference: the output is the input, the optional mask all true. Training mode
// with a non-zero ratio is random and refused.

Result<std::vector<Shape>> infer_dropout(const InferCtx& c) {
  if (c.num_outputs > 2) return Invalid(c.op, "has at most 2 outputs (output, mask), got {}", c.num_outputs);
  if (c.num_outputs == 1) return std::vector<Shape>{c.in[0]};
  return std::vector<Shape>{c.in[0], c.in[0]};
}

Status run_dropout(const RunCtx& c) {
  SVP_RETURN_IF_ERROR(require_same_type(c.op, c.in[0], c.out[0]));
  bool training = false;
  if (c.has(2)) {
    if (c.in[2].dtype != DType::kBool) return BadType(c.op, "training_mode must be bool, got {}", type_desc(c.in[2]));
    training = c.in[2].as<const std::uint8_t>()[0] != 0;
  }
  if (training) {
    const double ratio = c.has(1) ? value_at(c.in[1], 0) : 0.5;
    if (ratio != 0.0) return Invalid(c.op, "training mode with ratio {} is random: only inference is supported", ratio);
  }
  if (c.in[0].bytes() > 0) std::memcpy(c.out[0].data, c.in[0].data, c.in[0].bytes());
  if (c.out.size() > 1) {
    if (c.out[1].dtype != DType::kBool) return BadType(c.op, "output 1 (mask) must be bool, got {}", type_desc(c.out[1]));
    std::memset(c.out[1].data, 1, c.out[1].bytes());
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Size: the element count as an int64 scalar.

Result<std::vector<Shape>> infer_size(const InferCtx&) { return std::vector<Shape>{Shape{}}; }

Status run_size(const RunCtx& c) {
  if (c.out[0].dtype != DType::kInt64) return BadType(c.op, "output must be int64, got {}", type_desc(c.out[0]));
  c.out[0].as<std::int64_t>()[0] = c.in[0].elements();
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// ConstantOfShape(shape) and Range(start, limit, delta): outputs built from constants (the
// importer folds them; their shapes need the values).

Result<std::vector<Shape>> infer_constant_of_shape(const InferCtx& c) {
  KN_ASSIGN(std::vector<std::int64_t> shape, const_ints(c, 0, "shape"));
  for (std::int64_t d : shape) {
    if (d < 0) return Invalid(c.op, "shape {} has a negative dimension", shape_str(shape));
  }
  KN_ASSIGN(double v, c.attr().f("value", 0.0));
  (void)v;
  return std::vector<Shape>{shape};
}

// The attribute "value" (a one-element tensor, as the importer gives it) in the output's type.
Status run_constant_of_shape(const RunCtx& c) {
  const TensorView& y = c.out[0];
  KN_ASSIGN(double v, c.attr().f("value", 0.0));
  const bool ok = visit_types<kAllTypes>(y.dtype, [&](auto tag) {
    using T = decltype(tag);
    T fill{};
    if constexpr (is_floating_v<T>) {
      fill = store<T>(v);
    } else {
      fill = y.dtype == DType::kBool ? static_cast<T>(v != 0.0) : from_double<T>(v);
    }
    T* ys = y.as<T>();
    for (std::int64_t i = 0; i < y.elements(); ++i) ys[i] = fill;
  });
  if (!ok) return bad_type(c.op, "the output", y, kAllTypes);
  return Status::Ok();
}

// Range: max(ceil((limit - start) / delta), 0) elements start + i * delta.
Result<std::vector<Shape>> infer_range(const InferCtx& c) {
  double v[3];
  for (std::size_t i = 0; i < 3; ++i) {
    static const char* const kNames[] = {"start", "limit", "delta"};
    KN_ASSIGN(const TensorView* t, c.need_value(i, kNames[i]));
    if (t->elements() != 1) return Invalid(c.op, "{} must be a scalar, got shape {}", kNames[i], shape_str(t->dims));
    v[i] = value_at(*t, 0);
  }
  if (v[2] == 0.0 || !std::isfinite(v[0]) || !std::isfinite(v[1]) || !std::isfinite(v[2])) {
    return Invalid(c.op, "start {}, limit {} and delta {} must be finite with delta != 0", v[0], v[1], v[2]);
  }
  const double n = std::max(std::ceil((v[1] - v[0]) / v[2]), 0.0);
  if (n > static_cast<double>(kMaxElements)) return Invalid(c.op, "the output is too large ({} elements)", n);
  return std::vector<Shape>{Shape{static_cast<std::int64_t>(n)}};
}

Status run_range(const RunCtx& c) {
  const TensorView& y = c.out[0];
  for (std::size_t i = 0; i < 3; ++i) SVP_RETURN_IF_ERROR(require_same_type(c.op, c.in[i], y));
  const bool ok = visit_types<kNumericTypes>(y.dtype, [&](auto tag) {
    using T = decltype(tag);
    const auto start = load(c.in[0].as<const T>()[0]), delta = load(c.in[2].as<const T>()[0]);
    T* ys = y.as<T>();
    // Accumulated in the input type, as ONNX defines it (start + i * delta rounds differently).
    auto acc = start;
    for (std::int64_t i = 0; i < y.elements(); ++i) {
      ys[i] = store<T>(acc);
      acc = static_cast<decltype(acc)>(acc + delta);
    }
  });
  if (!ok) return bad_type(c.op, "the inputs", y, kNumericTypes);
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// ReverseSequence(input, sequence_lens, batch_axis = 1, time_axis = 0): per batch entry b,
// the first sequence_lens[b] steps along the time axis reversed, the rest copied.

struct RevSetup {
  std::int64_t batch = 1, time = 0;
};

Result<RevSetup> rev_setup(const InferCtx& c) {
  const Shape& x = c.in[0];
  if (x.size() < 2) return Invalid(c.op, "input must have rank >= 2, got {}", shape_str(x));
  RevSetup s;
  KN_ASSIGN(std::int64_t b, c.attr().i("batch_axis", 1));
  KN_ASSIGN(std::int64_t t, c.attr().i("time_axis", 0));
  if ((b != 0 && b != 1) || (t != 0 && t != 1) || b == t) {
    return Invalid(c.op, "batch_axis {} and time_axis {} must be 0 and 1 in some order", b, t);
  }
  s.batch = b;
  s.time = t;
  if (c.in[1] != Shape{x[static_cast<std::size_t>(b)]}) {
    return Invalid(c.op, "sequence_lens must have shape [{}], got {}", x[static_cast<std::size_t>(b)],
                   shape_str(c.in[1]));
  }
  return s;
}

Result<std::vector<Shape>> infer_reverse_sequence(const InferCtx& c) {
  KN_ASSIGN(RevSetup s, rev_setup(c));
  (void)s;
  return std::vector<Shape>{c.in[0]};
}

Status run_reverse_sequence(const RunCtx& c) {
  const TensorView &x = c.in[0], &y = c.out[0];
  SVP_RETURN_IF_ERROR(require_same_type(c.op, x, y));
  SVP_RETURN_IF_ERROR(require_index_type(c.op, "sequence_lens", c.in[1]));
  KN_ASSIGN(RevSetup s, with_infer_ctx(c, rev_setup));
  const auto tb = static_cast<std::size_t>(s.batch), tt = static_cast<std::size_t>(s.time);
  const std::int64_t steps = x.dims[tt];
  for (std::int64_t b = 0; b < x.dims[tb]; ++b) {
    const std::int64_t len = int_at(c.in[1], b);
    if (len < 0 || len > steps) return Invalid(c.op, "sequence length {} of batch {} is outside [0, {}]", len, b, steps);
  }
  const std::vector<std::int64_t> st = strides_of(x.dims);
  const std::size_t es = esize(x);
  for_each_index(x.dims, [&](std::int64_t flat, const std::vector<std::int64_t>& p) {
    const std::int64_t len = int_at(c.in[1], p[tb]), t = p[tt];
    const std::int64_t src = t < len ? flat + (len - 1 - 2 * t) * st[tt] : flat;
    std::memcpy(bytes_of_out(y) + static_cast<std::size_t>(flat) * es, bytes_of(x) + static_cast<std::size_t>(src) * es,
                es);
  });
  return Status::Ok();
}

}  // namespace

void add_index_ops(std::vector<OpDef>& ops) {
  ops.push_back({"Gather", 2, 2, infer_gather, run_gather});
  ops.push_back({"GatherElements", 2, 2, infer_gather_elements, run_gather_elements});
  ops.push_back({"GatherND", 2, 2, infer_gather_nd, run_gather_nd});
  ops.push_back({"ScatterElements", 3, 3, infer_scatter_elements, run_scatter_elements});
  ops.push_back({"Scatter", 3, 3, infer_scatter_elements, run_scatter_elements});
  ops.push_back({"ScatterND", 3, 3, infer_scatter_nd, run_scatter_nd});
  ops.push_back({"Expand", 2, 2, infer_expand, run_expand});
  ops.push_back({"Tile", 2, 2, infer_tile, run_tile});
  ops.push_back({"OneHot", 3, 3, infer_onehot, run_onehot});
  ops.push_back({"TopK", 2, 2, infer_topk, run_topk});
  ops.push_back({"Trilu", 1, 2, infer_trilu, run_trilu});
  ops.push_back({"CumSum", 2, 2, infer_cumsum, run_cumsum});
  ops.push_back({"DepthToSpace", 1, 1, infer_rearrange<true>, run_rearrange<true>});
  ops.push_back({"SpaceToDepth", 1, 1, infer_rearrange<false>, run_rearrange<false>});
  ops.push_back({"EyeLike", 1, 1, infer_eyelike, run_eyelike});
  ops.push_back({"Where", 3, 3, infer_where, run_where});
  ops.push_back({"Dropout", 1, 3, infer_dropout, run_dropout});
  ops.push_back({"Size", 1, 1, infer_size, run_size});
  ops.push_back({"ConstantOfShape", 1, 1, infer_constant_of_shape, run_constant_of_shape});
  ops.push_back({"Range", 3, 3, infer_range, run_range});
  ops.push_back({"ReverseSequence", 2, 2, infer_reverse_sequence, run_reverse_sequence});
}

}  // namespace svp::kernels::detail
