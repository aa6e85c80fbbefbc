// Custom operators of librknnrt (include/rknn/rknn_custom_op.h, docs/rknn.md "Custom
// operators"): the op types a context registered, one instance per custom layer of its
// model (the callbacks' rknn_custom_op_context, the attributes), and the run of a layer
// through them. A context holds its table through a shared_ptr that each execution also
// holds, so a registration replaces the table instead of changing one a run uses.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/custom_op.h"
#include "exec/model_registry.h"
#include "rknn/rknn_custom_op.h"
#include "runtime/rknn_context.h"

namespace svp::runtime::rknn {

class CustomOpTable final : public kernels::CustomOps {
 public:
  // One custom layer of the model: the callbacks' context, its attributes as
  // rknn_custom_op_get_op_attr hands them out, and the tensors' attributes.
  struct Instance {
    rknn_custom_op op{};
    rknn_custom_op_context ctx{};
    std::string layer;
    std::vector<rknn_custom_op_attr> attrs;
    std::vector<std::vector<std::uint8_t>> attr_data;  // what attrs[i].data points into
    std::vector<rknn_tensor_attr> in_attrs, out_attrs;
    bool builtin = false;  // init asked for the runtime's own implementation (skip code)
  };

  CustomOpTable() = default;
  CustomOpTable(const CustomOpTable&) = delete;
  CustomOpTable& operator=(const CustomOpTable&) = delete;
  ~CustomOpTable() override;

  // Calls every instance's destroy callback and forgets the instances (rknn_destroy; the
  // destructor does it too). Never while a run may use the table.
  void release();

  Status run(const model::Layer& layer, const std::vector<model::TensorView>& in,
             const std::vector<model::TensorView>& out) const override;

  // Op types registered so far (registration order).
  std::vector<std::string> types;
  // By layer name; unique_ptr: the address is the instance's handle (internal_ctx).
  std::map<std::string, std::unique_ptr<Instance>> instances;
};

// rknn_register_custom_ops (the context's table gains `n` op types).
int register_custom_ops(Handle ctx, const rknn_custom_op* ops, std::uint32_t n);
// rknn_custom_op_get_op_attr.
void custom_op_get_op_attr(rknn_custom_op_context* op_ctx, const char* attr_name, rknn_custom_op_attr* op_attr);
// The op types of the model's custom layers that `table` (may be null) does not register,
// joined by ", " ("" when every one is registered).
std::string unregistered_custom_ops(const model::Model& m, const CustomOpTable* table);

}  // namespace svp::runtime::rknn
