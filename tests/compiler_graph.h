// Helpers for compiler tests: hand-built Graph values, constants and nodes.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "compiler/graph.h"

namespace svp::compiler::testing_graph {

inline ValueId value(Graph& g, const std::string& name, std::vector<std::int64_t> shape) {
  Value v;
  v.name = name;
  v.shape = std::move(shape);
  return g.add_value(std::move(v));
}

// A float32 constant; zeros when `values` is empty.
inline ValueId constant(Graph& g, const std::string& name, std::vector<std::int64_t> shape,
                        std::vector<float> values = {}) {
  std::size_t e = 1;
  for (auto d : shape) e *= static_cast<std::size_t>(d);
  values.resize(e, 0.0f);
  auto data = std::make_shared<std::vector<std::uint8_t>>(e * sizeof(float));
  std::memcpy(data->data(), values.data(), data->size());
  return g.add_constant(name, model::DType::kFloat32, std::move(shape), data);
}

inline NodeId node(Graph& g, const std::string& name, const std::string& op, std::vector<ValueId> inputs,
                   std::vector<ValueId> outputs) {
  Node n;
  n.name = name;
  n.op = op;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  return g.add_node(std::move(n));
}

inline std::vector<float> floats_of(const Graph& g, ValueId v) {
  std::vector<float> f(g.value(v).data->size() / sizeof(float));
  std::memcpy(f.data(), g.value(v).data->data(), f.size() * sizeof(float));
  return f;
}

}  // namespace svp::compiler::testing_graph
