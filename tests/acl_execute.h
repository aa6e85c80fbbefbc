// Executes a compiled model through the C API (svp_acl_mdl_*) as an application does, for
// tests that compare what the runtime executes with what the compiler predicted. The
// caller has initialised the runtime and set a device.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "acl/svp_acl.h"
#include "acl/svp_acl_mdl.h"
#include "acl/svp_acl_rt.h"
#include "compiler/builder.h"

namespace svp::test {

// The model's first output (float32) for each of `items` fed to its first input (float32,
// packed); the dataset holds the data input, then task_buf and work_buf, as SVP models
// take them. Failures are reported with gtest.
inline std::vector<std::vector<float>> execute_first_output(const compiler::BuiltModel& m,
                                                            const std::vector<std::vector<float>>& items) {
  std::vector<std::vector<float>> outputs;
  std::uint32_t id = 0;
  EXPECT_EQ(svp_acl_mdl_load_from_mem(m.image.data(), m.image.size(), &id), SVP_ACL_SUCCESS)
      << svp_acl_get_recent_err_msg();
  svp_acl_mdl_desc* desc = svp_acl_mdl_create_desc();
  EXPECT_EQ(svp_acl_mdl_get_desc(desc, id), SVP_ACL_SUCCESS);
  std::vector<void*> mem;
  std::vector<svp_acl_data_buffer*> bufs;
  const auto add = [&](svp_acl_mdl_dataset* d, std::size_t size, std::size_t stride) {
    void* p = nullptr;
    EXPECT_EQ(svp_acl_rt_malloc(&p, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY), SVP_ACL_SUCCESS);
    std::memset(p, 0, size);
    mem.push_back(p);
    bufs.push_back(svp_acl_create_data_buffer(p, size, stride));
    EXPECT_EQ(svp_acl_mdl_add_dataset_buffer(d, bufs.back()), SVP_ACL_SUCCESS);
  };
  svp_acl_mdl_dataset* in = svp_acl_mdl_create_dataset();
  svp_acl_mdl_dataset* out = svp_acl_mdl_create_dataset();
  for (std::size_t i = 0; i < svp_acl_mdl_get_num_inputs(desc); ++i) {
    add(in, svp_acl_mdl_get_input_size_by_index(desc, i), svp_acl_mdl_get_input_default_stride(desc, i));
  }
  const std::size_t in_size = svp_acl_mdl_get_input_size_by_index(desc, 0);
  const std::size_t out_size = svp_acl_mdl_get_output_size_by_index(desc, 0);
  add(out, out_size, svp_acl_mdl_get_output_default_stride(desc, 0));
  for (const std::vector<float>& x : items) {
    EXPECT_EQ(in_size, x.size() * sizeof(float));  // a float input, packed
    std::memcpy(mem[0], x.data(), std::min(in_size, x.size() * sizeof(float)));
    EXPECT_EQ(svp_acl_mdl_execute(id, in, out), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
    const auto* y = static_cast<const float*>(mem.back());
    outputs.emplace_back(y, y + out_size / sizeof(float));
  }
  for (svp_acl_data_buffer* b : bufs) svp_acl_destroy_data_buffer(b);
  for (void* p : mem) svp_acl_rt_free(p);
  svp_acl_mdl_destroy_dataset(in);
  svp_acl_mdl_destroy_dataset(out);
  svp_acl_mdl_destroy_desc(desc);
  svp_acl_mdl_unload(id);
  return outputs;
}

// Cosine of two sets of outputs, each taken as one vector (how the accuracy report
// accumulates its inputs).
inline double cosine_over_all(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) {
    for (std::size_t i = 0; i < a[k].size() && i < b[k].size(); ++i) {
      ab += static_cast<double>(a[k][i]) * b[k][i];
      aa += static_cast<double>(a[k][i]) * a[k][i];
      bb += static_cast<double>(b[k][i]) * b[k][i];
    }
  }
  return ab / std::sqrt(aa * bb);
}

}  // namespace svp::test
