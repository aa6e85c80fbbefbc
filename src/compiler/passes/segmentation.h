// Segmentation: groups consecutive nodes into segments — the unit the NPU cannot be
// preempted inside — from their estimated cost, so that a high-priority task waits at
// most about one segment (docs/compiler.md "Segments").
//
// Rule: walk the nodes in order, adding each to the current segment while the segment's
// cube MACs (kernels/cost.h) stay within `max_macs`; a node that would exceed it starts a
// new segment, and a node costlier than the bound alone is a segment of its own. A change
// of target (NPU / AI-CPU) always starts a segment; nodes without cube MACs never start
// one (an activation stays with the convolution it follows). Sets Node::starts_segment.
#pragma once

#include <cstdint>
#include <string>

#include "compiler/graph.h"

namespace svp::compiler {

struct SegmentReport {
  std::size_t segments = 0;
  std::uint64_t longest_macs = 0;     // the costliest segment
  std::string longest_first_node;     // where it starts
  std::uint64_t total_macs = 0;
};

SegmentReport segment_by_cost(Graph& g, std::uint64_t max_macs);

// Cube MACs of one node from its values' shapes.
std::uint64_t node_macs(const Graph& g, NodeId n);

}  // namespace svp::compiler
