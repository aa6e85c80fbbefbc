#include "kernels/onednn/sgemm_matmul.h"

#include <atomic>
#include <dnnl.h>

#include "kernels/onednn/runtime.h"

namespace svp::kernels::onednn {
namespace {

std::int64_t product(std::vector<std::int64_t>::const_iterator b, std::vector<std::int64_t>::const_iterator e) {
  std::int64_t p = 1;
  for (; b != e; ++b) p *= *b;
  return p;
}

// An operand's batch dims (all but its last two) against the output's: the same dims
// (left-padded with 1s), or a single shared matrix.
bool batch_fits(const std::vector<std::int64_t>& x, const std::vector<std::int64_t>& y, bool* shared) {
  const std::size_t xb = x.size() - 2, yb = y.size() - 2;
  const std::int64_t n = product(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(xb));
  *shared = n == 1;
  if (*shared) return true;
  if (xb > yb) return false;
  for (std::size_t i = 0; i < yb; ++i) {
    const std::int64_t want = y[i];
    const std::int64_t have = i < yb - xb ? 1 : x[i - (yb - xb)];
    if (have != want) return false;
  }
  return true;
}

}  // namespace

bool plan_sgemm_matmul(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b,
                       const std::vector<std::int64_t>& y, SgemmMatMul* plan) {
  if (a.size() < 2 || b.size() < 2 || y.size() != std::max(a.size(), b.size())) return false;
  SgemmMatMul p;
  p.M = a[a.size() - 2];
  p.K = a[a.size() - 1];
  p.N = b[b.size() - 1];
  if (b[b.size() - 2] != p.K || y[y.size() - 2] != p.M || y[y.size() - 1] != p.N) return false;
  if (p.M <= 0 || p.K <= 0 || p.N <= 0) return false;
  if (!batch_fits(a, y, &p.a_shared) || !batch_fits(b, y, &p.b_shared)) return false;
  p.batches = product(y.begin(), y.end() - 2);
  // One B for every batch: the A matrices, stacked, are one taller matrix (and y too), so
  // a single GEMM replaces `batches` thin ones. A sequence-first projection ([L, 1, K] ×
  // [K, N]) would otherwise be L matrix-vector products (3× slower in the encoder).
  if (p.b_shared && !p.a_shared) {
    p.M *= p.batches;
    p.batches = 1;
  }
  *plan = p;
  return true;
}

Status run_sgemm_matmul(const SgemmMatMul& p, const float* a, const float* b, float* y, int threads) {
  std::atomic<int> failed{dnnl_success};  // calls may run on several threads
  const bool ok = for_each_batch(p.batches, p.M, threads, [&](std::int64_t i, std::int64_t m0, std::int64_t m1) {
    const float* ai = a + (p.a_shared ? 0 : i * p.M * p.K) + m0 * p.K;
    const float* bi = b + (p.b_shared ? 0 : i * p.K * p.N);
    const dnnl_status_t s =
        dnnl_sgemm('N', 'N', m1 - m0, p.N, p.K, 1.0f, ai, p.K, bi, p.N, 0.0f, y + i * p.M * p.N + m0 * p.N, p.N);
    if (s != dnnl_success) failed.store(s, std::memory_order_relaxed);
    return s == dnnl_success;
  });
  if (!ok) return Status(err::kInternalError, "oneDNN sgemm failed (status " + std::to_string(failed.load()) + ")");
  return Status::Ok();
}

}  // namespace svp::kernels::onednn
