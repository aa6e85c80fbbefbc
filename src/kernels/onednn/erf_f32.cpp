#include "kernels/onednn/erf_f32.h"

// GCC 12's AVX-512 intrinsics pass an undefined vector as the merge source of their
// masked builtins, which -Wmaybe-uninitialized reports falsely (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "kernels/onednn/exp_avx512.h"
#include "kernels/onednn/runtime.h"

namespace svp::kernels::onednn {
namespace {

// A&S 7.1.26 on |x|, sign restored: erf(|x|) = 1 − t·P(t)·e^(−x²), t = 1/(1 + p|x|).
__attribute__((target("avx512f"))) inline __m512 erf16(__m512 x) {
  const __m512 sign = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN)));
  const __m512 a = _mm512_castsi512_ps(_mm512_andnot_si512(_mm512_set1_epi32(INT32_MIN), _mm512_castps_si512(x)));
  const __m512 t = _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_fmadd_ps(a, _mm512_set1_ps(0.3275911f), _mm512_set1_ps(1.0f)));
  __m512 p = _mm512_set1_ps(1.061405429f);
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(-1.453152027f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(1.421413741f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(-0.284496736f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(0.254829592f));
  p = _mm512_mul_ps(p, t);
  const __m512 e = exp_nonpositive(_mm512_mul_ps(_mm512_sub_ps(_mm512_setzero_ps(), a), a));
  const __m512 y = _mm512_fnmadd_ps(p, e, _mm512_set1_ps(1.0f));
  return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(y), _mm512_castps_si512(sign)));
}

__attribute__((target("avx512f"))) void erf_range(const float* x, float* y, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, erf16(_mm512_loadu_ps(x + i)));
  if (i < n) {
    const auto m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(y + i, m, erf16(_mm512_maskz_loadu_ps(m, x + i)));
  }
}

class ErfKernel final : public NativeKernel {
 public:
  ErfKernel(std::int64_t n, int threads) : n_(n), threads_(threads) {}
  std::size_t scratch_bytes() const override { return 0; }
  void run(const void* src, void* dst, void* /*scratch*/) const override {
    const auto* x = static_cast<const float*>(src);
    auto* y = static_cast<float*>(dst);
    // Whole blocks of 16 per thread; a parallel region costs more than ~16 K values take.
    const int parts = n_ >= (1 << 14) ? threads_ : 1;
    if (parts <= 1) {
      erf_range(x, y, n_);
      return;
    }
    const std::int64_t chunk = ((n_ + parts - 1) / parts + 15) / 16 * 16;
#pragma omp parallel for num_threads(parts) schedule(static)
    for (int k = 0; k < parts; ++k) {
      const std::int64_t b = k * chunk, e = std::min(n_, b + chunk);
      if (b < e) erf_range(x + b, y + b, e - b);
    }
  }

 private:
  std::int64_t n_;
  int threads_;
};

}  // namespace

std::unique_ptr<FastOp> make_erf(std::int64_t elements, int threads, std::string* why) {
  if (!__builtin_cpu_supports("avx512f")) return *why = "no AVX-512", nullptr;
  if (elements <= 0) return *why = "empty", nullptr;
  return std::make_unique<FastOp>(std::make_unique<ErfKernel>(elements, threads < 1 ? 1 : threads), "native");
}

}  // namespace svp::kernels::onednn
