// librknnrt's weight placement (docs/rknn.md "Weights"): RKNN_FLAG_MEM_ALLOC_OUTSIDE contexts
// run only once rknn_set_weight_mem and rknn_set_internal_mem gave them memory; the memory
// receives the model's weights and runs refuse it destroyed or overwritten (on the device:
// cacheable memory the CPU wrote without rknn_mem_sync still holds them); weight sharing
// between contexts (RKNN_FLAG_SHARE_WEIGHT_MEM with rknn_init_extend.ctx, rknn_dup_context)
// and RKNN_QUERY_MEM_SIZE's accounting of where the weights are allocated.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "onnx_builder.h"
#include "rknn/rknn_api.h"
#include "rknn_lenet.h"
#include "rknn_test_support.h"
#include "runtime/rknn_context.h"
#include "runtime/rknn_mem.h"
#include "runtime/runtime.h"
#include "target/device_profile.h"

namespace svp {
namespace {

using runtime::rknn::last_error;
using test::contains;
using test::uniform;
namespace fs = std::filesystem;


class RknnWeightMem : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("svp_rknn_wm_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) {
      EXPECT_EQ(runtime::rknn::live_contexts(), 0u) << "a test left a context alive";
      EXPECT_EQ(runtime::rknn::live_mems(), 0u) << "a test left an rknn_tensor_mem alive";
    }
    for (rknn_context ctx : opened_) (void)rknn_destroy(ctx);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // `onnx` compiled for RK3588 in float; `extra` is appended to the recorded command line
  // (another image, the same weights).
  static std::vector<std::uint8_t> compile(const std::string& onnx, const std::string& extra = "") {
    compiler::CompileOptions o;
    o.model = onnx;
    o.soc_version = target::find_profile("RK3588");
    o.compile_mode = "float";
    o.command_line = "svp_atc --framework=5 --model=" + onnx + " --soc_version=RK3588" + extra;
    auto r = compiler::compile(o);
    if (!r.ok()) {
      ADD_FAILURE() << r.status().message();
      return {};
    }
    return r->model.image;
  }

  // A 3x3 convolution of 1 -> 4 channels on 8x8, its weights drawn from `seed`.
  std::string conv_model(unsigned seed) {
    const std::string path = (dir_ / ("conv_" + std::to_string(seed) + ".onnx")).string();
    test::OnnxBuilder b;
    b.input("x", {1, 1, 8, 8}).output("y", {1, 4, 8, 8});
    b.initializer("w", {4, 1, 3, 3}, uniform(36, seed, -0.5f, 0.5f));
    auto& conv = b.node("Conv", {"x", "w"}, {"y"});
    test::OnnxBuilder::attr_ints(conv, "pads", {1, 1, 1, 1});
    test::OnnxBuilder::attr_ints(conv, "kernel_shape", {3, 3});
    std::ofstream(path, std::ios::binary) << b.bytes();
    return path;
  }

  rknn_context init(std::vector<std::uint8_t>& image, std::uint32_t flags = 0, rknn_init_extend* ext = nullptr) {
    rknn_context ctx = 0;
    EXPECT_EQ(rknn_init(&ctx, image.data(), static_cast<uint32_t>(image.size()), flags, ext), RKNN_SUCC)
        << last_error();
    opened_.push_back(ctx);
    return ctx;
  }

  static rknn_mem_size mem_size(rknn_context ctx) {
    rknn_mem_size m{};
    EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &m, sizeof m), RKNN_SUCC) << last_error();
    return m;
  }

  static void set_input(rknn_context ctx, const std::vector<float>& x) {
    rknn_input in{};
    in.buf = const_cast<float*>(x.data());
    in.size = static_cast<uint32_t>(x.size() * sizeof(float));
    in.type = RKNN_TENSOR_FLOAT32;
    in.fmt = RKNN_TENSOR_NCHW;
    ASSERT_EQ(rknn_inputs_set(ctx, 1, &in), RKNN_SUCC) << last_error();
  }

  // Output 0 of a run on `x` as float32 bytes (empty when the run fails).
  static std::vector<std::uint8_t> run(rknn_context ctx, const std::vector<float>& x) {
    set_input(ctx, x);
    if (rknn_run(ctx, nullptr) != RKNN_SUCC) return {};
    rknn_output out{};
    out.want_float = 1;
    EXPECT_EQ(rknn_outputs_get(ctx, 1, &out, nullptr), RKNN_SUCC) << last_error();
    std::vector<std::uint8_t> y(static_cast<std::uint8_t*>(out.buf), static_cast<std::uint8_t*>(out.buf) + out.size);
    EXPECT_EQ(rknn_outputs_release(ctx, 1, &out), RKNN_SUCC);
    return y;
  }

  // Internal memory for a context created with RKNN_FLAG_MEM_ALLOC_OUTSIDE.
  rknn_tensor_mem* give_internal(rknn_context ctx) {
    rknn_tensor_mem* m = rknn_create_mem(ctx, mem_size(ctx).total_internal_size);
    EXPECT_NE(m, nullptr) << last_error();
    EXPECT_EQ(rknn_set_internal_mem(ctx, m), RKNN_SUCC) << last_error();
    return m;
  }

  fs::path dir_;
  std::vector<rknn_context> opened_;
};

TEST_F(RknnWeightMem, MemAllocOutsideRunsOnlyOnceWeightAndInternalMemoryAreGiven) {
  auto image = compile(test::kLeNetOnnx);
  const std::vector<float> x = uniform(784, 5);
  rknn_context normal = init(image);
  const auto expected = run(normal, x);
  ASSERT_EQ(expected.size(), 40u);
  const rknn_mem_size normal_sizes = mem_size(normal);
  rknn_context ctx = init(image, RKNN_FLAG_MEM_ALLOC_OUTSIDE);
  const rknn_mem_size sizes = mem_size(ctx);
  EXPECT_EQ(sizes.total_weight_size, normal_sizes.total_weight_size);
  EXPECT_GT(sizes.total_weight_size, 40000u);  // LeNet's float32 weights
  EXPECT_EQ(sizes.total_dma_allocated_size + sizes.total_weight_size + sizes.total_internal_size,
            normal_sizes.total_dma_allocated_size)
      << "the context allocated weights or intermediates itself";
  // No weight memory: the run says which call and how many bytes.
  EXPECT_TRUE(run(ctx, x).empty());
  EXPECT_TRUE(contains(last_error(), "rknn_set_weight_mem")) << last_error();
  EXPECT_TRUE(contains(last_error(), std::to_string(sizes.total_weight_size))) << last_error();
  // Too small: refused, naming the size to query.
  rknn_tensor_mem* small = rknn_create_mem(ctx, sizes.total_weight_size - 1);
  EXPECT_EQ(rknn_set_weight_mem(ctx, small), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "total_weight_size")) << last_error();
  // The memory receives the model's weights (the weights section of the image).
  rknn_tensor_mem* weights = rknn_create_mem(ctx, sizes.total_weight_size);
  ASSERT_NE(weights, nullptr);
  std::memset(weights->virt_addr, 0xA5, weights->size);
  ASSERT_EQ(rknn_set_weight_mem(ctx, weights), RKNN_SUCC) << last_error();
  const auto* w = static_cast<const std::uint8_t*>(weights->virt_addr);
  EXPECT_NE(std::search(image.begin(), image.end(), w, w + sizes.total_weight_size), image.end())
      << "rknn_set_weight_mem did not write the model's weights into the memory";
  // Still no internal memory (MEM_ALLOC_OUTSIDE: all of it is the application's).
  EXPECT_TRUE(run(ctx, x).empty());
  EXPECT_TRUE(contains(last_error(), "rknn_set_internal_mem")) << last_error();
  rknn_tensor_mem* internal = give_internal(ctx);
  EXPECT_EQ(run(ctx, x), expected) << last_error();
  for (rknn_tensor_mem* m : {small, weights, internal}) EXPECT_EQ(rknn_destroy_mem(ctx, m), RKNN_SUCC);
  for (rknn_context c : {ctx, normal}) EXPECT_EQ(rknn_destroy(c), RKNN_SUCC);
}

TEST_F(RknnWeightMem, RunsRefuseWeightMemoryThatWasOverwrittenOrDestroyed) {
  auto image = compile(test::kLeNetOnnx);
  const std::vector<float> x = uniform(784, 6);
  rknn_context ctx = init(image, RKNN_FLAG_MEM_ALLOC_OUTSIDE);
  rknn_context other = init(image);
  const std::uint32_t size = mem_size(ctx).total_weight_size;
  rknn_tensor_mem* internal = give_internal(ctx);
  rknn_tensor_mem* weights = rknn_create_mem2(ctx, size, RKNN_FLAG_MEMORY_NON_CACHEABLE);
  ASSERT_EQ(rknn_set_weight_mem(ctx, weights), RKNN_SUCC) << last_error();
  const auto expected = run(ctx, x);
  ASSERT_EQ(expected.size(), 40u) << last_error();
  // The application writes into the weights: a board's NPU would compute with them.
  static_cast<std::uint8_t*>(weights->virt_addr)[100] ^= 0xFF;
  EXPECT_TRUE(run(ctx, x).empty());
  EXPECT_TRUE(contains(last_error(), "byte 100 of")) << last_error();
  EXPECT_TRUE(contains(last_error(), "no longer holds the model's weights")) << last_error();
  // Set again: the runtime rewrites them.
  ASSERT_EQ(rknn_set_weight_mem(ctx, weights), RKNN_SUCC) << last_error();
  EXPECT_EQ(run(ctx, x), expected);
  // Destroyed while set: the next run names it.
  ASSERT_EQ(rknn_destroy_mem(ctx, weights), RKNN_SUCC);
  EXPECT_TRUE(run(ctx, x).empty());
  EXPECT_TRUE(contains(last_error(), "destroyed")) << last_error();
  // A stale pointer, memory of another context, a bad context: refused.
  EXPECT_EQ(rknn_set_weight_mem(ctx, weights), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "not a live rknn_tensor_mem")) << last_error();
  rknn_tensor_mem* foreign = rknn_create_mem(other, size);
  EXPECT_EQ(rknn_set_weight_mem(ctx, foreign), RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "belongs to context")) << last_error();
  EXPECT_EQ(rknn_set_weight_mem(ctx + 1000, foreign), RKNN_ERR_CTX_INVALID);
  EXPECT_EQ(rknn_set_weight_mem(ctx, nullptr), RKNN_ERR_PARAM_INVALID);
  // Memory of no context serves it.
  rknn_tensor_mem* unowned = rknn_create_mem2(0, size, RKNN_MEM_FLAG_ALLOC_NO_CONTEXT);
  ASSERT_EQ(rknn_set_weight_mem(ctx, unowned), RKNN_SUCC) << last_error();
  EXPECT_EQ(run(ctx, x), expected);
  // Cacheable memory: CPU writes that did not reach the device do not count (the NPU does
  // not see them, as on a board) ...
  rknn_tensor_mem* cached = rknn_create_mem2(ctx, size, RKNN_FLAG_MEMORY_CACHEABLE);
  ASSERT_EQ(rknn_set_weight_mem(ctx, cached), RKNN_SUCC) << last_error();
  static_cast<std::uint8_t*>(cached->virt_addr)[7] ^= 0xFF;
  EXPECT_EQ(run(ctx, x), expected) << last_error();
  // ... until they are synced to it.
  ASSERT_EQ(rknn_mem_sync(ctx, cached, RKNN_MEMORY_SYNC_TO_DEVICE), RKNN_SUCC);
  EXPECT_TRUE(run(ctx, x).empty());
  EXPECT_TRUE(contains(last_error(), "byte 7 of")) << last_error();
  EXPECT_EQ(rknn_destroy_mem(ctx, cached), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy_mem(other, foreign), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy_mem(0, unowned), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy_mem(ctx, internal), RKNN_SUCC);
  for (rknn_context c : {ctx, other}) EXPECT_EQ(rknn_destroy(c), RKNN_SUCC);
}

TEST_F(RknnWeightMem, ContextsSharingWeightsLoadTheModelOnceAndUseOneWeightMemory) {
  auto image = compile(test::kLeNetOnnx);
  const std::vector<float> a = uniform(784, 7), b = uniform(784, 8);
  rknn_context normal = init(image);
  const auto ya = run(normal, a), yb = run(normal, b);
  auto models = [] {
    auto rt = runtime::Runtime::get();
    return rt.ok() ? (*rt)->models().size() : 0;
  };
  rknn_context owner = init(image, RKNN_FLAG_MEM_ALLOC_OUTSIDE);
  const std::size_t loaded = models();
  rknn_init_extend ext{};
  ext.ctx = owner;
  rknn_context sharer = init(image, RKNN_FLAG_SHARE_WEIGHT_MEM | RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE, &ext);
  EXPECT_EQ(models(), loaded) << "the same model image is loaded once";
  const rknn_mem_size own = mem_size(owner), shared = mem_size(sharer);
  EXPECT_EQ(shared.total_weight_size, own.total_weight_size);
  EXPECT_EQ(shared.total_dma_allocated_size, own.total_dma_allocated_size)
      << "neither allocates the weights: the owner's are outside, the sharer uses the owner's";
  rknn_tensor_mem* i1 = give_internal(owner);
  rknn_tensor_mem* i2 = give_internal(sharer);
  // The owner's weights have no memory yet: the sharer cannot run either.
  EXPECT_TRUE(run(sharer, a).empty());
  EXPECT_TRUE(contains(last_error(), "rknn_set_weight_mem")) << last_error();
  rknn_tensor_mem* weights = rknn_create_mem(owner, own.total_weight_size);
  ASSERT_EQ(rknn_set_weight_mem(owner, weights), RKNN_SUCC) << last_error();
  EXPECT_EQ(run(sharer, a), ya);
  EXPECT_EQ(run(owner, b), yb);
  // The owner destroyed first: the sharer keeps the weights.
  EXPECT_EQ(rknn_destroy(owner), RKNN_SUCC);
  EXPECT_EQ(run(sharer, b), yb);
  for (rknn_tensor_mem* m : {i1, weights}) EXPECT_EQ(rknn_destroy_mem(owner, m), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy_mem(sharer, i2), RKNN_SUCC);
  for (rknn_context c : {sharer, normal}) EXPECT_EQ(rknn_destroy(c), RKNN_SUCC);
}

TEST_F(RknnWeightMem, ShareWeightMemNeedsALiveContextWhoseWeightsAreTheSame) {
  auto first = compile(conv_model(1));
  auto same = compile(conv_model(1));
  auto different = compile(conv_model(2));
  rknn_context ctx = init(first);
  rknn_context out = 0;
  EXPECT_EQ(rknn_init(&out, same.data(), static_cast<uint32_t>(same.size()), RKNN_FLAG_SHARE_WEIGHT_MEM, nullptr),
            RKNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(contains(last_error(), "rknn_init_extend")) << last_error();
  rknn_init_extend ext{};
  EXPECT_EQ(rknn_init(&out, same.data(), static_cast<uint32_t>(same.size()), RKNN_FLAG_SHARE_WEIGHT_MEM, &ext),
            RKNN_ERR_PARAM_INVALID);
  ext.ctx = ctx + 1000;
  EXPECT_EQ(rknn_init(&out, same.data(), static_cast<uint32_t>(same.size()), RKNN_FLAG_SHARE_WEIGHT_MEM, &ext),
            RKNN_ERR_CTX_INVALID);
  ext.ctx = ctx;
  EXPECT_EQ(rknn_init(&out, different.data(), static_cast<uint32_t>(different.size()), RKNN_FLAG_SHARE_WEIGHT_MEM,
                      &ext),
            RKNN_ERR_MODEL_INVALID);
  EXPECT_TRUE(contains(last_error(), "not those of context")) << last_error();
  EXPECT_EQ(out, 0u);
  rknn_context sharer = init(same, RKNN_FLAG_SHARE_WEIGHT_MEM, &ext);
  const std::vector<float> x = uniform(64, 9, -1.0f, 1.0f);
  EXPECT_EQ(run(sharer, x), run(ctx, x));
  EXPECT_EQ(mem_size(sharer).total_dma_allocated_size + mem_size(sharer).total_weight_size,
            mem_size(ctx).total_dma_allocated_size);
  // Another image holding the same weights shares them too (the host loads it on its own).
  auto other_image = compile(conv_model(1), " --log_level=3");
  ASSERT_NE(other_image, first);
  rknn_context other = init(other_image, RKNN_FLAG_SHARE_WEIGHT_MEM, &ext);
  EXPECT_EQ(run(other, x), run(ctx, x));
  EXPECT_EQ(mem_size(other).total_dma_allocated_size, mem_size(sharer).total_dma_allocated_size);
  for (rknn_context c : {other, sharer, ctx}) EXPECT_EQ(rknn_destroy(c), RKNN_SUCC);
}

TEST_F(RknnWeightMem, DupContextSharesTheWeightsAndTheirMemory) {
  auto image = compile(test::kLeNetOnnx);
  const std::vector<float> x = uniform(784, 10);
  rknn_context normal = init(image);
  const auto expected = run(normal, x);
  rknn_context ctx = init(image, RKNN_FLAG_MEM_ALLOC_OUTSIDE);
  rknn_context dup = 0;
  ASSERT_EQ(rknn_dup_context(&ctx, &dup), RKNN_SUCC) << last_error();
  opened_.push_back(dup);
  EXPECT_EQ(mem_size(dup).total_dma_allocated_size, mem_size(ctx).total_dma_allocated_size);
  rknn_tensor_mem* internal = give_internal(dup);
  EXPECT_TRUE(run(dup, x).empty());
  EXPECT_TRUE(contains(last_error(), "rknn_set_weight_mem")) << last_error();
  rknn_tensor_mem* weights = rknn_create_mem(ctx, mem_size(ctx).total_weight_size);
  ASSERT_EQ(rknn_set_weight_mem(ctx, weights), RKNN_SUCC) << last_error();
  EXPECT_EQ(run(dup, x), expected) << last_error();
  EXPECT_EQ(rknn_destroy_mem(ctx, weights), RKNN_SUCC);
  EXPECT_EQ(rknn_destroy_mem(dup, internal), RKNN_SUCC);
  for (rknn_context c : {dup, ctx, normal}) EXPECT_EQ(rknn_destroy(c), RKNN_SUCC);
}

}  // namespace
}  // namespace svp
