// Element decoding used by --expected and --outfmt TXT, including float16 widening.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "svp_run/data_types.h"

namespace {

using svp::run::element;

TEST(DataTypes, Float16IsWidenedExactly) {
  const std::uint16_t h[] = {0x3C00, 0xC000, 0x0001, 0x7C00, 0x3555, 0x8000};
  std::uint8_t bytes[sizeof h];
  std::memcpy(bytes, h, sizeof h);
  EXPECT_EQ(element(SVP_ACL_FLOAT16, bytes, 0), 1.0);
  EXPECT_EQ(element(SVP_ACL_FLOAT16, bytes, 1), -2.0);
  EXPECT_EQ(element(SVP_ACL_FLOAT16, bytes, 2), std::ldexp(1.0, -24));  // smallest subnormal
  EXPECT_TRUE(std::isinf(element(SVP_ACL_FLOAT16, bytes, 3)));
  EXPECT_EQ(element(SVP_ACL_FLOAT16, bytes, 4), 0.333251953125);
  EXPECT_TRUE(std::signbit(element(SVP_ACL_FLOAT16, bytes, 5)));
}

TEST(DataTypes, IntegersKeepTheirSign) {
  const std::int8_t i8[] = {-128, 127};
  EXPECT_EQ(element(SVP_ACL_INT8, reinterpret_cast<const std::uint8_t*>(i8), 0), -128.0);
  const std::uint8_t u8[] = {255};
  EXPECT_EQ(element(SVP_ACL_UINT8, u8, 0), 255.0);
  const std::int32_t i32[] = {-5, 70000};
  EXPECT_EQ(element(SVP_ACL_INT32, reinterpret_cast<const std::uint8_t*>(i32), 1), 70000.0);
  EXPECT_STREQ(svp::run::npy_descr(SVP_ACL_INT16), "<i2");
  EXPECT_STREQ(svp::run::dtype_name(SVP_ACL_FLOAT16), "float16");
}

}  // namespace
