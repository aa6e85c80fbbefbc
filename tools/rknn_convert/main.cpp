// rknn_convert: ONNX → a model file for librknnrt, configured by rknn-toolkit2's
// rknn_convert YAML, with the vendor's command line
//   rknn_convert -t rk3588 -i ./model_config.yml -o ./output_path
// (the vendor runs it as `python -m rknn.api.rknn_convert`). The output,
// <output_path>/<models.name>.rknn, is an svp-acl model image (docs/rknn.md,
// "rknn_convert"). Exit codes as svp_atc's: 0 success, 1 the model cannot be compiled,
// 2 a configuration or usage error, 3 a file that cannot be read or written, 4 an option
// svp-acl does not implement yet.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "compiler/compile.h"
#include "convert_config.h"
#include "image_dataset.h"

namespace {

namespace fs = std::filesystem;
namespace err = svp::err;

enum Exit { kOk = 0, kModelError = 1, kUsage = 2, kIo = 3, kUnsupported = 4 };

int fail(const svp::Status& s) {
  // The compiler names svp_atc's flag; the YAML's keys are what this user writes.
  const bool shape = s.message().find("--input_shape") != std::string::npos;
  std::fprintf(stderr, "rknn_convert: error: %s%s\n", s.message().c_str(),
               shape ? " (in the .yml: models.subgraphs.inputs and input_size_list)" : "");
  if (s.code() == err::kFeatureUnsupported) return kUnsupported;
  if (s.code() == err::kInvalidParam || s.code() == err::kParseFile) return kUsage;
  if (s.code() == err::kInvalidFile || s.code() == err::kInvalidFileSize) return kIo;
  return kModelError;
}

// What the image records as its compiler command line: rknn_init reads the target from
// the --soc_version token, and a user reading the model sees the svp_atc equivalent.
std::string recorded_command(const std::string& t, const std::string& in, const std::string& out,
                             const svp::compiler::CompileOptions& o) {
  std::string line = "rknn_convert -t " + t + " -i " + in + " -o " + out + " ; as svp_atc: --framework=5 --model=" +
                     o.model + " --soc_version=" + o.soc_version->name + " --compile_mode=" + o.compile_mode;
  if (!o.image_list.empty()) line += " --image_list=" + o.image_list;
  if (!o.calibration.empty()) line += " --calibration=" + o.calibration;
  // The gears of configs.dynamic_input: librknnrt offers exactly these batches (the image
  // keeps only the largest), and a reader sees the svp_atc equivalent.
  if (!o.dynamic_batch_size.empty()) line += fmt::format(" --dynamic_batch_size={}", fmt::join(o.dynamic_batch_size, ","));
  if (!o.dynamic_image_size.empty()) {
    std::vector<std::string> gears;
    for (const auto& [h, w] : o.dynamic_image_size) gears.push_back(fmt::format("{},{}", h, w));
    line += fmt::format(" --dynamic_image_size={}", fmt::join(gears, ";"));
  }
  return line;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rknn_convert: ONNX -> model for librknnrt, from rknn-toolkit2's rknn_convert YAML (docs/rknn.md)"};
  std::string target, config, out_dir, accuracy_inputs, device_id;
  bool verbose = false, eval_perf = false;
  app.add_option("-t", target, "target platform: rk3588, rk3576, rk3566, rk3568, rk3562, rv1106, rv1103")->required();
  app.add_option("-i", config, "model configuration (.yml)")->required();
  app.add_option("-o", out_dir, "output directory (created if missing)")->required();
  app.add_flag("-v", verbose, "print the compiler's log");
  app.add_flag("-e", eval_perf, "vendor: evaluate time and memory on a board (not implemented yet)");
  app.add_option("-a", accuracy_inputs, "vendor: accuracy analysis on these images (not implemented yet)");
  app.add_option("-d", device_id, "vendor: adb device id (not implemented yet)")->expected(0, 1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kOk : kUsage;
  }
  if (eval_perf || app.count("-a") > 0 || app.count("-d") > 0) {
    return fail(svp::Error(err::kFeatureUnsupported, "-e, -a and -d (evaluation on a board) are not implemented yet "
                           "in svp-acl's rknn_convert; run the .rknn with librknnrt on this host instead (docs/rknn.md)"));
  }
  auto plan = svp::rknn_convert::read_convert_config(config, target);
  if (!plan.ok()) return fail(plan.status());
  for (const std::string& w : plan->warnings) std::fprintf(stderr, "rknn_convert: warning: %s\n", w.c_str());
  svp::compiler::CompileOptions& o = plan->options;
  o.command_line = recorded_command(target, config, out_dir, o);
  std::error_code ec;
  // Dataset images become tensor files in a directory of this run's, removed afterwards.
  const fs::path work = fs::temp_directory_path() / ("rknn_convert_" + std::to_string(::getpid()));
  if (!o.image_list.empty()) {
    auto list = svp::rknn_convert::images_to_tensors(o, plan->rgb2bgr, work.string());
    if (!list.ok()) {
      fs::remove_all(work, ec);
      return fail(list.status());
    }
    if (plan->rgb2bgr && *list == o.image_list) {
      std::fprintf(stderr, "rknn_convert: warning: models.configs.quant_img_RGB2BGR has no effect: the dataset names "
                           "no image\n");
    }
    o.image_list = *list;
  }
  auto r = svp::compiler::compile(o);
  fs::remove_all(work, ec);
  if (!r.ok()) return fail(r.status());
  if (verbose) {
    for (const std::string& line : r->log) std::fprintf(stderr, "rknn_convert: %s\n", line.c_str());
  }
  fs::create_directories(out_dir, ec);
  const std::string out = (fs::path(out_dir) / (plan->name + ".rknn")).string();
  std::ofstream file(out, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(r->model.image.data()), static_cast<std::streamsize>(r->model.image.size()));
  if (!file) return fail(svp::Error(err::kInvalidFile, "cannot write {}", out));
  std::fprintf(stderr, "rknn_convert: wrote %s (%zu bytes, %s, %s)\n", out.c_str(), r->model.image.size(),
               o.soc_version->name, o.compile_mode == "float" ? "float" : "int8 asymmetric");
  return kOk;
}
