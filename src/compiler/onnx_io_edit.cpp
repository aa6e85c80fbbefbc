#include "compiler/onnx_io_edit.h"

#include <onnx/onnx_pb.h>

#include <fstream>
#include <set>

namespace svp::compiler {
namespace {

Result<onnx::ModelProto> io_edit_read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(err::kInvalidParam, "cannot read the ONNX model {}", path);
  onnx::ModelProto m;
  if (!m.ParseFromIstream(&in) || !m.has_graph()) return Error(err::kParseModel, "{} is not an ONNX model", path);
  return m;
}

onnx::ValueInfoProto* io_edit_find(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list,
                                 const std::string& name) {
  for (auto& v : *list) {
    if (v.name() == name) return &v;
  }
  return nullptr;
}

void io_edit_set_shape(onnx::ValueInfoProto* v, const std::vector<std::int64_t>& shape) {
  auto* s = v->mutable_type()->mutable_tensor_type()->mutable_shape();
  s->clear_dim();
  for (std::int64_t d : shape) s->add_dim()->set_dim_value(d);
}

void io_edit_rename(onnx::GraphProto* g, const std::string& from, const std::string& to, bool outputs_too) {
  for (auto& n : *g->mutable_node()) {
    for (auto& i : *n.mutable_input()) {
      if (i == from) i = to;
    }
    if (!outputs_too) continue;
    for (auto& o : *n.mutable_output()) {
      if (o == from) o = to;
    }
  }
}

// The nodes of `steps` from tensor `from` to tensor `to` (named after `base`).
std::vector<onnx::NodeProto> io_edit_chain(onnx::GraphProto* g, const std::string& base, const std::string& from,
                                   const std::string& to, const std::vector<OnnxIoStep>& steps) {
  std::vector<onnx::NodeProto> nodes;
  std::string cur = from;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const std::string tag = base + "_onnx_edit_" + std::to_string(k);
    const std::string out = k + 1 == steps.size() ? to : tag;
    onnx::NodeProto n;
    n.set_name(tag);
    n.add_input(cur);
    n.add_output(out);
    if (steps[k].kind == OnnxIoStep::Kind::kReshape) {
      n.set_op_type("Reshape");
      auto* t = g->add_initializer();
      t->set_name(tag + "_shape");
      t->set_data_type(onnx::TensorProto::INT64);
      t->add_dims(static_cast<std::int64_t>(steps[k].values.size()));
      for (std::int64_t v : steps[k].values) t->add_int64_data(v);
      n.add_input(t->name());
    } else {
      n.set_op_type("Transpose");
      auto* a = n.add_attribute();
      a->set_name("perm");
      a->set_type(onnx::AttributeProto::INTS);
      for (std::int64_t v : steps[k].values) a->add_ints(v);
    }
    nodes.push_back(std::move(n));
    cur = out;
  }
  return nodes;
}

Status io_edit_apply(onnx::GraphProto* g, const OnnxIoEdit& e) {
  std::set<std::string> initializers;
  for (const auto& t : g->initializer()) initializers.insert(t.name());
  auto* list = e.output ? g->mutable_output() : g->mutable_input();
  onnx::ValueInfoProto* v = io_edit_find(list, e.name);
  if (v == nullptr || (!e.output && initializers.count(e.name) > 0)) {
    return Error(err::kInvalidParam, "the model has no graph {} named '{}'", e.output ? "output" : "input", e.name);
  }
  // Shapes recorded for the renamed tensor would contradict the new one.
  auto* info = g->mutable_value_info();
  for (int i = info->size() - 1; i >= 0; --i) {
    if (info->Get(i).name() == e.name) info->DeleteSubrange(i, 1);
  }
  io_edit_set_shape(v, e.new_shape);
  if (e.steps.empty()) return Status::Ok();
  const std::string inner = e.name + "_onnx_edit_orig";
  if (e.output) {
    io_edit_rename(g, e.name, inner, true);
    for (auto& n : io_edit_chain(g, e.name, inner, e.name, e.steps)) *g->add_node() = std::move(n);
    return Status::Ok();
  }
  io_edit_rename(g, e.name, inner, false);
  for (auto& o : *g->mutable_output()) {
    if (o.name() == e.name) return Error(err::kInvalidParam, "input '{}' is also a graph output", e.name);
  }
  std::vector<onnx::NodeProto> nodes = io_edit_chain(g, e.name, e.name, inner, e.steps);
  google::protobuf::RepeatedPtrField<onnx::NodeProto> all;
  for (auto& n : nodes) *all.Add() = std::move(n);
  for (auto& n : *g->mutable_node()) *all.Add() = std::move(n);
  g->mutable_node()->Swap(&all);
  return Status::Ok();
}

std::vector<std::int64_t> io_edit_dims(const onnx::ValueInfoProto& v) {
  std::vector<std::int64_t> d;
  for (const auto& x : v.type().tensor_type().shape().dim()) d.push_back(x.has_dim_value() ? x.dim_value() : -1);
  return d;
}

}  // namespace

Result<std::vector<OnnxIo>> onnx_io(const std::string& path) {
  auto m = io_edit_read(path);
  if (!m.ok()) return m.status();
  std::set<std::string> initializers;
  for (const auto& t : m->graph().initializer()) initializers.insert(t.name());
  std::vector<OnnxIo> out;
  for (const auto& v : m->graph().input()) {
    if (initializers.count(v.name()) == 0) out.push_back({v.name(), false, io_edit_dims(v)});
  }
  for (const auto& v : m->graph().output()) out.push_back({v.name(), true, io_edit_dims(v)});
  return out;
}

Status edit_onnx_io(const std::string& in_path, const std::string& out_path, const std::vector<OnnxIoEdit>& edits) {
  auto m = io_edit_read(in_path);
  if (!m.ok()) return m.status();
  for (const OnnxIoEdit& e : edits) SVP_RETURN_IF_ERROR(io_edit_apply(m->mutable_graph(), e));
  std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
  if (!out || !m->SerializeToOstream(&out)) return Error(err::kInvalidFile, "cannot write {}", out_path);
  return Status::Ok();
}

}  // namespace svp::compiler
