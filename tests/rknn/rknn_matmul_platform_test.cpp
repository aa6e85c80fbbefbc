// The matmul library's per-SoC rules (src/runtime/rknn_matmul_platform.h, docs/rknn.md
// "Matmul"): on RK3588, RK3576, RK3566 and RK3562, every type the SoC has, with native A and C
// (and native or normal B) written and read here with the blocks the vendor's header draws,
// gives C bit for bit equal to the same context type's row-major run on RK3588 (which
// rknn_matmul_quant_test.cpp and rknn_matmul_test.cpp check against references); what a SoC
// lacks is refused with the vendor's code and a message.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/half.h"
#include "rknn/rknn_matmul_api.h"
#include "rknn_test_support.h"
#include "runtime/rknn_context.h"
#include "runtime/rknn_matmul.h"

namespace svp {
namespace {

using runtime::rknn::last_error;
using test::contains;

struct TypeBits {
  rknn_matmul_type type;
  int a, b, c;  // element bits
};

const TypeBits kAll[] = {
    {RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, 16, 16, 32},
    {RKNN_INT8_MM_INT8_TO_INT32, 8, 8, 32},
    {RKNN_INT8_MM_INT8_TO_INT8, 8, 8, 8},
    {RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16, 16, 16, 16},
    {RKNN_FLOAT16_MM_INT8_TO_FLOAT32, 16, 8, 32},
    {RKNN_FLOAT16_MM_INT8_TO_FLOAT16, 16, 8, 16},
    {RKNN_FLOAT16_MM_INT4_TO_FLOAT32, 16, 4, 32},
    {RKNN_FLOAT16_MM_INT4_TO_FLOAT16, 16, 4, 16},
    {RKNN_INT8_MM_INT8_TO_FLOAT32, 8, 8, 32},
    {RKNN_INT4_MM_INT4_TO_INT16, 4, 4, 16},
    {RKNN_INT8_MM_INT4_TO_INT32, 8, 4, 32},
    {RKNN_FLOAT16_MM_INT4_TO_BFLOAT16, 16, 4, 16},
    {RKNN_INT8_MM_INT4_TO_FLOAT16, 8, 4, 16},
};

bool small_soc(const std::string& soc) { return soc == "RK3566" || soc == "RK3562"; }

// The vendor header's blocks (rknn_matmul_set_io_mem's comment), by element bits.
int a_sub_k(const std::string& soc, int bits) {
  if (soc == "RK3566") return bits == 16 ? 4 : 8;
  if (soc == "RK3562") return bits == 16 ? 8 : 16;
  return bits == 4 ? 32 : bits == 8 ? 16 : 8;
}
void b_block(const std::string& soc, int bits, int* sub_n, int* sub_k) {
  *sub_k = 32;
  if (soc == "RK3566" || soc == "RK3562") {
    *sub_n = bits == 16 ? 8 : 16;
    if (soc == "RK3566" && bits == 16) *sub_k = 16;
  } else {
    *sub_n = bits == 4 ? 64 : bits == 8 ? 32 : 16;
  }
}
// Above this K the native B is segments of this many rows, each a native B (0: never).
int segment_k(const std::string& soc) { return soc == "RK3588" ? 8192 : soc == "RK3576" ? 4096 : 0; }
int c_sub_n(const std::string& soc, rknn_matmul_type type) {
  return soc == "RK3588" && type == RKNN_INT4_MM_INT4_TO_INT16 ? 8 : 4;
}

// Raw element bits packed: 4-bit two per byte (even element in the low nibble), 8 one per
// byte, 16 little-endian.
std::vector<std::uint8_t> pack(const std::vector<std::uint32_t>& v, int bits) {
  std::vector<std::uint8_t> out(bits == 4 ? (v.size() + 1) / 2 : v.size() * bits / 8, 0);
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (bits == 4) {
      out[i / 2] |= static_cast<std::uint8_t>((v[i] & 0xF) << (i % 2 ? 4 : 0));
    } else {
      for (int byte = 0; byte < bits / 8; ++byte)
        out[i * bits / 8 + byte] = static_cast<std::uint8_t>(v[i] >> (8 * byte));
    }
  }
  return out;
}

std::vector<std::uint32_t> random_elements(std::size_t n, int bits, std::mt19937* rng) {
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) {
    x = bits == 16 ? float_to_half(std::uniform_real_distribution<float>(-2.0f, 2.0f)(*rng))
                   : (*rng)() & ((1u << bits) - 1);
  }
  return v;
}

struct Run {
  std::string soc;
  int ac_layout = RKNN_MM_LAYOUT_NORM, b_layout = RKNN_MM_LAYOUT_NORM;
};

// C (raw element bits, row-major) of M x K x N with A and B (row-major elements) laid out as
// `r` says.
std::vector<std::uint32_t> run(const TypeBits& t, const Run& r, int M, int K, int N,
                               const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  rknn_matmul_info info;
  std::memset(&info, 0, sizeof info);
  info.M = M;
  info.K = K;
  info.N = N;
  info.type = t.type;
  info.B_layout = static_cast<std::int16_t>(r.b_layout);
  info.AC_layout = static_cast<std::int16_t>(r.ac_layout);
  rknn_matmul_io_attr io;
  runtime::rknn::Handle ctx = 0;
  EXPECT_EQ(runtime::rknn::matmul_create_on(r.soc, &ctx, info, &io), RKNN_SUCC) << last_error();
  if (ctx == 0) return {};
  const int sk = a_sub_k(r.soc, t.a), sc = c_sub_n(r.soc, t.type);
  int bn = 0, bk = 0;
  b_block(r.soc, t.b, &bn, &bk);
  std::vector<std::uint32_t> la(a.size()), lb(b.size());
  for (int m = 0; m < M; ++m) {
    for (int k = 0; k < K; ++k) {
      const std::size_t at = r.ac_layout == RKNN_MM_LAYOUT_NATIVE
                                 ? static_cast<std::size_t>(((k / sk) * M + m) * sk + k % sk)
                                 : static_cast<std::size_t>(m) * K + k;
      la[at] = a[static_cast<std::size_t>(m) * K + k];
    }
  }
  for (int k = 0; k < K; ++k) {
    for (int n = 0; n < N; ++n) {
      std::size_t at = static_cast<std::size_t>(k) * N + n;
      if (r.b_layout == RKNN_MM_LAYOUT_NATIVE) {
        const int seg = segment_k(r.soc) > 0 && K > segment_k(r.soc) ? segment_k(r.soc) : K;
        const int k0 = k / seg * seg, kt = std::min(seg, K - k0), kk = k - k0;
        at = static_cast<std::size_t>(k0) * N +
             static_cast<std::size_t>(((n / bn) * (kt / bk) + kk / bk) * bn * bk + (n % bn) * bk + kk % bk);
      }
      lb[at] = b[static_cast<std::size_t>(k) * N + n];
    }
  }
  if (r.ac_layout == RKNN_MM_LAYOUT_NATIVE) {
    EXPECT_EQ(io.A.n_dims, 3u);
    EXPECT_EQ(io.A.dims[0], static_cast<std::uint32_t>(K / sk));
    EXPECT_EQ(io.A.dims[2], static_cast<std::uint32_t>(sk));
    EXPECT_EQ(io.C.dims[0], static_cast<std::uint32_t>(N / sc));
    EXPECT_EQ(io.C.dims[2], static_cast<std::uint32_t>(sc));
  }
  if (r.b_layout == RKNN_MM_LAYOUT_NATIVE) {
    EXPECT_EQ(io.B.dims[2], static_cast<std::uint32_t>(bn));
    EXPECT_EQ(io.B.dims[3], static_cast<std::uint32_t>(bk));
  }
  if (t.type == RKNN_INT8_MM_INT8_TO_INT8) {  // spread C over int8's range
    rknn_quant_params q;
    std::memset(&q, 0, sizeof q);
    std::snprintf(q.name, sizeof q.name, "C");
    float scale = 300;
    q.scale = &scale;
    q.scale_len = 1;
    EXPECT_EQ(rknn_matmul_set_quant_params(ctx, &q), RKNN_SUCC) << last_error();
  }
  const std::vector<std::uint8_t> pa = pack(la, t.a), pb = pack(lb, t.b);
  rknn_tensor_mem* ma = rknn_create_mem(ctx, io.A.size);
  rknn_tensor_mem* mb = rknn_create_mem(ctx, io.B.size);
  rknn_tensor_mem* mc = rknn_create_mem(ctx, io.C.size);
  std::vector<std::uint32_t> c;
  if (ma != nullptr && mb != nullptr && mc != nullptr && pa.size() == io.A.size && pb.size() == io.B.size) {
    std::memcpy(ma->virt_addr, pa.data(), pa.size());
    std::memcpy(mb->virt_addr, pb.data(), pb.size());
    EXPECT_EQ(rknn_matmul_set_io_mem(ctx, ma, &io.A), RKNN_SUCC) << last_error();
    EXPECT_EQ(rknn_matmul_set_io_mem(ctx, mb, &io.B), RKNN_SUCC) << last_error();
    EXPECT_EQ(rknn_matmul_set_io_mem(ctx, mc, &io.C), RKNN_SUCC) << last_error();
    EXPECT_EQ(rknn_matmul_run(ctx), RKNN_SUCC) << last_error();
    const int es = t.c / 8;
    c.resize(static_cast<std::size_t>(M) * N);
    for (int m = 0; m < M; ++m) {
      for (int n = 0; n < N; ++n) {
        const std::size_t at = r.ac_layout == RKNN_MM_LAYOUT_NATIVE
                                   ? static_cast<std::size_t>(((n / sc) * M + m) * sc + n % sc)
                                   : static_cast<std::size_t>(m) * N + n;
        std::uint32_t bits = 0;
        std::memcpy(&bits, static_cast<const std::uint8_t*>(mc->virt_addr) + at * es, static_cast<std::size_t>(es));
        c[static_cast<std::size_t>(m) * N + n] = bits;
      }
    }
  } else {
    ADD_FAILURE() << "memory or sizes: A " << pa.size() << " vs " << io.A.size << ", B " << pb.size() << " vs "
                  << io.B.size;
  }
  for (rknn_tensor_mem* m : {ma, mb, mc}) {
    if (m != nullptr) {
      EXPECT_EQ(rknn_destroy_mem(ctx, m), RKNN_SUCC);
    }
  }
  EXPECT_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC);
  return c;
}

TEST(RknnMatmulPlatform, NativeAAndCGiveTheRowMajorProductOnEverySocForEveryTypeItHas) {
  const int M = 5, K = 64, N = 128;
  std::mt19937 rng(11);
  for (const TypeBits& t : kAll) {
    const std::vector<std::uint32_t> a = random_elements(static_cast<std::size_t>(M) * K, t.a, &rng);
    const std::vector<std::uint32_t> b = random_elements(static_cast<std::size_t>(K) * N, t.b, &rng);
    const std::vector<std::uint32_t> want = run(t, {"RK3588"}, M, K, N, a, b);
    ASSERT_EQ(want.size(), static_cast<std::size_t>(M) * N) << get_matmul_type_string(t.type);
    for (const char* soc : {"RK3588", "RK3576", "RK3566", "RK3562"}) {
      const bool has =
          !small_soc(soc) || t.type == RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32 || t.type == RKNN_INT8_MM_INT8_TO_INT32;
      if (!has) continue;
      for (int b_layout : {RKNN_MM_LAYOUT_NORM, RKNN_MM_LAYOUT_NATIVE}) {
        SCOPED_TRACE(std::string(soc) + " " + get_matmul_type_string(t.type) + " B layout " + std::to_string(b_layout));
        EXPECT_EQ(run(t, {soc, RKNN_MM_LAYOUT_NATIVE, b_layout}, M, K, N, a, b), want);
      }
    }
  }
}

TEST(RknnMatmulPlatform, NativeBAboveTheSegmentKIsSegmentsOfNativeB) {
  // RK3588 splits a native B into segments of 8192 rows, RK3576 of 4096.
  const int M = 2, N = 64;
  std::mt19937 rng(12);
  for (const TypeBits& t : {kAll[1], kAll[6]}) {  // int8 -> int32, float16 x int4 -> float32
    for (int K : {4160, 10240}) {
      const std::vector<std::uint32_t> a = random_elements(static_cast<std::size_t>(M) * K, t.a, &rng);
      const std::vector<std::uint32_t> b = random_elements(static_cast<std::size_t>(K) * N, t.b, &rng);
      const std::vector<std::uint32_t> want = run(t, {"RK3588"}, M, K, N, a, b);
      ASSERT_EQ(want.size(), static_cast<std::size_t>(M) * N);
      for (const char* soc : {"RK3588", "RK3576"}) {
        SCOPED_TRACE(std::string(soc) + " " + get_matmul_type_string(t.type) + " K " + std::to_string(K));
        EXPECT_EQ(run(t, {soc, RKNN_MM_LAYOUT_NORM, RKNN_MM_LAYOUT_NATIVE}, M, K, N, a, b), want);
      }
    }
  }
}

TEST(RknnMatmulPlatform, EachSocRefusesWhatItsMatmulLacks) {
  auto create = [](const char* soc, rknn_matmul_type type, int K, int N, int b_layout, int ac_layout) {
    rknn_matmul_info info;
    std::memset(&info, 0, sizeof info);
    info.M = 2;
    info.K = K;
    info.N = N;
    info.type = type;
    info.B_layout = static_cast<std::int16_t>(b_layout);
    info.AC_layout = static_cast<std::int16_t>(ac_layout);
    rknn_matmul_io_attr io;
    runtime::rknn::Handle ctx = 0;
    const int r = runtime::rknn::matmul_create_on(soc, &ctx, info, &io);
    if (ctx != 0) {
      EXPECT_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC);
    }
    return r;
  };
  const int norm = RKNN_MM_LAYOUT_NORM, native = RKNN_MM_LAYOUT_NATIVE;
  EXPECT_EQ(create("RK3566", RKNN_INT4_MM_INT4_TO_INT16, 64, 64, norm, norm), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "not supported on RK3566")) << last_error();
  EXPECT_EQ(create("RK3562", RKNN_FLOAT16_MM_INT8_TO_FLOAT32, 64, 64, norm, norm), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "not supported on RK3562")) << last_error();
  EXPECT_EQ(create("RK3566", RKNN_INT8_MM_INT4_TO_FLOAT16, 64, 64, norm, norm), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "RKNN_INT8_MM_INT4_TO_FLOAT16 is not supported")) << last_error();
  // float16 native B: RK3566 (8, 16) blocks, K aligned to 16; RK3562 K to 32; RK3588 N to 16.
  EXPECT_EQ(create("RK3566", RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, 48, 8, native, norm), RKNN_SUCC) << last_error();
  EXPECT_EQ(create("RK3562", RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, 48, 8, native, norm), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "K a multiple of 32 and N of 8 on RK3562")) << last_error();
  EXPECT_EQ(create("RK3588", RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, 64, 8, native, norm), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "N of 16 on RK3588")) << last_error();
  // Native A/C: RK3566 int8 A in blocks of 8 along K (but K still aligned to 32).
  EXPECT_EQ(create("RK3566", RKNN_INT8_MM_INT8_TO_INT32, 40, 16, norm, native), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "native A and C layouts")) << last_error();
  EXPECT_EQ(create("RV1106", RKNN_INT8_MM_INT8_TO_INT32, 32, 32, norm, norm), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "RV1106 has no matmul library")) << last_error();

  // Core masks: RK3576 has two cores, RK3566 one.
  rknn_matmul_info info;
  std::memset(&info, 0, sizeof info);
  info.M = 1;
  info.K = 32;
  info.N = 32;
  info.type = RKNN_INT8_MM_INT8_TO_INT32;
  rknn_matmul_io_attr io;
  runtime::rknn::Handle ctx = 0;
  ASSERT_EQ(runtime::rknn::matmul_create_on("RK3576", &ctx, info, &io), RKNN_SUCC) << last_error();
  EXPECT_EQ(rknn_matmul_set_core_mask(ctx, RKNN_NPU_CORE_0_1), RKNN_SUCC) << last_error();
  EXPECT_EQ(rknn_matmul_set_core_mask(ctx, RKNN_NPU_CORE_0_1_2), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "RK3576's masks")) << last_error();
  EXPECT_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC);
  ASSERT_EQ(runtime::rknn::matmul_create_on("RK3566", &ctx, info, &io), RKNN_SUCC) << last_error();
  EXPECT_EQ(rknn_matmul_set_core_mask(ctx, RKNN_NPU_CORE_0), RKNN_ERR_FAIL);
  EXPECT_TRUE(contains(last_error(), "RK3566 has one NPU core")) << last_error();
  EXPECT_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC);
}

// rknn_matmul_create (the C API) follows the board SVP_ACL_RKNN_CONFIG names, else RK3588.
TEST(RknnMatmulPlatform, TheCApiFollowsTheBoardTheRknnConfigNames) {
  // The software NPU starts before the variable is set: it is read at start, and this test
  // must not decide the board of the tests after it in the same process.
  std::string why;
  ASSERT_NE(runtime::rknn::core_runtime(&why), nullptr) << why;
  const std::string path = ::testing::TempDir() + "svp_matmul_board_" + std::to_string(::getpid()) + ".json";
  auto create_with_board = [&](const char* soc) {
    if (soc != nullptr) {
      std::FILE* f = std::fopen(path.c_str(), "w");
      EXPECT_NE(f, nullptr);
      std::fprintf(f, "{\"softnpu\": {\"soc_version\": \"%s\"}}\n", soc);
      std::fclose(f);
      EXPECT_EQ(::setenv("SVP_ACL_RKNN_CONFIG", path.c_str(), 1), 0);
    } else {
      EXPECT_EQ(::unsetenv("SVP_ACL_RKNN_CONFIG"), 0);
    }
    rknn_matmul_info info;
    std::memset(&info, 0, sizeof info);
    info.M = 2;
    info.K = 64;
    info.N = 64;
    info.type = RKNN_INT4_MM_INT4_TO_INT16;  // RK3588's and RK3576's, not RK3566's
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx = 0;
    const int r = rknn_matmul_create(&ctx, &info, &io);
    if (ctx != 0) {
      EXPECT_EQ(rknn_matmul_destroy(ctx), RKNN_SUCC);
    }
    return r;
  };
  EXPECT_EQ(create_with_board(nullptr), RKNN_SUCC) << last_error();
  EXPECT_EQ(create_with_board("RK3576"), RKNN_SUCC) << last_error();
  EXPECT_EQ(create_with_board("RK3566"), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "not supported on RK3566")) << last_error();
  EXPECT_EQ(create_with_board("RV1106"), RKNN_ERR_FAIL);
  EXPECT_TRUE(contains(last_error(), "RV1106")) << last_error();
  EXPECT_EQ(::unsetenv("SVP_ACL_RKNN_CONFIG"), 0);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace svp
