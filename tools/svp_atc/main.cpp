// svp_atc: the model compiler with the vendor ATC's command line, a thin CLI over the
// compiler library (src/compiler). docs/compiler.md has the flags, outputs and exit codes:
//   0 success, 1 the model cannot be compiled (message names the node and the way out),
//   2 usage error (unknown flag, bad value), 3 I/O error (reading or writing a file),
//   4 a feature this build does not have (A16W8 and cube-only compile modes, AIPP).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "common/read_file.h"
#include "compiler/atc_options.h"
#include "compiler/board_time.h"
#include "compiler/compile.h"
#include "compiler/om_json.h"
#include "compiler/perf_csv.h"
#include "model/format.h"

namespace {

using svp::Status;
namespace err = svp::err;

enum Exit { kOk = 0, kModelError = 1, kUsage = 2, kIo = 3, kUnsupported = 4 };

int fail(const Status& s, int code) {
  std::fprintf(stderr, "svp_atc: error: %s\n", s.message().c_str());
  return code;
}

int exit_code_of(const Status& s) {
  if (s.code() == err::kFeatureUnsupported) return kUnsupported;
  if (s.code() == err::kInvalidParam || s.code() == err::kParseFile) return kUsage;  // incl. --insert_op_conf
  if (s.code() == err::kInvalidFile || s.code() == err::kInvalidFileSize) return kIo;
  return kModelError;
}

bool write_file(const std::string& path, const void* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  return static_cast<bool>(out);
}

int mode_json(const svp::compiler::CompileOptions& o) {
  if (o.json.empty()) return fail(svp::Error(err::kInvalidParam, "--mode=1 needs --json=OUT.json"), kUsage);
  svp::model::Program program;
  std::uint64_t weights = 0;
  std::vector<std::uint8_t> image, weight_bytes;
  if (!o.om.empty()) {
    if (!svp::read_file_bytes(o.om, &image)) return fail(svp::Error(err::kInvalidParam, "cannot read --om {}", o.om), kIo);
    auto m = svp::model::read_model(image.data(), image.size());
    if (!m.ok()) return fail(svp::Error(m.status().code(), "{}: {}", o.om, m.status().message()), kModelError);
    program = m->program;
    weights = m->weights_size;
    if (m->weights != nullptr) weight_bytes.assign(m->weights, m->weights + m->weights_size);
  } else {
    auto r = svp::compiler::compile(o);
    if (!r.ok()) return fail(r.status(), exit_code_of(r.status()));
    program = r->model.program;
    weights = r->model.weights.size();
    weight_bytes = std::move(r->model.weights);
  }
  // The fusions the runtime applies when it loads this model.
  auto fusions = svp::compiler::runtime_fusions(program, weight_bytes.data(), weight_bytes.size());
  if (!fusions.ok()) return fail(fusions.status(), exit_code_of(fusions.status()));
  const std::string text = svp::compiler::om_json(program, weights, &*fusions, o.soc_version).dump(1);
  if (!write_file(o.json, text.data(), text.size())) {
    return fail(svp::Error(err::kInvalidParam, "cannot write {}", o.json), kIo);
  }
  std::fprintf(stderr, "svp_atc: wrote %s\n", o.json.c_str());
  return kOk;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fputs(svp::compiler::atc_usage().c_str(), stderr);
    return kUsage;
  }
  auto parsed = svp::compiler::parse_atc_command_line(args);
  if (!parsed.ok()) return fail(parsed.status(), kUsage);
  if (parsed->help) {
    std::fputs(svp::compiler::atc_usage().c_str(), stdout);
    return kOk;
  }
  if (parsed->version) {
    std::printf("svp_atc (svp-acl) %s\n", SVP_ACL_VERSION_STRING);
    return kOk;
  }
  svp::compiler::CompileOptions& o = parsed->options;
  for (const std::string& f : parsed->ignored) {
    if (o.log_level <= 2) std::fprintf(stderr, "svp_atc: warning: --%s has no effect on the software NPU\n", f.c_str());
  }
  if (o.mode == 1) return mode_json(o);
  if (o.mode == 2) return fail(svp::Error(err::kInvalidParam, "--mode=2 does not exist (0, 1 or 3)"), kUsage);
  if (o.mode == 0 && o.output.empty()) return fail(svp::Error(err::kInvalidParam, "--output is required"), kUsage);
  const auto start = std::chrono::steady_clock::now();
  // Calibration and the accuracy analysis are the long steps: a line per tenth once the
  // compile has taken a second.
  const auto progress = [&o, start](const char* what) {
    return [&o, start, what, next_tenth = std::size_t{1}](std::size_t done, std::size_t total) mutable {
      if (done * 10 < next_tenth * total) return;
      next_tenth = done * 10 / total + 1;
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (s >= 1.0 && o.log_level <= 2) std::fprintf(stderr, "svp_atc: %s %zu/%zu (%.0f s)\n", what, done, total, s);
    };
  };
  o.calibration_progress = progress("calibration batches");
  o.accuracy_progress = progress("accuracy analysis inputs");
  auto r = svp::compiler::compile(o, parsed->unsupported);
  if (!r.ok()) return fail(r.status(), exit_code_of(r.status()));
  if (o.log_level <= 1) {
    for (const std::string& line : r->log) std::fprintf(stderr, "svp_atc: %s\n", line.c_str());
  }
  if (o.mode == 3) {
    std::fprintf(stderr, "svp_atc: pre-check passed: the model compiles (nothing written)\n");
    return kOk;
  }
  std::string out = o.output;
  if (out.size() < 3 || out.compare(out.size() - 3, 3, ".om") != 0) out += ".om";
  if (!write_file(out, r->model.image.data(), r->model.image.size())) {
    return fail(svp::Error(err::kInvalidParam, "cannot write {}", out), kIo);
  }
  // atc_perf.csv beside the model, prefixed with its name so that models compiled into one
  // directory keep theirs (the vendor writes a bare atc_perf.csv).
  const std::string perf = out.substr(0, out.size() - 3) + "_atc_perf.csv";
  const svp::target::DeviceProfile& device = *o.soc_version;
  const std::string csv = svp::compiler::atc_perf_csv(r->model.program, device);
  if (o.log_level <= 1) {
    std::fprintf(stderr, "svp_atc: %s: estimated times for %s at %.1f TOPS int8, %.1f GB/s (%s); lower bounds\n",
                 perf.c_str(), device.name, device.npu_int8_tops, device.ddr_gbps, device.source);
  }
  if (!write_file(perf, csv.data(), csv.size())) return fail(svp::Error(err::kInvalidParam, "cannot write {}", perf), kIo);
  {
    const svp::target::ProgramTime t = svp::compiler::predict_board_time(r->model.program, device);
    double by[3] = {0, 0, 0};
    for (const svp::target::LayerTime& l : t.layers) by[static_cast<int>(l.bound)] += l.us;
    std::fprintf(stderr,
                 "svp_atc: predicted board time on %s: %.3f ms per execution (compute-bound layers %.3f ms, "
                 "DDR-bound %.3f ms, overheads %.3f ms; predicted from published figures, not measured: "
                 "docs/board_time.md)\n",
                 device.name, t.total_us / 1e3, by[0] / 1e3, by[1] / 1e3, (t.total_us - by[0] - by[1]) / 1e3);
  }
  if (!r->layer_accuracy_csv.empty()) {
    const std::string stem = out.substr(0, out.size() - 3) + "_layer_accuracy";
    for (const auto& [file, text] : {std::pair{stem + ".csv", &r->layer_accuracy_csv},
                                     std::pair{stem + ".html", &r->layer_accuracy_html}}) {
      if (!write_file(file, text->data(), text->size())) {
        return fail(svp::Error(err::kInvalidParam, "cannot write {}", file), kIo);
      }
    }
    // The report's summary (first weak layers, predicted output cosine, input sensitivity)
    // at the default level too: it is what the flag was given for (--log_level=1 printed it
    // with the log already).
    if (o.log_level > 1) {
      for (const std::string& line : r->accuracy_summary) std::fprintf(stderr, "svp_atc: %s\n", line.c_str());
    }
    std::fprintf(stderr, "svp_atc: per-layer accuracy in %s.csv and %s.html\n", stem.c_str(), stem.c_str());
  }
  // The encodings of a quantized model, in the form --gfpq_param_file reads (the vendor
  // writes a bare calibration_param.txt; prefixed for the same reason as atc_perf.csv).
  if (!r->calibration_param.empty()) {
    const std::string params = out.substr(0, out.size() - 3) + "_calibration_param.txt";
    if (!write_file(params, r->calibration_param.data(), r->calibration_param.size())) {
      return fail(svp::Error(err::kInvalidParam, "cannot write {}", params), kIo);
    }
  }
  if (!r->qdq_onnx.empty()) {
    if (!write_file(o.export_qdq, r->qdq_onnx.data(), r->qdq_onnx.size())) {
      return fail(svp::Error(err::kInvalidParam, "cannot write {} (--export_qdq)", o.export_qdq), kIo);
    }
    std::fprintf(stderr, "svp_atc: the quantized model as QDQ ONNX in %s (onnxruntime runs it)\n", o.export_qdq.c_str());
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "svp_atc: wrote %s (%zu bytes, %zu layers) in %.0f ms\n", out.c_str(), r->model.image.size(),
               r->model.program.layers.size(), ms);
  return kOk;
}
