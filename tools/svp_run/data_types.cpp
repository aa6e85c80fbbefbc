#include "svp_run/data_types.h"

#include <cstring>

namespace svp::run {

const char* npy_descr(svp_acl_data_type t) {
  switch (t) {
    case SVP_ACL_FLOAT: return "<f4";
    case SVP_ACL_FLOAT16: return "<f2";
    case SVP_ACL_INT8: return "|i1";
    case SVP_ACL_UINT8: return "|u1";
    case SVP_ACL_INT16: return "<i2";
    case SVP_ACL_UINT16: return "<u2";
    case SVP_ACL_INT32: return "<i4";
    case SVP_ACL_UINT32: return "<u4";
    case SVP_ACL_INT64: return "<i8";
    case SVP_ACL_DOUBLE: return "<f8";
    case SVP_ACL_BOOL: return "|b1";
    default: return "|u1";
  }
}

// IEEE binary16 to binary32 (exact: every half is a float).
static float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {  // subnormal: renormalise
      exp = 127 - 15 + 1;
      while (!(man & 0x400)) {
        man <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((man & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Element `i` of `data` (dtype `t`) as a double, for comparison and TXT output.
double element(svp_acl_data_type t, const std::uint8_t* data, std::size_t i) {
  auto get = [&](auto v) {
    std::memcpy(&v, data + i * sizeof(v), sizeof(v));
    return static_cast<double>(v);
  };
  switch (t) {
    case SVP_ACL_FLOAT: return get(float{});
    case SVP_ACL_FLOAT16: {
      std::uint16_t h;
      std::memcpy(&h, data + i * 2, 2);
      return half_to_float(h);
    }
    case SVP_ACL_INT8: return get(std::int8_t{});
    case SVP_ACL_INT16: return get(std::int16_t{});
    case SVP_ACL_UINT16: return get(std::uint16_t{});
    case SVP_ACL_INT32: return get(std::int32_t{});
    case SVP_ACL_UINT32: return get(std::uint32_t{});
    case SVP_ACL_INT64: return get(std::int64_t{});
    case SVP_ACL_DOUBLE: return get(double{});
    default: return get(std::uint8_t{});
  }
}

const char* dtype_name(svp_acl_data_type t) {
  switch (t) {
    case SVP_ACL_FLOAT: return "float32";
    case SVP_ACL_FLOAT16: return "float16";
    case SVP_ACL_INT8: return "int8";
    case SVP_ACL_UINT8: return "uint8";
    case SVP_ACL_INT16: return "int16";
    case SVP_ACL_UINT16: return "uint16";
    case SVP_ACL_INT32: return "int32";
    case SVP_ACL_UINT32: return "uint32";
    case SVP_ACL_INT64: return "int64";
    case SVP_ACL_DOUBLE: return "float64";
    case SVP_ACL_BOOL: return "bool";
    default: return "unknown";
  }
}

}  // namespace svp::run
