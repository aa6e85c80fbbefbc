// Integer matmul types and their quantization (rknn_matmul_quant.h).
#include "runtime/rknn_matmul_quant.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/half.h"

namespace svp::runtime::rknn {

std::size_t matmul_bytes(rknn_tensor_type type, std::size_t count) {
  switch (type) {
    case RKNN_TENSOR_INT4:
      return (count + 1) / 2;
    case RKNN_TENSOR_FLOAT32:
    case RKNN_TENSOR_INT32:
      return count * 4;
    case RKNN_TENSOR_FLOAT16:
    case RKNN_TENSOR_BFLOAT16:
    case RKNN_TENSOR_INT16:
      return count * 2;
    default:
      return count;
  }
}

std::int32_t int_element(const std::uint8_t* data, rknn_tensor_type type, std::size_t i) {
  if (type != RKNN_TENSOR_INT4) return static_cast<std::int8_t>(data[i]);
  const std::uint8_t byte = data[i / 2];
  const std::int32_t nibble = (i % 2 == 0) ? (byte & 0xF) : (byte >> 4);
  return nibble >= 8 ? nibble - 16 : nibble;
}

void set_int_element(std::uint8_t* data, rknn_tensor_type type, std::size_t i, std::int32_t v) {
  if (type != RKNN_TENSOR_INT4) {
    data[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(v));
    return;
  }
  const auto nibble = static_cast<std::uint8_t>(v & 0xF);
  std::uint8_t& byte = data[i / 2];
  byte = (i % 2 == 0) ? static_cast<std::uint8_t>((byte & 0xF0) | nibble)
                      : static_cast<std::uint8_t>((byte & 0x0F) | (nibble << 4));
}

std::size_t b_quant_count(int b_quant_type, std::int64_t K, std::int64_t N, int group_size) {
  switch (b_quant_type) {
    case RKNN_QUANT_TYPE_PER_CHANNEL_SYM:
    case RKNN_QUANT_TYPE_PER_CHANNEL_ASYM:
      return static_cast<std::size_t>(N);
    case RKNN_QUANT_TYPE_PER_GROUP_SYM:
    case RKNN_QUANT_TYPE_PER_GROUP_ASYM:
      return group_size > 0 ? static_cast<std::size_t>(K / group_size * N) : 0;
    default:
      return 1;
  }
}

namespace {

template <typename T>
T saturate(std::int64_t v) {
  return static_cast<T>(std::clamp<std::int64_t>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

void store_c(rknn_tensor_type c, std::size_t i, std::int64_t total, double real, const MatmulQuant& qc,
             std::uint8_t* out) {
  switch (c) {
    case RKNN_TENSOR_INT32: {
      const auto v = saturate<std::int32_t>(total);
      std::memcpy(out + i * 4, &v, 4);
      return;
    }
    case RKNN_TENSOR_INT16: {
      const auto v = saturate<std::int16_t>(total);
      std::memcpy(out + i * 2, &v, 2);
      return;
    }
    case RKNN_TENSOR_INT8: {
      const double q = std::round(real / static_cast<double>(qc.scale[0]));
      const double clamped = std::clamp(q + qc.zp[0], -128.0, 127.0);
      out[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(clamped));
      return;
    }
    case RKNN_TENSOR_FLOAT32: {
      const auto v = static_cast<float>(real);
      std::memcpy(out + i * 4, &v, 4);
      return;
    }
    case RKNN_TENSOR_BFLOAT16: {
      const std::uint16_t v = float_to_bfloat16(static_cast<float>(real));
      std::memcpy(out + i * 2, &v, 2);
      return;
    }
    default: {  // FLOAT16
      const std::uint16_t v = float_to_half(static_cast<float>(real));
      std::memcpy(out + i * 2, &v, 2);
      return;
    }
  }
}

}  // namespace

void quantized_product(const QuantProduct& p, const std::vector<std::int32_t>& a_int,
                       const std::vector<double>& a_float, const std::vector<std::int32_t>& b_t,
                       std::vector<std::uint8_t>* c) {
  const bool float_a = p.a == RKNN_TENSOR_FLOAT16;
  const bool per_group =
      p.b_quant_type == RKNN_QUANT_TYPE_PER_GROUP_SYM || p.b_quant_type == RKNN_QUANT_TYPE_PER_GROUP_ASYM;
  const bool per_layer =
      p.b_quant_type == RKNN_QUANT_TYPE_PER_LAYER_SYM || p.b_quant_type == RKNN_QUANT_TYPE_PER_LAYER_ASYM;
  const std::int64_t group = per_group ? p.group_size : p.K;
  const std::int64_t groups = p.K / group;
  const std::int32_t zpa = float_a ? 0 : p.qa->zp[0];
  const double sa = float_a ? 1.0 : static_cast<double>(p.qa->scale[0]);
  c->assign(matmul_bytes(p.c, static_cast<std::size_t>(p.M * p.N)), 0);
  for (std::int64_t m = 0; m < p.M; ++m) {
    for (std::int64_t n = 0; n < p.N; ++n) {
      std::int64_t total = 0;
      double real = 0;
      for (std::int64_t g = 0; g < groups; ++g) {
        const auto q = static_cast<std::size_t>(per_layer ? 0 : g * p.N + n);
        const std::int32_t zpb = p.qb->zp[q];
        double acc_f = 0;
        std::int64_t acc_i = 0;
        const std::int64_t k0 = g * group;
        const std::int32_t* br = &b_t[static_cast<std::size_t>(n * p.K + k0)];
        if (float_a) {  // in k order: the sum's rounding is part of the documented result
          const double* ar = &a_float[static_cast<std::size_t>(m * p.K + k0)];
          for (std::int64_t k = 0; k < group; ++k) acc_f += ar[k] * (br[k] - zpb);
        } else {  // exact, so any order (the compiler may vectorize)
          const std::int32_t* ar = &a_int[static_cast<std::size_t>(m * p.K + k0)];
          for (std::int64_t k = 0; k < group; ++k) acc_i += static_cast<std::int64_t>(ar[k] - zpa) * (br[k] - zpb);
        }
        total += acc_i;
        real += static_cast<double>(p.qb->scale[q]) * (float_a ? acc_f : static_cast<double>(acc_i));
      }
      store_c(p.c, static_cast<std::size_t>(m * p.N + n), total, sa * real, *p.qc, c->data());
    }
  }
}

}  // namespace svp::runtime::rknn
