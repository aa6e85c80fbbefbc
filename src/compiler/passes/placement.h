// Placement: every node runs on the NPU core or on the AI-CPU, inside one model — never a
// model split by hand (docs/compiler.md "Placement").
//
// Rule, in three steps:
//  1. Nodes named by --force_to_cpu run on the AI-CPU (resolved right after import by
//     force_to_cpu(), so that the graph passes leave them alone).
//  2. A node whose op the target's NPU executes (npu_op(): the target's op support set in
//     its device profile, src/target, with its limits such as MatMul up to 4-D on the SVP
//     chips) runs on the NPU core; every other op with a reference kernel (Gather, TopK,
//     comparisons, …) on the AI-CPU.
//  3. Transitions cost a hand-over on a real NPU, so islands are avoided: an NPU node
//     without cube MACs whose producers and consumers (graph inputs, outputs and
//     constants aside) all run on the AI-CPU moves to the AI-CPU, repeated until nothing
//     moves. A lone Reshape between two AI-CPU ops thus costs no round trip.
// The software NPU computes both targets with the same kernels; the target decides how a
// model executes (AI-CPU layers run between NPU segments, and asynchronously through
// svp_acl_ext_process_aicpu_task, as on the board) and what om.json reports.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "compiler/graph.h"
#include "target/device_profile.h"

namespace svp::compiler {

struct PlacementReport {
  std::size_t npu_nodes = 0;
  std::size_t aicpu_nodes = 0;
  std::uint64_t npu_macs = 0;
  std::uint64_t aicpu_macs = 0;
  std::size_t groups = 0;             // maximal runs of one target in execution order
  std::vector<std::string> cuts;      // "a -> b": edges where the target changes
  std::size_t moved_to_aicpu = 0;     // step 3
  // Nodes whose op the target refuses (neither its NPU nor its CPU fallback takes it):
  // "node (op)". The caller fails the compile naming them (placement_error()).
  std::vector<std::string> refused;
};

// Error kFeatureUnsupported naming the refused nodes and the target, or Ok.
Status placement_error(const PlacementReport& r, const target::DeviceProfile& target);

// True if `target`'s NPU executes node `n` (op and its limits).
bool npu_op(const Graph& g, NodeId n, const target::DeviceProfile& target = target::default_profile());

// Step 2's rule for an op type, as docs/ops.md states it (generated from the profiles, never
// written by hand): "NPU", "NPU up to 4-D operands, else AI-CPU" (MatMul) or "AI-CPU".
// Only meaningful for ops with a kernel; step 3 may still move a cheap node.
std::string npu_placement_rule(const std::string& op,
                               const target::DeviceProfile& target = target::default_profile());

// Step 1: marks the nodes `names` (ONNX node names or the graph's own) as AI-CPU nodes.
// Error kInvalidParam naming an unknown node, with the nodes of that op type if any.
Status force_to_cpu(Graph& g, const std::vector<std::string>& names);

// Steps 2 and 3 on a topologically sorted graph; nodes already on the AI-CPU stay there.
PlacementReport place_nodes(Graph& g, const target::DeviceProfile& target = target::default_profile());

}  // namespace svp::compiler
