#include "model/program.h"

#include "model/aipp/model_config.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "ops/op_def.h"

namespace svp::model {

namespace {

constexpr std::size_t kMaxCompilerStringLen = 65536;
constexpr std::size_t kMaxStringAttrLen = 1 << 20;

bool mul_overflow(std::uint64_t a, std::uint64_t b, std::uint64_t* out) { return __builtin_mul_overflow(a, b, out); }
bool add_overflow(std::uint64_t a, std::uint64_t b, std::uint64_t* out) { return __builtin_add_overflow(a, b, out); }

// UTF-8 without control characters (names are printed and handed out as C strings).
bool is_clean_name(const std::string& s) {
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7F) return false;
  }
  return is_valid_utf8(s);
}

bool is_printable_ascii(const std::string& s) {
  for (unsigned char c : s) {
    if (c <= 0x20 || c >= 0x7F) return false;
  }
  return true;
}

bool is_integer_dtype(DType t) {
  switch (t) {
    case DType::kInt8: case DType::kUint8: case DType::kInt16: case DType::kUint16:
    case DType::kInt32: case DType::kUint32: case DType::kInt64:
      return true;
    // uint64 zero points do not fit the format's int32 quantization fields.
    case DType::kFloat32: case DType::kFloat16: case DType::kUint64: case DType::kFloat64: case DType::kBool:
      return false;
  }
  return false;
}

// Range a zero point of `t` must lie in.
std::pair<std::int64_t, std::int64_t> zero_point_range(DType t) {
  switch (t) {
    case DType::kInt8: return {-128, 127};
    case DType::kUint8: return {0, 255};
    case DType::kInt16: return {-32768, 32767};
    case DType::kUint16: return {0, 65535};
    case DType::kUint32: return {0, std::numeric_limits<std::int32_t>::max()};
    default: return {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()};
  }
}

std::string dims_str(const std::vector<std::int64_t>& dims) { return fmt::format("[{}]", fmt::join(dims, ",")); }

Status check_quant(const Tensor& t) {
  const Quant& q = t.quant;
  if (q.scale.empty()) {
    if (!q.zero_point.empty() || q.axis != -1) {
      return Error(err::kParseModel, "tensor \"{}\": quantization zero points or axis without scales", t.name);
    }
    return Status::Ok();
  }
  if (!is_integer_dtype(t.dtype)) {
    return Error(err::kParseModel, "tensor \"{}\": quantization parameters on a {} tensor", t.name, dtype_name(t.dtype));
  }
  if (q.zero_point.size() != q.scale.size()) {
    return Error(err::kParseModel, "tensor \"{}\": {} quantization scales but {} zero points", t.name, q.scale.size(),
                 q.zero_point.size());
  }
  for (float s : q.scale) {
    if (!std::isfinite(s) || !(s > 0.0f)) {
      return Error(err::kParseModel, "tensor \"{}\": quantization scale {} is not a positive finite number", t.name, s);
    }
  }
  const auto [lo, hi] = zero_point_range(t.dtype);
  for (std::int32_t z : q.zero_point) {
    if (z < lo || z > hi) {
      return Error(err::kParseModel, "tensor \"{}\": zero point {} is outside the {} range", t.name, z,
                   dtype_name(t.dtype));
    }
  }
  if (q.axis == -1) {
    if (q.scale.size() != 1) {
      return Error(err::kParseModel, "tensor \"{}\": {} quantization scales need a channel axis", t.name,
                   q.scale.size());
    }
    return Status::Ok();
  }
  if (q.axis < 0 || static_cast<std::size_t>(q.axis) >= t.dims.size()) {
    return Error(err::kParseModel, "tensor \"{}\": quantization axis {} is outside rank {}", t.name, q.axis,
                 t.dims.size());
  }
  if (static_cast<std::uint64_t>(t.dims[static_cast<std::size_t>(q.axis)]) != q.scale.size()) {
    return Error(err::kParseModel, "tensor \"{}\": {} quantization scales for axis {} of size {}", t.name,
                 q.scale.size(), q.axis, t.dims[static_cast<std::size_t>(q.axis)]);
  }
  return Status::Ok();
}

Status check_attrs(const Layer& l) {
  for (const auto& [name, value] : l.attrs.all()) {
    if (name.empty() || name.size() > kMaxAttrNameLen || !is_clean_name(name)) {
      return Error(err::kParseModel, "layer \"{}\": attribute name \"{}\" is empty, too long or not clean UTF-8",
                   l.name, is_valid_utf8(name) ? name : std::string("<invalid UTF-8>"));
    }
    if (const auto* d = std::get_if<double>(&value); d && !std::isfinite(*d)) {
      return Error(err::kParseModel, "layer \"{}\": attribute \"{}\" is not finite", l.name, name);
    }
    if (const auto* v = std::get_if<std::vector<double>>(&value)) {
      for (double d : *v) {
        if (!std::isfinite(d)) {
          return Error(err::kParseModel, "layer \"{}\": attribute \"{}\" has a non-finite element", l.name, name);
        }
      }
    }
    if (const auto* s = std::get_if<std::string>(&value); s && (s->size() > kMaxStringAttrLen || !is_valid_utf8(*s))) {
      return Error(err::kParseModel, "layer \"{}\": string attribute \"{}\" is too long or not valid UTF-8", l.name,
                   name);
    }
  }
  return Status::Ok();
}

Status check_flags(const ModelFlags& f) {
  if (f.buffer_reuse < kBufferReuseUndefined || f.buffer_reuse > kBufferReuseMax) {
    return Error(err::kParseModel, "buffer reuse type {} is not a valid svp_acl_buffer_reuse_type (-1..7)",
                 f.buffer_reuse);
  }
  const std::uint32_t s = f.internal_stride;
  if (s < 16 || s > 256 || (s & (s - 1)) != 0) {
    return Error(err::kParseModel, "internal stride {} is not one of 16, 32, 64, 128, 256", s);
  }
  if (f.dynamic_batch.size() > kMaxBatchNum) {
    return Error(err::kParseModel, "{} dynamic batch entries (at most {}, SVP_ACL_MAX_BATCH_NUM)",
                 f.dynamic_batch.size(), kMaxBatchNum);
  }
  for (std::uint64_t b : f.dynamic_batch) {
    if (b == 0 || b > kMaxBatchSize) {
      return Error(err::kParseModel, "dynamic batch size {} is outside 1..{}", b, kMaxBatchSize);
    }
  }
  if (f.dynamic_hw.size() > kMaxHwNum) {
    return Error(err::kParseModel, "{} dynamic resolution gears (at most {}, SVP_ACL_MAX_HW_NUM)", f.dynamic_hw.size(),
                 kMaxHwNum);
  }
  for (std::size_t i = 0; i < f.dynamic_hw.size(); ++i) {
    const auto [h, w] = f.dynamic_hw[i];
    if (h == 0 || w == 0 || h > kMaxVendorSize || w > kMaxVendorSize) {
      return Error(err::kParseModel, "dynamic resolution gear {} ({}x{}) is outside 1..4294967295", i, h, w);
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (f.dynamic_hw[j] == f.dynamic_hw[i]) {
        return Error(err::kParseModel, "dynamic resolution gear {}x{} is listed twice", h, w);
      }
    }
  }
  if (f.task_buf_size == 0 || f.task_buf_size > kMaxVendorSize) {
    return Error(err::kParseModel, "task_buf size {} is outside 1..4294967295", f.task_buf_size);
  }
  if (f.work_buf_size == 0 || f.work_buf_size > kMaxVendorSize) {
    return Error(err::kParseModel, "work_buf size {} is outside 1..4294967295", f.work_buf_size);
  }
  return Status::Ok();
}

Status check_tensor(const Tensor& t, std::size_t index, const ModelFlags& flags, std::uint64_t weights_size) {
  if (t.name.empty()) return Error(err::kModelMissingAttr, "tensor {} has no name", index);
  if (t.name.size() > kMaxTensorNameLen || !is_clean_name(t.name)) {
    return Error(err::kParseModel, "tensor {} name \"{}\" is longer than {} bytes or not clean UTF-8", index,
                 is_valid_utf8(t.name) ? t.name : std::string("<invalid UTF-8>"), kMaxTensorNameLen);
  }
  if (!is_valid(t.dtype)) {
    return Error(err::kParseModel, "tensor \"{}\": data type {} is not supported", t.name,
                 static_cast<std::int32_t>(t.dtype));
  }
  if (!is_valid(t.layout)) {
    return Error(err::kParseModel, "tensor \"{}\": layout {} is not supported", t.name,
                 static_cast<std::int32_t>(t.layout));
  }
  if (!is_valid(t.placement)) {
    return Error(err::kParseModel, "tensor \"{}\": placement {} is not valid", t.name,
                 static_cast<std::int32_t>(t.placement));
  }
  if (t.dims.size() > kMaxDims) {
    return Error(err::kParseModel, "tensor \"{}\": rank {} exceeds {}", t.name, t.dims.size(), kMaxDims);
  }
  for (std::int64_t d : t.dims) {
    if (d <= 0) return Error(err::kParseModel, "tensor \"{}\": dims {} contain a non-positive dim", t.name, dims_str(t.dims));
  }
  const auto elements = t.elements();
  if (!elements || *elements > kMaxVendorSize) {
    return Error(err::kParseModel, "tensor \"{}\": dims {} hold more than 4294967295 elements", t.name,
                 dims_str(t.dims));
  }
  std::uint64_t bytes = 0;
  if (mul_overflow(*elements, dtype_size(t.dtype), &bytes) || bytes > kMaxVendorSize) {
    return Error(err::kParseModel, "tensor \"{}\": size exceeds 4294967295 bytes", t.name);
  }
  if (t.size != bytes) {
    return Error(err::kParseModel, "tensor \"{}\": size {} does not match {} {} ({} bytes)", t.name, t.size,
                 dtype_name(t.dtype), dims_str(t.dims), bytes);
  }
  SVP_RETURN_IF_ERROR(check_quant(t));

  if (t.is_io()) {
    const char* what = t.placement == Placement::kModelInput ? "input" : "output";
    if (t.dims.empty()) return Error(err::kParseModel, "model {} \"{}\" has rank 0", what, t.name);
    if (t.offset != 0) return Error(err::kParseModel, "model {} \"{}\" has an offset ({})", what, t.name, t.offset);
    if (t.io_index == -1) return Error(err::kModelMissingAttr, "model {} \"{}\" has no io_index", what, t.name);
    if (t.inout_reuse < kInoutReuseUndefined || t.inout_reuse > kInoutReuseMax) {
      return Error(err::kParseModel, "model {} \"{}\": reuse type {} is not a valid svp_acl_inout_reuse_type (-1..2)",
                   what, t.name, t.inout_reuse);
    }
    const auto stride = default_stride(t, flags.internal_stride);
    const auto strided = strided_size(t, flags.internal_stride);
    if (!stride || *stride > kMaxVendorSize || !strided || *strided > kMaxVendorSize) {
      return Error(err::kParseModel, "model {} \"{}\": stride or one-batch size exceeds 4294967295 bytes", what,
                   t.name);
    }
    if (t.name == kTaskBufName || t.name == kWorkBufName || t.name == kDynamicTensorName ||
        t.name.rfind(kDynamicAippName, 0) == 0) {
      return Error(err::kParseModel, "model {} \"{}\" uses a name reserved for the extended inputs", what, t.name);
    }
    if (!t.aipp.empty()) {
      if (t.placement != Placement::kModelInput) {
        return Error(err::kParseModel, "model output \"{}\" has an AIPP configuration", t.name);
      }
      if (t.aipp.size() > kMaxAippJsonLen) {
        return Error(err::kParseModel, "model input \"{}\": AIPP configuration longer than {} bytes", t.name,
                     kMaxAippJsonLen);
      }
      // The AIPP schema and its model-side rules live with the AIPP feature (docs/aipp.md §3).
      auto aipp = aipp::parse_model_aipp(t.aipp);
      if (!aipp.ok()) return Error(err::kParseModel, "model input \"{}\": {}", t.name, aipp.status().message());
      SVP_RETURN_IF_ERROR(aipp::check_model_input(t, flags, *aipp));
    }
    return Status::Ok();
  }

  if (t.io_index != -1) {
    return Error(err::kParseModel, "tensor \"{}\" ({}) has an io_index", t.name, placement_name(t.placement));
  }
  if (t.inout_reuse != kInoutReuseNone) {
    return Error(err::kParseModel, "tensor \"{}\" ({}) has an I/O reuse type", t.name, placement_name(t.placement));
  }
  if (!t.aipp.empty()) {
    return Error(err::kParseModel, "tensor \"{}\" ({}) has an AIPP configuration", t.name, placement_name(t.placement));
  }
  if (t.offset % kBufferAlign != 0) {
    return Error(err::kParseModel, "tensor \"{}\": {} offset {} is not a multiple of {}", t.name,
                 placement_name(t.placement), t.offset, kBufferAlign);
  }
  // Intermediates of a reuse program live in the arena; validate() checks them against it.
  if (t.placement == Placement::kWorkBuf && reuses_io(flags.buffer_reuse)) return Status::Ok();
  const std::uint64_t limit = t.placement == Placement::kWorkBuf ? flags.work_buf_size : weights_size;
  std::uint64_t end = 0;
  if (add_overflow(t.offset, t.size, &end) || end > limit) {
    return Error(err::kParseModel, "tensor \"{}\": [{}, {}+{}) lies outside the {} ({} bytes)", t.name, t.offset,
                 t.offset, t.size, t.placement == Placement::kWorkBuf ? "work_buf" : "weights", limit);
  }
  return Status::Ok();
}

}  // namespace

// ---------------------------------------------------------------------------------------
const char* placement_name(Placement p) {
  switch (p) {
    case Placement::kModelInput: return "input";
    case Placement::kModelOutput: return "output";
    case Placement::kWorkBuf: return "work_buf";
    case Placement::kWeights: return "weights";
  }
  return "?";
}

const char* target_name(Target t) {
  switch (t) {
    case Target::kNpu: return "npu";
    case Target::kAiCpu: return "aicpu";
  }
  return "?";
}

const char* layout_name(Layout l) {
  switch (l) {
    case Layout::kNCHW: return "NCHW";
    case Layout::kNHWC: return "NHWC";
    case Layout::kND: return "ND";
  }
  return "?";
}

bool is_valid(DType t) {
  switch (t) {
    case DType::kFloat32: case DType::kFloat16: case DType::kInt8: case DType::kInt32: case DType::kUint8:
    case DType::kInt16: case DType::kUint16: case DType::kUint32: case DType::kInt64: case DType::kUint64:
    case DType::kFloat64: case DType::kBool:
      return true;
  }
  return false;
}
bool is_valid(Layout l) { return l == Layout::kNCHW || l == Layout::kNHWC || l == Layout::kND; }
bool is_valid(Placement p) {
  return p == Placement::kModelInput || p == Placement::kModelOutput || p == Placement::kWorkBuf ||
         p == Placement::kWeights;
}
bool is_valid(Target t) { return t == Target::kNpu || t == Target::kAiCpu; }

std::optional<DType> dtype_from_name(const std::string& s) {
  for (DType t : {DType::kFloat32, DType::kFloat16, DType::kInt8, DType::kInt32, DType::kUint8, DType::kInt16,
                  DType::kUint16, DType::kUint32, DType::kInt64, DType::kUint64, DType::kFloat64, DType::kBool}) {
    if (s == dtype_name(t)) return t;
  }
  return std::nullopt;
}
std::optional<Layout> layout_from_name(const std::string& s) {
  for (Layout l : {Layout::kNCHW, Layout::kNHWC, Layout::kND}) {
    if (s == layout_name(l)) return l;
  }
  return std::nullopt;
}
std::optional<Placement> placement_from_name(const std::string& s) {
  for (Placement p : {Placement::kModelInput, Placement::kModelOutput, Placement::kWorkBuf, Placement::kWeights}) {
    if (s == placement_name(p)) return p;
  }
  return std::nullopt;
}
std::optional<Target> target_from_name(const std::string& s) {
  for (Target t : {Target::kNpu, Target::kAiCpu}) {
    if (s == target_name(t)) return t;
  }
  return std::nullopt;
}

bool is_valid_utf8(const std::string& s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    const unsigned char c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int n = 0;
    std::uint32_t cp = 0;
    std::uint32_t min = 0;
    if ((c & 0xE0) == 0xC0) {
      n = 1, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3, cp = c & 0x07, min = 0x10000;
    } else {
      return false;
    }
    if (end - p <= n) return false;
    for (int i = 1; i <= n; ++i) {
      if ((p[i] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    p += n + 1;
  }
  return true;
}

std::optional<std::uint64_t> Tensor::elements() const {
  std::uint64_t n = 1;
  for (std::int64_t d : dims) {
    if (d <= 0 || mul_overflow(n, static_cast<std::uint64_t>(d), &n)) return std::nullopt;
  }
  return n;
}

std::optional<std::uint64_t> default_stride(const Tensor& t, std::uint32_t internal_stride) {
  if (t.dims.empty() || t.dims.back() <= 0 || internal_stride == 0) return std::nullopt;
  std::uint64_t row = 0;
  if (mul_overflow(static_cast<std::uint64_t>(t.dims.back()), dtype_size(t.dtype), &row)) return std::nullopt;
  const std::uint64_t units = row / internal_stride + (row % internal_stride != 0 ? 1 : 0);
  std::uint64_t stride = 0;
  if (mul_overflow(units, internal_stride, &stride)) return std::nullopt;
  return stride;
}

std::optional<std::uint64_t> strided_size(const Tensor& t, std::uint32_t internal_stride) {
  auto stride = default_stride(t, internal_stride);
  if (!stride) return std::nullopt;
  std::uint64_t n = *stride;
  for (std::size_t i = 0; i + 1 < t.dims.size(); ++i) {
    if (t.dims[i] <= 0 || mul_overflow(n, static_cast<std::uint64_t>(t.dims[i]), &n)) return std::nullopt;
  }
  return n;
}

std::vector<std::int32_t> Program::input_tensors() const {
  std::vector<std::pair<std::int32_t, std::int32_t>> v;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].placement == Placement::kModelInput) v.emplace_back(tensors[i].io_index, static_cast<std::int32_t>(i));
  }
  std::sort(v.begin(), v.end());
  std::vector<std::int32_t> out;
  for (const auto& [io, t] : v) out.push_back(t);
  return out;
}

std::vector<std::int32_t> Program::output_tensors() const {
  std::vector<std::pair<std::int32_t, std::int32_t>> v;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].placement == Placement::kModelOutput) v.emplace_back(tensors[i].io_index, static_cast<std::int32_t>(i));
  }
  std::sort(v.begin(), v.end());
  std::vector<std::int32_t> out;
  for (const auto& [io, t] : v) out.push_back(t);
  return out;
}

namespace {

// Recurrent nets: max_total_t is set exactly when the model has recurrent layers, and is
// the time dimension of each of them (one execution processes total_t ≤ that many steps).
Status check_recurrent(const Program& p) {
  const Layer* first = nullptr;
  for (const Layer& l : p.layers) {
    if (!is_recurrent_op(l.op)) continue;
    if (first == nullptr) first = &l;
    const std::int32_t x = l.inputs.empty() ? -1 : l.inputs[0];
    if (x < 0) return Error(err::kParseModel, "recurrent layer \"{}\" ({}) has no input X", l.name, l.op);
    const auto steps = recurrent_time_steps(l, p.tensors[static_cast<std::size_t>(x)].dims);
    if (!steps) {
      return Error(err::kParseModel, "recurrent layer \"{}\" ({}): input X must be 3-D with a valid layout", l.name,
                   l.op);
    }
    if (static_cast<std::uint64_t>(*steps) != p.flags.max_total_t) {
      return Error(err::kParseModel,
                   "recurrent layer \"{}\" ({}) has {} time steps but the model's max_total_t is {} (every recurrent "
                   "layer of a model runs the same time steps)",
                   l.name, l.op, *steps, p.flags.max_total_t);
    }
  }
  if (first == nullptr && p.flags.max_total_t != 0) {
    return Error(err::kParseModel, "max_total_t is {} but the model has no recurrent (LSTM/GRU/RNN) layer",
                 p.flags.max_total_t);
  }
  if (first != nullptr && p.flags.max_total_t > kMaxTotalT) {
    return Error(err::kParseModel, "max_total_t {} exceeds {} (recurrent nets)", p.flags.max_total_t, kMaxTotalT);
  }
  return Status::Ok();
}

}  // namespace

bool is_recurrent_op(const std::string& op) { return ops::is_recurrent(op); }

std::optional<std::int64_t> recurrent_time_steps(const Layer& layer, const std::vector<std::int64_t>& x_dims) {
  if (x_dims.size() != 3) return std::nullopt;
  auto layout = layer.attrs.get_int("layout", 0);
  if (!layout.ok()) return std::nullopt;
  const std::int64_t l = *layout;
  if (l != 0 && l != 1) return std::nullopt;
  return x_dims[l == 0 ? 0 : 1];
}

// ---------------------------------------------------------------------------------------
// Program::validate, one named check per section, in the order validate runs them.
namespace {

constexpr std::int32_t kNever = -1;

// The dataflow the layer checks gather and the work_buf overlap check reads: for each
// tensor, the layer producing it and the last layer reading or writing it (kNever: none).
struct Dataflow {
  std::vector<std::int32_t> produced_by;
  std::vector<std::int32_t> last_use;
};

// An interval of work_buf (or reuse arena) bytes and the layers it is alive between.
struct Live {
  std::int32_t def, last;
  std::uint64_t begin, end;
  std::size_t tensor;
};

// Section counts, the model name and the compiler information.
Status check_header(const Program& p) {
  constexpr std::size_t kMaxCount = static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());
  if (p.tensors.size() > kMaxCount || p.layers.size() > kMaxCount || p.segments.size() > kMaxCount) {
    return Error(err::kParseModel, "too many tensors, layers or segments");
  }
  if (p.name.size() > kMaxModelNameLen || !is_clean_name(p.name)) {
    return Error(err::kParseModel, "model name is longer than {} bytes or not clean UTF-8", kMaxModelNameLen);
  }
  const CompilerInfo& c = p.compiler;
  if (c.producer_version.size() > kMaxCompilerStringLen || !is_valid_utf8(c.producer_version) ||
      c.command_line.size() > kMaxCompilerStringLen || !is_valid_utf8(c.command_line)) {
    return Error(err::kParseModel, "compiler information is longer than {} bytes or not valid UTF-8",
                 kMaxCompilerStringLen);
  }
  return Status::Ok();
}

// Tensors one by one and their names (distinct); counts the model inputs and outputs.
Status check_tensors(const Program& p, std::uint64_t weights_size, std::size_t* num_inputs,
                     std::size_t* num_outputs) {
  std::unordered_set<std::string> names;
  names.reserve(p.tensors.size());
  for (std::size_t i = 0; i < p.tensors.size(); ++i) {
    const Tensor& t = p.tensors[i];
    SVP_RETURN_IF_ERROR(check_tensor(t, i, p.flags, weights_size));
    if (!names.insert(t.name).second) return Error(err::kParseModel, "tensor name \"{}\" is used twice", t.name);
    if (t.placement == Placement::kModelInput) ++*num_inputs;
    if (t.placement == Placement::kModelOutput) ++*num_outputs;
  }
  return Status::Ok();
}

// The I/O numbering: at least one input and one output, io_index 0..n-1 each used once.
Status check_io_numbering(const Program& p, std::size_t num_inputs, std::size_t num_outputs) {
  if (num_inputs == 0) return Error(err::kModelMissingAttr, "the model has no input");
  if (num_outputs == 0) return Error(err::kModelMissingAttr, "the model has no output");
  std::vector<std::int32_t> seen_in(num_inputs, -1), seen_out(num_outputs, -1);
  for (std::size_t i = 0; i < p.tensors.size(); ++i) {
    const Tensor& t = p.tensors[i];
    if (!t.is_io()) continue;
    const bool in = t.placement == Placement::kModelInput;
    auto& seen = in ? seen_in : seen_out;
    if (static_cast<std::size_t>(t.io_index) >= seen.size()) {
      return Error(err::kParseModel, "model {} \"{}\": io_index {} is not below the number of {}s ({})",
                   in ? "input" : "output", t.name, t.io_index, in ? "input" : "output", seen.size());
    }
    auto& slot = seen[static_cast<std::size_t>(t.io_index)];
    if (slot >= 0) {
      return Error(err::kParseModel, "model {}s \"{}\" and \"{}\" share io_index {}", in ? "input" : "output",
                   p.tensors[static_cast<std::size_t>(slot)].name, t.name, t.io_index);
    }
    slot = static_cast<std::int32_t>(i);
  }
  return Status::Ok();
}

// One layer's name (distinct), op type, target and attributes.
Status check_layer_header(const Layer& l, std::size_t li, std::unordered_set<std::string>* layer_names) {
  if (l.name.empty()) return Error(err::kModelMissingAttr, "layer {} has no name", li);
  if (l.name.size() > kMaxLayerNameLen || !is_clean_name(l.name)) {
    return Error(err::kParseModel, "layer {} name is longer than {} bytes or not clean UTF-8", li, kMaxLayerNameLen);
  }
  if (!layer_names->insert(l.name).second) return Error(err::kParseModel, "layer name \"{}\" is used twice", l.name);
  if (l.op.empty()) return Error(err::kModelMissingAttr, "layer \"{}\" has no op type", l.name);
  if (l.op.size() > kMaxOpNameLen || !is_printable_ascii(l.op)) {
    return Error(err::kParseModel, "layer \"{}\": op type is longer than {} bytes or not printable ASCII", l.name,
                 kMaxOpNameLen);
  }
  if (!is_valid(l.target)) {
    return Error(err::kParseModel, "layer \"{}\" ({}): target {} is not valid", l.name, l.op,
                 static_cast<std::int32_t>(l.target));
  }
  return check_attrs(l);
}

// One layer's inputs: existing tensors, available (model inputs, weights or produced by an
// earlier layer) when it runs.
Status check_layer_inputs(const Program& p, const Layer& l, std::int32_t lidx, Dataflow* df) {
  const auto n_tensors = static_cast<std::int64_t>(p.tensors.size());
  if (l.inputs.empty() || l.inputs[0] == -1) {
    // Every op of the IR reads its first input (ONNX has no op whose first input is
    // optional); a -1 there made a Conv read tensors[-1] (found by the bad-input probe).
    // Which later inputs an op requires, the runtime checks against its kernels at load.
    return Error(err::kParseModel, "layer \"{}\" ({}) has no first input (tensor index -1 or none): the model is "
                 "corrupt; compile it again", l.name, l.op);
  }
  for (std::size_t k = 0; k < l.inputs.size(); ++k) {
    const std::int32_t ti = l.inputs[k];
    if (ti == -1) continue;
    if (ti < -1 || ti >= n_tensors) {
      return Error(err::kParseModel, "layer \"{}\" ({}): input {} refers to tensor {} of {}", l.name, l.op, k, ti,
                   p.tensors.size());
    }
    const Tensor& t = p.tensors[static_cast<std::size_t>(ti)];
    const bool available = t.placement == Placement::kModelInput || t.placement == Placement::kWeights ||
                           df->produced_by[static_cast<std::size_t>(ti)] != kNever;
    if (!available) {
      return Error(err::kParseModel, "layer \"{}\" ({}) reads tensor \"{}\" before any layer produces it", l.name,
                   l.op, t.name);
    }
    df->last_use[static_cast<std::size_t>(ti)] = lidx;
  }
  return Status::Ok();
}

// One layer's outputs: at least one, each an intermediate or a model output produced once.
Status check_layer_outputs(const Program& p, const Layer& l, std::int32_t lidx, Dataflow* df) {
  const auto n_tensors = static_cast<std::int64_t>(p.tensors.size());
  if (l.outputs.empty()) return Error(err::kParseModel, "layer \"{}\" ({}) has no output", l.name, l.op);
  for (std::size_t k = 0; k < l.outputs.size(); ++k) {
    const std::int32_t ti = l.outputs[k];
    if (ti < 0 || ti >= n_tensors) {
      return Error(err::kParseModel, "layer \"{}\" ({}): output {} refers to tensor {} of {}", l.name, l.op, k, ti,
                   p.tensors.size());
    }
    const Tensor& t = p.tensors[static_cast<std::size_t>(ti)];
    if (t.placement != Placement::kWorkBuf && t.placement != Placement::kModelOutput) {
      return Error(err::kParseModel, "layer \"{}\" ({}) writes tensor \"{}\", which is a model {}", l.name, l.op,
                   t.name, t.placement == Placement::kModelInput ? "input" : "constant");
    }
    auto& producer = df->produced_by[static_cast<std::size_t>(ti)];
    if (producer != kNever) {
      return Error(err::kParseModel, "tensor \"{}\" is produced twice (layers \"{}\" and \"{}\")", t.name,
                   p.layers[static_cast<std::size_t>(producer)].name, l.name);
    }
    producer = lidx;
    auto& last = df->last_use[static_cast<std::size_t>(ti)];
    last = std::max(last, lidx);
  }
  return Status::Ok();
}

// Layers: names, ops, attributes, and dataflow in execution order; fills `df`.
Status check_layers(const Program& p, Dataflow* df) {
  if (p.layers.empty()) return Error(err::kModelMissingAttr, "the model has no layer");
  df->produced_by.assign(p.tensors.size(), kNever);
  df->last_use.assign(p.tensors.size(), kNever);
  std::unordered_set<std::string> layer_names;
  layer_names.reserve(p.layers.size());
  for (std::size_t li = 0; li < p.layers.size(); ++li) {
    const Layer& l = p.layers[li];
    const auto lidx = static_cast<std::int32_t>(li);
    SVP_RETURN_IF_ERROR(check_layer_header(l, li, &layer_names));
    SVP_RETURN_IF_ERROR(check_layer_inputs(p, l, lidx, df));
    SVP_RETURN_IF_ERROR(check_layer_outputs(p, l, lidx, df));
  }
  return Status::Ok();
}

// Every intermediate and model output has a producer.
Status check_all_produced(const Program& p, const Dataflow& df) {
  for (std::size_t i = 0; i < p.tensors.size(); ++i) {
    const Tensor& t = p.tensors[i];
    if ((t.placement == Placement::kWorkBuf || t.placement == Placement::kModelOutput) &&
        df.produced_by[i] == kNever) {
      return Error(err::kParseModel, "{} \"{}\" is not produced by any layer",
                   t.placement == Placement::kWorkBuf ? "intermediate tensor" : "model output", t.name);
    }
  }
  return Status::Ok();
}

// Segments partition the layers in order, one target per segment.
Status check_segments(const Program& p) {
  if (p.segments.empty()) return Error(err::kParseModel, "the model has layers but no segment");
  std::int32_t next = 0;
  for (std::size_t si = 0; si < p.segments.size(); ++si) {
    const Segment& s = p.segments[si];
    if (s.begin != next || s.end <= s.begin || static_cast<std::size_t>(s.end) > p.layers.size()) {
      return Error(err::kParseModel,
                   "segment {} [{}, {}) does not continue the partition of the {} layers (expected to begin at {})",
                   si, s.begin, s.end, p.layers.size(), next);
    }
    const Layer& first = p.layers[static_cast<std::size_t>(s.begin)];
    for (std::int32_t li = s.begin; li < s.end; ++li) {
      const Layer& l = p.layers[static_cast<std::size_t>(li)];
      if (l.target != first.target) {
        return Error(err::kParseModel, "segment {} mixes {} layer \"{}\" with {} layer \"{}\"", si,
                     target_name(first.target), first.name, target_name(l.target), l.name);
      }
    }
    next = s.end;
  }
  if (static_cast<std::size_t>(next) != p.layers.size()) {
    return Error(err::kParseModel, "segments cover layers [0, {}) of {}", next, p.layers.size());
  }
  return Status::Ok();
}

// A reuse program: AIPP inputs only with reuse types that leave input memory alone,
// intermediates inside the arena and not straddling into a part that is not joined. Adds
// the live intervals of the arena's input and output parts to `live`.
Status check_reuse_arena(const Program& p, const Dataflow& df, std::vector<Live>* live) {
  // An AIPP input's buffer holds the source image, not the tensor the arena plan sized.
  const std::int32_t type = p.flags.buffer_reuse;
  if (type == 2 || type == 4 || type == 5 || type == 6) {
    for (const Tensor& t : p.tensors) {
      if (t.placement == Placement::kModelInput && !t.aipp.empty()) {
        return Error(err::kParseModel,
                     "buffer reuse type {} puts intermediates into input memory, which AIPP input \"{}\" does "
                     "not allow",
                     type, t.name);
      }
    }
  }
  const auto parts = arena_parts(p);
  if (!parts) return Error(err::kParseModel, "the buffer-reuse arena size overflows");
  const std::uint64_t arena_end = parts->back().offset + parts->back().size;
  for (const Tensor& t : p.tensors) {
    if (t.placement != Placement::kWorkBuf) continue;
    std::uint64_t end = 0;
    if (add_overflow(t.offset, t.size, &end) || end > arena_end) {
      return Error(err::kParseModel, "tensor \"{}\": [{}, {}+{}) lies outside the reuse arena ({} bytes)", t.name,
                   t.offset, t.offset, t.size, arena_end);
    }
    for (const ArenaPart& part : *parts) {
      if (!part.joined && t.offset < part.offset && end > part.offset) {
        return Error(err::kParseModel, "tensor \"{}\" straddles the start of a buffer that is not contiguous with "
                     "the previous one (arena offset {})", t.name, part.offset);
      }
    }
  }
  // Inputs occupy their memory from the start to their last reader, outputs from their
  // producer to the end.
  for (const ArenaPart& part : *parts) {
    if (part.kind == ArenaPart::Kind::kWorkBuf) continue;
    const auto ti = static_cast<std::size_t>(part.tensor);
    const bool in = part.kind == ArenaPart::Kind::kInput;
    live->push_back({in ? -1 : df.produced_by[ti], in ? df.last_use[ti] : std::numeric_limits<std::int32_t>::max(),
                     part.offset, part.offset + part.size, ti});
  }
  return Status::Ok();
}

// Intermediates (and, in a reuse program, the I/O parts of the arena: `live`) alive at the
// same time must not share work_buf bytes.
Status check_no_live_overlap(const Program& p, const Dataflow& df, std::vector<Live> live) {
  for (std::size_t i = 0; i < p.tensors.size(); ++i) {
    const Tensor& t = p.tensors[i];
    if (t.placement != Placement::kWorkBuf) continue;
    live.push_back({df.produced_by[i], df.last_use[i], t.offset, t.offset + t.size, i});
  }
  std::sort(live.begin(), live.end(), [](const Live& a, const Live& b) { return a.def < b.def; });
  std::vector<const Live*> active;
  for (const Live& cur : live) {
    active.erase(std::remove_if(active.begin(), active.end(), [&](const Live* a) { return a->last < cur.def; }),
                 active.end());
    for (const Live* a : active) {
      if (a->begin < cur.end && cur.begin < a->end) {
        return Error(err::kParseModel,
                     "tensors \"{}\" and \"{}\" are alive at the same time but overlap in the work_buf (or reuse arena)",
                     p.tensors[a->tensor].name, p.tensors[cur.tensor].name);
      }
    }
    active.push_back(&cur);
  }
  return Status::Ok();
}

}  // namespace

Status Program::validate(std::uint64_t weights_size) const {
  SVP_RETURN_IF_ERROR(check_header(*this));
  SVP_RETURN_IF_ERROR(check_flags(flags));
  std::size_t num_inputs = 0, num_outputs = 0;
  SVP_RETURN_IF_ERROR(check_tensors(*this, weights_size, &num_inputs, &num_outputs));
  SVP_RETURN_IF_ERROR(check_io_numbering(*this, num_inputs, num_outputs));
  Dataflow df;
  SVP_RETURN_IF_ERROR(check_layers(*this, &df));
  SVP_RETURN_IF_ERROR(check_all_produced(*this, df));
  SVP_RETURN_IF_ERROR(check_recurrent(*this));
  SVP_RETURN_IF_ERROR(check_segments(*this));
  std::vector<Live> live;
  if (reuses_io(flags.buffer_reuse)) SVP_RETURN_IF_ERROR(check_reuse_arena(*this, df, &live));
  return check_no_live_overlap(*this, df, std::move(live));
}

// ---------------------------------------------------------------------------------------
bool reuses_io(std::int32_t buffer_reuse) { return buffer_reuse >= 2 && buffer_reuse <= kBufferReuseMax; }

std::optional<std::vector<ArenaPart>> arena_parts(const Program& p) {
  const std::int32_t type = p.flags.buffer_reuse;
  std::vector<ArenaPart> parts;
  if (!reuses_io(type)) {
    ArenaPart work;
    work.size = p.flags.work_buf_size;
    parts.push_back(work);
    return parts;
  }
  // Which parts take part, and which neighbours are joined (svp_acl_buffer_reuse_type).
  const bool with_inputs = type == 2 || type == 4 || type == 5 || type == 6;
  const bool with_outputs = type != 2;
  const bool in_out_joined = type == 5 || type == 6;
  const bool work_joined = type == 6 || type == 7;
  std::uint64_t offset = 0;
  auto add = [&](ArenaPart::Kind kind, std::int32_t io, std::int32_t tensor, std::uint64_t size, bool joined) {
    ArenaPart part;
    part.kind = kind;
    part.io_index = io;
    part.tensor = tensor;
    part.offset = offset;
    part.size = size;
    part.joined = joined;
    parts.push_back(part);
    return !add_overflow(offset, size, &offset);
  };
  if (with_inputs) {
    const auto ins = p.input_tensors();
    for (std::size_t i = 0; i < ins.size(); ++i) {
      const auto size = strided_size(p.tensors[static_cast<std::size_t>(ins[i])], p.flags.internal_stride);
      if (!size || !add(ArenaPart::Kind::kInput, static_cast<std::int32_t>(i), ins[i], *size, i > 0)) return std::nullopt;
    }
  }
  if (with_outputs) {
    const auto outs = p.output_tensors();
    for (std::size_t i = 0; i < outs.size(); ++i) {
      const auto size = strided_size(p.tensors[static_cast<std::size_t>(outs[i])], p.flags.internal_stride);
      const bool joined = i > 0 || (with_inputs && in_out_joined);
      if (!size || !add(ArenaPart::Kind::kOutput, static_cast<std::int32_t>(i), outs[i], *size, joined)) {
        return std::nullopt;
      }
    }
  }
  if (!add(ArenaPart::Kind::kWorkBuf, -1, -1, p.flags.work_buf_size, work_joined)) return std::nullopt;
  return parts;
}

bool operator==(const Tensor& a, const Tensor& b) {
  return a.name == b.name && a.dtype == b.dtype && a.dims == b.dims && a.layout == b.layout &&
         a.quant.scale == b.quant.scale && a.quant.zero_point == b.quant.zero_point && a.quant.axis == b.quant.axis &&
         a.placement == b.placement && a.offset == b.offset && a.size == b.size && a.io_index == b.io_index &&
         a.inout_reuse == b.inout_reuse && a.aipp == b.aipp;
}
bool operator==(const Layer& a, const Layer& b) {
  return a.name == b.name && a.op == b.op && a.attrs.all() == b.attrs.all() && a.inputs == b.inputs &&
         a.outputs == b.outputs && a.target == b.target;
}
bool operator==(const Segment& a, const Segment& b) { return a.begin == b.begin && a.end == b.end; }
bool operator==(const ModelFlags& a, const ModelFlags& b) {
  return a.preemptible == b.preemptible && a.aicpu_busy_wait == b.aicpu_busy_wait && a.buffer_reuse == b.buffer_reuse &&
         a.internal_stride == b.internal_stride && a.dynamic_batch == b.dynamic_batch && a.dynamic_hw == b.dynamic_hw &&
         a.max_total_t == b.max_total_t &&
         a.task_buf_size == b.task_buf_size && a.work_buf_size == b.work_buf_size;
}
bool operator==(const CompilerInfo& a, const CompilerInfo& b) {
  return a.producer_version == b.producer_version && a.command_line == b.command_line;
}
bool operator==(const Program& a, const Program& b) {
  return a.name == b.name && a.tensors == b.tensors && a.layers == b.layers && a.segments == b.segments &&
         a.flags == b.flags && a.compiler == b.compiler;
}

}  // namespace svp::model
