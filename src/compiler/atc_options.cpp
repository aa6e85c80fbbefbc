#include "compiler/atc_options.h"

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>

#include <fmt/format.h>

namespace svp::compiler {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n\"'");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n\"'");
  return s.substr(b, e - b + 1);
}

Result<std::int64_t> to_int(const std::string& flag, const std::string& v) {
  try {
    std::size_t used = 0;
    const long long x = std::stoll(v, &used);
    if (used == v.size()) return static_cast<std::int64_t>(x);
  } catch (const std::exception&) {
  }
  return Error(err::kInvalidParam, "--{}={}: not an integer", flag, v);
}

Result<std::vector<std::int64_t>> to_ints(const std::string& flag, const std::string& v) {
  std::vector<std::int64_t> out;
  for (const std::string& part : split(v, ',')) {
    auto x = to_int(flag, trim(part));
    if (!x.ok()) return Error(err::kInvalidParam, "--{}={}: \"{}\" is not an integer", flag, v, part);
    out.push_back(*x);
  }
  return out;
}

Result<bool> to_bool(const std::string& flag, const std::string& v) {
  if (v == "1" || v == "true" || v == "True") return true;
  if (v == "0" || v == "false" || v == "False") return false;
  return Error(err::kInvalidParam, "--{}={}: expected true/false or 1/0", flag, v);
}

Result<model::DType> to_dtype(const std::string& flag, const std::string& v) {
  static const std::pair<const char*, model::DType> kTypes[] = {
      {"FP32", model::DType::kFloat32}, {"FP16", model::DType::kFloat16}, {"INT8", model::DType::kInt8},
      {"UINT8", model::DType::kUint8},  {"INT16", model::DType::kInt16},  {"UINT16", model::DType::kUint16},
      {"INT32", model::DType::kInt32},  {"UINT32", model::DType::kUint32}};
  for (const auto& [name, t] : kTypes) {
    if (v == name) return t;
  }
  return Error(err::kInvalidParam, "--{}: type \"{}\" is not one of FP32, FP16, INT8, UINT8, INT16, UINT16, INT32, UINT32",
               flag, v);
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

using Handler = std::function<Status(ParsedCommandLine&, const std::string& flag, const std::string& value)>;

struct Flag {
  const char* name;
  const char* help;
  Handler handle;
};

Handler str(std::string CompileOptions::*field) {
  return [field](ParsedCommandLine& p, const std::string&, const std::string& v) -> Status {
    p.options.*field = v;
    return Status::Ok();
  };
}

Handler integer(std::int32_t CompileOptions::*field, std::int64_t lo, std::int64_t hi) {
  return [field, lo, hi](ParsedCommandLine& p, const std::string& f, const std::string& v) -> Status {
    auto x = to_int(f, v);
    if (!x.ok()) return x.status();
    if (*x < lo || *x > hi) return Error(err::kInvalidParam, "--{}={}: outside {}..{}", f, v, lo, hi);
    p.options.*field = static_cast<std::int32_t>(*x);
    return Status::Ok();
  };
}

Handler boolean(bool CompileOptions::*field) {
  return [field](ParsedCommandLine& p, const std::string& f, const std::string& v) -> Status {
    auto b = to_bool(f, v);
    if (!b.ok()) return b.status();
    p.options.*field = *b;
    return Status::Ok();
  };
}

// A cosine similarity in (0, 1]; `zero_means_off` also accepts 0.
Handler cosine(double CompileOptions::*field, bool zero_means_off) {
  return [field, zero_means_off](ParsedCommandLine& p, const std::string& f, const std::string& v) -> Status {
    char* end = nullptr;
    errno = 0;
    const double x = std::strtod(v.c_str(), &end);
    const bool number = !v.empty() && end == v.c_str() + v.size() && errno == 0 && std::isfinite(x);
    if (!number || x < 0.0 || x > 1.0 || (x == 0.0 && !zero_means_off)) {
      return Error(err::kInvalidParam, "--{}={}: a cosine similarity in {} is expected, e.g. 0.99", f, v,
                   zero_means_off ? "[0, 1] (0: off)" : "(0, 1]");
    }
    p.options.*field = x;
    return Status::Ok();
  };
}

// A vendor flag accepted and recorded; `changes_result` ones make compile() refuse.
// --log_level takes the numbers the vendor's SVP ATC documents and the level names of
// Ascend ATC's --log, which users of both toolchains type interchangeably.
Handler log_level() {
  return [](ParsedCommandLine& p, const std::string& f, const std::string& v) -> Status {
    static const std::pair<const char*, int> kNames[] = {{"debug", 0},   {"info", 1},  {"warning", 2},
                                                         {"warn", 2},    {"error", 3}, {"null", 3}};
    std::string lower = v;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    for (const auto& [name, level] : kNames) {
      if (lower == name) {
        p.options.log_level = level;
        return Status::Ok();
      }
    }
    auto x = to_int(f, v);
    if (!x.ok() || *x < 0 || *x > 3) {
      return Error(err::kInvalidParam,
                   "--{}={}: give 0 (debug), 1 (info), 2 (warning, the default), 3 (error) or one of the names "
                   "debug, info, warning, error, null",
                   f, v);
    }
    p.options.log_level = static_cast<std::int32_t>(*x);
    return Status::Ok();
  };
}

Handler vendor_only(bool changes_result) {
  return [changes_result](ParsedCommandLine& p, const std::string& f, const std::string& v) -> Status {
    (changes_result ? p.unsupported : p.ignored).push_back(f + "=" + v);
    return Status::Ok();
  };
}

const std::vector<Flag>& flags() {
  static const std::vector<Flag> kFlags = {
      {"model", "ONNX model file", str(&CompileOptions::model)},
      {"framework", "5 = ONNX (the only one; convert Caffe/TF models to ONNX first)",
       [](ParsedCommandLine& p, const std::string& f, const std::string& v) -> Status {
         auto x = to_int(f, v);
         if (!x.ok()) return x.status();
         if (*x != 5) {
           return Error(err::kInvalidParam,
                        "--framework={}: only 5 (ONNX) is supported; convert the model to ONNX (e.g. caffe2onnx, "
                        "tf2onnx) and compile that",
                        v);
         }
         p.options.framework = 5;
         return Status::Ok();
       }},
      {"output", "output path; \".om\" is appended", str(&CompileOptions::output)},
      {"soc_version",
       "SS928V100 | SS626V100 | Hi3519DV500 | Hi3516CV610 (SVP), or RK3588 | RK3576 | RK3566 | RK3568 | RK3562 | "
       "RV1106 | RV1103 (RKNN: a model for librknnrt, docs/rknn.md)",
       [](ParsedCommandLine& p, const std::string&, const std::string& v) -> Status {
         const target::DeviceProfile* soc = target::find_profile(v);
         // An RKNN target compiles the same model image (its op support set decides
         // placement); librknnrt loads it (docs/rknn.md).
         if (soc != nullptr) {
           p.options.soc_version = soc;
           return Status::Ok();
         }
         return Error(err::kInvalidParam, "--soc_version={}: not a known target; svp_atc's targets are {} (SVP) and {} (RKNN)",
                      v, target::profile_names(target::Family::kSvp), target::profile_names(target::Family::kRknn));
       }},
      {"input_shape", "\"name:1,3,224,224;name2:...\" (-1 = a gear dimension)",
       [](ParsedCommandLine& p, const std::string& f, const std::string& v) -> Status {
         p.options.input_shape.clear();
         for (const std::string& item : split(v, ';')) {
           if (trim(item).empty()) continue;
           const auto colon = item.rfind(':');
           if (colon == std::string::npos || colon == 0) {
             return Error(err::kInvalidParam, "--{}: \"{}\" is not name:d0,d1,...", f, item);
           }
           auto dims = to_ints(f, item.substr(colon + 1));
           if (!dims.ok()) return dims.status();
           for (std::int64_t d : *dims) {
             if (d == 0 || d < -1) return Error(err::kInvalidParam, "--{}: dimension {} in \"{}\"", f, d, item);
           }
           p.options.input_shape.emplace_back(trim(item.substr(0, colon)), *dims);
         }
         return Status::Ok();
       }},
      {"input_format", "NCHW (the only layout of the SVP ATC)",
       [](ParsedCommandLine& p, const std::string&, const std::string& v) -> Status {
         if (v != "NCHW" && v != "ND") return Error(err::kInvalidParam, "--input_format={}: only NCHW is supported", v);
         p.options.input_format = v;
         return Status::Ok();
       }},
      {"input_type", "\"name:UINT8;name2:FP32\" (feature-map inputs)",
       [](ParsedCommandLine& p, const std::string& f, const std::string& v) -> Status {
         for (const std::string& item : split(v, ';')) {
           if (trim(item).empty()) continue;
           const auto colon = item.rfind(':');
           if (colon == std::string::npos) return Error(err::kInvalidParam, "--{}: \"{}\" is not name:TYPE", f, item);
           auto t = to_dtype(f, trim(item.substr(colon + 1)));
           if (!t.ok()) return t.status();
           p.options.input_type[trim(item.substr(0, colon))] = *t;
         }
         return Status::Ok();
       }},
      {"output_type", "FP32 for all outputs, or \"node:index:TYPE;...\"",
       [](ParsedCommandLine& p, const std::string& f, const std::string& v) -> Status {
         for (const std::string& item : split(v, ';')) {
           if (trim(item).empty()) continue;
           const auto colon = item.rfind(':');
           auto t = to_dtype(f, trim(colon == std::string::npos ? item : item.substr(colon + 1)));
           if (!t.ok()) return t.status();
           p.options.output_type[colon == std::string::npos ? "" : trim(item.substr(0, colon))] = *t;
         }
         return Status::Ok();
       }},
      {"out_nodes", "\"node:index;node2:index\": the model's outputs",
       [](ParsedCommandLine& p, const std::string& f, const std::string& v) -> Status {
         for (const std::string& item : split(v, ';')) {
           if (trim(item).empty()) continue;
           const auto colon = item.rfind(':');
           if (colon == std::string::npos) return Error(err::kInvalidParam, "--{}: \"{}\" is not node:index", f, item);
           auto idx = to_int(f, trim(item.substr(colon + 1)));
           if (!idx.ok()) return idx.status();
           p.options.out_nodes.emplace_back(trim(item.substr(0, colon)), static_cast<std::int32_t>(*idx));
         }
         return Status::Ok();
       }},
      {"insert_op_conf", "AIPP configuration file (both vendor dialects; docs/compiler.md)", str(&CompileOptions::insert_op_conf)},
      {"dynamic_image_size", "\"h1,w1;h2,w2\": resolution gears (the first the largest)",
       [](ParsedCommandLine& p, const std::string& f, const std::string& v) -> Status {
         p.options.dynamic_image_size.clear();
         for (const std::string& item : split(v, ';')) {
           if (trim(item).empty()) continue;
           auto hw = to_ints(f, item);
           if (!hw.ok()) return hw.status();
           if (hw->size() != 2 || (*hw)[0] <= 0 || (*hw)[1] <= 0) {
             return Error(err::kInvalidParam, "--{}: gear \"{}\" is not h,w", f, item);
           }
           p.options.dynamic_image_size.emplace_back((*hw)[0], (*hw)[1]);
         }
         const auto n = p.options.dynamic_image_size.size();
         if (n < 2 || n > 100) return Error(err::kInvalidParam, "--{}: {} gears (the vendor allows 2..100)", f, n);
         return Status::Ok();
       }},
      {"dynamic_batch_size", "\"1,2,4,8\": batch gears",
       [](ParsedCommandLine& p, const std::string& f, const std::string& v) -> Status {
         auto b = to_ints(f, v);
         if (!b.ok()) return b.status();
         for (std::int64_t x : *b) {
           if (x <= 0) return Error(err::kInvalidParam, "--{}: batch {} must be positive", f, x);
         }
         p.options.dynamic_batch_size = *b;
         return Status::Ok();
       }},
      {"force_to_cpu", "\"node;node\": run these on the AI-CPU",
       [](ParsedCommandLine& p, const std::string&, const std::string& v) -> Status {
         for (const std::string& item : split(v, ';')) {
           if (!trim(item).empty()) p.options.force_to_cpu.push_back(trim(item));
         }
         return Status::Ok();
       }},
      {"online_model_type", "0..7 (board profiling/dump marks; recorded)",
       integer(&CompileOptions::online_model_type, 0, 7)},
      {"save_original_model", "true|false",
       boolean(&CompileOptions::save_original_model)},
      {"log_level", "0 debug, 1 info, 2 warning (default), 3 error; or the names (null = error)", log_level()},
      // Ascend ATC's flag for the same thing (--log=debug|info|warning|error|null): read as
      // --log_level so that a vendor script's line works unchanged.
      {"log", "Ascend ATC's spelling of --log_level (debug|info|warning|error|null)", log_level()},
      {"mode", "0 compile, 1 model → JSON, 3 pre-check", integer(&CompileOptions::mode, 0, 3)},
      {"om", "offline model for --mode=1", str(&CompileOptions::om)},
      {"json", "JSON output of --mode=1", str(&CompileOptions::json)},
      {"compile_mode", "0 A8W8 (default), 1 A16W8, 5/6 cube-only, float (ours: no quantization)",
       [](ParsedCommandLine& p, const std::string&, const std::string& v) -> Status {
         if (v != "0" && v != "1" && v != "5" && v != "6" && v != "float") {
           return Error(err::kInvalidParam, "--compile_mode={}: not one of 0, 1, 5, 6, float", v);
         }
         p.options.compile_mode = v;
         return Status::Ok();
       }},
      {"dump_graph", "directory: Graphviz .dot of the graph after each stage", str(&CompileOptions::dump_graph)},
      {"segment_max_macs", "segments (the preemption unit) of at most this many MACs where layers allow (ours)",
       [](ParsedCommandLine& p, const std::string& f, const std::string& v) -> Status {
         auto x = to_int(f, v);
         if (!x.ok()) return x.status();
         if (*x <= 0) return Error(err::kInvalidParam, "--{}={}: must be positive", f, v);
         p.options.max_segment_macs = static_cast<std::uint64_t>(*x);
         return Status::Ok();
       }},
      {"preemptible", "1: higher-priority tasks may preempt this model between segments (ours; default 0)",
       boolean(&CompileOptions::preemptible)},
      {"buffer_reuse", "svp_acl_buffer_reuse_type of the model (ours), -1..7",
       integer(&CompileOptions::buffer_reuse, -1, 7)},
      // The quantization family (the next stage of the compiler) and tuning flags.
      {"image_list", "\"input:list.txt;input2:list2.txt\": calibration data, one item per line",
       str(&CompileOptions::image_list)},
      {"quant_mode", "0 linear (min-max), 1 search-based (MSE)", integer(&CompileOptions::quant_mode, 0, 1)},
      {"calibration", "minmax | percentile | entropy | mse (ours; overrides --quant_mode)",
       [](ParsedCommandLine& p, const std::string& f, const std::string& v) -> Status {
         if (v != "minmax" && v != "percentile" && v != "entropy" && v != "kl" && v != "mse") {
           return Error(err::kInvalidParam, "--{}={}: not one of minmax, percentile, entropy, mse", f, v);
         }
         p.options.calibration = v;
         return Status::Ok();
       }},
      {"weight_quant_per_channel", "1 (default): Conv weights per output channel; 0: per tensor",
       boolean(&CompileOptions::weight_quant_per_channel)},
      {"matmul_per_channel_enable", "1: MatMul/Gemm weights per output column (default 0)",
       boolean(&CompileOptions::matmul_per_channel)},
      {"accuracy_report", "1: per-layer accuracy (single and entire) on the calibration data, <output>_layer_accuracy.csv (ours)",
       boolean(&CompileOptions::accuracy_report)},
      {"accuracy_inputs",
       "\"input:list.txt;...\": inputs the per-layer accuracy report analyses instead of the calibration data "
       "(ours; implies --accuracy_report=1)",
       [](ParsedCommandLine& p, const std::string&, const std::string& v) -> Status {
         p.options.accuracy_inputs = v;
         p.options.accuracy_report = true;
         return Status::Ok();
       }},
      {"bias_correction", "1: Conv biases absorb the mean output shift of weight rounding (ours; default 0)",
       boolean(&CompileOptions::bias_correction)},
      {"auto_mixed_precision",
       "COSINE: raise the layers worst alone until the outputs' cosine to float reaches it (ours; 0 = off)",
       cosine(&CompileOptions::auto_mixed_precision, true)},
      {"auto_mixed_precision_layer", "single-layer cosine below which --auto_mixed_precision raises a layer (0.99)",
       cosine(&CompileOptions::auto_mixed_precision_layer, false)},
      {"auto_mixed_precision_rounds", "at most this many rounds of raising layers (8)",
       integer(&CompileOptions::auto_mixed_precision_rounds, 1, 64)},
      {"auto_mixed_precision_float", "1: --auto_mixed_precision raises layers straight to float32 (default 0: one step)",
       boolean(&CompileOptions::auto_mixed_precision_float)},
      {"high_precision_layer", "\"node;node\": keep these layers float in a quantized model",
       [](ParsedCommandLine& p, const std::string&, const std::string& v) -> Status {
         for (const std::string& item : split(v, ';')) {
           if (!trim(item).empty()) p.options.high_precision_layer.push_back(trim(item));
         }
         return Status::Ok();
       }},
      {"export_qdq", "FILE: also write the quantized model as a QDQ ONNX model that onnxruntime runs (ours)",
       str(&CompileOptions::export_qdq)},
      {"gfpq_param_file", "CalibrationParam file (calibration_param.txt, AMCT's record): fixed layer encodings",
       str(&CompileOptions::gfpq_param_file)},
      {"all_batch_quant_together_enable", "quantization batching", vendor_only(true)},
      {"forward_quantization_option", "quantization forward option", vendor_only(true)},
      {"batch_num", "FC/RNN batch buffers (no effect on the software NPU)", vendor_only(false)},
      {"internal_stride", "row alignment of the model I/O", vendor_only(true)},
      {"fusion_switch_file", "fusion rules on/off", vendor_only(false)},
      {"net_optimize_enable", "graph optimisation switch", vendor_only(false)},
      {"layer_fusion_enable", "inter-layer tiling (hardware only)", vendor_only(false)},
      {"layer_m2m_enable", "memory-to-memory fusion (hardware only)", vendor_only(false)},
      {"softmax_optimize_enable", "softmax optimisation (hardware only)", vendor_only(false)},
      {"n_loop_enable", "loop optimisation (hardware only)", vendor_only(false)},
      {"enable_small_channel", "small-channel optimisation (hardware only)", vendor_only(false)},
      {"custom_ops_lib", "custom operator library", vendor_only(true)},
      {"check_report", "pre-check report file", vendor_only(false)},
      {"dump_data", "calibration dumps", vendor_only(false)},
      {"is_precheck", "1 = --mode=3", vendor_only(false)},
      {"recurrent_max_total_t", "Caffe recurrent limit (ONNX models carry their own)", vendor_only(false)},
      {"max_roi_frame_cnt", "detection ROI frames", vendor_only(false)},
      {"output_reorder", "output order", vendor_only(false)},
      {"dump_mode", "JSON detail for --mode=1", vendor_only(false)},
  };
  return kFlags;
}

const Flag* find_flag(const std::string& name) {
  for (const Flag& f : flags()) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

Status unknown_flag(const std::string& name) {
  std::string best;
  std::size_t best_d = 99;
  for (const Flag& f : flags()) {
    const std::size_t d = edit_distance(name, f.name);
    if (d < best_d) {
      best_d = d;
      best = f.name;
    }
  }
  if (best_d <= std::max<std::size_t>(2, name.size() / 3)) {
    return Error(err::kInvalidParam, "unknown flag --{}; did you mean --{}?", name, best);
  }
  return Error(err::kInvalidParam, "unknown flag --{} (svp_atc --help lists the flags)", name);
}

}  // namespace

Result<std::vector<std::string>> read_atc_config_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error(err::kInvalidParam, "cannot read the configuration file \"{}\"", path);
  std::vector<std::string> args;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    const auto close = t.find(']');
    if (t[0] != '[' || close == std::string::npos) {
      return Error(err::kInvalidParam, "{}:{}: expected a line \"[key] value\", got \"{}\"", path, number, t);
    }
    args.push_back("--" + trim(t.substr(1, close - 1)) + "=" + trim(t.substr(close + 1)));
  }
  return args;
}

Result<ParsedCommandLine> parse_atc_command_line(const std::vector<std::string>& args_in) {
  std::vector<std::string> args = args_in;
  if (args.size() == 1 && !args[0].empty() && args[0][0] != '-') {
    auto from_file = read_atc_config_file(args[0]);
    if (!from_file.ok()) return from_file.status();
    args = std::move(*from_file);
  }
  ParsedCommandLine p;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      p.help = true;
      continue;
    }
    if (a == "--version") {
      p.version = true;
      continue;
    }
    if (a.rfind("--", 0) != 0) {
      // "-output=x": a single dash before a flag name this tool knows.
      if (a.size() > 1 && a[0] == '-' && find_flag(a.substr(1, a.find('=') - 1)) != nullptr) {
        return Error(err::kInvalidParam, "unexpected argument \"{}\"; did you mean \"-{}\"? (flags start with --)", a, a);
      }
      return Error(err::kInvalidParam, "unexpected argument \"{}\" (flags are --key=value or --key value)", a);
    }
    std::string name = a.substr(2), value;
    const auto eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    } else {
      if (i + 1 >= args.size()) return Error(err::kInvalidParam, "--{} needs a value", name);
      value = args[++i];
    }
    const Flag* f = find_flag(name);
    if (f == nullptr) return unknown_flag(name);
    SVP_RETURN_IF_ERROR(f->handle(p, name, trim(value)));
  }
  std::string line;
  for (const std::string& a : args_in) line += (line.empty() ? "" : " ") + a;
  p.options.command_line = line;
  return p;
}

std::string atc_usage() {
  std::string s =
      "usage: svp_atc --model=M.onnx --framework=5 --output=NAME --soc_version=SOC [flags]\n"
      "       svp_atc --mode=1 --om=NAME.om --json=NAME.json\n"
      "       svp_atc config.cfg        (lines \"[key] value\")\n\nflags:\n";
  for (const Flag& f : flags()) s += fmt::format("  --{:<32} {}\n", f.name, f.help);
  return s;
}

}  // namespace svp::compiler
