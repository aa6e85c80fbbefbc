// Data-movement ops: Concat, Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Slice,
// Split, Pad. They move raw elements of any type when every data tensor has the same
// encoding (element type and, for quantized tensors, per-tensor scale and zero point);
// otherwise they take the generic int8 path (dequantize, move floats, requantize).
#include <algorithm>
#include <cstring>
#include <limits>

#include "kernels/reference/move_requantized.h"
#include "kernels/reference/ops.h"

namespace svp::kernels::detail {
namespace {

std::size_t elem_size(const TensorView& t) { return model::dtype_size(t.dtype); }

// Float path of a movement op: the data inputs (input 0, or all with kAllInputs) and the
// outputs must be float32 here.
template <Status (*Move)(const RunCtx&), bool kAllInputs>
Status movement_float(const RunCtx& c) {
  const std::size_t n = kAllInputs ? c.in.size() : 1;
  for (std::size_t i = 0; i < n; ++i) {
    if (c.in[i].dtype != DType::kFloat32) {
      return BadType(c.op, "unsupported data type combination: input {} is {} and output 0 is {}", i,
                     type_desc(c.in[i]), type_desc(c.out[0]));
    }
  }
  SVP_RETURN_IF_ERROR(require_f32(c, {}));
  return Move(c);
}

bool per_tensor_q8(const TensorView& t) { return is_q8(t.dtype) && is_per_tensor(t); }

// kNewValues: the op writes values no input holds (Pad's constant), which only the generic
// path encodes.
template <Status (*Move)(const RunCtx&), bool kAllInputs = false, bool kNewValues = false>
Status run_movement(const RunCtx& c) {
  const std::size_t n = kAllInputs ? c.in.size() : 1;
  bool same = true;
  for (std::size_t i = 0; i < n; ++i) same = same && same_encoding(c.in[i], c.in[0]);
  for (const TensorView& o : c.out) same = same && same_encoding(o, c.in[0]);
  if (same) return Move(c);
  bool bytes = !kNewValues && per_tensor_q8(c.out[0]);
  for (const TensorView& o : c.out) bytes = bytes && same_encoding(o, c.out[0]);
  for (std::size_t i = 0; i < n; ++i) bytes = bytes && per_tensor_q8(c.in[i]);
  if (bytes) return move_requantized<Move>(c, n);
  return run_via_float(c, movement_float<Move, kAllInputs>);
}

Status copy_all(const RunCtx& c) {
  if (c.out[0].data != c.in[0].data && c.in[0].bytes() > 0) {
    std::memmove(c.out[0].data, c.in[0].data, c.in[0].bytes());
  }
  return Status::Ok();
}

// Integer values of a constant input, or of an int-list attribute when the input is absent.
// `required`: error when neither is there; otherwise returns has_value = false.
struct IntsArg {
  bool has_value = false;
  std::vector<std::int64_t> v;
};
Result<IntsArg> ints_input_or_attr(const InferCtx& c, std::size_t input, const char* name, bool required) {
  IntsArg r;
  if (c.has(input)) {
    KN_ASSIGN(const TensorView* t, c.need_value(input, name));
    KN_ASSIGN(r.v, read_ints(c.op, name, *t));
    r.has_value = true;
  } else if (c.attrs.has(name)) {
    KN_ASSIGN(r.v, c.attr().ints(name, {}));
    r.has_value = true;
  } else if (required) {
    return Malformed(c.op, "\"{}\" is required (as input {} or attribute)", name, input);
  }
  return r;
}

// ---------------------------------------------------------------------------
// Concat

struct ConcatSetup {
  std::int64_t axis = 0, outer = 1, inner = 1;
  Shape out;
};

Result<ConcatSetup> concat_setup(const InferCtx& c) {
  if (!c.attrs.has("axis")) return Malformed(c.op, "attribute \"axis\" is required");
  KN_ASSIGN(std::int64_t axis, c.attr().i("axis", 0));
  const Shape& s0 = c.in[0];
  ConcatSetup s;
  KN_ASSIGN(s.axis, norm_axis(c.op, "attribute \"axis\"", axis, static_cast<std::int64_t>(s0.size())));
  s.out = s0;
  const std::size_t ax = static_cast<std::size_t>(s.axis);
  s.out[ax] = 0;
  for (std::size_t i = 0; i < c.in.size(); ++i) {
    const Shape& si = c.in[i];
    bool ok = si.size() == s0.size();
    for (std::size_t d = 0; ok && d < si.size(); ++d) ok = d == ax || si[d] == s0[d];
    if (!ok)
      return Invalid(c.op, "input {} shape {} does not match input 0 shape {} outside axis {}", i, shape_str(si),
                     shape_str(s0), s.axis);
    if (si[ax] > kMaxElements - s.out[ax]) return Invalid(c.op, "output is too large");
    s.out[ax] += si[ax];
  }
  for (std::size_t d = 0; d < ax; ++d) s.outer *= s0[d];
  for (std::size_t d = ax + 1; d < s0.size(); ++d) s.inner *= s0[d];
  return s;
}

Result<std::vector<Shape>> infer_concat(const InferCtx& c) {
  KN_ASSIGN(ConcatSetup s, concat_setup(c));
  return std::vector<Shape>{s.out};
}

Status concat_move(const RunCtx& c) {
  KN_ASSIGN(ConcatSetup s, with_infer_ctx(c, concat_setup));
  const std::size_t es = elem_size(c.out[0]);
  auto* dst = static_cast<std::uint8_t*>(c.out[0].data);
  const std::size_t ax = static_cast<std::size_t>(s.axis);
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (const TensorView& t : c.in) {
      const std::size_t chunk = static_cast<std::size_t>(t.dims[ax] * s.inner) * es;
      if (chunk == 0) continue;
      std::memcpy(dst, static_cast<const std::uint8_t*>(t.data) + static_cast<std::size_t>(o) * chunk, chunk);
      dst += chunk;
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Reshape, Flatten, Squeeze, Unsqueeze

Result<std::vector<Shape>> infer_reshape(const InferCtx& c) {
  KN_ASSIGN(const TensorView* st, c.need_value(1, "shape"));
  KN_ASSIGN(std::vector<std::int64_t> shape, read_ints(c.op, "shape", *st));
  KN_ASSIGN(bool allow_zero, c.attr().flag("allowzero", false));
  const Shape& in = c.in[0];
  Shape out(shape.size());
  std::int64_t infer_at = -1, known = 1;
  bool has_zero = false;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    std::int64_t d = shape[i];
    if (d == -1) {
      if (infer_at >= 0) return Invalid(c.op, "shape {} has more than one -1", shape_str(shape));
      infer_at = static_cast<std::int64_t>(i);
      continue;
    }
    if (d < -1) return Invalid(c.op, "shape {} has an invalid dimension {}", shape_str(shape), d);
    if (d == 0 && !allow_zero) {
      if (i >= in.size()) {
        return Invalid(c.op, "shape {} copies dimension {} (0) but the input {} has rank {}", shape_str(shape), i,
                       shape_str(in), in.size());
      }
      d = in[i];
    }
    has_zero = has_zero || d == 0;
    out[i] = d;
    if (d != 0 && known > kMaxElements / d) return Invalid(c.op, "shape {} is too large", shape_str(shape));
    known *= d;
  }
  const std::int64_t total = numel(in);
  if (infer_at >= 0) {
    if (allow_zero && has_zero) return Invalid(c.op, "shape {} has both -1 and 0 with allowzero", shape_str(shape));
    if (known == 0 || total % known != 0) {
      return Invalid(c.op, "cannot infer the -1 in shape {} for input {}", shape_str(shape), shape_str(in));
    }
    out[static_cast<std::size_t>(infer_at)] = total / known;
  } else if (known != total) {
    return Invalid(c.op, "shape {} has {} elements but the input {} has {}", shape_str(shape), known, shape_str(in),
                   total);
  }
  return std::vector<Shape>{out};
}

Result<std::vector<Shape>> infer_flatten(const InferCtx& c) {
  const Shape& in = c.in[0];
  KN_ASSIGN(std::int64_t axis, c.attr().i("axis", 1));
  KN_ASSIGN(axis, norm_axis(c.op, "attribute \"axis\"", axis, static_cast<std::int64_t>(in.size()), true));
  std::int64_t a = 1, b = 1;
  for (std::size_t i = 0; i < in.size(); ++i) (static_cast<std::int64_t>(i) < axis ? a : b) *= in[i];
  return std::vector<Shape>{Shape{a, b}};
}

Result<std::vector<Shape>> infer_squeeze(const InferCtx& c) {
  const Shape& in = c.in[0];
  KN_ASSIGN(IntsArg axes, ints_input_or_attr(c, 1, "axes", false));
  std::vector<bool> drop(in.size(), false);
  if (axes.has_value) {
    KN_ASSIGN(std::vector<std::int64_t> ax, norm_axes(c.op, "axes", axes.v, static_cast<std::int64_t>(in.size())));
    for (std::int64_t a : ax) {
      if (in[static_cast<std::size_t>(a)] != 1) {
        return Invalid(c.op, "axis {} of shape {} has size {}, not 1", a, shape_str(in),
                       in[static_cast<std::size_t>(a)]);
      }
      drop[static_cast<std::size_t>(a)] = true;
    }
  } else {
    for (std::size_t i = 0; i < in.size(); ++i) drop[i] = in[i] == 1;
  }
  Shape out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!drop[i]) out.push_back(in[i]);
  }
  return std::vector<Shape>{out};
}

Result<std::vector<Shape>> infer_unsqueeze(const InferCtx& c) {
  const Shape& in = c.in[0];
  KN_ASSIGN(IntsArg axes, ints_input_or_attr(c, 1, "axes", true));
  const std::int64_t r = static_cast<std::int64_t>(in.size() + axes.v.size());
  KN_ASSIGN(std::vector<std::int64_t> ax, norm_axes(c.op, "axes", axes.v, r));
  std::vector<bool> added(static_cast<std::size_t>(r), false);
  for (std::int64_t a : ax) added[static_cast<std::size_t>(a)] = true;
  Shape out;
  std::size_t k = 0;
  for (std::size_t i = 0; i < added.size(); ++i) out.push_back(added[i] ? 1 : in[k++]);
  return std::vector<Shape>{out};
}

// ---------------------------------------------------------------------------
// Transpose

Result<std::vector<std::int64_t>> transpose_perm(const InferCtx& c) {
  const std::size_t r = c.in[0].size();
  std::vector<std::int64_t> def(r);
  for (std::size_t i = 0; i < r; ++i) def[i] = static_cast<std::int64_t>(r - 1 - i);
  KN_ASSIGN(std::vector<std::int64_t> perm, c.attr().ints("perm", def));
  if (perm.size() != r) return Malformed(c.op, "attribute \"perm\" must have {} values, got {}", r, perm.size());
  std::vector<bool> seen(r, false);
  for (std::int64_t p : perm) {
    if (p < 0 || p >= static_cast<std::int64_t>(r) || seen[static_cast<std::size_t>(p)]) {
      return Invalid(c.op, "attribute \"perm\" {} is not a permutation of 0..{}", shape_str(perm), r - 1);
    }
    seen[static_cast<std::size_t>(p)] = true;
  }
  return perm;
}

Result<std::vector<Shape>> infer_transpose(const InferCtx& c) {
  KN_ASSIGN(std::vector<std::int64_t> perm, transpose_perm(c));
  Shape out;
  for (std::int64_t p : perm) out.push_back(c.in[0][static_cast<std::size_t>(p)]);
  return std::vector<Shape>{out};
}

Status transpose_move(const RunCtx& c) {
  KN_ASSIGN(std::vector<std::int64_t> perm, with_infer_ctx(c, transpose_perm));
  const std::vector<std::int64_t> in_st = strides_of(c.in[0].dims);
  std::vector<std::int64_t> st;
  for (std::int64_t p : perm) st.push_back(in_st[static_cast<std::size_t>(p)]);
  gather_strided(c.out[0].data, c.in[0].data, elem_size(c.in[0]), 0, c.out[0].dims, st);
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Slice

struct SliceSetup {
  std::int64_t base = 0;
  std::vector<std::int64_t> strides;  // source strides per output dim (step * stride)
  Shape out;
};

Result<SliceSetup> slice_setup(const InferCtx& c) {
  const Shape& in = c.in[0];
  const std::int64_t r = static_cast<std::int64_t>(in.size());
  IntsArg starts, ends, axes, steps;
  if (c.in.size() == 1) {  // opset 1: attributes
    KN_ASSIGN(starts.v, c.attr().ints("starts", {}));
    KN_ASSIGN(ends.v, c.attr().ints("ends", {}));
    if (!c.attrs.has("starts") || !c.attrs.has("ends")) return Malformed(c.op, "\"starts\" and \"ends\" are required");
    KN_ASSIGN(axes, ints_input_or_attr(c, 99, "axes", false));
  } else {
    if (c.in.size() < 3) return Invalid(c.op, "expects inputs data, starts and ends");
    KN_ASSIGN(const TensorView* ts, c.need_value(1, "starts"));
    KN_ASSIGN(const TensorView* te, c.need_value(2, "ends"));
    KN_ASSIGN(starts.v, read_ints(c.op, "starts", *ts));
    KN_ASSIGN(ends.v, read_ints(c.op, "ends", *te));
    if (c.has(3)) {
      KN_ASSIGN(const TensorView* ta, c.need_value(3, "axes"));
      KN_ASSIGN(axes.v, read_ints(c.op, "axes", *ta));
      axes.has_value = true;
    }
    if (c.has(4)) {
      KN_ASSIGN(const TensorView* tp, c.need_value(4, "steps"));
      KN_ASSIGN(steps.v, read_ints(c.op, "steps", *tp));
      steps.has_value = true;
    }
  }
  const std::size_t n = starts.v.size();
  if (ends.v.size() != n || (axes.has_value && axes.v.size() != n) || (steps.has_value && steps.v.size() != n)) {
    return Invalid(c.op, "starts, ends, axes and steps must have the same length");
  }
  if (!axes.has_value) {
    if (static_cast<std::int64_t>(n) > r) return Invalid(c.op, "{} starts for rank {}", n, r);
    for (std::size_t i = 0; i < n; ++i) axes.v.push_back(static_cast<std::int64_t>(i));
  }
  if (!steps.has_value) steps.v.assign(n, 1);
  KN_ASSIGN(std::vector<std::int64_t> ax, norm_axes(c.op, "axes", axes.v, r));
  const std::vector<std::int64_t> in_st = strides_of(in);
  SliceSetup s;
  s.out = in;
  s.strides = in_st;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t a = static_cast<std::size_t>(ax[i]);
    const std::int64_t dim = in[a];
    std::int64_t step = steps.v[i];
    if (step == 0) return Invalid(c.op, "steps must not be 0");
    // |step| > dim selects at most one element; clamping keeps the index math in range.
    const std::int64_t cap = std::max<std::int64_t>(dim, 1);
    step = step > 0 ? std::min(step, cap) : std::max(step, -cap);
    std::int64_t start = starts.v[i], end = ends.v[i];
    if (start < 0) start += dim;  // no overflow: dim >= 0
    if (end < 0) end += dim;
    std::int64_t len = 0;
    if (dim == 0) {
      start = 0;
    } else if (step > 0) {
      start = std::clamp<std::int64_t>(start, 0, dim);
      end = std::clamp<std::int64_t>(end, 0, dim);
      len = end > start ? ceil_div(end - start, step) : 0;
    } else {
      start = std::clamp<std::int64_t>(start, 0, dim - 1);
      end = std::clamp<std::int64_t>(end, -1, dim - 1);
      len = start > end ? ceil_div(start - end, -step) : 0;
    }
    s.out[a] = len;
    if (len > 0) s.base += start * in_st[a];
    s.strides[a] = step * in_st[a];
  }
  return s;
}

Result<std::vector<Shape>> infer_slice(const InferCtx& c) {
  KN_ASSIGN(SliceSetup s, slice_setup(c));
  return std::vector<Shape>{s.out};
}

Status slice_move(const RunCtx& c) {
  KN_ASSIGN(SliceSetup s, with_infer_ctx(c, slice_setup));
  gather_strided(c.out[0].data, c.in[0].data, elem_size(c.in[0]), s.base, s.out, s.strides);
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Split

struct SplitSetup {
  std::int64_t axis = 0, outer = 1, inner = 1;
  std::vector<std::int64_t> sizes;
};

Result<SplitSetup> split_setup(const InferCtx& c) {
  const Shape& in = c.in[0];
  SplitSetup s;
  KN_ASSIGN(std::int64_t axis, c.attr().i("axis", 0));
  KN_ASSIGN(s.axis, norm_axis(c.op, "attribute \"axis\"", axis, static_cast<std::int64_t>(in.size())));
  const std::int64_t dim = in[static_cast<std::size_t>(s.axis)];
  KN_ASSIGN(IntsArg split, ints_input_or_attr(c, 1, "split", false));
  if (split.has_value) {
    std::int64_t sum = 0;
    for (std::int64_t v : split.v) {
      if (v < 0 || v > dim) return Invalid(c.op, "split size {} is invalid for dimension {}", v, dim);
      sum += v;
    }
    if (sum != dim) return Invalid(c.op, "split sizes {} do not add up to dimension {}", shape_str(split.v), dim);
    if (split.v.empty()) return Invalid(c.op, "split sizes are empty");
    s.sizes = split.v;
  } else {
    KN_ASSIGN(std::int64_t n, c.attr().i("num_outputs", static_cast<std::int64_t>(c.num_outputs)));
    if (n < 1) return Malformed(c.op, "needs split sizes or attribute \"num_outputs\"");
    if (n > std::max<std::int64_t>(dim, 1)) return Invalid(c.op, "cannot split dimension {} into {} parts", dim, n);
    // Equal parts of ceil(dim / n); the last part takes the remainder (opset 18).
    const std::int64_t chunk = ceil_div(dim, n);
    const std::int64_t last = dim - chunk * (n - 1);
    if (last < 0) return Invalid(c.op, "cannot split dimension {} into {} parts", dim, n);
    s.sizes.assign(static_cast<std::size_t>(n), chunk);
    s.sizes.back() = last;
  }
  for (std::int64_t d = 0; d < s.axis; ++d) s.outer *= in[static_cast<std::size_t>(d)];
  for (std::size_t d = static_cast<std::size_t>(s.axis) + 1; d < in.size(); ++d) s.inner *= in[d];
  return s;
}

Result<std::vector<Shape>> infer_split(const InferCtx& c) {
  KN_ASSIGN(SplitSetup s, split_setup(c));
  std::vector<Shape> out;
  for (std::int64_t v : s.sizes) {
    Shape sh = c.in[0];
    sh[static_cast<std::size_t>(s.axis)] = v;
    out.push_back(sh);
  }
  return out;
}

Status split_move(const RunCtx& c) {
  KN_ASSIGN(SplitSetup s, with_infer_ctx(c, split_setup));
  const std::size_t es = elem_size(c.in[0]);
  const auto* src = static_cast<const std::uint8_t*>(c.in[0].data);
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::size_t k = 0; k < c.out.size(); ++k) {
      const std::size_t chunk = static_cast<std::size_t>(s.sizes[k] * s.inner) * es;
      if (chunk == 0) continue;
      std::memcpy(static_cast<std::uint8_t*>(c.out[k].data) + static_cast<std::size_t>(o) * chunk, src, chunk);
      src += chunk;
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Pad

enum class PadMode { kConstant, kReflect, kEdge };

struct PadSetup {
  PadMode mode = PadMode::kConstant;
  std::vector<std::int64_t> begin;  // per dim, may be negative (cropping)
  Shape out;
};

Result<PadSetup> pad_setup(const InferCtx& c) {
  const Shape& in = c.in[0];
  const std::int64_t r = static_cast<std::int64_t>(in.size());
  PadSetup p;
  KN_ASSIGN(std::string mode, c.attr().s("mode", "constant"));
  if (mode == "constant") {
    p.mode = PadMode::kConstant;
  } else if (mode == "reflect") {
    p.mode = PadMode::kReflect;
  } else if (mode == "edge") {
    p.mode = PadMode::kEdge;
  } else if (mode == "wrap") {
    return Invalid(c.op, "mode \"wrap\" is not supported");
  } else {
    return Malformed(c.op, "attribute \"mode\" has unknown value \"{}\"", mode);
  }
  KN_ASSIGN(IntsArg pads, ints_input_or_attr(c, 1, "pads", true));
  KN_ASSIGN(double value, c.attr().f("value", 0.0));
  (void)value;
  std::vector<std::int64_t> axes;
  if (c.has(3)) {
    KN_ASSIGN(const TensorView* ta, c.need_value(3, "axes"));
    KN_ASSIGN(std::vector<std::int64_t> raw, read_ints(c.op, "axes", *ta));
    KN_ASSIGN(axes, norm_axes(c.op, "axes", raw, r));
  } else {
    for (std::int64_t i = 0; i < r; ++i) axes.push_back(i);
  }
  if (pads.v.size() != 2 * axes.size()) {
    return Invalid(c.op, "pads must have {} values (2 per padded axis), got {}", 2 * axes.size(), pads.v.size());
  }
  p.begin.assign(in.size(), 0);
  p.out = in;
  const std::size_t n = axes.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t a = static_cast<std::size_t>(axes[i]);
    const std::int64_t pb = pads.v[i], pe = pads.v[i + n];
    if (std::abs(pb) > kMaxElements || std::abs(pe) > kMaxElements) return Invalid(c.op, "pads are too large");
    const std::int64_t o = in[a] + pb + pe;
    if (o < 0) return Invalid(c.op, "pads {} and {} remove more than dimension {} of size {}", pb, pe, a, in[a]);
    if (p.mode != PadMode::kConstant && in[a] == 0 && o > 0) {
      return Invalid(c.op, "cannot {}-pad the empty dimension {}", mode, a);
    }
    p.begin[a] = pb;
    p.out[a] = o;
  }
  return p;
}

Result<std::vector<Shape>> infer_pad(const InferCtx& c) {
  KN_ASSIGN(PadSetup p, pad_setup(c));
  return std::vector<Shape>{p.out};
}

// The pad value's bits in the output's element type: input 2 (constant_value) or the
// opset-1 attribute "value"; for a quantized output a real value is quantized with the
// output's parameters, a raw int8/uint8 value (no quantization parameters) is used as is.
Result<std::uint64_t> pad_constant(const RunCtx& c) {
  const TensorView& y = c.out[0];
  double real = 0;
  bool have_real = true;
  std::int64_t raw = 0;
  if (c.has(2)) {
    const TensorView& v = c.in[2];
    if (v.elements() != 1) return Invalid(c.op, "constant_value must be a scalar");
    if (v.dtype == DType::kFloat32 || has_quant(v)) {
      KN_ASSIGN(std::vector<float> f, read_floats(c.op, "constant_value", v));
      real = f[0];
    } else if (v.dtype != DType::kFloat16) {
      raw = int_at(v, 0);
      have_real = false;
    } else {
      return BadType(c.op, "constant_value of type {} is not supported", type_desc(v));
    }
  } else {
    KN_ASSIGN(real, c.attr().f("value", 0.0));
  }
  if (have_real && !std::isfinite(real) && y.dtype != DType::kFloat32) {
    return Invalid(c.op, "constant_value {} cannot be represented in {}", real, model::dtype_name(y.dtype));
  }
  std::uint64_t bits = 0;
  if (y.dtype == DType::kFloat32) {
    const float f = have_real ? static_cast<float>(real) : static_cast<float>(raw);
    std::memcpy(&bits, &f, sizeof f);
    return bits;
  }
  if (y.dtype == DType::kFloat16) return BadType(c.op, "float16 is not supported");
  std::int64_t q = raw;
  if (is_quantized(y) && have_real) {
    q = quantize_value(static_cast<float>(real), y.quant->scale[0], zp_at(*y.quant, 0), qmin(y.dtype), qmax(y.dtype));
  } else if (have_real) {
    q = static_cast<std::int64_t>(real);
  }
  if (is_q8(y.dtype)) q = std::clamp(q, qmin(y.dtype), qmax(y.dtype));
  std::memcpy(&bits, &q, sizeof q);  // little-endian: the low bytes are the narrow value
  return bits;
}

// Source index of output position o along a dim of size n (begin = leading pad), or -1.
std::int64_t pad_source(PadMode mode, std::int64_t o, std::int64_t begin, std::int64_t n) {
  const std::int64_t i = o - begin;
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case PadMode::kConstant:
      return -1;
    case PadMode::kEdge:
      return i < 0 ? 0 : n - 1;
    case PadMode::kReflect: {
      if (n == 1) return 0;
      const std::int64_t period = 2 * (n - 1);
      std::int64_t m = i % period;
      if (m < 0) m += period;
      return m < n ? m : period - m;
    }
  }
  return -1;
}

Status pad_move(const RunCtx& c) {
  KN_ASSIGN(PadSetup p, with_infer_ctx(c, pad_setup));
  KN_ASSIGN(std::uint64_t bits, pad_constant(c));
  const Shape& in = c.in[0].dims;
  const Shape& out = p.out;
  const std::size_t r = in.size();
  const std::vector<std::int64_t> st = strides_of(in);
  // Per dim: source offset of each output index, or -1 for the constant.
  std::vector<std::vector<std::int64_t>> off(r);
  for (std::size_t d = 0; d < r; ++d) {
    for (std::int64_t o = 0; o < out[d]; ++o) {
      const std::int64_t s = pad_source(p.mode, o, p.begin[d], in[d]);
      off[d].push_back(s < 0 ? -1 : s * st[d]);
    }
  }
  gather_tables(c.out[0].data, c.in[0].data, elem_size(c.in[0]), off, bits);
  return Status::Ok();
}

}  // namespace

void add_shape_ops(std::vector<OpDef>& ops) {
  ops.push_back({"Concat", 1, kVariadic, infer_concat, run_movement<concat_move, true>});
  ops.push_back({"Reshape", 2, 2, infer_reshape, run_movement<copy_all>});
  ops.push_back({"Flatten", 1, 1, infer_flatten, run_movement<copy_all>});
  ops.push_back({"Squeeze", 1, 2, infer_squeeze, run_movement<copy_all>});
  ops.push_back({"Unsqueeze", 1, 2, infer_unsqueeze, run_movement<copy_all>});
  ops.push_back({"Transpose", 1, 1, infer_transpose, run_movement<transpose_move>});
  ops.push_back({"Slice", 1, 5, infer_slice, run_movement<slice_move>});
  ops.push_back({"Split", 1, 2, infer_split, run_movement<split_move>});
  ops.push_back({"Pad", 1, 4, infer_pad, run_movement<pad_move, false, true>});
}

}  // namespace svp::kernels::detail
