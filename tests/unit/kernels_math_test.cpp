// The typed element-wise families (binary arithmetic, variadic, comparison, logical,
// unary math), Pow, Sqrt and Cast: values worked out by hand, the integer rules (wrapping,
// division by zero, Mod's sign), Cast's rules (truncation toward zero and saturation from
// float, C wrapping between integers, bool and float16), and the type errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
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


template <typename T>
OwnedTensor typed(DType t, std::vector<std::int64_t> dims, const std::vector<T>& v) {
  return OwnedTensor::from(t, std::move(dims), v);
}

TEST(KernelsMath, IntegerArithmeticWrapsAndDivisionByZeroGivesZero) {
  auto a = typed<std::uint8_t>(DType::kUint8, {4}, {250, 10, 7, 9});
  auto b = typed<std::uint8_t>(DType::kUint8, {4}, {10, 20, 0, 2});
  auto add = run_reference_owned("Add", {}, {a.view(), b.view()}, {{DType::kUint8, std::nullopt}});
  ASSERT_TRUE(add.ok()) << add.status().message();
  EXPECT_EQ((*add)[0].values<std::uint8_t>(), (std::vector<std::uint8_t>{4, 30, 7, 11}));
  auto sub = run_reference_owned("Sub", {}, {a.view(), b.view()}, {{DType::kUint8, std::nullopt}});
  EXPECT_EQ((*sub)[0].values<std::uint8_t>(), (std::vector<std::uint8_t>{240, 246, 7, 7}));
  auto div = run_reference_owned("Div", {}, {a.view(), b.view()}, {{DType::kUint8, std::nullopt}});
  EXPECT_EQ((*div)[0].values<std::uint8_t>(), (std::vector<std::uint8_t>{25, 0, 0, 4}));
  auto m = typed<std::int64_t>(DType::kInt64, {1}, {std::numeric_limits<std::int64_t>::min()});
  auto neg1 = typed<std::int64_t>(DType::kInt64, {1}, {-1});
  auto q = run_reference_owned("Div", {}, {m.view(), neg1.view()}, {{DType::kInt64, std::nullopt}});
  ASSERT_TRUE(q.ok());
  EXPECT_EQ((*q)[0].values<std::int64_t>()[0], std::numeric_limits<std::int64_t>::min());  // wraps, no trap
}

TEST(KernelsMath, ModTakesTheDivisorsSignUnlessFmod) {
  auto a = typed<std::int32_t>(DType::kInt32, {4}, {-7, 7, -7, 7});
  auto b = typed<std::int32_t>(DType::kInt32, {4}, {3, -3, -3, 0});
  auto r = run_reference_owned("Mod", {}, {a.view(), b.view()}, {{DType::kInt32, std::nullopt}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].values<std::int32_t>(), (std::vector<std::int32_t>{2, -2, -1, 0}));
  auto f = run_reference_owned("Mod", {{"fmod", std::int64_t{1}}}, {a.view(), b.view()}, {{DType::kInt32, std::nullopt}});
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)[0].values<std::int32_t>(), (std::vector<std::int32_t>{-1, 1, -1, 0}));
  auto x = OwnedTensor::f32({2}, {-7.5f, 7.5f});
  auto y = OwnedTensor::f32({1}, {2});
  EXPECT_EQ(run_reference_owned("Mod", {}, {x.view(), y.view()}).status().code(), err::kInvalidParam);
  auto g = run_reference_owned("Mod", {{"fmod", std::int64_t{1}}}, {x.view(), y.view()});
  ASSERT_TRUE(g.ok());
  EXPECT_EQ((*g)[0].values<float>(), (std::vector<float>{-1.5f, 1.5f}));
}

TEST(KernelsMath, BitShiftNeedsADirectionAndShiftsPastTheWidthToZero) {
  auto a = typed<std::uint8_t>(DType::kUint8, {3}, {1, 0x80, 5});
  auto b = typed<std::uint8_t>(DType::kUint8, {3}, {3, 1, 9});
  auto l = run_reference_owned("BitShift", {{"direction", std::string("LEFT")}}, {a.view(), b.view()},
                               {{DType::kUint8, std::nullopt}});
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ((*l)[0].values<std::uint8_t>(), (std::vector<std::uint8_t>{8, 0, 0}));
  auto r = run_reference_owned("BitShift", {{"direction", std::string("RIGHT")}}, {a.view(), b.view()},
                               {{DType::kUint8, std::nullopt}});
  EXPECT_EQ((*r)[0].values<std::uint8_t>(), (std::vector<std::uint8_t>{0, 0x40, 0}));
  auto bad = run_reference_owned("BitShift", {}, {a.view(), b.view()}, {{DType::kUint8, std::nullopt}});
  EXPECT_EQ(bad.status().code(), err::kParseModel);
  EXPECT_NE(bad.status().message().find("direction"), std::string::npos);
}

TEST(KernelsMath, VariadicMaxMinSumMeanBroadcastEveryInput) {
  auto a = OwnedTensor::f32({2, 1}, {1, 6});
  auto b = OwnedTensor::f32({3}, {3, 2, std::nanf("")});
  auto c = OwnedTensor::f32({1}, {4});
  auto mx = run_reference_owned("Max", {}, {a.view(), b.view(), c.view()});
  ASSERT_TRUE(mx.ok()) << mx.status().message();
  const auto m = (*mx)[0].values<float>();
  EXPECT_EQ((*mx)[0].view().dims, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(m[0], 4);
  EXPECT_EQ(m[3], 6);
  EXPECT_TRUE(std::isnan(m[2]));  // NaN propagates
  auto mean = run_reference_owned("Mean", {}, {a.view(), c.view()});
  ASSERT_TRUE(mean.ok());
  EXPECT_EQ((*mean)[0].values<float>(), (std::vector<float>{2.5f, 5}));
  auto one = run_reference_owned("Min", {}, {a.view()});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ((*one)[0].values<float>(), (std::vector<float>{1, 6}));
  auto i = typed<std::int32_t>(DType::kInt32, {1}, {3});
  EXPECT_EQ(run_reference_owned("Mean", {}, {i.view()}, {{DType::kInt32, std::nullopt}}).status().code(),
            err::kUnsupportedDataType);
}

TEST(KernelsMath, ComparisonsAndLogicOpsProduceBool) {
  auto a = typed<std::int32_t>(DType::kInt32, {3}, {1, 2, 3});
  auto b = typed<std::int32_t>(DType::kInt32, {1}, {2});
  const std::pair<const char*, std::vector<std::uint8_t>> cases[] = {
      {"Equal", {0, 1, 0}}, {"Greater", {0, 0, 1}}, {"Less", {1, 0, 0}},
      {"GreaterOrEqual", {0, 1, 1}}, {"LessOrEqual", {1, 1, 0}}};
  for (const auto& [op, want] : cases) {
    auto r = run_reference_owned(op, {}, {a.view(), b.view()}, {{DType::kBool, std::nullopt}});
    ASSERT_TRUE(r.ok()) << op << ": " << r.status().message();
    EXPECT_EQ((*r)[0].values<std::uint8_t>(), want) << op;
  }
  auto p = typed<std::uint8_t>(DType::kBool, {4}, {0, 0, 1, 1});
  auto q = typed<std::uint8_t>(DType::kBool, {4}, {0, 1, 0, 1});
  auto x = run_reference_owned("Xor", {}, {p.view(), q.view()}, {{DType::kBool, std::nullopt}});
  ASSERT_TRUE(x.ok());
  EXPECT_EQ((*x)[0].values<std::uint8_t>(), (std::vector<std::uint8_t>{0, 1, 1, 0}));
  auto n = run_reference_owned("Not", {}, {p.view()}, {{DType::kBool, std::nullopt}});
  ASSERT_TRUE(n.ok());
  EXPECT_EQ((*n)[0].values<std::uint8_t>(), (std::vector<std::uint8_t>{1, 1, 0, 0}));
  // A float output for a comparison, or int inputs for a logical op, are type errors.
  EXPECT_EQ(run_reference_owned("Equal", {}, {a.view(), b.view()}).status().code(), err::kUnsupportedDataType);
  EXPECT_EQ(run_reference_owned("And", {}, {a.view(), b.view()}, {{DType::kBool, std::nullopt}}).status().code(),
            err::kUnsupportedDataType);
}

TEST(KernelsMath, UnaryMathInFloatAndDouble) {
  auto x = OwnedTensor::f32({4}, {-2.5f, -0.5f, 0.5f, 1.5f});
  auto round = run_reference_owned("Round", {}, {x.view()});
  ASSERT_TRUE(round.ok());
  EXPECT_EQ((*round)[0].values<float>(), (std::vector<float>{-2, -0.0f, 0, 2}));  // halves to even
  auto sign = run_reference_owned("Sign", {}, {x.view()});
  EXPECT_EQ((*sign)[0].values<float>(), (std::vector<float>{-1, -1, 1, 1}));
  auto d = typed<double>(DType::kFloat64, {2}, {0.0, 1.0});
  auto e = run_reference_owned("Exp", {}, {d.view()}, {{DType::kFloat64, std::nullopt}});
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ((*e)[0].values<double>()[1], std::exp(1.0));  // computed in double
  // Selu with ONNX's default constants: gamma * x for x > 0, gamma * alpha * (e^x - 1) else.
  auto s = run_reference_owned("Selu", {}, {x.view()});
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR((*s)[0].values<float>()[2], 1.0507010221f * 0.5f, 1e-6);
  EXPECT_NEAR((*s)[0].values<float>()[1], 1.0507010221 * 1.6732631921 * std::expm1(-0.5), 1e-6);
  auto shrink = run_reference_owned("Shrink", {{"lambd", 1.0}, {"bias", 0.5}}, {x.view()});
  ASSERT_TRUE(shrink.ok());
  EXPECT_EQ((*shrink)[0].values<float>(), (std::vector<float>{-2, 0, 0, 1}));
  auto i = typed<std::int8_t>(DType::kInt8, {3}, {-128, -3, 4});
  auto abs = run_reference_owned("Abs", {}, {i.view()}, {{DType::kInt8, std::nullopt}});
  ASSERT_TRUE(abs.ok());
  EXPECT_EQ((*abs)[0].values<std::int8_t>(), (std::vector<std::int8_t>{-128, 3, 4}));  // |MIN| wraps
  // Integer input to a float-only function is a type error naming the op.
  auto bad = run_reference_owned("Exp", {}, {i.view()}, {{DType::kInt8, std::nullopt}});
  EXPECT_EQ(bad.status().code(), err::kUnsupportedDataType);
  EXPECT_NE(bad.status().message().find("Exp"), std::string::npos);
  EXPECT_EQ(run_reference_owned("Celu", {{"alpha", 0.0}}, {x.view()}).status().code(), err::kInvalidParam);
}

TEST(KernelsMath, IsInfHonoursItsSignFlags) {
  const float inf = std::numeric_limits<float>::infinity();
  auto x = OwnedTensor::f32({4}, {-inf, inf, std::nanf(""), 1});
  auto all = run_reference_owned("IsInf", {}, {x.view()}, {{DType::kBool, std::nullopt}});
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ((*all)[0].values<std::uint8_t>(), (std::vector<std::uint8_t>{1, 1, 0, 0}));
  auto pos = run_reference_owned("IsInf", {{"detect_negative", std::int64_t{0}}}, {x.view()},
                                 {{DType::kBool, std::nullopt}});
  EXPECT_EQ((*pos)[0].values<std::uint8_t>(), (std::vector<std::uint8_t>{0, 1, 0, 0}));
  auto nan = run_reference_owned("IsNaN", {}, {x.view()}, {{DType::kBool, std::nullopt}});
  EXPECT_EQ((*nan)[0].values<std::uint8_t>(), (std::vector<std::uint8_t>{0, 0, 1, 0}));
}

TEST(KernelsMath, PowWithAnIntegerBaseSaturates) {
  auto b = typed<std::int32_t>(DType::kInt32, {3}, {2, -3, 10});
  auto e = OwnedTensor::f32({3}, {3, 3, 12});
  auto r = run_reference_owned("Pow", {}, {b.view(), e.view()}, {{DType::kInt32, std::nullopt}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].values<std::int32_t>(),
            (std::vector<std::int32_t>{8, -27, std::numeric_limits<std::int32_t>::max()}));
}

TEST(KernelsMath, CastToAndFromBoolDoubleAndFloat16) {
  auto x = OwnedTensor::f32({4}, {0.0f, -0.5f, 2.0f, 65520.0f});
  auto b = run_reference_owned("Cast", {}, {x.view()}, {{DType::kBool, std::nullopt}});
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ((*b)[0].values<std::uint8_t>(), (std::vector<std::uint8_t>{0, 1, 1, 1}));
  auto d = run_reference_owned("Cast", {}, {x.view()}, {{DType::kFloat64, std::nullopt}});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ((*d)[0].values<double>(), (std::vector<double>{0.0, -0.5, 2.0, 65520.0}));
  // float16: 2 is 0x4000, -0.5 is 0xB800; 65520 rounds (to even) past the largest half: inf.
  auto h = run_reference_owned("Cast", {}, {x.view()}, {{DType::kFloat16, std::nullopt}});
  ASSERT_TRUE(h.ok());
  EXPECT_EQ((*h)[0].values<std::uint16_t>(), (std::vector<std::uint16_t>{0x0000, 0xB800, 0x4000, 0x7C00}));
  auto back = run_reference_owned("Cast", {}, {(*h)[0].view()}, {{DType::kFloat32, std::nullopt}});
  ASSERT_TRUE(back.ok());
  EXPECT_EQ((*back)[0].values<float>()[1], -0.5f);
  EXPECT_TRUE(std::isinf((*back)[0].values<float>()[3]));
  // CastLike takes its type from the model's output (that of its second input).
  auto like = typed<std::int32_t>(DType::kInt32, {1}, {0});
  auto cl = run_reference_owned("CastLike", {}, {x.view(), like.view()}, {{DType::kInt32, std::nullopt}});
  ASSERT_TRUE(cl.ok()) << cl.status().message();
  EXPECT_EQ((*cl)[0].values<std::int32_t>(), (std::vector<std::int32_t>{0, 0, 2, 65520}));
}

TEST(KernelsMath, DynamicQuantizeLinearWidensTheRangeToZero) {
  // Range [-1, 4]: scale 5/255, zero point 51; 2 / scale = 102.
  auto x = OwnedTensor::f32({4}, {0, 2, -1, 4});
  auto r = run_reference_owned("DynamicQuantizeLinear", {}, {x.view()},
                               {{DType::kUint8, std::nullopt}, {DType::kFloat32, std::nullopt}, {DType::kUint8, std::nullopt}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].values<std::uint8_t>(), (std::vector<std::uint8_t>{51, 153, 0, 255}));
  EXPECT_FLOAT_EQ((*r)[1].values<float>()[0], 5.0f / 255.0f);
  EXPECT_EQ((*r)[2].values<std::uint8_t>()[0], 51);
  EXPECT_EQ(run_reference_owned("DynamicQuantizeLinear", {}, {x.view()}).status().code(), err::kUnsupportedDataType);
}

}  // namespace
}  // namespace svp::kernels
