// Shared pieces of the C++ API tests (tests/unit/cpp_*_test.cpp): a runtime owned by the
// C++ API per test, and small models built with the internal ModelBuilder (through
// model_io.h, the one place that names the builder's header) and loaded through the C API.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model_io.h"
#include "svp/acl.hpp"
#include "test_support.h"

namespace svp::test {

// x [1, 2, 4, 6] float32 -> Relu -> y. Rows of 6 floats (24 bytes) are padded to a
// default stride of 32, so every copy has to respect strides. `aicpu`: the Relu is an
// AI-CPU operator (asynchronous execution then needs an AI-CPU serving thread).
inline std::vector<std::uint8_t> relu_model_image(bool aicpu = false) {
  compiler::ModelBuilder b("cpp_relu");
  const compiler::TensorId x = b.add_input("x", model::DType::kFloat32, {1, 2, 4, 6});
  compiler::LayerOptions o;
  if (aicpu) o.target = model::Target::kAiCpu;
  b.add_output(b.add_layer("relu", "Relu", {x}, o), "y");
  auto m = b.build();
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? m->image : std::vector<std::uint8_t>{};
}

inline std::vector<float> relu(std::vector<float> v) {
  for (float& f : v) f = f > 0 ? f : 0;
  return v;
}

// A C++-API runtime with one device and context, and the relu model, per test. TearDown
// finalizes explicitly, which also checks that the test released every object.
class CppApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rt = svp::acl::runtime::init();
    dev = svp::acl::device(rt, 0);
    ctx = svp::acl::context(dev);
    mdl = svp::acl::model(rt, relu_model_image());
  }
  void TearDown() override {
    mdl = {};
    ctx = {};
    dev = {};
    if (rt) {
      std::error_code ec;
      rt.finalize(ec);
      EXPECT_FALSE(ec) << svp::acl::last_failure().message;
    }
  }

  svp::acl::runtime rt;
  svp::acl::device dev;
  svp::acl::context ctx;
  svp::acl::model mdl;
};

}  // namespace svp::test

// Expects `stmt` to throw svp::acl::error with vendor code `code` naming `fn`.
#define EXPECT_ACL_THROW(stmt, code, fn)                                                 \
  do {                                                                                   \
    try {                                                                                \
      stmt;                                                                              \
      ADD_FAILURE() << #stmt " did not throw";                                           \
    } catch (const svp::acl::error& e_) {                                                \
      EXPECT_EQ(e_.vendor_code(), (code)) << e_.what();                                  \
      EXPECT_EQ(e_.function(), std::string(fn)) << e_.what();                            \
      EXPECT_FALSE(e_.message().empty());                                                \
      EXPECT_NE(std::string(e_.what()).find(e_.message()), std::string::npos);           \
    }                                                                                    \
  } while (0)
