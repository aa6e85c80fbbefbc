// Shared by the model benchmarks: fail-fast API checking and the vendor-style datasets of
// a loaded model (one default-stride allocation per input and output).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "acl/svp_acl.h"
#include "acl/svp_acl_mdl.h"
#include "acl/svp_acl_rt.h"

namespace bench {

[[noreturn]] inline void fail(const char* what, svp_acl_error e) {
  std::fprintf(stderr, "%s failed: %d %s\n", what, e, svp_acl_get_recent_err_msg());
  std::exit(1);
}

#define BENCH_CHECK(call)                                    \
  do {                                                       \
    const svp_acl_error e_ = (call);                         \
    if (e_ != SVP_ACL_SUCCESS) ::bench::fail(#call, e_);     \
  } while (0)

class ModelBuffers {
 public:
  explicit ModelBuffers(svp_acl_mdl_desc* d) {
    for (size_t i = 0; i < svp_acl_mdl_get_num_inputs(d); ++i) {
      add(in, svp_acl_mdl_get_input_size_by_index(d, i), svp_acl_mdl_get_input_default_stride(d, i));
    }
    for (size_t i = 0; i < svp_acl_mdl_get_num_outputs(d); ++i) {
      add(out, svp_acl_mdl_get_output_size_by_index(d, i), svp_acl_mdl_get_output_default_stride(d, i));
    }
  }
  ~ModelBuffers() {
    for (void* p : mem_) BENCH_CHECK(svp_acl_rt_free(p));
    for (auto* b : bufs_) BENCH_CHECK(svp_acl_destroy_data_buffer(b));
    BENCH_CHECK(svp_acl_mdl_destroy_dataset(in));
    BENCH_CHECK(svp_acl_mdl_destroy_dataset(out));
  }
  ModelBuffers(const ModelBuffers&) = delete;
  ModelBuffers& operator=(const ModelBuffers&) = delete;

  svp_acl_mdl_dataset* in = svp_acl_mdl_create_dataset();
  svp_acl_mdl_dataset* out = svp_acl_mdl_create_dataset();

 private:
  void add(svp_acl_mdl_dataset* ds, size_t size, size_t stride) {
    void* p = nullptr;
    BENCH_CHECK(svp_acl_rt_malloc(&p, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    std::memset(p, 0, size);
    mem_.push_back(p);
    bufs_.push_back(svp_acl_create_data_buffer(p, size, stride));
    BENCH_CHECK(svp_acl_mdl_add_dataset_buffer(ds, bufs_.back()));
  }
  std::vector<void*> mem_;
  std::vector<svp_acl_data_buffer*> bufs_;
};

// svp_acl_init, device 0, one stream and a model loaded from `image` with its datasets;
// the destructor undoes it all and finalizes.
class BenchModel {
 public:
  explicit BenchModel(const std::vector<std::uint8_t>& image) {
    BENCH_CHECK(svp_acl_init(nullptr));
    BENCH_CHECK(svp_acl_rt_set_device(0));
    BENCH_CHECK(svp_acl_rt_create_stream(&stream));
    BENCH_CHECK(svp_acl_mdl_load_from_mem(image.data(), image.size(), &id));
    desc_ = svp_acl_mdl_create_desc();
    BENCH_CHECK(svp_acl_mdl_get_desc(desc_, id));
    io = std::make_unique<ModelBuffers>(desc_);
  }
  ~BenchModel() {
    io.reset();
    BENCH_CHECK(svp_acl_mdl_destroy_desc(desc_));
    BENCH_CHECK(svp_acl_mdl_unload(id));
    BENCH_CHECK(svp_acl_rt_destroy_stream(stream));
    BENCH_CHECK(svp_acl_rt_reset_device(0));
    BENCH_CHECK(svp_acl_finalize());
  }
  BenchModel(const BenchModel&) = delete;
  BenchModel& operator=(const BenchModel&) = delete;

  svp_acl_rt_stream stream = nullptr;
  std::uint32_t id = 0;
  std::unique_ptr<ModelBuffers> io;

 private:
  svp_acl_mdl_desc* desc_ = nullptr;
};

}  // namespace bench
