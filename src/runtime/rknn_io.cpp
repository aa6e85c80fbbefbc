// rknn_inputs_set, rknn_outputs_get / release, and memory bound with rknn_set_io_mem /
// rknn_set_internal_mem (read and written by rknn_run through the helpers here).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "runtime/rknn_ctx.h"

namespace svp::runtime::rknn {
namespace {

// The element type and size a binding's buffer holds (set_io_mem's type checks).
int binding_type(const char* fn, const Io& io, bool input, const rknn_tensor_attr& a, const std::string& what,
                 Binding* b) {
  const int type = raw_enum(a.type);
  const std::size_t own_es = io.int8_view ? 1 : model::dtype_size(io.desc.dtype);
  b->type = type;
  // A buffer in the tensor's own type (the type the attribute reports: INT8 with its zero
  // point and scale for a quantized model) holds that encoding, with or without
  // pass_through, as NPU-native memory does; other types are converted as rknn_inputs_set
  // converts them.
  b->pass_through = input && (a.pass_through != 0 || type == io.attr.type);
  if (b->pass_through || (!input && type == io.attr.type)) {
    if (type != io.attr.type) {
      return fail(fn, RKNN_ERR_PARAM_INVALID,
                  fmt::format("{}: a pass_through buffer is in the tensor's own type {}, not {}", what,
                              type_name(io.attr.type), type_name(type)));
    }
    b->es = own_es;
    return RKNN_SUCC;
  }
  if (type == RKNN_TENSOR_INT4) {
    return not_implemented(fn, fmt::format("{}: memory of type {}", what, type_name(type)));
  }
  if (!input && type != RKNN_TENSOR_FLOAT32 && type != RKNN_TENSOR_FLOAT16 && type != RKNN_TENSOR_BFLOAT16) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("{}: outputs are written as {} (the tensor's type), FLOAT32, FLOAT16 or BFLOAT16, not {}",
                            what, type_name(io.attr.type), type_name(type)));
  }
  b->es = host_type_size(type);
  if (b->es == 0) return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("{}: type {} is not a tensor type", what, type));
  return RKNN_SUCC;
}

// rknn_inputs_set of an NC1HWC2 buffer: the layout [N, ceil(C/C2), H, W, C2] with the C2
// the platform's table 5-1 row gives the buffer's type (what RKNN_QUERY_NATIVE_INPUT_ATTR
// reports for an NC1HWC2 input: no width padding), unpacked into `dense` (model order);
// `*out` is then the NCHW rknn_input of those bytes. A type with no element size is left to
// set_one, which names it.
int unpack_nc1hwc2(const char* fn, const Ctx& c, const Io& io, const rknn_input& in, std::vector<std::uint8_t>* dense,
                   rknn_input* out) {
  *out = in;
  const bool own = in.pass_through != 0;
  const int type = own ? io.attr.type : raw_enum(in.type);
  const std::size_t es = own ? (io.int8_view ? 1 : model::dtype_size(io.desc.dtype)) : host_type_size(type);
  if (es == 0) return RKNN_SUCC;
  const auto& d = io.desc.dims;
  const std::uint32_t c2 = native_c2(*c.platform, type);
  if (d.size() != 4 || c2 == 0) {
    return fail(fn, RKNN_ERR_INPUT_INVALID,
                fmt::format("input {}: an NC1HWC2 buffer needs a 4-D input of a type with a C2 on {} (INT8, UINT8, "
                            "FLOAT16, FLOAT32); this input is {}-D and the buffer {}",
                            in.index, c.platform->name, d.size(), type_name(type)));
  }
  Layout l;
  l.fmt = RKNN_TENSOR_NC1HWC2;
  l.n = static_cast<std::uint64_t>(d[0]);
  l.c = static_cast<std::uint64_t>(d[1]);
  l.h = l.h_stride = static_cast<std::uint64_t>(d[2]);
  l.w = l.w_stride = static_cast<std::uint64_t>(d[3]);
  l.c2 = c2;
  l.elems = io.elems;
  const std::uint64_t want = l.buffer_elems() * es;
  if (in.size != want) {
    return fail(fn, RKNN_ERR_INPUT_INVALID,
                fmt::format("input {}: size {} does not match the NC1HWC2 buffer {} of {} ({} bytes, the last block's "
                            "channels past {} included as padding)",
                            in.index, in.size, l.describe(), type_name(type), want, l.c));
  }
  dense->resize(io.elems * es);
  unpack(l, es, static_cast<const std::uint8_t*>(in.buf), dense->data());
  out->buf = dense->data();
  out->size = static_cast<std::uint32_t>(dense->size());
  out->fmt = RKNN_TENSOR_NCHW;
  return RKNN_SUCC;
}

}  // namespace

// rknn_run's reads of a bound input: the memory's device view, in the bound layout and
// type, converted into the model input as rknn_inputs_set converts a buffer.
int read_bound_input(const char* fn, Ctx& c, std::size_t i) {
  const Binding& b = c.in_bind[i];
  Io& io = c.inputs[i];
  const bool sync = (c.flags & RKNN_FLAG_DISABLE_FLUSH_INPUT_MEM_CACHE) == 0;
  std::vector<std::uint8_t> bytes;
  bool stale = false;
  std::string why;
  if (!device_read(*b.mem, b.layout.buffer_elems() * b.es, sync, &bytes, &stale, &why)) {
    return fail(fn, RKNN_ERR_INPUT_INVALID, fmt::format("input {} (\"{}\"): {}", i, io.desc.name, why));
  }
  if (stale) {
    warn(fn, fmt::format("input {} (\"{}\"): the CPU wrote {} and did not call rknn_mem_sync(ctx, mem, "
                         "RKNN_MEMORY_SYNC_TO_DEVICE); with RKNN_FLAG_DISABLE_FLUSH_INPUT_MEM_CACHE rknn_run does not "
                         "flush it, so the NPU reads stale data",
                         i, io.desc.name, b.mem->describe()));
  }
  std::vector<std::uint8_t> dense(io.elems * b.es);
  unpack(b.layout, b.es, bytes.data(), dense.data());
  rknn_input in{};
  in.index = static_cast<std::uint32_t>(i);
  in.buf = dense.data();
  in.size = static_cast<std::uint32_t>(dense.size());
  in.pass_through = b.pass_through ? 1 : 0;
  in.type = static_cast<rknn_tensor_type>(b.type);  // checked by set_io_mem
  in.fmt = RKNN_TENSOR_NCHW;                        // model order once unpacked
  return set_one(fn, io, in);
}

// rknn_run's writes of a bound output: the output in the bound type, packed into the bound
// layout, written through the memory's device view.
int write_bound_output(const char* fn, Ctx& c, std::size_t k) {
  const Binding& b = c.out_bind[k];
  const Io& io = c.outputs[k];
  const std::vector<std::uint8_t> dense = output_bytes_as(io, b.type);
  std::vector<std::uint8_t> buf(b.layout.buffer_elems() * b.es);
  pack(b.layout, b.es, dense.data(), buf.data());
  std::string why;
  if (!device_write(*b.mem, buf, (c.flags & RKNN_FLAG_DISABLE_FLUSH_OUTPUT_MEM_CACHE) == 0, &why)) {
    return fail(fn, RKNN_ERR_OUTPUT_INVALID, fmt::format("output {} (\"{}\"): {}", k, io.desc.name, why));
  }
  return RKNN_SUCC;
}

int inputs_set(Handle h, std::uint32_t n, const rknn_input* inputs) {
  static constexpr char fn[] = "rknn_inputs_set";
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  Ctx& c = *l.ctx;
  CallScope call(fn, c);
  if (const int r = refuse_info_only(fn, c); r != RKNN_SUCC) return r;
  if (const int r = refuse_normal_api(fn, c); r != RKNN_SUCC) return r;
  if (n == 0 || n > c.inputs.size()) {
    return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("n_inputs {} is not in 1..{} (the model's inputs)", n, c.inputs.size()));
  }
  for (std::uint32_t i = 0; i < n; ++i) {  // all checked before any is converted
    const rknn_input& in = inputs[i];
    if (in.index >= c.inputs.size()) {
      return fail(fn, RKNN_ERR_PARAM_INVALID,
                  fmt::format("inputs[{}].index {} is out of range (the model has {} inputs)", i, in.index, c.inputs.size()));
    }
    if (in.buf == nullptr) return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("inputs[{}].buf is NULL", i));
  }
  // A run still in flight reads the input buffers: it ends first.
  if (const int r = settle(fn, c); r != RKNN_SUCC) return r;
  for (std::uint32_t i = 0; i < n; ++i) {
    Io& io = c.inputs[inputs[i].index];
    rknn_input in = inputs[i];
    std::vector<std::uint8_t> dense;
    if (raw_enum(in.fmt) == RKNN_TENSOR_NC1HWC2) {
      if (const int r = unpack_nc1hwc2(fn, c, io, inputs[i], &dense, &in); r != RKNN_SUCC) return r;
    }
    const int r = set_one(fn, io, in);
    if (r != RKNN_SUCC) return r;
    c.input_set[inputs[i].index] = true;
  }
  return RKNN_SUCC;
}

int outputs_get(Handle h, std::uint32_t n, rknn_output* outputs, rknn_output_extend* extend) {
  static constexpr char fn[] = "rknn_outputs_get";
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  Ctx& c = *l.ctx;
  CallScope call(fn, c);
  if (const int r = refuse_info_only(fn, c); r != RKNN_SUCC) return r;
  if (const int r = refuse_normal_api(fn, c); r != RKNN_SUCC) return r;
  if (n == 0 || n > c.outputs.size()) {
    return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("n_outputs {} is not in 1..{} (the model's outputs)", n, c.outputs.size()));
  }
  // RKNN_FLAG_ASYNC_MASK: the last finished frame's outputs while the next one runs (the
  // first frame's are waited for); otherwise the run in flight, if any, ends first.
  const bool async = (c.flags & RKNN_FLAG_ASYNC_MASK) != 0;
  if (!async || c.async_outputs.empty()) {
    if (const int r = settle(fn, c); r != RKNN_SUCC) return r;
  }
  if (c.done_frame == 0) return fail(fn, RKNN_ERR_OUTPUT_INVALID, "no run has finished on this context yet (call rknn_run first)");
  for (std::uint32_t i = 0; i < n; ++i) {  // all checked before any buffer is handed out
    const rknn_output& o = outputs[i];
    if (o.index >= c.outputs.size()) {
      return fail(fn, RKNN_ERR_PARAM_INVALID,
                  fmt::format("outputs[{}].index {} is out of range (the model has {} outputs)", i, o.index, c.outputs.size()));
    }
    if (o.is_prealloc != 0) {
      const Io& io = c.outputs[o.index];
      const std::uint64_t need = o.want_float != 0 ? io.elems * sizeof(float) : io.attr.size;
      if (o.buf == nullptr) return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("outputs[{}]: is_prealloc with a NULL buf", i));
      if (o.size < need) {
        return fail(fn, RKNN_ERR_OUTPUT_INVALID,
                    fmt::format("outputs[{}]: size {} is smaller than the {} bytes of output {} as {}", i, o.size, need,
                                o.index, o.want_float != 0 ? "float32" : type_name(io.attr.type)));
      }
    }
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    rknn_output& o = outputs[i];
    Io io = c.outputs[o.index];
    if (async) io.buf = c.async_outputs[o.index].data();
    const std::vector<std::uint8_t> bytes = output_bytes(io, o.want_float != 0);
    if (o.is_prealloc != 0) {
      std::memcpy(o.buf, bytes.data(), bytes.size());
      continue;
    }
    void* p = std::malloc(std::max<std::size_t>(bytes.size(), 1));
    if (p == nullptr) return fail(fn, RKNN_ERR_MALLOC_FAIL, fmt::format("{} bytes for output {}", bytes.size(), o.index));
    std::memcpy(p, bytes.data(), bytes.size());
    c.handed_out.insert(p);
    o.buf = p;
    o.size = static_cast<std::uint32_t>(bytes.size());
  }
  if (extend != nullptr) extend->frame_id = c.done_frame;
  return RKNN_SUCC;
}

int outputs_release(Handle h, std::uint32_t n, rknn_output* outputs) {
  static constexpr char fn[] = "rknn_outputs_release";
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  Ctx& c = *l.ctx;
  CallScope call(fn, c);
  if (const int r = refuse_normal_api(fn, c); r != RKNN_SUCC) return r;
  if (n > c.outputs.size()) {
    return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("n_outputs {} is more than the model's {} outputs", n, c.outputs.size()));
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    const rknn_output& o = outputs[i];
    if (o.is_prealloc == 0 && o.buf != nullptr && c.handed_out.count(o.buf) == 0) {
      return fail(fn, RKNN_ERR_PARAM_INVALID,
                  fmt::format("outputs[{}].buf {} was not handed out by rknn_outputs_get on this context (or was "
                              "already released)",
                              i, o.buf));
    }
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    rknn_output& o = outputs[i];
    if (o.is_prealloc != 0 || o.buf == nullptr) continue;
    c.handed_out.erase(o.buf);
    std::free(o.buf);
    o.buf = nullptr;
  }
  return RKNN_SUCC;
}

// The live memory object `mem` names, usable by context `h` (created on it, or with no
// context): what every call that binds memory to a context checks first.
int memory_of(const char* fn, Handle h, const rknn_tensor_mem* mem, MemRef* out) {
  MemRef m = find_mem(mem);
  if (!m) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("mem {} is not a live rknn_tensor_mem (never created by rknn_create_mem*, or destroyed by "
                            "rknn_destroy_mem)",
                            static_cast<const void*>(mem)));
  }
  if (m->owner != 0 && m->owner != h) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("{} belongs to context 0x{:x}, not 0x{:x}: create the memory on the context that binds it "
                            "(or with RKNN_MEM_FLAG_ALLOC_NO_CONTEXT)",
                            m->describe(), m->owner, h));
  }
  *out = std::move(m);
  return RKNN_SUCC;
}

int set_io_mem(Handle h, rknn_tensor_mem* mem, const rknn_tensor_attr* attr) {
  static constexpr char fn[] = "rknn_set_io_mem";
  clear_last_error();
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  MemRef m;
  if (const int r = memory_of(fn, h, mem, &m); r != RKNN_SUCC) return r;
  Ctx& c = *l.ctx;
  CallScope call(fn, c);
  if (const int r = refuse_info_only(fn, c); r != RKNN_SUCC) return r;
  if (const int r = settle(fn, c); r != RKNN_SUCC) return r;  // a run in flight uses the bindings
  // attr->index alone does not tell an input from an output: the name does, as rknn_query
  // reported it.
  const std::string name(attr->name, strnlen(attr->name, sizeof attr->name));
  bool input = true;
  auto named = [&](const std::vector<Io>& list) {
    return std::find_if(list.begin(), list.end(), [&](const Io& io) { return io.desc.name == name; });
  };
  auto it = named(c.inputs);
  if (it == c.inputs.end()) {
    input = false;
    it = named(c.outputs);
    if (it == c.outputs.end()) {
      return fail(fn, RKNN_ERR_PARAM_INVALID,
                  fmt::format("attr->name \"{}\" is no input or output of the model; pass the attribute rknn_query "
                              "returned (its name tells an input from an output)",
                              name));
    }
  }
  const std::vector<Io>& list = input ? c.inputs : c.outputs;
  const auto index = static_cast<std::size_t>(it - list.begin());
  const std::string what = fmt::format("{} {} (\"{}\")", input ? "input" : "output", index, name);
  if (attr->index != index) {
    return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("{}: attr->index is {}", what, attr->index));
  }
  Binding b;
  if (const int r = binding_type(fn, *it, input, *attr, what, &b); r != RKNN_SUCC) return r;
  std::string why;
  // Guide 5.2.3: an NC1HWC2 input attribute without pass_through takes an NHWC buffer.
  const bool nhwc_source = input && attr->pass_through == 0 && raw_enum(attr->fmt) == RKNN_TENSOR_NC1HWC2;
  if (!layout_from_attr(*attr, it->desc.dims, nhwc_source, &b.layout, &why)) {
    return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("{}: {}", what, why));
  }
  const std::uint64_t need = b.layout.buffer_elems() * b.es;
  if (m->size < need) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("{}: {} is too small: the attribute ({}, {}) needs {} bytes with its padding "
                            "(size_with_stride); was the memory sized from another attribute (e.g. "
                            "RKNN_QUERY_INPUT_ATTR's size while binding the native one)?",
                            what, m->describe(), b.layout.describe(), type_name(b.type), need));
  }
  b.mem = std::move(m);
  (input ? c.in_bind : c.out_bind)[index] = std::move(b);
  return RKNN_SUCC;
}

int set_internal_mem(Handle h, rknn_tensor_mem* mem) {
  static constexpr char fn[] = "rknn_set_internal_mem";
  clear_last_error();
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  MemRef m;
  if (const int r = memory_of(fn, h, mem, &m); r != RKNN_SUCC) return r;
  if (m->kind != MemObj::Kind::kDevice) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("{}: internal memory must come from rknn_create_mem / rknn_create_mem2 (the software "
                            "NPU computes intermediates in its own device memory only)",
                            m->describe()));
  }
  Ctx& c = *l.ctx;
  CallScope call(fn, c);
  if (const int r = refuse_info_only(fn, c); r != RKNN_SUCC) return r;
  if (const int r = settle(fn, c); r != RKNN_SUCC) return r;  // a run in flight uses the bindings
  const std::uint64_t need = c.task_desc.size + c.work_desc.size;
  if (m->size < need) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("{} is smaller than the {} bytes of RKNN_QUERY_MEM_SIZE's total_internal_size", m->describe(),
                            need));
  }
  c.internal = std::move(m);
  return RKNN_SUCC;
}

}  // namespace svp::runtime::rknn
