// librknnrt's matmul library, the types whose B is int8 or int4 (include/rknn/rknn_matmul_api.h,
// docs/rknn.md "Matmul"): every such type, with B quantized per layer, per channel and per
// group, in the normal, transposed and native B layouts, bit for bit against C computed here
// with plain loops (integer accumulation; the requantization formula docs/rknn.md states);
// int4 packing; rknn_matmul_set_quant_params / get_quant_params and their refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/half.h"
#include "rknn/rknn_matmul_api.h"
#include "rknn_test_support.h"
#include "runtime/rknn_context.h"

namespace svp {
namespace {

using runtime::rknn::last_error;
using test::contains;

struct Types {
  rknn_matmul_type type;
  rknn_tensor_type a, b, c;
};

const Types kIntegerB[] = {
    {RKNN_INT8_MM_INT8_TO_INT32, RKNN_TENSOR_INT8, RKNN_TENSOR_INT8, RKNN_TENSOR_INT32},
    {RKNN_INT8_MM_INT8_TO_INT8, RKNN_TENSOR_INT8, RKNN_TENSOR_INT8, RKNN_TENSOR_INT8},
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

bool is_int(rknn_tensor_type t) {
  return t != RKNN_TENSOR_FLOAT16 && t != RKNN_TENSOR_FLOAT32 && t != RKNN_TENSOR_BFLOAT16;
}

// Packs integers as the vendor demo does: int8 one per byte; int4 element i in byte i/2, even
// i in the low nibble.
std::vector<std::uint8_t> pack_typed(const std::vector<int>& v, rknn_tensor_type t) {
  if (t != RKNN_TENSOR_INT4) {
    std::vector<std::uint8_t> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(v[i]));
    return out;
  }
  std::vector<std::uint8_t> out((v.size() + 1) / 2, 0);
  for (std::size_t i = 0; i < v.size(); ++i) out[i / 2] |= static_cast<std::uint8_t>((v[i] & 0xF) << (i % 2 ? 4 : 0));
  return out;
}

// Row-major K x N B rearranged for `layout` (element order): TP_NORM N x K, NATIVE RK3588's
// (N/subN, K/32, subN, 32) blocks.
std::vector<int> arrange_b(const std::vector<int>& b, int K, int N, int layout, int sub_n) {
  if (layout == RKNN_MM_LAYOUT_NORM) return b;
  std::vector<int> out(b.size());
  for (int k = 0; k < K; ++k) {
    for (int n = 0; n < N; ++n) {
      const std::size_t at =
          layout == RKNN_MM_LAYOUT_TP_NORM
              ? static_cast<std::size_t>(n) * K + k
              : static_cast<std::size_t>(((n / sub_n) * (K / 32) + k / 32) * sub_n * 32 + (n % sub_n) * 32 + k % 32);
      out[at] = b[static_cast<std::size_t>(k) * N + n];
    }
  }
  return out;
}

struct Problem {
  int M = 3, K = 64, N = 64;
  Types t{};
  int b_quant = RKNN_QUANT_TYPE_PER_LAYER_SYM;
  int group = 0;
  std::vector<int> a_int, b;          // A (integer types), B: row-major
  std::vector<std::uint16_t> a_half;  // A (float16)
  float sa = 1, sc = 1;
  int zpa = 0, zpc = 0;
  std::vector<float> sb;
  std::vector<int> zpb;
};

Problem make_problem(const Types& t, int b_quant, unsigned seed) {
  std::mt19937 rng(seed);
  Problem p;
  p.t = t;
  p.b_quant = b_quant;
  const bool asym = b_quant % 2 == 1;
  const bool per_group = b_quant >= RKNN_QUANT_TYPE_PER_GROUP_SYM;
  p.group = per_group ? 32 : 0;
  auto range = [&](rknn_tensor_type type) { return type == RKNN_TENSOR_INT4 ? 8 : 128; };
  auto draw = [&](int r) { return static_cast<int>(rng() % (2 * r)) - r; };
  for (int i = 0; i < p.M * p.K; ++i) {
    if (is_int(t.a)) {
      p.a_int.push_back(draw(range(t.a)));
    } else {
      p.a_half.push_back(float_to_half(std::uniform_real_distribution<float>(-2.0f, 2.0f)(rng)));
    }
  }
  for (int i = 0; i < p.K * p.N; ++i) p.b.push_back(draw(range(t.b)));
  const int count = b_quant <= RKNN_QUANT_TYPE_PER_LAYER_ASYM ? 1 : per_group ? p.K / p.group * p.N : p.N;
  for (int i = 0; i < count; ++i) {
    p.sb.push_back(std::uniform_real_distribution<float>(0.001f, 0.05f)(rng));
    p.zpb.push_back(asym ? draw(range(t.b) / 2) : 0);
  }
  if (is_int(t.a)) {
    p.sa = std::uniform_real_distribution<float>(0.01f, 0.1f)(rng);
    p.zpa = draw(range(t.a) / 2);
  }
  if (t.c == RKNN_TENSOR_INT8) {
    p.sc = std::uniform_real_distribution<float>(0.02f, 0.2f)(rng);
    p.zpc = draw(20);
  }
  return p;
}

// C as the raw bits of each element (bit-exact comparison), from the documented formula:
// acc_g = sum_k (a - zpA)(b - zpB), integer C = sum_g acc_g saturated, else
// real = sA * sum_g sB * acc_g, int8 C = round-half-away(real / sC) + zpC saturated, float C
// = float(real) then C's type.
std::vector<std::uint32_t> reference(const Problem& p) {
  const bool float_a = !is_int(p.t.a);
  const int group = p.group > 0 ? p.group : p.K;
  const bool per_layer = p.sb.size() == 1;
  std::vector<std::uint32_t> c;
  for (int m = 0; m < p.M; ++m) {
    for (int n = 0; n < p.N; ++n) {
      long long total = 0;
      double real = 0;
      for (int g = 0; g < p.K / group; ++g) {
        const std::size_t q = per_layer ? 0 : static_cast<std::size_t>(g) * p.N + n;
        long long acc_i = 0;
        double acc_f = 0;
        for (int k = g * group; k < (g + 1) * group; ++k) {
          const int bv = p.b[static_cast<std::size_t>(k) * p.N + n] - p.zpb[q];
          const std::size_t ai = static_cast<std::size_t>(m) * p.K + k;
          if (float_a) {
            acc_f += static_cast<double>(half_to_float(p.a_half[ai])) * bv;
          } else {
            acc_i += static_cast<long long>(p.a_int[ai] - p.zpa) * bv;
          }
        }
        total += acc_i;
        real += static_cast<double>(p.sb[q]) * (float_a ? acc_f : static_cast<double>(acc_i));
      }
      real *= float_a ? 1.0 : static_cast<double>(p.sa);
      std::uint32_t bits = 0;
      switch (p.t.c) {
        case RKNN_TENSOR_INT32:
          bits = static_cast<std::uint32_t>(static_cast<std::int32_t>(total));
          break;
        case RKNN_TENSOR_INT16:
          bits = static_cast<std::uint16_t>(static_cast<std::int16_t>(std::clamp(total, -32768LL, 32767LL)));
          break;
        case RKNN_TENSOR_INT8: {
          const double q = std::clamp(std::round(real / static_cast<double>(p.sc)) + p.zpc, -128.0, 127.0);
          bits = static_cast<std::uint8_t>(static_cast<std::int8_t>(q));
          break;
        }
        case RKNN_TENSOR_FLOAT32: {
          const auto f = static_cast<float>(real);
          std::memcpy(&bits, &f, 4);
          break;
        }
        case RKNN_TENSOR_BFLOAT16:
          bits = float_to_bfloat16(static_cast<float>(real));
          break;
        default:
          bits = float_to_half(static_cast<float>(real));
          break;
      }
      c.push_back(bits);
    }
  }
  return c;
}

std::size_t c_element_bytes(rknn_tensor_type t) {
  return t == RKNN_TENSOR_INT8 ? 1 : (t == RKNN_TENSOR_INT32 || t == RKNN_TENSOR_FLOAT32) ? 4 : 2;
}

int set_quant(rknn_matmul_ctx ctx, const char* name, std::vector<float> scale, std::vector<int> zp) {
  rknn_quant_params q;
  std::memset(&q, 0, sizeof q);
  std::snprintf(q.name, sizeof q.name, "%s", name);
  q.scale = scale.data();
  q.scale_len = static_cast<std::int32_t>(scale.size());
  std::vector<std::int32_t> z(zp.begin(), zp.end());
  q.zp = z.data();
  q.zp_len = static_cast<std::int32_t>(z.size());
  return rknn_matmul_set_quant_params(ctx, &q);
}

rknn_matmul_info info_of(const Problem& p, int b_layout) {
  rknn_matmul_info info;
  std::memset(&info, 0, sizeof info);
  info.M = p.M;
  info.K = p.K;
  info.N = p.N;
  info.type = p.t.type;
  info.B_layout = static_cast<std::int16_t>(b_layout);
  info.B_quant_type = static_cast<std::int16_t>(p.b_quant);
  info.AC_quant_type = RKNN_QUANT_TYPE_PER_LAYER_ASYM;
  info.group_size = static_cast<std::int16_t>(p.group);
  return info;
}

// Creates, sets the quantization, binds, runs; C's element bits.
std::vector<std::uint32_t> run_problem(const Problem& p, int b_layout) {
  rknn_matmul_info info = info_of(p, b_layout);
  rknn_matmul_io_attr io;
  rknn_matmul_ctx ctx = 0;
  EXPECT_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC) << last_error();
  if (ctx == 0) return {};
  EXPECT_EQ(io.A.type, p.t.a);
  EXPECT_EQ(io.B.type, p.t.b);
  EXPECT_EQ(io.C.type, p.t.c);
  if (is_int(p.t.a)) {
    EXPECT_EQ(set_quant(ctx, "A", {p.sa}, {p.zpa}), RKNN_SUCC) << last_error();
  }
  EXPECT_EQ(set_quant(ctx, "B", p.sb, p.zpb), RKNN_SUCC) << last_error();
  if (p.t.c == RKNN_TENSOR_INT8) {
    EXPECT_EQ(set_quant(ctx, "C", {p.sc}, {p.zpc}), RKNN_SUCC) << last_error();
  }
  rknn_tensor_mem* a = rknn_create_mem(ctx, io.A.size);
  rknn_tensor_mem* b = rknn_create_mem(ctx, io.B.size);
  rknn_tensor_mem* c = rknn_create_mem(ctx, io.C.size);
  std::vector<std::uint32_t> out;
  if (a != nullptr && b != nullptr && c != nullptr) {
    if (is_int(p.t.a)) {
      const std::vector<std::uint8_t> bytes = pack_typed(p.a_int, p.t.a);
      EXPECT_EQ(bytes.size(), io.A.size);
      std::memcpy(a->virt_addr, bytes.data(), std::min<std::size_t>(bytes.size(), io.A.size));
    } else {
      std::memcpy(a->virt_addr, p.a_half.data(), io.A.size);
    }
    const int sub_n = p.t.b == RKNN_TENSOR_INT4 ? 64 : 32;
    const std::vector<std::uint8_t> bb = pack_typed(arrange_b(p.b, p.K, p.N, b_layout, sub_n), p.t.b);
    EXPECT_EQ(bb.size(), io.B.size);
    std::memcpy(b->virt_addr, bb.data(), std::min<std::size_t>(bb.size(), io.B.size));
    EXPECT_EQ(rknn_matmul_set_io_mem(ctx, a, &io.A), RKNN_SUCC) << last_error();
    EXPECT_EQ(rknn_matmul_set_io_mem(ctx, b, &io.B), RKNN_SUCC) << last_error();
    EXPECT_EQ(rknn_matmul_set_io_mem(ctx, c, &io.C), RKNN_SUCC) << last_error();
    EXPECT_EQ(rknn_matmul_run(ctx), RKNN_SUCC) << last_error();
    const std::size_t es = c_element_bytes(p.t.c);
    EXPECT_EQ(io.C.size, static_cast<std::uint32_t>(p.M * p.N) * es);
    for (int i = 0; i < p.M * p.N; ++i) {
      std::uint32_t bits = 0;
      std::memcpy(&bits, static_cast<const std::uint8_t*>(c->virt_addr) + i * es, es);
      out.push_back(bits);
    }
  }
  for (rknn_tensor_mem* m : {a, b, c}) {
    if (m != nullptr) {
      EXPECT_EQ(rknn_destroy_mem(ctx, m), RKNN_SUCC);
    }
  }
  EXPECT_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC);
  return out;
}

TEST(RknnMatmulQuant, EveryIntegerBTypeQuantAndLayoutMatchesTheReferenceBitForBit) {
  unsigned seed = 1;
  for (const Types& t : kIntegerB) {
    for (int quant : {RKNN_QUANT_TYPE_PER_LAYER_SYM, RKNN_QUANT_TYPE_PER_LAYER_ASYM, RKNN_QUANT_TYPE_PER_CHANNEL_SYM,
                      RKNN_QUANT_TYPE_PER_CHANNEL_ASYM, RKNN_QUANT_TYPE_PER_GROUP_ASYM}) {
      const Problem p = make_problem(t, quant, seed++);
      const std::vector<std::uint32_t> want = reference(p);
      for (int layout : {RKNN_MM_LAYOUT_NORM, RKNN_MM_LAYOUT_TP_NORM, RKNN_MM_LAYOUT_NATIVE}) {
        SCOPED_TRACE(std::string(get_matmul_type_string(t.type)) + " quant " + std::to_string(quant) + " layout " +
                     std::to_string(layout));
        const std::vector<std::uint32_t> got = run_problem(p, layout);
        ASSERT_EQ(got.size(), want.size());
        std::size_t differ = 0;
        for (std::size_t i = 0; i < got.size(); ++i) differ += got[i] != want[i];
        EXPECT_EQ(differ, 0u) << "elements differing from the reference (first: " << got[0] << " vs " << want[0] << ")";
      }
    }
  }
}

TEST(RknnMatmulQuant, DynamicMKeepsTheQuantizationForEveryShape) {
  // INT8_MM_INT4_TO_FLOAT16, B per channel with zero points; A memory for the largest M.
  Problem p = make_problem(kIntegerB[10], RKNN_QUANT_TYPE_PER_CHANNEL_ASYM, 21);
  rknn_matmul_info info = info_of(p, RKNN_MM_LAYOUT_NORM);
  rknn_matmul_shape shapes[] = {{1, p.K, p.N}, {p.M, p.K, p.N}};
  rknn_matmul_io_attr io[2];
  rknn_matmul_ctx ctx = 0;
  ASSERT_EQ(rknn_matmul_create_dynamic_shape(&ctx, &info, 2, shapes, io), RKNN_SUCC) << last_error();
  ASSERT_EQ(set_quant(ctx, "A", {p.sa}, {p.zpa}), RKNN_SUCC) << last_error();
  ASSERT_EQ(set_quant(ctx, "B", p.sb, p.zpb), RKNN_SUCC) << last_error();
  rknn_tensor_mem* a = rknn_create_mem(ctx, io[1].A.size);
  rknn_tensor_mem* b = rknn_create_mem(ctx, io[1].B.size);
  rknn_tensor_mem* c = rknn_create_mem(ctx, io[1].C.size);
  ASSERT_TRUE(a && b && c);
  const std::vector<std::uint8_t> pa = pack_typed(p.a_int, p.t.a), pb = pack_typed(p.b, p.t.b);
  std::memcpy(a->virt_addr, pa.data(), pa.size());
  std::memcpy(b->virt_addr, pb.data(), pb.size());
  for (int s : {1, 0}) {
    SCOPED_TRACE("M " + std::to_string(shapes[s].M));
    ASSERT_EQ(rknn_matmul_set_dynamic_shape(ctx, &shapes[s]), RKNN_SUCC) << last_error();
    ASSERT_EQ(rknn_matmul_set_io_mem(ctx, a, &io[s].A), RKNN_SUCC) << last_error();
    ASSERT_EQ(rknn_matmul_set_io_mem(ctx, b, &io[s].B), RKNN_SUCC) << last_error();
    ASSERT_EQ(rknn_matmul_set_io_mem(ctx, c, &io[s].C), RKNN_SUCC) << last_error();
    ASSERT_EQ(rknn_matmul_run(ctx), RKNN_SUCC) << last_error();
    Problem first = p;
    first.M = shapes[s].M;
    first.a_int.resize(static_cast<std::size_t>(first.M) * p.K);  // A's first M rows
    const std::vector<std::uint32_t> want = reference(first);
    for (std::size_t i = 0; i < want.size(); ++i) {
      std::uint16_t got = 0;
      std::memcpy(&got, static_cast<const std::uint8_t*>(c->virt_addr) + i * 2, 2);
      ASSERT_EQ(got, want[i]) << "element " << i;
    }
  }
  for (rknn_tensor_mem* m : {a, b, c}) EXPECT_EQ(rknn_destroy_mem(ctx, m), RKNN_SUCC);
  EXPECT_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC);
}

TEST(RknnMatmulQuant, QuantizationChangesTheResultAsTheParametersSay) {
  // A guard against a reference that ignores what it is given: doubling B's scale doubles a
  // float32 C exactly, and a zero point of B shifts it by zpB * sum(a) * sB.
  Problem p = make_problem(kIntegerB[2], RKNN_QUANT_TYPE_PER_LAYER_ASYM, 99);  // FLOAT16_MM_INT8_TO_FLOAT32
  p.zpb = {0};
  const std::vector<std::uint32_t> base = run_problem(p, RKNN_MM_LAYOUT_NORM);
  p.sb = {p.sb[0] * 2};
  const std::vector<std::uint32_t> doubled = run_problem(p, RKNN_MM_LAYOUT_NORM);
  ASSERT_EQ(base.size(), doubled.size());
  for (std::size_t i = 0; i < base.size(); ++i) {
    float x, y;
    std::memcpy(&x, &base[i], 4);
    std::memcpy(&y, &doubled[i], 4);
    ASSERT_EQ(y, 2 * x) << "element " << i;
  }
}

TEST(RknnMatmulQuant, Int8OutputRoundsHalfAwayFromZeroAndSaturates) {
  // A all 1, B all +1 or -1, K 32: C = +-32 * sA * sB / sC.
  Problem p = make_problem(kIntegerB[1], RKNN_QUANT_TYPE_PER_LAYER_SYM, 7);  // INT8_MM_INT8_TO_INT8
  p.K = 32;
  p.N = 32;
  p.M = 1;
  p.a_int.assign(32, 1);
  p.b.assign(32 * 32, 1);
  for (int n = 0; n < 32; n += 2) {
    for (int k = 0; k < 32; ++k) p.b[static_cast<std::size_t>(k) * 32 + n] = -1;
  }
  p.sa = 1;
  p.zpa = 0;
  p.sb = {1};
  p.zpb = {0};
  p.zpc = 0;
  p.sc = 64;  // +-0.5
  std::vector<std::uint32_t> c = run_problem(p, RKNN_MM_LAYOUT_NORM);
  ASSERT_EQ(c.size(), 32u);
  EXPECT_EQ(static_cast<std::int8_t>(c[0]), -1);
  EXPECT_EQ(static_cast<std::int8_t>(c[1]), 1);
  p.sc = 0.125f;  // +-256: saturated
  c = run_problem(p, RKNN_MM_LAYOUT_NORM);
  ASSERT_EQ(c.size(), 32u);
  EXPECT_EQ(static_cast<std::int8_t>(c[0]), -128);
  EXPECT_EQ(static_cast<std::int8_t>(c[1]), 127);
}

TEST(RknnMatmulQuant, Int4OperandsArePackedTwoPerByteAndAligned) {
  rknn_matmul_info info;
  std::memset(&info, 0, sizeof info);
  info.M = 3;
  info.K = 64;
  info.N = 128;
  info.type = RKNN_INT4_MM_INT4_TO_INT16;
  rknn_matmul_io_attr io;
  rknn_matmul_ctx ctx = 0;
  ASSERT_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC) << last_error();
  EXPECT_EQ(io.A.size, 3u * 64 / 2);
  EXPECT_EQ(io.B.size, 64u * 128 / 2);
  EXPECT_EQ(io.C.size, 3u * 128 * 2);
  EXPECT_EQ(io.A.type, RKNN_TENSOR_INT4);
  EXPECT_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC);
  info.B_layout = RKNN_MM_LAYOUT_NATIVE;
  ASSERT_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC) << last_error();
  EXPECT_EQ(io.B.n_dims, 4u);  // (N/64, K/32, 64, 32)
  EXPECT_EQ(io.B.dims[0], 2u);
  EXPECT_EQ(io.B.dims[1], 2u);
  EXPECT_EQ(io.B.dims[2], 64u);
  EXPECT_EQ(io.B.dims[3], 32u);
  EXPECT_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC);
  // rknn_B_normal_layout_to_native_layout moves nibbles, as arrange_b does.
  std::vector<int> b(64 * 128);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int>(i * 7 % 16) - 8;
  const std::vector<std::uint8_t> normal = pack_typed(b, RKNN_TENSOR_INT4);
  std::vector<std::uint8_t> native(normal.size(), 0xEE);
  ASSERT_EQ(
      rknn_B_normal_layout_to_native_layout(const_cast<std::uint8_t*>(normal.data()), native.data(), 64, 128, &info),
      RKNN_SUCC)
      << last_error();
  EXPECT_EQ(native, pack_typed(arrange_b(b, 64, 128, RKNN_MM_LAYOUT_NATIVE, 64), RKNN_TENSOR_INT4));
  info.N = 96;  // RK3588: int4 N a multiple of 64
  EXPECT_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "N of 64")) << last_error();
}

TEST(RknnMatmulQuant, QuantParamsAreCheckedAndReadBack) {
  rknn_matmul_info info;
  std::memset(&info, 0, sizeof info);
  info.M = 2;
  info.K = 64;
  info.N = 32;
  info.type = RKNN_INT8_MM_INT8_TO_INT8;
  info.B_quant_type = RKNN_QUANT_TYPE_PER_GROUP_SYM;
  info.group_size = 32;
  rknn_matmul_io_attr io;
  rknn_matmul_ctx ctx = 0;
  ASSERT_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC) << last_error();
  std::vector<float> sb(2 * 32);
  for (std::size_t i = 0; i < sb.size(); ++i) sb[i] = 0.01f * static_cast<float>(i + 1);
  EXPECT_EQ(set_quant(ctx, "B", std::vector<float>(32, 0.1f), {}), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "B takes 64 scale(s) (or 1 for all")) << last_error();
  EXPECT_EQ(set_quant(ctx, "B", sb, std::vector<int>(64, 1)), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "symmetric")) << last_error();
  EXPECT_EQ(set_quant(ctx, "A", {0.5f}, {3}), RKNN_ERR_PARAM_INVALID) << "AC_quant_type 0 is symmetric";
  EXPECT_EQ(set_quant(ctx, "A", {-0.5f}, {}), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "positive and finite")) << last_error();
  EXPECT_EQ(set_quant(ctx, "D", {1.0f}, {}), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "not A, B or C")) << last_error();
  EXPECT_EQ(set_quant(ctx, "B", sb, {}), RKNN_SUCC) << last_error();
  EXPECT_EQ(set_quant(ctx, "A", {0.25f}, {0}), RKNN_SUCC) << last_error();
  rknn_quant_params q;
  std::memset(&q, 0, sizeof q);
  std::snprintf(q.name, sizeof q.name, "B");
  std::vector<float> got(64);
  std::vector<std::int32_t> zp(64, 9);
  q.scale = got.data();
  q.scale_len = 64;
  q.zp = zp.data();
  q.zp_len = 64;
  float first = 0;
  ASSERT_EQ(rknn_matmul_get_quant_params(ctx, &q, &first), RKNN_SUCC) << last_error();
  EXPECT_EQ(got, sb);
  EXPECT_EQ(zp, std::vector<std::int32_t>(64, 0));
  EXPECT_EQ(q.scale_len, 64);
  EXPECT_EQ(first, sb[0]);
  // One scale is broadcast to every group and column.
  EXPECT_EQ(set_quant(ctx, "B", {0.5f}, {}), RKNN_SUCC) << last_error();
  std::vector<float> again(64);
  q.scale = again.data();
  ASSERT_EQ(rknn_matmul_get_quant_params(ctx, &q, &first), RKNN_SUCC) << last_error();
  EXPECT_EQ(again, std::vector<float>(64, 0.5f));
  std::snprintf(q.name, sizeof q.name, "A");
  ASSERT_EQ(rknn_matmul_get_quant_params(ctx, &q, &first), RKNN_SUCC) << last_error();
  EXPECT_EQ(first, 0.25f);
  EXPECT_EQ(q.scale_len, 1);
  EXPECT_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC);

  // Float tensors take no parameters; bad quant types and group sizes are refused at create.
  info.type = RKNN_FLOAT16_MM_INT4_TO_FLOAT32;
  info.N = 64;
  ASSERT_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC) << last_error();
  EXPECT_EQ(set_quant(ctx, "A", {1.0f}, {}), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "takes no quantization parameters")) << last_error();
  EXPECT_EQ(set_quant(ctx, "B", std::vector<float>(2 * 64, 0.5f), std::vector<int>(2 * 64, 0)), RKNN_SUCC)
      << last_error();
  EXPECT_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC);
  const struct {
    rknn_matmul_type type;
    int b_quant, ac_quant, group;
    const char* message;
  } bad[] = {
      {RKNN_INT8_MM_INT8_TO_INT8, 6, 0, 0, "not an rknn_matmul_quant_type"},
      {RKNN_INT8_MM_INT8_TO_INT8, 0, 2, 0, "A and C are quantized per layer"},
      {RKNN_INT8_MM_INT8_TO_INT8, RKNN_QUANT_TYPE_PER_GROUP_SYM, 0, 0, "positive group size"},
      {RKNN_INT8_MM_INT8_TO_INT8, RKNN_QUANT_TYPE_PER_GROUP_SYM, 0, 48, "not a multiple of info->group_size 48"},
      {RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, RKNN_QUANT_TYPE_PER_CHANNEL_SYM, 0, 0, "is float16, which is not quantized"},
  };
  for (const auto& b : bad) {
    info.type = b.type;
    info.B_quant_type = static_cast<std::int16_t>(b.b_quant);
    info.AC_quant_type = static_cast<std::int16_t>(b.ac_quant);
    info.group_size = static_cast<std::int16_t>(b.group);
    EXPECT_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_ERR_PARAM_INVALID) << b.message;
    EXPECT_TRUE(contains(last_error(), b.message)) << last_error();
  }
}

}  // namespace
}  // namespace svp
