#include "svp_run/runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "acl/svp_acl.h"
#include "acl/svp_acl_ext.h"
#include "acl/svp_acl_mdl.h"
#include "acl/svp_acl_rt.h"
#include "svp_prof/app.h"
#include "svp_run/aipp_input.h"
#include "svp_run/data_types.h"
#include "svp_run/model_name.h"
#include "common/npy.h"
#include "common/read_file.h"
#include "svp_run/statistics.h"

namespace svp::run {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// Every error path throws one of these; run() turns it into the message and exit code.
struct Failure {
  int code;
  std::string message;
};

[[noreturn]] void fail(int code, std::string message) { throw Failure{code, std::move(message)}; }

void check(svp_acl_error e, const std::string& what) {
  if (e != SVP_ACL_SUCCESS) {
    fail(e == SVP_ACL_ERROR_FEATURE_UNSUPPORTED ? kExitUnsupported : kExitRuntime,
         what + " failed with error " + std::to_string(e) + ": " + svp_acl_get_recent_err_msg());
  }
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// One model input or output as the description reports it (after the gear is selected).
struct Io {
  std::string name;
  svp_acl_data_type dtype = SVP_ACL_FLOAT;
  std::vector<std::int64_t> dims;
  std::size_t row_bytes = 0, rows = 0, stride = 0, size = 0;
  // An AIPP input's file is the raw source image: "static AIPP" / "dynamic AIPP", and the
  // source layout that sizes it (not the tensor's dims).
  std::string aipp;
  SourceLayout source;
  std::size_t dense() const { return row_bytes * rows; }
  std::string describe() const {
    std::string s = "'" + name + "' [";
    for (std::size_t k = 0; k < dims.size(); ++k) s += (k ? "," : "") + std::to_string(dims[k]);
    s += "] " + std::string(dtype_name(dtype));
    if (!aipp.empty()) s += " with " + aipp + ", source image " + source.describe() + " per batch image";
    return s;
  }
};

Io describe_io(svp_acl_mdl_desc* d, std::size_t i, bool input) {
  Io io;
  svp_acl_mdl_io_dims dims{};
  check(input ? svp_acl_mdl_get_input_dims(d, i, &dims) : svp_acl_mdl_get_output_dims(d, i, &dims),
        "svp_acl_mdl_get_" + std::string(input ? "input" : "output") + "_dims");
  io.name = input ? svp_acl_mdl_get_input_name_by_index(d, i) : svp_acl_mdl_get_output_name_by_index(d, i);
  io.dtype = input ? svp_acl_mdl_get_input_data_type(d, i) : svp_acl_mdl_get_output_data_type(d, i);
  io.dims.assign(dims.dims, dims.dims + dims.dim_count);
  const std::size_t elem = svp_acl_data_type_size(io.dtype) / 8;
  io.row_bytes = dims.dim_count ? static_cast<std::size_t>(dims.dims[dims.dim_count - 1]) * elem : elem;
  io.rows = 1;
  for (std::size_t k = 0; k + 1 < dims.dim_count; ++k) io.rows *= static_cast<std::size_t>(dims.dims[k]);
  io.stride = input ? svp_acl_mdl_get_input_default_stride(d, i) : svp_acl_mdl_get_output_default_stride(d, i);
  io.size = input ? svp_acl_mdl_get_input_size_by_index(d, i) : svp_acl_mdl_get_output_size_by_index(d, i);
  return io;
}

std::vector<std::uint8_t> read_file(const fs::path& p) {
  std::vector<std::uint8_t> bytes;
  if (!svp::read_file_bytes(p.string(), &bytes)) fail(kExitBadInput, "cannot read input file " + p.string());
  return bytes;
}

// A .bin file's bytes or an .npy file's data.
std::vector<std::uint8_t> load_data(const fs::path& p) {
  std::vector<std::uint8_t> bytes = read_file(p);
  if (p.extension() != ".npy") return bytes;
  npy::Array a;
  std::string error;
  if (!npy::parse(bytes.data(), bytes.size(), a, error)) fail(kExitBadInput, p.string() + ": " + error);
  return std::move(a.data);
}

// NumPy's dims as "(1, 4, 5, 3)" and ours as "[1,3,4,5]", for messages.
std::string shape_text(const std::vector<std::int64_t>& d) {
  std::string s = "(";
  for (std::size_t k = 0; k < d.size(); ++k) s += (k ? ", " : "") + std::to_string(d[k]);
  return s + (d.size() == 1 ? ",)" : ")");
}

// An input file's data. An .npy header must agree with the input (docs/svp_run.md): the
// dtype exactly (byte order aside), and the shape either the input's dims with any first
// (batch) dimension — the byte count then decides — or the dims with leading dimensions of 1
// left out or added ((28, 28) for [1,1,28,28]). AIPP inputs take uint8 arrays of any shape (a frame as (H·1.5, W) or
// (H, W, 3)); their byte count is checked against the source layout by the caller.
std::vector<std::uint8_t> load_input(const fs::path& p, const Io& io, std::size_t index) {
  std::vector<std::uint8_t> bytes = read_file(p);
  if (p.extension() != ".npy") return bytes;
  npy::Array a;
  std::string error;
  if (!npy::parse(bytes.data(), bytes.size(), a, error)) fail(kExitBadInput, p.string() + ": " + error);
  auto type_of = [](const std::string& d) { return d.size() > 1 && (d[0] == '<' || d[0] == '|' || d[0] == '=') ? d.substr(1) : d; };
  const std::string want = io.aipp.empty() ? npy_descr(io.dtype) : "|u1";
  const std::string prefix = p.string() + " is an .npy array of dtype '" + a.descr + "' shape " + shape_text(a.shape) +
                             " but input " + std::to_string(index) + " " + io.describe();
  if (type_of(a.descr) != type_of(want)) {
    fail(kExitBadInput, prefix + " takes '" + want + "' elements; convert it (e.g. numpy's astype) instead of feeding " +
                            "its bytes as another type");
  }
  const bool known = !io.dims.empty() &&
                     std::all_of(io.dims.begin(), io.dims.end(), [](std::int64_t d) { return d > 0; });
  if (io.aipp.empty() && known) {
    const std::vector<std::int64_t> tail(io.dims.begin() + 1, io.dims.end());
    const bool same_rank = a.shape.size() == io.dims.size() && std::equal(tail.begin(), tail.end(), a.shape.begin() + 1);
    auto squeezed = [](const std::vector<std::int64_t>& d) {
      std::size_t k = 0;
      while (k < d.size() && d[k] == 1) ++k;
      return std::vector<std::int64_t>(d.begin() + static_cast<std::ptrdiff_t>(k), d.end());
    };
    if (!same_rank && a.shape != tail && squeezed(a.shape) != squeezed(io.dims)) {
      fail(kExitBadInput, prefix + " has the shape " + shape_text(io.dims) +
                              " (any batch size, or without leading dimensions of 1); an NHWC array for an NCHW " +
                              "input needs a transpose, not a reshape");
    }
  }
  return std::move(a.data);
}

void write_file(const fs::path& p, const void* data, std::size_t size) {
  std::ofstream f(p, std::ios::binary);
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!f) fail(kExitCannotWrite, "cannot write " + p.string());
}

// Owns everything the run creates through the C API and releases it in reverse order.
class Session {
 public:
  ~Session() { close(); }
  // Releases everything (idempotent); svp_acl_finalize ends an acl.json profiling session.
  void close() {
    for (void* p : memory) svp_acl_rt_free(p);
    for (svp_acl_data_buffer* b : buffers) svp_acl_destroy_data_buffer(b);
    for (svp_acl_mdl_dataset* d : datasets) svp_acl_mdl_destroy_dataset(d);
    if (aipp) svp_acl_mdl_destroy_aipp(aipp);
    aipp = nullptr;
    if (desc) svp_acl_mdl_destroy_desc(desc);
    if (loaded) svp_acl_mdl_unload(model_id);
    for (svp_acl_rt_stream s : streams) svp_acl_rt_destroy_stream(s);
    if (device_set) svp_acl_rt_reset_device(device);
    if (initialised) svp_acl_finalize();
    memory.clear();
    buffers.clear();
    datasets.clear();
    streams.clear();
    desc = nullptr;
    loaded = device_set = initialised = false;
  }
  svp_acl_mdl_dataset* dataset() {
    datasets.push_back(svp_acl_mdl_create_dataset());
    if (!datasets.back()) fail(kExitRuntime, "svp_acl_mdl_create_dataset: out of memory");
    return datasets.back();
  }
  void add(svp_acl_mdl_dataset* ds, std::size_t size, std::size_t stride) {
    void* p = nullptr;
    check(svp_acl_rt_malloc(&p, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY), "svp_acl_rt_malloc(" + std::to_string(size) + ")");
    memory.push_back(p);
    std::memset(p, 0, size);
    buffers.push_back(svp_acl_create_data_buffer(p, size, stride));
    check(svp_acl_mdl_add_dataset_buffer(ds, buffers.back()), "svp_acl_mdl_add_dataset_buffer");
  }

  bool initialised = false, device_set = false, loaded = false;
  std::int32_t device = 0;
  std::uint32_t model_id = 0;
  svp_acl_mdl_desc* desc = nullptr;
  svp_acl_mdl_aipp* aipp = nullptr;  // --aipp_config's parameters
  std::vector<svp_acl_rt_stream> streams;
  std::vector<svp_acl_mdl_dataset*> datasets;
  std::vector<svp_acl_data_buffer*> buffers;
  std::vector<void*> memory;
};

// Copies dense rows into a strided buffer (in) or back (out).
void copy_rows(svp_acl_data_buffer* b, const Io& io, std::size_t items, std::uint8_t* dense, bool in) {
  std::uint8_t* base = static_cast<std::uint8_t*>(svp_acl_get_data_buffer_addr(b));
  const std::size_t stride = svp_acl_get_data_buffer_stride(b);
  for (std::size_t r = 0; r < io.rows * items; ++r) {
    if (in) std::memcpy(base + r * stride, dense + r * io.row_bytes, io.row_bytes);
    else std::memcpy(dense + r * io.row_bytes, base + r * stride, io.row_bytes);
  }
}

// An AIPP input reads its file as `src` images (one per batch image): the dims describe the
// source as a tensor ([N,3,H,W] for YUV420SP, whose buffer holds 1.5·H rows), so the rows
// and row bytes come from the format instead.
void apply_source(Io& io, std::size_t index, const SourceLayout& src, const std::string& kind) {
  io.aipp = kind;
  io.source = src;
  const std::size_t images = io.dims.empty() || io.dims[0] <= 0 ? 1 : static_cast<std::size_t>(io.dims[0]);
  io.row_bytes = src.row_bytes;
  io.rows = images * src.rows;
  if (io.row_bytes > io.stride || io.rows * io.stride > io.size) {
    fail(kExitRuntime, "input " + std::to_string(index) + " " + io.describe() + ": the model reports " +
                           std::to_string(io.size) + " bytes at a stride of " + std::to_string(io.stride) +
                           ", too small for " + std::to_string(images) + " such image(s); svp_run will not write past it");
  }
}

// Static AIPP inputs take the source the model was compiled for (get_first_aipp_info).
// A dynamic-AIPP input takes --aipp_config's parameters, set on every stream's dataset
// (svp_acl_mdl_set_input_aipp); then, as the vendor sample does, its size and stride are
// queried again (the runtime now describes the configured source) and the buffers, which
// were allocated for the model's maximum source, re-strided.
void prepare_aipp(const RunOptions& o, Session& s, const std::vector<svp_acl_mdl_dataset*>& ins, std::vector<Io>& in_io) {
  bool configured = false;
  for (std::size_t i = 0; i < in_io.size(); ++i) {
    svp_acl_mdl_aipp_type type = SVP_ACL_DATA_WITHOUT_AIPP;
    std::size_t attached = 0;
    check(svp_acl_mdl_get_input_aipp_type(s.model_id, i, &type, &attached), "svp_acl_mdl_get_input_aipp_type");
    const std::string input = "input " + std::to_string(i) + " '" + in_io[i].name + "'";
    if (type == SVP_ACL_DATA_WITH_STATIC_AIPP) {
      svp_acl_aipp_info info{};
      check(svp_acl_mdl_get_first_aipp_info(s.model_id, i, &info), "svp_acl_mdl_get_first_aipp_info");
      SourceLayout src;
      if (!source_layout(info.aipp_format, info.src_image_width, info.src_image_height, &src)) {
        fail(kExitUnsupported, input + " has static AIPP from " + aipp_format_name(info.aipp_format) +
                                   ", a source format svp_run cannot size (not implemented yet)");
      }
      apply_source(in_io[i], i, src, "static AIPP");
    } else if (type == SVP_ACL_DATA_WITH_DYNAMIC_AIPP) {
      if (o.aipp_config.empty()) {
        fail(kExitUsage, input + " has dynamic AIPP: give its parameters with --aipp_config FILE (an [aipp_op] " +
                             "section of 'key : value' lines with at least input_format, src_image_size_w and " +
                             "src_image_size_h, as for ais_bench; docs/svp_run.md)");
      }
      if (configured) {
        fail(kExitUnsupported, o.model + " has more than one dynamic-AIPP input; --aipp_config feeds one (as " +
                                   "ais_bench does): not implemented yet");
      }
      configured = true;
      SourceLayout src;
      try {
        s.aipp = make_aipp(read_aipp_config(o.aipp_config), o.aipp_config, &src);
      } catch (const std::invalid_argument& e) {
        fail(kExitUsage, std::string("--aipp_config ") + e.what());
      }
      for (svp_acl_mdl_dataset* ds : ins) {
        check(svp_acl_mdl_set_input_aipp(s.model_id, ds, attached, s.aipp),
              "--aipp_config " + o.aipp_config + " on " + input + ": svp_acl_mdl_set_input_aipp");
      }
      in_io[i] = describe_io(s.desc, i, true);
      apply_source(in_io[i], i, src, "dynamic AIPP (--aipp_config)");
      for (svp_acl_mdl_dataset* ds : ins) {
        svp_acl_data_buffer* b = svp_acl_mdl_get_dataset_buffer(ds, i);
        check(svp_acl_update_data_buffer(b, svp_acl_get_data_buffer_addr(b), svp_acl_get_data_buffer_size(b),
                                         in_io[i].stride),
              "svp_acl_update_data_buffer");
      }
    }
  }
  if (!o.aipp_config.empty() && !configured) {
    fail(kExitUsage, "--aipp_config: " + o.model + " has no dynamic-AIPP input (static AIPP parameters are in the model)");
  }
}

// Every row copy stays inside its buffer: checked once, before anything runs.
void check_buffers_hold(const std::vector<svp_acl_mdl_dataset*>& ins, const std::vector<Io>& in_io, std::size_t items) {
  for (svp_acl_mdl_dataset* ds : ins) {
    for (std::size_t i = 0; i < in_io.size(); ++i) {
      const svp_acl_data_buffer* b = svp_acl_mdl_get_dataset_buffer(ds, i);
      const std::size_t stride = svp_acl_get_data_buffer_stride(b), size = svp_acl_get_data_buffer_size(b);
      const Io& io = in_io[i];
      if (io.row_bytes > stride || (io.rows * items > 0 && (io.rows * items - 1) * stride + io.row_bytes > size)) {
        fail(kExitRuntime, "input " + std::to_string(i) + " " + io.describe() + ": " + std::to_string(io.rows * items) +
                               " rows of " + std::to_string(io.row_bytes) + " bytes do not fit its buffer of " +
                               std::to_string(size) + " bytes at a stride of " + std::to_string(stride));
      }
    }
  }
}

std::string date_time_dirname() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y_%m_%d-%H_%M_%S", &tm);
  return buf;
}

std::vector<fs::path> input_files(const std::string& entry) {
  const fs::path p(entry);
  std::error_code ec;
  if (fs::is_directory(p, ec)) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(p, ec)) {
      const auto ext = e.path().extension();
      if (e.is_regular_file() && (ext == ".bin" || ext == ".npy")) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) fail(kExitBadInput, "input directory " + entry + " holds no .bin or .npy file");
    return files;
  }
  if (!fs::is_regular_file(p, ec)) fail(kExitBadInput, "input " + entry + " is neither a file nor a directory");
  return {p};
}

struct Comparison {
  bool ok = true;
  std::string worst;
};

// Output `data` against the expected file of the same name: |got - exp| <= atol + rtol*|exp|
// everywhere, and cosine similarity >= `cosine` when that is set.
Comparison compare(const RunOptions& o, const Io& io, const std::vector<std::uint8_t>& data, const fs::path& expected) {
  Comparison c;
  std::error_code ec;
  if (!fs::is_regular_file(expected, ec)) {
    c.ok = false;
    c.worst = "expected file " + expected.string() + " does not exist";
    return c;
  }
  const std::vector<std::uint8_t> exp = load_data(expected);
  if (exp.size() != data.size()) {
    c.ok = false;
    c.worst = expected.string() + " has " + std::to_string(exp.size()) + " bytes, the output " + std::to_string(data.size());
    return c;
  }
  const std::size_t elem = svp_acl_data_type_size(io.dtype) / 8;
  const std::size_t n = elem ? data.size() / elem : 0;
  double worst_excess = 0, dot = 0, na = 0, nb = 0;
  std::size_t worst_i = n;
  for (std::size_t i = 0; i < n; ++i) {
    const double a = element(io.dtype, data.data(), i), b = element(io.dtype, exp.data(), i);
    dot += a * b;
    na += a * a;
    nb += b * b;
    const double excess = std::fabs(a - b) - (o.atol + o.rtol * std::fabs(b));
    if (excess > worst_excess || (std::isnan(a) != std::isnan(b) && worst_i == n)) {
      worst_excess = std::isnan(excess) ? worst_excess : excess;
      worst_i = i;
    }
  }
  std::ostringstream s;
  s << std::setprecision(9);
  if (worst_i < n) {
    c.ok = false;
    s << "element " << worst_i << ": got " << element(io.dtype, data.data(), worst_i) << ", expected "
      << element(io.dtype, exp.data(), worst_i) << " (atol " << o.atol << ", rtol " << o.rtol << ")";
  }
  if (o.cosine >= 0) {
    const double cos = (na == 0 && nb == 0) ? 1.0 : dot / std::sqrt(na * nb);
    if (!(cos >= o.cosine)) {
      c.ok = false;
      s << (worst_i < n ? "; " : "") << "cosine similarity " << cos << " < " << o.cosine;
    }
  }
  c.worst = s.str();
  return c;
}

void write_output(const fs::path& path, const std::string& fmt, const Io& io, std::size_t items,
                  const std::vector<std::uint8_t>& data) {
  if (fmt == "BIN") {
    write_file(path, data.data(), data.size());
  } else if (fmt == "NPY") {
    std::vector<std::int64_t> shape = io.dims;
    if (!shape.empty()) shape[0] *= static_cast<std::int64_t>(items);
    const std::vector<std::uint8_t> f = npy::make(npy_descr(io.dtype), shape, data.data(), data.size());
    write_file(path, f.data(), f.size());
  } else {
    std::ostringstream s;
    s << std::setprecision(9);
    const std::size_t elem = std::max<std::size_t>(1, svp_acl_data_type_size(io.dtype) / 8);
    const std::size_t per_row = std::max<std::size_t>(1, io.row_bytes / elem);
    for (std::size_t i = 0; i < data.size() / elem; ++i) {
      s << element(io.dtype, data.data(), i) << ((i + 1) % per_row == 0 ? '\n' : ' ');
    }
    const std::string text = s.str();
    write_file(path, text.data(), text.size());
  }
}

// A path that is absolute or climbs with "..": not a subfolder of where it is put.
bool leaves_its_parent(const std::string& dirname) {
  const fs::path p(dirname);
  if (p.is_absolute() || p.has_root_name() || p.has_root_directory()) return true;
  for (const fs::path& part : p) {
    if (part == "..") return true;
  }
  return false;
}

// The model dump's dump_list for --dump_layer "a;b" (empty: every layer of every model).
// An entry selects a model by the name the .om stores; a layer the model does not have is
// warned about on `err` (and by the runtime's log at load).
nlohmann::json dump_list(const std::string& dump_layer, const std::vector<std::uint8_t>& image, std::ostream& err) {
  nlohmann::json list = nlohmann::json::array();
  if (dump_layer.empty()) return list;
  std::vector<std::string> layers;
  for (std::size_t p = 0; p <= dump_layer.size();) {
    const std::size_t c = std::min(dump_layer.find(';', p), dump_layer.size());
    if (c > p) layers.push_back(dump_layer.substr(p, c - p));
    p = c + 1;
  }
  if (layers.empty()) fail(kExitUsage, "--dump_layer \"" + dump_layer + "\" names no layer (give \"a;b\")");
  const ModelNames names = model_names(image);
  if (names.name.empty()) {
    fail(kExitModel, "--dump_layer: the model stores no name, so the dump cannot select its layers (recompile it "
                     "with svp_atc --output=<name>), or drop --dump_layer to dump every layer");
  }
  for (const std::string& l : layers) {
    if (std::find(names.layers.begin(), names.layers.end(), l) == names.layers.end()) {
      err << "svp_run: warning: --dump_layer: model \"" << names.name << "\" has no layer \"" << l
          << "\"; nothing is dumped for it (svp_atc --mode=1 --om=<model> --json=<file> lists the layers)\n";
    }
  }
  list.push_back({{"model_name", names.name}, {"layer", layers}});
  return list;
}

// --acl_json_path's content, to which --clock=board adds its softnpu.clock.
nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(kExitBadInput, "cannot read --acl_json_path " + path);
  try {
    nlohmann::json j = nlohmann::json::parse(in);
    if (!j.is_object()) fail(kExitBadInput, "--acl_json_path " + path + ": the top level must be a JSON object");
    return j;
  } catch (const nlohmann::json::exception& e) {
    fail(kExitBadInput, "--acl_json_path " + path + " is not valid JSON: " + e.what());
  }
  return {};
}

// --clock=board: per execution, its predicted board time (events recorded around it) and
// where it lies on the board's timeline (from the reference event recorded before the run).
struct BoardTiming {
  svp_acl_rt_event ref = nullptr;
  std::vector<svp_acl_rt_event> before, after;  // per stream
  std::vector<std::vector<double>> latency;      // per stream, ms
  double first_start = -1, last_end = 0;         // ms after `ref`
  ~BoardTiming() { release(); }
  // Before svp_acl_finalize (events belong to the session); idempotent.
  void release() {
    for (auto* v : {&before, &after}) {
      for (svp_acl_rt_event e : *v) svp_acl_rt_destroy_event(e);
      v->clear();
    }
    if (ref) svp_acl_rt_destroy_event(ref);
    ref = nullptr;
  }
};

float board_elapsed(svp_acl_rt_event a, svp_acl_rt_event b) {
  float ms = 0;
  check(svp_acl_rt_event_elapsed_time(&ms, a, b), "svp_acl_rt_event_elapsed_time");
  return ms;
}

// The --clock=board block of the summary: every figure is predicted board time.
void report_board(const RunOptions& o, const BoardTiming& bt, std::size_t inferences, std::ostream& out,
                  nlohmann::json& j) {
  std::vector<double> all;
  for (const auto& v : bt.latency) all.insert(all.end(), v.begin(), v.end());
  const LatencyStats lat = summarize(all);
  const double span = bt.first_start < 0 ? 0 : bt.last_end - bt.first_start;
  const double fps = span > 0 ? static_cast<double>(inferences) * 1000.0 / span : 0;
  const std::string soc = o.soc_version.empty() ? "the acl.json softnpu.soc_version, default SS928V100" : o.soc_version;
  out << "predicted board time (" << soc << "; predicted from published figures, not measured: docs/board_time.md)\n";
  auto row = [&](const std::string& what, const LatencyStats& st) {
    out << "  " << std::left << std::setw(20) << what << std::right << std::fixed << std::setprecision(3) << " min "
        << st.min << "  mean " << st.mean << "  P50 " << st.p50 << "  P99 " << st.p99 << "  max " << st.max << " ms\n";
  };
  row("latency", lat);
  nlohmann::json streams = nlohmann::json::array();
  for (std::size_t st = 0; st < bt.latency.size(); ++st) {
    const LatencyStats s = summarize(bt.latency[st]);
    if (bt.latency.size() > 1) row("stream " + std::to_string(st), s);
    streams.push_back({{"stream", st}, {"median", s.p50}, {"percentile(99%)", s.p99}, {"count", s.count}});
  }
  out << "  " << std::left << std::setw(20) << "throughput" << " " << std::fixed << std::setprecision(2) << fps
      << " inferences/s (predicted fps; " << std::setprecision(3) << span << " ms of board time)\n";
  j["predicted_board_time"] = {{"soc", o.soc_version.empty() ? nlohmann::json() : nlohmann::json(o.soc_version)},
                               {"latency", {{"min", lat.min}, {"max", lat.max}, {"mean", lat.mean},
                                            {"median", lat.p50}, {"percentile(99%)", lat.p99}, {"count", lat.count}}},
                               {"throughput", fps},
                               {"span_ms", span},
                               {"streams", streams}};
}

}  // namespace

int run(const RunOptions& o, std::ostream& out, std::ostream& err) {
  try {
    if (o.streams == 0 || o.threads == 0) fail(kExitUsage, "--streams and --threads must be at least 1");
    if (o.loop == 0) fail(kExitUsage, "--loop must be at least 1");
    if (o.outfmt != "BIN" && o.outfmt != "TXT" && o.outfmt != "NPY") fail(kExitUsage, "--outfmt must be BIN, TXT or NPY");
    if (o.pure_data_type != "zero" && o.pure_data_type != "random") fail(kExitUsage, "--pure_data_type must be zero or random");
    if (o.profiler && o.output.empty()) fail(kExitUsage, "--profiler writes its report beside the outputs: give --output");
    if (o.profiler && !o.acl_json_path.empty()) {
      fail(kExitUsage, "--profiler writes its own acl.json; put a \"profiler\" section in --acl_json_path instead");
    }
    if ((o.dym_h == 0) != (o.dym_w == 0)) fail(kExitUsage, "--dymHW needs both a height and a width (e.g. 224,224)");
    if (o.priority > 7) fail(kExitUsage, "--priority must be 0..7");
    if (o.clock != "host" && o.clock != "board") fail(kExitUsage, "--clock must be host or board, not " + o.clock);
    if (!o.soc_version.empty() && o.clock != "board") {
      fail(kExitUsage, "--soc_version names the board clock's target: add --clock=board");
    }
    const bool board = o.clock == "board";
    if (leaves_its_parent(o.output_dirname)) {
      // "../../X" wrote outside --output (found by the bad-input probe).
      fail(kExitUsage, "--output_dirname \"" + o.output_dirname +
                           "\" must be a folder inside --output: a relative path without \"..\"");
    }

    std::error_code ec;
    if (!fs::is_regular_file(o.model, ec)) fail(kExitModel, "model file " + o.model + " not found");
    const std::vector<std::uint8_t> image = read_file(o.model);

    fs::path result_dir;
    if (!o.output.empty()) {
      result_dir = fs::path(o.output) / (o.output_dirname.empty() ? date_time_dirname() : o.output_dirname);
      fs::create_directories(result_dir, ec);
      if (ec) fail(kExitCannotWrite, "cannot create output directory " + result_dir.string() + ": " + ec.message());
    }

    Session s;
    std::string acl_json = o.acl_json_path;
    const fs::path prof_dir = result_dir / "profiling";
    nlohmann::json config;  // the acl.json svp_run writes (--profiler, --clock=board), if any
    if (board && !o.acl_json_path.empty()) config = read_json_file(o.acl_json_path);
    if (o.profiler) {
      fs::create_directories(prof_dir, ec);
      config["profiler"] = {{"switch", "on"}, {"output", prof_dir.string()}, {"aicpu", "on"}, {"acl_api", "on"}};
    }
    if (board) {
      if (!config.contains("softnpu") || !config["softnpu"].is_object()) config["softnpu"] = nlohmann::json::object();
      config["softnpu"]["clock"] = "board";
      if (!o.soc_version.empty()) config["softnpu"]["soc_version"] = o.soc_version;
    }
    std::string temp_json;  // removed once svp_acl_init has read it
    if (!config.is_null()) {
      if (!result_dir.empty()) {
        acl_json = (result_dir / "acl.json").string();
      } else {
        acl_json = temp_json = (fs::temp_directory_path() / ("svp_run_acl_" + std::to_string(::getpid()) + ".json")).string();
      }
      const std::string text = config.dump(2);
      write_file(acl_json, text.data(), text.size());
    }
    const svp_acl_error init = svp_acl_init(acl_json.empty() ? nullptr : acl_json.c_str());
    if (!temp_json.empty()) fs::remove(temp_json, ec);
    check(init, "svp_acl_init");
    s.initialised = true;
    if (o.dump) {
      // Every layer's outputs of this run, through the runtime's model dump (docs/runtime.md
      // "Model dump"): <result>/dump/<model name>/index.jsonl and .npy files. The
      // configuration is set before the load, which is when it applies.
      const fs::path dump_dir = result_dir / "dump";
      fs::create_directories(dump_dir, ec);
      nlohmann::json cfg;
      cfg["dump"] = {{"dump_path", dump_dir.string()}, {"dump_mode", "output"},
                     {"dump_list", dump_list(o.dump_layer, image, err)}};
      // Warm-up executions count: the runtime numbers every execution of the model from 0.
      if (!o.dump_step.empty()) cfg["dump"]["dump_step"] = o.dump_step;
      const std::string text = cfg.dump(2);
      const std::string cfg_path = (result_dir / "dump.json").string();
      write_file(cfg_path, text.data(), text.size());
      check(svp_acl_mdl_init_dump(), "--dump: svp_acl_mdl_init_dump");
      check(svp_acl_mdl_set_dump(cfg_path.c_str()), "--dump: svp_acl_mdl_set_dump");
    }
    s.device = o.device;
    check(svp_acl_rt_set_device(o.device), "svp_acl_rt_set_device(" + std::to_string(o.device) + ")");
    s.device_set = true;

    // Load with a configuration handle so the priority travels with the model.
    svp_acl_mdl_config_handle* cfg = svp_acl_mdl_create_config_handle();
    if (!cfg) fail(kExitRuntime, "svp_acl_mdl_create_config_handle: out of memory");
    const std::size_t load_type = SVP_ACL_MDL_LOAD_FROM_MEM;
    const void* addr = image.data();
    const std::size_t size = image.size();
    svp_acl_error e = svp_acl_mdl_set_config_opt(cfg, SVP_ACL_MDL_LOAD_TYPE_SIZET, &load_type, sizeof load_type);
    if (!e) e = svp_acl_mdl_set_config_opt(cfg, SVP_ACL_MDL_MEM_ADDR_PTR, &addr, sizeof addr);
    if (!e) e = svp_acl_mdl_set_config_opt(cfg, SVP_ACL_MDL_MEM_SIZET, &size, sizeof size);
    if (!e && o.priority >= 0) e = svp_acl_mdl_set_config_opt(cfg, SVP_ACL_MDL_PRIORITY_INT32, &o.priority, sizeof o.priority);
    const auto load_start = Clock::now();
    if (!e) e = svp_acl_mdl_load_with_config(cfg, &s.model_id);
    const double load_ms = std::chrono::duration<double, std::milli>(Clock::now() - load_start).count();
    const std::string load_msg = svp_acl_get_recent_err_msg();
    svp_acl_mdl_destroy_config_handle(cfg);
    if (e == SVP_ACL_ERROR_DESERIALIZE_MODEL || e == SVP_ACL_ERROR_PARSE_MODEL || e == SVP_ACL_ERROR_MODEL_SIZE_INVALID) {
      fail(kExitModel, o.model + " is not an svp-acl model (error " + std::to_string(e) + ": " + load_msg + ")");
    }
    if (e) fail(kExitRuntime, "loading " + o.model + " failed with error " + std::to_string(e) + ": " + load_msg);
    s.loaded = true;
    s.desc = svp_acl_mdl_create_desc();
    check(svp_acl_mdl_get_desc(s.desc, s.model_id), "svp_acl_mdl_get_desc");

    const std::size_t num_inputs = svp_acl_mdl_get_num_inputs(s.desc);
    const std::size_t num_outputs = svp_acl_mdl_get_num_outputs(s.desc);
    if (num_inputs < 2) fail(kExitModel, o.model + " reports fewer than 2 inputs (task_buf and work_buf missing)");
    // Data inputs come first; dynamic-AIPP parameter inputs follow them (filled by
    // --aipp_config, not by files), then task_buf and work_buf.
    std::size_t data_inputs = 0;
    for (; data_inputs + 2 < num_inputs; ++data_inputs) {
      svp_acl_mdl_aipp_type type = SVP_ACL_DATA_WITHOUT_AIPP;
      std::size_t attached = 0;
      check(svp_acl_mdl_get_input_aipp_type(s.model_id, data_inputs, &type, &attached), "svp_acl_mdl_get_input_aipp_type");
      if (type == SVP_ACL_DYNAMIC_AIPP_NODE) break;
    }
    std::size_t dyn_index = 0;
    const bool dynamic = svp_acl_mdl_get_input_index_by_name(s.desc, SVP_ACL_DYNAMIC_TENSOR_NAME, &dyn_index) == SVP_ACL_SUCCESS;
    if ((o.dym_batch || o.dym_h) && !dynamic) {
      fail(kExitUsage, std::string(o.dym_batch ? "--dymBatch" : "--dymHW") + ": " + o.model + " has no dynamic batch or resolution");
    }

    // Datasets, one pair per stream (the gear is chosen first: it sets the sizes).
    const std::size_t items = o.dym_batch ? o.dym_batch : 1;
    std::vector<svp_acl_mdl_dataset*> ins, outs;
    for (std::uint32_t k = 0; k < o.streams; ++k) {
      ins.push_back(s.dataset());
      outs.push_back(s.dataset());
      if (o.dym_h) {
        check(svp_acl_mdl_set_dynamic_hw_size(s.model_id, ins.back(), dyn_index, o.dym_h, o.dym_w),
              "--dymHW " + std::to_string(o.dym_h) + "," + std::to_string(o.dym_w) + ": svp_acl_mdl_set_dynamic_hw_size");
      }
    }
    std::vector<Io> in_io, out_io;
    for (std::size_t i = 0; i < data_inputs; ++i) in_io.push_back(describe_io(s.desc, i, true));
    for (std::size_t i = 0; i < num_outputs; ++i) out_io.push_back(describe_io(s.desc, i, false));
    if (o.debug) {
      for (std::size_t i = 0; i < in_io.size(); ++i) {
        err << "svp_run: input " << i << " " << in_io[i].describe() << ", " << in_io[i].size << " bytes per batch, stride "
            << in_io[i].stride << "\n";
      }
      for (std::size_t i = 0; i < out_io.size(); ++i) {
        err << "svp_run: output " << i << " " << out_io[i].describe() << ", " << out_io[i].size
            << " bytes per batch, stride " << out_io[i].stride << "\n";
      }
    }
    for (std::uint32_t k = 0; k < o.streams; ++k) {
      for (std::size_t i = 0; i < num_inputs; ++i) {
        const bool data = i < data_inputs;
        s.add(ins[k], svp_acl_mdl_get_input_size_by_index(s.desc, i) * (data ? items : 1),
              svp_acl_mdl_get_input_default_stride(s.desc, i));
      }
      for (std::size_t i = 0; i < num_outputs; ++i) s.add(outs[k], out_io[i].size * items, out_io[i].stride);
      if (o.dym_batch) {
        check(svp_acl_mdl_set_dynamic_batch_size(s.model_id, ins[k], dyn_index, o.dym_batch),
              "--dymBatch " + std::to_string(o.dym_batch) + ": svp_acl_mdl_set_dynamic_batch_size");
      }
      svp_acl_rt_stream st = nullptr;
      check(svp_acl_rt_create_stream(&st), "svp_acl_rt_create_stream");
      s.streams.push_back(st);
    }

    prepare_aipp(o, s, ins, in_io);
    check_buffers_hold(ins, in_io, items);
    if (o.debug) {
      for (std::size_t i = 0; i < in_io.size(); ++i) {
        if (!in_io[i].aipp.empty()) err << "svp_run: input " << i << " " << in_io[i].describe() << "\n";
      }
    }

    // Input groups: one dense buffer per data input per execution.
    const std::size_t per_exec_files = o.batchsize > 1 ? o.batchsize : 1;
    std::vector<std::vector<std::vector<std::uint8_t>>> groups;  // [group][input] dense bytes
    std::vector<std::string> group_names;
    if (o.inputs.empty()) {
      std::mt19937 rng(2024);
      std::vector<std::vector<std::uint8_t>> g;
      for (const Io& io : in_io) {
        std::vector<std::uint8_t> d(io.dense() * items, 0);
        if (o.pure_data_type == "random") {
          // Random values of the input's own type (floats in [0, 1), integers any pattern).
          const std::size_t elem = std::max<std::size_t>(1, svp_acl_data_type_size(io.dtype) / 8);
          std::uniform_real_distribution<float> uf(0.0f, 1.0f);
          for (std::size_t k = 0; k < d.size(); k += elem) {
            if (io.dtype == SVP_ACL_FLOAT) {
              const float f = uf(rng);
              std::memcpy(&d[k], &f, 4);
            } else {
              for (std::size_t b = 0; b < elem; ++b) d[k + b] = static_cast<std::uint8_t>(rng());
            }
          }
        }
        g.push_back(std::move(d));
      }
      groups.push_back(std::move(g));
      group_names.push_back("pure_infer_data");
    } else {
      if (o.inputs.size() != data_inputs) {
        fail(kExitBadInput, "the model has " + std::to_string(data_inputs) + " data input(s) but --input gives " +
                                std::to_string(o.inputs.size()));
      }
      std::vector<std::vector<fs::path>> files;
      for (const std::string& entry : o.inputs) files.push_back(input_files(entry));
      for (std::size_t i = 1; i < files.size(); ++i) {
        if (files[i].size() != files[0].size()) {
          fail(kExitBadInput, "--input " + o.inputs[i] + " gives " + std::to_string(files[i].size()) + " file(s), " +
                                  o.inputs[0] + " gives " + std::to_string(files[0].size()));
        }
      }
      const std::size_t n = files[0].size();
      // Whole executions per file, or `per_exec_files` single items per execution.
      std::size_t f = 0;
      while (f < n) {
        std::vector<std::vector<std::uint8_t>> g;
        std::size_t used = 1;
        for (std::size_t i = 0; i < data_inputs; ++i) {
          const Io& io = in_io[i];
          const std::size_t want = io.dense() * items;
          std::vector<std::uint8_t> d = load_input(files[i][f], io, i);
          if (d.size() != want && per_exec_files > 1 && d.size() * per_exec_files == want) {
            if (f + per_exec_files > n) {
              fail(kExitBadInput, "--batchsize " + std::to_string(per_exec_files) + ": " + std::to_string(n - f) +
                                      " file(s) left for the last batch of input " + io.describe());
            }
            for (std::size_t k = 1; k < per_exec_files; ++k) {
              const std::vector<std::uint8_t> more = load_input(files[i][f + k], io, i);
              if (more.size() * per_exec_files != want) {
                fail(kExitBadInput, files[i][f + k].string() + " has " + std::to_string(more.size()) + " bytes; input " +
                                        io.describe() + " takes " + std::to_string(want / per_exec_files) + " per item");
              }
              d.insert(d.end(), more.begin(), more.end());
            }
            used = per_exec_files;
          } else if (d.size() != want) {
            fail(kExitBadInput, files[i][f].string() + " has " + std::to_string(d.size()) + " bytes but input " +
                                    std::to_string(i) + " " + io.describe() + " needs " + std::to_string(want) + " bytes" +
                                    (items > 1 ? " (" + std::to_string(items) + " batches)" : ""));
          }
          g.push_back(std::move(d));
        }
        group_names.push_back(files[0][f].stem().string());
        groups.push_back(std::move(g));
        f += used;
      }
    }

    // Execution: item k runs group k % G; the last repetition's outputs are kept.
    const std::size_t G = groups.size();
    const std::size_t total = G * o.loop;
    std::vector<std::vector<std::vector<std::uint8_t>>> results(G, std::vector<std::vector<std::uint8_t>>(num_outputs));
    std::mutex mu;
    std::vector<double> latency, h2d, d2h;
    std::atomic<std::size_t> done{0};
    std::size_t next_report = 1;
    const auto start = Clock::now();
    std::string thread_error;

    auto fill = [&](std::uint32_t st, std::size_t group) {
      const auto t0 = Clock::now();
      for (std::size_t i = 0; i < data_inputs; ++i) {
        copy_rows(svp_acl_mdl_get_dataset_buffer(ins[st], i), in_io[i], items, groups[group][i].data(), true);
      }
      return ms_since(t0);
    };
    for (std::uint64_t w = 0; w < o.warmup_count; ++w) {
      fill(0, 0);
      check(svp_acl_mdl_execute(s.model_id, ins[0], outs[0]), "warm-up svp_acl_mdl_execute");
    }
    // Board clock: a reference event once the warm-ups are done, events around each execution.
    BoardTiming bt;
    if (board) {
      check(svp_acl_rt_create_event(&bt.ref), "svp_acl_rt_create_event");
      check(svp_acl_rt_record_event(bt.ref, s.streams[0]), "svp_acl_rt_record_event");
      check(svp_acl_rt_synchronize_stream(s.streams[0]), "svp_acl_rt_synchronize_stream");
      bt.before.resize(o.streams);
      bt.after.resize(o.streams);
      bt.latency.resize(o.streams);
      for (std::uint32_t st = 0; st < o.streams; ++st) {
        check(svp_acl_rt_create_event(&bt.before[st]), "svp_acl_rt_create_event");
        check(svp_acl_rt_create_event(&bt.after[st]), "svp_acl_rt_create_event");
      }
    }
    const auto run_start = Clock::now();
    const std::uint32_t threads = std::min(o.threads, o.streams);
    // Streams belong to the device's default context; the submitting threads share it.
    svp_acl_rt_context context = nullptr;
    check(svp_acl_rt_get_current_context(&context), "svp_acl_rt_get_current_context");
    auto worker = [&](std::uint32_t t) {
      try {
        check(svp_acl_rt_set_current_context(context), "svp_acl_rt_set_current_context");
        std::vector<std::uint32_t> mine;
        for (std::uint32_t st = t; st < o.streams; st += threads) mine.push_back(st);
        for (std::size_t round = 0;; ++round) {
          std::vector<std::pair<std::uint32_t, std::size_t>> submitted;
          std::vector<Clock::time_point> t0s;
          std::vector<double> copies;
          for (std::uint32_t st : mine) {
            const std::size_t k = round * o.streams + st;
            if (k >= total) continue;
            copies.push_back(fill(st, k % G));
            t0s.push_back(Clock::now());
            if (board) check(svp_acl_rt_record_event(bt.before[st], s.streams[st]), "svp_acl_rt_record_event");
            check(svp_acl_mdl_execute_async(s.model_id, ins[st], outs[st], s.streams[st]), "svp_acl_mdl_execute_async");
            if (board) check(svp_acl_rt_record_event(bt.after[st], s.streams[st]), "svp_acl_rt_record_event");
            submitted.emplace_back(st, k);
          }
          if (submitted.empty()) break;
          for (std::size_t j = 0; j < submitted.size(); ++j) {
            const auto [st, k] = submitted[j];
            check(svp_acl_rt_synchronize_stream(s.streams[st]), "svp_acl_rt_synchronize_stream");
            const double lat = ms_since(t0s[j]);
            const auto c0 = Clock::now();
            std::vector<std::vector<std::uint8_t>> got(num_outputs);
            for (std::size_t i = 0; i < num_outputs; ++i) {
              got[i].resize(out_io[i].dense() * items);
              copy_rows(svp_acl_mdl_get_dataset_buffer(outs[st], i), out_io[i], items, got[i].data(), false);
            }
            const double back = ms_since(c0);
            double board_lat = 0, board_start = 0, board_end = 0;
            if (board) {
              board_lat = board_elapsed(bt.before[st], bt.after[st]);
              board_start = board_elapsed(bt.ref, bt.before[st]);
              board_end = board_elapsed(bt.ref, bt.after[st]);
            }
            std::lock_guard<std::mutex> lock(mu);
            if (board) {
              bt.latency[st].push_back(board_lat);
              if (bt.first_start < 0 || board_start < bt.first_start) bt.first_start = board_start;
              bt.last_end = std::max(bt.last_end, board_end);
            }
            latency.push_back(lat);
            h2d.push_back(copies[j]);
            d2h.push_back(back);
            if (k / G == o.loop - 1) results[k % G] = std::move(got);
            const std::size_t n = ++done;
            // A line per 10% once the run has lasted a second.
            if (o.progress && n * 10 >= next_report * total) {
              if (ms_since(start) >= o.progress_after_ms) err << "svp_run: " << n << "/" << total << " inferences (" << n * 100 / total << "%)\n";
              next_report = n * 10 / total + 1;
            }
          }
        }
      } catch (const Failure& f) {
        std::lock_guard<std::mutex> lock(mu);
        if (thread_error.empty()) thread_error = f.message;
      }
    };
    // A model with AI-CPU layers needs a thread serving them during asynchronous
    // execution, as vendor applications run one (svp_acl_ext_process_aicpu_task).
    std::uint32_t aicpu_tasks = 0;
    check(svp_acl_ext_get_mdl_aicpu_task_num(s.model_id, &aicpu_tasks), "svp_acl_ext_get_mdl_aicpu_task_num");
    std::atomic<bool> stop_aicpu{false};
    std::thread aicpu_thread;
    if (aicpu_tasks > 0) {
      aicpu_thread = std::thread([&] {
        svp_acl_rt_set_current_context(context);
        while (!stop_aicpu.load(std::memory_order_acquire)) {
          const svp_acl_error e = svp_acl_ext_process_aicpu_task(20);
          if (e != SVP_ACL_SUCCESS && e != SVP_ACL_ERROR_RT_REPORT_TIMEOUT) {
            std::lock_guard<std::mutex> lock(mu);
            if (thread_error.empty()) thread_error = "svp_acl_ext_process_aicpu_task failed with error " + std::to_string(e);
            break;
          }
        }
      });
    }
    std::vector<std::thread> pool;
    for (std::uint32_t t = 0; t < threads; ++t) pool.emplace_back(worker, t);
    for (std::thread& th : pool) th.join();
    stop_aicpu.store(true, std::memory_order_release);
    if (aicpu_thread.joinable()) aicpu_thread.join();
    if (!thread_error.empty()) fail(kExitRuntime, thread_error);
    const double wall_ms = ms_since(run_start);
    // Utilisation over the last second of the run: queried before the outputs are written,
    // which for thousands of files takes longer than the window and would report it idle.
    svp_acl_status status{};
    const svp_acl_error qe = svp_acl_query_status(&status);

    // Outputs, then the comparison with --expected.
    const std::string ext = o.outfmt == "BIN" ? ".bin" : o.outfmt == "TXT" ? ".txt" : ".npy";
    int code = kExitOk;
    std::size_t mismatches = 0;
    for (std::size_t g = 0; g < G; ++g) {
      for (std::size_t i = 0; i < num_outputs; ++i) {
        const std::string name = group_names[g] + "_" + std::to_string(i) + ext;
        if (!result_dir.empty()) write_output(result_dir / name, o.outfmt, out_io[i], items, results[g][i]);
        if (!o.expected.empty()) {
          const std::string bin_name = group_names[g] + "_" + std::to_string(i);
          fs::path exp = fs::path(o.expected) / (bin_name + ".bin");
          if (!fs::exists(exp, ec)) exp = fs::path(o.expected) / (bin_name + ".npy");
          const Comparison c = compare(o, out_io[i], results[g][i], exp);
          if (!c.ok) {
            ++mismatches;
            code = kExitMismatch;
            err << "svp_run: mismatch in " << bin_name << " (output " << out_io[i].describe() << "): " << c.worst << "\n";
          }
        }
      }
    }

    // Summary.
    const LatencyStats lat = summarize(latency), in_copy = summarize(h2d), out_copy = summarize(d2h);
    const double throughput = wall_ms > 0 ? static_cast<double>(total * items) * 1000.0 / wall_ms : 0;
    std::string utilisation = "n/a (svp_acl_query_status not supported)";
    nlohmann::json util_json = nullptr;
    if (qe == SVP_ACL_SUCCESS) {
      std::ostringstream u;
      for (std::uint32_t c = 0; c < status.ip_num && c < SVP_ACL_MAX_IP_NUM; ++c) {
        u << (c ? ", " : "") << status.hw_utilization[c] << "%";
        util_json.push_back(status.hw_utilization[c]);
      }
      utilisation = u.str();
    }
    auto stats_json = [](const LatencyStats& st) {
      return nlohmann::json{{"min", st.min}, {"max", st.max}, {"mean", st.mean}, {"median", st.p50},
                            {"percentile(90%)", st.p90}, {"percentile(99%)", st.p99}, {"count", st.count}};
    };
    nlohmann::json j;
    j["model"] = o.model;
    j["inferences"] = total;
    j["loop"] = o.loop;
    j["warmup_count"] = o.warmup_count;
    j["batch"] = items;
    j["streams"] = o.streams;
    j["threads"] = threads;
    j["NPU_compute_time"] = stats_json(lat);
    j["H2D_latency"] = stats_json(in_copy);
    j["D2H_latency"] = stats_json(out_copy);
    j["throughput"] = throughput;
    j["load_model_ms"] = load_ms;
    j["npu_utilization"] = util_json;
    if (!o.expected.empty()) j["mismatches"] = mismatches;

    auto row = [&](const char* what, const LatencyStats& st) {
      out << std::left << std::setw(22) << what << std::right << std::fixed << std::setprecision(3) << " min " << st.min
          << "  mean " << st.mean << "  P50 " << st.p50 << "  P90 " << st.p90 << "  P99 " << st.p99 << "  max " << st.max
          << " ms\n";
    };
    out << "[svp_run] " << o.model << ": " << total << " inference(s)";
    if (o.warmup_count) out << " after " << o.warmup_count << " warm-up";
    out << ", " << o.streams << " stream(s), " << threads << " thread(s), batch " << items << "\n";
    row("NPU time (latency)", lat);
    row("H2D copy", in_copy);
    row("D2H copy", out_copy);
    out << std::left << std::setw(22) << "throughput" << " " << std::fixed << std::setprecision(2) << throughput
        << " inferences/s\n";
    out << std::left << std::setw(22) << "NPU utilisation" << " " << utilisation << "\n";
    out << std::left << std::setw(22) << "model load" << " " << std::fixed << std::setprecision(2) << load_ms
        << " ms (svp_acl_mdl_load_with_config: parse, plan and kernel preparation)\n";
    if (o.display_all_summary) {
      out << "latencies (ms):";
      for (double v : latency) out << " " << std::setprecision(3) << v;
      out << "\n";
      j["latencies_ms"] = latency;
    }
    if (board) report_board(o, bt, total * items, out, j);
    if (!o.expected.empty()) {
      out << "expected: " << (mismatches ? std::to_string(mismatches) + " output(s) differ" : "all outputs match") << "\n";
    }
    if (!result_dir.empty()) {
      const std::string text = j.dump(2) + "\n";
      write_file(result_dir / "summary.json", text.data(), text.size());
      // ais_bench's own place for it: <output>/<subdirectory>_summary.json.
      write_file(result_dir.parent_path() / (result_dir.filename().string() + "_summary.json"), text.data(), text.size());
      out << "outputs: " << result_dir.string() << "\n";
    }

    if (o.profiler) {
      // The session ends at svp_acl_finalize; only then is the JOB directory complete.
      bt.release();
      s.close();
      fs::path job;
      for (const auto& e : fs::recursive_directory_iterator(prof_dir, ec)) {
        if (e.is_directory() && e.path().filename().string().rfind("JOB", 0) == 0) {
          job = e.path();
          break;
        }
      }
      if (job.empty()) fail(kExitRuntime, "--profiler: no JOB directory was written under " + prof_dir.string());
      prof::AppOptions po;
      po.job_dir = job;
      po.out_dir = result_dir / "profiling_report";
      po.quiet = !o.debug;
      std::ostringstream pout;
      const int pc = prof::run(po, pout, err);
      if (pc != prof::kExitOk) fail(kExitRuntime, "--profiler: svp_prof failed (exit " + std::to_string(pc) + ")");
      out << "profile: " << po.out_dir.string() << "\n";
    }
    return code;
  } catch (const Failure& f) {
    err << "svp_run: error: " << f.message << "\n";
    return f.code;
  } catch (const std::exception& ex) {
    err << "svp_run: error: " << ex.what() << "\n";
    return kExitRuntime;
  }
}

}  // namespace svp::run
