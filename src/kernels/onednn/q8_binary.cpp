#include "kernels/onednn/q8_binary.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace svp::kernels::onednn {
// Named: the unity build joins this file with q8_add.cpp's own helpers.
namespace q8bin {
namespace {

using model::DType;

// |v / s_y| beyond this saturates any int8/uint8 output whatever the zero point; clamping
// first keeps the float → int32 conversion in range.
constexpr float kClamp = 1048576.f;

// Real value of every stored byte, (float)(q − zp)·s as the reference's dequantize computes it.
struct Table {
  float v[256];
  explicit Table(const Q8Operand& q) {
    for (int k = 0; k < 256; ++k) {
      if (q.dtype == DType::kFloat32) {  // q8_float_scalar: its value whatever the byte
        v[k] = q.scale;
        continue;
      }
      const std::int32_t code = q.dtype == DType::kInt8 ? static_cast<std::int8_t>(k) : k;
      v[k] = static_cast<float>(code - q.zp) * q.scale;
    }
  }
};

struct Out {
  float scale;
  std::int32_t zp, lo, hi;
};

template <Q8BinaryOp Op>
inline float apply(float a, float b) {
  if constexpr (Op == Q8BinaryOp::kAdd) return a + b;
  if constexpr (Op == Q8BinaryOp::kSub) return a - b;
  if constexpr (Op == Q8BinaryOp::kDiv) return a / b;
  return a * b;
}

inline std::uint8_t requant(float v, const Out& o) {
  v = v / o.scale;
  v = std::min(std::max(v, -kClamp), kClamp);
  const std::int32_t r = static_cast<std::int32_t>(std::rint(v)) + o.zp;  // rint: ties to even, as nearbyint
  return static_cast<std::uint8_t>(std::min(std::max(r, o.lo), o.hi));    // the low byte: int8 or uint8
}

// 8 real values from 8 stored bytes, (float)(q − zp)·s: the int → float conversion is
// exact and the product one rounding, so these are the table's values.
__attribute__((target("avx2"))) inline __m256 dequant8(const std::uint8_t* p, bool is_signed, __m256i zp, __m256 s) {
  const __m128i raw = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  const __m256i q = is_signed ? _mm256_cvtepi8_epi32(raw) : _mm256_cvtepu8_epi32(raw);
  return _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(q, zp)), s);
}

// Element i of an operand: a float32 constant's own value (the reference keeps it in
// float), else the table's real value of its byte.
inline float value(const std::uint8_t* p, std::int64_t i, const Table& t, bool is_float) {
  if (is_float) {
    float f;
    __builtin_memcpy(&f, p + i * 4, 4);
    return f;
  }
  return t.v[p[i]];
}

// One run of n outputs; an operand's step is 1 (contiguous) or 0 (one value for the run).
template <Q8BinaryOp Op>
__attribute__((target("avx2"))) void run_avx2(const std::uint8_t* a, int sa, const Table& ta, const Q8Operand& qa,
                                              const std::uint8_t* b, int sb, const Table& tb, const Q8Operand& qb,
                                              std::uint8_t* y, const Out& o, std::int64_t n) {
  // Without "fma" in the target GCC cannot contract a multiply and an add (Add/Sub of two
  // dequantized operands: each product is its own rounding in the reference).
  const __m256 sy = _mm256_set1_ps(o.scale), cmax = _mm256_set1_ps(kClamp), cmin = _mm256_set1_ps(-kClamp);
  const __m256i zpy = _mm256_set1_epi32(o.zp), lo = _mm256_set1_epi32(o.lo), hi = _mm256_set1_epi32(o.hi);
  const bool af = qa.dtype == DType::kFloat32, bf = qb.dtype == DType::kFloat32;
  const __m256 fa0 = _mm256_set1_ps(value(a, 0, ta, af)), fb0 = _mm256_set1_ps(value(b, 0, tb, bf));
  const __m256i zpa = _mm256_set1_epi32(qa.zp), zpb = _mm256_set1_epi32(qb.zp);
  const __m256 sca = _mm256_set1_ps(qa.scale), scb = _mm256_set1_ps(qb.scale);
  const bool a8 = qa.dtype == DType::kInt8, b8 = qb.dtype == DType::kInt8;
  const __m256i pack = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1,
                                        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 fa = !sa  ? fa0
                      : af ? _mm256_loadu_ps(reinterpret_cast<const float*>(a) + i)
                           : dequant8(a + i, a8, zpa, sca);
    const __m256 fb = !sb  ? fb0
                      : bf ? _mm256_loadu_ps(reinterpret_cast<const float*>(b) + i)
                           : dequant8(b + i, b8, zpb, scb);
    __m256 v;
    if constexpr (Op == Q8BinaryOp::kAdd) {
      v = _mm256_add_ps(fa, fb);
    } else if constexpr (Op == Q8BinaryOp::kSub) {
      v = _mm256_sub_ps(fa, fb);
    } else if constexpr (Op == Q8BinaryOp::kDiv) {
      v = _mm256_div_ps(fa, fb);
    } else {
      v = _mm256_mul_ps(fa, fb);
    }
    v = _mm256_div_ps(v, sy);
    v = _mm256_min_ps(_mm256_max_ps(v, cmin), cmax);
    __m256i r = _mm256_add_epi32(_mm256_cvtps_epi32(v), zpy);  // MXCSR: nearest, ties to even
    r = _mm256_min_epi32(_mm256_max_epi32(r, lo), hi);
    // The low byte of each lane (in range already), lanes 0-3 and 4-7 of each 128-bit half.
    const __m256i bytes = _mm256_shuffle_epi8(r, pack);
    const std::uint32_t lo4 = static_cast<std::uint32_t>(_mm256_extract_epi32(bytes, 0));
    const std::uint32_t hi4 = static_cast<std::uint32_t>(_mm256_extract_epi32(bytes, 4));
    const std::uint64_t eight = lo4 | (static_cast<std::uint64_t>(hi4) << 32);
    __builtin_memcpy(y + i, &eight, 8);
  }
  for (; i < n; ++i) y[i] = requant(apply<Op>(value(a, sa ? i : 0, ta, af), value(b, sb ? i : 0, tb, bf)), o);
}

// Sixteen lanes with AVX-512: the same operations per lane as run_avx2 (int → float,
// the one-rounding products, the op, the division by s_y, nearest-even conversion,
// saturation), the rest of the run left to run_avx2. The masked conversions with every
// lane set: GCC 12's plain ones start from an "undefined" vector -Wmaybe-uninitialized
// reports.
__attribute__((target("avx512f"))) inline __m512 dequant16(const std::uint8_t* p, bool is_signed, __m512i zp,
                                                          __m512 s) {
  const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m512i q = is_signed ? _mm512_maskz_cvtepi8_epi32(0xffff, raw) : _mm512_maskz_cvtepu8_epi32(0xffff, raw);
  return _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(0xffff, _mm512_sub_epi32(q, zp)), s);
}

// The output's constants in registers, and one vector of op(a, b) requantized to int32
// codes: v / s_y rounded to nearest even (MXCSR) + zp_y, saturated. The saturation comes
// before the rounding here, to [lo − zp_y, hi − zp_y] in float: rounding is monotone and
// the bounds are integers, so that is the same as saturating the rounded code (and keeps
// the conversion in range).
struct Out512 {
  __m512 sy, vlo, vhi;
  __m512i zpy;
};
__attribute__((target("avx512f"))) inline Out512 out512(const Out& o) {
  return {_mm512_set1_ps(o.scale), _mm512_set1_ps(static_cast<float>(o.lo - o.zp)),
          _mm512_set1_ps(static_cast<float>(o.hi - o.zp)), _mm512_set1_epi32(o.zp)};
}
template <Q8BinaryOp Op>
__attribute__((target("avx512f"))) inline __m512i op_requant16(__m512 fa, __m512 fb, const Out512& c) {
  __m512 v;
  if constexpr (Op == Q8BinaryOp::kAdd) {
    v = _mm512_add_ps(fa, fb);
  } else if constexpr (Op == Q8BinaryOp::kSub) {
    v = _mm512_sub_ps(fa, fb);
  } else if constexpr (Op == Q8BinaryOp::kDiv) {
    v = _mm512_div_ps(fa, fb);
  } else {
    v = _mm512_mul_ps(fa, fb);
  }
  v = _mm512_div_ps(v, c.sy);
  v = _mm512_min_ps(_mm512_max_ps(v, c.vlo), c.vhi);
  return _mm512_add_epi32(_mm512_cvtps_epi32(v), c.zpy);
}

template <Q8BinaryOp Op>
__attribute__((target("avx512f"))) std::int64_t run_avx512(const std::uint8_t* a, int sa, const Table& ta,
                                                            const Q8Operand& qa, const std::uint8_t* b, int sb,
                                                            const Table& tb, const Q8Operand& qb, std::uint8_t* y,
                                                            const Out& o, std::int64_t n) {
  const Out512 c = out512(o);
  const bool af = qa.dtype == DType::kFloat32, bf = qb.dtype == DType::kFloat32;
  const __m512 fa0 = _mm512_set1_ps(value(a, 0, ta, af)), fb0 = _mm512_set1_ps(value(b, 0, tb, bf));
  const __m512i zpa = _mm512_set1_epi32(qa.zp), zpb = _mm512_set1_epi32(qb.zp);
  const __m512 sca = _mm512_set1_ps(qa.scale), scb = _mm512_set1_ps(qb.scale);
  const bool a8 = qa.dtype == DType::kInt8, b8 = qb.dtype == DType::kInt8;
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 fa = !sa  ? fa0
                      : af ? _mm512_loadu_ps(reinterpret_cast<const float*>(a) + i)
                           : dequant16(a + i, a8, zpa, sca);
    const __m512 fb = !sb  ? fb0
                      : bf ? _mm512_loadu_ps(reinterpret_cast<const float*>(b) + i)
                           : dequant16(b + i, b8, zpb, scb);
    const __m512i r = op_requant16<Op>(fa, fb, c);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), _mm512_cvtepi32_epi8(r));  // in range: the low bytes
  }
  return i;
}

// Every row of n outputs (rows of y back to back) from a contiguous operand and one row
// of real values repeated for every row (an SE block's per-channel gate on NHWC data: n = C
// channels, H·W rows): the row is the table's values of its bytes (or a float32 constant's
// own values), so each lane does run_avx512's operations in the same order. Short rows are
// where the per-run walk loses: its setup is paid per pixel.
// run_rows_avx512 where n is a multiple of 16: one loop over all the vectors, the row's
// position kept by a counter (an SE block's gate on NHWC data has rows of 16·k channels,
// and per-row loop setup had cost as much as the arithmetic).
template <Q8BinaryOp Op, bool RowIsA>
__attribute__((target("avx512f"))) void run_rows_flat(const std::uint8_t* full, const Q8Operand& qf, const float* row,
                                                      std::uint8_t* y, const Out& o, std::int64_t rows,
                                                      std::int64_t n) {
  const Out512 c = out512(o);
  const __m512i zpf = _mm512_set1_epi32(qf.zp);
  const __m512 scf = _mm512_set1_ps(qf.scale);
  const bool f8 = qf.dtype == DType::kInt8;
  const std::int64_t total = rows * n;
  for (std::int64_t i = 0, j = 0; i < total; i += 16) {
    const __m512 ff = dequant16(full + i, f8, zpf, scf);
    const __m512 fr = _mm512_loadu_ps(row + j);
    j = j + 16 == n ? 0 : j + 16;
    const __m512i res = RowIsA ? op_requant16<Op>(fr, ff, c) : op_requant16<Op>(ff, fr, c);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), _mm512_cvtepi32_epi8(res));  // in range: the low bytes
  }
}

// `row` holds row_len values: the row itself (n values), or the row repeated over a period
// of whole vectors, row_len = lcm(n, 16) (PP-LCNet's SE gates: 4 and 8 channels, 16 values;
// 200 channels, 400). Whole periods run as rows of it in the flat loop (n a multiple of 16
// is the period n); the rows left over, less than a period, take the loop below.
template <Q8BinaryOp Op>
__attribute__((target("avx512f"))) void run_rows_avx512(const std::uint8_t* full, const Q8Operand& qf, const float* row,
                                                        std::int64_t row_len, bool row_is_a, std::uint8_t* y,
                                                        const Out& o, std::int64_t rows, std::int64_t n) {
  if (row_len % 16 == 0 && rows * n >= row_len) {
    const std::int64_t periods = rows * n / row_len;
    if (row_is_a) {
      run_rows_flat<Op, true>(full, qf, row, y, o, periods, row_len);
    } else {
      run_rows_flat<Op, false>(full, qf, row, y, o, periods, row_len);
    }
    const std::int64_t done = periods * (row_len / n);
    full += done * n;
    y += done * n;
    rows -= done;
  }
  const Out512 c = out512(o);
  const __m512i zpf = _mm512_set1_epi32(qf.zp);
  const __m512 scf = _mm512_set1_ps(qf.scale);
  const bool f8 = qf.dtype == DType::kInt8;
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::uint8_t* in = full + r * n;
    std::uint8_t* out = y + r * n;
    for (std::int64_t i = 0; i < n; i += 16) {
      const bool whole = n - i >= 16;
      const auto m = static_cast<__mmask16>(whole ? 0xffff : (1u << (n - i)) - 1);
      // A short tail goes through a local copy (byte-masked loads and stores need AVX-512BW).
      alignas(16) std::uint8_t tail[16] = {};
      if (!whole) __builtin_memcpy(tail, in + i, static_cast<std::size_t>(n - i));
      const __m512 ff = dequant16(whole ? in + i : tail, f8, zpf, scf);
      const __m512 fr = _mm512_maskz_loadu_ps(m, row + i);
      const __m512 fa = row_is_a ? fr : ff, fb = row_is_a ? ff : fr;
      // Masked-off lanes may compute 0 / 0 (Div): NaN, never stored.
      const __m512i res = op_requant16<Op>(fa, fb, c);
      if (whole) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm512_cvtepi32_epi8(res));  // in range: the low bytes
      } else {
        _mm_store_si128(reinterpret_cast<__m128i*>(tail), _mm512_cvtepi32_epi8(res));
        __builtin_memcpy(out + i, tail, static_cast<std::size_t>(n - i));
      }
    }
  }
}

template <Q8BinaryOp Op>
void run_scalar(const std::uint8_t* a, int sa, const Table& ta, const Q8Operand& qa, const std::uint8_t* b, int sb,
                const Table& tb, const Q8Operand& qb, std::uint8_t* y, const Out& o, std::int64_t n) {
  const bool af = qa.dtype == DType::kFloat32, bf = qb.dtype == DType::kFloat32;
  for (std::int64_t i = 0; i < n; ++i)
    y[i] = requant(apply<Op>(value(a, sa ? i : 0, ta, af), value(b, sb ? i : 0, tb, bf)), o);
}

// Output dims with each operand's element strides (0 along broadcast dims), adjacent dims
// merged where both operands step through them alike, so the innermost run is as long as
// the broadcast pattern allows.
struct Walk {
  std::vector<std::int64_t> dims, sa, sb;
};

Walk coalesce(const std::vector<std::int64_t>& da, const std::vector<std::int64_t>& db,
              const std::vector<std::int64_t>& dy) {
  const std::size_t r = dy.size();
  std::vector<std::int64_t> sa(r, 0), sb(r, 0);
  auto strides = [&](const std::vector<std::int64_t>& d, std::vector<std::int64_t>* s) {
    std::int64_t step = 1;
    for (std::size_t k = 0; k < d.size(); ++k) {
      const std::size_t src = d.size() - 1 - k, dst = r - 1 - k;
      (*s)[dst] = d[src] == 1 && dy[dst] != 1 ? 0 : step;
      step *= d[src];
    }
  };
  strides(da, &sa);
  strides(db, &sb);
  Walk w;
  for (std::size_t k = 0; k < r; ++k) {
    if (dy[k] == 1) continue;  // steps nowhere
    if (!w.dims.empty() && w.sa.back() == sa[k] * dy[k] && w.sb.back() == sb[k] * dy[k]) {
      w.dims.back() *= dy[k];
      w.sa.back() = sa[k];
      w.sb.back() = sb[k];
      continue;
    }
    w.dims.push_back(dy[k]);
    w.sa.push_back(sa[k]);
    w.sb.push_back(sb[k]);
  }
  if (w.dims.empty()) w = {{1}, {0}, {0}};
  return w;
}

template <Q8BinaryOp Op>
void run(const std::uint8_t* a, const Table& ta, const Q8Operand& qa, const std::uint8_t* b, const Table& tb,
         const Q8Operand& qb, std::uint8_t* y, const Out& o, const Walk& w) {
  static const bool avx2 = __builtin_cpu_supports("avx2"), avx512 = __builtin_cpu_supports("avx512f");
  const std::size_t r = w.dims.size();
  const std::int64_t n = w.dims[r - 1];
  // After coalescing the innermost strides are 1 or 0 (a broadcast dim of length > 1).
  const int ia = w.sa[r - 1] != 0, ib = w.sb[r - 1] != 0;
  std::int64_t outer = 1;
  for (std::size_t k = 0; k + 1 < r; ++k) outer *= w.dims[k];
  if (outer == 0 || n == 0) return;
  const std::int64_t ea = qa.dtype == DType::kFloat32 ? 4 : 1, eb = qb.dtype == DType::kFloat32 ? 4 : 1;
  // One operand contiguous, the other one row repeated: [rows, n] against [1, n].
  const bool b_row = r == 2 && w.sa[0] == n && w.sa[1] == 1 && w.sb[0] == 0 && w.sb[1] == 1 && ea == 1;
  const bool a_row = r == 2 && w.sb[0] == n && w.sb[1] == 1 && w.sa[0] == 0 && w.sa[1] == 1 && eb == 1;
  if (avx512 && (a_row || b_row)) {
    // The row repeated over lcm(n, 16) values when that is short (run_rows_avx512).
    const std::int64_t period = n / std::gcd(n, std::int64_t{16}) * 16;
    const std::int64_t row_len = period <= 4096 ? period : n;
    std::vector<float> row(static_cast<std::size_t>(row_len));
    const std::uint8_t* src = a_row ? a : b;
    const Table& t = a_row ? ta : tb;
    const bool is_float = (a_row ? qa : qb).dtype == DType::kFloat32;
    for (std::int64_t i = 0; i < row_len; ++i) row[static_cast<std::size_t>(i)] = value(src, i % n, t, is_float);
    run_rows_avx512<Op>(a_row ? b : a, a_row ? qb : qa, row.data(), row_len, a_row, y, o, outer, n);
    return;
  }
  std::vector<std::int64_t> idx(r, 0);
  std::int64_t oa = 0, ob = 0;
  for (std::int64_t row = 0; row < outer; ++row) {
    if (avx2) {
      const std::uint8_t *ra = a + oa * ea, *rb = b + ob * eb;
      std::uint8_t* ry = y + row * n;
      const std::int64_t d = avx512 ? run_avx512<Op>(ra, ia, ta, qa, rb, ib, tb, qb, ry, o, n) : 0;
      run_avx2<Op>(ra + d * ia * ea, ia, ta, qa, rb + d * ib * eb, ib, tb, qb, ry + d, o, n - d);
    } else {
      run_scalar<Op>(a + oa * ea, ia, ta, qa, b + ob * eb, ib, tb, qb, y + row * n, o, n);
    }
    for (std::size_t k = r - 1; k-- > 0;) {  // odometer over the outer dims
      oa += w.sa[k];
      ob += w.sb[k];
      if (++idx[k] < w.dims[k]) break;
      oa -= w.sa[k] * w.dims[k];
      ob -= w.sb[k] * w.dims[k];
      idx[k] = 0;
    }
  }
}

}  // namespace
}  // namespace q8bin

using q8bin::Out;
using q8bin::Table;

bool q8_binary_applies(const Q8Operand& qa, const Q8Operand& qb, const Q8Operand& qy) {
  if (qy.dtype != model::DType::kInt8 && qy.dtype != model::DType::kUint8) return false;
  for (const Q8Operand* q : {&qa, &qb, &qy}) {
    if (q != &qy && q->dtype == model::DType::kFloat32) {
      if (!std::isfinite(q->scale)) return false;
      continue;
    }
    if (q->dtype != model::DType::kInt8 && q->dtype != model::DType::kUint8) return false;
    // 255·s finite keeps every table value finite (inf − inf would be NaN).
    if (!(q->scale > 0.f) || !std::isfinite(q->scale * 256.f)) return false;
  }
  return true;
}

void q8_binary(Q8BinaryOp op, const void* a, const Q8Operand& qa, const std::vector<std::int64_t>& dims_a,
               const void* b, const Q8Operand& qb, const std::vector<std::int64_t>& dims_b, void* y,
               const Q8Operand& qy, const std::vector<std::int64_t>& dims_y, bool relu) {
  const Table ta(qa), tb(qb);
  Out o{qy.scale, qy.zp, qy.dtype == model::DType::kInt8 ? -128 : 0, qy.dtype == model::DType::kInt8 ? 127 : 255};
  if (relu) o.lo = std::max(o.lo, qy.zp);
  const q8bin::Walk w = q8bin::coalesce(dims_a, dims_b, dims_y);
  const auto* pa = static_cast<const std::uint8_t*>(a);
  const auto* pb = static_cast<const std::uint8_t*>(b);
  auto* py = static_cast<std::uint8_t*>(y);
  switch (op) {
    case Q8BinaryOp::kAdd:
      return q8bin::run<Q8BinaryOp::kAdd>(pa, ta, qa, pb, tb, qb, py, o, w);
    case Q8BinaryOp::kSub:
      return q8bin::run<Q8BinaryOp::kSub>(pa, ta, qa, pb, tb, qb, py, o, w);
    case Q8BinaryOp::kMul:
      return q8bin::run<Q8BinaryOp::kMul>(pa, ta, qa, pb, tb, qb, py, o, w);
    case Q8BinaryOp::kDiv:
      return q8bin::run<Q8BinaryOp::kDiv>(pa, ta, qa, pb, tb, qb, py, o, w);
  }
}

}  // namespace svp::kernels::onednn
