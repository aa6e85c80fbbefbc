// MatMul and Gemm reference kernels (float32).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>
#include <string>

#include "kernels/invoke.h"
#include "kernels/kernels.h"
#include "model/tensor.h"

namespace svp::kernels {
namespace {

using model::DType;
using I = std::vector<std::int64_t>;
using F = std::vector<float>;

F seq(std::size_t n, float start, float step) {
  F v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = start + step * static_cast<float>(i);
  return v;
}

std::int64_t elements(const I& d) {
  std::int64_t n = 1;
  for (auto v : d) n *= v;
  return n;
}

Result<std::vector<OwnedTensor>> run(const char* op, const Attrs& a, const std::vector<const OwnedTensor*>& in) {
  std::vector<TensorView> v;
  for (const OwnedTensor* t : in) v.push_back(t->view());
  return run_reference_owned(op, a, v);
}

TEST(KernelsMatMul, TwoByThreeTimesThreeByTwoHandComputed) {
  // [1 2 3; 4 5 6] * [7 8; 9 10; 11 12] = [1*7+2*9+3*11, 1*8+2*10+3*12; ...] = [58 64; 139 154]
  auto a = OwnedTensor::f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto b = OwnedTensor::f32({3, 2}, {7, 8, 9, 10, 11, 12});
  auto r = run("MatMul", {}, {&a, &b});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].view().dims, (I{2, 2}));
  EXPECT_EQ(r.value()[0].values<float>(), (F{58, 64, 139, 154}));
}

TEST(KernelsMatMul, OneDimensionalOperandsArePromotedAndDropped) {
  auto v = OwnedTensor::f32({3}, {1, 2, 3});
  auto w = OwnedTensor::f32({3}, {4, 5, 6});
  auto m = OwnedTensor::f32({3, 2}, {1, 0, 0, 1, 1, 1});
  auto r = run("MatMul", {}, {&v, &w});  // dot product 4 + 10 + 18 = 32, shape []
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].view().dims, I{});
  EXPECT_EQ(r.value()[0].values<float>(), (F{32}));
  r = run("MatMul", {}, {&v, &m});  // [1 2 3] * m = [1+3, 2+3] = [4 5], shape [2]
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()[0].view().dims, (I{2}));
  EXPECT_EQ(r.value()[0].values<float>(), (F{4, 5}));
  auto mt = OwnedTensor::f32({2, 3}, {1, 0, 1, 0, 1, 1});
  r = run("MatMul", {}, {&mt, &v});  // [1+3, 2+3] = [4 5], shape [2]
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()[0].view().dims, (I{2}));
  EXPECT_EQ(r.value()[0].values<float>(), (F{4, 5}));
}

// Naive batched matmul with broadcast batch dims (right-aligned, size-1 dims repeat).
void check_batched(const I& da, const I& db, const I& want) {
  const F av = seq(static_cast<std::size_t>(elements(da)), -1.0f, 0.125f);
  const F bv = seq(static_cast<std::size_t>(elements(db)), 0.5f, -0.0625f);
  auto a = OwnedTensor::f32(da, av), b = OwnedTensor::f32(db, bv);
  auto r = run("MatMul", {}, {&a, &b});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r.value()[0].view().dims, want);
  const F y = r.value()[0].values<float>();
  const std::int64_t M = da[da.size() - 2], K = da.back(), N = db.back();
  const I batch(want.begin(), want.end() - 2);
  const I ba(da.begin(), da.end() - 2), bb(db.begin(), db.end() - 2);
  const std::int64_t nb = elements(batch);
  for (std::int64_t bi = 0; bi < nb; ++bi) {
    // Batch offsets of A and B: walk the batch dims from the right.
    std::int64_t rem = bi, oa = 0, ob = 0, ma = 1, mb = 1;
    for (std::size_t k = batch.size(); k-- > 0;) {
      const std::int64_t coord = rem % batch[k];
      rem /= batch[k];
      const std::size_t from_right = batch.size() - 1 - k;
      if (from_right < ba.size()) {
        const std::int64_t d = ba[ba.size() - 1 - from_right];
        oa += (d == 1 ? 0 : coord) * ma;
        ma *= d;
      }
      if (from_right < bb.size()) {
        const std::int64_t d = bb[bb.size() - 1 - from_right];
        ob += (d == 1 ? 0 : coord) * mb;
        mb *= d;
      }
    }
    for (std::int64_t m = 0; m < M; ++m) {
      for (std::int64_t n = 0; n < N; ++n) {
        double s = 0;
        for (std::int64_t k = 0; k < K; ++k) {
          s += static_cast<double>(av[static_cast<std::size_t>(oa * M * K + m * K + k)]) *
               bv[static_cast<std::size_t>(ob * K * N + k * N + n)];
        }
        EXPECT_NEAR(y[static_cast<std::size_t>((bi * M + m) * N + n)], s, 1e-5);
      }
    }
  }
}

TEST(KernelsMatMul, BatchDimsBroadcast) {
  check_batched({2, 1, 3, 4}, {5, 4, 2}, {2, 5, 3, 2});
  check_batched({3, 4}, {2, 4, 5}, {2, 3, 5});
  check_batched({2, 3, 4}, {4, 5}, {2, 3, 5});
  check_batched({3, 2, 3}, {3, 3, 2}, {3, 2, 2});
}

TEST(KernelsMatMul, MismatchedShapesAreRejected) {
  EXPECT_EQ(infer_shapes("MatMul", {}, {{2, 3}, {2, 3}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("MatMul", {}, {{2, 2, 3}, {3, 3, 4}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("MatMul", {}, {{}, {3}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("MatMul", {}, {{4}, {3}}).status().code(), err::kInvalidParam);
}

TEST(KernelsGemm, AlphaBetaAndBroadcastCHandComputed) {
  // A = [1 2; 3 4], B = [5 6; 7 8]: AB = [19 22; 43 50]; alpha 2, beta 0.5, C = [10 20]:
  // Y = [38+5 44+10; 86+5 100+10] = [43 54; 91 110].
  auto a = OwnedTensor::f32({2, 2}, {1, 2, 3, 4});
  auto b = OwnedTensor::f32({2, 2}, {5, 6, 7, 8});
  auto c = OwnedTensor::f32({2}, {10, 20});
  auto r = run("Gemm", {{"alpha", 2.0}, {"beta", 0.5}}, {&a, &b, &c});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value()[0].values<float>(), (F{43, 54, 91, 110}));
}

TEST(KernelsGemm, TransposeFlagsAndCShapesMatchNaiveFormula) {
  const std::int64_t M = 3, K = 4, N = 5;
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      const F av = seq(static_cast<std::size_t>(M * K), -1, 0.25f),
              bv = seq(static_cast<std::size_t>(K * N), 2, -0.125f);
      auto a = OwnedTensor::f32(ta ? I{K, M} : I{M, K}, av);
      auto b = OwnedTensor::f32(tb ? I{N, K} : I{K, N}, bv);
      for (const I& cd : {I{}, I{N}, I{M, 1}, I{1, N}, I{M, N}}) {
        const F cv = seq(static_cast<std::size_t>(elements(cd)), 0.5f, 1.0f);
        auto c = OwnedTensor::f32(cd, cv);
        auto r =
            run("Gemm", {{"transA", std::int64_t{ta}}, {"transB", std::int64_t{tb}}, {"alpha", 0.5}}, {&a, &b, &c});
        ASSERT_TRUE(r.ok()) << r.status().message();
        ASSERT_EQ(r.value()[0].view().dims, (I{M, N}));
        const F y = r.value()[0].values<float>();
        for (std::int64_t m = 0; m < M; ++m) {
          for (std::int64_t n = 0; n < N; ++n) {
            double s = 0;
            for (std::int64_t k = 0; k < K; ++k) {
              const float x1 = ta ? av[static_cast<std::size_t>(k * M + m)] : av[static_cast<std::size_t>(m * K + k)];
              const float x2 = tb ? bv[static_cast<std::size_t>(n * K + k)] : bv[static_cast<std::size_t>(k * N + n)];
              s += static_cast<double>(x1) * x2;
            }
            // C element: scalar, per column, per row or full.
            const std::size_t ci = cd.empty()       ? 0
                                   : cd.size() == 1 ? static_cast<std::size_t>(n)
                                   : cd[0] == 1     ? static_cast<std::size_t>(n)
                                   : cd[1] == 1     ? static_cast<std::size_t>(m)
                                                    : static_cast<std::size_t>(m * N + n);
            EXPECT_NEAR(y[static_cast<std::size_t>(m * N + n)], 0.5 * s + cv[ci], 1e-5)
                << "transA " << ta << " transB " << tb << " C rank " << cd.size();
          }
        }
      }
    }
  }
}

TEST(KernelsGemm, WithoutCIsPlainProduct) {
  auto a = OwnedTensor::f32({1, 2}, {1, 2});
  auto b = OwnedTensor::f32({2, 1}, {3, 4});
  auto r = run("Gemm", {}, {&a, &b});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()[0].values<float>(), (F{11}));
}

TEST(KernelsGemm, BadShapesAndFlagsAreRejected) {
  EXPECT_EQ(infer_shapes("Gemm", {}, {{2, 3}, {2, 3}}).status().code(), err::kInvalidParam);
  EXPECT_TRUE(infer_shapes("Gemm", {{"transB", std::int64_t{1}}}, {{2, 3}, {4, 3}}).ok());
  EXPECT_EQ(infer_shapes("Gemm", {}, {{2, 3, 1}, {3, 4}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Gemm", {}, {{2, 3}, {3, 4}, {4, 2}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Gemm", {}, {{2, 3}, {3, 4}, {1, 2, 4}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Gemm", {{"transA", std::int64_t{2}}}, {{2, 3}, {3, 4}}).status().code(), err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Gemm", {{"alpha", std::string("1")}}, {{2, 3}, {3, 4}}).status().code(), err::kParseModel);
}

TEST(KernelsEinsum, ContractionsDiagonalsAndImplicitOutput) {
  auto a = OwnedTensor::f32({2, 2}, {1, 2, 3, 4});
  auto b = OwnedTensor::f32({2, 2}, {5, 6, 7, 8});
  auto mm = run_reference_owned("Einsum", {{"equation", std::string("ij,jk->ik")}}, {a.view(), b.view()});
  ASSERT_TRUE(mm.ok()) << mm.status().message();
  EXPECT_EQ((*mm)[0].values<float>(), (std::vector<float>{19, 22, 43, 50}));
  auto tr = run_reference_owned("Einsum", {{"equation", std::string("ij")}}, {a.view()});  // implicit: ij
  ASSERT_TRUE(tr.ok());
  EXPECT_EQ((*tr)[0].values<float>(), (std::vector<float>{1, 2, 3, 4}));
  auto t2 = run_reference_owned("Einsum", {{"equation", std::string("ji")}}, {a.view()});  // implicit: ij = transpose
  ASSERT_TRUE(t2.ok());
  EXPECT_EQ((*t2)[0].values<float>(), (std::vector<float>{1, 3, 2, 4}));
  auto diag = run_reference_owned("Einsum", {{"equation", std::string("...ii->...i")}}, {a.view()});
  ASSERT_TRUE(diag.ok()) << diag.status().message();
  EXPECT_EQ((*diag)[0].values<float>(), (std::vector<float>{1, 4}));
  auto dot = run_reference_owned("Einsum", {{"equation", std::string("i j , i j")}}, {a.view(), b.view()});
  ASSERT_TRUE(dot.ok());
  EXPECT_EQ((*dot)[0].view().dims, (std::vector<std::int64_t>{}));
  EXPECT_EQ((*dot)[0].values<float>(), (std::vector<float>{70}));
  EXPECT_EQ(infer_shapes("Einsum", {{"equation", std::string("ij,jk->ik")}}, {{2, 3}, {2, 2}}).status().code(),
            err::kInvalidParam);
  EXPECT_EQ(infer_shapes("Einsum", {{"equation", std::string("ij->k")}}, {{2, 3}}).status().code(), err::kInvalidParam);
}

TEST(KernelsMatMulInteger, ZeroPointsAreSubtractedExactly) {
  auto a = OwnedTensor::from<std::uint8_t>(DType::kUint8, {2, 2}, {1, 2, 3, 4});
  auto b = OwnedTensor::from<std::uint8_t>(DType::kUint8, {2, 1}, {5, 6});
  auto azp = OwnedTensor::from<std::uint8_t>(DType::kUint8, {}, {1});
  auto r = run_reference_owned("MatMulInteger", {}, {a.view(), b.view(), azp.view()}, {{DType::kInt32, {}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].values<std::int32_t>(), (std::vector<std::int32_t>{6, 28}));  // (A - 1) @ B
  EXPECT_EQ(run_reference_owned("MatMulInteger", {}, {a.view(), b.view()}).status().code(), err::kUnsupportedDataType);
}

TEST(KernelsQLinearMatMul, RequantizesTheProduct) {
  // a = 0.5 * [2 4] = [1 2], b = 0.5 * [2 2]' = [1 1]': a @ b = 3 → 3 / 0.25 + 10 = 22.
  auto a = OwnedTensor::from<std::uint8_t>(DType::kUint8, {1, 2}, {2, 4});
  auto b = OwnedTensor::from<std::uint8_t>(DType::kUint8, {2, 1}, {2, 2});
  auto half = OwnedTensor::f32({}, {0.5f});
  auto quarter = OwnedTensor::f32({}, {0.25f});
  auto zero = OwnedTensor::from<std::uint8_t>(DType::kUint8, {}, {0});
  auto ten = OwnedTensor::from<std::uint8_t>(DType::kUint8, {}, {10});
  auto r = run_reference_owned(
      "QLinearMatMul", {},
      {a.view(), half.view(), zero.view(), b.view(), half.view(), zero.view(), quarter.view(), ten.view()},
      {{DType::kUint8, {}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].values<std::uint8_t>(), (std::vector<std::uint8_t>{22}));
  auto i8zero = OwnedTensor::from<std::int8_t>(DType::kInt8, {}, {0});
  EXPECT_EQ(run_reference_owned(
                "QLinearMatMul", {},
                {a.view(), half.view(), i8zero.view(), b.view(), half.view(), zero.view(), quarter.view(), ten.view()},
                {{DType::kUint8, {}}})
                .status()
                .code(),
            err::kUnsupportedDataType);  // zero point of another type than its data
}

TEST(KernelsDet, DeterminantsOfTrailingMatricesWithPivoting) {
  // det [[1 2] [3 4]] = -2; det [[0 1] [1 0]] = -1 (needs a row swap).
  auto x = OwnedTensor::f32({2, 2, 2}, {1, 2, 3, 4, 0, 1, 1, 0});
  auto r = run_reference_owned("Det", {}, {x.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].view().dims, (I{2}));
  const auto v = (*r)[0].values<float>();
  EXPECT_NEAR(v[0], -2, 1e-6);
  EXPECT_NEAR(v[1], -1, 1e-6);
  EXPECT_EQ(infer_shapes("Det", {}, {{2, 3}}).status().code(), err::kInvalidParam);
}

TEST(KernelsDft, RealSignalForwardOnesidedAndInverse) {
  // [1 2 3 4] (real, axis 1 of [1, 4, 1]): X0 = 10, X1 = -2 + 2i, X2 = -2, X3 = -2 - 2i.
  auto x = OwnedTensor::f32({1, 4, 1}, {1, 2, 3, 4});
  auto r = run_reference_owned("DFT", {}, {x.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].view().dims, (I{1, 4, 2}));
  const std::vector<float> want{10, 0, -2, 2, -2, 0, -2, -2};
  const auto v = (*r)[0].values<float>();
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(v[i], want[i], 1e-5) << i;
  auto one = run_reference_owned("DFT", {{"onesided", std::int64_t{1}}}, {x.view()});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ((*one)[0].view().dims, (I{1, 3, 2}));
  auto back = run_reference_owned("DFT", {{"inverse", std::int64_t{1}}}, {(*r)[0].view()});
  ASSERT_TRUE(back.ok());
  const auto b = (*back)[0].values<float>();
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(b[2 * i], static_cast<float>(i + 1), 1e-5);
    EXPECT_NEAR(b[2 * i + 1], 0, 1e-5);
  }
  EXPECT_EQ(infer_shapes("DFT", {}, {{1, 4, 3}}).status().code(), err::kInvalidParam);
}

}  // namespace
}  // namespace svp::kernels
