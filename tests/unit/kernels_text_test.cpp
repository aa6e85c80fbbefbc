// TfIdfVectorizer beyond what the ONNX backend tests cover (mode TF only there): IDF and
// TFIDF with and without weights, skips, and the refusal of string pools.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/invoke.h"
#include "kernels/kernels.h"

namespace svp::kernels {
namespace {

using model::DType;
using F = std::vector<float>;
using I = std::vector<std::int64_t>;

// Pool: 1-grams 7, 9; 2-grams (7 9), (9 7). Output elements: 7 → 0, 9 → 1, (7 9) → 2,
// (9 7) → 3.
Attrs tfidf_attrs(const std::string& mode, std::int64_t skip, std::vector<double> weights = {}) {
  Attrs a{{"mode", mode},
          {"min_gram_length", std::int64_t{1}},
          {"max_gram_length", std::int64_t{2}},
          {"max_skip_count", skip},
          {"ngram_counts", I{0, 2}},
          {"ngram_indexes", I{0, 1, 2, 3}},
          {"pool_int64s", I{7, 9, 7, 9, 9, 7}}};
  if (!weights.empty()) a.set("weights", weights);
  return a;
}

F tfidf(const Attrs& a, const std::vector<std::int64_t>& x) {
  auto in = OwnedTensor::i64({static_cast<std::int64_t>(x.size())}, x);
  auto r = run_reference_owned("TfIdfVectorizer", a, {in.view()}, {{DType::kFloat32, std::nullopt}});
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return {};
  return r.value()[0].values<float>();
}

TEST(KernelsTfIdf, CountsNGramsWithSkips) {
  // 7 9 7 5 9: 7 twice, 9 twice; bigrams without skip: (7 9), (9 7); with one skip also
  // (7 7), (9 5), (7 9) from positions 2 and 4.
  EXPECT_EQ(tfidf(tfidf_attrs("TF", 0), {7, 9, 7, 5, 9}), (F{2, 2, 1, 1}));
  EXPECT_EQ(tfidf(tfidf_attrs("TF", 1), {7, 9, 7, 5, 9}), (F{2, 2, 2, 1}));
}

TEST(KernelsTfIdf, IdfAndTfIdfApplyTheWeights) {
  const std::vector<std::int64_t> x = {7, 9, 7, 5, 9};
  EXPECT_EQ(tfidf(tfidf_attrs("IDF", 0), x), (F{1, 1, 1, 1}));
  EXPECT_EQ(tfidf(tfidf_attrs("IDF", 0, {0.5, 2, 3, 4}), x), (F{0.5f, 2, 3, 4}));
  EXPECT_EQ(tfidf(tfidf_attrs("TFIDF", 0, {0.5, 2, 3, 4}), x), (F{1, 4, 3, 4}));
  EXPECT_EQ(tfidf(tfidf_attrs("TFIDF", 0), x), (F{2, 2, 1, 1}));
}

TEST(KernelsTfIdf, StringPoolsAreUnsupported) {
  Attrs a = tfidf_attrs("TF", 0);
  a.set("pool_strings", std::string("a"));
  auto in = OwnedTensor::i64({2}, {7, 9});
  auto r = run_reference_owned("TfIdfVectorizer", a, {in.view()}, {{DType::kFloat32, std::nullopt}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), err::kFeatureUnsupported);
}

}  // namespace
}  // namespace svp::kernels
