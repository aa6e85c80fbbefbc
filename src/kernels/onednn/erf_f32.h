// Float32 Erf, sixteen lanes at a time (AVX-512), split over the layer's threads: the
// reference calls std::erf per element, which made Erf (the GELU of every transformer
// MLP) a fifth of ViT's time. Abramowitz & Stegun 7.1.26 with an exp of our own:
// |error| ≤ 2e-7 absolute (erf's values are within [-1, 1]), i.e. a few float ulps of
// erf's largest values; bounded against std::erf in kernels_fast_path_test.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kernels/onednn/fast_op.h"

namespace svp::kernels::onednn {

// y[i] = erf(x[i]) for `elements` values (in place allowed); null without AVX-512.
std::unique_ptr<FastOp> make_erf(std::int64_t elements, int threads, std::string* why);

}  // namespace svp::kernels::onednn
