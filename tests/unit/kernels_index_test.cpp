// Index and selection reference kernels (Gather*, Scatter*, Expand, Tile, OneHot, TopK,
// Trilu, CumSum, DepthToSpace/SpaceToDepth, EyeLike, Where, Dropout): hand-computed values
// on small tensors, and the errors for bad indices, attributes and types.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/invoke.h"
#include "kernels/kernels.h"

namespace svp::kernels {
namespace {

using model::DType;
using I = std::vector<std::int64_t>;
using F = std::vector<float>;

// Runs `op` with float32 outputs (or `specs`), expects success, returns output `k`.
OwnedTensor run_ok(const char* op, const Attrs& a, const std::vector<TensorView>& in,
                   const std::vector<OutputSpec>& specs = {}, std::size_t k = 0) {
  auto r = run_reference_owned(op, a, in, specs);
  EXPECT_TRUE(r.ok()) << op << ": " << r.status().message();
  if (!r.ok() || r.value().size() <= k) return OwnedTensor();
  return std::move(r.value()[k]);
}

Status run_status(const char* op, const Attrs& a, const std::vector<TensorView>& in,
                  const std::vector<OutputSpec>& specs = {}) {
  return run_reference_owned(op, a, in, specs).status();
}

TEST(KernelsGather, SelectsAlongTheAxisWithNegativeIndices) {
  auto x = OwnedTensor::f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto idx = OwnedTensor::i64({2, 2}, {0, -1, 2, 1});
  const OwnedTensor y = run_ok("Gather", {{"axis", std::int64_t{1}}}, {x.view(), idx.view()});
  EXPECT_EQ(y.view().dims, (I{2, 2, 2}));
  EXPECT_EQ(y.values<float>(), (F{1, 3, 3, 2, 4, 6, 6, 5}));
  auto bad = OwnedTensor::i64({1}, {3});
  const Status s = run_status("Gather", {{"axis", std::int64_t{1}}}, {x.view(), bad.view()});
  EXPECT_EQ(s.code(), err::kInvalidParam);
  EXPECT_NE(s.message().find("index 3 is out of range"), std::string::npos) << s.message();
}

TEST(KernelsGatherElements, ReplacesTheAxisCoordinate) {
  // data [[1 2] [3 4]], indices [[0 0] [1 0]] along axis 1: [[1 1] [4 3]].
  auto x = OwnedTensor::f32({2, 2}, {1, 2, 3, 4});
  auto idx = OwnedTensor::i64({2, 2}, {0, 0, 1, 0});
  EXPECT_EQ(run_ok("GatherElements", {{"axis", std::int64_t{1}}}, {x.view(), idx.view()}).values<float>(),
            (F{1, 1, 4, 3}));
}

TEST(KernelsGatherND, BatchDimsIndexEachBatchSeparately) {
  // data (2, 2, 2) = 0..7, indices (2, 1) = [[1], [0]] with batch_dims 1: data[0][1], data[1][0].
  auto x = OwnedTensor::f32({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto idx = OwnedTensor::i64({2, 1}, {1, 0});
  const OwnedTensor y = run_ok("GatherND", {{"batch_dims", std::int64_t{1}}}, {x.view(), idx.view()});
  EXPECT_EQ(y.view().dims, (I{2, 2}));
  EXPECT_EQ(y.values<float>(), (F{2, 3, 4, 5}));
  // A 4-tuple cannot index rank-3 data.
  EXPECT_EQ(infer_shapes("GatherND", {}, {{2, 2, 2}, {1, 4}}).status().code(), err::kInvalidParam);
}

TEST(KernelsScatter, ElementsAndNdWithReductions) {
  auto x = OwnedTensor::f32({1, 4}, {1, 2, 3, 4});
  auto idx = OwnedTensor::i64({1, 2}, {1, 1});
  auto upd = OwnedTensor::f32({1, 2}, {10, 20});
  EXPECT_EQ(run_ok("ScatterElements", {{"axis", std::int64_t{1}}, {"reduction", std::string("add")}},
                   {x.view(), idx.view(), upd.view()})
                .values<float>(),
            (F{1, 32, 3, 4}));
  // Without a reduction the later update wins.
  EXPECT_EQ(run_ok("ScatterElements", {{"axis", std::int64_t{1}}}, {x.view(), idx.view(), upd.view()}).values<float>(),
            (F{1, 20, 3, 4}));
  EXPECT_EQ(run_status("ScatterElements", {{"reduction", std::string("avg")}}, {x.view(), idx.view(), upd.view()})
                .code(),
            err::kParseModel);
  // ScatterND: rows of a (3, 2) tensor.
  auto d = OwnedTensor::f32({3, 2}, {0, 0, 0, 0, 0, 0});
  auto rows = OwnedTensor::i64({2, 1}, {2, 0});
  auto vals = OwnedTensor::f32({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(run_ok("ScatterND", {}, {d.view(), rows.view(), vals.view()}).values<float>(), (F{3, 4, 0, 0, 1, 2}));
}

TEST(KernelsExpandTile, BroadcastAndRepeat) {
  auto x = OwnedTensor::from<std::int32_t>(DType::kInt32, {2, 1}, {1, 2});
  auto shape = OwnedTensor::i64({2}, {1, 3});
  const OwnedTensor e = run_ok("Expand", {}, {x.view(), shape.view()}, {{DType::kInt32, {}}});
  EXPECT_EQ(e.view().dims, (I{2, 3}));
  EXPECT_EQ(e.values<std::int32_t>(), (std::vector<std::int32_t>{1, 1, 1, 2, 2, 2}));
  auto rep = OwnedTensor::i64({2}, {2, 2});
  const OwnedTensor t = run_ok("Tile", {}, {x.view(), rep.view()}, {{DType::kInt32, {}}});
  EXPECT_EQ(t.view().dims, (I{4, 2}));
  EXPECT_EQ(t.values<std::int32_t>(), (std::vector<std::int32_t>{1, 1, 2, 2, 1, 1, 2, 2}));
  auto neg = OwnedTensor::i64({2}, {1, -1});
  EXPECT_EQ(run_status("Tile", {}, {x.view(), neg.view()}, {{DType::kInt32, {}}}).code(), err::kInvalidParam);
}

TEST(KernelsOneHot, NegativeIndicesCountFromDepthAndOutOfRangeIsAllOff) {
  auto idx = OwnedTensor::i64({3}, {0, -1, 5});
  auto depth = OwnedTensor::f32({1}, {3});
  auto values = OwnedTensor::f32({2}, {-1, 7});
  const OwnedTensor y = run_ok("OneHot", {{"axis", std::int64_t{0}}}, {idx.view(), depth.view(), values.view()});
  EXPECT_EQ(y.view().dims, (I{3, 3}));
  // axis 0: y[k][i] = on when idx[i] == k.
  EXPECT_EQ(y.values<float>(), (F{7, -1, -1, -1, -1, -1, -1, 7, -1}));
  auto zero = OwnedTensor::f32({1}, {0});
  EXPECT_EQ(run_status("OneHot", {}, {idx.view(), zero.view(), values.view()}).code(), err::kInvalidParam);
}

TEST(KernelsTopK, LargestOrSmallestWithTiesInIndexOrder) {
  auto x = OwnedTensor::f32({1, 5}, {3, 1, 3, 5, 1});
  auto k = OwnedTensor::i64({1}, {3});
  auto r = run_reference_owned("TopK", {}, {x.view(), k.view()}, {{DType::kFloat32, {}}, {DType::kInt64, {}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<float>(), (F{5, 3, 3}));
  EXPECT_EQ(r.value()[1].values<std::int64_t>(), (I{3, 0, 2}));
  r = run_reference_owned("TopK", {{"largest", std::int64_t{0}}}, {x.view(), k.view()},
                          {{DType::kFloat32, {}}, {DType::kInt64, {}}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()[1].values<std::int64_t>(), (I{1, 4, 0}));
  auto big = OwnedTensor::i64({1}, {6});
  EXPECT_EQ(run_status("TopK", {}, {x.view(), big.view()}, {{DType::kFloat32, {}}, {DType::kInt64, {}}}).code(),
            err::kInvalidParam);
}

TEST(KernelsTrilu, KeepsTheUpperOrLowerTriangleFromDiagonalK) {
  auto x = OwnedTensor::i64({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_EQ(run_ok("Trilu", {}, {x.view()}, {{DType::kInt64, {}}}).values<std::int64_t>(),
            (I{1, 2, 3, 0, 5, 6, 0, 0, 9}));
  auto k = OwnedTensor::i64({1}, {-1});
  EXPECT_EQ(run_ok("Trilu", {{"upper", std::int64_t{0}}}, {x.view(), k.view()}, {{DType::kInt64, {}}})
                .values<std::int64_t>(),
            (I{0, 0, 0, 4, 0, 0, 7, 8, 0}));
  EXPECT_EQ(infer_shapes("Trilu", {}, {{3}}).status().code(), err::kInvalidParam);
}

TEST(KernelsCumSum, ExclusiveAndReverse) {
  auto x = OwnedTensor::from<double>(DType::kFloat64, {4}, {1, 2, 3, 4});
  auto axis = OwnedTensor::from<std::int32_t>(DType::kInt32, {}, {0});
  auto sum = [&](const Attrs& a) {
    return run_ok("CumSum", a, {x.view(), axis.view()}, {{DType::kFloat64, {}}}).values<double>();
  };
  EXPECT_EQ(sum({}), (std::vector<double>{1, 3, 6, 10}));
  EXPECT_EQ(sum({{"exclusive", std::int64_t{1}}}), (std::vector<double>{0, 1, 3, 6}));
  EXPECT_EQ(sum({{"reverse", std::int64_t{1}}}), (std::vector<double>{10, 9, 7, 4}));
  EXPECT_EQ(sum({{"reverse", std::int64_t{1}}, {"exclusive", std::int64_t{1}}}), (std::vector<double>{9, 7, 4, 0}));
  auto bad_axis = OwnedTensor::from<std::int32_t>(DType::kInt32, {}, {1});
  EXPECT_EQ(run_status("CumSum", {}, {x.view(), bad_axis.view()}, {{DType::kFloat64, {}}}).code(),
            err::kInvalidParam);
}

TEST(KernelsDepthToSpace, DcrAndCrdOrdersAndTheInverse) {
  // x (1, 4, 1, 1) = [0 1 2 3], blocksize 2: DCR puts channel (i*2 + j) at (i, j);
  // CRD puts channel (c*4 + i*2 + j) there: both give [[0 1] [2 3]] for one output channel.
  auto x = OwnedTensor::f32({1, 4, 1, 1}, {0, 1, 2, 3});
  const OwnedTensor dcr = run_ok("DepthToSpace", {{"blocksize", std::int64_t{2}}}, {x.view()});
  EXPECT_EQ(dcr.view().dims, (I{1, 1, 2, 2}));
  EXPECT_EQ(dcr.values<float>(), (F{0, 1, 2, 3}));
  // (1, 8, 1, 1) with two output channels: DCR takes channels {0, 2, 4, 6} for output
  // channel 0, CRD takes {0, 1, 2, 3}.
  auto x8 = OwnedTensor::f32({1, 8, 1, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(run_ok("DepthToSpace", {{"blocksize", std::int64_t{2}}}, {x8.view()}).values<float>(),
            (F{0, 2, 4, 6, 1, 3, 5, 7}));
  EXPECT_EQ(run_ok("DepthToSpace", {{"blocksize", std::int64_t{2}}, {"mode", std::string("CRD")}}, {x8.view()})
                .values<float>(),
            (F{0, 1, 2, 3, 4, 5, 6, 7}));
  const OwnedTensor back = run_ok("SpaceToDepth", {{"blocksize", std::int64_t{2}}}, {dcr.view()});
  EXPECT_EQ(back.view().dims, (I{1, 4, 1, 1}));
  EXPECT_EQ(back.values<float>(), (F{0, 1, 2, 3}));
  EXPECT_EQ(infer_shapes("DepthToSpace", {{"blocksize", std::int64_t{3}}}, {{1, 4, 1, 1}}).status().code(),
            err::kInvalidParam);
  EXPECT_EQ(infer_shapes("DepthToSpace", {}, {{1, 4, 1, 1}}).status().code(), err::kParseModel);
}

TEST(KernelsEyeLikeWhereDropout, HandValues) {
  OwnedTensor shape_only(DType::kInt32, {2, 3});
  EXPECT_EQ(run_ok("EyeLike", {{"k", std::int64_t{1}}}, {shape_only.view()}).values<float>(), (F{0, 1, 0, 0, 0, 1}));
  auto cond = OwnedTensor::from<std::uint8_t>(DType::kBool, {2, 1}, {1, 0});
  auto a = OwnedTensor::f32({2}, {1, 2});
  auto b = OwnedTensor::f32({1}, {9});
  EXPECT_EQ(run_ok("Where", {}, {cond.view(), a.view(), b.view()}).values<float>(), (F{1, 2, 9, 9}));
  EXPECT_EQ(run_status("Where", {}, {a.view(), a.view(), b.view()}).code(), err::kUnsupportedDataType);
  auto r = run_reference_owned("Dropout", {}, {a.view()}, {{DType::kFloat32, {}}, {DType::kBool, {}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<float>(), (F{1, 2}));
  EXPECT_EQ(r.value()[1].values<std::uint8_t>(), (std::vector<std::uint8_t>{1, 1}));
  auto ratio = OwnedTensor::f32({}, {0.5f});
  auto training = OwnedTensor::from<std::uint8_t>(DType::kBool, {}, {1});
  const Status s = run_status("Dropout", {}, {a.view(), ratio.view(), training.view()});
  EXPECT_EQ(s.code(), err::kInvalidParam);
  EXPECT_NE(s.message().find("training"), std::string::npos) << s.message();
  const OwnedTensor n = run_ok("Size", {}, {shape_only.view()}, {{DType::kInt64, {}}});
  EXPECT_EQ(n.view().dims, (I{}));
  EXPECT_EQ(n.values<std::int64_t>(), (I{6}));
}

TEST(KernelsConstantOfShapeRange, ValuesFromAttributesAndScalars) {
  auto shape = OwnedTensor::i64({2}, {2, 1});
  const OwnedTensor c = run_ok("ConstantOfShape", {{"value", 3.0}}, {shape.view()}, {{DType::kInt32, {}}});
  EXPECT_EQ(c.view().dims, (I{2, 1}));
  EXPECT_EQ(c.values<std::int32_t>(), (std::vector<std::int32_t>{3, 3}));
  auto start = OwnedTensor::f32({}, {1}), limit = OwnedTensor::f32({}, {2}), delta = OwnedTensor::f32({}, {0.25f});
  EXPECT_EQ(run_ok("Range", {}, {start.view(), limit.view(), delta.view()}).values<float>(), (F{1, 1.25f, 1.5f, 1.75f}));
  auto down = OwnedTensor::f32({}, {-1});
  EXPECT_EQ(run_ok("Range", {}, {start.view(), limit.view(), down.view()}).view().dims, (I{0}));
  auto zero = OwnedTensor::f32({}, {0});
  EXPECT_EQ(run_status("Range", {}, {start.view(), limit.view(), zero.view()}).code(), err::kInvalidParam);
}

TEST(KernelsReverseSequence, ReversesEachBatchUpToItsLength) {
  // time_axis 0, batch_axis 1: x (3, 2) columns are sequences [1 2 3] and [4 5 6].
  auto x = OwnedTensor::f32({3, 2}, {1, 4, 2, 5, 3, 6});
  auto lens = OwnedTensor::i64({2}, {3, 2});
  EXPECT_EQ(run_ok("ReverseSequence", {}, {x.view(), lens.view()}).values<float>(), (F{3, 5, 2, 4, 1, 6}));
  auto bad = OwnedTensor::i64({2}, {4, 0});
  EXPECT_EQ(run_status("ReverseSequence", {}, {x.view(), bad.view()}).code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("ReverseSequence", {{"batch_axis", std::int64_t{0}}}, {{3, 2}, {2}}).status().code(),
            err::kInvalidParam);
}

}  // namespace
}  // namespace svp::kernels
