// The bounds-checked .npy reader: valid files of each width, and every malformed form
// yields a message rather than a crash.
#include "svp_compare/npy_reader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace svp::compare {
namespace {

// A version-1.0 .npy image: header padded with spaces to a multiple of 64, then `payload`.
std::vector<std::uint8_t> MakeNpy(const std::string& descr, const std::string& shape, const std::vector<std::uint8_t>& payload) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  // Built with one sized allocation: GCC 12's -Warray-bounds misfires on insert() after a
  // short initializer list.
  std::vector<std::uint8_t> out(10 + header.size());
  const std::uint8_t prefix[] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                 static_cast<std::uint8_t>(header.size() & 0xff),
                                 static_cast<std::uint8_t>(header.size() >> 8)};
  std::memcpy(out.data(), prefix, sizeof(prefix));
  std::memcpy(out.data() + sizeof(prefix), header.data(), header.size());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

template <typename T>
std::vector<std::uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<std::uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

TEST(CompareNpy, ReadsFloat32Matrix) {
  const auto file = MakeNpy("<f4", "(2, 3)", Bytes<float>({1, 2, 3, 4, 5, 6.5f}));
  const NpyResult r = ParseNpy(file.data(), file.size());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.array.dtype, "f4");
  EXPECT_EQ(r.array.dims, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(r.array.values, (std::vector<double>{1, 2, 3, 4, 5, 6.5}));
}

TEST(CompareNpy, ReadsInt8AndScalar) {
  const auto file = MakeNpy("|i1", "(3,)", Bytes<std::int8_t>({-128, 0, 127}));
  const NpyResult r = ParseNpy(file.data(), file.size());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.array.values, (std::vector<double>{-128, 0, 127}));
  const auto scalar = MakeNpy("<f8", "()", Bytes<double>({2.25}));
  const NpyResult s = ParseNpy(scalar.data(), scalar.size());
  ASSERT_TRUE(s.ok) << s.error;
  EXPECT_TRUE(s.array.dims.empty());
  EXPECT_EQ(s.array.values, (std::vector<double>{2.25}));
}

TEST(CompareNpy, ReadsFloat16) {
  // 0x3c00 = 1.0, 0xc000 = −2.0, 0x3555 ≈ 0.333251953125.
  const auto file = MakeNpy("<f2", "(3,)", Bytes<std::uint16_t>({0x3c00, 0xc000, 0x3555}));
  const NpyResult r = ParseNpy(file.data(), file.size());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.array.values, (std::vector<double>{1.0, -2.0, 0.333251953125}));
}

TEST(CompareNpy, TruncatedDataIsAnError) {
  const auto file = MakeNpy("<f4", "(4,)", Bytes<float>({1, 2, 3}));
  const NpyResult r = ParseNpy(file.data(), file.size());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("truncated"), std::string::npos) << r.error;
}

TEST(CompareNpy, EveryPrefixOfAValidFileFailsCleanly) {
  const auto file = MakeNpy("<f4", "(2,)", Bytes<float>({1, 2}));
  for (std::size_t n = 0; n < file.size(); ++n) {
    const NpyResult r = ParseNpy(file.data(), n);
    EXPECT_FALSE(r.ok) << "prefix " << n;
    EXPECT_FALSE(r.error.empty());
  }
}

TEST(CompareNpy, HugeShapeIsRefusedNotAllocated) {
  const auto file = MakeNpy("<f4", "(100000, 100000, 100000)", {});
  const NpyResult r = ParseNpy(file.data(), file.size());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("exceeds"), std::string::npos) << r.error;
}

TEST(CompareNpy, BadMagicAndUnknownDtype) {
  const std::vector<std::uint8_t> junk(32, 'x');
  EXPECT_FALSE(ParseNpy(junk.data(), junk.size()).ok);
  const auto file = MakeNpy("<c8", "(1,)", std::vector<std::uint8_t>(8, 0));
  const NpyResult r = ParseNpy(file.data(), file.size());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("unsupported dtype"), std::string::npos) << r.error;
}

TEST(CompareNpy, MissingFileNamesThePath) {
  const NpyResult r = ReadNpyFile("/nonexistent/dir/x.npy");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("/nonexistent/dir/x.npy"), std::string::npos);
}

}  // namespace
}  // namespace svp::compare
