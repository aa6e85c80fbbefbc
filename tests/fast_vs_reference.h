// Test helper (gtest): a model's fast program against its reference program, byte for byte.
#pragma once

#include <gtest/gtest.h>

#include "kernel_runner.h"

namespace svp::testing {

// Fills the model's inputs (input k with seed + k, values in [lo, hi]), runs the reference
// and the fast program, and expects every output byte to be equal (the int8 rule).
inline void expect_fast_equals_reference(const compiler::BuiltModel& m, const kernels::CompiledProgram& ref,
                                         const kernels::CompiledProgram& fast, std::uint32_t seed, float lo = -1.f,
                                         float hi = 1.f) {
  Execution er(m), ef(m);
  for (std::int32_t t : m.program.input_tensors()) {
    fill_random(er.io(t), m.program.tensors[static_cast<std::size_t>(t)].dtype, seed++, lo, hi);
    ef.io(t) = er.io(t);
  }
  ASSERT_TRUE(er.run(ref).ok());
  const Status st = ef.run(fast);
  ASSERT_TRUE(st.ok()) << st.message();
  for (std::int32_t t : m.program.output_tensors()) EXPECT_EQ(er.io(t), ef.io(t));
}

// Builds b's model, expects layer `layer` of its fast program (on `threads` kernel
// threads) to run `impl`, and its outputs to equal the reference program's byte for byte.
inline void expect_planned_with_reference_bytes(compiler::ModelBuilder& b, std::size_t layer, const char* impl,
                                                int threads, std::uint32_t seed) {
  auto m = b.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto ref = compile(m.value(), false);
  auto fast = compile(m.value(), true, threads);
  EXPECT_EQ(fast->layer_impl(layer), impl);
  expect_fast_equals_reference(m.value(), *ref, *fast, seed);
}

}  // namespace svp::testing
