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
#include "runtime/rknn_ctx.h"
#include "runtime/rknn_crypt.h"
#include "runtime/rknn_custom_ops.h"
#include "runtime/rknn_matmul.h"
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

// Flags implemented besides the priority (the two DISABLE_FLUSH flags concern
// rknn_set_io_mem memory only; INTERNAL_ALLOC_OUTSIDE waits for rknn_set_internal_mem,
// MEM_ALLOC_OUTSIDE for it and rknn_set_weight_mem; SHARE_WEIGHT_MEM: rknn_weights.cpp;
// ASYNC_MASK and COLLECT_PERF_MASK are read by rknn_run and rknn_query, the fences by rknn_run
// (rknn_fence.cpp), MODEL_BUFFER_ZERO_COPY by rknn_init (rknn_model_buffer.cpp); COLLECT_MODEL_INFO_ONLY
// makes a query-only context; the SRAM and GPU-fallback flags are accepted with a warning:
// the host has neither, and the vendor's runtime too runs without them); see docs/rknn.md.
constexpr std::uint32_t kPriorityMask = 0x3;
constexpr std::uint32_t kNoOpFlags = RKNN_FLAG_DISABLE_PROC_HIGH_PRIORITY | RKNN_FLAG_DISABLE_FLUSH_INPUT_MEM_CACHE |
                                     RKNN_FLAG_DISABLE_FLUSH_OUTPUT_MEM_CACHE | RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE |
                                     RKNN_FLAG_ASYNC_MASK | RKNN_FLAG_COLLECT_PERF_MASK | RKNN_FLAG_MEM_ALLOC_OUTSIDE |
                                     RKNN_FLAG_SHARE_WEIGHT_MEM | RKNN_FLAG_COLLECT_MODEL_INFO_ONLY |
                                     RKNN_FLAG_FENCE_IN_OUTSIDE | RKNN_FLAG_FENCE_OUT_OUTSIDE |
                                     RKNN_FLAG_MODEL_BUFFER_ZERO_COPY |
                                     RKNN_FLAG_EXECUTE_FALLBACK_PRIOR_DEVICE_GPU | RKNN_FLAG_ENABLE_SRAM |
                                     RKNN_FLAG_SHARE_SRAM;
// Flags that leave task_buf/work_buf to rknn_set_internal_mem (MEM_ALLOC_OUTSIDE: all of
// the context's memory is the application's, weights included).
constexpr std::uint32_t kInternalOutside = RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE | RKNN_FLAG_MEM_ALLOC_OUTSIDE;
constexpr std::uint32_t kKnownFlags = 0x0003FFFF;

std::mutex g_table_mu;
std::map<Handle, std::shared_ptr<Ctx>> g_contexts;
std::atomic<std::uint64_t> g_next{1};

}  // namespace

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

const char* type_name(int t) {
  return t >= 0 && t < RKNN_TENSOR_TYPE_MAX ? get_type_string(static_cast<rknn_tensor_type>(t)) : "invalid";
}

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

namespace {

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

// The configuration librknnrt starts the runtime with: SVP_ACL_RKNN_CONFIG's acl.json if set
// (librknnrt has no svp_acl_init to pass one), else the defaults with the device memory
// limit and NPU cores of the first model's board (the model's --soc_version). Without a model (memory
// created before the first rknn_init) or with an image that does not parse (rknn_init then
// reports its error), the default board's.
// A matmul context started first (no model) gives its platform instead (`soc`).
Result<RuntimeConfig> rknn_runtime_config(const std::vector<std::uint8_t>& image, const std::string& soc_name = "") {
  const target::DeviceProfile* soc = soc_name.empty() ? nullptr : target::find_profile(soc_name);
  if (!image.empty()) {
    auto m = model::read_model(image.data(), image.size());
    if (m.ok()) soc = target::find_profile(compiled_soc(m->program.compiler.command_line));
  }
  if (const char* path = std::getenv("SVP_ACL_RKNN_CONFIG"); path != nullptr && path[0] != '\0') {
    auto cfg = load_config(path);
    if (!cfg.ok()) return Error(cfg.status().code(), "SVP_ACL_RKNN_CONFIG: {}", cfg.status().message());
    // A file without softnpu.soc_version: the board clock predicts the first model's platform
    // (the default target is an SVP SoC, not the board an RKNN model was compiled for).
    if (!cfg->soc_version_given && soc != nullptr && soc->family == target::Family::kRknn) {
      cfg->backend.board_target = soc->name;
    }
    return cfg;
  }
  if (soc == nullptr || soc->family != target::Family::kRknn) return parse_config("{}", "librknnrt's defaults");
  // The board's NPU cores, each an emulated core (rknn_set_core_mask binds runs to them).
  auto cfg = parse_config(fmt::format("{{\"softnpu\": {{\"soc_version\": \"{}\", \"cores\": {}}}}}", soc->name,
                                      std::max<std::uint32_t>(soc->npu_cores, 1)),
                          "librknnrt's defaults");
  if (cfg.ok()) {
    cfg->backend.memory_limit_origin = fmt::format(
        "a typical {} board's memory, from the first model's platform; set SVP_ACL_RKNN_CONFIG to an acl.json "
        "with softnpu.device_memory_mb to change it",
        soc->name);
  }
  return cfg;
}

Result<std::shared_ptr<Runtime>> runtime_for_rknn(const std::vector<std::uint8_t>& image, const std::string& soc = "") {
  auto rt = Runtime::get();
  if (rt.ok()) return rt;
  auto cfg = rknn_runtime_config(image, soc);
  if (!cfg.ok()) return cfg.status();
  const Status s = Runtime::init_with_config(std::move(*cfg));
  if (!s.ok() && s.code() != err::kRepeatInitialize) return s;
  return Runtime::get();
}

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

}  // namespace

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

namespace {

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
  auto rt = runtime_for_rknn(image);
  if (!rt.ok()) return fail(fn, RKNN_ERR_DEVICE_UNAVAILABLE, "the software NPU did not start: " + rt.status().message());
  c.rt = *rt;
  c.model->rt = c.rt;
  if (!c.model->loaded) {  // else shared with another context (RKNN_FLAG_SHARE_WEIGHT_MEM)
    model::Scheduling sched;
    sched.priority = 3 + static_cast<std::int32_t>(flag & kPriorityMask);  // HIGH 3 (the default), MEDIUM 4, LOW 5
    auto id = c.rt->load_model(image.data(), image.size(), sched);
    if (!id.ok()) {
      return fail(fn, RKNN_ERR_MODEL_INVALID,
                  fmt::format("the model image does not load: {}; {}", id.status().message(), kRebuildHint));
    }
    c.model->model_id = *id;
    c.model->loaded = true;
  }
  auto loaded = c.rt->models().lookup(c.model->model_id);
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
  if (model::reuses_io(flags.buffer_reuse)) {
    return not_implemented(fn, "models compiled with an I/O buffer reuse type (--buffer_reuse)");
  }
  for (const model::IoDesc& d : m.inputs) {
    if (d.kind == model::IoKind::kAippParams || d.aipp != model::AippRole::kNone) {
      return not_implemented(fn, fmt::format("models with AIPP (input \"{}\")", d.name));
    }
  }
  // COLLECT_MODEL_INFO_ONLY: nothing allocated, but counted, so that RKNN_QUERY_MEM_SIZE
  // reports what a context that runs the model allocates.
  const bool info_only = (flag & RKNN_FLAG_COLLECT_MODEL_INFO_ONLY) != 0;
  auto alloc = [&](std::uint64_t size, void** out) {
    if (!info_only) return alloc_device(fn, c, size, out);
    c.device_bytes += size;
    *out = nullptr;
    return static_cast<int>(RKNN_SUCC);
  };
  // Buffers hold the largest shape set: the most batch items, the largest resolution gear.
  const std::uint64_t max_batch = flags.dynamic_batch.empty() ? 1 : flags.dynamic_batch.back();
  auto capacity = [&](std::size_t j, bool input) {
    std::uint64_t bytes = (input ? m.inputs : m.outputs)[j].size * max_batch;
    for (std::size_t g = 0; g < m.gears.size(); ++g) {
      const auto& at = input ? m.inputs_at(static_cast<std::int32_t>(g)) : m.outputs_at(static_cast<std::int32_t>(g));
      bytes = std::max(bytes, at[j].size * max_batch);
    }
    return bytes;
  };
  auto add_io = [&](const model::IoDesc& d, std::uint64_t bytes, std::vector<Io>* list, bool input) -> int {
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
    io.capacity = bytes;
    if (int r = alloc(bytes, &io.buf); r != RKNN_SUCC) return r;
    find_int8_view(m.program, io, input);
    fill_attr(io, static_cast<std::uint32_t>(list->size()), input);
    list->push_back(std::move(io));
    return RKNN_SUCC;
  };
  for (std::size_t j = 0; j < m.inputs.size(); ++j) {
    const model::IoDesc& d = m.inputs[j];
    if (d.kind == model::IoKind::kData) {
      if (int r = add_io(d, capacity(j, true), &c.inputs, true); r != RKNN_SUCC) return r;
    } else if (d.kind == model::IoKind::kTaskBuf) {
      c.task_desc = d;
      if ((flag & kInternalOutside) != 0) continue;
      if (int r = alloc(d.size, &c.task_buf); r != RKNN_SUCC) return r;
    } else if (d.kind == model::IoKind::kWorkBuf) {
      c.work_desc = d;
      if ((flag & kInternalOutside) != 0) continue;
      if (int r = alloc(d.size, &c.work_buf); r != RKNN_SUCC) return r;
    }
  }
  // The output descriptions do not name their program tensors; the program's output order
  // is theirs.
  const std::vector<std::int32_t> output_tensors = m.program.output_tensors();
  for (std::size_t k = 0; k < m.outputs.size(); ++k) {
    model::IoDesc d = m.outputs[k];
    if (d.tensor < 0 && k < output_tensors.size()) d.tensor = output_tensors[k];
    if (int r = add_io(d, capacity(k, false), &c.outputs, false); r != RKNN_SUCC) return r;
  }
  if (int r = init_shapes(fn, c, m); r != RKNN_SUCC) return r;
  c.weights_bytes = m.weights_size;
  c.weights->image = c.model;
  c.weights->bytes = m.weights;
  c.weights->size = m.weights_size;
  c.weights->outside = (flag & RKNN_FLAG_MEM_ALLOC_OUTSIDE) != 0;
  return finish_context(fn, c);
}

}  // namespace

int fail(const char* fn, int code, const std::string& message) {
  t_last_error = fmt::format("{}: {}", fn, message);
  SVP_LOG_ERROR("{}", t_last_error);
  return code;
}

Handle tagged_handle(const char (&tag)[5], std::uint64_t n) {
  const auto letter = [&](int i) { return static_cast<std::uint64_t>(static_cast<unsigned char>(tag[i])); };
#ifdef __arm__
  return static_cast<Handle>((letter(0) << 24) | (n & 0x00FFFFFFu));
#else
  return (((letter(0) << 24) | (letter(1) << 16) | (letter(2) << 8) | letter(3)) << 32) | n;
#endif
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

// Matmul contexts (rknn_matmul.h) are contexts too for the memory functions: the vendor's
// matmul demos allocate A, B and C with rknn_create_mem on the matmul context.
int check_context(const char* fn, Handle ctx) { return is_matmul_context(ctx) ? RKNN_SUCC : find(fn, ctx).code; }

namespace {
std::atomic<std::size_t> g_shared_reports{0};
}  // namespace

std::size_t shared_context_reports() { return g_shared_reports.load(); }

CallScope::CallScope(const char* fn, Ctx& c) : c_(c), lock_(c.mu, std::try_to_lock) {
  if (!lock_.owns_lock()) {
    const char* other = c.busy_fn.load();
    if (!c.shared_reported.exchange(true)) {
      g_shared_reports.fetch_add(1);
      warn(fn, fmt::format("context 0x{:x} is used by two threads at once ({} called while {} was still running on "
                           "another thread): Rockchip's runtime does not serialise calls on one context, so on a "
                           "board they race; give each thread its own context (rknn_init, or rknn_dup_context to "
                           "share the model) or serialise the calls (svp-acl makes this call wait; reported once per "
                           "context)",
                           c.handle, fn, other != nullptr ? other : "another call"));
    }
    lock_.lock();
  }
  c.busy_fn.store(fn);
}

std::shared_ptr<Runtime> core_runtime(std::string* why, const std::string& soc) {
  auto rt = runtime_for_rknn({}, soc);
  if (rt.ok()) return *rt;
  *why = rt.status().message();
  return nullptr;
}

namespace {

// A new handle for a fully built context, visible to every call from now on.
Handle publish(std::shared_ptr<Ctx> c) {
  const Handle h = tagged_handle("RKNN", g_next.fetch_add(1));
  c->handle = h;
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
  if ((flag & (RKNN_FLAG_ENABLE_SRAM | RKNN_FLAG_SHARE_SRAM)) != 0) {
    warn(fn, "RKNN_FLAG_ENABLE_SRAM / RKNN_FLAG_SHARE_SRAM: the software NPU has no SRAM (RKNN_QUERY_MEM_SIZE's "
             "total_sram_size is 0); the model's memory is all in DRAM");
  }
  if ((flag & RKNN_FLAG_EXECUTE_FALLBACK_PRIOR_DEVICE_GPU) != 0) {
    warn(fn, "RKNN_FLAG_EXECUTE_FALLBACK_PRIOR_DEVICE_GPU: the host has no GPU for the runtime; layers the NPU does "
             "not run execute on the CPU");
  }
  // extend: ctx is read with RKNN_FLAG_SHARE_WEIGHT_MEM, the model buffer's fields with
  // RKNN_FLAG_MODEL_BUFFER_ZERO_COPY (docs/rknn.md).
  auto c = std::make_shared<Ctx>();
  if ((flag & RKNN_FLAG_MODEL_BUFFER_ZERO_COPY) != 0) {
    if (const int r = read_model_buffer(fn, *c, model, size, extend); r != RKNN_SUCC) return r;
  } else if (size == 0) {
    const char* path = static_cast<const char*>(model);
    if (path[0] == '\0') return fail(fn, RKNN_ERR_PARAM_INVALID, "size is 0 (model is a path) and the path is empty");
    if (!read_file_bytes(path, &c->model->image)) {
      return fail(fn, RKNN_ERR_MODEL_INVALID, fmt::format("cannot read the model file \"{}\"", path));
    }
  } else {
    const auto* p = static_cast<const std::uint8_t*>(model);
    c->model->image.assign(p, p + size);
  }
  std::vector<std::uint8_t>& image = c->model->image;
  if (is_encrypted_model(image.data(), image.size())) {
    // export_encrypted_rknn_model's files load like plain ones (seed 000 §5.9).
    auto plain = decrypt_model(image.data(), image.size());
    if (!plain.ok()) return fail(fn, RKNN_ERR_MODEL_INVALID, plain.status().message());
    image = std::move(*plain);
  }
  std::shared_ptr<Ctx> source;
  if ((flag & RKNN_FLAG_SHARE_WEIGHT_MEM) != 0) {
    if (const int r = share_weights(fn, *c, extend, &source); r != RKNN_SUCC) return r;
  }
  int r = load(fn, *c, flag);
  if (r == RKNN_SUCC && source) r = adopt_weights(fn, *c, *source);
  if (r != RKNN_SUCC) {
    release_buffers(*c);
    return r;
  }
  const Handle h = publish(c);
  if (!c->shares_weights) c->weights->owner = h;
  *out = h;
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
    CallScope call(fn, *l.ctx);
    if (const int r = refuse_info_only(fn, src); r != RKNN_SUCC) return r;
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
    c->weights = src.weights;  // rknn_dup_context reuses the weights (seed 000, multi-batch)
    c->shares_weights = true;
    c->shape_sets = src.shape_sets;
    c->shape = src.shape;  // the buffers are sized for every shape set; the bindings are not copied
  }
  // Its own buffers: inputs, outputs, task_buf and work_buf.
  int r = RKNN_SUCC;
  for (auto* list : {&c->inputs, &c->outputs}) {
    for (Io& io : *list) io.buf = nullptr;
  }
  for (auto* list : {&c->inputs, &c->outputs}) {
    for (Io& io : *list) {
      if (r == RKNN_SUCC) r = alloc_device(fn, *c, io.capacity, &io.buf);
    }
  }
  if ((c->flags & kInternalOutside) == 0) {
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
    CallScope call("rknn_destroy", *c);  // waits for a call in flight on this context
    // A run still waiting for its input fence does not wait for it any longer: it fails.
    cancel_input_fence(*c);
    // ... and for a run in flight: its buffers cannot be freed under it.
    // A failed run was logged by settle; destroying goes on.
    (void)settle("rknn_destroy", *c);
    release_input_fence(*c);
    if (c->custom_ops) c->custom_ops->release();  // the destroy callbacks, now (seed 000 §5.5.4.1)
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

int refuse_info_only(const char* fn, const Ctx& c) {
  if ((c.flags & RKNN_FLAG_COLLECT_MODEL_INFO_ONLY) == 0) return RKNN_SUCC;
  return fail(fn, RKNN_ERR_FAIL,
              fmt::format("context 0x{:x} was created with RKNN_FLAG_COLLECT_MODEL_INFO_ONLY: it answers rknn_query only "
                          "(it has no buffers); create a context without the flag to run the model",
                          c.handle));
}

int mark_simulator(Handle h) {
  Lookup l = find("rknn_init", h);
  if (!l.ctx) return l.code;
  CallScope call("rknn_init", *l.ctx);
  l.ctx->simulator = true;
  return RKNN_SUCC;
}

int refuse_normal_api(const char* fn, const Ctx& c) {
  if (c.platform == nullptr || !c.platform->zero_copy_api_only || c.simulator) return RKNN_SUCC;
  // The vendor's runtime logs "<call>, context config invalid!" here.
  return fail(fn, RKNN_ERR_CTX_INVALID,
              fmt::format("context config invalid: {}'s runtime has the zero-copy API only (seed 000 §5.2.1), not "
                          "rknn_inputs_set / rknn_outputs_get / rknn_outputs_release; bind inputs and outputs with "
                          "rknn_create_mem and rknn_set_io_mem, as Rockchip's RV1106 demos do",
                          c.platform->name));
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
