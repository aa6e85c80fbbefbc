// Data-movement reference kernels: Concat, Reshape, Flatten, Transpose, Squeeze,
// Unsqueeze, Slice, Split, Pad (float32 and plain integer tensors).
#include <gtest/gtest.h>

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

F seq(std::size_t n) {
  F v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

struct ShapeOut {
  Status status;
  I dims;
  F values;
};

ShapeOut run(const char* op, const Attrs& a, const std::vector<TensorView>& in) {
  auto r = run_reference_owned(op, a, in);
  if (!r.ok()) return {r.status(), {}, {}};
  return {Status::Ok(), r.value()[0].view().dims, r.value()[0].values<float>()};
}

int code_of(const char* op, const Attrs& a, const std::vector<TensorView>& in) {
  return run_reference_owned(op, a, in).status().code();
}

// ---------------------------------------------------------------------------

TEST(KernelsConcat, JoinsAlongPositiveAndNegativeAxes) {
  auto a = OwnedTensor::f32({2, 1}, {1, 2});
  auto b = OwnedTensor::f32({2, 2}, {3, 4, 5, 6});
  // axis 1: rows [1 | 3 4], [2 | 5 6]
  ShapeOut o = run("Concat", {{"axis", std::int64_t{1}}}, {a.view(), b.view()});
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.dims, (I{2, 3}));
  EXPECT_EQ(o.values, (F{1, 3, 4, 2, 5, 6}));
  o = run("Concat", {{"axis", std::int64_t{-1}}}, {a.view(), b.view()});
  EXPECT_EQ(o.values, (F{1, 3, 4, 2, 5, 6}));
  // axis 0 with an empty input in the middle.
  auto e = OwnedTensor::f32({0, 2}, {});
  auto c = OwnedTensor::f32({1, 2}, {7, 8});
  o = run("Concat", {{"axis", std::int64_t{0}}}, {b.view(), e.view(), c.view()});
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.dims, (I{3, 2}));
  EXPECT_EQ(o.values, (F{3, 4, 5, 6, 7, 8}));
}

TEST(KernelsConcat, Int64TensorsAreMovedAsIs) {
  auto a = OwnedTensor::i64({2}, {1, std::numeric_limits<std::int64_t>::max()});
  auto b = OwnedTensor::i64({1}, {-5});
  auto r = run_reference_owned("Concat", {{"axis", std::int64_t{0}}}, {a.view(), b.view()}, {{DType::kInt64, {}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<std::int64_t>(), (I{1, std::numeric_limits<std::int64_t>::max(), -5}));
}

TEST(KernelsConcat, BadAxisAndShapesAreRejected) {
  EXPECT_EQ(infer_shapes("Concat", {}, {{2}, {2}}).status().code(), err::kParseModel);  // axis required
  EXPECT_EQ(infer_shapes("Concat", {{"axis", std::int64_t{2}}}, {{2, 2}, {2, 2}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Concat", {{"axis", std::int64_t{0}}}, {{2, 2}, {2, 3}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Concat", {{"axis", std::int64_t{0}}}, {{2, 2}, {2}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Concat", {{"axis", std::int64_t{0}}}, {{}, {}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Concat", {{"axis", std::int64_t{0}}}, {}).status().code(), err::kInvalidParam);
}

TEST(KernelsConcat, DifferentElementTypesAreUnsupported) {
  auto a = OwnedTensor::f32({1}, {1});
  auto b = OwnedTensor::i64({1}, {2});
  OwnedTensor y(DType::kFloat32, {2});
  EXPECT_EQ(run_reference("Concat", {{"axis", std::int64_t{0}}}, {a.view(), b.view()}, {y.view()}).code(),
            err::kUnsupportedDataType);
}

// ---------------------------------------------------------------------------

TEST(KernelsReshape, ZeroCopiesAndMinusOneInfers) {
  auto x = OwnedTensor::f32({2, 3, 4}, seq(24));
  auto s1 = OwnedTensor::i64({2}, {4, -1});
  ShapeOut o = run("Reshape", {}, {x.view(), s1.view()});
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.dims, (I{4, 6}));
  EXPECT_EQ(o.values, seq(24));
  auto s2 = OwnedTensor::i64({3}, {0, -1, 2});  // 0 copies dim 0 (2); -1 = 24 / (2*2) = 6
  EXPECT_EQ(run("Reshape", {}, {x.view(), s2.view()}).dims, (I{2, 6, 2}));
  auto s3 = OwnedTensor::from<std::int32_t>(DType::kInt32, {1}, {-1});  // int32 shape works too
  EXPECT_EQ(run("Reshape", {}, {x.view(), s3.view()}).dims, (I{24}));
}

TEST(KernelsReshape, AllowZeroKeepsLiteralZeros) {
  auto x = OwnedTensor::f32({0, 3}, {});
  auto s = OwnedTensor::i64({2}, {3, 0});
  EXPECT_EQ(run("Reshape", {{"allowzero", std::int64_t{1}}}, {x.view(), s.view()}).dims, (I{3, 0}));
  // Without allowzero the 0 copies dim 1 (3): [3, 3] has 9 elements, not 0.
  EXPECT_EQ(code_of("Reshape", {}, {x.view(), s.view()}), err::kInvalidParam);
  auto s2 = OwnedTensor::i64({2}, {0, -1});
  EXPECT_EQ(code_of("Reshape", {{"allowzero", std::int64_t{1}}}, {x.view(), s2.view()}), err::kInvalidParam);
}

TEST(KernelsReshape, BadShapesAreRejected) {
  auto x = OwnedTensor::f32({2, 3}, seq(6));
  for (const I& bad : {I{-1, -1}, I{4, 2}, I{-2, 3}, I{4, -1}, I{0, 0, 0}}) {
    auto s = OwnedTensor::i64({static_cast<std::int64_t>(bad.size())}, bad);
    EXPECT_EQ(code_of("Reshape", {}, {x.view(), s.view()}), err::kInvalidParam) << bad.size();
  }
  auto fs = OwnedTensor::f32({1}, {6});
  EXPECT_EQ(code_of("Reshape", {}, {x.view(), fs.view()}), err::kUnsupportedDataType);
  // The shape must be a build-time constant.
  EXPECT_EQ(infer_shapes("Reshape", {}, {{2, 3}, {1}}).status().code(), err::kInvalidParam);
}

TEST(KernelsFlatten, SplitsDimsAtAxis) {
  const Shape x{2, 3, 4};
  auto f = [&](std::int64_t axis) { return infer_shapes("Flatten", {{"axis", axis}}, {x}); };
  EXPECT_EQ(f(0).value()[0], (I{1, 24}));
  EXPECT_EQ(f(2).value()[0], (I{6, 4}));
  EXPECT_EQ(f(-1).value()[0], (I{6, 4}));
  EXPECT_EQ(f(3).value()[0], (I{24, 1}));
  EXPECT_EQ(infer_shapes("Flatten", {}, {x}).value()[0], (I{2, 12}));
  EXPECT_EQ(f(4).status().code(), err::kInvalidParam);
  EXPECT_EQ(f(-4).status().code(), err::kInvalidParam);
  auto t = OwnedTensor::f32(x, seq(24));
  EXPECT_EQ(run("Flatten", {}, {t.view()}).values, seq(24));
}

TEST(KernelsSqueezeUnsqueeze, AxesFromInputOrAttribute) {
  auto x = OwnedTensor::f32({1, 3, 1, 2}, seq(6));
  auto axes = OwnedTensor::i64({2}, {0, -2});
  ShapeOut o = run("Squeeze", {}, {x.view(), axes.view()});
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.dims, (I{3, 2}));
  EXPECT_EQ(o.values, seq(6));
  EXPECT_EQ(run("Squeeze", {}, {x.view()}).dims, (I{3, 2}));                   // all size-1 dims
  EXPECT_EQ(run("Squeeze", {{"axes", I{2}}}, {x.view()}).dims, (I{1, 3, 2}));  // opset 11 attribute
  auto bad = OwnedTensor::i64({1}, {1});
  EXPECT_EQ(code_of("Squeeze", {}, {x.view(), bad.view()}), err::kInvalidParam);  // dim 1 has size 3
  auto dup = OwnedTensor::i64({2}, {0, -4});
  EXPECT_EQ(code_of("Squeeze", {}, {x.view(), dup.view()}), err::kInvalidParam);

  auto y = OwnedTensor::f32({3, 2}, seq(6));
  auto ua = OwnedTensor::i64({2}, {0, 3});
  EXPECT_EQ(run("Unsqueeze", {}, {y.view(), ua.view()}).dims, (I{1, 3, 2, 1}));
  auto neg = OwnedTensor::i64({1}, {-1});
  EXPECT_EQ(run("Unsqueeze", {}, {y.view(), neg.view()}).dims, (I{3, 2, 1}));
  EXPECT_EQ(run("Unsqueeze", {{"axes", I{1}}}, {y.view()}).dims, (I{3, 1, 2}));
  auto twice = OwnedTensor::i64({2}, {1, 1});
  EXPECT_EQ(code_of("Unsqueeze", {}, {y.view(), twice.view()}), err::kInvalidParam);
  auto far = OwnedTensor::i64({1}, {4});
  EXPECT_EQ(code_of("Unsqueeze", {}, {y.view(), far.view()}), err::kInvalidParam);
  EXPECT_EQ(code_of("Unsqueeze", {}, {y.view()}), err::kParseModel);  // axes required
}

// ---------------------------------------------------------------------------

TEST(KernelsTranspose, PermutationMovesElements) {
  // x[a][b][c] = 100a + 10b + c with shape (2, 3, 4); perm (2, 0, 1) → y[c][a][b].
  F xv;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c) xv.push_back(static_cast<float>(100 * a + 10 * b + c));
  auto x = OwnedTensor::f32({2, 3, 4}, xv);
  ShapeOut o = run("Transpose", {{"perm", I{2, 0, 1}}}, {x.view()});
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.dims, (I{4, 2, 3}));
  F want;
  for (int c = 0; c < 4; ++c)
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 3; ++b) want.push_back(static_cast<float>(100 * a + 10 * b + c));
  EXPECT_EQ(o.values, want);
  // Default: reversed dims.
  o = run("Transpose", {}, {x.view()});
  EXPECT_EQ(o.dims, (I{4, 3, 2}));
  EXPECT_EQ(o.values[1], 100.0f);  // y[0][0][1] = x[1][0][0]
}

TEST(KernelsTranspose, InvalidPermutationsAreRejected) {
  EXPECT_EQ(infer_shapes("Transpose", {{"perm", I{0, 0, 1}}}, {{2, 3, 4}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Transpose", {{"perm", I{0, 1, 3}}}, {{2, 3, 4}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Transpose", {{"perm", I{0, -1, 1}}}, {{2, 3, 4}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Transpose", {{"perm", I{1, 0}}}, {{2, 3, 4}}).status().code(), err::kParseModel);
}

// ---------------------------------------------------------------------------

F slice1d(const I& starts, const I& ends, const I& steps) {
  auto x = OwnedTensor::f32({10}, seq(10));
  auto s = OwnedTensor::i64({1}, starts), e = OwnedTensor::i64({1}, ends), st = OwnedTensor::i64({1}, steps);
  auto ax = OwnedTensor::i64({1}, {0});
  ShapeOut o = run("Slice", {}, {x.view(), s.view(), e.view(), ax.view(), st.view()});
  EXPECT_TRUE(o.status.ok()) << o.status.message();
  return o.values;
}

TEST(KernelsSlice, PositiveAndNegativeStepsClampLikeOnnx) {
  const std::int64_t kMax = std::numeric_limits<std::int64_t>::max(), kMin = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(slice1d({2}, {8}, {2}), (F{2, 4, 6}));
  EXPECT_EQ(slice1d({-3}, {kMax}, {1}), (F{7, 8, 9}));                       // start -3 → 7, end clamps to 10
  EXPECT_EQ(slice1d({kMin}, {kMax}, {4}), (F{0, 4, 8}));                     // start clamps to 0
  EXPECT_EQ(slice1d({-1}, {-11}, {-1}), (F{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));  // end -11 → -1: runs through 0
  EXPECT_EQ(slice1d({kMax}, {kMin}, {-3}), (F{9, 6, 3, 0}));                 // start clamps to 9, end to -1
  EXPECT_EQ(slice1d({8}, {2}, {-3}), (F{8, 5}));
  EXPECT_EQ(slice1d({5}, {2}, {1}), (F{}));       // empty
  EXPECT_EQ(slice1d({0}, {10}, {kMax}), (F{0}));  // huge step: first element only
  EXPECT_EQ(slice1d({9}, {kMin}, {kMin}), (F{9}));
}

TEST(KernelsSlice, AxesSelectDimsAndStepsDefaultToOne) {
  // x = 0..11 as (3, 4). axes [-1, 0]: columns 1..3 step 2 → {1, 3}; rows 2 down to 0 step -2 → {2, 0}.
  auto x = OwnedTensor::f32({3, 4}, seq(12));
  auto s = OwnedTensor::i64({2}, {1, 2}), e = OwnedTensor::i64({2}, {4, -4});
  auto ax = OwnedTensor::i64({2}, {-1, 0}), st = OwnedTensor::i64({2}, {2, -2});
  ShapeOut o = run("Slice", {}, {x.view(), s.view(), e.view(), ax.view(), st.view()});
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.dims, (I{2, 2}));
  EXPECT_EQ(o.values, (F{9, 11, 1, 3}));  // rows 2, 0; cols 1, 3
  // Only dim 1, steps absent: columns 1..2.
  auto s1 = OwnedTensor::i64({1}, {1}), e1 = OwnedTensor::i64({1}, {3}), a1 = OwnedTensor::i64({1}, {1});
  o = run("Slice", {}, {x.view(), s1.view(), e1.view(), a1.view()});
  EXPECT_EQ(o.dims, (I{3, 2}));
  EXPECT_EQ(o.values, (F{1, 2, 5, 6, 9, 10}));
  // Axes absent (default view in the middle), steps given.
  auto st1 = OwnedTensor::i64({1}, {2});
  o = run("Slice", {}, {x.view(), s1.view(), e1.view(), TensorView{}, st1.view()});
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.dims, (I{1, 4}));  // rows 1..2 step 2 → row 1
  EXPECT_EQ(o.values, (F{4, 5, 6, 7}));
  // Opset-1 attributes.
  o = run("Slice", {{"starts", I{0, 1}}, {"ends", I{1, 3}}, {"axes", I{0, 1}}}, {x.view()});
  EXPECT_EQ(o.values, (F{1, 2}));
}

TEST(KernelsSlice, ThreeDimensionalMixedStepsMatchIndexFormula) {
  // x[i][j][k] = 100i + 10j + k, shape (4, 5, 6).
  F xv;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 6; ++k) xv.push_back(static_cast<float>(100 * i + 10 * j + k));
  auto x = OwnedTensor::f32({4, 5, 6}, xv);
  auto s = OwnedTensor::i64({3}, {3, 1, -1}), e = OwnedTensor::i64({3}, {-5, 5, 0});
  auto st = OwnedTensor::i64({3}, {-2, 3, -2});
  auto ax = OwnedTensor::i64({3}, {0, 1, 2});
  ShapeOut o = run("Slice", {}, {x.view(), s.view(), e.view(), ax.view(), st.view()});
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  // dim 0: 3, 1 (end -5 → -1); dim 1: 1, 4; dim 2: 5, 3, 1 (end 0 excluded).
  EXPECT_EQ(o.dims, (I{2, 2, 3}));
  F want;
  for (int i : {3, 1})
    for (int j : {1, 4})
      for (int k : {5, 3, 1}) want.push_back(static_cast<float>(100 * i + 10 * j + k));
  EXPECT_EQ(o.values, want);
}

TEST(KernelsSlice, BadParametersAreRejected) {
  auto x = OwnedTensor::f32({3, 4}, seq(12));
  auto one = OwnedTensor::i64({1}, {0}), two = OwnedTensor::i64({2}, {0, 1});
  auto zero_step = OwnedTensor::i64({1}, {0});
  auto ax9 = OwnedTensor::i64({1}, {9});
  auto dup = OwnedTensor::i64({2}, {1, -1});
  EXPECT_EQ(code_of("Slice", {}, {x.view(), one.view(), one.view(), one.view(), zero_step.view()}), err::kInvalidParam);
  EXPECT_EQ(code_of("Slice", {}, {x.view(), one.view(), two.view()}), err::kInvalidParam);
  EXPECT_EQ(code_of("Slice", {}, {x.view(), one.view(), one.view(), ax9.view()}), err::kInvalidParam);
  EXPECT_EQ(code_of("Slice", {}, {x.view(), two.view(), two.view(), dup.view()}), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Slice", {}, {{3, 4}, {1}, {1}}).status().code(), err::kInvalidParam);  // not constant
}

// ---------------------------------------------------------------------------

struct SplitOut {
  Status status;
  std::vector<F> parts;
  std::vector<I> dims;
};

SplitOut split(const Attrs& a, const std::vector<TensorView>& in) {
  auto r = run_reference_owned("Split", a, in);
  SplitOut s{r.status(), {}, {}};
  if (r.ok()) {
    for (const auto& t : r.value()) {
      s.parts.push_back(t.values<float>());
      s.dims.push_back(t.view().dims);
    }
  }
  return s;
}

TEST(KernelsSplit, SizesFromInputAttributeOrEqualParts) {
  auto x = OwnedTensor::f32({6}, seq(6));
  auto sizes = OwnedTensor::i64({3}, {1, 2, 3});
  SplitOut s = split({}, {x.view(), sizes.view()});
  ASSERT_TRUE(s.status.ok()) << s.status.message();
  EXPECT_EQ(s.parts, (std::vector<F>{{0}, {1, 2}, {3, 4, 5}}));
  s = split({{"split", I{4, 2}}}, {x.view()});
  EXPECT_EQ(s.parts, (std::vector<F>{{0, 1, 2, 3}, {4, 5}}));
  s = split({{"num_outputs", std::int64_t{3}}}, {x.view()});
  EXPECT_EQ(s.parts, (std::vector<F>{{0, 1}, {2, 3}, {4, 5}}));
  // Uneven (opset 18): 7 into 4 parts of ceil(7/4) = 2, the last gets 1.
  auto x7 = OwnedTensor::f32({7}, seq(7));
  s = split({{"num_outputs", std::int64_t{4}}}, {x7.view()});
  EXPECT_EQ(s.parts, (std::vector<F>{{0, 1}, {2, 3}, {4, 5}, {6}}));
}

TEST(KernelsSplit, AlongSecondAxis) {
  // x = [[0 1 2 3] [4 5 6 7]], split [1, 3] on axis -1.
  auto x = OwnedTensor::f32({2, 4}, seq(8));
  SplitOut s = split({{"axis", std::int64_t{-1}}, {"split", I{1, 3}}}, {x.view()});
  ASSERT_TRUE(s.status.ok()) << s.status.message();
  EXPECT_EQ(s.dims, (std::vector<I>{{2, 1}, {2, 3}}));
  EXPECT_EQ(s.parts, (std::vector<F>{{0, 4}, {1, 2, 3, 5, 6, 7}}));
}

TEST(KernelsSplit, RunWithoutSizesSplitsIntoTheGivenOutputs) {
  auto x = OwnedTensor::f32({4}, seq(4));
  OwnedTensor a(DType::kFloat32, {2}), b(DType::kFloat32, {2});
  ASSERT_TRUE(run_reference("Split", {}, {x.view()}, {a.view(), b.view()}).ok());
  EXPECT_EQ(b.values<float>(), (F{2, 3}));
  EXPECT_EQ(infer_shapes("Split", {}, {{4}}).status().code(), err::kParseModel);  // count unknown at build time
}

TEST(KernelsSplit, BadSizesAreRejected) {
  EXPECT_EQ(infer_shapes("Split", {{"split", I{1, 2}}}, {{4}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Split", {{"split", I{5, -1}}}, {{4}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Split", {{"axis", std::int64_t{1}}, {"split", I{4}}}, {{4}}).status().code(),
            err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Split", {{"num_outputs", std::int64_t{4}}}, {{5}}).status().code(), err::kInvalidParam);
}

// ---------------------------------------------------------------------------

TEST(KernelsPad, ConstantModeWithValueInput) {
  // [[1 2] [3 4]], pads: begin (rows 1, cols 0), end (rows 0, cols 1), value 9:
  // [[9 9 9] [1 2 9] [3 4 9]]
  auto x = OwnedTensor::f32({2, 2}, {1, 2, 3, 4});
  auto pads = OwnedTensor::i64({4}, {1, 0, 0, 1});
  auto v = OwnedTensor::f32({}, {9});
  ShapeOut o = run("Pad", {}, {x.view(), pads.view(), v.view()});
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.dims, (I{3, 3}));
  EXPECT_EQ(o.values, (F{9, 9, 9, 1, 2, 9, 3, 4, 9}));
  o = run("Pad", {}, {x.view(), pads.view()});  // default value 0
  EXPECT_EQ(o.values, (F{0, 0, 0, 1, 2, 0, 3, 4, 0}));
  o = run("Pad", {{"pads", I{1, 0, 0, 1}}, {"value", 7.0}}, {x.view()});  // opset 2 attributes
  EXPECT_EQ(o.values, (F{7, 7, 7, 1, 2, 7, 3, 4, 7}));
}

TEST(KernelsPad, ReflectAndEdgeModes) {
  auto x = OwnedTensor::f32({4}, {1, 2, 3, 4});
  auto p = OwnedTensor::i64({2}, {2, 3});
  // reflect (mirror without repeating the edge): [3 2 | 1 2 3 4 | 3 2 1]
  EXPECT_EQ(run("Pad", {{"mode", std::string("reflect")}}, {x.view(), p.view()}).values,
            (F{3, 2, 1, 2, 3, 4, 3, 2, 1}));
  // edge: [1 1 | 1 2 3 4 | 4 4 4]
  EXPECT_EQ(run("Pad", {{"mode", std::string("edge")}}, {x.view(), p.view()}).values, (F{1, 1, 1, 2, 3, 4, 4, 4, 4}));
  // 2-D reflect on both dims: x = [[1 2] [3 4]], pads 1 everywhere →
  // rows (reflect) [3 4], [1 2], [3 4], [1 2]; each row reflected: [b a b a].
  auto x2 = OwnedTensor::f32({2, 2}, {1, 2, 3, 4});
  auto p2 = OwnedTensor::i64({4}, {1, 1, 1, 1});
  EXPECT_EQ(run("Pad", {{"mode", std::string("reflect")}}, {x2.view(), p2.view()}).values,
            (F{4, 3, 4, 3, 2, 1, 2, 1, 4, 3, 4, 3, 2, 1, 2, 1}));
}

TEST(KernelsPad, NegativePadsCropAndAxesSelectDims) {
  auto x = OwnedTensor::f32({4}, {1, 2, 3, 4});
  auto p = OwnedTensor::i64({2}, {-1, 1});  // drop the first element, add one 0 at the end
  EXPECT_EQ(run("Pad", {}, {x.view(), p.view()}).values, (F{2, 3, 4, 0}));
  // Opset 18 axes: pad only axis -1 of (2, 2) by (0, 2) with value 5.
  auto x2 = OwnedTensor::f32({2, 2}, {1, 2, 3, 4});
  auto p2 = OwnedTensor::i64({2}, {0, 2});
  auto v = OwnedTensor::f32({}, {5});
  auto axes = OwnedTensor::i64({1}, {-1});
  ShapeOut o = run("Pad", {}, {x2.view(), p2.view(), v.view(), axes.view()});
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.dims, (I{2, 4}));
  EXPECT_EQ(o.values, (F{1, 2, 5, 5, 3, 4, 5, 5}));
}

TEST(KernelsPad, BadModesAndPadsAreRejected) {
  auto x = OwnedTensor::f32({4}, {1, 2, 3, 4});
  auto p = OwnedTensor::i64({2}, {1, 1});
  EXPECT_EQ(code_of("Pad", {{"mode", std::string("wrap")}}, {x.view(), p.view()}), err::kInvalidParam);
  EXPECT_EQ(code_of("Pad", {{"mode", std::string("mirror")}}, {x.view(), p.view()}), err::kParseModel);
  auto p3 = OwnedTensor::i64({3}, {1, 1, 1});
  EXPECT_EQ(code_of("Pad", {}, {x.view(), p3.view()}), err::kInvalidParam);
  auto crop = OwnedTensor::i64({2}, {-3, -2});
  EXPECT_EQ(code_of("Pad", {}, {x.view(), crop.view()}), err::kInvalidParam);
  auto e = OwnedTensor::f32({0}, {});
  EXPECT_EQ(code_of("Pad", {{"mode", std::string("edge")}}, {e.view(), p.view()}), err::kInvalidParam);
  EXPECT_EQ(code_of("Pad", {}, {x.view()}), err::kParseModel);  // no pads at all
  auto huge = OwnedTensor::i64({2}, {std::numeric_limits<std::int64_t>::max(), 0});
  EXPECT_EQ(code_of("Pad", {}, {x.view(), huge.view()}), err::kInvalidParam);
}

}  // namespace
}  // namespace svp::kernels
