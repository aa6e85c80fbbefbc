// Einsum: the equation's terms (explicit "->" output, or implicit: the labels seen once, in
// alphabetical order, after the ellipsis dims), "..." for leading broadcast-free batch
// dims, repeated labels in a term taking diagonals. One loop over every label's range,
// sums in double; float and integer types (integers saturate).
#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include "kernels/reference/ops.h"
#include "kernels/reference/typed.h"

namespace svp::kernels::detail {
namespace {

struct EinsumPlan {
  std::vector<std::string> terms;  // per input, one label per dim (ellipsis expanded)
  std::string out;
  std::map<char, std::int64_t> size;
  Shape out_shape;
};

// Ellipsis dims become the labels '0', '1', ... (not letters, so no clash).
Result<EinsumPlan> einsum_plan(const InferCtx& c) {
  KN_ASSIGN(std::string eq, c.attr().s("equation", ""));
  std::string spaced;
  for (char ch : eq) {
    if (ch != ' ') spaced += ch;
  }
  const std::size_t arrow = spaced.find("->");
  const std::string lhs = spaced.substr(0, arrow);
  EinsumPlan p;
  std::size_t ell_rank = 0;
  std::vector<std::string> raw;
  for (std::size_t start = 0;;) {
    const std::size_t comma = lhs.find(',', start);
    raw.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (raw.size() != c.in.size()) {
    return Invalid(c.op, "equation \"{}\" has {} terms for {} inputs", eq, raw.size(), c.in.size());
  }
  for (std::size_t i = 0; i < raw.size(); ++i) {
    std::string t = raw[i];
    const std::size_t dots = t.find("...");
    const std::size_t letters = t.size() - (dots == std::string::npos ? 0 : 3);
    const std::size_t rank = c.in[i].size();
    if (letters > rank || (dots == std::string::npos && letters != rank)) {
      return Invalid(c.op, "term \"{}\" does not match input {} of rank {}", t, i, rank);
    }
    if (dots != std::string::npos) {
      const std::size_t e = rank - letters;
      if (ell_rank != 0 && e != ell_rank && e != 0) {
        return Invalid(c.op, "the ellipsis covers {} dims in one term and {} in another", ell_rank, e);
      }
      ell_rank = std::max(ell_rank, e);
      std::string ell;
      for (std::size_t k = 0; k < e; ++k) ell += static_cast<char>('0' + (ell_rank - e) + k);
      t = t.substr(0, dots) + ell + t.substr(dots + 3);
    }
    for (std::size_t d = 0; d < t.size(); ++d) {
      const char l = t[d];
      if (!std::isalpha(static_cast<unsigned char>(l)) && !(l >= '0' && l <= '9')) {
        return Invalid(c.op, "equation \"{}\" has the invalid label '{}'", eq, l);
      }
      auto [it, fresh] = p.size.emplace(l, c.in[i][d]);
      if (!fresh && it->second != c.in[i][d]) {
        return Invalid(c.op, "label '{}' has sizes {} and {}", l, it->second, c.in[i][d]);
      }
    }
    p.terms.push_back(t);
  }
  std::string ell_out;
  for (std::size_t k = 0; k < ell_rank; ++k) ell_out += static_cast<char>('0' + k);
  if (arrow != std::string::npos) {
    std::string o = spaced.substr(arrow + 2);
    const std::size_t dots = o.find("...");
    if (dots != std::string::npos) o = o.substr(0, dots) + ell_out + o.substr(dots + 3);
    p.out = o;
  } else {
    std::map<char, int> count;
    for (const std::string& t : p.terms) {
      for (char l : t) ++count[l];
    }
    p.out = ell_out;
    for (const auto& [l, n] : count) {
      if (n == 1 && std::isalpha(static_cast<unsigned char>(l))) p.out += l;
    }
  }
  for (char l : p.out) {
    auto it = p.size.find(l);
    if (it == p.size.end()) return Invalid(c.op, "output label '{}' appears in no input", l);
    if (std::count(p.out.begin(), p.out.end(), l) > 1) return Invalid(c.op, "output label '{}' repeats", l);
    p.out_shape.push_back(it->second);
  }
  return p;
}

Result<std::vector<Shape>> infer_einsum(const InferCtx& c) {
  KN_ASSIGN(EinsumPlan p, einsum_plan(c));
  return std::vector<Shape>{p.out_shape};
}

Status run_einsum(const RunCtx& c) {
  KN_ASSIGN(EinsumPlan p, with_infer_ctx(c, einsum_plan));
  const TensorView& y = c.out[0];
  for (const TensorView& t : c.in) {
    if (t.dtype != y.dtype) return BadType(c.op, "input is {} but the output is {}", type_desc(t), type_desc(y));
  }
  // Every label once: output labels first (so the output offset advances in order).
  std::string labels = p.out;
  for (const auto& [l, n] : p.size) {
    if (p.out.find(l) == std::string::npos) labels += l;
  }
  const std::size_t L = labels.size();
  // Per operand (inputs, then the output) the stride of each label (0 when absent; a
  // repeated label adds its dims' strides: the diagonal).
  std::vector<std::vector<std::int64_t>> stride(c.in.size() + 1, std::vector<std::int64_t>(L, 0));
  auto fill = [&](std::size_t k, const std::string& term, const Shape& shape) {
    const std::vector<std::int64_t> st = strides_of(shape);
    for (std::size_t d = 0; d < term.size(); ++d) stride[k][labels.find(term[d])] += st[d];
  };
  for (std::size_t i = 0; i < c.in.size(); ++i) fill(i, p.terms[i], c.in[i].dims);
  fill(c.in.size(), p.out, p.out_shape);
  std::vector<std::int64_t> range(L);
  for (std::size_t k = 0; k < L; ++k) range[k] = p.size[labels[k]];
  std::vector<double> acc(static_cast<std::size_t>(numel(p.out_shape)), 0.0);
  bool empty = false;
  for (std::int64_t r : range) empty = empty || r == 0;
  if (!empty) {
    std::vector<std::int64_t> idx(L, 0), off(c.in.size() + 1, 0);
    for (;;) {
      double prod = 1;
      for (std::size_t i = 0; i < c.in.size(); ++i) prod *= value_at(c.in[i], off[i]);
      acc[static_cast<std::size_t>(off[c.in.size()])] += prod;
      std::size_t k = L;
      for (; k > 0; --k) {
        const std::size_t a = k - 1;
        ++idx[a];
        for (std::size_t i = 0; i < off.size(); ++i) off[i] += stride[i][a];
        if (idx[a] < range[a]) break;
        for (std::size_t i = 0; i < off.size(); ++i) off[i] -= stride[i][a] * range[a];
        idx[a] = 0;
      }
      if (k == 0) break;
    }
  }
  const bool ok = visit_types<kNumericTypes>(y.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* ys = y.as<T>();
    for (std::size_t o = 0; o < acc.size(); ++o) {
      if constexpr (is_floating_v<T>) {
        ys[o] = store<T>(acc[o]);
      } else {
        ys[o] = from_double<T>(acc[o]);
      }
    }
  });
  if (!ok) return bad_type(c.op, "the inputs", y, kNumericTypes);
  return Status::Ok();
}

}  // namespace

void add_einsum_ops(std::vector<OpDef>& ops) { ops.push_back({"Einsum", 1, kVariadic, infer_einsum, run_einsum}); }

}  // namespace svp::kernels::detail
