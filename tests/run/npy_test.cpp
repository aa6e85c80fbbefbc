// The .npy reader and writer of svp_run: round trip, and malformed files rejected with a
// message (never a read outside the bytes: tests/fuzz/npy_reader_fuzz.cpp fuzzes it).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "common/npy.h"

namespace svp {
namespace {


TEST(Npy, WrittenArrayReadsBack) {
  const float v[6] = {1, -2, 3.5f, 4, 5, 6};
  const auto f = npy::make("<f4", {2, 3}, reinterpret_cast<const std::uint8_t*>(v), sizeof v);
  EXPECT_EQ((f.size() - sizeof v) % 64, 0u);  // data 64-byte aligned
  npy::Array a;
  std::string error;
  ASSERT_TRUE(npy::parse(f.data(), f.size(), a, error)) << error;
  EXPECT_EQ(a.descr, "<f4");
  EXPECT_EQ(a.shape, (std::vector<std::int64_t>{2, 3}));
  ASSERT_EQ(a.data.size(), sizeof v);
  EXPECT_EQ(std::memcmp(a.data.data(), v, sizeof v), 0);
}

TEST(Npy, MalformedFilesAreRejectedWithAReason) {
  const std::uint8_t v[4] = {1, 2, 3, 4};
  const auto good = npy::make("|u1", {4}, v, 4);
  npy::Array a;
  std::string error;
  EXPECT_FALSE(npy::parse(good.data(), 5, a, error));
  EXPECT_NE(error.find("magic"), std::string::npos);
  EXPECT_FALSE(npy::parse(good.data(), good.size() - 1, a, error));  // data one byte short
  EXPECT_NE(error.find("need 4"), std::string::npos);
  auto big = good;
  big[8] = 0xff;  // header longer than the file
  EXPECT_FALSE(npy::parse(big.data(), big.size(), a, error));
  EXPECT_NE(error.find("truncated"), std::string::npos);
  const auto fortran = [&] {
    std::string s(good.begin(), good.end());
    s.replace(s.find("False"), 5, "True ");
    return std::vector<std::uint8_t>(s.begin(), s.end());
  }();
  EXPECT_FALSE(npy::parse(fortran.data(), fortran.size(), a, error));
  EXPECT_NE(error.find("Fortran"), std::string::npos);
  const auto bad_dtype = npy::make("<c8", {4}, v, 4);
  EXPECT_FALSE(npy::parse(bad_dtype.data(), bad_dtype.size(), a, error));
  EXPECT_NE(error.find("dtype"), std::string::npos);
}

}  // namespace
}  // namespace svp
