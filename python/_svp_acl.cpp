// _svp_acl: the native half of the Python package (python/svp_acl, python/rknn/api;
// docs/python.md). It sits on top of the project: models are built by rknn_convert's
// conversion (tools/rknn_convert: the same YAML mapping onto the compiler, so a toolkit
// script and a YAML file give the same model), and run through librknnrt's public C API
// (include/rknn/rknn_api.h), linked statically. The pure-Python layer holds the toolkit's
// argument policy; this file only converts between numpy and the C structures and turns
// failures into exceptions that carry the runtime's own log lines.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <spdlog/sinks/base_sink.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/log.h"
#include "compiler/atc_options.h"
#include "compiler/board_time.h"
#include "compiler/compile.h"
#include "compiler/onnx_import.h"
#include "compiler/om_json.h"
#include "compiler/onnx_io_edit.h"
#include "convert.h"
#include "convert_config.h"
#include "model/format.h"
#include "runtime/rknn_context.h"
#include "runtime/rknn_crypt.h"
#include "target/device_profile.h"
#include "rknn/rknn_api.h"
#include "svp_runtime.h"

namespace py = pybind11;

namespace {

// The runtime reports why a call failed in its log, not in the return code. The lines
// logged by this thread during one call are kept so the exception can carry them.
thread_local std::vector<std::string>* g_capture = nullptr;

class CaptureSink final : public spdlog::sinks::base_sink<std::mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (g_capture != nullptr && msg.level >= spdlog::level::warn) g_capture->emplace_back(msg.payload.data(), msg.payload.size());
  }
  void flush_() override {}
};

struct Capture {
  std::vector<std::string> lines;
  Capture() { g_capture = &lines; }
  ~Capture() { g_capture = nullptr; }
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;
  std::string text() const {
    std::string all;
    for (const std::string& l : lines) all += (all.empty() ? "" : "; ") + l;
    return all;
  }
};

const char* rknn_error_name(int code) {
  switch (code) {
    case RKNN_ERR_FAIL: return "RKNN_ERR_FAIL";
    case RKNN_ERR_TIMEOUT: return "RKNN_ERR_TIMEOUT";
    case RKNN_ERR_DEVICE_UNAVAILABLE: return "RKNN_ERR_DEVICE_UNAVAILABLE";
    case RKNN_ERR_MALLOC_FAIL: return "RKNN_ERR_MALLOC_FAIL";
    case RKNN_ERR_PARAM_INVALID: return "RKNN_ERR_PARAM_INVALID";
    case RKNN_ERR_MODEL_INVALID: return "RKNN_ERR_MODEL_INVALID";
    case RKNN_ERR_CTX_INVALID: return "RKNN_ERR_CTX_INVALID";
    case RKNN_ERR_INPUT_INVALID: return "RKNN_ERR_INPUT_INVALID";
    case RKNN_ERR_OUTPUT_INVALID: return "RKNN_ERR_OUTPUT_INVALID";
    case RKNN_ERR_TARGET_PLATFORM_UNMATCH: return "RKNN_ERR_TARGET_PLATFORM_UNMATCH";
    default: return "RKNN error";
  }
}

[[noreturn]] void throw_rknn(const char* call, int code, const Capture& c) {
  const std::string why = c.text();
  throw std::runtime_error(std::string(call) + " failed: " + rknn_error_name(code) + " (" + std::to_string(code) + ")" +
                           (why.empty() ? std::string() : ": " + why));
}

// numpy dtype <-> rknn_tensor_type (the types rknn_inputs_set converts).
std::optional<rknn_tensor_type> tensor_type_of(const py::dtype& d) {
  const char kind = d.kind();
  const auto size = d.itemsize();
  if (kind == 'f' && size == 4) return RKNN_TENSOR_FLOAT32;
  if (kind == 'f' && size == 2) return RKNN_TENSOR_FLOAT16;
  if (kind == 'i' && size == 1) return RKNN_TENSOR_INT8;
  if (kind == 'u' && size == 1) return RKNN_TENSOR_UINT8;
  if (kind == 'i' && size == 2) return RKNN_TENSOR_INT16;
  if (kind == 'u' && size == 2) return RKNN_TENSOR_UINT16;
  if (kind == 'i' && size == 4) return RKNN_TENSOR_INT32;
  if (kind == 'u' && size == 4) return RKNN_TENSOR_UINT32;
  if (kind == 'i' && size == 8) return RKNN_TENSOR_INT64;
  if (kind == 'b') return RKNN_TENSOR_BOOL;
  return std::nullopt;
}

py::dict attr_dict(const rknn_tensor_attr& a) {
  py::dict d;
  d["index"] = a.index;
  d["name"] = std::string(a.name);
  d["dims"] = std::vector<std::uint32_t>(a.dims, a.dims + a.n_dims);
  d["n_elems"] = a.n_elems;
  d["size"] = a.size;
  d["fmt"] = std::string(get_format_string(a.fmt));
  d["type"] = std::string(get_type_string(a.type));
  d["qnt_type"] = std::string(get_qnt_type_string(a.qnt_type));
  d["zp"] = a.zp;
  d["scale"] = a.scale;
  return d;
}

// One librknnrt context: a loaded model and its inputs/outputs.
class Runtime {
 public:
  Runtime(const py::bytes& model, std::uint32_t flags) {
    std::string bytes = model;
    Capture c;
    int r = 0;
    {
      py::gil_scoped_release nogil;
      r = rknn_init(&ctx_, bytes.data(), static_cast<std::uint32_t>(bytes.size()), flags, nullptr);
    }
    if (r != RKNN_SUCC) {
      ctx_ = 0;
      throw_rknn("rknn_init", r, c);
    }
    // The toolkit's simulator runs RV1106/RV1103 models through the normal API too.
    (void)svp::runtime::rknn::mark_simulator(ctx_);
    rknn_input_output_num num{};
    r = rknn_query(ctx_, RKNN_QUERY_IN_OUT_NUM, &num, sizeof num);
    if (r != RKNN_SUCC) throw_rknn("rknn_query(RKNN_QUERY_IN_OUT_NUM)", r, c);
    inputs_ = query_attrs(RKNN_QUERY_INPUT_ATTR, num.n_input, c);
    outputs_ = query_attrs(RKNN_QUERY_OUTPUT_ATTR, num.n_output, c);
    // RKNN_QUERY_INPUT_DYNAMIC_RANGE logs an error for a static model: ask only dynamic ones.
    auto m = svp::model::read_model(bytes.data(), bytes.size());
    dynamic_ = m.ok() && (!m->program.flags.dynamic_batch.empty() || !m->program.flags.dynamic_hw.empty());
  }

  // The model's shape sets (configs.dynamic_input) as [set][input] dims in INPUT_ATTR's
  // order (NHWC for 4-D inputs); empty for a static model.
  std::vector<std::vector<std::vector<std::uint32_t>>> shape_sets() {
    live();
    std::vector<std::vector<std::vector<std::uint32_t>>> sets;
    if (!dynamic_) return sets;
    Capture c;
    for (std::uint32_t i = 0; i < inputs_.size(); ++i) {
      rknn_input_range range{};
      range.index = i;
      const int r = rknn_query(ctx_, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &range, sizeof range);
      if (r != RKNN_SUCC) throw_rknn("rknn_query(RKNN_QUERY_INPUT_DYNAMIC_RANGE)", r, c);
      sets.resize(range.shape_number);
      for (std::uint32_t k = 0; k < range.shape_number; ++k) {
        sets[k].emplace_back(range.dyn_range[k], range.dyn_range[k] + range.n_dims);
      }
    }
    return sets;
  }

  // rknn_set_input_shapes with one shape per input (INPUT_ATTR's order); the attributes
  // inputs() / outputs() and run() use are the current ones afterwards.
  void set_input_shapes(const std::vector<std::vector<std::uint32_t>>& shapes) {
    live();
    if (shapes.size() != inputs_.size()) {
      throw std::invalid_argument("set_input_shapes: " + std::to_string(shapes.size()) + " shape(s) for " +
                                  std::to_string(inputs_.size()) + " input(s)");
    }
    std::vector<rknn_tensor_attr> attrs = inputs_;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      if (shapes[i].size() > RKNN_MAX_DIMS) throw std::invalid_argument("set_input_shapes: too many dimensions");
      attrs[i].n_dims = static_cast<std::uint32_t>(shapes[i].size());
      std::copy(shapes[i].begin(), shapes[i].end(), attrs[i].dims);
    }
    Capture c;
    int r = 0;
    {
      py::gil_scoped_release nogil;
      r = rknn_set_input_shapes(ctx_, static_cast<std::uint32_t>(attrs.size()), attrs.data());
    }
    if (r != RKNN_SUCC) throw_rknn("rknn_set_input_shapes", r, c);
    inputs_ = query_attrs(RKNN_QUERY_CURRENT_INPUT_ATTR, static_cast<std::uint32_t>(inputs_.size()), c);
    outputs_ = query_attrs(RKNN_QUERY_CURRENT_OUTPUT_ATTR, static_cast<std::uint32_t>(outputs_.size()), c);
  }
  ~Runtime() { close(); }
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  void close() {
    if (ctx_ != 0) {
      py::gil_scoped_release nogil;
      rknn_destroy(ctx_);
    }
    ctx_ = 0;
  }

  py::list inputs() const { return attrs(inputs_); }
  py::list outputs() const { return attrs(outputs_); }

  void set_core_mask(int mask) {
    live();
    Capture c;
    const int r = rknn_set_core_mask(ctx_, static_cast<rknn_core_mask>(mask));
    if (r != RKNN_SUCC) throw_rknn("rknn_set_core_mask", r, c);
  }

  // Inputs: C-contiguous arrays in the layout `fmts` says (RKNN_TENSOR_NCHW / NHWC), already
  // checked for shape by the caller; outputs: float32 arrays shaped as OUTPUT_ATTR says.
  py::list run(const std::vector<py::array>& arrays, const std::vector<int>& fmts, const std::vector<bool>& pass_through) {
    live();
    if (arrays.size() != inputs_.size() || fmts.size() != arrays.size() || pass_through.size() != arrays.size()) {
      throw std::invalid_argument("the model has " + std::to_string(inputs_.size()) + " input(s), " +
                                  std::to_string(arrays.size()) + " given");
    }
    std::vector<py::array> held;
    std::vector<rknn_input> in(arrays.size());
    for (std::size_t i = 0; i < arrays.size(); ++i) {
      const auto type = tensor_type_of(arrays[i].dtype());
      if (!type) throw py::type_error("input " + std::to_string(i) + ": dtype " + py::str(arrays[i].dtype()).cast<std::string>() + " is not one librknnrt takes");
      held.push_back(py::array::ensure(arrays[i], py::array::c_style));
      in[i].index = static_cast<std::uint32_t>(i);
      in[i].buf = const_cast<void*>(held.back().data());
      in[i].size = static_cast<std::uint32_t>(held.back().nbytes());
      in[i].pass_through = pass_through[i] ? 1 : 0;
      in[i].type = *type;
      in[i].fmt = static_cast<rknn_tensor_format>(fmts[i]);
    }
    std::vector<py::array_t<float>> results;
    std::vector<rknn_output> out(outputs_.size());
    for (std::size_t i = 0; i < outputs_.size(); ++i) {
      const rknn_tensor_attr& a = outputs_[i];
      results.emplace_back(std::vector<py::ssize_t>(a.dims, a.dims + a.n_dims));
      out[i].want_float = 1;
      out[i].is_prealloc = 1;
      out[i].index = static_cast<std::uint32_t>(i);
      out[i].buf = results.back().mutable_data();
      out[i].size = static_cast<std::uint32_t>(results.back().nbytes());
    }
    Capture c;
    const char* failed = nullptr;
    int r = 0;
    {
      py::gil_scoped_release nogil;
      if ((r = rknn_inputs_set(ctx_, static_cast<std::uint32_t>(in.size()), in.data())) != RKNN_SUCC) {
        failed = "rknn_inputs_set";
      } else if ((r = rknn_run(ctx_, nullptr)) != RKNN_SUCC) {
        failed = "rknn_run";
      } else if ((r = rknn_outputs_get(ctx_, static_cast<std::uint32_t>(out.size()), out.data(), nullptr)) != RKNN_SUCC) {
        failed = "rknn_outputs_get";
      }
    }
    if (failed != nullptr) throw_rknn(failed, r, c);
    py::list list;
    for (auto& a : results) list.append(a);
    return list;
  }

  std::int64_t perf_run() {
    live();
    Capture c;
    rknn_perf_run perf{};
    const int r = rknn_query(ctx_, RKNN_QUERY_PERF_RUN, &perf, sizeof perf);
    if (r != RKNN_SUCC) throw_rknn("rknn_query(RKNN_QUERY_PERF_RUN)", r, c);
    return perf.run_duration;
  }

  // The SoC the board clock predicts for (SVP_ACL_RKNN_CONFIG's softnpu.clock "board"), or
  // None on the host clock: what perf_run / perf_detail report.
  std::optional<std::string> board_clock() {
    live();
    std::string soc = svp::runtime::rknn::board_clock_soc(ctx_);
    if (soc.empty()) return std::nullopt;
    return soc;
  }

  std::string perf_detail() {
    live();
    Capture c;
    rknn_perf_detail perf{};
    const int r = rknn_query(ctx_, RKNN_QUERY_PERF_DETAIL, &perf, sizeof perf);
    if (r != RKNN_SUCC) throw_rknn("rknn_query(RKNN_QUERY_PERF_DETAIL)", r, c);
    return perf.perf_data != nullptr ? std::string(perf.perf_data, perf.data_len) : std::string();
  }

  // RKNN_QUERY_MEM_SIZE: (weights, internal tensors, everything the context allocated).
  py::tuple mem_size() {
    live();
    Capture c;
    rknn_mem_size mem{};
    const int r = rknn_query(ctx_, RKNN_QUERY_MEM_SIZE, &mem, sizeof mem);
    if (r != RKNN_SUCC) throw_rknn("rknn_query(RKNN_QUERY_MEM_SIZE)", r, c);
    return py::make_tuple(mem.total_weight_size, mem.total_internal_size, mem.total_dma_allocated_size);
  }

  std::string sdk_version() {
    live();
    Capture c;
    rknn_sdk_version v{};
    const int r = rknn_query(ctx_, RKNN_QUERY_SDK_VERSION, &v, sizeof v);
    if (r != RKNN_SUCC) throw_rknn("rknn_query(RKNN_QUERY_SDK_VERSION)", r, c);
    return std::string(v.api_version) + " / " + v.drv_version;
  }

 private:
  void live() const {
    if (ctx_ == 0) throw std::runtime_error("the runtime was released");
  }
  std::vector<rknn_tensor_attr> query_attrs(rknn_query_cmd cmd, std::uint32_t n, const Capture& c) {
    std::vector<rknn_tensor_attr> v(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      std::memset(&v[i], 0, sizeof v[i]);
      v[i].index = i;
      const int r = rknn_query(ctx_, cmd, &v[i], sizeof v[i]);
      if (r != RKNN_SUCC) throw_rknn("rknn_query(attributes)", r, c);
    }
    return v;
  }
  static py::list attrs(const std::vector<rknn_tensor_attr>& v) {
    py::list l;
    for (const auto& a : v) l.append(attr_dict(a));
    return l;
  }

  rknn_context ctx_ = 0;
  bool dynamic_ = false;
  std::vector<rknn_tensor_attr> inputs_, outputs_;
};

// The compiler's Status as the Python exception of its kind.
[[noreturn]] void throw_status(const svp::Status& s) {
  const std::string& m = s.message();
  if (s.code() == svp::err::kFeatureUnsupported) {
    PyErr_SetString(PyExc_NotImplementedError, m.c_str());
    throw py::error_already_set();
  }
  if (s.code() == svp::err::kInvalidFile) {
    PyErr_SetString(PyExc_FileNotFoundError, m.c_str());
    throw py::error_already_set();
  }
  if (s.code() == svp::err::kInvalidParam || s.code() == svp::err::kParseFile) throw std::invalid_argument(m);
  throw std::runtime_error(m);
}

// rknn_convert's YAML (written by rknn.api.RKNN.build from its arguments) → model bytes,
// the warnings (settings without effect) and the compiler's log.
// high_precision / float_layers (rknn.api's hybrid_quantization_step2): layers raised one
// step (--high_precision_layer: A8W8 → A16W8) or kept float32 (CompileOptions::float_layer).
py::tuple build_rknn(const std::string& yml, const std::string& target, const std::string& caller,
                     const std::vector<std::string>& high_precision, const std::vector<std::string>& float_layers,
                     bool export_qdq) {
  auto plan = svp::rknn_convert::read_convert_config(yml, target);
  if (!plan.ok()) throw_status(plan.status());
  plan->options.high_precision_layer = high_precision;
  plan->options.float_layer = float_layers;
  // The compiler only asks whether a QDQ model is wanted (it returns the bytes; svp_atc
  // writes them to the named file): here the bytes go back to rknn.api.RKNN.export_qdq.
  if (export_qdq) {
    plan->options.export_qdq = "rknn.api.RKNN.export_qdq";
    plan->options.export_qdq_optional = true;  // a model without a QDQ form still builds
  }
  std::optional<svp::Result<svp::rknn_convert::Converted>> r;
  {
    py::gil_scoped_release nogil;
    r.emplace(svp::rknn_convert::convert(std::move(*plan), caller));
  }
  if (!r->ok()) throw_status(r->status());
  svp::rknn_convert::Converted& c = **r;
  py::bytes image(reinterpret_cast<const char*>(c.image.data()), c.image.size());
  return py::make_tuple(image, c.warnings, c.log, py::bytes(c.qdq_onnx), c.qdq_error);
}

// rknn.api.RKNN.accuracy_analysis: the model of the YAML compiled again with svp_atc's
// per-layer accuracy report on `accuracy_inputs` (--accuracy_inputs' format); the report's
// CSV (quant/layer_accuracy.h), its summary lines and the equivalent svp_atc command line.
py::dict analyse_rknn(const std::string& yml, const std::string& target, const std::string& caller,
                      const std::string& accuracy_inputs) {
  auto plan = svp::rknn_convert::read_convert_config(yml, target);
  if (!plan.ok()) throw_status(plan.status());
  plan->options.accuracy_report = true;
  plan->options.accuracy_inputs = accuracy_inputs;
  std::optional<svp::Result<svp::rknn_convert::Converted>> r;
  {
    py::gil_scoped_release nogil;
    r.emplace(svp::rknn_convert::convert(std::move(*plan), caller));
  }
  if (!r->ok()) throw_status(r->status());
  py::dict d;
  d["csv"] = (*r)->layer_accuracy_csv;
  d["summary"] = (*r)->accuracy_summary;
  d["log"] = (*r)->log;
  d["command_line"] = (*r)->command_line;
  return d;
}

// svp_atc's command line (`--key=value` arguments, parsed by svp_atc's own parser) → the
// model image bytes and the compiler's log; no file is written.
// `progress` (None, or a callable (stage, done, total)) hears of calibration and of the
// per-layer accuracy analysis as they go, on the compiling thread with the GIL taken; an
// exception it raises is printed and otherwise ignored (the compile goes on).
py::tuple compile_atc(const std::vector<std::string>& args, const py::object& progress) {
  auto parsed = svp::compiler::parse_atc_command_line(args);
  if (!parsed.ok()) throw_status(parsed.status());
  if (parsed->options.mode != 0) throw std::invalid_argument("mode: only --mode=0 (compile) is available from Python");
  if (!progress.is_none()) {
    auto report = [&progress](const char* stage, std::size_t done, std::size_t total) {
      py::gil_scoped_acquire gil;
      try {
        progress(stage, done, total);
      } catch (py::error_already_set& e) {
        e.discard_as_unraisable("svp_acl.compile progress callback");
      }
    };
    parsed->options.calibration_progress = [report](std::size_t d, std::size_t t) { report("calibration", d, t); };
    parsed->options.accuracy_progress = [report](std::size_t d, std::size_t t) { report("accuracy_report", d, t); };
  }
  std::optional<svp::Result<svp::compiler::CompileResult>> r;
  {
    py::gil_scoped_release nogil;
    r.emplace(svp::compiler::compile(parsed->options, parsed->unsupported));
  }
  if (!r->ok()) throw_status(r->status());
  const auto& image = (*r)->model.image;
  return py::make_tuple(py::bytes(reinterpret_cast<const char*>(image.data()), image.size()), (*r)->log,
                        parsed->ignored);
}

// The board timing model's prediction for a model image on the target it was compiled
// for (docs/board_time.md): per program layer and in total, in microseconds.
py::dict predict_board_time(const py::bytes& image) {
  const std::string bytes = image;
  auto m = svp::model::read_model(bytes.data(), bytes.size());
  if (!m.ok()) throw std::invalid_argument("the model image does not parse: " + m.status().message());
  const std::string soc = svp::runtime::rknn::compiled_soc(m->program.compiler.command_line);
  const svp::target::DeviceProfile* device = svp::target::find_profile(soc);
  if (device == nullptr) {
    throw std::invalid_argument("the model records no known target (--soc_version '" + soc +
                                "'): its board time cannot be predicted");
  }
  const svp::target::ProgramTime t = svp::compiler::predict_board_time(m->program, *device);
  py::list layers;
  for (std::size_t i = 0; i < t.layers.size() && i < m->program.layers.size(); ++i) {
    const auto& l = m->program.layers[i];
    py::dict d;
    d["name"] = l.name;
    d["op"] = l.op;
    d["unit"] = l.target == svp::model::Target::kNpu ? "NPU" : "CPU";
    d["us"] = t.layers[i].us;
    // As svp_atc's atc_perf.csv says it: no time of its own = folded into its producer.
    d["bound"] = std::string(t.layers[i].us > 0 ? svp::target::to_string(t.layers[i].bound) : "fused");
    d["ddr_bytes"] = t.layers[i].ddr_bytes;
    layers.append(d);
  }
  py::dict r;
  r["soc"] = device->name;
  r["layers"] = layers;
  r["task_us"] = t.task_us;
  r["total_us"] = t.total_us;
  return r;
}

// A model image described as svp_atc --mode=1 writes om.json (compiler/om_json.h): per
// layer its name, type, precision and tensors (dtype, quantization), as JSON text.
std::string model_json(const py::bytes& image) {
  const std::string bytes = image;
  auto m = svp::model::read_model(bytes.data(), bytes.size());
  if (!m.ok()) throw std::invalid_argument("the model image does not parse: " + m.status().message());
  return svp::compiler::om_json(m->program, m->weights_size).dump();
}

// A YAML document as Python objects (mappings → dict, sequences → list, scalars → str), read
// with the yaml-cpp the module links (Debian's Python has no YAML package by default).
py::object yaml_to_python(const YAML::Node& n) {
  if (n.IsMap()) {
    py::dict d;
    for (const auto& kv : n) d[py::str(kv.first.as<std::string>())] = yaml_to_python(kv.second);
    return std::move(d);
  }
  if (n.IsSequence()) {
    py::list l;
    for (const auto& item : n) l.append(yaml_to_python(item));
    return std::move(l);
  }
  if (n.IsScalar()) return py::str(n.Scalar());
  return py::none();
}

py::object load_yaml(const std::string& path) {
  try {
    return yaml_to_python(YAML::LoadFile(path));
  } catch (const YAML::BadFile&) {
    throw std::invalid_argument(path + " cannot be read");
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(path + ": not valid YAML: " + e.what());
  }
}

// An ONNX model's inputs (initializers excluded): [(name, dims)], -1 for a symbolic dimension.
std::vector<std::pair<std::string, std::vector<std::int64_t>>> onnx_inputs(const std::string& path) {
  auto file = svp::compiler::OnnxFile::read(path);
  if (!file.ok()) throw_status(file.status());
  const auto names = file->input_names();
  const auto dims = file->input_dims();
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> out;
  for (std::size_t i = 0; i < names.size() && i < dims.size(); ++i) out.emplace_back(names[i], dims[i]);
  return out;
}

std::string rknn_platform(const std::string& name) {
  auto p = svp::rknn_convert::rknn_platform(name);
  if (!p.ok()) throw std::invalid_argument(p.status().message());
  return (*p)->name;
}

// rknn.utils.onnx_edit (compiler/onnx_io_edit.h): the graph's inputs and outputs.
py::list onnx_io(const std::string& path) {
  auto r = svp::compiler::onnx_io(path);
  if (!r.ok()) throw_status(r.status());
  py::list out;
  for (const auto& io : *r) out.append(py::make_tuple(io.name, io.output, io.dims));
  return out;
}

// edits: [(name, is_output, new_shape, [("reshape" | "transpose", values)])].
void onnx_edit_io(const std::string& in_path, const std::string& out_path, const py::list& edits) {
  std::vector<svp::compiler::OnnxIoEdit> list;
  for (const auto& item : edits) {
    const auto t = item.cast<py::tuple>();
    svp::compiler::OnnxIoEdit e;
    e.name = t[0].cast<std::string>();
    e.output = t[1].cast<bool>();
    e.new_shape = t[2].cast<std::vector<std::int64_t>>();
    for (const auto& step : t[3].cast<py::list>()) {
      const auto st = step.cast<py::tuple>();
      svp::compiler::OnnxIoStep s;
      s.kind = st[0].cast<std::string>() == "transpose" ? svp::compiler::OnnxIoStep::Kind::kTranspose
                                                        : svp::compiler::OnnxIoStep::Kind::kReshape;
      s.values = st[1].cast<std::vector<std::int64_t>>();
      e.steps.push_back(std::move(s));
    }
    list.push_back(std::move(e));
  }
  const svp::Status s = svp::compiler::edit_onnx_io(in_path, out_path, list);
  if (!s.ok()) throw_status(s);
}

// export_encrypted_rknn_model's cipher (runtime/rknn_crypt.h): the same code librknnrt
// decrypts with.
py::bytes encrypt_rknn(const py::bytes& image, int crypt_level) {
  const std::string bytes = image;
  const std::vector<std::uint8_t> plain(bytes.begin(), bytes.end());
  if (svp::runtime::rknn::is_encrypted_model(plain.data(), plain.size())) {
    throw std::invalid_argument("the model is already encrypted");
  }
  auto m = svp::model::read_model(bytes.data(), bytes.size());
  if (!m.ok()) throw std::invalid_argument("the input is not a model svp-acl exported: " + m.status().message());
  // The guide's platforms for encryption (seed 000 §5.9): not the RV1106/RV1103.
  const std::string soc = svp::runtime::rknn::compiled_soc(m->program.compiler.command_line);
  if (soc.rfind("RV110", 0) == 0) {
    throw std::invalid_argument("model encryption is not supported on " + soc +
                                " (the toolkit encrypts models of RK3562/RK3566/RK3568/RK3576/RK3588 only)");
  }
  auto r = svp::runtime::rknn::encrypt_model(plain, crypt_level);
  if (!r.ok()) throw std::invalid_argument(r.status().message());
  return py::bytes(reinterpret_cast<const char*>(r->data()), r->size());
}

bool is_encrypted_rknn(const py::bytes& image) {
  const std::string bytes = image;
  return svp::runtime::rknn::is_encrypted_model(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace

PYBIND11_MODULE(_svp_acl, m) {
  m.doc() = "svp-acl's native module: the compiler (rknn_convert's conversion) and librknnrt (docs/python.md)";
  svp::log::get().sinks().push_back(std::make_shared<CaptureSink>());
  m.def("build_rknn", &build_rknn, py::arg("yml"), py::arg("target"), py::arg("caller"),
        py::arg("high_precision") = std::vector<std::string>{}, py::arg("float_layers") = std::vector<std::string>{},
        py::arg("export_qdq") = false,
        "Compiles the model an rknn_convert YAML file describes; returns (image bytes, warnings, log, QDQ ONNX "
        "bytes: the quantization as svp_atc --export_qdq writes it with export_qdq=True, empty otherwise).");
  m.def("analyse_rknn", &analyse_rknn, py::arg("yml"), py::arg("target"), py::arg("caller"), py::arg("accuracy_inputs"),
        "Compiles the YAML's model with the per-layer accuracy report on these inputs; returns a dict (csv, summary, log, command_line).");
  m.def("compile_atc", &compile_atc, py::arg("args"), py::arg("progress") = py::none(),
        "Compiles as svp_atc does with these --key=value arguments; returns (image bytes, log, ignored flags). "
        "progress(stage, done, total) is called as calibration and the accuracy analysis go.");
  m.def("predict_board_time", &predict_board_time, py::arg("image"),
        "The board timing model's predicted time of a model image on its target: dict (soc, layers, task_us, total_us).");
  m.def("model_json", &model_json, py::arg("image"),
        "A model image as svp_atc --mode=1's om.json (JSON text): layers with precision and tensor quantization.");
  m.def("load_yaml", &load_yaml, py::arg("path"),
        "A YAML file as dicts, lists and strings; ValueError naming the file and line when it is not valid YAML.");
  m.def("onnx_inputs", &onnx_inputs, py::arg("path"),
        "An ONNX model's inputs as [(name, dims)], -1 for a symbolic dimension.");
  m.def("rknn_platform", &rknn_platform, py::arg("name"),
        "The RKNN device profile's name for a platform name (any case); ValueError naming the accepted ones.");
  m.def("onnx_io", &onnx_io, py::arg("path"),
        "An ONNX model's graph inputs and outputs as [(name, is_output, dims)], -1 for a symbolic dimension.");
  m.def("onnx_edit_io", &onnx_edit_io, py::arg("model"), py::arg("export_path"), py::arg("edits"),
        "Writes the model with inputs/outputs reshaped: edits [(name, is_output, new_shape, [(op, values)])].");
  m.def("encrypt_rknn", &encrypt_rknn, py::arg("image"), py::arg("crypt_level"),
        "A model image encrypted at crypt_level 1..3 (AES-GCM; librknnrt's rknn_init decrypts it); ValueError otherwise.");
  m.def("is_encrypted_rknn", &is_encrypted_rknn, py::arg("image"),
        "True when the bytes start as an encrypted model file does.");
  py::class_<Runtime>(m, "Runtime")
      .def(py::init<const py::bytes&, std::uint32_t>(), py::arg("model"), py::arg("flags") = 0)
      .def("inputs", &Runtime::inputs)
      .def("outputs", &Runtime::outputs)
      .def("set_core_mask", &Runtime::set_core_mask)
      .def("run", &Runtime::run, py::arg("inputs"), py::arg("fmts"), py::arg("pass_through"))
      .def("perf_run", &Runtime::perf_run)
      .def("perf_detail", &Runtime::perf_detail)
      .def("board_clock", &Runtime::board_clock)
      .def("sdk_version", &Runtime::sdk_version)
      .def("mem_size", &Runtime::mem_size)
      .def("shape_sets", &Runtime::shape_sets)
      .def("set_input_shapes", &Runtime::set_input_shapes, py::arg("shapes"))
      .def("close", &Runtime::close);
  bind_svp_runtime(m);
  m.attr("RKNN_FLAG_COLLECT_PERF_MASK") = RKNN_FLAG_COLLECT_PERF_MASK;
  m.attr("RKNN_TENSOR_NCHW") = static_cast<int>(RKNN_TENSOR_NCHW);
  m.attr("RKNN_TENSOR_NHWC") = static_cast<int>(RKNN_TENSOR_NHWC);
}
