// The compiler as a pipeline of registered passes (docs/compiler.md "Pipeline").
//
// Every stage between import and emit is a registered pass: a name, what it requires of
// the graph and what it guarantees (facts below), and the options under which it applies.
// run_pipeline() runs a list of them in order. Before running anything it checks the
// list against the options: a pass that requires a fact no earlier pass guarantees is a
// programming error, reported as err::kInternalError naming both. While running it logs
// each pass's node counts and time, and with --dump_graph writes the graph after each pass
// (and after import) as NN_pass.dot and NN_pass.onnx. compile_graph() runs
// default_pipeline(); tests run any pass alone by name.
//
// Thread-compatible: the registry is immutable; a PassContext belongs to one compile.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "compiler/graph.h"
#include "compiler/options.h"
#include "compiler/pass.h"

namespace svp::compiler {

// What holds of the graph between passes.
enum Fact : unsigned {
  kFactImported = 1u << 0,         // static shapes and dtypes, constants folded (onnx_import.h)
  kFactSorted = 1u << 1,           // no dead nodes, topological order
  kFactKernels = 1u << 2,          // every op has a kernel
  kFactCalibrationData = 1u << 3,  // the calibration set is loaded (PassContext::quant)
  kFactCalibrated = 1u << 4,       // the float activations' encodings are known
  kFactQuantized = 1u << 5,        // values and weights carry their integer types
  kFactPlaced = 1u << 6,           // every node has its target (NPU / AI-CPU)
  kFactSegmented = 1u << 7,        // segment starts are marked
};
// "sorted, kernels" for kFactSorted | kFactKernels.
std::string fact_names(unsigned facts);
// What import_onnx() guarantees: the facts the pipeline starts from.
inline constexpr unsigned kImportFacts = kFactImported | kFactSorted;

struct PassInfo {
  const char* name;
  const char* does;  // one line, for the docs and the log
  unsigned requires = 0;
  unsigned guarantees = 0;
  unsigned invalidates = 0;  // facts that may stop holding (kFactSorted: it leaves dead nodes)
  bool (*applies)(const CompileOptions&) = nullptr;  // null: always
  Status (*run)(Graph&, PassContext&) = nullptr;
};

// Every pass, once each, in the order the default pipeline first runs it.
const std::vector<PassInfo>& registered_passes();
const PassInfo* find_pass(std::string_view name);
// The passes compile_graph() runs, in order (a pass may run twice).
const std::vector<std::string_view>& default_pipeline();

// Errors: err::kInternalError for an unknown name or a requirement no earlier pass
// guarantees; otherwise the first failing pass's error.
Status run_pipeline(Graph& g, PassContext& ctx, const std::vector<std::string_view>& names,
                    unsigned facts = kImportFacts);

// --dump_graph: writes `g` as NN_name.dot and NN_name.onnx into options.dump_graph (a
// no-op without it) and counts ctx.dumped up. err::kWriteFile when a file cannot be written.
Status dump_graph(const Graph& g, PassContext& ctx, const std::string& name);

}  // namespace svp::compiler
