// The matmul library's per-SoC rules (rknn_matmul_platform.h).
#include "runtime/rknn_matmul_platform.h"

namespace svp::runtime::rknn {
namespace {

// RK3566 and RK3568 share an NPU; RK3562 has RK3566's B blocks for int8 but larger float16
// ones; RK3588 and RK3576 share the blocks, RK3576 segments a native B earlier.
const MatmulPlatform kPlatforms[] = {
    {"RK3588", 3, 8192, true, true}, {"RK3576", 2, 4096, true, false}, {"RK3566", 1, 0, false, false},
    {"RK3568", 1, 0, false, false},  {"RK3562", 1, 0, false, false},
};

bool is(const MatmulPlatform& p, const char* name) { return std::string(p.name) == name; }
bool rk356x(const MatmulPlatform& p) { return is(p, "RK3566") || is(p, "RK3568"); }

}  // namespace

const MatmulPlatform* find_matmul_platform(const std::string& name) {
  for (const MatmulPlatform& p : kPlatforms) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

const MatmulPlatform& default_matmul_platform() { return kPlatforms[0]; }

bool platform_supports(const MatmulPlatform& p, rknn_matmul_type type) {
  // The vendor documents RK3566/RK3568/RK3562 alignments for int8 and float16 only, and its
  // demo offers them float16 -> float32 and int8 -> int32.
  return p.all_types || type == RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32 || type == RKNN_INT8_MM_INT8_TO_INT32;
}

std::int32_t k_alignment(const MatmulPlatform& p, rknn_tensor_type t) {
  if (t == RKNN_TENSOR_FLOAT16 && rk356x(p)) return 16;
  return 32;
}

std::int32_t n_alignment(const MatmulPlatform& p, rknn_tensor_type t) {
  if (t == RKNN_TENSOR_INT4) return 64;
  if (t == RKNN_TENSOR_FLOAT16) return p.all_types ? 16 : 8;
  return p.all_types ? 32 : 16;
}

NativeBlock native_b_block(const MatmulPlatform& p, rknn_tensor_type b) {
  if (p.all_types) return {b == RKNN_TENSOR_FLOAT16 ? 16 : b == RKNN_TENSOR_INT4 ? 64 : 32, 32};
  if (b == RKNN_TENSOR_FLOAT16) return {8, rk356x(p) ? 16 : 32};
  return {16, 32};
}

std::int32_t native_a_sub_k(const MatmulPlatform& p, rknn_tensor_type a) {
  if (rk356x(p)) return a == RKNN_TENSOR_FLOAT16 ? 4 : 8;
  if (a == RKNN_TENSOR_INT4) return 32;
  return a == RKNN_TENSOR_FLOAT16 ? 8 : 16;
}

std::int32_t native_c_sub_n(const MatmulPlatform& p, rknn_matmul_type type) {
  return p.int4_c_blocks_of_8 && type == RKNN_INT4_MM_INT4_TO_INT16 ? 8 : 4;
}

}  // namespace svp::runtime::rknn
