// The Reduce* family and ArgMax/ArgMin reference kernels: hand-computed values in float32,
// integer and double reductions, ties and NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/invoke.h"
#include "kernels/kernels.h"
#include "model/tensor.h"

namespace svp::kernels {
namespace {

using model::DType;
using I = std::vector<std::int64_t>;
using F = std::vector<float>;

struct Out {
  Status status;
  I dims;
  F values;
};

Out reduce(const char* op, const Attrs& a, const std::vector<TensorView>& in) {
  auto r = run_reference_owned(op, a, in);
  if (!r.ok()) return {r.status(), {}, {}};
  return {Status::Ok(), r.value()[0].view().dims, r.value()[0].values<float>()};
}

const F k23{1, 2, 3, 4, 5, 6};  // [[1 2 3] [4 5 6]]

TEST(KernelsReduceMean, AxesAndKeepdims) {
  auto x = OwnedTensor::f32({2, 3}, k23);
  Out o = reduce("ReduceMean", {{"axes", I{1}}}, {x.view()});  // row means (1+2+3)/3, (4+5+6)/3
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.dims, (I{2, 1}));
  EXPECT_EQ(o.values, (F{2, 5}));
  o = reduce("ReduceMean", {{"axes", I{1}}, {"keepdims", std::int64_t{0}}}, {x.view()});
  EXPECT_EQ(o.dims, (I{2}));
  o = reduce("ReduceMean", {{"axes", I{-2}}}, {x.view()});  // column means 2.5 3.5 4.5
  EXPECT_EQ(o.dims, (I{1, 3}));
  EXPECT_EQ(o.values, (F{2.5f, 3.5f, 4.5f}));
  o = reduce("ReduceMean", {}, {x.view()});  // all: 21 / 6
  EXPECT_EQ(o.dims, (I{1, 1}));
  EXPECT_EQ(o.values, (F{3.5f}));
  o = reduce("ReduceMean", {{"keepdims", std::int64_t{0}}}, {x.view()});
  EXPECT_EQ(o.dims, I{});
}

TEST(KernelsReduceMean, AxesAsInputAndNoopWithEmptyAxes) {
  auto x = OwnedTensor::f32({2, 3}, k23);
  auto axes = OwnedTensor::i64({1}, {0});
  Out o = reduce("ReduceMean", {}, {x.view(), axes.view()});
  EXPECT_EQ(o.values, (F{2.5f, 3.5f, 4.5f}));
  o = reduce("ReduceMean", {{"noop_with_empty_axes", std::int64_t{1}}}, {x.view()});
  EXPECT_EQ(o.dims, (I{2, 3}));
  EXPECT_EQ(o.values, k23);
}

TEST(KernelsReduceMax, MultipleAxesMatchNaiveMaximum) {
  // x (3, 4, 5), reduce axes 0 and 2 → (1, 4, 1).
  F xv;
  for (int i = 0; i < 60; ++i) xv.push_back(static_cast<float>((i * 29) % 61) - 30.0f);
  auto x = OwnedTensor::f32({3, 4, 5}, xv);
  Out o = reduce("ReduceMax", {{"axes", I{0, -1}}}, {x.view()});
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.dims, (I{1, 4, 1}));
  for (int j = 0; j < 4; ++j) {
    float m = -1e30f;
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 5; ++k) m = std::max(m, xv[static_cast<std::size_t>((i * 4 + j) * 5 + k)]);
    EXPECT_EQ(o.values[static_cast<std::size_t>(j)], m);
  }
  Out mean = reduce("ReduceMean", {{"axes", I{0, 2}}, {"keepdims", std::int64_t{0}}}, {x.view()});
  EXPECT_EQ(mean.dims, (I{4}));
  for (int j = 0; j < 4; ++j) {
    double s = 0;
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 5; ++k) s += xv[static_cast<std::size_t>((i * 4 + j) * 5 + k)];
    EXPECT_NEAR(mean.values[static_cast<std::size_t>(j)], s / 15, 1e-6);
  }
}

TEST(KernelsReduceMax, HandValuesAndNan) {
  auto x = OwnedTensor::f32({2, 3}, {1, 9, 3, -4, -5, -6});
  Out o = reduce("ReduceMax", {{"axes", I{1}}, {"keepdims", std::int64_t{0}}}, {x.view()});
  EXPECT_EQ(o.values, (F{9, -4}));
  auto n = OwnedTensor::f32({3}, {1, std::numeric_limits<float>::quiet_NaN(), 2});
  o = reduce("ReduceMax", {}, {n.view()});
  ASSERT_EQ(o.values.size(), 1u);
  EXPECT_TRUE(std::isnan(o.values[0]));
}

TEST(KernelsReduce, BadAxesAreRejected) {
  for (const char* op : {"ReduceMean", "ReduceMax"}) {
    EXPECT_EQ(infer_shapes(op, {{"axes", I{2}}}, {{2, 3}}).status().code(), err::kInvalidParam) << op;
    EXPECT_EQ(infer_shapes(op, {{"axes", I{1, -1}}}, {{2, 3}}).status().code(), err::kInvalidParam) << op;
    EXPECT_EQ(infer_shapes(op, {{"axes", I{0}}}, {{0, 3}}).status().code(), err::kInvalidParam) << op;  // empty dim
    EXPECT_EQ(infer_shapes(op, {{"keepdims", std::int64_t{3}}}, {{2, 3}}).status().code(), err::kInvalidParam);
    EXPECT_EQ(infer_shapes(op, {{"axes", 1.0}}, {{2, 3}}).status().code(), err::kParseModel);
    EXPECT_EQ(infer_shapes(op, {}, {{2, 3}, {1}}).status().code(), err::kInvalidParam);  // axes not constant
  }
  // Reducing only non-empty dims of an empty tensor is fine.
  EXPECT_TRUE(infer_shapes("ReduceMax", {{"axes", I{1}}}, {{0, 3}}).ok());
}

I argmax(const Attrs& a, const OwnedTensor& x, I* dims = nullptr) {
  auto r = run_reference_owned("ArgMax", a, {x.view()}, {{DType::kInt64, {}}});
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return {};
  if (dims) *dims = r.value()[0].view().dims;
  return r.value()[0].values<std::int64_t>();
}

TEST(KernelsArgMax, FirstOrLastIndexOfTheMaximum) {
  // [[1 3 3] [5 2 5]]: along axis 1 the first maxima are at 1 and 0, the last at 2 and 2;
  // along axis 0: [1 0 1].
  auto x = OwnedTensor::f32({2, 3}, {1, 3, 3, 5, 2, 5});
  I dims;
  EXPECT_EQ(argmax({{"axis", std::int64_t{1}}}, x, &dims), (I{1, 0}));
  EXPECT_EQ(dims, (I{2, 1}));
  EXPECT_EQ(argmax({{"axis", std::int64_t{-1}}, {"select_last_index", std::int64_t{1}}}, x), (I{2, 2}));
  EXPECT_EQ(argmax({{"keepdims", std::int64_t{0}}}, x, &dims), (I{1, 0, 1}));
  EXPECT_EQ(dims, (I{3}));
}

TEST(KernelsArgMax, NanIsSkippedAndInt32OutputAllowed) {
  auto x = OwnedTensor::f32({3}, {std::numeric_limits<float>::quiet_NaN(), 1, 0});
  EXPECT_EQ(argmax({}, x), (I{1}));
  auto r = run_reference_owned("ArgMax", {}, {x.view()}, {{DType::kInt32, {}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<std::int32_t>(), (std::vector<std::int32_t>{1}));
}

TEST(KernelsArgMax, BadAxisAndOutputTypeAreRejected) {
  EXPECT_EQ(infer_shapes("ArgMax", {{"axis", std::int64_t{2}}}, {{2, 3}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("ArgMax", {}, {{0, 3}}).status().code(), err::kInvalidParam);
  auto x = OwnedTensor::f32({2}, {1, 2});
  EXPECT_EQ(run_reference_owned("ArgMax", {}, {x.view()}).status().code(), err::kUnsupportedDataType);  // float out
}


TEST(KernelsReduce, EveryReductionOnHandValues) {
  // [[1 2 3] [4 5 6]] reduced over axis 1.
  auto x = OwnedTensor::f32({2, 3}, k23);
  const std::pair<const char*, F> cases[] = {
      {"ReduceSum", {6, 15}},
      {"ReduceMin", {1, 4}},
      {"ReduceProd", {6, 120}},
      {"ReduceL1", {6, 15}},
      {"ReduceSumSquare", {14, 77}},
      {"ReduceL2", {std::sqrt(14.0f), std::sqrt(77.0f)}},
      {"ReduceLogSum", {std::log(6.0f), std::log(15.0f)}},
      {"ReduceLogSumExp",
       {static_cast<float>(std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0))),
        static_cast<float>(std::log(std::exp(4.0) + std::exp(5.0) + std::exp(6.0)))}}};
  for (const auto& [op, want] : cases) {
    Out o = reduce(op, {{"axes", I{1}}, {"keepdims", std::int64_t{0}}}, {x.view()});
    ASSERT_TRUE(o.status.ok()) << op << ": " << o.status.message();
    ASSERT_EQ(o.values.size(), 2u) << op;
    for (std::size_t i = 0; i < 2; ++i) EXPECT_FLOAT_EQ(o.values[i], want[i]) << op << " " << i;
  }
}

TEST(KernelsReduce, ReduceSumTakesAxesAsAnInputAndKeepsIntegerTypes) {
  auto x = OwnedTensor::from<std::int32_t>(DType::kInt32, {2, 2}, {1, -2, 30, 40});
  auto axes = OwnedTensor::i64({1}, {0});
  auto r = run_reference_owned("ReduceSum", {}, {x.view(), axes.view()}, {{DType::kInt32, {}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].view().dims, (I{1, 2}));
  EXPECT_EQ(r.value()[0].values<std::int32_t>(), (std::vector<std::int32_t>{31, 38}));
  auto d = OwnedTensor::from<double>(DType::kFloat64, {3}, {0.5, 0.25, 0.125});
  auto rd = run_reference_owned("ReduceProd", {}, {d.view()}, {{DType::kFloat64, {}}});
  ASSERT_TRUE(rd.ok()) << rd.status().message();
  EXPECT_EQ(rd.value()[0].values<double>(), (std::vector<double>{0.015625}));
  // The output type must be the input's.
  EXPECT_EQ(run_reference_owned("ReduceSum", {}, {x.view(), axes.view()}).status().code(), err::kUnsupportedDataType);
}

TEST(KernelsArgMin, FirstOrLastIndexOfTheMinimumInAnyNumericType) {
  auto x = OwnedTensor::from<std::int64_t>(DType::kInt64, {2, 3}, {3, 1, 1, 0, 7, 0});
  auto r = run_reference_owned("ArgMin", {{"axis", std::int64_t{1}}}, {x.view()}, {{DType::kInt64, {}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<std::int64_t>(), (I{1, 0}));
  r = run_reference_owned("ArgMin", {{"axis", std::int64_t{1}}, {"select_last_index", std::int64_t{1}}}, {x.view()},
                          {{DType::kInt64, {}}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()[0].values<std::int64_t>(), (I{2, 2}));
}

}  // namespace
}  // namespace svp::kernels
