// Float32 SiLU / swish, x·sigmoid(x), in place, sixteen lanes at a time (AVX-512).
//
// Why not oneDNN's eltwise_swish post-op: in oneDNN 2.6 it costs ~0.58 ns per value on
// top of the convolution it is folded into (EfficientNet-B0's 16 → 96 expansion at
// 112×112: 0.39 ms without it, 1.09 ms with it), where this loop over the convolution's
// freshly written output (still in L2/L3) takes ~0.26 ns per value. Float32 results
// within 3e-7 relative of x·(1/(1 + e^-x)) (bounded in kernels_fast_path_test).
#pragma once

#include <cstdint>

namespace svp::kernels::onednn {

// True where swish_f32_inplace runs (AVX-512F).
bool swish_f32_available();

// y[i] = y[i]·sigmoid(y[i]) for n values. Large arrays are split over the calling
// thread's OpenMP team size (the caller's ThreadScope), as a primitive would be.
void swish_f32_inplace(float* y, std::int64_t n);

}  // namespace svp::kernels::onednn
