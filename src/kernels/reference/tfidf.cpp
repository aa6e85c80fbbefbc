// TfIdfVectorizer (opset 9): counts, per row of an int32/int64 input [C] or [N, C], the
// n-grams of the pool (pool_int64s) that occur in it, skipping up to max_skip_count tokens
// between the items of an n-gram, and writes a float vector [max(ngram_indexes) + 1] (or
// [N, ...]) indexed by ngram_indexes. Semantics of ONNX's reference implementation:
//   * the pool holds the 1-grams from ngram_counts[0], the 2-grams from ngram_counts[1],
//     ..., the n-gram at pool position k (in that order) is n-gram number k, and its
//     count lands in output element ngram_indexes[k];
//   * for each skip distance d = 1 .. max_skip_count + 1 and each start position s, the
//     n-gram X[s], X[s + d], ..., X[s + (n - 1) d] is counted for every
//     n in [min_gram_length, max_gram_length] that fits in the row and is in the pool;
//   * 1-grams do not depend on d, so they are counted at d = 1 only;
//   * mode TF writes the counts, IDF writes weights[k] (1 without weights) where the
//     count is non-zero, TFIDF writes count * weights[k] (the count without weights).
// pool_strings (string tensors) are not supported: svp-acl has no string type.
#include <algorithm>
#include <map>
#include <vector>

#include "kernels/reference/ops.h"
#include "kernels/reference/typed.h"

namespace svp::kernels::detail {
namespace {

enum class TfIdfMode { kTf, kIdf, kTfIdf };

struct TfIdfSetup {
  std::int64_t min_n = 0, max_n = 0, max_skip = 0, out_len = 0;
  TfIdfMode mode = TfIdfMode::kTf;
  std::map<std::vector<std::int64_t>, std::size_t> ngrams;  // n-gram → its number in the pool
  std::vector<std::int64_t> indexes;                         // n-gram number → output element
  std::vector<double> weights;                               // per n-gram number, or empty
  Shape out;
};

Result<TfIdfSetup> tfidf_setup(const InferCtx& c) {
  const Shape& x = c.in[0];
  if (x.size() != 1 && x.size() != 2) return Invalid(c.op, "input must be [C] or [N, C], got {}", shape_str(x));
  const AttrReader a = c.attr();
  if (a.has("pool_strings")) {
    return Status(err::kFeatureUnsupported,
                  fmt::format("{}: pool_strings (string n-grams) are not supported: svp-acl has no string tensors",
                              c.op));
  }
  TfIdfSetup s;
  KN_ASSIGN(s.min_n, a.i("min_gram_length", 0));
  KN_ASSIGN(s.max_n, a.i("max_gram_length", 0));
  KN_ASSIGN(s.max_skip, a.i("max_skip_count", 0));
  if (s.min_n < 1 || s.max_n < s.min_n) {
    return Invalid(c.op, "need 1 <= min_gram_length <= max_gram_length, got {} and {}", s.min_n, s.max_n);
  }
  if (s.max_skip < 0) return Invalid(c.op, "max_skip_count must be >= 0, got {}", s.max_skip);
  KN_ASSIGN(std::string mode, a.s("mode", ""));
  if (mode == "TF") s.mode = TfIdfMode::kTf;
  else if (mode == "IDF") s.mode = TfIdfMode::kIdf;
  else if (mode == "TFIDF") s.mode = TfIdfMode::kTfIdf;
  else return Malformed(c.op, "mode must be TF, IDF or TFIDF, got \"{}\"", mode);
  KN_ASSIGN(std::vector<std::int64_t> counts, a.ints("ngram_counts", {}));
  KN_ASSIGN(s.indexes, a.ints("ngram_indexes", {}));
  KN_ASSIGN(std::vector<std::int64_t> pool, a.ints("pool_int64s", {}));
  KN_ASSIGN(s.weights, a.floats("weights", {}));
  if (s.indexes.empty()) return Malformed(c.op, "ngram_indexes is required and not empty");
  if (!s.weights.empty() && s.weights.size() != s.indexes.size()) {
    return Invalid(c.op, "weights has {} values for {} n-grams", s.weights.size(), s.indexes.size());
  }
  // The pool, level by level: level l (n = l + 1) spans [counts[l], counts[l + 1]).
  const auto pool_size = static_cast<std::int64_t>(pool.size());
  for (std::size_t l = 0; l < counts.size(); ++l) {
    const std::int64_t begin = counts[l], end = l + 1 < counts.size() ? counts[l + 1] : pool_size;
    const auto n = static_cast<std::int64_t>(l + 1);
    if (begin < 0 || end < begin || end > pool_size || (end - begin) % n != 0) {
      return Invalid(c.op, "ngram_counts {} does not split the pool of {} values into {}-grams", begin, pool_size, n);
    }
    for (std::int64_t k = begin; k < end; k += n) {
      std::vector<std::int64_t> gram(pool.begin() + k, pool.begin() + k + n);
      const std::size_t number = s.ngrams.size();
      if (!s.ngrams.emplace(std::move(gram), number).second) {
        return Invalid(c.op, "the pool holds the same {}-gram twice", n);
      }
    }
  }
  if (s.ngrams.size() != s.indexes.size()) {
    return Invalid(c.op, "the pool holds {} n-grams but ngram_indexes has {} values", s.ngrams.size(),
                   s.indexes.size());
  }
  for (std::int64_t i : s.indexes) {
    if (i < 0 || i >= (std::int64_t{1} << 30)) return Invalid(c.op, "ngram_indexes value {} is out of range", i);
    s.out_len = std::max(s.out_len, i + 1);
  }
  s.out = x;
  s.out.back() = s.out_len;
  return s;
}

Result<std::vector<Shape>> infer_tfidf(const InferCtx& c) {
  KN_ASSIGN(TfIdfSetup s, tfidf_setup(c));
  return std::vector<Shape>{s.out};
}

Status run_tfidf(const RunCtx& c) {
  const TensorView &x = c.in[0], &y = c.out[0];
  if ((x.dtype != DType::kInt32 && x.dtype != DType::kInt64) || has_quant(x)) {
    return BadType(c.op, "input must be int32 or int64, got {}", type_desc(x));
  }
  if (y.dtype != DType::kFloat32) return BadType(c.op, "output must be float32, got {}", type_desc(y));
  KN_ASSIGN(TfIdfSetup s, with_infer_ctx(c, tfidf_setup));
  const std::int64_t rows = x.dims.size() == 2 ? x.dims[0] : 1, len = x.dims.back();
  float* ys = y.as<float>();
  std::vector<std::int64_t> row(static_cast<std::size_t>(len)), gram;
  std::vector<double> counts(s.indexes.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t i = 0; i < len; ++i) row[static_cast<std::size_t>(i)] = int_at(x, r * len + i);
    std::fill(counts.begin(), counts.end(), 0.0);
    std::int64_t min_n = s.min_n;
    for (std::int64_t d = 1; d <= s.max_skip + 1 && min_n <= s.max_n; ++d) {
      for (std::int64_t start = 0; start + d * (min_n - 1) < len; ++start) {
        gram.clear();
        for (std::int64_t n = 1, at = start; n <= s.max_n && at < len; ++n, at += d) {
          gram.push_back(row[static_cast<std::size_t>(at)]);
          if (n < min_n) continue;
          auto it = s.ngrams.find(gram);
          if (it != s.ngrams.end()) counts[it->second] += 1;
        }
      }
      if (min_n == 1) min_n = 2;  // 1-grams are the same at every skip distance: counted once
    }
    float* out = ys + r * s.out_len;
    std::fill(out, out + s.out_len, 0.0f);
    for (std::size_t k = 0; k < counts.size(); ++k) {
      const double w = s.weights.empty() ? 1.0 : s.weights[k];
      double v = counts[k];
      if (s.mode == TfIdfMode::kIdf) v = counts[k] > 0 ? w : 0.0;
      if (s.mode == TfIdfMode::kTfIdf) v = counts[k] * w;
      out[s.indexes[k]] += static_cast<float>(v);
    }
  }
  return Status::Ok();
}

}  // namespace

void add_tfidf_ops(std::vector<OpDef>& ops) { ops.push_back({"TfIdfVectorizer", 1, 1, infer_tfidf, run_tfidf}); }

}  // namespace svp::kernels::detail
