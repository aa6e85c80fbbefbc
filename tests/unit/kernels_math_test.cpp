// Pow (broadcasting), Sqrt and Cast: values worked out by hand, and Cast's rules
// (truncation toward zero and saturation from float, C wrapping between integers).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/invoke.h"
#include "kernels/kernels.h"

namespace svp::kernels {
namespace {

using model::DType;

TEST(KernelsMath, PowBroadcastsTheExponent) {
  auto x = OwnedTensor::f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto e = OwnedTensor::f32({3}, {2, 0.5f, -1});
  auto r = run_reference_owned("Pow", {}, {x.view(), e.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto y = (*r)[0].values<float>();
  const std::vector<float> want = {1, std::sqrt(2.0f), 1.0f / 3, 16, std::sqrt(5.0f), 1.0f / 6};
  ASSERT_EQ(y.size(), want.size());
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_FLOAT_EQ(y[i], want[i]) << i;
}

TEST(KernelsMath, SqrtOfNegativeIsNaN) {
  auto x = OwnedTensor::f32({3}, {4, 0, -1});
  auto r = run_reference_owned("Sqrt", {}, {x.view()});
  ASSERT_TRUE(r.ok());
  const auto y = (*r)[0].values<float>();
  EXPECT_FLOAT_EQ(y[0], 2);
  EXPECT_FLOAT_EQ(y[1], 0);
  EXPECT_TRUE(std::isnan(y[2]));
}

TEST(KernelsMath, CastFromFloatTruncatesAndSaturates) {
  auto x = OwnedTensor::f32({6}, {1.9f, -1.9f, 300.0f, -300.0f, std::nanf(""), 1e30f});
  auto r = run_reference_owned("Cast", {{"to", std::int64_t{3}}}, {x.view()}, {{DType::kInt8, std::nullopt}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto y = (*r)[0].values<std::int8_t>();
  EXPECT_EQ(y, (std::vector<std::int8_t>{1, -1, 127, -128, 0, 127}));
  auto r64 = run_reference_owned("Cast", {}, {x.view()}, {{DType::kInt64, std::nullopt}});
  ASSERT_TRUE(r64.ok());
  EXPECT_EQ((*r64)[0].values<std::int64_t>()[5], std::numeric_limits<std::int64_t>::max());
}

TEST(KernelsMath, CastBetweenIntegersAndToFloat) {
  std::vector<std::int64_t> v = {5, -1, 300};
  OwnedTensor x(DType::kInt64, {3});
  std::memcpy(x.view().data, v.data(), sizeof(std::int64_t) * 3);
  auto u8 = run_reference_owned("Cast", {}, {x.view()}, {{DType::kUint8, std::nullopt}});
  ASSERT_TRUE(u8.ok());
  EXPECT_EQ((*u8)[0].values<std::uint8_t>(), (std::vector<std::uint8_t>{5, 255, 44}));  // C conversion wraps
  auto f = run_reference_owned("Cast", {}, {x.view()}, {{DType::kFloat32, std::nullopt}});
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)[0].values<float>(), (std::vector<float>{5, -1, 300}));
}

}  // namespace
}  // namespace svp::kernels
