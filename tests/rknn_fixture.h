// What the librknnrt test fixtures share (tests/rknn, tests/rknn_convert): a temporary
// directory per test and the contexts it opened (destroyed after it), one run of input 0
// to output 0 as float32, onnxruntime's output on the same input, and the small 3x3
// convolutions several tests compile for RK3588.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "npy_io.h"
#include "onnx_builder.h"
#include "onnxruntime_oracle.h"
#include "rknn/rknn_api.h"
#include "runtime/rknn_context.h"
#include "target/device_profile.h"

namespace svp::test {

// Sets input 0 from `data` (`bytes` of `type` in `fmt`), runs, returns output 0 as float32
// (want_float); failures are test failures naming the call.
inline std::vector<float> rknn_run_float(rknn_context ctx, const void* data, std::size_t bytes, rknn_tensor_type type,
                                         rknn_tensor_format fmt, bool pass_through = false) {
  rknn_input in;
  std::memset(&in, 0, sizeof in);
  in.buf = const_cast<void*>(data);
  in.size = static_cast<uint32_t>(bytes);
  in.type = type;
  in.fmt = fmt;
  in.pass_through = pass_through ? 1 : 0;
  EXPECT_EQ(rknn_inputs_set(ctx, 1, &in), RKNN_SUCC) << runtime::rknn::last_error();
  EXPECT_EQ(rknn_run(ctx, nullptr), RKNN_SUCC) << runtime::rknn::last_error();
  rknn_output out;
  std::memset(&out, 0, sizeof out);
  out.want_float = 1;
  EXPECT_EQ(rknn_outputs_get(ctx, 1, &out, nullptr), RKNN_SUCC) << runtime::rknn::last_error();
  std::vector<float> y;
  if (out.buf != nullptr) {
    y.resize(out.size / sizeof(float));
    std::memcpy(y.data(), out.buf, y.size() * sizeof(float));
  }
  EXPECT_EQ(rknn_outputs_release(ctx, 1, &out), RKNN_SUCC) << runtime::rknn::last_error();
  return y;
}

// A fixture with a fresh directory `dir_` (<tmp>/svp_<prefix>_<pid>_<test>) and the
// contexts init() opened, both gone after the test.
class RknnFixture : public ::testing::Test {
 protected:
  explicit RknnFixture(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("svp_" + prefix_ + "_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    for (rknn_context ctx : opened_) (void)rknn_destroy(ctx);
    opened_.clear();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // rknn_init of a copy of `image` (rknn_init copies: the caller's buffer may go).
  rknn_context init_image(std::vector<std::uint8_t> image) {
    rknn_context ctx = 0;
    EXPECT_EQ(rknn_init(&ctx, image.data(), static_cast<uint32_t>(image.size()), 0, nullptr), RKNN_SUCC)
        << runtime::rknn::last_error();
    opened_.push_back(ctx);
    return ctx;
  }

  // onnxruntime's output `name` of `onnx` on `x` (float32 of `shape`) given as `input`.
  std::vector<float> onnxruntime_output(const std::string& onnx, const std::string& input,
                                        const std::vector<std::int64_t>& shape, const std::vector<float>& x,
                                        std::string name) {
    const std::string in_path = (dir_ / "ort_input.npy").string();
    write_npy_f32(in_path, shape, x);
    const std::string cmd = onnxruntime_command(onnx, (dir_ / "ort").string(), {{input, in_path}});
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    for (char& c : name) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') c = '_';
    }
    return read_npy_f32((dir_ / "ort" / (name + ".npy")).string()).data;
  }

  // Conv `cin` -> `cout` channels, 3x3, pads 1, on `hw` x `hw` (weights `w`, bias `b` or
  // none), compiled for RK3588: float, or int8 (minmax) calibrated on `calibration` items.
  std::vector<std::uint8_t> conv3x3_image(std::int64_t cin, std::int64_t cout, std::int64_t hw,
                                          const std::vector<float>& w, const std::vector<float>& b,
                                          const std::vector<std::vector<float>>& calibration = {}) {
    const std::string path = (dir_ / "conv.onnx").string();
    OnnxBuilder m;
    m.input("x", {1, cin, hw, hw}).output("y", {1, cout, hw, hw});
    m.initializer("w", {cout, cin, 3, 3}, w);
    std::vector<std::string> in = {"x", "w"};
    if (!b.empty()) {
      m.initializer("b", {cout}, b);
      in.push_back("b");
    }
    auto& conv = m.node("Conv", in, {"y"});
    OnnxBuilder::attr_ints(conv, "pads", {1, 1, 1, 1});
    OnnxBuilder::attr_ints(conv, "kernel_shape", {3, 3});
    std::ofstream(path, std::ios::binary) << m.bytes();
    compiler::CompileOptions o;
    o.model = path;
    o.soc_version = target::find_profile("RK3588");
    o.compile_mode = "float";
    o.command_line = "svp_atc --framework=5 --model=" + path + " --soc_version=RK3588";
    if (!calibration.empty()) {
      o.compile_mode = "0";
      o.calibration = "minmax";
      o.image_list = write_calibration_list(dir_.string(), {1, cin, hw, hw}, calibration);
    }
    auto r = compiler::compile(o);
    if (!r.ok()) {
      ADD_FAILURE() << r.status().message();
      return {};
    }
    return r->model.image;
  }

  std::string prefix_;
  std::filesystem::path dir_;
  std::vector<rknn_context> opened_;
};

}  // namespace svp::test
