// Small ONNX models built in C++ with ONNX's own protobuf classes, for the compiler's tests
// (no binary files in git, no Python at test time).
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace svp::test {

class OnnxBuilder {
 public:
  explicit OnnxBuilder(std::int64_t opset = 13, std::int64_t ir = 7) {
    m_.set_ir_version(ir);
    m_.set_producer_name("svp-acl tests");
    auto* o = m_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    m_.mutable_graph()->set_name("testnet");
  }
  // A graph input; dims < 0 are written as a symbolic dimension "N".
  OnnxBuilder& input(const std::string& name, std::vector<std::int64_t> dims,
                     int type = onnx::TensorProto::FLOAT) {
    value_info(m_.mutable_graph()->add_input(), name, dims, type);
    return *this;
  }
  OnnxBuilder& output(const std::string& name, std::vector<std::int64_t> dims = {},
                      int type = onnx::TensorProto::FLOAT) {
    // Empty dims = a scalar output (ONNX's checker wants the shape written out).
    value_info(m_.mutable_graph()->add_output(), name, dims, type);
    return *this;
  }
  OnnxBuilder& initializer(const std::string& name, std::vector<std::int64_t> dims, const std::vector<float>& v) {
    auto* t = m_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) t->add_dims(d);
    for (float f : v) t->add_float_data(f);
    return *this;
  }
  onnx::NodeProto& node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
                        const std::string& name = {}) {
    auto* n = m_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? op + std::to_string(m_.graph().node_size()) : name);
    for (auto& s : in) n->add_input(s);
    for (auto& s : out) n->add_output(s);
    return *n;
  }
  static void attr_ints(onnx::NodeProto& n, const std::string& name, std::vector<std::int64_t> v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (auto x : v) a->add_ints(x);
  }
  onnx::ModelProto& model() { return m_; }
  std::string bytes() const { return m_.SerializeAsString(); }
  std::string write(const std::string& path) const {
    std::ofstream(path, std::ios::binary) << bytes();
    return path;
  }

 private:
  static void value_info(onnx::ValueInfoProto* vi, const std::string& name, const std::vector<std::int64_t>& dims,
                         int type) {
    vi->set_name(name);
    auto* t = vi->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    auto* s = t->mutable_shape();
    for (auto d : dims) {
      auto* dim = s->add_dim();
      if (d < 0) {
        dim->set_dim_param("N");
      } else {
        dim->set_dim_value(d);
      }
    }
  }
  onnx::ModelProto m_;
};

}  // namespace svp::test
