// Helpers for compiler tests: hand-built Graph values, constants and nodes.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "compiler/graph.h"
#include "compiler/quantize/evaluate.h"
#include "kernels/tensor_buffer.h"

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

// The graph's float32 outputs for float32 inputs (one vector per graph input, in order);
// empty when evaluation fails.
inline std::vector<std::vector<float>> run_graph(const Graph& g, const std::vector<std::vector<float>>& inputs) {
  std::vector<kernels::OwnedTensor> in;
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    in.push_back(kernels::OwnedTensor::from(model::DType::kFloat32, g.value(g.inputs[i]).shape, inputs.at(i)));
  }
  auto out = evaluate(g, in);
  if (!out.ok()) return {};
  std::vector<std::vector<float>> result;
  for (const auto& t : *out) {
    const float* p = t.view().as<const float>();
    result.emplace_back(p, p + t.view().elements());
  }
  return result;
}

// A deterministic ramp of n values in about [-1, 1].
inline std::vector<float> ramp(std::size_t n, float phase = 0.0f) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>((static_cast<int>((i * 37 + 11) % 23) - 11) / 11.0) + phase;
  return v;
}

}  // namespace svp::compiler::testing_graph
