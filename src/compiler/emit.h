// Emit: the compiler's Graph → an offline model (model::Program + weights + the .om bytes)
// through the ModelBuilder, which plans the work_buf, sizes the task_buf and validates.
//
// Graph inputs become model inputs (NCHW for 4-D, else ND) with their AIPP configuration;
// constants read by live nodes become weights; nodes become layers in graph order with
// their target (NPU / AI-CPU) and segment starts (Node::starts_segment; none set = one
// segment per layer). The model is named after the --output basename (what dump_list and
// profiles call it), falling back to the ONNX graph name. Deterministic: the same graph
// and options give the same bytes (no time stamps, no address-dependent order).
#pragma once

#include "common/status.h"
#include "compiler/builder.h"
#include "compiler/graph.h"
#include "compiler/options.h"

namespace svp::compiler {

Result<BuiltModel> emit(const Graph& graph, const CompileOptions& options);
// The program and weights only, the image left empty: for running the model in-process
// (CompiledEvaluator), where a serialised copy of the weights would only add memory.
Result<BuiltModel> emit_program(const Graph& graph, const CompileOptions& options);
// The same, releasing each constant of `graph` once the model holds its copy: the graph's
// weights and the model's never exist in full side by side (the compiler's peak memory).
// `graph` keeps its structure but no constant data afterwards.
// With `image` false the model's image is left empty (ModelBuilder::build_without_image).
Result<BuiltModel> emit_consuming(Graph& graph, const CompileOptions& options, bool image = true);

// Hands the pages of freed heap memory back to the system (glibc's malloc keeps them in
// its free lists): after large temporaries, so that the next large allocation does not
// add to them in the compiler's peak resident memory. No-op off glibc.
void return_free_memory();

// The model name emit gives: the basename of options.output without ".om", else the
// graph's name.
std::string model_name_for(const Graph& graph, const CompileOptions& options);

}  // namespace svp::compiler
