#include "model/format.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include <nlohmann/json.hpp>

#include "common/read_file.h"
#include "model/crc32.h"

namespace svp::model {

using nlohmann::json;

namespace {

// ---------------------------------------------------------------------------------------
// Little-endian access.
void put_u32(std::vector<std::uint8_t>& out, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
}
void put_u64(std::vector<std::uint8_t>& out, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
}
std::uint32_t get_u32(const std::uint8_t* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
std::uint64_t get_u64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

bool is_known_section(std::uint32_t type) {
  return type == kSectionMetadata || type == kSectionWeights || type == kSectionCompiler;
}

// ---------------------------------------------------------------------------------------
// JSON encoding.
json encode_attr(const AttrValue& v) {
  json j = json::object();
  if (const auto* i = std::get_if<std::int64_t>(&v)) j["i"] = *i;
  if (const auto* d = std::get_if<double>(&v)) j["f"] = *d;
  if (const auto* s = std::get_if<std::string>(&v)) j["s"] = *s;
  if (const auto* is = std::get_if<std::vector<std::int64_t>>(&v)) j["ints"] = *is;
  if (const auto* ds = std::get_if<std::vector<double>>(&v)) j["floats"] = *ds;
  return j;
}

// Valid enum values as names; anything else as its number (which the reader rejects).
template <typename E>
json enum_json(E v, const char* (*name)(E), bool (*valid)(E)) {
  if (valid(v)) return name(v);
  return static_cast<std::int32_t>(v);
}
bool dtype_valid(DType t) { return is_valid(t); }
bool layout_valid(Layout l) { return is_valid(l); }
bool placement_valid(Placement p) { return is_valid(p); }
bool target_valid(Target t) { return is_valid(t); }

json encode_program(const Program& p) {
  json j = json::object();
  j["name"] = p.name;
  const ModelFlags& f = p.flags;
  json hw = json::array();
  for (const auto& [h, w] : f.dynamic_hw) hw.push_back({h, w});
  j["flags"] = {{"preemptible", f.preemptible},
                {"aicpu_busy_wait", f.aicpu_busy_wait},
                {"buffer_reuse", f.buffer_reuse},
                {"internal_stride", f.internal_stride},
                {"dynamic_batch", f.dynamic_batch},
                {"dynamic_hw", hw},
                {"max_total_t", f.max_total_t},
                {"task_buf_size", f.task_buf_size},
                {"work_buf_size", f.work_buf_size}};
  json tensors = json::array();
  for (const Tensor& t : p.tensors) {
    json jt = json::object();
    jt["name"] = t.name;
    jt["dtype"] = enum_json(t.dtype, &dtype_name, &dtype_valid);
    jt["dims"] = t.dims;
    jt["layout"] = enum_json(t.layout, &layout_name, &layout_valid);
    jt["placement"] = enum_json(t.placement, &placement_name, &placement_valid);
    jt["size"] = t.size;
    if (t.placement == Placement::kWorkBuf || t.placement == Placement::kWeights || t.offset != 0) {
      jt["offset"] = t.offset;
    }
    if (t.is_io() || t.io_index != -1) jt["io_index"] = t.io_index;
    if (t.is_io() || t.inout_reuse != kInoutReuseNone) jt["reuse"] = t.inout_reuse;
    if (!t.quant.empty() || !t.quant.zero_point.empty() || t.quant.axis != -1) {
      std::vector<double> scale(t.quant.scale.begin(), t.quant.scale.end());
      jt["quant"] = {{"scale", scale}, {"zero_point", t.quant.zero_point}, {"axis", t.quant.axis}};
    }
    if (!t.aipp.empty()) jt["aipp"] = t.aipp;
    tensors.push_back(std::move(jt));
  }
  j["tensors"] = std::move(tensors);
  json layers = json::array();
  for (const Layer& l : p.layers) {
    json jl = json::object();
    jl["name"] = l.name;
    jl["op"] = l.op;
    jl["target"] = enum_json(l.target, &target_name, &target_valid);
    jl["inputs"] = l.inputs;
    jl["outputs"] = l.outputs;
    if (!l.attrs.all().empty()) {
      json attrs = json::object();
      for (const auto& [name, value] : l.attrs.all()) attrs[name] = encode_attr(value);
      jl["attrs"] = std::move(attrs);
    }
    layers.push_back(std::move(jl));
  }
  j["layers"] = std::move(layers);
  json segments = json::array();
  for (const Segment& s : p.segments) segments.push_back({{"begin", s.begin}, {"end", s.end}});
  j["segments"] = std::move(segments);
  return j;
}

std::string dump(const json& j) {
  // `replace` only matters for programs that would fail validation (invalid UTF-8).
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// ---------------------------------------------------------------------------------------
// JSON decoding: every access checks type and range; errors carry the JSON path.
class Decoder {
 public:
  explicit Decoder(std::string what) : what_(std::move(what)) {}

  Status missing(const std::string& path) const {
    return Error(err::kModelMissingAttr, "{}: required key \"{}\" is missing", what_, path);
  }
  Status bad(const std::string& path, const std::string& expected) const {
    return Error(err::kParseModel, "{}: \"{}\" must be {}", what_, path, expected);
  }

  // Looks `key` up in object `obj`; null if absent.
  static const json* find(const json& obj, const char* key) {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }

  Status req(const json& obj, const char* key, const std::string& path, const json** out) const {
    *out = find(obj, key);
    if (*out == nullptr) return missing(path);
    return Status::Ok();
  }

  Status to_i64(const json& v, const std::string& path, std::int64_t lo, std::int64_t hi, std::int64_t* out) const {
    std::int64_t x = 0;
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return bad(path, fmt::format("an integer in {}..{}", lo, hi));
      }
      x = static_cast<std::int64_t>(u);
    } else if (v.is_number_integer()) {
      x = v.get<std::int64_t>();
    } else {
      return bad(path, fmt::format("an integer in {}..{}", lo, hi));
    }
    if (x < lo || x > hi) return bad(path, fmt::format("an integer in {}..{} (is {})", lo, hi, x));
    *out = x;
    return Status::Ok();
  }
  Status to_u64(const json& v, const std::string& path, std::uint64_t* out) const {
    if (v.is_number_unsigned()) {
      *out = v.get<std::uint64_t>();
      return Status::Ok();
    }
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0) {
      *out = static_cast<std::uint64_t>(v.get<std::int64_t>());
      return Status::Ok();
    }
    return bad(path, "a non-negative integer");
  }
  template <typename T>
  Status to_int(const json& v, const std::string& path, T* out) const {
    std::int64_t x = 0;
    SVP_RETURN_IF_ERROR(to_i64(v, path, std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), &x));
    *out = static_cast<T>(x);
    return Status::Ok();
  }
  Status to_double(const json& v, const std::string& path, double* out) const {
    if (!v.is_number()) return bad(path, "a number");
    *out = v.get<double>();
    return Status::Ok();
  }
  Status to_string(const json& v, const std::string& path, std::string* out) const {
    if (!v.is_string()) return bad(path, "a string");
    *out = v.get<std::string>();
    return Status::Ok();
  }
  Status to_bool(const json& v, const std::string& path, bool* out) const {
    if (!v.is_boolean()) return bad(path, "true or false");
    *out = v.get<bool>();
    return Status::Ok();
  }
  template <typename T>
  Status to_int_array(const json& v, const std::string& path, std::vector<T>* out) const {
    if (!v.is_array()) return bad(path, "an array of integers");
    out->clear();
    out->reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      T x{};
      SVP_RETURN_IF_ERROR(to_int(v[i], fmt::format("{}[{}]", path, i), &x));
      out->push_back(x);
    }
    return Status::Ok();
  }
  Status to_double_array(const json& v, const std::string& path, std::vector<double>* out) const {
    if (!v.is_array()) return bad(path, "an array of numbers");
    out->clear();
    out->reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      double x = 0;
      SVP_RETURN_IF_ERROR(to_double(v[i], fmt::format("{}[{}]", path, i), &x));
      out->push_back(x);
    }
    return Status::Ok();
  }
  template <typename E>
  Status to_enum(const json& v, const std::string& path, std::optional<E> (*parse)(const std::string&),
                 const char* what, E* out) const {
    if (!v.is_string()) return bad(path, fmt::format("a {} name", what));
    auto e = parse(v.get<std::string>());
    if (!e) return Error(err::kParseModel, "{}: \"{}\": unknown {} \"{}\"", what_, path, what, v.get<std::string>());
    *out = *e;
    return Status::Ok();
  }

 private:
  std::string what_;
};

Status decode_attr(const Decoder& d, const json& v, const std::string& path, AttrValue* out) {
  if (!v.is_object() || v.size() != 1) {
    return d.bad(path, "an object with exactly one of \"i\", \"f\", \"s\", \"ints\", \"floats\"");
  }
  const auto first = v.begin();
  const std::string& key = first.key();
  const json& value = first.value();
  const std::string sub = path + "." + key;
  if (key == "i") {
    std::int64_t x = 0;
    SVP_RETURN_IF_ERROR(d.to_int(value, sub, &x));
    *out = x;
  } else if (key == "f") {
    double x = 0;
    SVP_RETURN_IF_ERROR(d.to_double(value, sub, &x));
    *out = x;
  } else if (key == "s") {
    std::string x;
    SVP_RETURN_IF_ERROR(d.to_string(value, sub, &x));
    *out = std::move(x);
  } else if (key == "ints") {
    std::vector<std::int64_t> x;
    SVP_RETURN_IF_ERROR(d.to_int_array(value, sub, &x));
    *out = std::move(x);
  } else if (key == "floats") {
    std::vector<double> x;
    SVP_RETURN_IF_ERROR(d.to_double_array(value, sub, &x));
    *out = std::move(x);
  } else {
    return d.bad(path, "an object with exactly one of \"i\", \"f\", \"s\", \"ints\", \"floats\"");
  }
  return Status::Ok();
}

Status decode_flags(const Decoder& d, const json& f, ModelFlags* out) {
  if (!f.is_object()) return d.bad("flags", "an object");
  const json* v = nullptr;
  if ((v = Decoder::find(f, "preemptible"))) SVP_RETURN_IF_ERROR(d.to_bool(*v, "flags.preemptible", &out->preemptible));
  if ((v = Decoder::find(f, "aicpu_busy_wait"))) {
    SVP_RETURN_IF_ERROR(d.to_bool(*v, "flags.aicpu_busy_wait", &out->aicpu_busy_wait));
  }
  if ((v = Decoder::find(f, "buffer_reuse"))) SVP_RETURN_IF_ERROR(d.to_int(*v, "flags.buffer_reuse", &out->buffer_reuse));
  if ((v = Decoder::find(f, "internal_stride"))) {
    SVP_RETURN_IF_ERROR(d.to_int(*v, "flags.internal_stride", &out->internal_stride));
  }
  if ((v = Decoder::find(f, "max_total_t"))) SVP_RETURN_IF_ERROR(d.to_u64(*v, "flags.max_total_t", &out->max_total_t));
  if ((v = Decoder::find(f, "dynamic_batch"))) {
    if (!v->is_array()) return d.bad("flags.dynamic_batch", "an array of integers");
    for (std::size_t i = 0; i < v->size(); ++i) {
      std::uint64_t b = 0;
      SVP_RETURN_IF_ERROR(d.to_u64((*v)[i], fmt::format("flags.dynamic_batch[{}]", i), &b));
      out->dynamic_batch.push_back(b);
    }
  }
  if ((v = Decoder::find(f, "dynamic_hw"))) {
    if (!v->is_array()) return d.bad("flags.dynamic_hw", "an array of [h, w] pairs");
    for (std::size_t i = 0; i < v->size(); ++i) {
      const json& g = (*v)[i];
      const std::string path = fmt::format("flags.dynamic_hw[{}]", i);
      if (!g.is_array() || g.size() != 2) return d.bad(path, "an [h, w] pair");
      std::uint64_t h = 0, w = 0;
      SVP_RETURN_IF_ERROR(d.to_u64(g[0], path + "[0]", &h));
      SVP_RETURN_IF_ERROR(d.to_u64(g[1], path + "[1]", &w));
      out->dynamic_hw.emplace_back(h, w);
    }
  }
  if (!(v = Decoder::find(f, "task_buf_size"))) return d.missing("flags.task_buf_size");
  SVP_RETURN_IF_ERROR(d.to_u64(*v, "flags.task_buf_size", &out->task_buf_size));
  if (!(v = Decoder::find(f, "work_buf_size"))) return d.missing("flags.work_buf_size");
  SVP_RETURN_IF_ERROR(d.to_u64(*v, "flags.work_buf_size", &out->work_buf_size));
  return Status::Ok();
}

Status decode_tensor(const Decoder& d, const json& jt, std::size_t index, Tensor* t) {
  std::string path = fmt::format("tensors[{}]", index);
  if (!jt.is_object()) return d.bad(path, "an object");
  const json* v = nullptr;
  SVP_RETURN_IF_ERROR(d.req(jt, "name", path + ".name", &v));
  SVP_RETURN_IF_ERROR(d.to_string(*v, path + ".name", &t->name));
  path = fmt::format("tensors[{}] (\"{}\")", index, t->name);
  SVP_RETURN_IF_ERROR(d.req(jt, "dtype", path + ".dtype", &v));
  SVP_RETURN_IF_ERROR(d.to_enum(*v, path + ".dtype", &dtype_from_name, "data type", &t->dtype));
  SVP_RETURN_IF_ERROR(d.req(jt, "dims", path + ".dims", &v));
  SVP_RETURN_IF_ERROR(d.to_int_array(*v, path + ".dims", &t->dims));
  if ((v = Decoder::find(jt, "layout"))) {
    SVP_RETURN_IF_ERROR(d.to_enum(*v, path + ".layout", &layout_from_name, "layout", &t->layout));
  }
  SVP_RETURN_IF_ERROR(d.req(jt, "placement", path + ".placement", &v));
  SVP_RETURN_IF_ERROR(d.to_enum(*v, path + ".placement", &placement_from_name, "placement", &t->placement));
  SVP_RETURN_IF_ERROR(d.req(jt, "size", path + ".size", &v));
  SVP_RETURN_IF_ERROR(d.to_u64(*v, path + ".size", &t->size));
  if ((v = Decoder::find(jt, "offset"))) {
    SVP_RETURN_IF_ERROR(d.to_u64(*v, path + ".offset", &t->offset));
  } else if (t->placement == Placement::kWorkBuf || t->placement == Placement::kWeights) {
    return d.missing(path + ".offset");
  }
  if ((v = Decoder::find(jt, "io_index"))) {
    SVP_RETURN_IF_ERROR(d.to_int(*v, path + ".io_index", &t->io_index));
  } else if (t->is_io()) {
    return d.missing(path + ".io_index");
  }
  if ((v = Decoder::find(jt, "reuse"))) SVP_RETURN_IF_ERROR(d.to_int(*v, path + ".reuse", &t->inout_reuse));
  if ((v = Decoder::find(jt, "quant"))) {
    const std::string qp = path + ".quant";
    if (!v->is_object()) return d.bad(qp, "an object");
    const json* q = nullptr;
    SVP_RETURN_IF_ERROR(d.req(*v, "scale", qp + ".scale", &q));
    std::vector<double> scale;
    SVP_RETURN_IF_ERROR(d.to_double_array(*q, qp + ".scale", &scale));
    for (double s : scale) {
      if (!(std::fabs(s) <= FLT_MAX)) return d.bad(qp + ".scale", "an array of float32 values");
      t->quant.scale.push_back(static_cast<float>(s));
    }
    SVP_RETURN_IF_ERROR(d.req(*v, "zero_point", qp + ".zero_point", &q));
    SVP_RETURN_IF_ERROR(d.to_int_array(*q, qp + ".zero_point", &t->quant.zero_point));
    if ((q = Decoder::find(*v, "axis"))) SVP_RETURN_IF_ERROR(d.to_int(*q, qp + ".axis", &t->quant.axis));
  }
  if ((v = Decoder::find(jt, "aipp"))) SVP_RETURN_IF_ERROR(d.to_string(*v, path + ".aipp", &t->aipp));
  return Status::Ok();
}

Status decode_layer(const Decoder& d, const json& jl, std::size_t index, Layer* l) {
  std::string path = fmt::format("layers[{}]", index);
  if (!jl.is_object()) return d.bad(path, "an object");
  const json* v = nullptr;
  SVP_RETURN_IF_ERROR(d.req(jl, "name", path + ".name", &v));
  SVP_RETURN_IF_ERROR(d.to_string(*v, path + ".name", &l->name));
  path = fmt::format("layers[{}] (\"{}\")", index, l->name);
  SVP_RETURN_IF_ERROR(d.req(jl, "op", path + ".op", &v));
  SVP_RETURN_IF_ERROR(d.to_string(*v, path + ".op", &l->op));
  if ((v = Decoder::find(jl, "target"))) {
    SVP_RETURN_IF_ERROR(d.to_enum(*v, path + ".target", &target_from_name, "target", &l->target));
  }
  SVP_RETURN_IF_ERROR(d.req(jl, "inputs", path + ".inputs", &v));
  SVP_RETURN_IF_ERROR(d.to_int_array(*v, path + ".inputs", &l->inputs));
  SVP_RETURN_IF_ERROR(d.req(jl, "outputs", path + ".outputs", &v));
  SVP_RETURN_IF_ERROR(d.to_int_array(*v, path + ".outputs", &l->outputs));
  if ((v = Decoder::find(jl, "attrs"))) {
    if (!v->is_object()) return d.bad(path + ".attrs", "an object");
    for (const auto& [key, value] : v->items()) {
      AttrValue a;
      SVP_RETURN_IF_ERROR(decode_attr(d, value, path + ".attrs." + key, &a));
      l->attrs.set(key, std::move(a));
    }
  }
  return Status::Ok();
}

Result<json> parse_json(std::string_view text, const char* what) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    return Error(err::kParseModel, "{} is not valid JSON: {}", what, e.what());
  }
}

std::string printable_prefix(const std::uint8_t* p, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    if (p[i] >= 0x20 && p[i] < 0x7F && p[i] != '"' && p[i] != '\\') {
      s += static_cast<char>(p[i]);
    } else {
      s += fmt::format("\\x{:02x}", p[i]);
    }
  }
  return s;
}

}  // namespace

// ---------------------------------------------------------------------------------------
const char* section_name(std::uint32_t type) {
  switch (type) {
    case kSectionMetadata: return "METADATA";
    case kSectionWeights: return "WEIGHTS";
    case kSectionCompiler: return "COMPILER";
    default: return "unknown";
  }
}

std::string encode_metadata(const Program& program) { return dump(encode_program(program)); }

std::string encode_compiler(const CompilerInfo& info) {
  return dump(json{{"producer_version", info.producer_version}, {"command_line", info.command_line}});
}

Result<Program> decode_metadata(std::string_view text) {
  auto parsed = parse_json(text, "model metadata");
  if (!parsed.ok()) return parsed.status();
  const json& j = *parsed;
  const Decoder d("model metadata");
  if (!j.is_object()) return d.bad("(top level)", "an object");
  Program p;
  try {
    const json* v = nullptr;
    if ((v = Decoder::find(j, "name"))) SVP_RETURN_IF_ERROR(d.to_string(*v, "name", &p.name));
    SVP_RETURN_IF_ERROR(d.req(j, "flags", "flags", &v));
    SVP_RETURN_IF_ERROR(decode_flags(d, *v, &p.flags));
    SVP_RETURN_IF_ERROR(d.req(j, "tensors", "tensors", &v));
    if (!v->is_array()) return d.bad("tensors", "an array");
    p.tensors.resize(v->size());
    for (std::size_t i = 0; i < v->size(); ++i) SVP_RETURN_IF_ERROR(decode_tensor(d, (*v)[i], i, &p.tensors[i]));
    SVP_RETURN_IF_ERROR(d.req(j, "layers", "layers", &v));
    if (!v->is_array()) return d.bad("layers", "an array");
    p.layers.resize(v->size());
    for (std::size_t i = 0; i < v->size(); ++i) SVP_RETURN_IF_ERROR(decode_layer(d, (*v)[i], i, &p.layers[i]));
    SVP_RETURN_IF_ERROR(d.req(j, "segments", "segments", &v));
    if (!v->is_array()) return d.bad("segments", "an array");
    for (std::size_t i = 0; i < v->size(); ++i) {
      const json& s = (*v)[i];
      const std::string path = fmt::format("segments[{}]", i);
      if (!s.is_object()) return d.bad(path, "an object");
      Segment seg;
      const json* x = nullptr;
      SVP_RETURN_IF_ERROR(d.req(s, "begin", path + ".begin", &x));
      SVP_RETURN_IF_ERROR(d.to_int(*x, path + ".begin", &seg.begin));
      SVP_RETURN_IF_ERROR(d.req(s, "end", path + ".end", &x));
      SVP_RETURN_IF_ERROR(d.to_int(*x, path + ".end", &seg.end));
      p.segments.push_back(seg);
    }
  } catch (const json::exception& e) {  // not expected: every access above is checked
    return Error(err::kParseModel, "model metadata: {}", e.what());
  }
  return p;
}

Result<CompilerInfo> decode_compiler(std::string_view text) {
  auto parsed = parse_json(text, "compiler information");
  if (!parsed.ok()) return parsed.status();
  const json& j = *parsed;
  const Decoder d("compiler information");
  if (!j.is_object()) return d.bad("(top level)", "an object");
  CompilerInfo info;
  const json* v = nullptr;
  if ((v = Decoder::find(j, "producer_version"))) {
    SVP_RETURN_IF_ERROR(d.to_string(*v, "producer_version", &info.producer_version));
  }
  if ((v = Decoder::find(j, "command_line"))) SVP_RETURN_IF_ERROR(d.to_string(*v, "command_line", &info.command_line));
  return info;
}

// ---------------------------------------------------------------------------------------
namespace {

// A section's bytes where they already are: write_model lays the weights out once, in the
// image, instead of copying them into a RawSection first (the compiler's peak memory).
struct SectionView {
  std::uint32_t type = 0;
  std::uint32_t flags = 0;
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
};

std::vector<std::uint8_t> write_sections(const std::vector<SectionView>& sections, std::uint32_t version) {
  const std::uint64_t table_end = kHeaderSize + kSectionEntrySize * sections.size();
  std::vector<std::uint64_t> offsets;
  std::uint64_t end = table_end;
  for (const SectionView& s : sections) {
    const std::uint64_t off = align_up(end, kSectionAlign);
    offsets.push_back(off);
    end = off + s.size;
  }
  std::vector<std::uint8_t> out(static_cast<std::size_t>(end), 0);
  std::memcpy(out.data(), kModelMagic, sizeof(kModelMagic));
  put_u32(out, 8, version);
  put_u32(out, 12, static_cast<std::uint32_t>(sections.size()));
  for (std::size_t i = 0; i < sections.size(); ++i) {
    const SectionView& s = sections[i];
    const std::size_t e = kHeaderSize + kSectionEntrySize * i;
    put_u32(out, e + 0, s.type);
    put_u32(out, e + 4, s.flags);
    put_u64(out, e + 8, offsets[i]);
    put_u64(out, e + 16, s.size);
    put_u32(out, e + 24, crc32(s.data, s.size));
    put_u32(out, e + 28, 0);
    if (s.size > 0) std::memcpy(out.data() + offsets[i], s.data, s.size);
  }
  return out;
}

}  // namespace

std::vector<std::uint8_t> write_container(const std::vector<RawSection>& sections, std::uint32_t version) {
  std::vector<SectionView> views;
  for (const RawSection& s : sections) views.push_back({s.type, s.flags, s.bytes.data(), s.bytes.size()});
  return write_sections(views, version);
}

std::vector<std::uint8_t> write_model(const Program& program, const std::uint8_t* weights, std::size_t weights_size) {
  const std::string meta = encode_metadata(program);
  const std::string comp = encode_compiler(program.compiler);
  const std::vector<SectionView> sections = {
      {kSectionMetadata, 0, reinterpret_cast<const std::uint8_t*>(meta.data()), meta.size()},
      {kSectionWeights, 0, weights_size > 0 ? weights : nullptr, weights_size},
      {kSectionCompiler, 0, reinterpret_cast<const std::uint8_t*>(comp.data()), comp.size()}};
  const bool v2 = std::any_of(program.tensors.begin(), program.tensors.end(), [](const Tensor& t) {
    return t.dtype == DType::kUint64 || t.dtype == DType::kFloat64 || t.dtype == DType::kBool;
  });
  return write_sections(sections, v2 ? 2 : 1);
}

Result<LoadedModel> read_model(const void* data, std::size_t size) {
  if (size < kHeaderSize) {
    return Error(err::kModelSizeInvalid, "model size {} is smaller than the {}-byte svp-acl model header", size,
                 kHeaderSize);
  }
  if (data == nullptr) return Error(err::kInvalidParam, "model data is null");
  const auto* base = static_cast<const std::uint8_t*>(data);
  if (std::memcmp(base, kModelMagic, sizeof(kModelMagic)) != 0) {
    // The ACL family's offline-model header starts with the little-endian magic 0x444F4D49
    // ("IMOD" on disk; MODEL_FILE_MAGIC_NUM in the public GE headers, e.g. ascend/graphengine
    // inc/framework/common/types.h). Those files get the vendor wording; anything else the
    // generic one, with the same advice either way.
    static constexpr char kVendorOmMagic[4] = {'I', 'M', 'O', 'D'};
    const bool vendor = std::memcmp(base, kVendorOmMagic, sizeof kVendorOmMagic) == 0;
    return Error(err::kDeserializeModel,
                 "{} (the image starts with \"{}\", svp-acl models start with \"SVPACLOM\"); svp-acl runs models "
                 "compiled by svp_atc: compile the original ONNX model with svp_atc and the same flags (see "
                 "docs/compiler.md)",
                 vendor ? "this is a model compiled by the vendor's ATC, not an svp-acl offline model"
                        : "not an svp-acl offline model",
                 printable_prefix(base, sizeof(kModelMagic)));
  }
  const std::uint32_t version = get_u32(base + 8);
  if (version < kMinFormatVersion || version > kFormatVersion) {
    return Error(err::kDeserializeModel,
                 "svp-acl model format version {} is not supported (this library reads {} to {})", version,
                 kMinFormatVersion, kFormatVersion);
  }
  const std::uint32_t count = get_u32(base + 12);
  if (count == 0 || count > kMaxSections) {
    return Error(err::kDeserializeModel, "section count {} is outside 1..{}", count, kMaxSections);
  }
  const std::uint64_t table_end = kHeaderSize + std::uint64_t{kSectionEntrySize} * count;
  if (table_end > size) {
    return Error(err::kDeserializeModel, "the section table ({} entries) extends beyond the {}-byte image", count, size);
  }

  struct Entry {
    std::uint32_t type, flags, crc;
    std::uint64_t offset, size;
  };
  std::vector<Entry> entries(count);
  const Entry* found[4] = {nullptr, nullptr, nullptr, nullptr};
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint8_t* e = base + kHeaderSize + std::size_t{kSectionEntrySize} * i;
    Entry& en = entries[i];
    en.type = get_u32(e);
    en.flags = get_u32(e + 4);
    en.offset = get_u64(e + 8);
    en.size = get_u64(e + 16);
    en.crc = get_u32(e + 24);
    const std::uint32_t reserved = get_u32(e + 28);
    if (reserved != 0) return Error(err::kDeserializeModel, "section entry {}: reserved field is {:#x}, not 0", i, reserved);
    if ((en.flags & ~kSectionFlagOptional) != 0) {
      return Error(err::kDeserializeModel, "section entry {}: unknown flags {:#x}", i, en.flags);
    }
    if (is_known_section(en.type)) {
      if (en.flags != 0) {
        return Error(err::kDeserializeModel, "section {} has flags {:#x} (version-1 sections have none)",
                     section_name(en.type), en.flags);
      }
      if (found[en.type] != nullptr) {
        return Error(err::kDeserializeModel, "section {} appears twice", section_name(en.type));
      }
      found[en.type] = &en;
    } else if ((en.flags & kSectionFlagOptional) == 0) {
      return Error(err::kDeserializeModel, "section entry {} has unknown required type {}", i, en.type);
    }
    if (en.offset < table_end || en.offset > size || en.size > size - en.offset) {
      return Error(err::kDeserializeModel, "section {} [{}, +{}) lies outside the data area [{}, {}) of the image",
                   section_name(en.type), en.offset, en.size, table_end, size);
    }
  }

  // Sections in file order: no overlap, zero padding between them, nothing after the last.
  std::vector<const Entry*> order;
  for (const Entry& en : entries) order.push_back(&en);
  std::sort(order.begin(), order.end(), [](const Entry* a, const Entry* b) {
    return a->offset != b->offset ? a->offset < b->offset : a->size < b->size;
  });
  std::uint64_t pos = table_end;
  for (const Entry* en : order) {
    if (en->offset < pos) {
      return Error(err::kDeserializeModel, "section {} at offset {} overlaps the data before it (ending at {})",
                   section_name(en->type), en->offset, pos);
    }
    for (std::uint64_t k = pos; k < en->offset; ++k) {
      if (base[k] != 0) return Error(err::kDeserializeModel, "non-zero padding byte at offset {}", k);
    }
    pos = en->offset + en->size;
  }
  if (pos != size) {
    return Error(err::kDeserializeModel, "the image has {} bytes after its last section (ends at {}, size {})",
                 size - pos, pos, size);
  }
  const Entry* meta = found[kSectionMetadata];
  const Entry* weights = found[kSectionWeights];
  const Entry* comp = found[kSectionCompiler];
  if (meta == nullptr) return Error(err::kDeserializeModel, "the image has no METADATA section");
  if (weights != nullptr && weights->offset % kSectionAlign != 0) {
    return Error(err::kDeserializeModel, "section WEIGHTS at offset {} is not {}-byte aligned", weights->offset,
                 kSectionAlign);
  }
  for (const Entry& en : entries) {
    const std::uint32_t crc = crc32(base + en.offset, static_cast<std::size_t>(en.size));
    if (crc != en.crc) {
      return Error(err::kDeserializeModel, "section {} is corrupt: CRC-32 {:#010x}, expected {:#010x}",
                   section_name(en.type), crc, en.crc);
    }
  }

  auto text = [&](const Entry* en) {
    return std::string_view(reinterpret_cast<const char*>(base + en->offset), static_cast<std::size_t>(en->size));
  };
  auto program = decode_metadata(text(meta));
  if (!program.ok()) return program.status();
  LoadedModel model;
  model.program = std::move(*program);
  if (comp != nullptr) {
    auto info = decode_compiler(text(comp));
    if (!info.ok()) return info.status();
    model.program.compiler = std::move(*info);
  }
  if (weights != nullptr && weights->size > 0) {
    model.weights = base + weights->offset;
    model.weights_size = static_cast<std::size_t>(weights->size);
  }
  SVP_RETURN_IF_ERROR(model.program.validate(model.weights_size));
  return model;
}

// ---------------------------------------------------------------------------------------
Status save_model_file(const std::string& path, const std::vector<std::uint8_t>& image) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return Error(err::kWriteFile, "cannot open \"{}\" for writing", path);
  f.write(reinterpret_cast<const char*>(image.data()), static_cast<std::streamsize>(image.size()));
  f.close();
  if (!f) return Error(err::kWriteFile, "cannot write \"{}\"", path);
  return Status::Ok();
}

Result<std::vector<std::uint8_t>> load_model_file(const std::string& path) {
  std::vector<std::uint8_t> bytes;
  if (!read_file_bytes(path, &bytes)) return Error(err::kReadModelFailure, "cannot open or read model file \"{}\"", path);
  if (bytes.empty()) return Error(err::kModelSizeInvalid, "model file \"{}\" is empty", path);
  return bytes;
}

}  // namespace svp::model
