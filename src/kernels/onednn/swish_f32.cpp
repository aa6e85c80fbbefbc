#include "kernels/onednn/swish_f32.h"

// GCC 12's AVX-512 intrinsics pass an undefined vector as the merge source of their
// masked builtins, which -Wmaybe-uninitialized reports falsely (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#include <omp.h>

#include <algorithm>

#include "kernels/onednn/exp_avx512.h"

namespace svp::kernels::onednn {
namespace {

// sigmoid from e = e^-|x| ≤ 1 (no overflow for any x): 1/(1 + e) for x ≥ 0, e/(1 + e)
// below, times x.
__attribute__((target("avx512f"))) inline __m512 swish16(__m512 x) {
  const __m512 e = exp_nonpositive(_mm512_sub_ps(_mm512_setzero_ps(), _mm512_abs_ps(x)));
  const __mmask16 neg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
  const __m512 num = _mm512_mask_mul_ps(x, neg, x, e);
  return _mm512_div_ps(num, _mm512_add_ps(e, _mm512_set1_ps(1.0f)));
}

__attribute__((target("avx512f"))) void swish_range(float* y, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, swish16(_mm512_loadu_ps(y + i)));
  if (i < n) {
    const auto m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(y + i, m, swish16(_mm512_maskz_loadu_ps(m, y + i)));
  }
}

}  // namespace

bool swish_f32_available() {
  static const bool ok = __builtin_cpu_supports("avx512f");
  return ok;
}

void swish_f32_inplace(float* y, std::int64_t n) {
  // A parallel region costs more than ~16 K values take.
  const int parts = n >= (1 << 14) ? omp_get_max_threads() : 1;
  if (parts <= 1) {
    swish_range(y, n);
    return;
  }
  const std::int64_t chunk = ((n + parts - 1) / parts + 15) / 16 * 16;
#pragma omp parallel for num_threads(parts) schedule(static)
  for (int k = 0; k < parts; ++k) {
    const std::int64_t b = k * chunk, e = std::min(n, b + chunk);
    if (b < e) swish_range(y + b, e - b);
  }
}

}  // namespace svp::kernels::onednn
