// IEEE binary16 and bfloat16 <-> binary32, shared by the kernels (float16 tensors) and the
// RKNN front-end (FLOAT16 / BFLOAT16 application buffers). To 16 bits: round to nearest
// even, overflow to infinity, NaN stays NaN (quiet).
#pragma once

#include <cstdint>
#include <cstring>

namespace svp {

inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits = 0;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {  // subnormal: renormalise
      exp = 127 - 15 + 1;
      while ((man & 0x400u) == 0) {
        man <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((man & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  float f = 0;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline std::uint16_t float_to_half(float f) {
  std::uint32_t x = 0;
  std::memcpy(&x, &f, 4);
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t exp = (x >> 23) & 0xffu;
  std::uint32_t man = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<std::uint16_t>(sign | 0x7c00u | (man ? 0x200u : 0u));  // inf, NaN
  const int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return sign;  // below half the smallest subnormal
    man |= 0x800000u;
    const int shift = 14 - e;
    std::uint32_t h = man >> shift;
    const std::uint32_t rest = man & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (h & 1u))) ++h;
    return static_cast<std::uint16_t>(sign | h);
  }
  std::uint32_t h = (static_cast<std::uint32_t>(e) << 10) | (man >> 13);
  const std::uint32_t rest = man & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent: correct
  return static_cast<std::uint16_t>(sign | h);
}

// bfloat16 is the top half of a binary32: widening is exact.
inline float bfloat16_to_float(std::uint16_t b) {
  const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float f = 0;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline std::uint16_t float_to_bfloat16(float f) {
  std::uint32_t x = 0;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffffu) != 0) {
    return static_cast<std::uint16_t>((x >> 16) | 0x40u);  // NaN: keep it NaN (quiet)
  }
  // Round to nearest even; a carry into the exponent is correct (up to infinity).
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>(x >> 16);
}

}  // namespace svp
