// LeNet (models/lenet_fashion_mnist.onnx, one 1x1x28x28 float input, 10 outputs) as the small
// model of the RKNN runtime tests: compiled float for a platform, a context of it, an input
// set, a run, its output, the NPU load. Each helper reports a failure to GoogleTest where it
// happens and returns an empty image, a zero context, an RKNN error or an empty output, so the
// caller's ASSERTs stop the test.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "rknn/rknn_api.h"
#include "rknn_test_support.h"
#include "runtime/rknn_context.h"
#include "target/device_profile.h"

namespace svp::test {

inline const std::string kLeNetOnnx = SVP_SOURCE_DIR "/models/lenet_fashion_mnist.onnx";

// `onnx` compiled float for `soc` (an RKNN platform name), as svp_atc would with these flags.
inline std::vector<std::uint8_t> compile_float(const std::string& onnx, const char* soc) {
  compiler::CompileOptions o;
  o.model = onnx;
  o.soc_version = target::find_profile(soc);
  o.compile_mode = "float";
  o.command_line = std::string("svp_atc --framework=5 --model=") + onnx + " --soc_version=" + soc;
  auto r = compiler::compile(o);
  if (!r.ok()) {
    ADD_FAILURE() << r.status().message();
    return {};
  }
  return r->model.image;
}

// LeNet compiled float for `soc`.
inline std::vector<std::uint8_t> compile_lenet(const char* soc) { return compile_float(kLeNetOnnx, soc); }

// A context of `image` made with rknn_init(`flags`); 0 when that fails.
inline rknn_context init_image(const std::vector<std::uint8_t>& image, std::uint32_t flags = 0) {
  rknn_context ctx = 0;
  EXPECT_EQ(rknn_init(&ctx, const_cast<std::uint8_t*>(image.data()), static_cast<uint32_t>(image.size()), flags,
                      nullptr),
            RKNN_SUCC)
      << runtime::rknn::last_error();
  return ctx;
}

// A context of LeNet compiled for `soc`; 0 when compiling or rknn_init fails.
inline rknn_context init_lenet(const char* soc, std::uint32_t flags = 0) {
  const std::vector<std::uint8_t> image = compile_lenet(soc);
  if (image.empty()) return 0;
  return init_image(image, flags);
}

// Sets `x` (784 floats, NCHW) as the input; rknn_inputs_set's code.
inline int set_lenet_input(rknn_context ctx, const std::vector<float>& x) {
  rknn_input in;
  std::memset(&in, 0, sizeof in);
  in.buf = const_cast<float*>(x.data());  // read only: the runtime copies it
  in.size = static_cast<uint32_t>(x.size() * sizeof(float));
  in.type = RKNN_TENSOR_FLOAT32;
  in.fmt = RKNN_TENSOR_NCHW;
  const int r = rknn_inputs_set(ctx, 1, &in);
  EXPECT_EQ(r, RKNN_SUCC) << runtime::rknn::last_error();
  return r;
}

// One blocking run on the same seeded input every time; the first failing call's code.
inline int run_lenet(rknn_context ctx) {
  if (const int r = set_lenet_input(ctx, uniform(28 * 28, 3)); r != RKNN_SUCC) return r;
  return rknn_run(ctx, nullptr);
}

// The output of the last run as floats; empty when rknn_outputs_get fails.
inline std::vector<float> lenet_output(rknn_context ctx) {
  rknn_output out;
  std::memset(&out, 0, sizeof out);
  out.want_float = 1;
  if (rknn_outputs_get(ctx, 1, &out, nullptr) != RKNN_SUCC) {
    ADD_FAILURE() << runtime::rknn::last_error();
    return {};
  }
  std::vector<float> y(static_cast<const float*>(out.buf), static_cast<const float*>(out.buf) + out.size / sizeof(float));
  EXPECT_EQ(rknn_outputs_release(ctx, 1, &out), RKNN_SUCC);
  return y;
}

// RKNN_QUERY_SVP_NPU_LOAD: each core's busy percentage over the last second.
inline rknn_svp_npu_load npu_load_of(rknn_context ctx) {
  rknn_svp_npu_load l{};
  EXPECT_EQ(rknn_query(ctx, RKNN_QUERY_SVP_NPU_LOAD, &l, sizeof l), RKNN_SUCC) << runtime::rknn::last_error();
  return l;
}

}  // namespace svp::test
