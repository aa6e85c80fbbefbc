#include "compiler/graph.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

namespace svp::compiler {

model::TensorView Value::view() const {
  model::TensorView v;
  v.dtype = dtype;
  v.dims = shape;
  // Kernels take non-const views; constant folding only reads them.
  v.data = data ? const_cast<std::uint8_t*>(data->data()) : nullptr;  // NOLINT(cppcoreguidelines-pro-type-const-cast)
  v.quant = quant.empty() ? nullptr : &quant;
  return v;
}

ValueId Graph::add_value(Value v) {
  values_.push_back(std::move(v));
  return static_cast<ValueId>(values_.size() - 1);
}

ValueId Graph::add_constant(std::string name, model::DType dtype, std::vector<std::int64_t> shape,
                            std::shared_ptr<const std::vector<std::uint8_t>> data) {
  Value v;
  v.name = std::move(name);
  v.dtype = dtype;
  v.shape = std::move(shape);
  v.data = std::move(data);
  return add_value(std::move(v));
}

NodeId Graph::add_node(Node n) {
  const auto id = static_cast<NodeId>(nodes_.size());
  for (ValueId o : n.outputs) value(o).producer = id;
  nodes_.push_back(std::move(n));
  order_.push_back(id);
  return id;
}

std::size_t Graph::live_node_count() const { return order_.size(); }

std::vector<NodeId> Graph::live_nodes() const { return order_; }

std::vector<NodeId> Graph::nodes_named(const std::string& name) const {
  std::vector<NodeId> found;
  for (NodeId id : order_) {
    if (node(id).name == name || node(id).origin.onnx_name == name) found.push_back(id);
  }
  return found;
}

std::vector<NodeId> Graph::consumers(ValueId v) const {
  std::vector<NodeId> out;
  for (NodeId n : order_) {
    const Node& node = nodes_[static_cast<std::size_t>(n)];
    if (std::find(node.inputs.begin(), node.inputs.end(), v) != node.inputs.end()) out.push_back(n);
  }
  return out;
}

bool Graph::is_graph_output(ValueId v) const { return std::find(outputs.begin(), outputs.end(), v) != outputs.end(); }

std::optional<ValueId> Graph::find_value(const std::string& name) const {
  for (std::size_t i = 0; i < values_.size(); ++i) {
    if (!values_[i].dead && values_[i].name == name) return static_cast<ValueId>(i);
  }
  return std::nullopt;
}

std::optional<NodeId> Graph::find_node(const std::string& name) const {
  for (NodeId n : order_) {
    if (nodes_[static_cast<std::size_t>(n)].name == name) return n;
  }
  return std::nullopt;
}

void Graph::replace_uses(ValueId from, ValueId to) {
  for (NodeId n : order_) {
    for (ValueId& in : nodes_[static_cast<std::size_t>(n)].inputs) {
      if (in == from) in = to;
    }
  }
  for (ValueId& o : outputs) {
    if (o == from) o = to;
  }
}

void Graph::remove_node(NodeId n) {
  Node& node = nodes_[static_cast<std::size_t>(n)];
  if (node.dead) return;
  node.dead = true;
  for (ValueId o : node.outputs) {
    if (value(o).producer == n) value(o).producer = -1;
  }
  order_.erase(std::remove(order_.begin(), order_.end(), n), order_.end());
}

Status Graph::topo_sort() {
  // Kahn's algorithm over live nodes, always taking the earliest ready node in the current
  // order, so an already valid order is kept unchanged.
  std::unordered_map<NodeId, std::size_t> position;
  for (std::size_t i = 0; i < order_.size(); ++i) position[order_[i]] = i;
  std::vector<std::size_t> pending(nodes_.size(), 0);
  std::vector<std::vector<NodeId>> readers(values_.size());
  for (NodeId n : order_) {
    std::unordered_set<ValueId> seen;
    for (ValueId in : nodes_[static_cast<std::size_t>(n)].inputs) {
      if (in == kNoValue || !seen.insert(in).second) continue;
      const NodeId p = value(in).producer;
      if (p >= 0 && !nodes_[static_cast<std::size_t>(p)].dead) {
        ++pending[static_cast<std::size_t>(n)];
        readers[static_cast<std::size_t>(in)].push_back(n);
      } else if (!value(in).is_constant() &&
                 std::find(inputs.begin(), inputs.end(), in) == inputs.end()) {
        return Error(err::kParseModel, "{} reads \"{}\", which no node produces and which is not a graph input",
                     describe(n), value(in).name);
      }
    }
  }
  auto by_position = [&](NodeId a, NodeId b) { return position[a] > position[b]; };
  std::vector<NodeId> ready;  // min-heap on position
  for (NodeId n : order_) {
    if (pending[static_cast<std::size_t>(n)] == 0) ready.push_back(n);
  }
  std::make_heap(ready.begin(), ready.end(), by_position);
  std::vector<NodeId> sorted;
  sorted.reserve(order_.size());
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end(), by_position);
    const NodeId n = ready.back();
    ready.pop_back();
    sorted.push_back(n);
    for (ValueId o : nodes_[static_cast<std::size_t>(n)].outputs) {
      for (NodeId r : readers[static_cast<std::size_t>(o)]) {
        if (--pending[static_cast<std::size_t>(r)] == 0) {
          ready.push_back(r);
          std::push_heap(ready.begin(), ready.end(), by_position);
        }
      }
    }
  }
  if (sorted.size() != order_.size()) {
    for (NodeId n : order_) {
      if (pending[static_cast<std::size_t>(n)] != 0) {
        return Error(err::kParseModel, "the graph has a cycle through {}", describe(n));
      }
    }
  }
  order_ = std::move(sorted);
  return Status::Ok();
}

void Graph::compact() {
  std::vector<bool> used(values_.size(), false);
  for (ValueId v : inputs) used[static_cast<std::size_t>(v)] = true;
  for (ValueId v : outputs) used[static_cast<std::size_t>(v)] = true;
  for (NodeId n : order_) {
    for (ValueId v : nodes_[static_cast<std::size_t>(n)].inputs) {
      if (v != kNoValue) used[static_cast<std::size_t>(v)] = true;
    }
    for (ValueId v : nodes_[static_cast<std::size_t>(n)].outputs) used[static_cast<std::size_t>(v)] = true;
  }
  std::vector<ValueId> value_map(values_.size(), kNoValue);
  std::vector<Value> values;
  for (std::size_t i = 0; i < values_.size(); ++i) {
    if (used[i] && !values_[i].dead) {
      value_map[i] = static_cast<ValueId>(values.size());
      values.push_back(std::move(values_[i]));
    }
  }
  std::vector<NodeId> node_map(nodes_.size(), -1);
  std::vector<Node> nodes;
  for (NodeId n : order_) {
    node_map[static_cast<std::size_t>(n)] = static_cast<NodeId>(nodes.size());
    nodes.push_back(std::move(nodes_[static_cast<std::size_t>(n)]));
  }
  auto remap = [&](ValueId v) { return v == kNoValue ? kNoValue : value_map[static_cast<std::size_t>(v)]; };
  for (Node& n : nodes) {
    for (ValueId& v : n.inputs) v = remap(v);
    for (ValueId& v : n.outputs) v = remap(v);
  }
  for (Value& v : values) v.producer = v.producer >= 0 ? node_map[static_cast<std::size_t>(v.producer)] : -1;
  for (ValueId& v : inputs) v = remap(v);
  for (ValueId& v : outputs) v = remap(v);
  values_ = std::move(values);
  nodes_ = std::move(nodes);
  order_.resize(nodes_.size());
  for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<NodeId>(i);
  // Names of what was dropped are free again: the next unique_name indexes anew.
  taken_.clear();
  named_values_ = named_nodes_ = 0;
}

std::string Graph::unique_name(const std::string& base) {
  // The names of the values and nodes added since the last call join the index; renames
  // come from here and are recorded below. Rebuilding it per call made importing O(n²)
  // in the node count (20k nodes: minutes; found by the bad-input probe).
  for (; named_values_ < values_.size(); ++named_values_) taken_.insert(values_[named_values_].name);
  for (; named_nodes_ < nodes_.size(); ++named_nodes_) taken_.insert(nodes_[named_nodes_].name);
  std::string candidate = base;
  while (taken_.count(candidate)) candidate = fmt::format("{}_{}", base, ++name_counter_);
  taken_.insert(candidate);
  return candidate;
}

std::string Graph::describe(NodeId n) const {
  const Node& node = nodes_[static_cast<std::size_t>(n)];
  if (node.origin.opset > 0) return fmt::format("node \"{}\" ({}, opset {})", node.name, node.op, node.origin.opset);
  return fmt::format("node \"{}\" ({})", node.name, node.op);
}

}  // namespace svp::compiler
