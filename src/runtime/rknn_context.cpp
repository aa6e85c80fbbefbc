// The RKNN front-end's runtime core (rknn_context.h): contexts, model loading for
// rknn_init, the attributes rknn_query reports and the conversions of rknn_inputs_set /
// rknn_outputs_get. Deviations from Rockchip's runtime are listed in docs/rknn.md.
#include "runtime/rknn_context.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/log.h"
#include "common/read_file.h"
#include "model/format.h"
#include "runtime/rknn_layout.h"
#include "runtime/rknn_mem.h"
#include "runtime/runtime.h"
#include "target/device_profile.h"

namespace svp::runtime::rknn {
namespace {

thread_local std::string t_last_error;
thread_local std::string t_last_warning;

constexpr char kRebuildHint[] =
    "rebuild it from the ONNX model with svp-acl's compiler: svp_atc --framework=5 --model=<model>.onnx "
    "--soc_version=RK3588 --output=<model> (any RKNN target: RK3588, RK3576, RK3566/RK3568, RK3562, "
    "RV1106/RV1103) and pass <model>.om to rknn_init";

// Flags implemented (the two DISABLE_FLUSH flags concern rknn_set_io_mem memory only;
// INTERNAL_ALLOC_OUTSIDE waits for rknn_set_internal_mem); see docs/rknn.md.
constexpr std::uint32_t kPriorityMask = 0x3;
constexpr std::uint32_t kNoOpFlags = RKNN_FLAG_DISABLE_PROC_HIGH_PRIORITY | RKNN_FLAG_DISABLE_FLUSH_INPUT_MEM_CACHE |
                                     RKNN_FLAG_DISABLE_FLUSH_OUTPUT_MEM_CACHE | RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE;
constexpr std::uint32_t kKnownFlags = 0x0003FFFF;

// One model input or output as the context sees it.
struct Io {
  model::IoDesc desc;            // the model's (dims in model order, row stride, dtype)
  model::Quant quant;            // the program tensor's quantization (empty: none)
  void* buf = nullptr;           // device buffer (desc.size bytes, rows at desc.stride)
  rknn_tensor_attr attr{};       // what RKNN_QUERY_INPUT_ATTR / OUTPUT_ATTR report
  std::uint64_t elems = 0;
  bool image = false;            // 4-D: reported NHWC (inputs), NCHW (outputs)
  // A quantized model's float input/output, reported as Rockchip's runtime reports it: INT8
  // with the affine encoding of the int8 tensor behind it (the QuantizeLinear after the
  // input, the DequantizeLinear before the output; a uint8 encoding is shifted to int8 by
  // -128 on the values and the zero point, the same 256 levels). pass_through input and
  // want_float == 0 output are then int8 in that encoding; the conversion to and from the
  // float buffer is exact (the model's QuantizeLinear/DequantizeLinear undo it).
  bool int8_view = false;
  float view_scale = 1.0f;
  std::int32_t view_zp = 0;
};

// Memory bound to an input or output by rknn_set_io_mem.
struct Binding {
  MemRef mem;              // null: not bound
  Layout layout;           // of the buffer
  int type = 0;            // the buffer's element type
  std::size_t es = 0;      // its size
  bool pass_through = false;
};

// The model image loaded into the runtime's registry, shared by a context and its
// rknn_dup_context copies (one copy of the weights); unloaded when the last one goes.
struct LoadedImage {
  std::shared_ptr<Runtime> rt;
  std::vector<std::uint8_t> image;  // owned: the registry does not copy
  std::uint32_t model_id = 0;
  bool loaded = false;
  LoadedImage() = default;
  LoadedImage(const LoadedImage&) = delete;
  LoadedImage& operator=(const LoadedImage&) = delete;
  ~LoadedImage() {
    if (loaded) (void)rt->unload_model(model_id);
  }
};

struct Ctx {
  std::mutex mu;
  std::uint32_t flags = 0;                            // rknn_init's
  const target::DeviceProfile* platform = nullptr;    // whose native layouts are reported
  std::vector<Binding> in_bind, out_bind;
  // rknn_set_internal_mem: task_buf at offset 0, work_buf right after it (instead of the
  // context's own, which RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE does not allocate).
  MemRef internal;
  std::shared_ptr<Runtime> rt;
  std::shared_ptr<LoadedImage> model = std::make_shared<LoadedImage>();  // null once destroyed
  void* rt_context = nullptr;
  std::vector<Io> inputs, outputs;
  void* task_buf = nullptr;
  void* work_buf = nullptr;
  model::IoDesc task_desc, work_desc;
  std::vector<bool> input_set;
  bool ran = false;
  std::uint64_t frame_id = 0;
  std::set<void*> handed_out;  // output buffers rknn_outputs_get allocated, until released
  std::uint64_t device_bytes = 0;
  std::uint64_t weights_bytes = 0;
};

std::mutex g_table_mu;
std::map<Handle, std::shared_ptr<Ctx>> g_contexts;
std::atomic<std::uint64_t> g_next{1};

Handle make_handle() {
  const std::uint64_t n = g_next.fetch_add(1);
#ifdef __arm__
  return static_cast<Handle>(0x52000000u | (n & 0x00FFFFFFu));
#else
  return (std::uint64_t{0x524B4E4E} << 32) | n;  // "RKNN" in the high half
#endif
}

struct Lookup {
  std::shared_ptr<Ctx> ctx;
  int code = RKNN_SUCC;
};

Lookup find(const char* fn, Handle h) {
  std::shared_ptr<Ctx> ctx;
  {
    std::lock_guard<std::mutex> lock(g_table_mu);
    auto it = g_contexts.find(h);
    if (it != g_contexts.end()) ctx = it->second;
  }
  if (ctx) return {std::move(ctx), RKNN_SUCC};
  // Logged after the table lock is released: the log sink is no place to hold it.
  return {nullptr, fail(fn, RKNN_ERR_CTX_INVALID,
                        fmt::format("context 0x{:x} is not a live context (never created by rknn_init, or "
                                    "already destroyed)",
                                    h))};
}

int rknn_type_of(model::DType t) {
  switch (t) {
    case model::DType::kFloat32: return RKNN_TENSOR_FLOAT32;
    case model::DType::kFloat16: return RKNN_TENSOR_FLOAT16;
    case model::DType::kInt8: return RKNN_TENSOR_INT8;
    case model::DType::kUint8: return RKNN_TENSOR_UINT8;
    case model::DType::kInt16: return RKNN_TENSOR_INT16;
    case model::DType::kUint16: return RKNN_TENSOR_UINT16;
    case model::DType::kInt32: return RKNN_TENSOR_INT32;
    case model::DType::kUint32: return RKNN_TENSOR_UINT32;
    case model::DType::kInt64: return RKNN_TENSOR_INT64;
    case model::DType::kBool: return RKNN_TENSOR_BOOL;
    default: return -1;
  }
}

// Element size of the types rknn_inputs_set / rknn_outputs_get convert (0 = not converted).
std::size_t host_type_size(int type) {
  switch (type) {
    case RKNN_TENSOR_FLOAT32: return 4;
    case RKNN_TENSOR_INT8:
    case RKNN_TENSOR_UINT8:
    case RKNN_TENSOR_BOOL: return 1;
    case RKNN_TENSOR_INT16:
    case RKNN_TENSOR_UINT16: return 2;
    case RKNN_TENSOR_INT32:
    case RKNN_TENSOR_UINT32: return 4;
    case RKNN_TENSOR_INT64: return 8;
    default: return 0;
  }
}

const char* type_name(int t) {
  return t >= 0 && t < RKNN_TENSOR_TYPE_MAX ? get_type_string(static_cast<rknn_tensor_type>(t)) : "invalid";
}

// Reads element i of a dense buffer of model dtype `t` as a double.
double load(model::DType t, const std::uint8_t* p, std::size_t i) {
  switch (t) {
    case model::DType::kFloat32: { float v; std::memcpy(&v, p + 4 * i, 4); return v; }
    case model::DType::kInt8: return static_cast<std::int8_t>(p[i]);
    case model::DType::kUint8:
    case model::DType::kBool: return p[i];
    case model::DType::kInt16: { std::int16_t v; std::memcpy(&v, p + 2 * i, 2); return v; }
    case model::DType::kUint16: { std::uint16_t v; std::memcpy(&v, p + 2 * i, 2); return v; }
    case model::DType::kInt32: { std::int32_t v; std::memcpy(&v, p + 4 * i, 4); return v; }
    case model::DType::kUint32: { std::uint32_t v; std::memcpy(&v, p + 4 * i, 4); return v; }
    case model::DType::kInt64: { std::int64_t v; std::memcpy(&v, p + 8 * i, 8); return static_cast<double>(v); }
    default: return 0.0;
  }
}

template <typename T>
T saturate(double v) {
  const double r = std::nearbyint(v);
  const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
  const double hi = static_cast<double>(std::numeric_limits<T>::max());
  return static_cast<T>(std::min(hi, std::max(lo, std::isnan(r) ? 0.0 : r)));
}

// Writes `v` as element i of a dense buffer of model dtype `t` (integers round and saturate).
void store(model::DType t, std::uint8_t* p, std::size_t i, double v) {
  switch (t) {
    case model::DType::kFloat32: { const float f = static_cast<float>(v); std::memcpy(p + 4 * i, &f, 4); break; }
    case model::DType::kInt8: { const auto q = saturate<std::int8_t>(v); std::memcpy(p + i, &q, 1); break; }
    case model::DType::kUint8: p[i] = saturate<std::uint8_t>(v); break;
    case model::DType::kBool: p[i] = v != 0.0 ? 1 : 0; break;
    case model::DType::kInt16: { const auto q = saturate<std::int16_t>(v); std::memcpy(p + 2 * i, &q, 2); break; }
    case model::DType::kUint16: { const auto q = saturate<std::uint16_t>(v); std::memcpy(p + 2 * i, &q, 2); break; }
    case model::DType::kInt32: { const auto q = saturate<std::int32_t>(v); std::memcpy(p + 4 * i, &q, 4); break; }
    case model::DType::kUint32: { const auto q = saturate<std::uint32_t>(v); std::memcpy(p + 4 * i, &q, 4); break; }
    case model::DType::kInt64: { const auto q = saturate<std::int64_t>(v); std::memcpy(p + 8 * i, &q, 8); break; }
    default: break;
  }
}

// The host-side type of rknn_input.type as a model dtype (only the converted ones).
bool dtype_of(int rknn_type, model::DType* out) {
  switch (rknn_type) {
    case RKNN_TENSOR_FLOAT32: *out = model::DType::kFloat32; return true;
    case RKNN_TENSOR_INT8: *out = model::DType::kInt8; return true;
    case RKNN_TENSOR_UINT8: *out = model::DType::kUint8; return true;
    case RKNN_TENSOR_INT16: *out = model::DType::kInt16; return true;
    case RKNN_TENSOR_UINT16: *out = model::DType::kUint16; return true;
    case RKNN_TENSOR_INT32: *out = model::DType::kInt32; return true;
    case RKNN_TENSOR_UINT32: *out = model::DType::kUint32; return true;
    case RKNN_TENSOR_INT64: *out = model::DType::kInt64; return true;
    case RKNN_TENSOR_BOOL: *out = model::DType::kBool; return true;
    default: return false;
  }
}

bool per_tensor_affine(const model::Quant& q) { return q.scale.size() == 1 && q.zero_point.size() == 1; }

// The dense (model-order) bytes of `io` from its strided device buffer.
std::vector<std::uint8_t> read_dense(const Io& io) {
  const std::size_t es = model::dtype_size(io.desc.dtype);
  const std::uint64_t last = static_cast<std::uint64_t>(io.desc.dims.back());
  const std::uint64_t rows = last == 0 ? 0 : io.elems / last;
  std::vector<std::uint8_t> out(io.elems * es);
  const auto* src = static_cast<const std::uint8_t*>(io.buf);
  for (std::uint64_t r = 0; r < rows; ++r) std::memcpy(out.data() + r * last * es, src + r * io.desc.stride, last * es);
  return out;
}

void write_dense(const Io& io, const std::vector<std::uint8_t>& dense) {
  const std::size_t es = model::dtype_size(io.desc.dtype);
  const std::uint64_t last = static_cast<std::uint64_t>(io.desc.dims.back());
  const std::uint64_t rows = last == 0 ? 0 : io.elems / last;
  auto* dst = static_cast<std::uint8_t*>(io.buf);
  for (std::uint64_t r = 0; r < rows; ++r) std::memcpy(dst + r * io.desc.stride, dense.data() + r * last * es, last * es);
}

// The --soc_version the model was compiled with, from its recorded svp_atc command line
// ("" when the model records none, e.g. compiled through the library).
std::string compiled_soc(const std::string& command_line) {
  std::istringstream in(command_line);
  std::string tok, prev;
  while (in >> tok) {
    if (tok.rfind("--soc_version=", 0) == 0) return tok.substr(14);
    if (prev == "--soc_version") return tok;
    prev = tok;
  }
  return command_line.empty() ? "" : target::default_profile().name;
}

void release_buffers(Ctx& c) {
  if (!c.rt) return;
  auto free_buf = [&](void*& p) {
    if (p != nullptr) (void)c.rt->free(p, MemoryApi::kMalloc);
    p = nullptr;
  };
  for (Io& io : c.inputs) free_buf(io.buf);
  for (Io& io : c.outputs) free_buf(io.buf);
  free_buf(c.task_buf);
  free_buf(c.work_buf);
  for (void* p : c.handed_out) std::free(p);
  c.handed_out.clear();
  c.model.reset();  // unloads it unless a duplicate still runs it
  if (c.rt_context != nullptr) (void)c.rt->destroy_context(c.rt_context);
  c.rt_context = nullptr;
}

Result<std::shared_ptr<Runtime>> runtime_for_rknn() {
  auto rt = Runtime::get();
  if (rt.ok()) return rt;
  const Status s = Runtime::init(nullptr);
  if (!s.ok() && s.code() != err::kRepeatInitialize) return s;
  return Runtime::get();
}

// Restores the calling thread's current runtime context on scope exit (rknn calls switch
// it to the rknn context's own).
class CurrentContextScope {
 public:
  explicit CurrentContextScope(Runtime& rt) : rt_(rt) {
    auto cur = rt.get_current_context();
    previous_ = cur.ok() ? *cur : nullptr;
  }
  ~CurrentContextScope() {
    if (previous_ != nullptr) (void)rt_.set_current_context(previous_);
  }

 private:
  Runtime& rt_;
  void* previous_ = nullptr;
};

// The int8 encoding of tensor `t` (int8, or uint8 shifted by -128), if it has one.
bool int8_encoding(const model::Tensor& t, float* scale, std::int32_t* zp) {
  if ((t.dtype != model::DType::kInt8 && t.dtype != model::DType::kUint8) || !per_tensor_affine(t.quant)) return false;
  *scale = t.quant.scale[0];
  *zp = t.quant.zero_point[0] - (t.dtype == model::DType::kUint8 ? 128 : 0);
  return true;
}

// Finds the int8 view of a float model input (its QuantizeLinear reader) or output (its
// DequantizeLinear producer); see Io::int8_view.
void find_int8_view(const model::Program& p, Io& io, bool input) {
  if (io.desc.dtype != model::DType::kFloat32 || io.desc.tensor < 0) return;
  for (const model::Layer& l : p.layers) {
    if (input && l.op == "QuantizeLinear" && !l.inputs.empty() && l.inputs[0] == io.desc.tensor && !l.outputs.empty()) {
      io.int8_view = int8_encoding(p.tensors[static_cast<std::size_t>(l.outputs[0])], &io.view_scale, &io.view_zp);
      return;
    }
    if (!input && l.op == "DequantizeLinear" && !l.outputs.empty() && l.outputs[0] == io.desc.tensor &&
        !l.inputs.empty() && l.inputs[0] >= 0) {
      io.int8_view = int8_encoding(p.tensors[static_cast<std::size_t>(l.inputs[0])], &io.view_scale, &io.view_zp);
      return;
    }
  }
}

void fill_attr(Io& io, std::uint32_t index, bool input) {
  rknn_tensor_attr& a = io.attr;
  a = rknn_tensor_attr{};
  a.index = index;
  const auto& d = io.desc.dims;
  io.image = d.size() == 4;
  a.n_dims = static_cast<std::uint32_t>(d.size());
  if (io.image && input) {  // reported NHWC, as Rockchip's runtime reports image inputs
    a.fmt = RKNN_TENSOR_NHWC;
    const std::int64_t nhwc[4] = {d[0], d[2], d[3], d[1]};
    for (int i = 0; i < 4; ++i) a.dims[i] = static_cast<std::uint32_t>(nhwc[i]);
    a.w_stride = static_cast<std::uint32_t>(d[3]);
  } else {
    a.fmt = io.image ? RKNN_TENSOR_NCHW : RKNN_TENSOR_UNDEFINED;
    for (std::size_t i = 0; i < d.size(); ++i) a.dims[i] = static_cast<std::uint32_t>(d[i]);
  }
  std::snprintf(a.name, sizeof a.name, "%s", io.desc.name.c_str());
  if (io.int8_view) {
    a.n_elems = static_cast<std::uint32_t>(io.elems);
    a.type = RKNN_TENSOR_INT8;
    a.size = a.n_elems;
    a.size_with_stride = a.size;
    a.qnt_type = RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC;
    a.zp = io.view_zp;
    a.scale = io.view_scale;
    return;
  }
  a.n_elems = static_cast<std::uint32_t>(io.elems);
  a.type = static_cast<rknn_tensor_type>(rknn_type_of(io.desc.dtype));
  a.size = static_cast<std::uint32_t>(io.elems * model::dtype_size(io.desc.dtype));
  a.size_with_stride = a.size;
  if (per_tensor_affine(io.quant)) {
    a.qnt_type = RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC;
    a.zp = io.quant.zero_point[0];
    a.scale = io.quant.scale[0];
  } else {
    a.qnt_type = RKNN_TENSOR_QNT_NONE;
    a.zp = 0;
    a.scale = 1.0f;
  }
}

int alloc_device(const char* fn, Ctx& c, std::uint64_t size, void** out) {
  auto p = c.rt->malloc(static_cast<std::size_t>(std::max<std::uint64_t>(size, 16)), MemoryApi::kMalloc, 0);
  if (!p.ok()) return fail(fn, RKNN_ERR_MALLOC_FAIL, fmt::format("device memory of {} bytes: {}", size, p.status().message()));
  c.device_bytes += size;
  *out = *p;
  return RKNN_SUCC;
}

// The context's own runtime context (its stream) and per-input state.
int finish_context(const char* fn, Ctx& c) {
  c.input_set.assign(c.inputs.size(), false);
  c.in_bind.resize(c.inputs.size());
  c.out_bind.resize(c.outputs.size());
  CurrentContextScope keep(*c.rt);
  auto rctx = c.rt->create_context(0);
  if (!rctx.ok()) return fail(fn, RKNN_ERR_DEVICE_UNAVAILABLE, "no runtime context: " + rctx.status().message());
  c.rt_context = *rctx;
  return RKNN_SUCC;
}

// Loads `c.model->image` into the runtime and prepares buffers and attributes.
int load(const char* fn, Ctx& c, std::uint32_t flag) {
  const std::vector<std::uint8_t>& image = c.model->image;
  if (image.size() < sizeof model::kModelMagic ||
      std::memcmp(image.data(), model::kModelMagic, sizeof model::kModelMagic) != 0) {
    const bool vendor = image.size() >= 4 && std::memcmp(image.data(), "RKNN", 4) == 0;
    return fail(fn, RKNN_ERR_MODEL_INVALID,
                fmt::format("{} ({} bytes); {}",
                            vendor ? "this is a Rockchip .rknn file, a closed format svp-acl cannot read"
                                   : "this is not an svp-acl model image (no SVPACLOM header)",
                            image.size(), kRebuildHint));
  }
  auto rt = runtime_for_rknn();
  if (!rt.ok()) return fail(fn, RKNN_ERR_DEVICE_UNAVAILABLE, "the software NPU did not start: " + rt.status().message());
  c.rt = *rt;
  c.model->rt = c.rt;
  model::Scheduling sched;
  sched.priority = 3 + static_cast<std::int32_t>(flag & kPriorityMask);  // HIGH 3 (the default), MEDIUM 4, LOW 5
  auto id = c.rt->load_model(image.data(), image.size(), sched);
  if (!id.ok()) {
    return fail(fn, RKNN_ERR_MODEL_INVALID, fmt::format("the model image does not load: {}; {}", id.status().message(), kRebuildHint));
  }
  c.model->model_id = *id;
  c.model->loaded = true;
  auto loaded = c.rt->models().lookup(*id);
  if (!loaded.ok()) return fail(fn, RKNN_ERR_MODEL_INVALID, loaded.status().message());
  const model::Model& m = *loaded->model;
  const std::string soc = compiled_soc(m.program.compiler.command_line);
  const target::DeviceProfile* profile = soc.empty() ? nullptr : target::find_profile(soc);
  if (profile != nullptr && profile->family != target::Family::kRknn) {
    return fail(fn, RKNN_ERR_TARGET_PLATFORM_UNMATCH,
                fmt::format("the model was compiled for {} (an SVP target; load it with libsvp_acl); compile it "
                            "with --soc_version=RK3588 or another RKNN target for librknnrt",
                            profile->name));
  }
  // A model without a recorded target (compiled through the library) gets RK3588's layouts.
  c.platform = profile != nullptr ? profile : target::find_profile("RK3588");
  c.flags = flag;
  const model::ModelFlags& flags = m.program.flags;
  if (!flags.dynamic_batch.empty() || !flags.dynamic_hw.empty()) {
    return not_implemented(fn, "models with dynamic batch or resolution gears (rknn_set_input_shapes)");
  }
  if (model::reuses_io(flags.buffer_reuse)) {
    return not_implemented(fn, "models compiled with an I/O buffer reuse type (--buffer_reuse)");
  }
  for (const model::IoDesc& d : m.inputs) {
    if (d.kind == model::IoKind::kAippParams || d.aipp != model::AippRole::kNone) {
      return not_implemented(fn, fmt::format("models with AIPP (input \"{}\")", d.name));
    }
  }
  auto alloc = [&](std::uint64_t size, void** out) { return alloc_device(fn, c, size, out); };
  auto add_io = [&](const model::IoDesc& d, std::vector<Io>* list, bool input) -> int {
    Io io;
    io.desc = d;
    if (d.tensor >= 0 && static_cast<std::size_t>(d.tensor) < m.program.tensors.size()) {
      io.quant = m.program.tensors[static_cast<std::size_t>(d.tensor)].quant;
    }
    io.elems = 1;
    for (std::int64_t x : d.dims) io.elems *= static_cast<std::uint64_t>(x);
    if (d.dims.empty() || d.dims.size() > RKNN_MAX_DIMS || rknn_type_of(d.dtype) < 0) {
      return not_implemented(fn, fmt::format("{} \"{}\" of {} dimensions and type {}", input ? "input" : "output", d.name,
                                             d.dims.size(), model::dtype_name(d.dtype)));
    }
    if (int r = alloc(d.size, &io.buf); r != RKNN_SUCC) return r;
    find_int8_view(m.program, io, input);
    fill_attr(io, static_cast<std::uint32_t>(list->size()), input);
    list->push_back(std::move(io));
    return RKNN_SUCC;
  };
  for (const model::IoDesc& d : m.inputs) {
    if (d.kind == model::IoKind::kData) {
      if (int r = add_io(d, &c.inputs, true); r != RKNN_SUCC) return r;
    } else if (d.kind == model::IoKind::kTaskBuf) {
      c.task_desc = d;
      if ((flag & RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE) != 0) continue;
      if (int r = alloc(d.size, &c.task_buf); r != RKNN_SUCC) return r;
    } else if (d.kind == model::IoKind::kWorkBuf) {
      c.work_desc = d;
      if ((flag & RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE) != 0) continue;
      if (int r = alloc(d.size, &c.work_buf); r != RKNN_SUCC) return r;
    }
  }
  // The output descriptions do not name their program tensors; the program's output order
  // is theirs.
  const std::vector<std::int32_t> output_tensors = m.program.output_tensors();
  for (std::size_t k = 0; k < m.outputs.size(); ++k) {
    model::IoDesc d = m.outputs[k];
    if (d.tensor < 0 && k < output_tensors.size()) d.tensor = output_tensors[k];
    if (int r = add_io(d, &c.outputs, false); r != RKNN_SUCC) return r;
  }
  c.weights_bytes = m.weights_size;
  return finish_context(fn, c);
}

template <typename T>
int copy_struct(const char* fn, void* info, std::uint32_t size, const T& value, const char* what) {
  if (size < sizeof(T)) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("size {} is smaller than sizeof({}) = {}", size, what, sizeof(T)));
  }
  std::memcpy(info, &value, sizeof(T));
  return RKNN_SUCC;
}

int query_attr(const char* fn, const std::vector<Io>& list, void* info, std::uint32_t size, const char* which) {
  if (size < sizeof(rknn_tensor_attr)) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("size {} is smaller than sizeof(rknn_tensor_attr) = {}", size, sizeof(rknn_tensor_attr)));
  }
  auto* attr = static_cast<rknn_tensor_attr*>(info);
  if (attr->index >= list.size()) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("{} index {} is out of range (the model has {} {}s)", which, attr->index, list.size(), which));
  }
  *attr = list[attr->index].attr;
  return RKNN_SUCC;
}

int query_native(const char* fn, const Ctx& c, bool input, bool nhwc, void* info, std::uint32_t size) {
  const std::vector<Io>& list = input ? c.inputs : c.outputs;
  const int r = query_attr(fn, list, info, size, input ? "input" : "output");
  if (r != RKNN_SUCC) return r;
  auto* attr = static_cast<rknn_tensor_attr*>(info);
  *attr = native_attr(*attr, list[attr->index].desc.dims, input, nhwc, *c.platform);
  return RKNN_SUCC;
}

// Converts one rknn_input into the model input's device buffer.
int set_one(const char* fn, Io& io, const rknn_input& in) {
  // Read as the ints a C caller may have put there (any value; see raw_enum).
  const int type = raw_enum(in.type), format = raw_enum(in.fmt);
  const std::size_t model_es = model::dtype_size(io.desc.dtype);
  if (in.pass_through != 0 && io.int8_view) {
    if (in.size != io.elems) {
      return fail(fn, RKNN_ERR_INPUT_INVALID,
                  fmt::format("input {}: pass_through needs exactly {} bytes (INT8, the type RKNN_QUERY_INPUT_ATTR "
                              "reports, {} elements in model order), got {}",
                              in.index, io.elems, io.elems, in.size));
    }
    const auto* q = static_cast<const std::int8_t*>(in.buf);
    std::vector<std::uint8_t> dense(io.elems * sizeof(float));
    for (std::uint64_t i = 0; i < io.elems; ++i) {
      store(model::DType::kFloat32, dense.data(), i, (static_cast<double>(q[i]) - io.view_zp) * io.view_scale);
    }
    write_dense(io, dense);
    return RKNN_SUCC;
  }
  if (in.pass_through != 0) {
    const std::uint64_t want = io.elems * model_es;
    if (in.size != want) {
      return fail(fn, RKNN_ERR_INPUT_INVALID,
                  fmt::format("input {}: pass_through needs exactly {} bytes (the model's {} tensor, {} elements in "
                              "model order), got {}",
                              in.index, want, model::dtype_name(io.desc.dtype), io.elems, in.size));
    }
    const auto* p = static_cast<const std::uint8_t*>(in.buf);
    write_dense(io, std::vector<std::uint8_t>(p, p + want));
    return RKNN_SUCC;
  }
  model::DType src_t;
  if (!dtype_of(type, &src_t)) {
    if (type == RKNN_TENSOR_FLOAT16 || type == RKNN_TENSOR_BFLOAT16 || type == RKNN_TENSOR_INT4) {
      return not_implemented(fn, fmt::format("input {}: buffers of type {}", in.index, type_name(type)));
    }
    return fail(fn, RKNN_ERR_INPUT_INVALID, fmt::format("input {}: type {} is not a tensor type", in.index, type));
  }
  if (format != RKNN_TENSOR_NCHW && format != RKNN_TENSOR_NHWC && format != RKNN_TENSOR_UNDEFINED) {
    if (format == RKNN_TENSOR_NC1HWC2) return not_implemented(fn, fmt::format("input {}: NC1HWC2 buffers", in.index));
    return fail(fn, RKNN_ERR_INPUT_INVALID, fmt::format("input {}: fmt {} is not a tensor format", in.index, format));
  }
  const std::uint64_t want = io.elems * host_type_size(type);
  if (in.size != want) {
    return fail(fn, RKNN_ERR_INPUT_INVALID,
                fmt::format("input {}: size {} does not match {} elements of {} ({} bytes)", in.index, in.size, io.elems,
                            type_name(type), want));
  }
  const auto* src = static_cast<const std::uint8_t*>(in.buf);
  const auto& d = io.desc.dims;
  const bool nhwc = io.image && format == RKNN_TENSOR_NHWC;
  const bool quantize = io.desc.dtype != model::DType::kFloat32 && per_tensor_affine(io.quant) &&
                        src_t == model::DType::kFloat32;
  const double scale = quantize ? io.quant.scale[0] : 1.0;
  const double zp = quantize ? io.quant.zero_point[0] : 0.0;
  std::vector<std::uint8_t> dense(io.elems * model_es);
  for (std::uint64_t i = 0; i < io.elems; ++i) {
    std::uint64_t s = i;  // index in the application's buffer of model-order element i
    if (nhwc) {
      const std::uint64_t C = static_cast<std::uint64_t>(d[1]), H = static_cast<std::uint64_t>(d[2]),
                          W = static_cast<std::uint64_t>(d[3]);
      const std::uint64_t w = i % W, h = (i / W) % H, ch = (i / (W * H)) % C, n = i / (W * H * C);
      s = ((n * H + h) * W + w) * C + ch;
    }
    double v = load(src_t, src, s);
    if (quantize) v = v / scale + zp;
    store(io.desc.dtype, dense.data(), i, v);
  }
  write_dense(io, dense);
  return RKNN_SUCC;
}

// The bytes of output `io` as the application asked: float32 (dequantized) or the type
// RKNN_QUERY_OUTPUT_ATTR reports.
std::vector<std::uint8_t> output_bytes(const Io& io, bool want_float) {
  std::vector<std::uint8_t> dense = read_dense(io);
  if (io.int8_view && !want_float) {
    std::vector<std::uint8_t> out(io.elems);
    for (std::uint64_t i = 0; i < io.elems; ++i) {
      store(model::DType::kInt8, out.data(), i, load(model::DType::kFloat32, dense.data(), i) / io.view_scale + io.view_zp);
    }
    return out;
  }
  if (!want_float || io.desc.dtype == model::DType::kFloat32) return dense;
  const bool deq = per_tensor_affine(io.quant);
  std::vector<std::uint8_t> out(io.elems * sizeof(float));
  for (std::uint64_t i = 0; i < io.elems; ++i) {
    double v = load(io.desc.dtype, dense.data(), i);
    if (deq) v = (v - io.quant.zero_point[0]) * io.quant.scale[0];
    store(model::DType::kFloat32, out.data(), i, v);
  }
  return out;
}

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
  const bool want_float = b.type == RKNN_TENSOR_FLOAT32 && io.attr.type != RKNN_TENSOR_FLOAT32;
  const std::vector<std::uint8_t> dense = output_bytes(io, want_float);
  std::vector<std::uint8_t> buf(b.layout.buffer_elems() * b.es);
  pack(b.layout, b.es, dense.data(), buf.data());
  std::string why;
  if (!device_write(*b.mem, buf, (c.flags & RKNN_FLAG_DISABLE_FLUSH_OUTPUT_MEM_CACHE) == 0, &why)) {
    return fail(fn, RKNN_ERR_OUTPUT_INVALID, fmt::format("output {} (\"{}\"): {}", k, io.desc.name, why));
  }
  return RKNN_SUCC;
}

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
  if (type == RKNN_TENSOR_FLOAT16 || type == RKNN_TENSOR_BFLOAT16 || type == RKNN_TENSOR_INT4) {
    return not_implemented(fn, fmt::format("{}: memory of type {}", what, type_name(type)));
  }
  if (!input && type != RKNN_TENSOR_FLOAT32) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("{}: outputs are written as {} (the tensor's type) or FLOAT32, not {}", what,
                            type_name(io.attr.type), type_name(type)));
  }
  b->es = host_type_size(type);
  if (b->es == 0) return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("{}: type {} is not a tensor type", what, type));
  return RKNN_SUCC;
}

}  // namespace

int fail(const char* fn, int code, const std::string& message) {
  t_last_error = fmt::format("{}: {}", fn, message);
  SVP_LOG_ERROR("{}", t_last_error);
  return code;
}

int not_implemented(const char* fn, const std::string& what) {
  return fail(fn, RKNN_ERR_FAIL, what + " is not implemented yet in svp-acl (docs/rknn.md)");
}

const std::string& last_error() { return t_last_error; }
void clear_last_error() { t_last_error.clear(); }

void warn(const char* fn, const std::string& message) {
  t_last_warning = fmt::format("{}: {}", fn, message);
  SVP_LOG_WARN("{}", t_last_warning);
}

const std::string& last_warning() { return t_last_warning; }

int check_context(const char* fn, Handle ctx) { return find(fn, ctx).code; }

std::shared_ptr<Runtime> core_runtime(std::string* why) {
  auto rt = runtime_for_rknn();
  if (rt.ok()) return *rt;
  *why = rt.status().message();
  return nullptr;
}

namespace {

// A new handle for a fully built context, visible to every call from now on.
Handle publish(std::shared_ptr<Ctx> c) {
  const Handle h = make_handle();
  std::lock_guard<std::mutex> lock(g_table_mu);
  g_contexts[h] = std::move(c);
  return h;
}

}  // namespace

int init(Handle* out, const void* model, std::uint32_t size, std::uint32_t flag, rknn_init_extend* extend) {
  static constexpr char fn[] = "rknn_init";
  clear_last_error();
  *out = 0;
  if ((flag & ~kKnownFlags) != 0) {
    return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("flag 0x{:x} has bits no RKNN_FLAG_* defines (0x{:x})", flag,
                                                        flag & ~kKnownFlags));
  }
  if ((flag & kPriorityMask) == kPriorityMask) {
    return fail(fn, RKNN_ERR_PARAM_INVALID, "flag: priority bits 0x3 are not one of RKNN_FLAG_PRIOR_HIGH/MEDIUM/LOW");
  }
  const std::uint32_t unimplemented = flag & ~(kPriorityMask | kNoOpFlags);
  if (unimplemented != 0) {
    return not_implemented(fn, fmt::format("rknn_init flag(s) 0x{:x}", unimplemented));
  }
  (void)extend;  // read by nothing yet: its fields concern zero-copy model buffers (docs/rknn.md)
  auto c = std::make_shared<Ctx>();
  if (size == 0) {
    const char* path = static_cast<const char*>(model);
    if (path[0] == '\0') return fail(fn, RKNN_ERR_PARAM_INVALID, "size is 0 (model is a path) and the path is empty");
    if (!read_file_bytes(path, &c->model->image)) {
      return fail(fn, RKNN_ERR_MODEL_INVALID, fmt::format("cannot read the model file \"{}\"", path));
    }
  } else {
    const auto* p = static_cast<const std::uint8_t*>(model);
    c->model->image.assign(p, p + size);
  }
  const int r = load(fn, *c, flag);
  if (r != RKNN_SUCC) {
    release_buffers(*c);
    return r;
  }
  *out = publish(std::move(c));
  return RKNN_SUCC;
}

int dup_context(Handle in, Handle* out) {
  static constexpr char fn[] = "rknn_dup_context";
  clear_last_error();
  *out = 0;
  Lookup l = find(fn, in);
  if (!l.ctx) return l.code;
  auto c = std::make_shared<Ctx>();
  {
    const Ctx& src = *l.ctx;
    std::lock_guard<std::mutex> lock(l.ctx->mu);
    if (!src.model) return find(fn, in).code;  // destroyed meanwhile
    c->rt = src.rt;
    c->model = src.model;  // the loaded model and its weights, shared
    c->flags = src.flags;
    c->platform = src.platform;
    c->inputs = src.inputs;
    c->outputs = src.outputs;
    c->task_desc = src.task_desc;
    c->work_desc = src.work_desc;
    c->weights_bytes = src.weights_bytes;
  }
  // Its own buffers: inputs, outputs, task_buf and work_buf.
  int r = RKNN_SUCC;
  for (auto* list : {&c->inputs, &c->outputs}) {
    for (Io& io : *list) io.buf = nullptr;
  }
  for (auto* list : {&c->inputs, &c->outputs}) {
    for (Io& io : *list) {
      if (r == RKNN_SUCC) r = alloc_device(fn, *c, io.desc.size, &io.buf);
    }
  }
  if ((c->flags & RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE) == 0) {
    if (r == RKNN_SUCC) r = alloc_device(fn, *c, c->task_desc.size, &c->task_buf);
    if (r == RKNN_SUCC) r = alloc_device(fn, *c, c->work_desc.size, &c->work_buf);
  }
  if (r == RKNN_SUCC) r = finish_context(fn, *c);
  if (r != RKNN_SUCC) {
    release_buffers(*c);
    return r;
  }
  *out = publish(std::move(c));
  return RKNN_SUCC;
}

int destroy(Handle h) {
  std::shared_ptr<Ctx> c;
  {
    std::lock_guard<std::mutex> lock(g_table_mu);
    auto it = g_contexts.find(h);
    if (it != g_contexts.end()) {
      c = it->second;
      g_contexts.erase(it);
    }
  }
  if (!c) return find("rknn_destroy", h).code;
  {
    std::lock_guard<std::mutex> lock(c->mu);  // waits for a call in flight on this context
    release_buffers(*c);
    c->in_bind.clear();
    c->out_bind.clear();
    c->internal.reset();
  }
  if (const std::size_t n = live_mems_of(h); n != 0) {
    warn("rknn_destroy", fmt::format("{} rknn_tensor_mem created on context 0x{:x} are still live; free them with "
                                     "rknn_destroy_mem (they stay valid until then)", n, h));
  }
  return RKNN_SUCC;
}

int query(Handle h, int cmd, void* info, std::uint32_t size) {
  static constexpr char fn[] = "rknn_query";
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  Ctx& c = *l.ctx;
  std::lock_guard<std::mutex> lock(c.mu);
  switch (cmd) {
    case RKNN_QUERY_IN_OUT_NUM: {
      rknn_input_output_num n{};
      n.n_input = static_cast<std::uint32_t>(c.inputs.size());
      n.n_output = static_cast<std::uint32_t>(c.outputs.size());
      return copy_struct(fn, info, size, n, "rknn_input_output_num");
    }
    case RKNN_QUERY_INPUT_ATTR: return query_attr(fn, c.inputs, info, size, "input");
    case RKNN_QUERY_OUTPUT_ATTR: return query_attr(fn, c.outputs, info, size, "output");
    case RKNN_QUERY_SDK_VERSION: {
      rknn_sdk_version v{};
      // The API level served, and who serves it (the board reports its runtime build and
      // its kernel driver's version).
      std::snprintf(v.api_version, sizeof v.api_version, "2.3.2 (svp-acl)");
      std::snprintf(v.drv_version, sizeof v.drv_version, "svp-acl software NPU");
      return copy_struct(fn, info, size, v, "rknn_sdk_version");
    }
    case RKNN_QUERY_MEM_SIZE: {
      rknn_mem_size m{};
      m.total_weight_size = static_cast<std::uint32_t>(c.weights_bytes);
      m.total_internal_size = static_cast<std::uint32_t>(c.task_desc.size + c.work_desc.size);
      m.total_dma_allocated_size = c.device_bytes + c.weights_bytes;
      return copy_struct(fn, info, size, m, "rknn_mem_size");
    }
    case RKNN_QUERY_CUSTOM_STRING: {
      rknn_custom_string s{};  // svp-acl models carry no custom string yet
      return copy_struct(fn, info, size, s, "rknn_custom_string");
    }
    case RKNN_QUERY_NATIVE_INPUT_ATTR: return query_native(fn, c, true, false, info, size);
    case RKNN_QUERY_NATIVE_OUTPUT_ATTR: return query_native(fn, c, false, false, info, size);
    case RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR: return query_native(fn, c, true, true, info, size);
    case RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR: return query_native(fn, c, false, true, info, size);
    case RKNN_QUERY_PERF_DETAIL:
    case RKNN_QUERY_PERF_RUN:
    case RKNN_QUERY_DEVICE_MEM_INFO:
    case RKNN_QUERY_INPUT_DYNAMIC_RANGE:
    case RKNN_QUERY_CURRENT_INPUT_ATTR:
    case RKNN_QUERY_CURRENT_OUTPUT_ATTR:
    case RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR:
    case RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR:
      return not_implemented(fn, fmt::format("query command {}", cmd));
    default:
      return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("cmd {} is not an rknn_query_cmd (0..{})", cmd,
                                                          static_cast<int>(RKNN_QUERY_CMD_MAX) - 1));
  }
}

int inputs_set(Handle h, std::uint32_t n, const rknn_input* inputs) {
  static constexpr char fn[] = "rknn_inputs_set";
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  Ctx& c = *l.ctx;
  std::lock_guard<std::mutex> lock(c.mu);
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
  for (std::uint32_t i = 0; i < n; ++i) {
    const int r = set_one(fn, c.inputs[inputs[i].index], inputs[i]);
    if (r != RKNN_SUCC) return r;
    c.input_set[inputs[i].index] = true;
  }
  return RKNN_SUCC;
}

int run(Handle h, rknn_run_extend* extend) {
  static constexpr char fn[] = "rknn_run";
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  Ctx& c = *l.ctx;
  std::lock_guard<std::mutex> lock(c.mu);
  if (extend != nullptr && extend->non_block != 0) return not_implemented(fn, "non-blocking runs (rknn_run_extend.non_block)");
  for (std::size_t i = 0; i < c.input_set.size(); ++i) {
    if (!c.input_set[i] && !c.in_bind[i].mem) {
      return fail(fn, RKNN_ERR_INPUT_INVALID,
                  fmt::format("input {} (\"{}\") was never set (rknn_inputs_set) nor bound (rknn_set_io_mem)", i,
                              c.inputs[i].desc.name));
    }
  }
  for (std::size_t i = 0; i < c.in_bind.size(); ++i) {
    if (!c.in_bind[i].mem) continue;
    if (const int r = read_bound_input(fn, c, i); r != RKNN_SUCC) return r;
  }
  auto loaded = c.rt->models().lookup(c.model->model_id);
  if (!loaded.ok()) return fail(fn, RKNN_ERR_CTX_INVALID, loaded.status().message());
  void* task = c.task_buf;
  void* work = c.work_buf;
  // Internal memory of the application's is held for the execution (contexts sharing it
  // take turns; rknn_destroy_mem waits) and released before the outputs are written.
  std::unique_lock<std::mutex> internal_lock;
  if (c.internal) {
    internal_lock = std::unique_lock<std::mutex>(c.internal->mu);
    if (c.internal->destroyed) {
      const std::string what = c.internal->describe();
      internal_lock.unlock();
      return fail(fn, RKNN_ERR_FAIL, fmt::format("the internal memory {} was destroyed (rknn_destroy_mem); give "
                                                 "the context another with rknn_set_internal_mem", what));
    }
    task = c.internal->data;
    work = c.internal->data + c.task_desc.size;
  } else if (task == nullptr) {
    return fail(fn, RKNN_ERR_FAIL,
                fmt::format("the context was created with RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE and has no internal memory: "
                            "give it RKNN_QUERY_MEM_SIZE's total_internal_size ({} bytes) with rknn_set_internal_mem",
                            c.task_desc.size + c.work_desc.size));
  }
  ExecuteArgs args;
  for (const Io& io : c.inputs) args.inputs.push_back({io.buf, io.desc.size, io.desc.stride});
  args.inputs.push_back({task, c.task_desc.size, c.task_desc.stride});
  args.inputs.push_back({work, c.work_desc.size, c.work_desc.stride});
  for (const Io& io : c.outputs) args.outputs.push_back({io.buf, io.desc.size, io.desc.stride});
  CurrentContextScope keep(*c.rt);
  Status s = c.rt->set_current_context(c.rt_context);
  if (s.ok()) s = c.rt->execute(*loaded, c.model->model_id, std::move(args), nullptr, true);
  if (internal_lock.owns_lock()) internal_lock.unlock();
  if (!s.ok()) return fail(fn, RKNN_ERR_FAIL, "the run failed: " + s.message());
  c.ran = true;
  for (std::size_t k = 0; k < c.out_bind.size(); ++k) {
    if (!c.out_bind[k].mem) continue;
    if (const int r = write_bound_output(fn, c, k); r != RKNN_SUCC) return r;
  }
  ++c.frame_id;
  if (extend != nullptr) extend->frame_id = c.frame_id;
  return RKNN_SUCC;
}

int outputs_get(Handle h, std::uint32_t n, rknn_output* outputs, rknn_output_extend* extend) {
  static constexpr char fn[] = "rknn_outputs_get";
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  Ctx& c = *l.ctx;
  std::lock_guard<std::mutex> lock(c.mu);
  if (n == 0 || n > c.outputs.size()) {
    return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("n_outputs {} is not in 1..{} (the model's outputs)", n, c.outputs.size()));
  }
  if (!c.ran) return fail(fn, RKNN_ERR_OUTPUT_INVALID, "no run has finished on this context yet (call rknn_run first)");
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
    const std::vector<std::uint8_t> bytes = output_bytes(c.outputs[o.index], o.want_float != 0);
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
  if (extend != nullptr) extend->frame_id = c.frame_id;
  return RKNN_SUCC;
}

int outputs_release(Handle h, std::uint32_t n, rknn_output* outputs) {
  static constexpr char fn[] = "rknn_outputs_release";
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  Ctx& c = *l.ctx;
  std::lock_guard<std::mutex> lock(c.mu);
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

namespace {

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

}  // namespace

int set_io_mem(Handle h, rknn_tensor_mem* mem, const rknn_tensor_attr* attr) {
  static constexpr char fn[] = "rknn_set_io_mem";
  clear_last_error();
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  MemRef m;
  if (const int r = memory_of(fn, h, mem, &m); r != RKNN_SUCC) return r;
  Ctx& c = *l.ctx;
  std::lock_guard<std::mutex> lock(c.mu);
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
  std::lock_guard<std::mutex> lock(c.mu);
  const std::uint64_t need = c.task_desc.size + c.work_desc.size;
  if (m->size < need) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("{} is smaller than the {} bytes of RKNN_QUERY_MEM_SIZE's total_internal_size", m->describe(),
                            need));
  }
  c.internal = std::move(m);
  return RKNN_SUCC;
}

int unsupported(const char* fn, Handle h, const std::string& what) {
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  return not_implemented(fn, what);
}

std::size_t live_contexts() {
  std::lock_guard<std::mutex> lock(g_table_mu);
  return g_contexts.size();
}

}  // namespace svp::runtime::rknn
