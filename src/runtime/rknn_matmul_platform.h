// What the matmul library allows and how its native layouts look on each RKNN SoC, from the
// vendor's rknn_matmul_api.h (SDK 2.3.2, rknn_matmul_set_io_mem's comment): the types, the
// K and N alignments, the blocks of native A (K/subK, M, subK), B (N/subN, K/subK, subN,
// subK) and C (N/subN, M, subN), and the K above which RK3588/RK3576 split a native B into
// segments. docs/rknn.md ("Matmul") lists the figures.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "rknn/rknn_matmul_api.h"

namespace svp::runtime::rknn {

struct MatmulPlatform {
  const char* name;
  int cores;                    // rknn_matmul_set_core_mask's masks
  std::int32_t native_b_max_k;  // above it the native B is segmented; 0: no segments
  bool all_types;               // false: only the float16 -> float32 and int8 -> int32 types
  bool int4_c_blocks_of_8;      // RK3588: native C of INT4_MM_INT4_TO_INT16 is (N/8, M, 8)
};

// RK3588, RK3576, RK3566 (RK3568), RK3562; nullptr for another name.
const MatmulPlatform* find_matmul_platform(const std::string& name);
// The platform rknn_matmul_create uses (docs/rknn.md: RK3588).
const MatmulPlatform& default_matmul_platform();

bool platform_supports(const MatmulPlatform& p, rknn_matmul_type type);
// The vendor's alignment of K (for the elements of `t`) and N (for B's elements `t`).
std::int32_t k_alignment(const MatmulPlatform& p, rknn_tensor_type t);
std::int32_t n_alignment(const MatmulPlatform& p, rknn_tensor_type t);

struct NativeBlock {
  std::int32_t sub_n = 0, sub_k = 0;
};
NativeBlock native_b_block(const MatmulPlatform& p, rknn_tensor_type b);
std::int32_t native_a_sub_k(const MatmulPlatform& p, rknn_tensor_type a);
std::int32_t native_c_sub_n(const MatmulPlatform& p, rknn_matmul_type type);

// Element indices of (k, n) in a native B, (m, k) in a native A, (m, n) in a native C.
inline std::size_t native_b_at(std::int64_t k, std::int64_t n, std::int64_t K, NativeBlock blk) {
  return static_cast<std::size_t>(((n / blk.sub_n) * (K / blk.sub_k) + k / blk.sub_k) * blk.sub_n * blk.sub_k +
                                  (n % blk.sub_n) * blk.sub_k + k % blk.sub_k);
}
// The same in a B of K rows split into segments of `segment_k` rows (0: one segment), each
// segment a native B of its own rows, one after another.
inline std::size_t native_b_segmented_at(std::int64_t k, std::int64_t n, std::int64_t K, std::int64_t N,
                                         NativeBlock blk, std::int64_t segment_k) {
  if (segment_k <= 0 || K <= segment_k) return native_b_at(k, n, K, blk);
  const std::int64_t k0 = k / segment_k * segment_k;
  return static_cast<std::size_t>(k0 * N) + native_b_at(k - k0, n, std::min(segment_k, K - k0), blk);
}
inline std::size_t native_rows_at(std::int64_t row, std::int64_t col, std::int64_t rows, std::int32_t sub) {
  return static_cast<std::size_t>(((col / sub) * rows + row) * sub + col % sub);
}

}  // namespace svp::runtime::rknn
