// The layout of every struct (and the width of every enum and of rknn_context) in
// include/rknn/rknn_api.h equals Rockchip's RKNN SDK 2.3.2 header on x86-64, so a binary
// built against either header passes the same bytes.
//
// Where the numbers come from: airockchip/rknn-toolkit2 at SDK 2.3.2 (commit 42aa1d4,
// "Update ... NPU SDK to V2.3.2"), rknpu2/runtime/Linux/librknn_api/include/rknn_api.h,
// compiled OUTSIDE this repository (the vendor header is not copied here) with
//   gcc -std=c99 -I <dir holding the vendor rknn_api.h> layout.c && ./a.out
// where layout.c prints sizeof(T) for each struct and enum below and offsetof(T, m) for each
// member (x86-64, GCC 12). To regenerate: write that program, run it on the vendor header,
// and replace the numbers; the same program compiled with -I include must print the same.
#include <gtest/gtest.h>

#include <cstddef>

#include "rknn/rknn_api.h"
#include "rknn/rknn_custom_op.h"
#include "rknn/rknn_matmul_api.h"

namespace {

TEST(RknnApiLayout, EveryStructHasTheVendorsSizeAndMemberOffsetsOnX86_64) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "the recorded vendor numbers are x86-64's";
#endif
  EXPECT_EQ(sizeof(rknn_context), 8u);
  EXPECT_EQ(sizeof(rknn_input_output_num), 8u);
  EXPECT_EQ(offsetof(rknn_input_output_num, n_input), 0u);
  EXPECT_EQ(offsetof(rknn_input_output_num, n_output), 4u);
  EXPECT_EQ(sizeof(rknn_tensor_attr), 376u);
  EXPECT_EQ(offsetof(rknn_tensor_attr, index), 0u);
  EXPECT_EQ(offsetof(rknn_tensor_attr, n_dims), 4u);
  EXPECT_EQ(offsetof(rknn_tensor_attr, dims), 8u);
  EXPECT_EQ(offsetof(rknn_tensor_attr, name), 72u);
  EXPECT_EQ(offsetof(rknn_tensor_attr, n_elems), 328u);
  EXPECT_EQ(offsetof(rknn_tensor_attr, size), 332u);
  EXPECT_EQ(offsetof(rknn_tensor_attr, fmt), 336u);
  EXPECT_EQ(offsetof(rknn_tensor_attr, type), 340u);
  EXPECT_EQ(offsetof(rknn_tensor_attr, qnt_type), 344u);
  EXPECT_EQ(offsetof(rknn_tensor_attr, fl), 348u);
  EXPECT_EQ(offsetof(rknn_tensor_attr, zp), 352u);
  EXPECT_EQ(offsetof(rknn_tensor_attr, scale), 356u);
  EXPECT_EQ(offsetof(rknn_tensor_attr, w_stride), 360u);
  EXPECT_EQ(offsetof(rknn_tensor_attr, size_with_stride), 364u);
  EXPECT_EQ(offsetof(rknn_tensor_attr, pass_through), 368u);
  EXPECT_EQ(offsetof(rknn_tensor_attr, h_stride), 372u);
  EXPECT_EQ(sizeof(rknn_input_range), 33040u);
  EXPECT_EQ(offsetof(rknn_input_range, index), 0u);
  EXPECT_EQ(offsetof(rknn_input_range, shape_number), 4u);
  EXPECT_EQ(offsetof(rknn_input_range, fmt), 8u);
  EXPECT_EQ(offsetof(rknn_input_range, name), 12u);
  EXPECT_EQ(offsetof(rknn_input_range, dyn_range), 268u);
  EXPECT_EQ(offsetof(rknn_input_range, n_dims), 33036u);
  EXPECT_EQ(sizeof(rknn_perf_detail), 16u);
  EXPECT_EQ(offsetof(rknn_perf_detail, perf_data), 0u);
  EXPECT_EQ(offsetof(rknn_perf_detail, data_len), 8u);
  EXPECT_EQ(sizeof(rknn_perf_run), 8u);
  EXPECT_EQ(offsetof(rknn_perf_run, run_duration), 0u);
  EXPECT_EQ(sizeof(rknn_sdk_version), 512u);
  EXPECT_EQ(offsetof(rknn_sdk_version, api_version), 0u);
  EXPECT_EQ(offsetof(rknn_sdk_version, drv_version), 256u);
  EXPECT_EQ(sizeof(rknn_mem_size), 64u);
  EXPECT_EQ(offsetof(rknn_mem_size, total_weight_size), 0u);
  EXPECT_EQ(offsetof(rknn_mem_size, total_internal_size), 4u);
  EXPECT_EQ(offsetof(rknn_mem_size, total_dma_allocated_size), 8u);
  EXPECT_EQ(offsetof(rknn_mem_size, total_sram_size), 16u);
  EXPECT_EQ(offsetof(rknn_mem_size, free_sram_size), 20u);
  EXPECT_EQ(offsetof(rknn_mem_size, reserved), 24u);
  EXPECT_EQ(sizeof(rknn_custom_string), 1024u);
  EXPECT_EQ(offsetof(rknn_custom_string, string), 0u);
  EXPECT_EQ(sizeof(rknn_tensor_mem), 40u);
  EXPECT_EQ(offsetof(rknn_tensor_mem, virt_addr), 0u);
  EXPECT_EQ(offsetof(rknn_tensor_mem, phys_addr), 8u);
  EXPECT_EQ(offsetof(rknn_tensor_mem, fd), 16u);
  EXPECT_EQ(offsetof(rknn_tensor_mem, offset), 20u);
  EXPECT_EQ(offsetof(rknn_tensor_mem, size), 24u);
  EXPECT_EQ(offsetof(rknn_tensor_mem, flags), 28u);
  EXPECT_EQ(offsetof(rknn_tensor_mem, priv_data), 32u);
  EXPECT_EQ(sizeof(rknn_input), 32u);
  EXPECT_EQ(offsetof(rknn_input, index), 0u);
  EXPECT_EQ(offsetof(rknn_input, buf), 8u);
  EXPECT_EQ(offsetof(rknn_input, size), 16u);
  EXPECT_EQ(offsetof(rknn_input, pass_through), 20u);
  EXPECT_EQ(offsetof(rknn_input, type), 24u);
  EXPECT_EQ(offsetof(rknn_input, fmt), 28u);
  EXPECT_EQ(sizeof(rknn_output), 24u);
  EXPECT_EQ(offsetof(rknn_output, want_float), 0u);
  EXPECT_EQ(offsetof(rknn_output, is_prealloc), 1u);
  EXPECT_EQ(offsetof(rknn_output, index), 4u);
  EXPECT_EQ(offsetof(rknn_output, buf), 8u);
  EXPECT_EQ(offsetof(rknn_output, size), 16u);
  EXPECT_EQ(sizeof(rknn_init_extend), 136u);
  EXPECT_EQ(offsetof(rknn_init_extend, ctx), 0u);
  EXPECT_EQ(offsetof(rknn_init_extend, real_model_offset), 8u);
  EXPECT_EQ(offsetof(rknn_init_extend, real_model_size), 12u);
  EXPECT_EQ(offsetof(rknn_init_extend, model_buffer_fd), 16u);
  EXPECT_EQ(offsetof(rknn_init_extend, model_buffer_flags), 20u);
  EXPECT_EQ(offsetof(rknn_init_extend, reserved), 24u);
  EXPECT_EQ(sizeof(rknn_run_extend), 24u);
  EXPECT_EQ(offsetof(rknn_run_extend, frame_id), 0u);
  EXPECT_EQ(offsetof(rknn_run_extend, non_block), 8u);
  EXPECT_EQ(offsetof(rknn_run_extend, timeout_ms), 12u);
  EXPECT_EQ(offsetof(rknn_run_extend, fence_fd), 16u);
  EXPECT_EQ(sizeof(rknn_output_extend), 8u);
  EXPECT_EQ(offsetof(rknn_output_extend, frame_id), 0u);
  EXPECT_EQ(sizeof(rknn_query_cmd), 4u);
  EXPECT_EQ(sizeof(rknn_tensor_type), 4u);
  EXPECT_EQ(sizeof(rknn_tensor_format), 4u);
  EXPECT_EQ(sizeof(rknn_tensor_qnt_type), 4u);
  EXPECT_EQ(sizeof(rknn_core_mask), 4u);
}

// rknn_matmul_api.h, from the same commit's rknn_matmul_api.h by the same method (x86-64, GCC 12).
TEST(RknnApiLayout, EveryMatmulStructHasTheVendorsSizeAndMemberOffsetsOnX86_64) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "the recorded vendor numbers are x86-64's";
#endif
  EXPECT_EQ(sizeof(rknn_quant_params), 288u);
  EXPECT_EQ(offsetof(rknn_quant_params, scale), 256u);
  EXPECT_EQ(offsetof(rknn_quant_params, scale_len), 264u);
  EXPECT_EQ(offsetof(rknn_quant_params, zp), 272u);
  EXPECT_EQ(offsetof(rknn_quant_params, zp_len), 280u);
  EXPECT_EQ(sizeof(rknn_matmul_tensor_attr), 332u);
  EXPECT_EQ(offsetof(rknn_matmul_tensor_attr, n_dims), 256u);
  EXPECT_EQ(offsetof(rknn_matmul_tensor_attr, dims), 260u);
  EXPECT_EQ(offsetof(rknn_matmul_tensor_attr, size), 324u);
  EXPECT_EQ(offsetof(rknn_matmul_tensor_attr, type), 328u);
  EXPECT_EQ(sizeof(rknn_matmul_io_attr), 996u);
  EXPECT_EQ(offsetof(rknn_matmul_io_attr, B), 332u);
  EXPECT_EQ(offsetof(rknn_matmul_io_attr, C), 664u);
  EXPECT_EQ(sizeof(rknn_matmul_shape), 12u);
  EXPECT_EQ(offsetof(rknn_matmul_shape, N), 8u);
  EXPECT_EQ(sizeof(rknn_matmul_info), 64u);
  EXPECT_EQ(offsetof(rknn_matmul_info, type), 12u);
  EXPECT_EQ(offsetof(rknn_matmul_info, B_layout), 16u);
  EXPECT_EQ(offsetof(rknn_matmul_info, B_quant_type), 18u);
  EXPECT_EQ(offsetof(rknn_matmul_info, AC_layout), 20u);
  EXPECT_EQ(offsetof(rknn_matmul_info, AC_quant_type), 22u);
  EXPECT_EQ(offsetof(rknn_matmul_info, iommu_domain_id), 24u);
  EXPECT_EQ(offsetof(rknn_matmul_info, group_size), 28u);
  EXPECT_EQ(offsetof(rknn_matmul_info, reserved), 30u);
  EXPECT_EQ(sizeof(rknn_matmul_type), 4u);
}

// rknn_custom_op.h's structs: the numbers follow from the member list of the vendor's
// rknn_custom_op.h (same repository and path) under the x86-64 System V ABI (not from a
// compiled vendor header, unlike the ones above).
TEST(RknnApiLayout, CustomOpStructsHaveTheVendorsSizeAndMemberOffsetsOnX86_64) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "the recorded vendor numbers are x86-64's";
#endif
  EXPECT_EQ(sizeof(rknn_target_type), 4u);
  EXPECT_EQ(sizeof(rknn_custom_op_interal_context), 8u);
  EXPECT_EQ(sizeof(rknn_gpu_op_context), 24u);
  EXPECT_EQ(offsetof(rknn_gpu_op_context, cl_command_queue), 8u);
  EXPECT_EQ(offsetof(rknn_gpu_op_context, cl_kernel), 16u);
  EXPECT_EQ(sizeof(rknn_custom_op_context), 48u);
  EXPECT_EQ(offsetof(rknn_custom_op_context, internal_ctx), 8u);
  EXPECT_EQ(offsetof(rknn_custom_op_context, gpu_ctx), 16u);
  EXPECT_EQ(offsetof(rknn_custom_op_context, priv_data), 40u);
  EXPECT_EQ(sizeof(rknn_custom_op_tensor), 416u);
  EXPECT_EQ(offsetof(rknn_custom_op_tensor, mem), 376u);
  EXPECT_EQ(sizeof(rknn_custom_op_attr), 272u);
  EXPECT_EQ(offsetof(rknn_custom_op_attr, dtype), 256u);
  EXPECT_EQ(offsetof(rknn_custom_op_attr, n_elems), 260u);
  EXPECT_EQ(offsetof(rknn_custom_op_attr, data), 264u);
  EXPECT_EQ(sizeof(rknn_custom_op), 832u);
  EXPECT_EQ(offsetof(rknn_custom_op, target), 4u);
  EXPECT_EQ(offsetof(rknn_custom_op, op_type), 8u);
  EXPECT_EQ(offsetof(rknn_custom_op, cl_kernel_name), 264u);
  EXPECT_EQ(offsetof(rknn_custom_op, cl_kernel_source), 520u);
  EXPECT_EQ(offsetof(rknn_custom_op, cl_source_size), 528u);
  EXPECT_EQ(offsetof(rknn_custom_op, cl_build_options), 536u);
  EXPECT_EQ(offsetof(rknn_custom_op, init), 792u);
  EXPECT_EQ(offsetof(rknn_custom_op, prepare), 800u);
  EXPECT_EQ(offsetof(rknn_custom_op, compute), 808u);
  EXPECT_EQ(offsetof(rknn_custom_op, compute_native), 816u);
  EXPECT_EQ(offsetof(rknn_custom_op, destroy), 824u);
}

TEST(RknnApiLayout, ContextIsSixtyFourBitsExceptOn32BitArm) {
#if defined(__arm__)
  EXPECT_EQ(sizeof(rknn_context), 4u);
#else
  EXPECT_EQ(sizeof(rknn_context), 8u);
#endif
}

}  // namespace
