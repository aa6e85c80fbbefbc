// NCHW <-> NHWC conversion of the fast paths (src/kernels/onednn/layout.h) against an
// index-by-index transpose: every element width, shapes around the 8x8 vector blocks and the
// 32x32 tiles, one thread and two.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/onednn/layout.h"

namespace svp::kernels::onednn {
namespace {

template <typename T>
std::vector<T> random_values(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(rng());
  return v;
}

template <typename T>
void check_shape(const std::vector<std::int64_t>& d, int threads) {
  const std::int64_t n = d[0], c = d[1], hw = d[2] * d[3];
  const std::vector<T> src = random_values<T>(static_cast<std::size_t>(n * c * hw), 7u + static_cast<std::uint32_t>(c));
  std::vector<T> nhwc(src.size()), back(src.size());
  nchw_to_nhwc(src.data(), nhwc.data(), d, sizeof(T), threads);
  // One assertion per shape, not per element: under the sanitizers a gtest assertion per
  // element made this test take 90 s.
  std::int64_t bad = -1;
  for (std::int64_t i = 0; i < n && bad < 0; ++i)
    for (std::int64_t ch = 0; ch < c && bad < 0; ++ch)
      for (std::int64_t p = 0; p < hw; ++p) {
        if (nhwc[(i * hw + p) * c + ch] != src[(i * c + ch) * hw + p]) {
          bad = (i * c + ch) * hw + p;
          break;
        }
      }
  ASSERT_EQ(bad, -1) << "first wrong element at NCHW index " << bad << " of " << n << "x" << c << "x" << d[2] << "x"
                     << d[3] << ", " << threads << " thread(s)";
  nhwc_to_nchw(nhwc.data(), back.data(), d, sizeof(T), threads);
  EXPECT_EQ(std::memcmp(back.data(), src.data(), src.size() * sizeof(T)), 0);
}

// ThreadSanitizer does not model libgomp's barriers (tests/tsan.supp), so the workers'
// writes and the caller's reads after the parallel region look like a race there: under
// TSan the conversions run on one thread; the normal and ASan builds check two.
#if defined(__SANITIZE_THREAD__)
constexpr int kTwoThreads = 1;
#else
constexpr int kTwoThreads = 2;
#endif

const std::vector<std::vector<std::int64_t>> kShapes = {
    {1, 3, 5, 7},   {1, 8, 8, 1},  {1, 8, 1, 9},    {2, 9, 3, 5},   {1, 16, 4, 4},   {1, 31, 33, 1},
    {1, 32, 32, 1}, {1, 33, 7, 5}, {2, 40, 11, 13}, {1, 64, 17, 9}, {1, 96, 80, 80}, {1, 5, 1, 1},
    {1, 16, 16, 1}, {1, 17, 4, 5}, {1, 480, 3, 80},  // the 16x16 byte blocks, their edges, PP-OCRv4 rec
};

TEST(KernelsLayout, FourByteElementsTransposeExactlyAroundBlockAndTileEdges) {
  for (const auto& d : kShapes) {
    check_shape<std::uint32_t>(d, 1);
    check_shape<std::uint32_t>(d, kTwoThreads);
  }
}

TEST(KernelsLayout, OneTwoAndEightByteElementsTransposeExactly) {
  for (const auto& d : kShapes) {
    check_shape<std::uint8_t>(d, 1);
    check_shape<std::uint16_t>(d, kTwoThreads);
    check_shape<std::uint64_t>(d, 1);
  }
}

TEST(KernelsLayout, FloatNanPayloadsAndSignedZerosPassUnchanged) {
  std::vector<std::uint32_t> bits(1 * 16 * 8 * 2);
  for (std::size_t i = 0; i < bits.size(); ++i) {
    bits[i] = (i % 3 == 0) ? 0x7fa00000u + static_cast<std::uint32_t>(i) : (i % 3 == 1 ? 0x80000000u : 0xffc00001u);
  }
  std::vector<std::uint32_t> out(bits.size()), back(bits.size());
  const std::vector<std::int64_t> d = {1, 16, 8, 2};
  nchw_to_nhwc(bits.data(), out.data(), d, 4);
  nhwc_to_nchw(out.data(), back.data(), d, 4);
  EXPECT_EQ(back, bits);
}

}  // namespace
}  // namespace svp::kernels::onednn
