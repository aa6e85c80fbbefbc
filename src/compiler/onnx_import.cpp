#include "compiler/onnx_import.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <new>
#include <set>
#include <sstream>
#include <unordered_map>

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <fmt/format.h>

#include "common/log.h"
#include "compiler/onnx_node_inference.h"
#include "kernels/invoke.h"
#include "kernels/kernels.h"
#include "model/custom_op.h"

namespace svp::compiler {
namespace {

using model::DType;
using Bytes = std::vector<std::uint8_t>;
using Shape = std::vector<std::int64_t>;

constexpr std::size_t kMaxModelBytes = std::size_t{2} << 30;  // protobuf's own limit
// The largest constant the importer computes from constant inputs (docs/compiler.md).
constexpr std::uint64_t kMaxFoldedBytes = std::uint64_t{1} << 30;

std::string shape_text(const Shape& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

// The bytes of `v` (empty for an empty vector, whose data() may be null).
template <typename T>
Bytes to_bytes(const std::vector<T>& v) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(v.data());
  return v.empty() ? Bytes{} : Bytes(p, p + v.size() * sizeof(T));
}

// ONNX element type → the IR's, or an error naming the type and where it was met.
Result<DType> dtype_of(int onnx_type, const std::string& where) {
  using T = onnx::TensorProto;
  switch (onnx_type) {
    case T::FLOAT: return DType::kFloat32;
    case T::FLOAT16: return DType::kFloat16;
    case T::INT8: return DType::kInt8;
    case T::UINT8: return DType::kUint8;
    case T::INT16: return DType::kInt16;
    case T::UINT16: return DType::kUint16;
    case T::INT32: return DType::kInt32;
    case T::UINT32: return DType::kUint32;
    case T::INT64: return DType::kInt64;
    case T::UINT64: return DType::kUint64;
    case T::DOUBLE: return DType::kFloat64;
    case T::BOOL: return DType::kBool;
    default: break;
  }
  const char* name = onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(onnx_type)).c_str();
  return Error(err::kParseModel, "{}: element type {} is not supported (float, float16, double, bool, int8/16/32/64, uint8/16/32/64)",
               where, name);
}

// Dense little-endian bytes of a TensorProto (raw_data or the typed fields).
Result<Bytes> tensor_bytes(const onnx::TensorProto& t, DType dtype, const std::string& where) {
  std::uint64_t n = 1;
  for (std::int64_t d : t.dims()) {
    if (d < 0) return Error(err::kParseModel, "{}: negative dimension {}", where, d);
    n *= static_cast<std::uint64_t>(d);
    if (n > (std::uint64_t{1} << 40)) return Error(err::kParseModel, "{}: too many elements", where);
  }
  const std::size_t size = model::dtype_size(dtype);
  const std::uint64_t bytes = n * size;
  // Sizes are checked against what the file holds before anything is allocated: a few
  // bytes of protobuf must not claim gigabytes (found by onnx_import_fuzz).
  if (t.has_raw_data()) {
    if (t.raw_data().size() != bytes) {
      return Error(err::kParseModel, "{}: raw_data holds {} bytes, the shape needs {}", where, t.raw_data().size(),
                   bytes);
    }
    Bytes out(t.raw_data().begin(), t.raw_data().end());
    return out;
  }
  Bytes out;
  auto fill = [&](const auto& field, auto convert) -> Status {
    if (static_cast<std::uint64_t>(field.size()) != n) {
      return Error(err::kParseModel, "{}: {} values for a shape of {} elements", where, field.size(), n);
    }
    out.resize(static_cast<std::size_t>(bytes));
    for (std::uint64_t i = 0; i < n; ++i) convert(field.Get(static_cast<int>(i)), out.data() + i * size);
    return Status::Ok();
  };
  switch (dtype) {
    case DType::kFloat32:
      SVP_RETURN_IF_ERROR(fill(t.float_data(), [](float v, std::uint8_t* p) { std::memcpy(p, &v, 4); }));
      break;
    case DType::kInt64:
      SVP_RETURN_IF_ERROR(fill(t.int64_data(), [](std::int64_t v, std::uint8_t* p) { std::memcpy(p, &v, 8); }));
      break;
    case DType::kUint32:
      SVP_RETURN_IF_ERROR(fill(t.uint64_data(), [](std::uint64_t v, std::uint8_t* p) {
        const auto x = static_cast<std::uint32_t>(v);
        std::memcpy(p, &x, 4);
      }));
      break;
    case DType::kUint64:
      SVP_RETURN_IF_ERROR(fill(t.uint64_data(), [](std::uint64_t v, std::uint8_t* p) { std::memcpy(p, &v, 8); }));
      break;
    case DType::kFloat64:
      SVP_RETURN_IF_ERROR(fill(t.double_data(), [](double v, std::uint8_t* p) { std::memcpy(p, &v, 8); }));
      break;
    default:  // int32_data carries every type of 32 bits or fewer (float16 as its bits)
      SVP_RETURN_IF_ERROR(fill(t.int32_data(), [size](std::int32_t v, std::uint8_t* p) {
        std::memcpy(p, &v, size);  // little-endian: the low bytes
      }));
      break;
  }
  return out;
}

// An external-data offset or length: decimal digits only (ONNX writes them as text).
Result<std::uint64_t> external_number(const onnx::TensorProto& t, const std::string& key, const std::string& text) {
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  if (text.empty() || r.ec != std::errc() || r.ptr != end) {
    return Error(err::kParseModel, "initializer \"{}\": external data {} \"{}\" is not a byte count", t.name(), key,
                 text.substr(0, 40));
  }
  return v;
}

// The bytes a tensor of `t`'s element type and dims holds, or an error naming it.
Result<std::uint64_t> tensor_size(const onnx::TensorProto& t) {
  const std::string where = fmt::format("initializer \"{}\"", t.name());
  auto dt = dtype_of(t.data_type(), where);
  if (!dt.ok()) return dt.status();
  std::uint64_t n = 1;
  for (std::int64_t d : t.dims()) {
    if (d < 0) return Error(err::kParseModel, "{}: negative dimension {}", where, d);
    n *= static_cast<std::uint64_t>(d);
    if (n > (std::uint64_t{1} << 40)) return Error(err::kParseModel, "{}: too many elements", where);
  }
  return n * model::dtype_size(*dt);
}

// `location` resolved beside the model, refused when it leaves the model's folder, also
// through a symbolic link (onnxruntime's rule: a model must not read arbitrary files).
Result<std::filesystem::path> external_file(const onnx::TensorProto& t, const std::string& base_dir,
                                            const std::string& location) {
  namespace fs = std::filesystem;
  auto outside = [&] {
    return Error(err::kParseModel,
                 "initializer \"{}\": external data location \"{}\" must be a relative path to a file in the "
                 "model's folder \"{}\" (no \"..\", no absolute path, no symbolic link leading out of it)",
                 t.name(), location, base_dir);
  };
  if (location.empty() || fs::path(location).is_absolute() || location.find("..") != std::string::npos) {
    return outside();
  }
  std::error_code ec;
  const fs::path dir = fs::canonical(base_dir, ec);
  if (ec) return Error(err::kParseModel, "initializer \"{}\": the model's folder \"{}\" cannot be read", t.name(), base_dir);
  const fs::path file = fs::weakly_canonical(dir / location, ec);
  if (ec) return outside();
  // Component-wise prefix: "/m/a" must not accept "/m/ab/x".
  auto f = file.begin();
  for (auto d = dir.begin(); d != dir.end(); ++d, ++f) {
    if (f == file.end() || *f != *d) return outside();
  }
  if (f == file.end()) return outside();
  return file;
}

// Moves external data into raw_data so the rest of the importer sees one model. Sizes are
// checked against the tensor's shape and the file before anything is read or allocated.
Status inline_external_data(onnx::TensorProto* t, const std::string& base_dir) {
  if (t->data_location() != onnx::TensorProto::EXTERNAL) return Status::Ok();
  std::string location;
  std::uint64_t offset = 0, length = 0;
  bool has_length = false;
  for (const auto& kv : t->external_data()) {
    if (kv.key() == "location") location = kv.value();
    if (kv.key() == "offset" || kv.key() == "length") {
      auto v = external_number(*t, kv.key(), kv.value());
      if (!v.ok()) return v.status();
      (kv.key() == "offset" ? offset : length) = *v;
      has_length = has_length || kv.key() == "length";
    }
  }
  if (base_dir.empty()) {
    return Error(err::kParseModel, "initializer \"{}\" has external data, which an in-memory model cannot reach",
                 t->name());
  }
  auto path = external_file(*t, base_dir, location);
  if (!path.ok()) return path.status();
  const std::filesystem::path& file = *path;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    return Error(err::kParseModel, "initializer \"{}\": external data {} is not a regular file", t->name(),
                 file.string());
  }
  const std::uint64_t file_size = std::filesystem::file_size(file, ec);
  if (ec) return Error(err::kParseModel, "initializer \"{}\": cannot read external data {}", t->name(), file.string());
  if (!has_length) length = file_size > offset ? file_size - offset : 0;
  if (offset > file_size || length > file_size - offset) {
    return Error(err::kParseModel, "initializer \"{}\": bytes [{}, {}) lie outside {} ({} bytes)", t->name(), offset,
                 offset + length, file.string(), file_size);
  }
  auto want = tensor_size(*t);
  if (!want.ok()) return want.status();
  if (length != *want) {
    return Error(err::kParseModel, "initializer \"{}\": external data holds {} bytes (from {}), the shape needs {}",
                 t->name(), length, file.string(), *want);
  }
  std::ifstream in(file, std::ios::binary);
  std::string data(length, '\0');
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(data.data(), static_cast<std::streamsize>(length));
  if (!in) return Error(err::kParseModel, "initializer \"{}\": reading {} failed", t->name(), file.string());
  t->set_raw_data(std::move(data));
  t->clear_external_data();
  t->set_data_location(onnx::TensorProto::DEFAULT);
  return Status::Ok();
}

// What Shape (opset 15's start/end included) returns for a value of shape `s`.
Shape shape_slice(const Shape& s, const model::Attrs& attrs) {
  const auto rank = static_cast<std::int64_t>(s.size());
  auto start = attrs.get_int("start", 0);
  auto end = attrs.get_int("end", rank);
  std::int64_t b = start.ok() ? *start : 0, e = end.ok() ? *end : rank;
  if (b < 0) b += rank;
  if (e < 0) e += rank;
  b = std::clamp<std::int64_t>(b, 0, rank);
  e = std::clamp<std::int64_t>(e, b, rank);
  return Shape(s.begin() + b, s.begin() + e);
}

class Importer {
 public:
  Importer(onnx::ModelProto model, const CompileOptions& options) : m_(std::move(model)), opt_(options) {}

  Result<Graph> run(const std::string& base_dir) {
    SVP_RETURN_IF_ERROR(check_versions());
    for (auto& t : *m_.mutable_graph()->mutable_initializer()) SVP_RETURN_IF_ERROR(inline_external_data(&t, base_dir));
    SVP_RETURN_IF_ERROR(apply_input_shapes());
    try {
      onnx::checker::check_model(m_);
    } catch (const std::exception& e) {
      return Error(err::kParseModel, "the ONNX checker rejects the model: {}", first_line(e.what()));
    }
    SVP_RETURN_IF_ERROR(check_references());
    SVP_RETURN_IF_ERROR(lift_old_opset());
    // No whole-model ONNX shape inference: libonnx 1.12's inference functions crash on some
    // inconsistent nodes (a Conv whose input rank does not fit its weights, found by the
    // importer's fuzzer). add_node asks ONNX about one node at a time, after the kernels'
    // shape function has accepted it.
    g_.name = m_.graph().name();
    g_.opset = opset_;
    SVP_RETURN_IF_ERROR(add_initializers());
    SVP_RETURN_IF_ERROR(add_inputs());
    for (int i = 0; i < m_.graph().node_size(); ++i) {
      const onnx::NodeProto& n = m_.graph().node(i);
      if (reads_poisoned(n)) {  // pre-check: depends on a node already reported
        poison(n);
        ++unchecked_;
        continue;
      }
      const Status st = add_node(n, i);
      if (st.ok()) continue;
      if (!collecting()) return st;
      problems_.push_back(st.message());
      poison(n);
    }
    if (!problems_.empty()) return precheck_error();
    SVP_RETURN_IF_ERROR(add_outputs());
    eliminate_dead_nodes();
    g_.compact();
    SVP_RETURN_IF_ERROR(g_.topo_sort());
    return std::move(g_);
  }

 private:
  static std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

  // --mode=3 (pre-check) reports every problem of the model at once: a node that fails
  // is recorded, its outputs are poisoned, and the nodes reading them are not checked
  // (their inputs' shapes are unknown) but counted.
  bool collecting() const { return opt_.mode == 3; }
  bool reads_poisoned(const onnx::NodeProto& n) const {
    for (const std::string& in : n.input()) {
      if (poisoned_.count(in)) return true;
    }
    return false;
  }
  void poison(const onnx::NodeProto& n) {
    for (const std::string& out : n.output()) {
      if (out.empty()) continue;
      poisoned_.insert(out);
      names_.erase(out);
    }
  }
  Status precheck_error() const {
    std::string list;
    for (std::size_t i = 0; i < problems_.size(); ++i) list += fmt::format("\n  {}. {}", i + 1, problems_[i]);
    return Error(err::kParseModel, "pre-check: {} problem(s) in the model:{}{}", problems_.size(), list,
                 unchecked_ ? fmt::format("\n  ({} node(s) after them depend on their outputs and were not checked)",
                                          unchecked_)
                            : std::string());
  }

  Status check_versions() {
    if (m_.ir_version() > kMaxIrVersion) {
      return Error(err::kParseModel,
                   "the model's IR version {} is newer than this importer reads ({}): export it again with an "
                   "opset ≤ {} (torch.onnx.export(..., opset_version=13) gives IR 7)",
                   m_.ir_version(), kMaxIrVersion, kMaxOpset);
    }
    bool training = false;
    for (const auto& o : m_.opset_import()) {
      if (o.domain().empty() || o.domain() == "ai.onnx") opset_ = o.version();
      if (o.domain() == kTrainingDomain) training = o.version() == 1;
    }
    // A model of training optimizers only (ai.onnx.preview.training, version 1) holds no
    // ai.onnx op (ONNX's checker requires an import per node domain), so any ai.onnx opset
    // describes it: the newest.
    if (opset_ == 0 && training) opset_ = kMaxOpset;
    if (opset_ == 0) return Error(err::kParseModel, "the model imports no ai.onnx opset");
    if (opset_ > kMaxOpset) {
      return Error(err::kParseModel,
                   "the model uses ai.onnx opset {}, newer than {} (what Debian's ONNX 1.12 knows): export it with "
                   "opset_version ≤ {}, or convert it with onnx.version_converter.convert_version(model, {})",
                   opset_, kMaxOpset, kMaxOpset, kMaxOpset);
    }
    return Status::Ok();
  }

  // Every value a node or the graph's outputs read is defined before it is read. ONNX's
  // checker leaves the graph outputs unchecked at IR 3, and the version converter crashes
  // on an output nothing produces (found by onnx_import_fuzz).
  Status check_references() const {
    std::set<std::string> defined;
    for (const auto& in : m_.graph().input()) defined.insert(in.name());
    for (const auto& t : m_.graph().initializer()) defined.insert(t.name());
    for (const auto& n : m_.graph().node()) {
      for (const std::string& in : n.input()) {
        if (!in.empty() && !defined.count(in)) {
          return Error(err::kParseModel, "node \"{}\" ({}) reads \"{}\", which no input, initializer or earlier node "
                       "defines (the graph must be in topological order)", n.name(), n.op_type(), in);
        }
      }
      for (const std::string& out : n.output()) defined.insert(out);
    }
    for (const auto& out : m_.graph().output()) {
      if (!defined.count(out.name())) {
        return Error(err::kParseModel, "model output \"{}\" is produced by no node, input or initializer", out.name());
      }
    }
    return Status::Ok();
  }

  // Before opset 7 broadcasting was explicit (the "broadcast" attribute) and several ops
  // had other attributes: ONNX's version converter lifts the model to opset 7. Only after
  // the checker accepted the model: the converter crashes on malformed graphs (found by
  // onnx_import_fuzz).
  Status lift_old_opset() {
    if (opset_ < kMinOpset) {
      try {
        m_ = onnx::version_conversion::ConvertVersion(m_, static_cast<int>(kMinOpset));
      } catch (const std::exception& e) {
        return Error(err::kParseModel,
                     "the model uses ai.onnx opset {}, older than {}, and ONNX's version converter cannot lift it: {}; "
                     "convert it with onnx.version_converter.convert_version(model, 13) or export it again",
                     opset_, kMinOpset, first_line(e.what()));
      }
      SVP_LOG_INFO("opset {} model converted to opset {} by ONNX's version converter", opset_, kMinOpset);
      opset_ = kMinOpset;
    }
    return Status::Ok();
  }

  // An input's declared dimensions as the user would read them: "1,3,?,?" for symbolic ones.
  static std::string declared_dims(const onnx::ValueInfoProto& in) {
    std::string s;
    for (const auto& d : in.type().tensor_type().shape().dim()) {
      s += (s.empty() ? "" : ",") + (d.has_dim_value() && d.dim_value() > 0 ? std::to_string(d.dim_value())
                                                                             : d.has_dim_param() ? d.dim_param() : "?");
    }
    return s;
  }
  // A --input_shape value for the input with its own rank: the fixed dimensions it declares
  // and 1 for the others (a batch of one; the user replaces the rest).
  static std::string example_dims(const onnx::ValueInfoProto& in) {
    std::string s;
    for (const auto& d : in.type().tensor_type().shape().dim()) {
      s += (s.empty() ? "" : ",") + std::to_string(d.has_dim_value() && d.dim_value() > 0 ? d.dim_value() : 1);
    }
    return s.empty() ? "1" : s;
  }

  // --input_shape (with -1 gear dims resolved to the largest gear) written into the
  // model's input descriptions, so that ONNX shape inference sees static shapes too.
  Status apply_input_shapes() {
    std::set<std::string> initializers;
    for (const auto& t : m_.graph().initializer()) initializers.insert(t.name());
    for (const auto& [name, dims] : opt_.input_shape) {
      onnx::ValueInfoProto* vi = nullptr;
      for (auto& in : *m_.mutable_graph()->mutable_input()) {
        if (in.name() == name && !initializers.count(name)) vi = &in;
      }
      if (vi == nullptr) {
        std::string names;
        for (const auto& in : m_.graph().input()) {
          if (!initializers.count(in.name())) names += (names.empty() ? "" : ", ") + in.name();
        }
        return Error(err::kInvalidParam, "--input_shape names \"{}\", which is not an input of the model (inputs: {})",
                     name, names);
      }
      const auto& declared = vi->type().tensor_type().shape();
      if (vi->type().tensor_type().has_shape() && declared.dim_size() > 0 &&
          static_cast<std::size_t>(declared.dim_size()) != dims.size()) {
        return Error(err::kInvalidParam,
                     "--input_shape gives \"{}\" {} dimensions, but the model's input has {} ({}): give all {}, e.g. "
                     "--input_shape=\"{}:{}\"",
                     name, dims.size(), declared.dim_size(), declared_dims(*vi), declared.dim_size(), name,
                     example_dims(*vi));
      }
      Shape resolved = dims;
      int gear_dims = 0;
      for (std::size_t i = 0; i < resolved.size(); ++i) {
        if (resolved[i] != -1) continue;
        ++gear_dims;
        if (!opt_.dynamic_batch_size.empty() && i == 0) {
          // The model describes one batch item; the runtime runs the selected batch as that
          // many items (model/program.h, flags.dynamic_batch).
          resolved[i] = 1;
        } else if (!opt_.dynamic_image_size.empty() && resolved.size() == 4 && (i == 2 || i == 3)) {
          resolved[i] = i == 2 ? opt_.dynamic_image_size.front().first : opt_.dynamic_image_size.front().second;
        } else {
          return Error(err::kInvalidParam,
                       "--input_shape gives \"{}\" a -1 in dimension {}, but no --dynamic_batch_size (dimension 0) or "
                       "--dynamic_image_size (dimensions 2 and 3 of a 4-D input) sets it",
                       name, i);
        }
      }
      (void)gear_dims;
      auto* shape = vi->mutable_type()->mutable_tensor_type()->mutable_shape();
      shape->clear_dim();
      for (std::int64_t d : resolved) shape->add_dim()->set_dim_value(d);
    }
    return Status::Ok();
  }

  Status add_initializers() {
    for (auto& t : *m_.mutable_graph()->mutable_initializer()) {
      const std::string where = fmt::format("initializer \"{}\"", t.name());
      auto dt = dtype_of(t.data_type(), where);
      if (!dt.ok()) return dt.status();
      auto bytes = tensor_bytes(t, *dt, where);
      if (!bytes.ok()) return bytes.status();
      const ValueId id = g_.add_constant(t.name(), *dt, Shape(t.dims().begin(), t.dims().end()),
                                         std::make_shared<const Bytes>(std::move(*bytes)));
      names_[t.name()] = id;
      // The graph holds the values now: free the protobuf's copy (per-node ONNX inference
      // reads constants from the graph, not from the model).
      std::string().swap(*t.mutable_raw_data());
      t.clear_float_data();
      t.clear_int32_data();
      t.clear_int64_data();
      t.clear_double_data();
      t.clear_uint64_data();
    }
    return Status::Ok();
  }

  Status add_inputs() {
    for (const auto& in : m_.graph().input()) {
      if (names_.count(in.name())) continue;  // IR 3: an input with an initializer is a constant
      const std::string where = fmt::format("model input \"{}\"", in.name());
      if (!in.type().has_tensor_type()) return Error(err::kParseModel, "{} is not a tensor", where);
      auto dt = dtype_of(in.type().tensor_type().elem_type(), where);
      if (!dt.ok()) return dt.status();
      Shape dims;
      const auto& shape = in.type().tensor_type().shape();
      for (int i = 0; i < shape.dim_size(); ++i) {
        const auto& d = shape.dim(i);
        if (!d.has_dim_value() || d.dim_value() <= 0) {
          return Error(err::kInvalidParam,
                       "{} has no fixed size in dimension {} ({}): give every dimension with "
                       "--input_shape=\"{}:{}\"",
                       where, i, d.has_dim_param() ? "\"" + d.dim_param() + "\"" : std::string("unknown"), in.name(),
                       example_dims(in));
        }
        dims.push_back(d.dim_value());
      }
      Value v;
      v.name = in.name();
      v.dtype = *dt;
      v.shape = dims.empty() ? Shape{1} : dims;
      const ValueId id = g_.add_value(std::move(v));
      g_.inputs.push_back(id);
      g_.input_aipp.emplace_back();
      names_[in.name()] = dims.empty() ? squeeze_scalar(id) : id;
    }
    if (g_.inputs.empty()) return Error(err::kParseModel, "the model has no input that is not a constant");
    return Status::Ok();
  }

  // ONNX attributes → the IR's; TENSOR attributes only where an op needs a scalar.
  Status convert_attrs(const onnx::NodeProto& n, const std::string& where, model::Attrs* out) {
    for (const auto& a : n.attribute()) {
      switch (a.type()) {
        case onnx::AttributeProto::FLOAT: out->set(a.name(), static_cast<double>(a.f())); break;
        case onnx::AttributeProto::INT: out->set(a.name(), static_cast<std::int64_t>(a.i())); break;
        case onnx::AttributeProto::STRING: out->set(a.name(), a.s()); break;
        case onnx::AttributeProto::FLOATS:
          out->set(a.name(), std::vector<double>(a.floats().begin(), a.floats().end()));
          break;
        case onnx::AttributeProto::INTS:
          out->set(a.name(), std::vector<std::int64_t>(a.ints().begin(), a.ints().end()));
          break;
        case onnx::AttributeProto::TENSOR: {
          // A one-element tensor (ConstantOfShape's value): attrs "<name>" (double) and
          // "<name>_dtype" (the IR's DType number).
          auto dt = dtype_of(a.t().data_type(), where + " attribute " + a.name());
          if (!dt.ok()) return dt.status();
          auto bytes = tensor_bytes(a.t(), *dt, where + " attribute " + a.name());
          if (!bytes.ok()) return bytes.status();
          if (bytes->size() != model::dtype_size(*dt)) {
            return Error(err::kParseModel, "{}: tensor attribute \"{}\" must hold one value", where, a.name());
          }
          model::TensorView v;
          v.dtype = *dt;
          v.dims = {1};
          v.data = bytes->data();
          out->set(a.name(), scalar_value(v));
          out->set(a.name() + "_dtype", static_cast<std::int64_t>(*dt));
          break;
        }
        case onnx::AttributeProto::STRINGS: {
          // The IR has no list-of-strings attribute (adding one would change the model
          // format). The one such attribute a kernel reads, the recurrent ops' activation
          // functions, is stored as one string with the names separated by commas
          // (kernels/reference/recurrent.cpp); ONNX names the functions without commas.
          const bool recurrent = n.op_type() == "LSTM" || n.op_type() == "GRU" || n.op_type() == "RNN";
          if (!recurrent || a.name() != "activations") {
            return Error(err::kFeatureUnsupported,
                         "{}: attribute \"{}\" is a list of strings, which svp-acl does not support (only the "
                         "recurrent ops' activations)",
                         where, a.name());
          }
          std::string joined;
          for (const std::string& v : a.strings()) {
            if (v.empty() || v.find(',') != std::string::npos) {
              return Error(err::kParseModel, "{}: activation function name \"{}\" is not valid", where, v);
            }
            joined += (joined.empty() ? "" : ",") + v;
          }
          out->set(a.name(), joined);
          break;
        }
        case onnx::AttributeProto::GRAPH:
        case onnx::AttributeProto::GRAPHS:
          return Error(err::kParseModel,
                       "{}: control flow (subgraph attribute \"{}\") is not supported; export the model with its "
                       "loops unrolled or run that part on the host",
                       where, a.name());
        default:
          return Error(err::kParseModel, "{}: attribute \"{}\" has a type svp-acl does not support", where, a.name());
      }
    }
    return Status::Ok();
  }

  static double scalar_value(const model::TensorView& v) {
    switch (v.dtype) {
      case DType::kFloat32: return *v.as<float>();
      case DType::kInt8: return *v.as<std::int8_t>();
      case DType::kUint8: return *v.as<std::uint8_t>();
      case DType::kInt16: return *v.as<std::int16_t>();
      case DType::kUint16: return *v.as<std::uint16_t>();
      case DType::kInt32: return *v.as<std::int32_t>();
      case DType::kUint32: return *v.as<std::uint32_t>();
      case DType::kInt64: return static_cast<double>(*v.as<std::int64_t>());
      case DType::kUint64: return static_cast<double>(*v.as<std::uint64_t>());
      case DType::kFloat64: return *v.as<double>();
      case DType::kBool: return *v.as<std::uint8_t>() != 0 ? 1.0 : 0.0;
      default: return 0;
    }
  }

  // ONNX's inference of node `n` alone, from the static shapes (and small constant values)
  // of its inputs: the element types of its outputs, and the shapes of ops without a
  // kernel. Nothing known where ONNX cannot tell.
  NodeInference infer_with_onnx(const onnx::NodeProto& n) const {
    constexpr std::size_t kMaxValueBytes = 64 * 1024;  // shape-like inputs are small
    std::vector<InferenceInput> inputs;
    for (const std::string& name : n.input()) {
      InferenceInput in;
      auto it = name.empty() ? names_.end() : names_.find(name);
      if (it != names_.end()) {
        const Value& v = g_.value(it->second);
        in = {name, v.dtype, v.shape, v.data != nullptr && v.data->size() <= kMaxValueBytes ? v.data.get() : nullptr};
      }
      inputs.push_back(std::move(in));
    }
    return onnx_infer_node(n, opset_, inputs);
  }

  Status add_node(const onnx::NodeProto& n, int index) {
    const std::string name = n.name().empty() ? fmt::format("{}_{}", n.op_type(), index) : n.name();
    const std::string where = fmt::format("node \"{}\" ({}, opset {})", name, n.op_type(), opset_);
    const bool optimizer = n.op_type() == "Adagrad" || n.op_type() == "Adam" || n.op_type() == "Momentum";
    const bool training_op = n.domain() == kTrainingDomain && optimizer;
    if (optimizer && !training_op) {
      // The kernels of these names are the training domain's ops; ai.onnx has none.
      return Error(err::kParseModel, "{}: {} is an operator of {}, not of domain \"{}\"", where, n.op_type(),
                   kTrainingDomain, n.domain());
    }
    // A node of a domain svp-acl's kernels do not define is a custom operator: kept as it is
    // (op type and attributes), for the application to compute (model/custom_op.h).
    const bool custom = !model::is_standard_onnx_domain(n.domain()) && n.domain() != kTrainingDomain;
    if (!n.domain().empty() && n.domain() != "ai.onnx" && !training_op && !custom) {
      return Error(err::kParseModel,
                   "{}: operators of domain \"{}\" are not supported (only ai.onnx, and the optimizers of {})", where,
                   n.domain(), kTrainingDomain);
    }
    if (n.op_type() == "Constant" && !custom) return add_constant_node(n, where);
    model::Attrs attrs;
    SVP_RETURN_IF_ERROR(convert_attrs(n, where, &attrs));
    if (custom) return add_custom_node(n, where, std::move(attrs));

    Node node;
    SVP_RETURN_IF_ERROR(start_node(n, name, where, std::move(attrs), &node));
    // An empty constant is how exporters spell an absent optional input (Resize's roi and
    // scales, for instance). In an input the op requires it is data: an empty piece of a
    // Concat (a Shape slice of length 0), and an empty operand of Add, which shape inference
    // then refuses (an absent one crashed a fold: found by the bad-input probe).
    for (std::size_t i = kernels::required_inputs(n.op_type()); i < node.inputs.size(); ++i) {
      if (node.inputs[i] == kNoValue) continue;
      const Value& v = g_.value(node.inputs[i]);
      if (v.is_constant() && v.data->empty()) node.inputs[i] = kNoValue;
    }
    SVP_RETURN_IF_ERROR(rewrite_old_semantics(&node, where));
    if (node.op == "Split" && !node.attrs.has("split") && (node.inputs.size() < 2 || node.inputs[1] == kNoValue) &&
        !node.attrs.has("num_outputs")) {
      // Equal parts, one per output: the count the kernels cannot see (opset 18 spells it
      // num_outputs).
      node.attrs.set("num_outputs", static_cast<std::int64_t>(n.output_size()));
    }
    // Shapes and dtypes of the outputs.
    std::vector<Shape> shapes;
    std::vector<const model::TensorView*> consts;
    std::vector<model::TensorView> views(node.inputs.size());
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      if (node.inputs[i] == kNoValue) {
        shapes.emplace_back();
        consts.push_back(nullptr);
        continue;
      }
      const Value& v = g_.value(node.inputs[i]);
      shapes.push_back(v.shape);
      views[i] = v.view();
      consts.push_back(v.is_constant() ? &views[i] : nullptr);
    }
    std::vector<Shape> out_shapes;
    bool known = is_kernel_op(node.op);
    if (node.op == "Shape" && shapes.size() == 1) {
      // Folded below (fold_if_constant): every shape is static here.
      out_shapes = {{static_cast<std::int64_t>(shape_slice(shapes[0], node.attrs).size())}};
      known = true;
    } else if (known) {
      auto inferred = kernels::infer_shapes(node.op, node.attrs, shapes, consts);
      if (!inferred.ok()) return Error(err::kParseModel, "{}: {}", where, inferred.status().message());
      out_shapes = std::move(*inferred);
    }
    // Only now, with the node accepted by the kernels (unknown ops excepted: they fail the
    // compile anyway, and ONNX's shapes let the rest of the model be checked).
    const NodeInference onnx = infer_with_onnx(n);
    // Outputs are positional: an optional output left out ("") before one that is used
    // still takes its slot (LSTM's Y in outputs ["", "Y_h"]), as an internal value nothing
    // reads; trailing left-out outputs are dropped.
    int last_used = -1;
    for (int k = 0; k < n.output_size(); ++k) {
      if (!n.output(k).empty()) last_used = k;
    }
    for (int k = 0; k <= last_used; ++k) {
      const std::string out_name = n.output(k).empty() ? g_.unique_name(fmt::format("{}_unused_output{}", node.name, k))
                                                       : n.output(k);
      const auto uk = static_cast<std::size_t>(k);
      const std::optional<Shape> onnx_shape = uk < onnx.shapes.size() ? onnx.shapes[uk] : std::nullopt;
      Value v;
      v.name = out_name;
      if (known && static_cast<std::size_t>(k) < out_shapes.size()) {
        v.shape = out_shapes[static_cast<std::size_t>(k)];
        // (A rewritten op computes in 2-D; the Reshape after it restores ONNX's shape.)
        // ONNX 1.12's STFT inference takes `onesided` as 0 when the attribute is absent,
        // where its schema (and the backend tests' outputs) default it to 1: the kernel's
        // shape, which follows the schema, stands.
        const bool onnx_wrong = node.op == "STFT" && !node.attrs.has("onesided");
        if (onnx_shape && *onnx_shape != v.shape && !pending_reshape_ && !onnx_wrong) {
          return Error(err::kParseModel, "{}: output \"{}\" has shape {} by svp-acl's kernels but {} by ONNX", where,
                       out_name, shape_text(v.shape), shape_text(*onnx_shape));
        }
      } else if (onnx_shape) {
        v.shape = *onnx_shape;
        if (!known && collecting() && k == 0) {
          problems_.push_back(fmt::format("{}: svp-acl has no kernel for {} (docs/ops.md lists the supported ops)",
                                          where, node.op));
        }
      } else if (!known) {
        return Error(err::kParseModel,
                     "{}: svp-acl has no kernel for {} (docs/ops.md lists the supported ops): replace it in the model, "
                     "or cut the model before it",
                     where, node.op);
      } else {
        return Error(err::kParseModel, "{}: the shape of output \"{}\" is not known statically", where, out_name);
      }
      if (const std::int32_t t = uk < onnx.elem_types.size() ? onnx.elem_types[uk] : 0; t != 0) {
        auto dt = dtype_of(t, fmt::format("{}: output \"{}\"", where, out_name));
        if (!dt.ok()) return dt.status();
        v.dtype = *dt;
      } else {
        v.dtype = node.inputs.empty() || node.inputs[0] == kNoValue ? DType::kFloat32 : g_.value(node.inputs[0]).dtype;
      }
      const ValueId id = g_.add_value(std::move(v));
      if (!n.output(k).empty()) names_[out_name] = id;
      node.outputs.push_back(id);
    }
    if (node.outputs.empty()) return Status::Ok();  // nothing observable
    const NodeId id = g_.add_node(std::move(node));
    return fold_if_constant(id);
  }

  // The node for ONNX node `n`, named `name` (made unique in the graph), with its inputs
  // resolved: an absent ("") input is kNoValue; a name nothing produced is a parse error.
  Status start_node(const onnx::NodeProto& n, const std::string& name, const std::string& where, model::Attrs attrs,
                    Node* node) {
    node->name = g_.unique_name(name);
    node->op = n.op_type();
    node->attrs = std::move(attrs);
    node->origin = Origin{n.name(), opset_};
    for (const std::string& in : n.input()) {
      if (in.empty()) {
        node->inputs.push_back(kNoValue);
        continue;
      }
      auto it = names_.find(in);
      if (it == names_.end()) return Error(err::kParseModel, "{} reads \"{}\", which nothing produces", where, in);
      node->inputs.push_back(it->second);
    }
    return Status::Ok();
  }

  // A custom operator's node: its outputs take the shape the model declares for them
  // (graph outputs, value_info), else input 0's shape and type (an elementwise op, as the
  // vendor's own example's shape_infer); it runs on the CPU.
  Status add_custom_node(const onnx::NodeProto& n, const std::string& where, model::Attrs attrs) {
    if (n.input_size() == 0 || n.input(0).empty() || !names_.count(n.input(0))) {
      return Error(err::kParseModel, "{}: a custom operator (domain \"{}\") needs a first input", where, n.domain());
    }
    attrs.set(model::kCustomOpDomainAttr, n.domain());
    Node node;
    SVP_RETURN_IF_ERROR(start_node(n, n.name().empty() ? n.op_type() : n.name(), where, std::move(attrs), &node));
    node.target = model::Target::kAiCpu;
    node.keep_float = true;  // callbacks compute on float32 (seed 000 §5.5.4.1)
    const Value& first = g_.value(node.inputs[0]);
    for (const std::string& out : n.output()) {
      Value v;
      v.name = out.empty() ? g_.unique_name(node.name + "_unused_output") : out;
      v.shape = first.shape;
      v.dtype = first.dtype;
      if (const auto declared = declared_shape(out)) v.shape = *declared;
      const ValueId id = g_.add_value(std::move(v));
      if (!out.empty()) names_[out] = id;
      node.outputs.push_back(id);
    }
    if (node.outputs.empty()) return Status::Ok();
    g_.add_node(std::move(node));
    return Status::Ok();
  }

  // The static shape the model declares for value `name` (a graph output or value_info).
  std::optional<Shape> declared_shape(const std::string& name) const {
    auto from = [&](const auto& list) -> std::optional<Shape> {
      for (const onnx::ValueInfoProto& vi : list) {
        if (vi.name() != name || !vi.type().tensor_type().has_shape()) continue;
        Shape s;
        for (const auto& d : vi.type().tensor_type().shape().dim()) {
          if (!d.has_dim_value() || d.dim_value() <= 0) return std::nullopt;
          s.push_back(d.dim_value());
        }
        return s;
      }
      return std::nullopt;
    };
    if (auto s = from(m_.graph().output())) return s;
    return from(m_.graph().value_info());
  }

  static bool is_kernel_op(const std::string& op) {
    const auto& ops = kernels::supported_ops();
    return std::find(ops.begin(), ops.end(), op) != ops.end();
  }

  Status add_constant_node(const onnx::NodeProto& n, const std::string& where) {
    if (n.output_size() != 1) return Error(err::kParseModel, "{}: a Constant has one output", where);
    for (const auto& a : n.attribute()) {
      Bytes bytes;
      DType dt = DType::kFloat32;
      Shape dims;
      if (a.name() == "value") {
        auto d = dtype_of(a.t().data_type(), where);
        if (!d.ok()) return d.status();
        dt = *d;
        auto b = tensor_bytes(a.t(), dt, where);
        if (!b.ok()) return b.status();
        bytes = std::move(*b);
        dims.assign(a.t().dims().begin(), a.t().dims().end());
      } else if (a.name() == "value_float" || a.name() == "value_floats") {
        std::vector<float> v = a.name() == "value_float" ? std::vector<float>{a.f()}
                                                          : std::vector<float>(a.floats().begin(), a.floats().end());
        if (a.name() == "value_floats") dims = {static_cast<std::int64_t>(v.size())};
        bytes = to_bytes(v);
      } else if (a.name() == "value_int" || a.name() == "value_ints") {
        std::vector<std::int64_t> v = a.name() == "value_int"
                                          ? std::vector<std::int64_t>{a.i()}
                                          : std::vector<std::int64_t>(a.ints().begin(), a.ints().end());
        if (a.name() == "value_ints") dims = {static_cast<std::int64_t>(v.size())};
        dt = DType::kInt64;
        bytes = to_bytes(v);
      } else {
        return Error(err::kParseModel, "{}: a Constant given as \"{}\" is not supported", where, a.name());
      }
      names_[n.output(0)] = g_.add_constant(n.output(0), dt, dims, std::make_shared<const Bytes>(std::move(bytes)));
      return Status::Ok();
    }
    return Error(err::kParseModel, "{}: a Constant without a value", where);
  }

  // Old-opset ops whose meaning differs from the IR's contract become the current ops.
  Status rewrite_old_semantics(Node* node, const std::string& where) {
    const std::string& op = node->op;
    if ((op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") && opset_ < 13) {
      // Before opset 13 these coerce the input to 2-D at `axis` (default 1) and normalise
      // over everything after it; the same as the current op when axis is the last one.
      if (node->inputs.empty() || node->inputs[0] == kNoValue) {
        return Error(err::kParseModel, "{}: {} needs an input", where, op);
      }
      // Copies: adding values below moves the graph's value storage.
      const Value x = g_.value(node->inputs[0]);
      const auto rank = static_cast<std::int64_t>(x.shape.size());
      auto ax = node->attrs.get_int("axis", 1);
      if (!ax.ok()) return Error(err::kParseModel, "{}: {}", where, ax.status().message());
      std::int64_t axis = *ax;
      if (axis < 0) axis += rank;
      if (axis < 0 || axis > rank) {
        return Error(err::kParseModel, "{}: axis {} is out of range for an input of rank {}", where, *ax, rank);
      }
      if (axis == rank - 1 || rank == 0) {
        node->attrs.set("axis", std::int64_t{-1});
        return Status::Ok();
      }
      // Flatten(axis) → op(axis=-1) → Reshape back.
      Node flat;
      flat.name = g_.unique_name(node->name + "_flatten");
      flat.op = "Flatten";
      flat.attrs.set("axis", axis);
      flat.inputs = {node->inputs[0]};
      flat.origin = node->origin;
      std::int64_t outer = 1, inner = 1;
      for (std::int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= x.shape[static_cast<std::size_t>(i)];
      Value fv;
      fv.name = g_.unique_name(x.name + "_2d");
      fv.dtype = x.dtype;
      fv.shape = {outer, inner};
      const ValueId flat_out = g_.add_value(std::move(fv));
      flat.outputs = {flat_out};
      g_.add_node(std::move(flat));
      node->inputs[0] = flat_out;
      node->attrs.set("axis", std::int64_t{-1});
      pending_reshape_ = x.shape;  // add_node reshapes the op's output back
      return Status::Ok();
    }
    if (op == "Upsample" || (op == "Resize" && opset_ < 11)) {
      // Upsample (scales as attribute before opset 9, input after) and Resize-10 (X,
      // scales) use asymmetric coordinates with floor for nearest: Resize(X, roi, scales).
      ValueId scales = kNoValue;
      if (node->inputs.empty() || node->inputs[0] == kNoValue) {
        return Error(err::kParseModel, "{}: {} needs an input", where, op);
      }
      if (node->inputs.size() >= 2) {
        scales = node->inputs[1];
      } else if (node->attrs.has("scales")) {
        auto s = node->attrs.get_floats("scales", {});
        std::vector<float> f(s->begin(), s->end());
        Bytes b = to_bytes(f);
        scales = g_.add_constant(g_.unique_name(node->name + "_scales"), DType::kFloat32,
                                 {static_cast<std::int64_t>(f.size())}, std::make_shared<const Bytes>(std::move(b)));
      } else {
        return Error(err::kParseModel, "{}: no scales", where);
      }
      std::string mode = "nearest";
      if (auto m = node->attrs.get_string("mode", "nearest"); m.ok()) mode = *m;
      node->op = "Resize";
      node->attrs = model::Attrs{};
      node->attrs.set("mode", mode == "bilinear" ? std::string("linear") : mode);
      node->attrs.set("coordinate_transformation_mode", std::string("asymmetric"));
      node->attrs.set("nearest_mode", std::string("floor"));
      node->inputs = {node->inputs[0], kNoValue, scales};
    }
    return Status::Ok();
  }

  // A node whose inputs are all constants is evaluated now with the reference kernels
  // (Shape of a statically shaped value needs no kernel at all).
  Status fold_if_constant(NodeId id) {
    Node& node = g_.node(id);
    if (pending_reshape_) {
      // The second half of a Softmax-family rewrite: reshape the 2-D result back.
      const Shape back = *pending_reshape_;
      pending_reshape_.reset();
      const ValueId y = node.outputs[0];
      const std::string final_name = g_.value(y).name;
      g_.value(y).name = g_.unique_name(final_name + "_2d");
      Bytes b = to_bytes(back);
      const ValueId shape_c = g_.add_constant(g_.unique_name(final_name + "_shape"), DType::kInt64,
                                              {static_cast<std::int64_t>(back.size())},
                                              std::make_shared<const Bytes>(std::move(b)));
      Value out;
      out.name = final_name;
      out.dtype = g_.value(y).dtype;
      out.shape = back;
      const ValueId z = g_.add_value(std::move(out));
      Node r;
      r.name = g_.unique_name(g_.node(id).name + "_reshape");
      r.op = "Reshape";
      r.inputs = {y, shape_c};
      r.outputs = {z};
      r.origin = g_.node(id).origin;
      g_.add_node(std::move(r));
      names_[final_name] = z;
      return Status::Ok();
    }
    if (node.op == "Shape" && node.inputs.size() == 1 && node.inputs[0] != kNoValue) {
      const Shape part = shape_slice(g_.value(node.inputs[0]).shape, node.attrs);
      Bytes bytes = to_bytes(part);
      return replace_with_constant(id, {std::move(bytes)});
    }
    if (!is_kernel_op(node.op)) return Status::Ok();
    std::vector<model::TensorView> in;
    for (ValueId v : node.inputs) {
      if (v == kNoValue) {
        in.emplace_back();
        continue;
      }
      if (!g_.value(v).is_constant()) return Status::Ok();
      in.push_back(g_.value(v).view());
    }
    if (in.empty()) return Status::Ok();
    std::vector<kernels::OutputSpec> specs;
    for (ValueId o : node.outputs) {
      SVP_RETURN_IF_ERROR(check_foldable_size(id, g_.value(o)));
      specs.push_back({g_.value(o).dtype, std::nullopt});
    }
    auto run = [&]() -> decltype(kernels::run_reference_owned(node.op, node.attrs, in, specs)) {
      try {
        return kernels::run_reference_owned(node.op, node.attrs, in, specs);
      } catch (const std::bad_alloc&) {
        return Error(err::kParseModel, "{}: folding constants: out of host memory", g_.describe(id));
      }
    };
    auto r = run();
    if (!r.ok()) return Error(err::kParseModel, "{}: folding constants: {}", g_.describe(id), r.status().message());
    std::vector<Bytes> outs;
    for (const auto& t : *r) {
      const auto* p = static_cast<const std::uint8_t*>(t.view().data);
      outs.emplace_back(p, p + t.view().bytes());
    }
    return replace_with_constant(id, std::move(outs));
  }

  // Folding allocates the node's outputs in the compiler: a few bytes of ONNX (a
  // ConstantOfShape or OneHot of a huge shape) must not claim more than a real model's
  // constants take (an uncaught bad_alloc aborted svp_atc: found by the bad-input probe).
  Status check_foldable_size(NodeId id, const Value& out) const {
    std::uint64_t bytes = model::dtype_size(out.dtype);
    for (std::int64_t d : out.shape) {
      if (d == 0) return Status::Ok();
      if (bytes > kMaxFoldedBytes / static_cast<std::uint64_t>(d)) bytes = kMaxFoldedBytes + 1;
      else bytes *= static_cast<std::uint64_t>(d);
    }
    if (bytes <= kMaxFoldedBytes) return Status::Ok();
    return Error(err::kParseModel,
                 "{}: its inputs are constants, but its output \"{}\" of shape {} would take more than {} MiB, the "
                 "most a folded constant may take (docs/compiler.md); check the shape or size inputs that feed it",
                 g_.describe(id), out.name, shape_text(out.shape), kMaxFoldedBytes >> 20);
  }

  Status replace_with_constant(NodeId id, std::vector<Bytes> outs) {
    const std::vector<ValueId> outputs = g_.node(id).outputs;
    g_.remove_node(id);
    for (std::size_t k = 0; k < outputs.size() && k < outs.size(); ++k) {
      g_.value(outputs[k]).data = std::make_shared<const Bytes>(std::move(outs[k]));
    }
    ++folded_;
    return Status::Ok();
  }

  Status add_outputs() {
    if (!opt_.out_nodes.empty()) {
      for (const auto& [node_name, index] : opt_.out_nodes) {
        const onnx::NodeProto* found = nullptr;
        for (const auto& n : m_.graph().node()) {
          if (n.name() == node_name) found = &n;
        }
        if (found == nullptr || index < 0 || index >= found->output_size()) {
          return Error(err::kInvalidParam, "--out_nodes: the model has no node \"{}\" with an output {}", node_name,
                       index);
        }
        SVP_RETURN_IF_ERROR(add_output(found->output(index)));
      }
      return Status::Ok();
    }
    for (const auto& o : m_.graph().output()) SVP_RETURN_IF_ERROR(add_output(o.name()));
    return Status::Ok();
  }

  Status add_output(const std::string& name) {
    auto it = names_.find(name);
    if (it == names_.end()) return Error(err::kParseModel, "model output \"{}\" is produced by no node", name);
    ValueId out = it->second;
    if (g_.value(out).is_constant()) {
      // A folded output (Shape or Size of a static shape, an op of constants only): an
      // Identity layer copies it into the output buffer at every execution.
      Value v;
      v.name = name;
      v.dtype = g_.value(out).dtype;
      v.shape = g_.value(out).shape;
      g_.value(out).name = g_.unique_name(name + "_const");
      const ValueId copy = g_.add_value(std::move(v));
      Node n;
      n.name = g_.unique_name(name + "_copy");
      n.op = "Identity";
      n.inputs = {out};
      n.outputs = {copy};
      g_.add_node(std::move(n));
      out = copy;
    }
    if (g_.value(out).shape.empty()) {
      // Model outputs are at least 1-D (the vendor's I/O rule): a scalar leaves as [1].
      Value v;
      v.name = name;
      v.dtype = g_.value(out).dtype;
      v.shape = {1};
      g_.value(out).name = g_.unique_name(name + "_scalar");
      const ValueId wrapped = g_.add_value(std::move(v));
      Node n;
      n.name = g_.unique_name(name + "_to_1d");
      n.op = "Unsqueeze";
      n.attrs.set("axes", std::vector<std::int64_t>{0});
      n.inputs = {out};
      n.outputs = {wrapped};
      g_.add_node(std::move(n));
      out = wrapped;
    }
    g_.outputs.push_back(out);
    return Status::Ok();
  }

  // A scalar model input arrives as [1] (model inputs are at least 1-D); the graph reads
  // the scalar a Squeeze makes of it.
  ValueId squeeze_scalar(ValueId input) {
    Value v;
    v.name = g_.unique_name(g_.value(input).name + "_scalar");
    v.dtype = g_.value(input).dtype;
    const ValueId scalar = g_.add_value(std::move(v));
    Node n;
    n.name = g_.unique_name(g_.value(input).name + "_to_scalar");
    n.op = "Squeeze";
    n.attrs.set("axes", std::vector<std::int64_t>{0});
    n.inputs = {input};
    n.outputs = {scalar};
    g_.add_node(std::move(n));
    return scalar;
  }

  void eliminate_dead_nodes() {
    std::set<ValueId> live(g_.outputs.begin(), g_.outputs.end());
    auto order = g_.live_nodes();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const Node& n = g_.node(*it);
      bool used = false;
      for (ValueId o : n.outputs) used = used || live.count(o);
      if (!used) {
        g_.remove_node(*it);
        continue;
      }
      for (ValueId i : n.inputs) {
        if (i != kNoValue) live.insert(i);
      }
    }
  }

  onnx::ModelProto m_;
  const CompileOptions& opt_;
  Graph g_;
  std::int64_t opset_ = 0;
  std::unordered_map<std::string, ValueId> names_;
  std::optional<Shape> pending_reshape_;
  std::vector<std::string> problems_;  // pre-check only
  std::set<std::string> poisoned_;     // pre-check: outputs of failed nodes
  std::size_t unchecked_ = 0;
  int folded_ = 0;
};

// The folder external data is read from: the model file's, "." for a bare file name
// (--model=m.onnx reads m.onnx.data beside it, as ./m.onnx does).
std::string model_dir(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? std::string(".") : dir;
}

Status too_big(std::uint64_t size) {
  return Error(err::kParseModel, "the model is {} bytes; ONNX files of 2 GiB or more must keep their weights as "
               "external data", size);
}
Status not_onnx() {
  return Error(err::kParseModel, "not an ONNX model (the file does not parse as an onnx.ModelProto)");
}

}  // namespace

Result<Graph> import_onnx_bytes(const std::string& bytes, const std::string& base_dir, const CompileOptions& options) {
  if (bytes.size() >= kMaxModelBytes) return too_big(bytes.size());
  onnx::ModelProto m;
  if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) || !m.has_graph()) return not_onnx();
  return Importer(std::move(m), options).run(base_dir);
}

OnnxFile::OnnxFile(std::string path, std::unique_ptr<onnx::ModelProto> model)
    : path_(std::move(path)), model_(std::move(model)) {}
OnnxFile::OnnxFile(OnnxFile&&) noexcept = default;
OnnxFile& OnnxFile::operator=(OnnxFile&&) noexcept = default;
OnnxFile::~OnnxFile() = default;

Result<OnnxFile> OnnxFile::read(const std::string& path) {
  // Parsed straight from the file: no copy of its bytes beside the parsed model (the
  // compiler's peak memory is a figure of the issue).
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return Error(err::kInvalidParam, "cannot read the model file \"{}\"", path);
  const auto size = static_cast<std::uint64_t>(in.tellg());
  in.seekg(0);
  auto fail = [&](const Status& s) { return Status(s.code(), path + ": " + s.message()); };
  if (size >= kMaxModelBytes) return fail(too_big(size));
  auto m = std::make_unique<onnx::ModelProto>();
  if (!m->ParseFromIstream(&in) || !m->has_graph()) return fail(not_onnx());
  return OnnxFile(path, std::move(m));
}

Result<Graph> OnnxFile::import(const CompileOptions& options) const {
  if (!model_) return Error(err::kInternalError, "{}: the parsed model was already taken", path_);
  auto g = Importer(*model_, options).run(model_dir(path_));
  if (!g.ok()) return Status(g.status().code(), path_ + ": " + g.status().message());
  return g;
}

std::vector<std::string> OnnxFile::input_names() const {
  std::vector<std::string> names;
  if (!model_) return names;
  std::set<std::string> constants;
  for (const auto& t : model_->graph().initializer()) constants.insert(t.name());
  for (const auto& vi : model_->graph().input()) {
    if (constants.count(vi.name()) == 0) names.push_back(vi.name());
  }
  return names;
}

std::vector<std::vector<std::int64_t>> OnnxFile::input_dims() const {
  std::vector<std::vector<std::int64_t>> dims;
  if (!model_) return dims;
  std::set<std::string> constants;
  for (const auto& t : model_->graph().initializer()) constants.insert(t.name());
  for (const auto& vi : model_->graph().input()) {
    if (constants.count(vi.name()) != 0) continue;
    std::vector<std::int64_t> d;
    if (vi.type().has_tensor_type() && vi.type().tensor_type().has_shape()) {
      for (const auto& dim : vi.type().tensor_type().shape().dim()) d.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
    }
    dims.push_back(std::move(d));
  }
  return dims;
}

Result<Graph> OnnxFile::take(const CompileOptions& options) && {
  if (!model_) return Error(err::kInternalError, "{}: the parsed model was already taken", path_);
  auto model = std::move(model_);
  auto g = Importer(std::move(*model), options).run(model_dir(path_));
  if (!g.ok()) return Status(g.status().code(), path_ + ": " + g.status().message());
  return g;
}

Result<Graph> import_onnx(const std::string& path, const CompileOptions& options) {
  auto file = OnnxFile::read(path);
  if (!file.ok()) return file.status();
  return std::move(*file).take(options);
}

}  // namespace svp::compiler
