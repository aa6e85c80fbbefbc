// The matmul library's core (rknn_matmul.h). Shapes, types and layouts follow the vendor's
// header of SDK 2.3.2; what is implemented and every deviation is listed in docs/rknn.md.
#include "runtime/rknn_matmul.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/half.h"
#include "kernels/onednn/sgemm_matmul.h"
#include "runtime/config.h"
#include "runtime/rknn_matmul_platform.h"
#include "runtime/rknn_matmul_quant.h"
#include "runtime/rknn_matmul_task.h"
#include "runtime/rknn_mem.h"
#include "target/device_profile.h"

namespace svp::runtime::rknn {
namespace {

// The vendor's K limit.
constexpr std::int32_t kMaxK = 10240;
// Shapes of one dynamic-shape context: a bound on what a garbage shape_num makes us read
// (the vendor documents none).
constexpr int kMaxShapes = 1024;

struct TypeInfo {
  int value = 0;
  rknn_tensor_type a, b, c;
};

// Every rknn_matmul_type with its A, B, C element types (int4 as RKNN_TENSOR_INT4).
const TypeInfo kTypes[] = {
    {RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_FLOAT32},
    {RKNN_INT8_MM_INT8_TO_INT32, RKNN_TENSOR_INT8, RKNN_TENSOR_INT8, RKNN_TENSOR_INT32},
    {RKNN_INT8_MM_INT8_TO_INT8, RKNN_TENSOR_INT8, RKNN_TENSOR_INT8, RKNN_TENSOR_INT8},
    {RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_FLOAT16},
    {RKNN_FLOAT16_MM_INT8_TO_FLOAT32, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_INT8, RKNN_TENSOR_FLOAT32},
    {RKNN_FLOAT16_MM_INT8_TO_FLOAT16, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_INT8, RKNN_TENSOR_FLOAT16},
    {RKNN_FLOAT16_MM_INT4_TO_FLOAT32, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_INT4, RKNN_TENSOR_FLOAT32},
    {RKNN_FLOAT16_MM_INT4_TO_FLOAT16, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_INT4, RKNN_TENSOR_FLOAT16},
    {RKNN_INT8_MM_INT8_TO_FLOAT32, RKNN_TENSOR_INT8, RKNN_TENSOR_INT8, RKNN_TENSOR_FLOAT32},
    {RKNN_INT4_MM_INT4_TO_INT16, RKNN_TENSOR_INT4, RKNN_TENSOR_INT4, RKNN_TENSOR_INT16},
    {RKNN_INT8_MM_INT4_TO_INT32, RKNN_TENSOR_INT8, RKNN_TENSOR_INT4, RKNN_TENSOR_INT32},
    {RKNN_FLOAT16_MM_INT4_TO_BFLOAT16, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_INT4, RKNN_TENSOR_BFLOAT16},
    {RKNN_INT8_MM_INT4_TO_FLOAT16, RKNN_TENSOR_INT8, RKNN_TENSOR_INT4, RKNN_TENSOR_FLOAT16},
};

// The enumerator's name; the header's get_matmul_type_string (as the vendor's) has no case
// for RKNN_INT8_MM_INT4_TO_FLOAT16.
const char* matmul_type_name(int t) {
  return t == RKNN_INT8_MM_INT4_TO_FLOAT16 ? "RKNN_INT8_MM_INT4_TO_FLOAT16"
                                           : get_matmul_type_string(static_cast<rknn_matmul_type>(t));
}

const TypeInfo* type_info(int t) {
  for (const TypeInfo& x : kTypes) {
    if (x.value == t) return &x;
  }
  return nullptr;
}

std::size_t elem_size(rknn_tensor_type t) {
  switch (t) {
    case RKNN_TENSOR_FLOAT32:
    case RKNN_TENSOR_INT32:
      return 4;
    case RKNN_TENSOR_FLOAT16:
    case RKNN_TENSOR_BFLOAT16:
    case RKNN_TENSOR_INT16:
      return 2;
    default:
      return 1;
  }
}

struct MatmulCtx {
  std::mutex mu;
  Handle handle = 0;
  rknn_matmul_info info{};
  const TypeInfo* type = nullptr;
  const MatmulPlatform* platform = nullptr;
  std::vector<rknn_matmul_shape> shapes;
  std::vector<rknn_matmul_io_attr> attrs;  // per shape
  std::size_t shape = 0;
  MemRef a, b, c;
  MatmulQuant qa, qb, qc;  // rknn_matmul_set_quant_params
  int core_mask = RKNN_NPU_CORE_AUTO;
  MatmulDevice device;  // where rknn_matmul_run computes (rknn_matmul_task.h)
};

std::mutex g_mu;
std::map<Handle, std::shared_ptr<MatmulCtx>> g_ctxs;
std::atomic<std::uint64_t> g_next{1};

std::shared_ptr<MatmulCtx> find_ctx(const char* fn, Handle h, int* code) {
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_ctxs.find(h);
    if (it != g_ctxs.end()) return it->second;
  }
  *code = fail(fn, RKNN_ERR_CTX_INVALID,
               fmt::format("context 0x{:x} is not a live matmul context (never created by rknn_matmul_create, or "
                           "already destroyed)",
                           h));
  return nullptr;
}

void fill_tensor(rknn_matmul_tensor_attr* t, const char* name, std::vector<std::uint32_t> dims, rknn_tensor_type type) {
  std::memset(t, 0, sizeof *t);
  std::snprintf(t->name, sizeof t->name, "%s", name);
  t->n_dims = static_cast<std::uint32_t>(dims.size());
  std::uint64_t n = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    t->dims[i] = dims[i];
    n *= dims[i];
  }
  t->size = static_cast<std::uint32_t>(matmul_bytes(type, n));
  t->type = type;
}

// The info fields every shape shares: type, layouts, quantization.
int check_info(const char* fn, const rknn_matmul_info& info, const MatmulPlatform& platform, const TypeInfo** out) {
  const int t = raw_enum(info.type);
  const TypeInfo* ti = type_info(t);
  if (ti == nullptr) {
    return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("info->type {} is not an rknn_matmul_type (1..12, 15)", t));
  }
  if (info.B_layout < RKNN_MM_LAYOUT_NORM || info.B_layout > RKNN_MM_LAYOUT_TP_NORM) {
    return fail(
        fn, RKNN_ERR_PARAM_INVALID,
        fmt::format("info->B_layout {} is not an rknn_matmul_layout (0 NORM, 1 NATIVE, 2 TP_NORM)", info.B_layout));
  }
  if (info.AC_layout != RKNN_MM_LAYOUT_NORM && info.AC_layout != RKNN_MM_LAYOUT_NATIVE) {
    return fail(
        fn, RKNN_ERR_PARAM_INVALID,
        fmt::format("info->AC_layout {} is not RKNN_MM_LAYOUT_NORM (0) or RKNN_MM_LAYOUT_NATIVE (1)", info.AC_layout));
  }
  if (!platform_supports(platform, static_cast<rknn_matmul_type>(t))) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("{} is not supported on {} (its matmul has float16 -> float32 and int8 -> int32 only)",
                            matmul_type_name(t), platform.name));
  }
  if (info.B_quant_type < RKNN_QUANT_TYPE_PER_LAYER_SYM || info.B_quant_type > RKNN_QUANT_TYPE_PER_GROUP_ASYM) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("info->B_quant_type {} is not an rknn_matmul_quant_type (0..5: PER_LAYER, PER_CHANNEL, "
                            "PER_GROUP, each SYM or ASYM)",
                            info.B_quant_type));
  }
  if (info.AC_quant_type != RKNN_QUANT_TYPE_PER_LAYER_SYM && info.AC_quant_type != RKNN_QUANT_TYPE_PER_LAYER_ASYM) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("info->AC_quant_type {} is not RKNN_QUANT_TYPE_PER_LAYER_SYM (0) or _ASYM (1): A and C "
                            "are quantized per layer",
                            info.AC_quant_type));
  }
  if (ti->b == RKNN_TENSOR_FLOAT16 && info.B_quant_type != RKNN_QUANT_TYPE_PER_LAYER_SYM) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("info->B_quant_type {}: B of {} is float16, which is not quantized (use 0)",
                            info.B_quant_type, matmul_type_name(raw_enum(info.type))));
  }
  const bool per_group =
      info.B_quant_type == RKNN_QUANT_TYPE_PER_GROUP_SYM || info.B_quant_type == RKNN_QUANT_TYPE_PER_GROUP_ASYM;
  if (per_group && info.group_size <= 0) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("info->group_size {}: per-group quantization needs a positive group size (a divisor of K, "
                            "e.g. 32)",
                            info.group_size));
  }
  *out = ti;
  return RKNN_SUCC;
}

// One shape's checks and its A, B, C attributes.
int shape_attrs(const char* fn, const rknn_matmul_info& info, const TypeInfo& ti, const MatmulPlatform& platform,
                const rknn_matmul_shape& s, rknn_matmul_io_attr* io) {
  if (s.M <= 0 || s.K <= 0 || s.N <= 0) {
    return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("M {}, K {}, N {}: each must be positive", s.M, s.K, s.N));
  }
  if (s.K > kMaxK) return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("K {} exceeds the limit {}", s.K, kMaxK));
  // rknn_matmul_tensor_attr.size is 32-bit: no operand may need more bytes.
  const std::uint64_t biggest =
      std::max({std::uint64_t(s.M) * s.K, std::uint64_t(s.K) * s.N, std::uint64_t(s.M) * s.N}) * 4;
  if (biggest > UINT32_MAX) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("M {}, K {}, N {}: an operand would exceed 4 GiB (rknn_matmul_tensor_attr.size is 32-bit)",
                            s.M, s.K, s.N));
  }
  const bool per_group =
      info.B_quant_type == RKNN_QUANT_TYPE_PER_GROUP_SYM || info.B_quant_type == RKNN_QUANT_TYPE_PER_GROUP_ASYM;
  if (per_group && s.K % info.group_size != 0) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("K {} is not a multiple of info->group_size {} (per-group quantization splits K into "
                            "groups)",
                            s.K, info.group_size));
  }
  // The vendor's K and N alignments, enforced where a layout depends on them: native
  // layouts, and packed int4 (whose rows must start on byte boundaries).
  const std::int32_t k_align = std::max(k_alignment(platform, ti.a), k_alignment(platform, ti.b));
  const std::int32_t n_align = n_alignment(platform, ti.b);
  const char* type_name = matmul_type_name(raw_enum(info.type));
  auto misaligned = [&](const char* what, std::int32_t ka, std::int32_t na) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("{} of {} needs K a multiple of {} and N of {} on {}; K is {}, N {}", what, type_name, ka,
                            na, platform.name, s.K, s.N));
  };
  if (ti.b == RKNN_TENSOR_INT4 && (s.K % k_align != 0 || s.N % n_align != 0)) {
    return misaligned("int4 (any layout)", k_align, n_align);
  }
  const auto M = static_cast<std::uint32_t>(s.M), K = static_cast<std::uint32_t>(s.K),
             N = static_cast<std::uint32_t>(s.N);
  if (info.AC_layout == RKNN_MM_LAYOUT_NATIVE) {
    const std::int32_t sub_k = native_a_sub_k(platform, ti.a), sub_c = native_c_sub_n(platform, info.type);
    const std::int32_t ka = std::max(k_align, sub_k), na = std::max(n_align, sub_c);
    if (s.K % ka != 0 || s.N % na != 0) return misaligned("the native A and C layouts", ka, na);
    const auto sk = static_cast<std::uint32_t>(sub_k), sc = static_cast<std::uint32_t>(sub_c);
    fill_tensor(&io->A, "A", {K / sk, M, sk}, ti.a);
    fill_tensor(&io->C, "C", {N / sc, M, sc}, ti.c);
  } else {
    fill_tensor(&io->A, "A", {M, K}, ti.a);
    fill_tensor(&io->C, "C", {M, N}, ti.c);
  }
  if (info.B_layout == RKNN_MM_LAYOUT_NATIVE) {
    const NativeBlock blk = native_b_block(platform, ti.b);
    const std::int32_t ka = std::max(k_align, blk.sub_k), na = std::max(n_align, blk.sub_n);
    if (s.K % ka != 0 || s.N % na != 0) return misaligned("the native B layout", ka, na);
    // Above the SoC's segment K the data is segments of native B (rknn_matmul_platform.h);
    // the dims still describe the whole, as the vendor's conversion sizes it.
    const auto sn = static_cast<std::uint32_t>(blk.sub_n), sk = static_cast<std::uint32_t>(blk.sub_k);
    fill_tensor(&io->B, "B", {N / sn, K / sk, sn, sk}, ti.b);
  } else if (info.B_layout == RKNN_MM_LAYOUT_TP_NORM) {
    fill_tensor(&io->B, "B", {N, K}, ti.b);
  } else {
    fill_tensor(&io->B, "B", {K, N}, ti.b);
  }
  return RKNN_SUCC;
}

int create(const char* fn, const MatmulPlatform& platform, Handle* out, const rknn_matmul_info& info,
           const std::vector<rknn_matmul_shape>& shapes, rknn_matmul_io_attr* io_attrs) {
  clear_last_error();
  *out = 0;
  auto c = std::make_shared<MatmulCtx>();
  c->platform = &platform;
  if (const int r = check_info(fn, info, platform, &c->type); r != RKNN_SUCC) return r;
  for (const rknn_matmul_shape& s : shapes) {
    if (s.K != shapes.front().K || s.N != shapes.front().N) {
      return not_implemented(fn, fmt::format("dynamic shapes that differ in K or N ({}x{} and {}x{}; M may vary)",
                                             shapes.front().K, shapes.front().N, s.K, s.N));
    }
    rknn_matmul_io_attr io{};
    if (const int r = shape_attrs(fn, info, *c->type, platform, s, &io); r != RKNN_SUCC) return r;
    c->attrs.push_back(io);
  }
  if (const int r = c->device.open(fn, c->platform->name); r != RKNN_SUCC) return r;
  c->info = info;
  c->shapes = shapes;
  for (std::size_t i = 0; i < c->attrs.size(); ++i) io_attrs[i] = c->attrs[i];
  c->handle = tagged_handle("MATM", g_next.fetch_add(1));
  *out = c->handle;
  std::lock_guard<std::mutex> lock(g_mu);
  g_ctxs[c->handle] = std::move(c);
  return RKNN_SUCC;
}

// Memory bound as `which` for the current shape, read as the device sees it.
int read_operand(const char* fn, const MemRef& m, const rknn_matmul_tensor_attr& attr, std::vector<std::uint8_t>* out) {
  if (!m) {
    return fail(fn, RKNN_ERR_INPUT_INVALID,
                fmt::format("{} has no memory: bind it with rknn_matmul_set_io_mem (memory from rknn_create_mem on the "
                            "matmul context)",
                            attr.name));
  }
  if (m->size < attr.size) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("{} memory {} holds {} bytes, the current shape needs {}", attr.name, m->describe(),
                            m->size, attr.size));
  }
  std::string why;
  bool stale = false;
  if (!device_read(*m, attr.size, true, out, &stale, &why)) return fail(fn, RKNN_ERR_FAIL, why);
  return RKNN_SUCC;
}

// Copies `count` elements of `type` from element index `src_at(i)` of `in` to element i of
// the result (int4 nibble by nibble).
template <typename SourceIndex>
std::vector<std::uint8_t> gather(const std::vector<std::uint8_t>& in, rknn_tensor_type type, std::size_t count,
                                 SourceIndex src_at) {
  std::vector<std::uint8_t> out(matmul_bytes(type, count), 0);
  const std::size_t es = matmul_bytes(type, 1);
  for (std::size_t i = 0; i < count; ++i) {
    if (type == RKNN_TENSOR_INT4) {
      set_int_element(out.data(), type, i, int_element(in.data(), type, src_at(i)));
    } else {
      std::memcpy(&out[i * es], &in[src_at(i) * es], es);
    }
  }
  return out;
}

// A (M x K) and B (K x N) row-major from the context's layouts.
std::vector<std::uint8_t> a_row_major(const MatmulCtx& c, const std::vector<std::uint8_t>& a) {
  const rknn_matmul_shape& s = c.shapes[c.shape];
  if (c.info.AC_layout != RKNN_MM_LAYOUT_NATIVE) return a;
  const std::int32_t sub_k = native_a_sub_k(*c.platform, c.type->a);
  return gather(a, c.type->a, static_cast<std::size_t>(s.M) * s.K,
                [&](std::size_t i) { return native_rows_at(i / s.K, i % s.K, s.M, sub_k); });
}

std::vector<std::uint8_t> b_row_major(const MatmulCtx& c, const std::vector<std::uint8_t>& b) {
  const rknn_matmul_shape& s = c.shapes[c.shape];
  const std::int64_t K = s.K, N = s.N;
  if (c.info.B_layout == RKNN_MM_LAYOUT_NORM) return b;
  const NativeBlock blk = native_b_block(*c.platform, c.type->b);
  const bool tp = c.info.B_layout == RKNN_MM_LAYOUT_TP_NORM;
  return gather(b, c.type->b, static_cast<std::size_t>(K * N), [&](std::size_t i) {
    const auto k = static_cast<std::int64_t>(i) / N, n = static_cast<std::int64_t>(i) % N;
    return tp ? static_cast<std::size_t>(n * K + k)
              : native_b_segmented_at(k, n, K, N, blk, c.platform->native_b_max_k);
  });
}

// Row-major C into the context's C layout.
std::vector<std::uint8_t> c_in_layout(const MatmulCtx& c, const std::vector<std::uint8_t>& rows) {
  const rknn_matmul_shape& s = c.shapes[c.shape];
  if (c.info.AC_layout != RKNN_MM_LAYOUT_NATIVE) return rows;
  const std::int32_t sub = native_c_sub_n(*c.platform, c.info.type);
  const std::size_t es = matmul_bytes(c.type->c, 1);
  std::vector<std::uint8_t> out(rows.size(), 0);
  for (std::int64_t m = 0; m < s.M; ++m) {
    for (std::int64_t n = 0; n < s.N; ++n) {
      std::memcpy(&out[native_rows_at(m, n, s.M, sub) * es], &rows[static_cast<std::size_t>(m * s.N + n) * es], es);
    }
  }
  return out;
}

// The types whose B is int8 or int4 (rknn_matmul_quant.h): row-major A and B unpacked,
// then the exact integer product requantized into C.
void compute_integer_b(const MatmulCtx& c, const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b,
                       std::vector<std::uint8_t>* out) {
  const rknn_matmul_shape& s = c.shapes[c.shape];
  const std::int64_t M = s.M, K = s.K, N = s.N;
  std::vector<std::int32_t> ai, bi(static_cast<std::size_t>(K * N));
  std::vector<double> af;
  const std::size_t mk = static_cast<std::size_t>(M * K);
  if (c.type->a == RKNN_TENSOR_FLOAT16) {
    af.resize(mk);
    for (std::size_t i = 0; i < mk; ++i) {
      std::uint16_t h;
      std::memcpy(&h, &a[i * 2], 2);
      af[i] = half_to_float(h);
    }
  } else {
    ai.resize(mk);
    for (std::size_t i = 0; i < mk; ++i) ai[i] = int_element(a.data(), c.type->a, i);
  }
  // B transposed (N x K): the product walks K contiguously.
  for (std::int64_t k = 0; k < K; ++k) {
    for (std::int64_t n = 0; n < N; ++n) {
      bi[static_cast<std::size_t>(n * K + k)] = int_element(b.data(), c.type->b, static_cast<std::size_t>(k * N + n));
    }
  }
  QuantProduct p;
  p.M = M;
  p.K = K;
  p.N = N;
  p.a = c.type->a;
  p.c = c.type->c;
  p.b_quant_type = c.info.B_quant_type;
  p.group_size = c.info.group_size;
  p.qa = &c.qa;
  p.qb = &c.qb;
  p.qc = &c.qc;
  quantized_product(p, ai, af, bi, out);
}

// C = A x B on the project's kernels: float16 widened exactly and multiplied by oneDNN's
// sgemm (float32 accumulation, as the NPU's float16 path accumulates); an integer B through
// compute_integer_b (exact, then requantized).
int compute(const char* fn, const MatmulCtx& c, const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b,
            std::vector<std::uint8_t>* out) {
  const rknn_matmul_shape& s = c.shapes[c.shape];
  const std::int64_t M = s.M, K = s.K, N = s.N;
  const std::size_t mk = static_cast<std::size_t>(M * K), kn = static_cast<std::size_t>(K * N),
                    mn = static_cast<std::size_t>(M * N);
  if (c.type->b != RKNN_TENSOR_FLOAT16) {
    compute_integer_b(c, a, b, out);
    return RKNN_SUCC;
  }
  out->assign(mn * elem_size(c.type->c), 0);
  std::vector<float> fa(mk), fb(kn), fc(mn);
  for (std::size_t i = 0; i < mk; ++i) {
    std::uint16_t h;
    std::memcpy(&h, &a[i * 2], 2);
    fa[i] = half_to_float(h);
  }
  for (std::size_t i = 0; i < kn; ++i) {
    std::uint16_t h;
    std::memcpy(&h, &b[i * 2], 2);
    fb[i] = half_to_float(h);
  }
  kernels::onednn::SgemmMatMul plan;
  plan.M = M;
  plan.K = K;
  plan.N = N;
  if (Status st = kernels::onednn::run_sgemm_matmul(plan, fa.data(), fb.data(), fc.data(), 1); !st.ok()) {
    return fail(fn, RKNN_ERR_FAIL, "the matmul kernel failed: " + st.message());
  }
  if (c.type->c == RKNN_TENSOR_FLOAT32) {
    std::memcpy(out->data(), fc.data(), mn * sizeof(float));
  } else {
    for (std::size_t i = 0; i < mn; ++i) {
      const std::uint16_t h = float_to_half(fc[i]);
      std::memcpy(&(*out)[i * 2], &h, 2);
    }
  }
  return RKNN_SUCC;
}

}  // namespace

bool is_matmul_context(Handle h) {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_ctxs.count(h) != 0;
}

namespace {

// The board whose rules the C API follows: the RKNN SoC SVP_ACL_RKNN_CONFIG's
// softnpu.soc_version names (the software NPU's configured board), else RK3588's. Not the
// first model's platform: the library's answers would then depend on what ran before.
int board_platform(const char* fn, const MatmulPlatform** out) {
  *out = &default_matmul_platform();
  const char* path = std::getenv("SVP_ACL_RKNN_CONFIG");
  if (path == nullptr || path[0] == '\0') return RKNN_SUCC;
  auto cfg = load_config(path);
  if (!cfg.ok()) return fail(fn, RKNN_ERR_FAIL, "SVP_ACL_RKNN_CONFIG: " + cfg.status().message());
  const target::DeviceProfile* soc = target::find_profile(cfg->backend.board_target);
  if (soc == nullptr || soc->family != target::Family::kRknn) return RKNN_SUCC;  // no RKNN board named
  const MatmulPlatform* p = find_matmul_platform(soc->name);
  if (p == nullptr) {
    return fail(fn, RKNN_ERR_FAIL,
                fmt::format("the board SVP_ACL_RKNN_CONFIG names ({}) has no matmul library (RK3588, RK3576, "
                            "RK3566, RK3568 and RK3562 have)",
                            soc->name));
  }
  *out = p;
  return RKNN_SUCC;
}

}  // namespace

int matmul_create(Handle* out, const rknn_matmul_info& info, rknn_matmul_io_attr* io_attr) {
  static constexpr char fn[] = "rknn_matmul_create";
  const MatmulPlatform* p = nullptr;
  if (const int r = board_platform(fn, &p); r != RKNN_SUCC) {
    *out = 0;
    return r;
  }
  return create(fn, *p, out, info, {{info.M, info.K, info.N}}, io_attr);
}

int matmul_create_on(const std::string& platform, Handle* out, const rknn_matmul_info& info,
                     rknn_matmul_io_attr* io_attr) {
  static constexpr char fn[] = "rknn_matmul_create";
  const MatmulPlatform* p = find_matmul_platform(platform);
  if (p == nullptr) {
    *out = 0;
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("{} has no matmul library (RK3588, RK3576, RK3566, RK3568, RK3562 have)", platform));
  }
  return create(fn, *p, out, info, {{info.M, info.K, info.N}}, io_attr);
}

int matmul_create_dynamic_shape(Handle* out, const rknn_matmul_info& info, int shape_num,
                                const rknn_matmul_shape* shapes, rknn_matmul_io_attr* io_attrs) {
  static constexpr char fn[] = "rknn_matmul_create_dynamic_shape";
  if (shape_num <= 0 || shape_num > kMaxShapes) {
    *out = 0;
    return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("shape_num {} is not in 1..{}", shape_num, kMaxShapes));
  }
  const MatmulPlatform* p = nullptr;
  if (const int r = board_platform(fn, &p); r != RKNN_SUCC) {
    *out = 0;
    return r;
  }
  return create(fn, *p, out, info, std::vector<rknn_matmul_shape>(shapes, shapes + shape_num), io_attrs);
}

int matmul_set_io_mem(Handle h, rknn_tensor_mem* mem, const rknn_matmul_tensor_attr& attr) {
  static constexpr char fn[] = "rknn_matmul_set_io_mem";
  clear_last_error();
  int code = RKNN_SUCC;
  auto c = find_ctx(fn, h, &code);
  if (!c) return code;
  std::lock_guard<std::mutex> lock(c->mu);
  MemRef m = find_mem(mem);
  if (!m) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("mem {} is not a live rknn_tensor_mem (never created by "
                            "rknn_create_mem*, or already destroyed)",
                            static_cast<void*>(mem)));
  }
  if (m->owner != 0 && m->owner != h) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("{} belongs to context 0x{:x}, not to this matmul context", m->describe(), m->owner));
  }
  const rknn_matmul_io_attr& io = c->attrs[c->shape];
  const std::string name(attr.name, strnlen(attr.name, sizeof attr.name));
  const rknn_matmul_tensor_attr* want = name == "A" ? &io.A : name == "B" ? &io.B : name == "C" ? &io.C : nullptr;
  if (want == nullptr) {
    return fail(
        fn, RKNN_ERR_PARAM_INVALID,
        fmt::format("attr->name \"{}\" is not A, B or C (pass io_attr.A, .B or .C from rknn_matmul_create)", name));
  }
  if (attr.n_dims != want->n_dims || std::memcmp(attr.dims, want->dims, sizeof attr.dims) != 0 ||
      raw_enum(attr.type) != raw_enum(want->type) || attr.size != want->size) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("attr does not describe the context's {} (its dims, type and size as rknn_matmul_create "
                            "reported them for the current shape: {} bytes)",
                            name, want->size));
  }
  if (m->size < want->size) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("{} holds {} bytes; {} needs {} (attr->size)", m->describe(), m->size, name, want->size));
  }
  (name == "A" ? c->a : name == "B" ? c->b : c->c) = std::move(m);
  return RKNN_SUCC;
}

int matmul_set_core_mask(Handle h, int core_mask) {
  static constexpr char fn[] = "rknn_matmul_set_core_mask";
  clear_last_error();
  int code = RKNN_SUCC;
  auto c = find_ctx(fn, h, &code);
  if (!c) return code;
  const MatmulPlatform& p = *c->platform;
  if (p.cores == 1) {
    return fail(fn, RKNN_ERR_FAIL,
                fmt::format("{} has one NPU core: rknn_matmul_set_core_mask is for RK3588 and RK3576", p.name));
  }
  if (!is_core_mask_of(core_mask, p.cores)) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("core_mask 0x{:x} is not one of {}'s masks (AUTO 0, 0 1, 1 2, {}ALL 0xffff)", core_mask,
                            p.name, p.cores == 3 ? "2 4, 0_1 3, 0_1_2 7, " : "0_1 3, "));
  }
  std::lock_guard<std::mutex> lock(c->mu);
  c->core_mask = core_mask;
  return RKNN_SUCC;
}

int matmul_set_dynamic_shape(Handle h, const rknn_matmul_shape& shape) {
  static constexpr char fn[] = "rknn_matmul_set_dynamic_shape";
  clear_last_error();
  int code = RKNN_SUCC;
  auto c = find_ctx(fn, h, &code);
  if (!c) return code;
  std::lock_guard<std::mutex> lock(c->mu);
  std::string listed;
  for (std::size_t i = 0; i < c->shapes.size(); ++i) {
    const rknn_matmul_shape& s = c->shapes[i];
    if (s.M == shape.M && s.K == shape.K && s.N == shape.N) {
      c->shape = i;
      return RKNN_SUCC;
    }
    listed += fmt::format("{}{}x{}x{}", listed.empty() ? "" : ", ", s.M, s.K, s.N);
  }
  return fail(fn, RKNN_ERR_PARAM_INVALID,
              fmt::format("M {} K {} N {} is not one of the context's shapes (M x K x N: {})", shape.M, shape.K,
                          shape.N, listed));
}

int matmul_run(Handle h) {
  static constexpr char fn[] = "rknn_matmul_run";
  clear_last_error();
  int code = RKNN_SUCC;
  auto c = find_ctx(fn, h, &code);
  if (!c) return code;
  std::lock_guard<std::mutex> lock(c->mu);
  const rknn_matmul_io_attr& io = c->attrs[c->shape];
  std::vector<std::uint8_t> a, b;
  if (const int r = read_operand(fn, c->a, io.A, &a); r != RKNN_SUCC) return r;
  if (const int r = read_operand(fn, c->b, io.B, &b); r != RKNN_SUCC) return r;
  if (!c->c) {
    return fail(fn, RKNN_ERR_OUTPUT_INVALID,
                "C has no memory: bind it with rknn_matmul_set_io_mem (memory from "
                "rknn_create_mem on the matmul context)");
  }
  if (c->c->size < io.C.size) {
    return fail(
        fn, RKNN_ERR_PARAM_INVALID,
        fmt::format("C memory {} holds {} bytes, the current shape needs {}", c->c->describe(), c->c->size, io.C.size));
  }
  const rknn_matmul_shape& s = c->shapes[c->shape];
  const MatmulWork work{s.M, s.K, s.N, c->type->a, c->platform->name};
  // Operands are checked and read here, on the caller's thread (their errors are the
  // caller's at once); the product and C's write are the NPU task's, which owns what it
  // uses (the context, the operands) in case the wait ends before the task does.
  auto body = [c, a = std::move(a), b = std::move(b), dst = c->c]() mutable -> int {
    a = a_row_major(*c, a);
    b = b_row_major(*c, b);
    std::vector<std::uint8_t> out;
    if (const int r = compute(fn, *c, a, b, &out); r != RKNN_SUCC) return r;
    out = c_in_layout(*c, out);
    std::string why;
    if (!device_write(*dst, out, true, &why)) return fail(fn, RKNN_ERR_FAIL, why);
    return RKNN_SUCC;
  };
  return c->device.run(fn, c->core_mask, static_cast<std::uint32_t>(c->platform->cores), work, std::move(body));
}

int matmul_destroy(Handle h) {
  static constexpr char fn[] = "rknn_matmul_destroy";
  std::shared_ptr<MatmulCtx> c;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_ctxs.find(h);
    if (it != g_ctxs.end()) {
      c = it->second;
      g_ctxs.erase(it);
    }
  }
  if (!c) {
    int code = RKNN_SUCC;
    (void)find_ctx(fn, h, &code);
    return code;
  }
  std::lock_guard<std::mutex> lock(c->mu);  // a run in flight ends first
  c->a.reset();
  c->b.reset();
  c->c.reset();
  return RKNN_SUCC;
}

namespace {

// The context's quantization of tensor `name` and its element type; nullptr for another name.
MatmulQuant* quant_of(MatmulCtx& c, const std::string& name, rknn_tensor_type* type) {
  if (name == "A") return *type = c.type->a, &c.qa;
  if (name == "B") return *type = c.type->b, &c.qb;
  if (name == "C") return *type = c.type->c, &c.qc;
  return nullptr;
}

bool is_integer(rknn_tensor_type t) {
  return t == RKNN_TENSOR_INT4 || t == RKNN_TENSOR_INT8 || t == RKNN_TENSOR_INT16 || t == RKNN_TENSOR_INT32;
}

// The zero points `t` holds (int16/int32 C: int32's).
bool zp_in_range(rknn_tensor_type t, std::int32_t zp) {
  if (t == RKNN_TENSOR_INT4) return zp >= -8 && zp <= 7;
  if (t == RKNN_TENSOR_INT8) return zp >= -128 && zp <= 127;
  if (t == RKNN_TENSOR_INT16) return zp >= -32768 && zp <= 32767;
  return true;
}

}  // namespace

int matmul_set_quant_params(Handle h, const rknn_quant_params& params) {
  static constexpr char fn[] = "rknn_matmul_set_quant_params";
  clear_last_error();
  int code = RKNN_SUCC;
  auto c = find_ctx(fn, h, &code);
  if (!c) return code;
  std::lock_guard<std::mutex> lock(c->mu);
  const std::string name(params.name, strnlen(params.name, sizeof params.name));
  rknn_tensor_type type = RKNN_TENSOR_INT8;
  MatmulQuant* q = quant_of(*c, name, &type);
  if (q == nullptr) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("params->name \"{}\" is not A, B or C (copy io_attr.A/B/C.name)", name));
  }
  if (!is_integer(type)) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("{} of {} is {}, which takes no quantization parameters", name,
                            matmul_type_name(raw_enum(c->info.type)), get_type_string(type)));
  }
  const bool is_b = name == "B";
  const rknn_matmul_shape& s = c->shapes.front();  // every shape shares K and N
  const std::size_t want = is_b ? b_quant_count(c->info.B_quant_type, s.K, s.N, c->info.group_size) : 1;
  // One value for all (the vendor's dynamic-shape demo sets a per-channel B so) is broadcast.
  const bool broadcast = params.scale_len == 1;
  if (params.scale == nullptr || (!broadcast && static_cast<std::size_t>(std::max(params.scale_len, 0)) != want) ||
      params.scale_len <= 0) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("{} takes {} scale(s) (or 1 for all; B_quant_type {}, K {}, N {}, group_size {}); "
                            "params->scale_len is {}{}",
                            name, want, c->info.B_quant_type, s.K, s.N, c->info.group_size, params.scale_len,
                            params.scale == nullptr ? " and params->scale is NULL" : ""));
  }
  if (params.zp_len != 0 && (params.zp == nullptr || params.zp_len != params.scale_len)) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("params->zp_len {} must be 0 (zero points 0) or scale_len {}, with params->zp set",
                            params.zp_len, params.scale_len));
  }
  // Even rknn_matmul_quant_type values are the symmetric ones.
  const bool symmetric = (is_b ? c->info.B_quant_type : c->info.AC_quant_type) % 2 == 0;
  MatmulQuant next;
  next.scale.resize(want);
  next.zp.assign(want, 0);
  for (std::size_t i = 0; i < want; ++i) {
    const std::size_t from = broadcast ? 0 : i;
    next.scale[i] = params.scale[from];
    if (!(std::isfinite(next.scale[i]) && next.scale[i] > 0)) {
      return fail(fn, RKNN_ERR_PARAM_INVALID,
                  fmt::format("{} scale[{}] is {}: scales must be positive and finite", name, i, next.scale[i]));
    }
    if (params.zp_len == 0) continue;
    next.zp[i] = params.zp[from];
    if (!zp_in_range(type, next.zp[i]) || (symmetric && next.zp[i] != 0)) {
      return fail(fn, RKNN_ERR_PARAM_INVALID,
                  fmt::format("{} zp[{}] is {}: {}", name, i, next.zp[i],
                              symmetric ? "a symmetric quantization type (info->B_quant_type / AC_quant_type even) "
                                          "has zero points 0"
                                        : fmt::format("outside {}'s range", get_type_string(type))));
    }
  }
  *q = std::move(next);
  return RKNN_SUCC;
}

int matmul_get_quant_params(Handle h, rknn_quant_params* params, float* scale) {
  static constexpr char fn[] = "rknn_matmul_get_quant_params";
  clear_last_error();
  int code = RKNN_SUCC;
  auto c = find_ctx(fn, h, &code);
  if (!c) return code;
  std::lock_guard<std::mutex> lock(c->mu);
  std::string name(params->name, strnlen(params->name, sizeof params->name));
  if (name.empty()) name = "B";  // the vendor documents this call for B
  rknn_tensor_type type = RKNN_TENSOR_INT8;
  const MatmulQuant* q = quant_of(*c, name, &type);
  if (q == nullptr) {
    return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("params->name \"{}\" is not A, B or C (empty means B)", name));
  }
  const auto n = static_cast<std::int32_t>(q->scale.size());
  if (params->scale != nullptr) {
    std::copy_n(q->scale.begin(), std::clamp(params->scale_len, 0, n), params->scale);
  }
  if (params->zp != nullptr) std::copy_n(q->zp.begin(), std::clamp(params->zp_len, 0, n), params->zp);
  params->scale_len = n;
  params->zp_len = n;
  *scale = q->scale.front();
  return RKNN_SUCC;
}

int matmul_b_to_native(const void* in, void* out, int K, int N, const rknn_matmul_info& info) {
  static constexpr char fn[] = "rknn_B_normal_layout_to_native_layout";
  clear_last_error();
  const MatmulPlatform* board = nullptr;
  if (const int r = board_platform(fn, &board); r != RKNN_SUCC) return r;
  const MatmulPlatform& platform = *board;
  const TypeInfo* ti = nullptr;
  rknn_matmul_info normal = info;
  normal.B_layout = RKNN_MM_LAYOUT_NATIVE;
  normal.AC_layout = RKNN_MM_LAYOUT_NORM;
  if (const int r = check_info(fn, normal, platform, &ti); r != RKNN_SUCC) return r;
  rknn_matmul_io_attr io{};
  if (const int r = shape_attrs(fn, normal, *ti, platform, {1, K, N}, &io); r != RKNN_SUCC) return r;
  const NativeBlock blk = native_b_block(platform, ti->b);
  const auto* src = static_cast<const std::uint8_t*>(in);
  auto* dst = static_cast<std::uint8_t*>(out);
  const std::size_t es = matmul_bytes(ti->b, 1);
  for (std::int64_t k = 0; k < K; ++k) {
    for (std::int64_t n = 0; n < N; ++n) {
      const std::size_t from = static_cast<std::size_t>(k * N + n),
                        to = native_b_segmented_at(k, n, K, N, blk, platform.native_b_max_k);
      if (ti->b == RKNN_TENSOR_INT4) {  // nibbles move one by one
        set_int_element(dst, ti->b, to, int_element(src, ti->b, from));
      } else {
        std::memcpy(dst + to * es, src + from * es, es);
      }
    }
  }
  return RKNN_SUCC;
}

}  // namespace svp::runtime::rknn
