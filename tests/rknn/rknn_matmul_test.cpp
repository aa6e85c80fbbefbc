// librknnrt's matmul library (include/rknn/rknn_matmul_api.h, docs/rknn.md "Matmul"): each
// float16 type and int8 x int8 -> int32 against C computed here in double precision (int8
// results exactly equal, float16 ones within float16 rounding), dynamic M, the native B
// layout conversion, and every bad argument answered with an error code and a message. The
// other (quantized, int4) types: rknn_matmul_quant_test.cpp.
#include <gtest/gtest.h>

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

struct Operands {
  std::vector<double> a, b;  // row-major M x K, K x N, the exact values stored
};

Operands make_operands(int M, int K, int N, bool int8, unsigned seed) {
  std::mt19937 rng(seed);
  Operands o;
  o.a.resize(static_cast<std::size_t>(M) * K);
  o.b.resize(static_cast<std::size_t>(K) * N);
  for (auto* v : {&o.a, &o.b}) {
    for (double& x : *v) {
      if (int8) {
        x = static_cast<int>(rng() % 256) - 128;
      } else {  // values float16 holds exactly
        x = half_to_float(float_to_half(std::uniform_real_distribution<float>(-2.0f, 2.0f)(rng)));
      }
    }
  }
  return o;
}

std::vector<double> reference(const Operands& o, int M, int K, int N) {
  std::vector<double> c(static_cast<std::size_t>(M) * N, 0.0);
  for (int m = 0; m < M; ++m) {
    for (int n = 0; n < N; ++n) {
      double s = 0;
      for (int k = 0; k < K; ++k)
        s += o.a[static_cast<std::size_t>(m) * K + k] * o.b[static_cast<std::size_t>(k) * N + n];
      c[static_cast<std::size_t>(m) * N + n] = s;
    }
  }
  return c;
}

// Writes `v` into `dst` as `type` (FLOAT16 or INT8).
void store(const std::vector<double>& v, rknn_tensor_type type, void* dst) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (type == RKNN_TENSOR_INT8) {
      static_cast<std::int8_t*>(dst)[i] = static_cast<std::int8_t>(v[i]);
    } else {
      static_cast<std::uint16_t*>(dst)[i] = float_to_half(static_cast<float>(v[i]));
    }
  }
}

std::vector<double> load(const void* src, rknn_tensor_type type, std::size_t n) {
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (type == RKNN_TENSOR_INT32)
      out[i] = static_cast<const std::int32_t*>(src)[i];
    else if (type == RKNN_TENSOR_FLOAT32)
      out[i] = static_cast<const float*>(src)[i];
    else
      out[i] = half_to_float(static_cast<const std::uint16_t*>(src)[i]);
  }
  return out;
}

// B as the layout wants it, from row-major K x N.
std::vector<double> layout_b(const std::vector<double>& b, int K, int N, int layout) {
  if (layout != RKNN_MM_LAYOUT_TP_NORM) return b;
  std::vector<double> t(b.size());
  for (int k = 0; k < K; ++k) {
    for (int n = 0; n < N; ++n) t[static_cast<std::size_t>(n) * K + k] = b[static_cast<std::size_t>(k) * N + n];
  }
  return t;
}

rknn_matmul_info info_of(int M, int K, int N, rknn_matmul_type type, int b_layout = RKNN_MM_LAYOUT_NORM) {
  rknn_matmul_info info;
  std::memset(&info, 0, sizeof info);
  info.M = M;
  info.K = K;
  info.N = N;
  info.type = type;
  info.B_layout = static_cast<int16_t>(b_layout);
  return info;
}

// Creates, binds, runs; C as numbers. `b_native`: B already in the native layout.
std::vector<double> run_matmul(const rknn_matmul_info& info_in, const Operands& o, const void* b_native = nullptr) {
  rknn_matmul_info info = info_in;
  rknn_matmul_io_attr io;
  std::memset(&io, 0, sizeof io);
  rknn_matmul_ctx ctx = 0;
  EXPECT_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC) << last_error();
  if (ctx == 0) return {};
  rknn_tensor_mem* a = rknn_create_mem(ctx, io.A.size);
  rknn_tensor_mem* b = rknn_create_mem(ctx, io.B.size);
  rknn_tensor_mem* c = rknn_create_mem(ctx, io.C.size);
  EXPECT_TRUE(a != nullptr && b != nullptr && c != nullptr) << last_error();
  std::vector<double> out;
  if (a != nullptr && b != nullptr && c != nullptr) {
    store(o.a, io.A.type, a->virt_addr);
    if (b_native != nullptr) {
      std::memcpy(b->virt_addr, b_native, io.B.size);
    } else {
      store(layout_b(o.b, info.K, info.N, info.B_layout), io.B.type, b->virt_addr);
    }
    EXPECT_EQ(rknn_matmul_set_io_mem(ctx, a, &io.A), RKNN_SUCC) << last_error();
    EXPECT_EQ(rknn_matmul_set_io_mem(ctx, b, &io.B), RKNN_SUCC) << last_error();
    EXPECT_EQ(rknn_matmul_set_io_mem(ctx, c, &io.C), RKNN_SUCC) << last_error();
    EXPECT_EQ(rknn_matmul_run(ctx), RKNN_SUCC) << last_error();
    out = load(c->virt_addr, io.C.type, static_cast<std::size_t>(info.M) * info.N);
  }
  for (rknn_tensor_mem* m : {a, b, c}) {
    if (m != nullptr) {
      EXPECT_EQ(rknn_destroy_mem(ctx, m), RKNN_SUCC);
    }
  }
  EXPECT_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC);
  return out;
}

// |got - want| within `rel` of the row's magnitude (float16 outputs round to 11 bits).
void expect_close(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * (1.0 + std::fabs(want[i]))) << "element " << i;
  }
}

TEST(RknnMatmul, Int8TimesInt8ToInt32IsExact) {
  const int M = 5, K = 64, N = 32;
  const Operands o = make_operands(M, K, N, true, 1);
  const std::vector<double> c = run_matmul(info_of(M, K, N, RKNN_INT8_MM_INT8_TO_INT32), o);
  EXPECT_EQ(c, reference(o, M, K, N));
}

TEST(RknnMatmul, Float16TimesFloat16ToFloat32MatchesADoubleReference) {
  const int M = 7, K = 96, N = 48;
  const Operands o = make_operands(M, K, N, false, 2);
  const std::vector<double> c = run_matmul(info_of(M, K, N, RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32), o);
  expect_close(c, reference(o, M, K, N), 1e-5);  // float32 accumulation of exact products
}

TEST(RknnMatmul, Float16TimesFloat16ToFloat16RoundsTheResult) {
  const int M = 4, K = 32, N = 16;
  const Operands o = make_operands(M, K, N, false, 3);
  const std::vector<double> c = run_matmul(info_of(M, K, N, RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16), o);
  expect_close(c, reference(o, M, K, N), 1e-3);  // float16: 2^-11 relative
}

TEST(RknnMatmul, TransposedAndNativeBLayoutsGiveTheSameProduct) {
  const int M = 3, K = 64, N = 32;
  for (bool int8 : {true, false}) {
    SCOPED_TRACE(int8 ? "int8" : "float16");
    const rknn_matmul_type type = int8 ? RKNN_INT8_MM_INT8_TO_INT32 : RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32;
    const Operands o = make_operands(M, K, N, int8, 4);
    const std::vector<double> want = reference(o, M, K, N);
    const double tol = int8 ? 0.0 : 1e-5;
    expect_close(run_matmul(info_of(M, K, N, type, RKNN_MM_LAYOUT_TP_NORM), o), want, tol);
    // Native: B converted by rknn_B_normal_layout_to_native_layout.
    rknn_matmul_info info = info_of(M, K, N, type, RKNN_MM_LAYOUT_NATIVE);
    const std::size_t es = int8 ? 1 : 2;
    std::vector<std::uint8_t> normal(static_cast<std::size_t>(K) * N * es), native(normal.size(), 0xEE);
    store(o.b, int8 ? RKNN_TENSOR_INT8 : RKNN_TENSOR_FLOAT16, normal.data());
    ASSERT_EQ(rknn_B_normal_layout_to_native_layout(normal.data(), native.data(), K, N, &info), RKNN_SUCC)
        << last_error();
    EXPECT_NE(native, normal) << "the native layout is blocked, not row-major";
    expect_close(run_matmul(info, o, native.data()), want, tol);
    // RK3588's native block: element (k, n) at ((n/subN)*(K/32) + k/32)*subN*32 + (n%subN)*32 + k%32.
    const int sub_n = int8 ? 32 : 16;
    const int k = 40, n = 17;
    const std::size_t at =
        static_cast<std::size_t>(((n / sub_n) * (K / 32) + k / 32) * sub_n * 32 + (n % sub_n) * 32 + k % 32);
    EXPECT_EQ(std::memcmp(&native[at * es], &normal[(static_cast<std::size_t>(k) * N + n) * es], es), 0);
  }
}

TEST(RknnMatmul, CreateReportsTheShapesAndSizesOfABAndC) {
  rknn_matmul_info info = info_of(4, 64, 32, RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, RKNN_MM_LAYOUT_NATIVE);
  rknn_matmul_io_attr io;
  rknn_matmul_ctx ctx = 0;
  ASSERT_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC) << last_error();
  EXPECT_STREQ(io.A.name, "A");
  EXPECT_EQ(io.A.n_dims, 2u);
  EXPECT_EQ(io.A.dims[0], 4u);
  EXPECT_EQ(io.A.dims[1], 64u);
  EXPECT_EQ(io.A.size, 4u * 64 * 2);
  EXPECT_EQ(io.A.type, RKNN_TENSOR_FLOAT16);
  EXPECT_EQ(io.B.n_dims, 4u);  // (N/16, K/32, 16, 32)
  EXPECT_EQ(io.B.dims[0], 2u);
  EXPECT_EQ(io.B.dims[1], 2u);
  EXPECT_EQ(io.B.dims[2], 16u);
  EXPECT_EQ(io.B.dims[3], 32u);
  EXPECT_EQ(io.C.size, 4u * 32 * 4);
  EXPECT_EQ(io.C.type, RKNN_TENSOR_FLOAT32);
  EXPECT_EQ(rknn_matmul_set_core_mask(ctx, RKNN_NPU_CORE_0_1_2), RKNN_SUCC) << last_error();
  EXPECT_EQ(rknn_matmul_set_core_mask(ctx, static_cast<rknn_core_mask>(8)), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "core_mask 0x8")) << last_error();
  EXPECT_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC);
  EXPECT_EQ(rknn_matmul_destroy(ctx), RKNN_ERR_CTX_INVALID) << "a destroyed context";
}

TEST(RknnMatmul, DynamicMRunsEachListedShapeAndRefusesOthers) {
  const int K = 32, N = 32;
  rknn_matmul_info info = info_of(0, 0, 0, RKNN_INT8_MM_INT8_TO_INT32);
  rknn_matmul_shape shapes[] = {{1, K, N}, {4, K, N}, {9, K, N}};
  rknn_matmul_io_attr io[3];
  rknn_matmul_ctx ctx = 0;
  ASSERT_EQ(rknn_matmul_create_dynamic_shape(&ctx, &info, 3, shapes, io), RKNN_SUCC) << last_error();
  EXPECT_EQ(io[2].A.dims[0], 9u);
  EXPECT_EQ(io[1].C.size, 4u * N * 4);
  // Memory for the largest M serves every shape.
  rknn_tensor_mem* a = rknn_create_mem(ctx, io[2].A.size);
  rknn_tensor_mem* b = rknn_create_mem(ctx, io[2].B.size);
  rknn_tensor_mem* c = rknn_create_mem(ctx, io[2].C.size);
  ASSERT_TRUE(a && b && c);
  const Operands o = make_operands(9, K, N, true, 5);
  store(o.a, RKNN_TENSOR_INT8, a->virt_addr);
  store(o.b, RKNN_TENSOR_INT8, b->virt_addr);
  for (int s : {1, 0, 2}) {
    SCOPED_TRACE("M " + std::to_string(shapes[s].M));
    ASSERT_EQ(rknn_matmul_set_dynamic_shape(ctx, &shapes[s]), RKNN_SUCC) << last_error();
    ASSERT_EQ(rknn_matmul_set_io_mem(ctx, a, &io[s].A), RKNN_SUCC) << last_error();
    ASSERT_EQ(rknn_matmul_set_io_mem(ctx, b, &io[s].B), RKNN_SUCC) << last_error();
    ASSERT_EQ(rknn_matmul_set_io_mem(ctx, c, &io[s].C), RKNN_SUCC) << last_error();
    ASSERT_EQ(rknn_matmul_run(ctx), RKNN_SUCC) << last_error();
    Operands first = o;
    first.a.resize(static_cast<std::size_t>(shapes[s].M) * K);  // A's first M rows
    EXPECT_EQ(load(c->virt_addr, RKNN_TENSOR_INT32, static_cast<std::size_t>(shapes[s].M) * N),
              reference(first, shapes[s].M, K, N));
  }
  rknn_matmul_shape other{5, K, N};
  EXPECT_EQ(rknn_matmul_set_dynamic_shape(ctx, &other), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "1x32x32, 4x32x32, 9x32x32")) << last_error();
  // A shape differing in K or N: not implemented (only M varies).
  rknn_matmul_shape mixed[] = {{1, K, N}, {1, 64, N}};
  rknn_matmul_ctx ctx2 = 0;
  EXPECT_EQ(rknn_matmul_create_dynamic_shape(&ctx2, &info, 2, mixed, io), RKNN_ERR_FAIL);
  EXPECT_TRUE(contains(last_error(), "not implemented yet")) << last_error();
  for (rknn_tensor_mem* m : {a, b, c}) EXPECT_EQ(rknn_destroy_mem(ctx, m), RKNN_SUCC);
  EXPECT_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC);
}

TEST(RknnMatmul, BadArgumentsGiveTheVendorCodeAndAMessage) {
  rknn_matmul_info info = info_of(4, 32, 32, RKNN_INT8_MM_INT8_TO_INT32);
  rknn_matmul_io_attr io;
  rknn_matmul_ctx ctx = 0;
  EXPECT_EQ(rknn_matmul_create(nullptr, &info, &io), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_matmul_create(&ctx, nullptr, &io), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "info is NULL")) << last_error();
  EXPECT_EQ(rknn_matmul_create(&ctx, &info, nullptr), RKNN_ERR_PARAM_INVALID);
  const struct {
    rknn_matmul_info info;
    int code;
    const char* message;
  } bad[] = {
      {info_of(0, 32, 32, RKNN_INT8_MM_INT8_TO_INT32), RKNN_ERR_PARAM_INVALID, "must be positive"},
      {info_of(4, -32, 32, RKNN_INT8_MM_INT8_TO_INT32), RKNN_ERR_PARAM_INVALID, "must be positive"},
      {info_of(4, 20480, 32, RKNN_INT8_MM_INT8_TO_INT32), RKNN_ERR_PARAM_INVALID, "exceeds the limit 10240"},
      {info_of(4, 32, 32, static_cast<rknn_matmul_type>(13)), RKNN_ERR_PARAM_INVALID, "not an rknn_matmul_type"},
      {info_of(1 << 30, 32, 1 << 30, RKNN_INT8_MM_INT8_TO_INT32), RKNN_ERR_PARAM_INVALID, "exceed 4 GiB"},
      {info_of(4, 32, 32, RKNN_INT8_MM_INT8_TO_INT32, 3), RKNN_ERR_PARAM_INVALID, "not an rknn_matmul_layout"},
      {info_of(4, 33, 32, RKNN_INT8_MM_INT8_TO_INT32, RKNN_MM_LAYOUT_NATIVE), RKNN_ERR_PARAM_INVALID, "multiple of 32"},
      {info_of(4, 32, 32, RKNN_INT4_MM_INT4_TO_INT16), RKNN_ERR_PARAM_INVALID, "N of 64 on RK3588"},
  };
  for (const auto& b : bad) {
    rknn_matmul_info i = b.info;
    ctx = 77;
    EXPECT_EQ(rknn_matmul_create(&ctx, &i, &io), b.code) << b.message;
    EXPECT_EQ(ctx, 0u) << "no handle on failure";
    EXPECT_TRUE(contains(last_error(), b.message)) << last_error();
  }
  rknn_matmul_info native_ac = info_of(4, 48, 32, RKNN_INT8_MM_INT8_TO_INT32);
  native_ac.AC_layout = RKNN_MM_LAYOUT_NATIVE;
  EXPECT_EQ(rknn_matmul_create(&ctx, &native_ac, &io), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "native A and C layouts of RKNN_INT8_MM_INT8_TO_INT32 needs K a multiple of 32"))
      << last_error();

  ASSERT_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC) << last_error();
  rknn_tensor_mem* small = rknn_create_mem(ctx, io.A.size - 1);
  rknn_tensor_mem* a = rknn_create_mem(ctx, io.A.size);
  ASSERT_TRUE(small && a);
  EXPECT_EQ(rknn_matmul_set_io_mem(ctx, small, &io.A), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "needs 128")) << last_error();
  rknn_matmul_tensor_attr wrong = io.A;
  wrong.size += 1;
  EXPECT_EQ(rknn_matmul_set_io_mem(ctx, a, &wrong), RKNN_ERR_PARAM_INVALID);
  std::snprintf(wrong.name, sizeof wrong.name, "D");
  EXPECT_EQ(rknn_matmul_set_io_mem(ctx, a, &wrong), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "not A, B or C")) << last_error();
  rknn_tensor_mem fake{};
  EXPECT_EQ(rknn_matmul_set_io_mem(ctx, &fake, &io.A), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_matmul_set_io_mem(ctx, nullptr, &io.A), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_matmul_set_io_mem(ctx, a, nullptr), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_matmul_set_io_mem(12345, a, &io.A), RKNN_ERR_CTX_INVALID);
  // Running without B or C bound.
  ASSERT_EQ(rknn_matmul_set_io_mem(ctx, a, &io.A), RKNN_SUCC) << last_error();
  EXPECT_EQ(rknn_matmul_run(ctx), RKNN_ERR_INPUT_INVALID);
  EXPECT_TRUE(contains(last_error(), "B has no memory")) << last_error();
  EXPECT_EQ(rknn_matmul_run(0), RKNN_ERR_CTX_INVALID);
  rknn_quant_params qp{};
  float scale = 0;
  EXPECT_EQ(rknn_matmul_set_quant_params(ctx, &qp), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "is not A, B or C")) << last_error();
  EXPECT_EQ(rknn_matmul_get_quant_params(ctx, &qp, &scale), RKNN_SUCC) << "an empty name reads B's";
  EXPECT_EQ(scale, 1.0f) << "B's default scale";
  EXPECT_EQ(rknn_matmul_get_quant_params(ctx, &qp, nullptr), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_matmul_set_quant_params(ctx, nullptr), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_matmul_set_dynamic_shape(ctx, nullptr), RKNN_ERR_PARAM_INVALID);
  rknn_matmul_shape shapes[1] = {{1, 32, 32}};
  rknn_matmul_ctx other = 0;
  EXPECT_EQ(rknn_matmul_create_dynamic_shape(&other, &info, 0, shapes, &io), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_matmul_create_dynamic_shape(&other, &info, 1, nullptr, &io), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_matmul_create_dynamic_shape(&other, &info, 1 << 30, shapes, &io), RKNN_ERR_PARAM_INVALID)
      << "a garbage shape_num is refused before the array is read";
  std::vector<std::uint8_t> buf(32 * 32);
  EXPECT_EQ(rknn_B_normal_layout_to_native_layout(nullptr, buf.data(), 32, 32, &info), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_B_normal_layout_to_native_layout(buf.data(), buf.data(), 32, 31, &info), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_B_normal_layout_to_native_layout(buf.data(), buf.data(), 0, 32, &info), RKNN_ERR_PARAM_INVALID);
  EXPECT_EQ(rknn_destroy_mem(ctx, small), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy_mem(ctx, a), RKNN_SUCC);
  EXPECT_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC);
  EXPECT_EQ(rknn_create_mem(ctx, 64), nullptr) << "a destroyed matmul context allocates nothing";
}

}  // namespace
}  // namespace svp
