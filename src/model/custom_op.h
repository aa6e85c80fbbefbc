// Custom operators: layers whose computation the application supplies at run time
// (librknnrt's rknn_register_custom_ops, docs/rknn.md "Custom operators"). The compiler
// keeps such an ONNX node as a layer of its own op type, placed on the CPU, with one
// extra attribute naming the node's ONNX domain; nothing else in the model marks it.
#pragma once

#include <string>

#include "model/attrs.h"

namespace svp::model {

// The marker attribute (its value: the ONNX node's domain). Names starting with "__" are
// the project's own: applications never see them among the op's attributes.
inline constexpr const char* kCustomOpDomainAttr = "__custom_op_domain";

inline bool is_custom_op(const Attrs& attrs) { return attrs.has(kCustomOpDomainAttr); }

// ONNX domains whose ops svp-acl's kernels define (a node of any other domain is a custom op).
inline bool is_standard_onnx_domain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx" || domain == "ai.onnx.ml" || domain == "ai.onnx.preview.training";
}

}  // namespace svp::model
