// The compiler's working graph: what the ONNX importer produces, what every pass rewrites
// and what emit turns into a model::Program through the ModelBuilder.
//
// Values are tensors (graph inputs, node outputs, constants); nodes are ONNX ops with the
// IR's op contract (docs/kernels.md): the semantics of the op's latest opset ≤ 17, with
// arguments that older opsets took as attributes accepted as attributes or as constant
// inputs. The importer rewrites every other old-opset difference, so passes and kernels
// see one meaning per op name.
//
// Ids are indices and stay valid while passes run: removing a node or a value only marks
// it dead; compact() renumbers (and invalidates ids held outside the graph). Not
// thread-safe; a graph belongs to one compilation.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/status.h"
#include "model/attrs.h"
#include "model/program.h"
#include "model/tensor.h"

namespace svp::compiler {

using ValueId = std::int32_t;
using NodeId = std::int32_t;
inline constexpr ValueId kNoValue = -1;  // an absent optional input

struct Value {
  std::string name;
  model::DType dtype = model::DType::kFloat32;
  std::vector<std::int64_t> shape;  // static (the importer resolves every dim or fails)
  // Constant contents, dense row-major in `shape` (dtype_size × elements bytes); null for
  // non-constants. Shared so that copies of a graph (accuracy analysis) cost nothing.
  std::shared_ptr<const std::vector<std::uint8_t>> data;
  model::Quant quant;       // filled by quantization (and by QDQ import)
  NodeId producer = -1;     // -1: graph input or constant
  bool dead = false;

  bool is_constant() const { return data != nullptr; }
  // A non-owning kernel view of a constant (data must be non-null).
  model::TensorView view() const;
};

// Where a node came from, for messages: "node \"conv1\" (Conv, opset 11)".
struct Origin {
  std::string onnx_name;   // the ONNX node name (may be empty in the file; then generated)
  std::int64_t opset = 0;  // the ai.onnx opset the model was imported at
};

struct Node {
  std::string name;            // unique among nodes
  std::string op;              // ONNX op type
  model::Attrs attrs;
  std::vector<ValueId> inputs;   // kNoValue = absent optional input
  std::vector<ValueId> outputs;  // never kNoValue
  model::Target target = model::Target::kNpu;  // set by placement
  bool starts_segment = false;  // set by segmentation: a new segment begins here
  bool high_precision = false;  // --high_precision_layer: one precision step up in a quantized model
  bool keep_float = false;      // calc_data_type F16/F32 in --gfpq_param_file: float32 in a quantized model
  Origin origin;
  bool dead = false;
};

class Graph {
 public:
  std::string name;                // model name (ONNX graph name)
  std::int64_t opset = 0;          // ai.onnx opset of the imported model
  std::vector<ValueId> inputs;     // graph data inputs, in order
  std::vector<ValueId> outputs;    // graph outputs, in order
  // Per graph input (parallel to `inputs`): its AIPP configuration as the model stores it
  // (model/aipp/model_config.h JSON), empty = none. Set from --insert_op_conf.
  std::vector<std::string> input_aipp;

  ValueId add_value(Value v);
  // Adds a constant value (copies nothing: `data` is shared).
  ValueId add_constant(std::string name, model::DType dtype, std::vector<std::int64_t> shape,
                       std::shared_ptr<const std::vector<std::uint8_t>> data);
  NodeId add_node(Node n);  // sets producer of its outputs

  Value& value(ValueId id) { return values_[static_cast<std::size_t>(id)]; }
  const Value& value(ValueId id) const { return values_[static_cast<std::size_t>(id)]; }
  Node& node(NodeId id) { return nodes_[static_cast<std::size_t>(id)]; }
  const Node& node(NodeId id) const { return nodes_[static_cast<std::size_t>(id)]; }
  std::size_t value_count() const { return values_.size(); }  // dead included
  std::size_t node_count() const { return nodes_.size(); }    // dead included
  std::size_t live_node_count() const;

  // Live nodes in their current (topological) order.
  std::vector<NodeId> live_nodes() const;
  // Live nodes called `name` in the graph or in the ONNX file (the names users give flags).
  std::vector<NodeId> nodes_named(const std::string& name) const;
  // Live nodes reading `v` (a node reading it twice appears once).
  std::vector<NodeId> consumers(ValueId v) const;
  bool is_graph_output(ValueId v) const;
  std::optional<ValueId> find_value(const std::string& name) const;
  std::optional<NodeId> find_node(const std::string& name) const;

  // Every use of `from` (node inputs and graph outputs) becomes `to`.
  void replace_uses(ValueId from, ValueId to);
  // Marks a node dead; its outputs lose their producer (passes rewire them first).
  void remove_node(NodeId n);
  // Sorts live nodes topologically (stable: keeps the current order where it is valid).
  // Error if there is a cycle or a value read before any producer.
  Status topo_sort();
  // Drops dead nodes and values no live node, input or output uses; renumbers ids.
  void compact();
  // A name not yet used by any value or node, derived from `base`. A name given to a value
  // or node after it was added must come from here (an index of the names is kept).
  std::string unique_name(const std::string& base);

  // "node \"x\" (Conv, opset 11)" for messages.
  std::string describe(NodeId n) const;

 private:
  std::vector<Value> values_;
  std::vector<Node> nodes_;
  std::vector<NodeId> order_;  // live node order; nodes_ keeps creation order
  std::uint64_t name_counter_ = 0;
  std::unordered_set<std::string> taken_;  // unique_name's index: every name given so far
  std::size_t named_values_ = 0, named_nodes_ = 0;  // values_/nodes_ already in taken_
};

}  // namespace svp::compiler
