#include "compiler/quantize/calibration_data.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "common/npy.h"
#include "common/read_file.h"
#include "compiler/quantize/image_calibration.h"
#include "model/aipp/model_config.h"
#include "kernels/kernels.h"

namespace svp::compiler::quant {
namespace {

namespace fs = std::filesystem;
using model::DType;

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::string lower_ext(const std::string& line) {
  std::string e = fs::path(line).extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e;
}

// Element `i` of a little-endian .npy payload of type `descr`, as a double.
bool npy_value(const npy::Array& a, std::size_t i, double* v) {
  const std::uint8_t* p = a.data.data();
  auto get = [&](auto tag) {
    decltype(tag) x;
    std::memcpy(&x, p + i * sizeof x, sizeof x);
    *v = static_cast<double>(x);
    return true;
  };
  const std::string d = a.descr.substr(1);
  if (d == "f4") return get(float{});
  if (d == "f8") return get(double{});
  if (d == "i1") return get(std::int8_t{});
  if (d == "u1" || d == "b1") return get(std::uint8_t{});
  if (d == "i2") return get(std::int16_t{});
  if (d == "u2") return get(std::uint16_t{});
  if (d == "i4") return get(std::int32_t{});
  if (d == "u4") return get(std::uint32_t{});
  if (d == "i8") return get(std::int64_t{});
  if (d == "u8") return get(std::uint64_t{});
  return false;
}

// A FIFO, device or directory named as calibration data: opening a FIFO blocks until a
// writer comes (svp_atc waited forever: found by the bad-input probe). A path that does
// not exist is left to the reader, whose message says it cannot be read.
Status not_special(const fs::path& p, const std::string& where) {
  std::error_code ec;
  const fs::file_status st = fs::status(p, ec);
  if (ec || !fs::exists(st) || fs::is_regular_file(st)) return Status::Ok();
  return Error(err::kInvalidParam, "{}: \"{}\" is not a regular file ({}); calibration items and lists must be files",
               where, p.string(),
               fs::is_fifo(st) ? "a FIFO" : fs::is_directory(st) ? "a directory" : "a device or socket");
}

class Reader {
 public:
  Reader(const Value& input, fs::path list, std::string aipp_json)
      : in_(input), list_(std::move(list)), aipp_json_(std::move(aipp_json)) {
    item_dims_ = in_.shape;
    if (!item_dims_.empty()) item_dims_[0] = 1;
    for (std::int64_t d : item_dims_) item_elems_ *= d;
  }

  std::int64_t item_elems() const { return item_elems_; }

  // Fills item `item` of `batch` (shape = the input's) from `line`.
  Status read(const std::string& line, std::size_t line_no, model::TensorView& batch, std::int64_t item) {
    const std::string where = fmt::format("{}, item {}", list_.string(), line_no);
    const std::string ext = lower_ext(line);
    const std::int64_t base = item * item_elems_;
    if (!ext.empty()) SVP_RETURN_IF_ERROR(not_special(resolve(line), where));
    if (ext == ".jpg" || ext == ".jpeg" || ext == ".jpe" || ext == ".png" || ext == ".bmp" || ext == ".jp2") {
      return read_image(resolve(line), where, batch, item);
    }
    if (ext == ".yuv") {
      return Error(err::kFeatureUnsupported,
                   "{}: \"{}\" is a raw YUV frame, which svp_atc does not read as calibration data; give a JPEG or "
                   "PNG image (for an input with AIPP) or the model input as .npy/.bin",
                   where, line);
    }
    if (ext == ".npy" || ext == ".bin") {
      const fs::path p = resolve(line);
      std::vector<std::uint8_t> bytes;
      if (!svp::read_file_bytes(p.string(), &bytes)) return Error(err::kInvalidParam, "{}: cannot read \"{}\"", where, p.string());
      if (ext == ".bin") {
        const std::size_t want = static_cast<std::size_t>(item_elems_) * model::dtype_size(in_.dtype);
        if (bytes.size() != want) {
          return Error(err::kInvalidParam, "{}: \"{}\" has {} bytes; one item of input \"{}\" ({} {}) is {} bytes",
                       where, p.string(), bytes.size(), in_.name, model::dtype_name(in_.dtype),
                       fmt::format("[{}]", fmt::join(item_dims_, ",")), want);
        }
        if (in_.dtype == DType::kFloat32) {
          std::vector<float> values(bytes.size() / sizeof(float));
          std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
          SVP_RETURN_IF_ERROR(check_finite(values, where));
        }
        std::memcpy(static_cast<std::uint8_t*>(batch.data) + static_cast<std::size_t>(base) * model::dtype_size(in_.dtype),
                    bytes.data(), bytes.size());
        return Status::Ok();
      }
      npy::Array a;
      std::string error;
      if (!npy::parse(bytes.data(), bytes.size(), a, error)) {
        return Error(err::kInvalidParam, "{}: \"{}\": {}", where, p.string(), error);
      }
      std::int64_t n = 1;
      for (std::int64_t d : a.shape) n *= d;
      if (n != item_elems_) {
        return Error(err::kInvalidParam, "{}: \"{}\" holds {} values; one item of input \"{}\" ([{}]) takes {}", where,
                     p.string(), n, in_.name, fmt::join(item_dims_, ","), item_elems_);
      }
      std::vector<float> values(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) {
        double v = 0;
        if (!npy_value(a, static_cast<std::size_t>(i), &v)) {
          return Error(err::kInvalidParam, "{}: \"{}\" has dtype '{}', not a number type", where, p.string(), a.descr);
        }
        values[static_cast<std::size_t>(i)] = static_cast<float>(v);
      }
      return put(values, batch, item, where);
    }
    // The numbers themselves.
    std::string text = line;
    std::replace(text.begin(), text.end(), ',', ' ');
    std::istringstream ss(text);
    std::int64_t i = 0;
    std::string tok;
    std::vector<float> values(static_cast<std::size_t>(item_elems_));
    while (ss >> tok) {
      char* end = nullptr;
      const double v = std::strtod(tok.c_str(), &end);
      if (end == tok.c_str() || *end != '\0') {
        return Error(err::kInvalidParam,
                     "{}: \"{}\" is neither a number nor a .npy/.bin file (one item per line: a file or its values)",
                     where, tok);
      }
      if (i < item_elems_) values[static_cast<std::size_t>(i)] = static_cast<float>(v);
      ++i;
    }
    if (i != item_elems_) {
      return Error(err::kInvalidParam, "{}: {} numbers; one item of input \"{}\" ([{}]) takes {}", where, i, in_.name,
                   fmt::join(item_dims_, ","), item_elems_);
    }
    return put(values, batch, item, where);
  }

 private:
  // An image through the input's static AIPP (what the NPU will do with a camera frame).
  Status read_image(const fs::path& p, const std::string& where, model::TensorView& batch, std::int64_t item) {
    if (aipp_json_.empty()) {
      return Error(err::kInvalidParam,
                   "{}: \"{}\" is an image, but input \"{}\" has no AIPP: images are calibration data only for "
                   "inputs that --insert_op_conf gives a static AIPP (which says how pixels become the input); "
                   "give this input's items as .npy, .bin or numbers",
                   where, p.string(), in_.name);
    }
    auto a = aipp::parse_model_aipp(aipp_json_);
    if (!a.ok()) return Error(err::kInvalidParam, "{}: {}", where, a.status().message());
    if (a->mode != aipp::ModelAipp::Mode::kStatic) {
      return Error(err::kInvalidParam,
                   "{}: \"{}\" is an image, but input \"{}\" has dynamic AIPP, whose parameters come at run time: "
                   "give its items as the model input (.npy or .bin)",
                   where, p.string(), in_.name);
    }
    if (in_.dtype != DType::kFloat32) {
      return Error(err::kInvalidParam, "{}: images need a float32 model input; \"{}\" is {}", where, in_.name,
                   model::dtype_name(in_.dtype));
    }
    auto image = decode_image(p.string());
    if (!image.ok()) return Error(image.status().code(), "{}: {}", where, image.status().message());
    std::vector<float> values(static_cast<std::size_t>(item_elems_));
    model::TensorView one;
    one.dtype = DType::kFloat32;
    one.dims = item_dims_;
    one.data = values.data();
    const Status s = image_to_input(*image, *a, model::Layout::kNCHW, one);
    if (!s.ok()) return Error(s.code(), "{}: \"{}\" through the AIPP of input \"{}\": {}", where, p.string(), in_.name, s.message());
    return put(values, batch, item, where);
  }

  // Stores one item's values into `batch`, converted to the input's type by the Cast
  // kernel (the one definition of conversions: saturating, truncating toward zero).
  Status put(const std::vector<float>& values, model::TensorView& batch, std::int64_t item,
             const std::string& where) const {
    SVP_RETURN_IF_ERROR(check_finite(values, where));
    model::TensorView out;
    out.dtype = in_.dtype;
    out.dims = item_dims_;
    out.data = static_cast<std::uint8_t*>(batch.data) +
               static_cast<std::size_t>(item * item_elems_) * model::dtype_size(in_.dtype);
    if (in_.dtype == DType::kFloat32) {
      std::memcpy(out.data, values.data(), values.size() * sizeof(float));
      return Status::Ok();
    }
    model::TensorView x;
    x.dims = item_dims_;
    x.data = const_cast<float*>(values.data());  // NOLINT(cppcoreguidelines-pro-type-const-cast): read only
    const Status s = kernels::run_reference("Cast", model::Attrs{}, {x}, {out});
    if (!s.ok()) return Error(err::kInvalidParam, "{}: {}", where, s.message());
    return Status::Ok();
  }

  // A NaN or infinity would become the calibration range and every int8 output garbage,
  // silently (found by the bad-input probe): refused, naming the item and the input.
  Status check_finite(const std::vector<float>& values, const std::string& where) const {
    const auto bad = std::find_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); });
    if (bad == values.end()) return Status::Ok();
    return Error(err::kInvalidParam,
                 "{}: value {} of the item for input \"{}\" is {}; calibration data must be finite (check how the "
                 "item was made)",
                 where, bad - values.begin(), in_.name, std::isnan(*bad) ? "NaN" : "infinite");
  }

  fs::path resolve(const std::string& line) const {
    const fs::path p(line);
    if (p.is_absolute()) return p;
    std::error_code ec;
    const fs::path beside = list_.parent_path() / p;
    return fs::exists(beside, ec) ? beside : p;
  }

  const Value& in_;
  fs::path list_;
  std::string aipp_json_;  // the input's AIPP configuration (model JSON), "" = none
  std::vector<std::int64_t> item_dims_;
  std::int64_t item_elems_ = 1;
};

}  // namespace

Result<CalibrationSet> load_calibration_data(const Graph& g, const std::string& image_list, std::size_t max_batches) {
  if (trim(image_list).empty()) {
    return Error(err::kInvalidParam, "--image_list is empty: give \"input:list.txt\" with one calibration item per line");
  }
  // input index → list file
  std::vector<fs::path> lists(g.inputs.size());
  std::stringstream all(image_list);
  std::string entry;
  while (std::getline(all, entry, ';')) {
    entry = trim(entry);
    if (entry.empty()) continue;
    // "name:list.txt". Input names may hold colons themselves (torch exports "onnx::Flatten_0"),
    // so the separator is the first colon whose prefix names an input, else the first colon.
    auto colon = entry.find(':');
    for (auto c = colon; c != std::string::npos; c = entry.find(':', c + 1)) {
      const std::string prefix = trim(entry.substr(0, c));
      if (std::any_of(g.inputs.begin(), g.inputs.end(), [&](ValueId v) { return g.value(v).name == prefix; })) {
        colon = c;
        break;
      }
    }
    std::string name = colon == std::string::npos ? std::string() : trim(entry.substr(0, colon));
    const std::string file = colon == std::string::npos ? entry : trim(entry.substr(colon + 1));
    std::size_t slot = g.inputs.size();
    if (name.empty() && g.inputs.size() == 1) slot = 0;
    for (std::size_t i = 0; i < g.inputs.size() && !name.empty(); ++i) {
      if (g.value(g.inputs[i]).name == name) slot = i;
    }
    if (slot == g.inputs.size()) {
      std::string names;
      for (ValueId v : g.inputs) names += (names.empty() ? "" : ", ") + g.value(v).name;
      return Error(err::kInvalidParam, "--image_list: \"{}\" names no input of the model (inputs: {})",
                   name.empty() ? entry : name, names);
    }
    lists[slot] = file;
  }
  CalibrationSet set;
  std::vector<std::vector<std::string>> lines(g.inputs.size());
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    const Value& v = g.value(g.inputs[i]);
    if (lists[i].empty()) {
      return Error(err::kInvalidParam, "--image_list gives no calibration list for input \"{}\"", v.name);
    }
    SVP_RETURN_IF_ERROR(not_special(lists[i], "--image_list"));
    std::ifstream in(lists[i]);
    if (!in) return Error(err::kInvalidParam, "--image_list: cannot read \"{}\"", lists[i].string());
    std::string line;
    while (std::getline(in, line)) {
      line = trim(line);
      if (!line.empty() && line[0] != '#') lines[i].push_back(line);
    }
    if (lines[i].empty()) return Error(err::kInvalidParam, "--image_list: \"{}\" has no items", lists[i].string());
    if (i > 0 && lines[i].size() != lines[0].size()) {
      return Error(err::kInvalidParam, "--image_list: \"{}\" has {} items but \"{}\" has {}: every input needs one item "
                   "per calibration sample", lists[i].string(), lines[i].size(), lists[0].string(), lines[0].size());
    }
  }
  const Value& first = g.value(g.inputs[0]);
  const std::size_t batch = first.shape.empty() ? 1 : static_cast<std::size_t>(first.shape[0]);
  set.items = lines[0].size();
  if (set.items % batch != 0) {
    return Error(err::kInvalidParam,
                 "--image_list: {} items do not make whole batches of {} (the inputs' first dimension): add {} more "
                 "or remove {}",
                 set.items, batch, batch - set.items % batch, set.items % batch);
  }
  std::size_t batches = set.items / batch;
  if (max_batches > 0) batches = std::min(batches, max_batches);
  for (std::size_t b = 0; b < batches; ++b) {
    std::vector<kernels::OwnedTensor> inputs;
    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
      const Value& v = g.value(g.inputs[i]);
      Reader reader(v, lists[i], i < g.input_aipp.size() ? g.input_aipp[i] : std::string());
      kernels::OwnedTensor t(v.dtype, v.shape);
      for (std::size_t k = 0; k < batch; ++k) {
        const std::size_t line_index = b * batch + k;
        SVP_RETURN_IF_ERROR(reader.read(lines[i][line_index], line_index + 1, t.view(), static_cast<std::int64_t>(k)));
      }
      inputs.push_back(std::move(t));
    }
    set.batches.push_back(std::move(inputs));
  }
  return set;
}

}  // namespace svp::compiler::quant
