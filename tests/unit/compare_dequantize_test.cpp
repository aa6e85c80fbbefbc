// real = scale · (q − zero_point), per tensor and per channel.
#include "svp_compare/dequantize.h"

#include <gtest/gtest.h>

namespace svp::compare {
namespace {

TEST(CompareDequantize, PerTensor) {
  std::vector<double> v = {-128, 0, 3, 127};
  std::string error;
  ASSERT_TRUE(Dequantize({4}, {0.5}, {3}, 0, &v, &error)) << error;
  EXPECT_EQ(v, (std::vector<double>{-65.5, -1.5, 0.0, 62.0}));
}

TEST(CompareDequantize, PerChannelOnAxisOne) {
  // dims (2, 2, 2), axis 1: channel index = (i / 2) % 2.
  std::vector<double> v = {1, 1, 1, 1, 2, 2, 2, 2};
  std::string error;
  ASSERT_TRUE(Dequantize({2, 2, 2}, {0.5, 2.0}, {0, 1}, 1, &v, &error)) << error;
  EXPECT_EQ(v, (std::vector<double>{0.5, 0.5, 0.0, 0.0, 1.0, 1.0, 2.0, 2.0}));
}

TEST(CompareDequantize, MismatchedChannelCountIsAnError) {
  std::vector<double> v = {1, 2};
  std::string error;
  EXPECT_FALSE(Dequantize({2}, {1, 2, 3}, {0}, 0, &v, &error));
  EXPECT_NE(error.find("channels"), std::string::npos) << error;
  EXPECT_FALSE(Dequantize({2}, {1, 2}, {0}, 5, &v, &error));
  EXPECT_NE(error.find("axis"), std::string::npos) << error;
}

}  // namespace
}  // namespace svp::compare
