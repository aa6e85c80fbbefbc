#include "runtime/rknn_custom_ops.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kernels/kernels.h"
#include "model/custom_op.h"
#include "runtime/rknn_ctx.h"

namespace svp::runtime::rknn {
namespace {

// Live instances: rknn_custom_op_get_op_attr accepts only an op_ctx whose internal_ctx is
// one of them (a copied, stale or made-up context is an error, not a wild read).
std::mutex g_live_mu;
std::set<const CustomOpTable::Instance*> g_live;

rknn_tensor_attr tensor_attr(const model::Tensor& t, std::uint32_t index) {
  rknn_tensor_attr a{};
  a.index = index;
  a.n_dims = static_cast<std::uint32_t>(std::min<std::size_t>(t.dims.size(), RKNN_MAX_DIMS));
  std::uint64_t elems = 1;
  for (std::uint32_t i = 0; i < a.n_dims; ++i) {
    a.dims[i] = static_cast<std::uint32_t>(t.dims[i]);
    elems *= static_cast<std::uint64_t>(t.dims[i]);
  }
  std::snprintf(a.name, sizeof a.name, "%s", t.name.c_str());
  a.n_elems = static_cast<std::uint32_t>(elems);
  a.size = static_cast<std::uint32_t>(elems * model::dtype_size(t.dtype));
  a.fmt = a.n_dims == 4 ? RKNN_TENSOR_NCHW : RKNN_TENSOR_UNDEFINED;
  a.type = static_cast<rknn_tensor_type>(std::max(rknn_type_of(t.dtype), 0));
  a.qnt_type = RKNN_TENSOR_QNT_NONE;
  a.scale = 1.0f;
  a.size_with_stride = a.size;
  return a;
}

// One attribute as the application reads it: integers INT64, floats FLOAT32, text UINT8
// (NUL-terminated; n_elems excludes the NUL).
void add_attr(CustomOpTable::Instance& in, const std::string& name, const model::AttrValue& v) {
  rknn_custom_op_attr a{};
  std::snprintf(a.name, sizeof a.name, "%s", name.c_str());
  std::vector<std::uint8_t> bytes;
  auto put = [&bytes](const void* p, std::size_t n) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    bytes.insert(bytes.end(), b, b + n);
  };
  if (const auto* i = std::get_if<std::int64_t>(&v)) {
    a.dtype = RKNN_TENSOR_INT64;
    a.n_elems = 1;
    put(i, sizeof *i);
  } else if (const auto* d = std::get_if<double>(&v)) {
    const float f = static_cast<float>(*d);
    a.dtype = RKNN_TENSOR_FLOAT32;
    a.n_elems = 1;
    put(&f, sizeof f);
  } else if (const auto* s = std::get_if<std::string>(&v)) {
    a.dtype = RKNN_TENSOR_UINT8;
    a.n_elems = static_cast<std::uint32_t>(s->size());
    put(s->c_str(), s->size() + 1);
  } else if (const auto* is = std::get_if<std::vector<std::int64_t>>(&v)) {
    a.dtype = RKNN_TENSOR_INT64;
    a.n_elems = static_cast<std::uint32_t>(is->size());
    put(is->data(), is->size() * sizeof(std::int64_t));
  } else if (const auto* ds = std::get_if<std::vector<double>>(&v)) {
    a.dtype = RKNN_TENSOR_FLOAT32;
    a.n_elems = static_cast<std::uint32_t>(ds->size());
    for (double x : *ds) {
      const float f = static_cast<float>(x);
      put(&f, sizeof f);
    }
  }
  in.attrs.push_back(a);
  in.attr_data.push_back(std::move(bytes));
}

std::unique_ptr<CustomOpTable::Instance> make_instance(const rknn_custom_op& op, const model::Program& p,
                                                       const model::Layer& l) {
  auto in = std::make_unique<CustomOpTable::Instance>();
  in->op = op;
  in->layer = l.name;
  in->ctx.target = RKNN_TARGET_TYPE_CPU;
  in->ctx.internal_ctx = static_cast<rknn_custom_op_interal_context>(reinterpret_cast<std::uintptr_t>(in.get()));
  for (const auto& [name, value] : l.attrs.all()) {
    if (name.rfind("__", 0) != 0) add_attr(*in, name, value);
  }
  if (!l.attrs.has("name")) add_attr(*in, "name", l.name);  // the vendor's example reads it
  for (std::size_t i = 0; i < in->attrs.size(); ++i) in->attrs[i].data = in->attr_data[i].data();
  for (std::size_t i = 0; i < l.inputs.size(); ++i) {
    if (l.inputs[i] >= 0) {
      in->in_attrs.push_back(tensor_attr(p.tensors[static_cast<std::size_t>(l.inputs[i])], static_cast<std::uint32_t>(i)));
    }
  }
  for (std::size_t i = 0; i < l.outputs.size(); ++i) {
    in->out_attrs.push_back(tensor_attr(p.tensors[static_cast<std::size_t>(l.outputs[i])], static_cast<std::uint32_t>(i)));
  }
  return in;
}

std::vector<rknn_custom_op_tensor> op_tensors(const std::vector<rknn_tensor_attr>& attrs) {
  std::vector<rknn_custom_op_tensor> t(attrs.size());
  for (std::size_t i = 0; i < attrs.size(); ++i) {
    t[i].attr = attrs[i];
    t[i].mem.fd = -1;
    t[i].mem.size = attrs[i].size;
  }
  return t;
}

// The init callback of a new instance: RKNN_SUCC (instance ready), or a failure naming it.
int init_instance(const char* fn, CustomOpTable::Instance& in) {
  if (in.op.init == nullptr) return RKNN_SUCC;
  std::vector<rknn_custom_op_tensor> ins = op_tensors(in.in_attrs), outs = op_tensors(in.out_attrs);
  const int r = in.op.init(&in.ctx, ins.data(), static_cast<std::uint32_t>(ins.size()), outs.data(),
                           static_cast<std::uint32_t>(outs.size()));
  if (r == 0) return RKNN_SUCC;
  if (r != RKNN_WARNING_SKIP_CUSTOM_OP_COMPUTE) {
    return fail(fn, RKNN_ERR_FAIL, fmt::format("the init callback of {} (layer \"{}\") returned {}", in.op.op_type,
                                               in.layer, r));
  }
  const auto& builtin = kernels::supported_ops();
  if (std::find(builtin.begin(), builtin.end(), in.op.op_type) == builtin.end()) {
    return fail(fn, RKNN_ERR_FAIL,
                fmt::format("the init callback of {} (layer \"{}\") returned RKNN_WARNING_SKIP_CUSTOM_OP_COMPUTE, but "
                            "svp-acl has no implementation of op type {} to run instead: compute it in the callbacks",
                            in.op.op_type, in.layer, in.op.op_type));
  }
  in.builtin = true;
  return RKNN_SUCC;
}

// The checks of one rknn_custom_op entry (`k` of the array).
int check_op(const char* fn, const rknn_custom_op& op, std::uint32_t k, const std::vector<std::string>& taken) {
  const std::size_t len = strnlen(op.op_type, sizeof op.op_type);
  if (len == 0 || len == sizeof op.op_type) {
    return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("op[{}].op_type is empty or not NUL-terminated: give the op "
                                                        "type the model's node has", k));
  }
  const std::string type(op.op_type, len);
  // Read as the integer the application stored: a C caller may put any value in the enum
  // field, and loading an out-of-range value as the C++ enum type is undefined (UBSan).
  std::underlying_type_t<rknn_target_type> target;
  std::memcpy(&target, &op.target, sizeof target);
  if (target == RKNN_TARGET_TYPE_GPU) {
    return fail(fn, RKNN_ERR_FAIL,
                fmt::format("op[{}] ({}) targets RKNN_TARGET_TYPE_GPU: the software NPU has no OpenCL GPU, so its "
                            "OpenCL kernel cannot run; register a CPU implementation (RKNN_TARGET_TYPE_CPU)",
                            k, type));
  }
  if (target != RKNN_TARGET_TYPE_CPU) {
    return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("op[{}] ({}) has target {}: use RKNN_TARGET_TYPE_CPU", k, type,
                                                        static_cast<long long>(target)));
  }
  if (op.compute == nullptr) {
    return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("op[{}] ({}) has no compute callback (it is required)", k, type));
  }
  if (std::find(taken.begin(), taken.end(), type) != taken.end()) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("op[{}]: op type {} is registered already on this context (once per type)", k, type));
  }
  return RKNN_SUCC;
}

// The destroy callback first: it may still read the op's attributes.
void destroy_instance(CustomOpTable::Instance& in) {
  if (in.op.destroy != nullptr) (void)in.op.destroy(&in.ctx);
  std::lock_guard<std::mutex> lock(g_live_mu);
  g_live.erase(&in);
}

}  // namespace

CustomOpTable::~CustomOpTable() { release(); }

void CustomOpTable::release() {
  for (auto& [name, in] : instances) destroy_instance(*in);
  instances.clear();
}

Status CustomOpTable::run(const model::Layer& layer, const std::vector<model::TensorView>& in,
                          const std::vector<model::TensorView>& out) const {
  auto it = instances.find(layer.name);
  if (it == instances.end()) {
    return Error(err::kFeatureUnsupported,
                 "{} is a custom operator and no implementation of it was registered (rknn_register_custom_ops with "
                 "op_type \"{}\" before rknn_run)",
                 layer.op, layer.op);
  }
  Instance& inst = *it->second;
  if (inst.builtin) {
    model::Attrs attrs;
    for (const auto& [name, value] : layer.attrs.all()) {
      if (name != model::kCustomOpDomainAttr) attrs.set(name, value);
    }
    return kernels::run_reference(layer.op, attrs, in, out);
  }
  std::vector<rknn_custom_op_tensor> ins = op_tensors(inst.in_attrs), outs = op_tensors(inst.out_attrs);
  auto bind = [](std::vector<rknn_custom_op_tensor>& ts, const std::vector<model::TensorView>& views) {
    std::size_t k = 0;
    for (const model::TensorView& v : views) {
      if (v.data == nullptr && k < ts.size() && v.dims.empty()) continue;  // an absent optional input
      if (k >= ts.size()) break;
      rknn_custom_op_tensor& t = ts[k++];
      // A batch gear runs other dims than the program's: the view's are the run's.
      t.attr.n_dims = static_cast<std::uint32_t>(std::min<std::size_t>(v.dims.size(), RKNN_MAX_DIMS));
      for (std::uint32_t d = 0; d < t.attr.n_dims; ++d) t.attr.dims[d] = static_cast<std::uint32_t>(v.dims[d]);
      t.attr.n_elems = static_cast<std::uint32_t>(v.elements());
      t.attr.size = static_cast<std::uint32_t>(v.elements() * static_cast<std::int64_t>(model::dtype_size(v.dtype)));
      t.attr.size_with_stride = t.attr.size;
      t.mem.virt_addr = v.data;
      t.mem.size = t.attr.size;
    }
  };
  bind(ins, in);
  bind(outs, out);
  const auto n_in = static_cast<std::uint32_t>(ins.size());
  const auto n_out = static_cast<std::uint32_t>(outs.size());
  if (inst.op.prepare != nullptr) {
    if (const int r = inst.op.prepare(&inst.ctx, ins.data(), n_in, outs.data(), n_out); r != 0) {
      return Error(err::kFeatureUnsupported, "the prepare callback of custom op {} (layer \"{}\") returned {}", layer.op,
                   layer.name, r);
    }
  }
  if (const int r = inst.op.compute(&inst.ctx, ins.data(), n_in, outs.data(), n_out); r != 0) {
    return Error(err::kFeatureUnsupported, "the compute callback of custom op {} (layer \"{}\") returned {}", layer.op,
                 layer.name, r);
  }
  return Status::Ok();
}

int register_custom_ops(Handle h, const rknn_custom_op* ops, std::uint32_t n) {
  static constexpr char fn[] = "rknn_register_custom_ops";
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  Ctx& c = *l.ctx;
  CallScope call(fn, c);
  if (n == 0) return fail(fn, RKNN_ERR_PARAM_INVALID, "custom_op_num is 0: give the number of entries of op");
  if (const int r = refuse_info_only(fn, c); r != RKNN_SUCC) return r;
  if (const int r = settle(fn, c); r != RKNN_SUCC) return r;  // no run may use the table while it changes
  auto loaded = c.rt->models().lookup(c.model->model_id);
  if (!loaded.ok()) return fail(fn, RKNN_ERR_CTX_INVALID, loaded.status().message());
  const model::Program& p = loaded->model->program;
  if (!c.custom_ops) c.custom_ops = std::make_shared<CustomOpTable>();
  CustomOpTable& table = *c.custom_ops;
  std::vector<std::string> taken = table.types;
  for (std::uint32_t k = 0; k < n; ++k) {
    if (const int r = check_op(fn, ops[k], k, taken); r != RKNN_SUCC) return r;
    taken.emplace_back(ops[k].op_type);
  }
  for (std::uint32_t k = 0; k < n; ++k) {
    if (ops[k].compute_native != nullptr) {
      warn(fn, fmt::format("op[{}].compute_native is reserved (set it to NULL): it is never called", k));
    }
  }
  // Every instance of the new types first; the table changes only if all of them init.
  std::vector<std::unique_ptr<CustomOpTable::Instance>> made;
  int result = RKNN_SUCC;
  for (std::uint32_t k = 0; k < n && result == RKNN_SUCC; ++k) {
    bool used = false;
    for (const model::Layer& layer : p.layers) {
      if (!model::is_custom_op(layer.attrs) || layer.op != ops[k].op_type) continue;
      used = true;
      made.push_back(make_instance(ops[k], p, layer));
      {
        std::lock_guard<std::mutex> lock(g_live_mu);
        g_live.insert(made.back().get());
      }
      result = init_instance(fn, *made.back());
      if (result != RKNN_SUCC) {
        std::lock_guard<std::mutex> lock(g_live_mu);
        g_live.erase(made.back().get());
        made.pop_back();  // its init failed: no destroy callback
      }
      if (result != RKNN_SUCC) break;
    }
    if (!used) {
      warn(fn, fmt::format("op type {} is not a custom operator of the model (it has: {}); registered anyway",
                           ops[k].op_type, unregistered_custom_ops(*loaded->model, nullptr)));
    }
  }
  if (result != RKNN_SUCC) {
    for (auto& in : made) destroy_instance(*in);
    return result;
  }
  for (std::uint32_t k = 0; k < n; ++k) table.types.emplace_back(ops[k].op_type);
  for (auto& in : made) {
    std::string name = in->layer;
    table.instances.emplace(std::move(name), std::move(in));
  }
  return RKNN_SUCC;
}

void custom_op_get_op_attr(rknn_custom_op_context* op_ctx, const char* attr_name, rknn_custom_op_attr* op_attr) {
  static constexpr char fn[] = "rknn_custom_op_get_op_attr";
  if (op_attr != nullptr) *op_attr = rknn_custom_op_attr{};
  if (op_ctx == nullptr || attr_name == nullptr || op_attr == nullptr) {
    (void)fail(fn, RKNN_ERR_PARAM_INVALID,
               fmt::format("{} is NULL", op_ctx == nullptr ? "op_ctx" : attr_name == nullptr ? "attr_name" : "op_attr"));
    return;
  }
  std::snprintf(op_attr->name, sizeof op_attr->name, "%s", attr_name);
  const auto* in = reinterpret_cast<const CustomOpTable::Instance*>(static_cast<std::uintptr_t>(op_ctx->internal_ctx));
  std::lock_guard<std::mutex> lock(g_live_mu);
  if (g_live.count(in) == 0) {
    (void)fail(fn, RKNN_ERR_PARAM_INVALID,
               "op_ctx is not the context of a live custom op instance (use the op_ctx a callback received, "
               "unchanged)");
    return;
  }
  std::vector<std::string> names;
  for (const rknn_custom_op_attr& a : in->attrs) {
    if (std::strcmp(a.name, attr_name) == 0) {
      *op_attr = a;
      return;
    }
    names.emplace_back(a.name);
  }
  warn(fn, fmt::format("custom op {} (layer \"{}\") has no attribute \"{}\" (it has: {}); n_elems is 0",
                       in->op.op_type, in->layer, attr_name, fmt::join(names, ", ")));
}

std::string unregistered_custom_ops(const model::Model& m, const CustomOpTable* table) {
  std::vector<std::string> missing;
  for (const model::Layer& l : m.program.layers) {
    if (!model::is_custom_op(l.attrs)) continue;
    if (table != nullptr && std::find(table->types.begin(), table->types.end(), l.op) != table->types.end()) continue;
    if (std::find(missing.begin(), missing.end(), l.op) == missing.end()) missing.push_back(l.op);
  }
  return fmt::format("{}", fmt::join(missing, ", "));
}

}  // namespace svp::runtime::rknn
