// Test helpers for executing models through the C API the way vendor samples do
// (spec §2.2): one allocation per data input (size_by_index × batch at the default
// stride), then task_buf and work_buf, then the outputs; plus strided fill/read helpers
// and a reference evaluation of a built model, layer by layer, to compare against.
#pragma once

#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "acl/svp_acl.h"
#include "kernels/compiled_program.h"
#include "kernels/invoke.h"
#include "compiler/builder.h"
#include "test_support.h"

namespace svp::test {

// `n` floats uniform in [lo, hi), reproducible from `seed`.
inline std::vector<float> random_floats(std::size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& f : v) f = d(rng);
  return v;
}

// A loaded model with its description and the vendor-style datasets.
class ModelRun {
 public:
  // Loads `image` (kept alive by the caller) and builds the datasets for `batch` items.
  // `cached`: data buffers come from svp_acl_rt_malloc_cached.
  explicit ModelRun(const std::vector<std::uint8_t>& image, std::uint64_t batch = 1, bool cached = false)
      : batch_(batch), cached_(cached) {
    EXPECT_EQ(svp_acl_mdl_load_from_mem(image.data(), image.size(), &id_), SVP_ACL_SUCCESS)
        << svp_acl_get_recent_err_msg();
    desc_ = svp_acl_mdl_create_desc();
    EXPECT_EQ(svp_acl_mdl_get_desc(desc_, id_), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
    input_ = svp_acl_mdl_create_dataset();
    output_ = svp_acl_mdl_create_dataset();
    const size_t m = svp_acl_mdl_get_num_inputs(desc_);
    for (size_t i = 0; i < m; ++i) {
      const bool data = i + 2 < m;
      add(input_, svp_acl_mdl_get_input_size_by_index(desc_, i) * (data ? batch : 1),
          svp_acl_mdl_get_input_default_stride(desc_, i), data && cached);
    }
    for (size_t i = 0; i < svp_acl_mdl_get_num_outputs(desc_); ++i) {
      add(output_, svp_acl_mdl_get_output_size_by_index(desc_, i) * batch,
          svp_acl_mdl_get_output_default_stride(desc_, i), cached);
    }
    if (batch != 1) {
      size_t dyn = 0;
      EXPECT_EQ(svp_acl_mdl_get_input_index_by_name(desc_, SVP_ACL_DYNAMIC_TENSOR_NAME, &dyn), SVP_ACL_SUCCESS);
      EXPECT_EQ(svp_acl_mdl_set_dynamic_batch_size(id_, input_, dyn, batch), SVP_ACL_SUCCESS)
          << svp_acl_get_recent_err_msg();
    }
  }
  ~ModelRun() {
    for (void* p : memory_) {
      EXPECT_EQ(svp_acl_rt_free(p), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
    }
    for (svp_acl_data_buffer* b : buffers_) {
      EXPECT_EQ(svp_acl_destroy_data_buffer(b), SVP_ACL_SUCCESS);
    }
    EXPECT_EQ(svp_acl_mdl_destroy_dataset(input_), SVP_ACL_SUCCESS);
    EXPECT_EQ(svp_acl_mdl_destroy_dataset(output_), SVP_ACL_SUCCESS);
    EXPECT_EQ(svp_acl_mdl_destroy_desc(desc_), SVP_ACL_SUCCESS);
    if (loaded_) {
      EXPECT_EQ(svp_acl_mdl_unload(id_), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
    }
  }
  ModelRun(const ModelRun&) = delete;
  ModelRun& operator=(const ModelRun&) = delete;

  uint32_t id() const { return id_; }
  svp_acl_mdl_desc* desc() const { return desc_; }
  svp_acl_mdl_dataset* input() const { return input_; }
  svp_acl_mdl_dataset* output() const { return output_; }
  svp_acl_data_buffer* in_buf(size_t i) const { return svp_acl_mdl_get_dataset_buffer(input_, i); }
  svp_acl_data_buffer* out_buf(size_t i) const { return svp_acl_mdl_get_dataset_buffer(output_, i); }
  uint8_t* in_ptr(size_t i) const { return static_cast<uint8_t*>(svp_acl_get_data_buffer_addr(in_buf(i))); }
  uint8_t* out_ptr(size_t i) const { return static_cast<uint8_t*>(svp_acl_get_data_buffer_addr(out_buf(i))); }
  void mark_unloaded() { loaded_ = false; }

  svp_acl_error execute() { return svp_acl_mdl_execute(id_, input_, output_); }
  svp_acl_error execute_async(svp_acl_rt_stream s) { return svp_acl_mdl_execute_async(id_, input_, output_, s); }

  // Writes dense row-major `values` (one batch item) into data input `i` at its stride.
  void set_input(size_t i, const void* dense, std::uint64_t item = 0) { copy_rows(i, dense, item, true); }
  // Reads output `i` (one batch item) into a dense vector of element type T.
  template <typename T>
  std::vector<T> output(size_t i, std::uint64_t item = 0) {
    std::vector<T> v(row_bytes(false, i) * rows(false, i) / sizeof(T));
    copy_rows(i, v.data(), item, false);
    return v;
  }

 private:
  void add(svp_acl_mdl_dataset* ds, size_t size, size_t stride, bool cached) {
    void* p = nullptr;
    const svp_acl_error e = cached ? svp_acl_rt_malloc_cached(&p, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY)
                                   : svp_acl_rt_malloc(&p, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY);
    ASSERT_EQ(e, SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
    std::memset(p, 0, size);
    if (cached) {
      EXPECT_EQ(svp_acl_rt_mem_flush(p, size), SVP_ACL_SUCCESS);
    }
    memory_.push_back(p);
    svp_acl_data_buffer* b = svp_acl_create_data_buffer(p, size, stride);
    buffers_.push_back(b);
    EXPECT_EQ(svp_acl_mdl_add_dataset_buffer(ds, b), SVP_ACL_SUCCESS);
  }
  size_t elem(bool in, size_t i) const {
    return svp_acl_data_type_size(in ? svp_acl_mdl_get_input_data_type(desc_, i)
                                     : svp_acl_mdl_get_output_data_type(desc_, i)) / 8;
  }
  svp_acl_mdl_io_dims dims(bool in, size_t i) const {
    svp_acl_mdl_io_dims d{};
    EXPECT_EQ(in ? svp_acl_mdl_get_input_dims(desc_, i, &d) : svp_acl_mdl_get_output_dims(desc_, i, &d),
              SVP_ACL_SUCCESS);
    return d;
  }
  size_t row_bytes(bool in, size_t i) const {
    const auto d = dims(in, i);
    return static_cast<size_t>(d.dims[d.dim_count - 1]) * elem(in, i);
  }
  size_t rows(bool in, size_t i) const {
    const auto d = dims(in, i);
    size_t r = 1;
    for (size_t k = 0; k + 1 < d.dim_count; ++k) r *= static_cast<size_t>(d.dims[k]);
    return r;
  }
  void copy_rows(size_t i, const void* dense_in, std::uint64_t item, bool in) {
    svp_acl_data_buffer* b = in ? in_buf(i) : out_buf(i);
    const size_t stride = svp_acl_get_data_buffer_stride(b);
    const size_t rb = row_bytes(in, i);
    const size_t n = rows(in, i);
    uint8_t* base = static_cast<uint8_t*>(svp_acl_get_data_buffer_addr(b)) + item * n * stride;
    for (size_t r = 0; r < n; ++r) {
      if (in) {
        std::memcpy(base + r * stride, static_cast<const uint8_t*>(dense_in) + r * rb, rb);
      } else {
        std::memcpy(static_cast<uint8_t*>(const_cast<void*>(dense_in)) + r * rb, base + r * stride, rb);
      }
    }
  }

  std::uint64_t batch_;
  bool cached_;
  uint32_t id_ = 0;
  bool loaded_ = true;
  svp_acl_mdl_desc* desc_ = nullptr;
  svp_acl_mdl_dataset* input_ = nullptr;
  svp_acl_mdl_dataset* output_ = nullptr;
  std::vector<void*> memory_;
  std::vector<svp_acl_data_buffer*> buffers_;
};

// Evaluates a built model with the model's own compiled kernels directly (no runtime, no
// strides, no datasets): the oracle for the executor's plumbing. The kernels are those
// svp_acl_mdl_load_* compiles (CompiledProgram with its default options, fast paths on,
// one thread); they are checked against the reference kernels in kernels_fast_path_test
// (float32 fast paths differ from the reference by rounding, so comparing the executor
// with the reference kernels would test float reassociation, not the plumbing).
// `inputs` are dense, one per data input; returns the dense outputs in model order.
inline std::vector<kernels::OwnedTensor> reference_outputs(const compiler::BuiltModel& m,
                                                           const std::vector<const void*>& inputs) {
  const model::Program& p = m.program;
  std::vector<kernels::OwnedTensor> values(p.tensors.size());
  std::vector<std::uint8_t> work(p.flags.work_buf_size + 64);
  std::uint8_t* wb = work.data() + (64 - reinterpret_cast<std::uintptr_t>(work.data()) % 64) % 64;
  std::vector<void*> data(p.tensors.size());
  for (std::size_t t = 0; t < p.tensors.size(); ++t) {
    const model::Tensor& tensor = p.tensors[t];
    if (tensor.placement == model::Placement::kWorkBuf) {
      data[t] = wb + tensor.offset;
      continue;
    }
    values[t].reset(tensor.dtype, tensor.dims);
    if (tensor.placement == model::Placement::kModelInput) {
      std::memcpy(values[t].view().data, inputs.at(static_cast<std::size_t>(tensor.io_index)), values[t].view().bytes());
    } else if (tensor.placement == model::Placement::kWeights) {
      std::memcpy(values[t].view().data, m.weights.data() + tensor.offset, tensor.size);
    }
    if (!tensor.quant.empty()) values[t].set_quant(tensor.quant);
    data[t] = values[t].view().data;
  }
  auto compiled = kernels::CompiledProgram::compile(p, m.weights.data(), m.weights.size(), kernels::CompileOptions{});
  EXPECT_TRUE(compiled.ok()) << compiled.status().message();
  if (compiled.ok()) {
    for (std::size_t l = 0; l < p.layers.size(); ++l) {
      const Status s = compiled.value()->run_layer(l, data, {});
      EXPECT_TRUE(s.ok()) << p.layers[l].name << ": " << s.message();
    }
  }
  std::vector<kernels::OwnedTensor> outs;
  for (std::int32_t t : p.output_tensors()) outs.push_back(std::move(values[static_cast<std::size_t>(t)]));
  return outs;
}

}  // namespace svp::test
