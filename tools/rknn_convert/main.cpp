// rknn_convert: ONNX → a model file for librknnrt, configured by rknn-toolkit2's
// rknn_convert YAML, with the vendor's command line
//   rknn_convert -t rk3588 -i ./model_config.yml -o ./output_path
// (the vendor runs it as `python -m rknn.api.rknn_convert`). The output,
// <output_path>/<models.name>.rknn, is an svp-acl model image (docs/rknn.md,
// "rknn_convert"). Exit codes as svp_atc's: 0 success, 1 the model cannot be compiled,
// 2 a configuration or usage error, 3 a file that cannot be read or written, 4 an option
// svp-acl does not implement yet. --crypt_level N (svp-acl's addition) also writes
// <models.name>.crypt.rknn, the model encrypted as rknn.api's export_encrypted_rknn_model
// encrypts it (docs/rknn.md "Model encryption"). --export_qdq FILE (svp-acl's, svp_atc's
// flag) also writes an int8 model's quantization as a QDQ ONNX model that onnxruntime runs.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "convert.h"
#include "convert_config.h"
#include "runtime/rknn_crypt.h"

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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rknn_convert: ONNX -> model for librknnrt, from rknn-toolkit2's rknn_convert YAML (docs/rknn.md)"};
  std::string target, config, out_dir, accuracy_inputs, device_id, export_qdq;
  bool verbose = false, eval_perf = false;
  int crypt_level = 0;
  app.add_option("-t", target, "target platform: rk3588, rk3576, rk3566, rk3568, rk3562, rv1106, rv1103")->required();
  app.add_option("-i", config, "model configuration (.yml)")->required();
  app.add_option("-o", out_dir, "output directory (created if missing)")->required();
  app.add_flag("-v", verbose, "print the compiler's log");
  app.add_option("--crypt_level", crypt_level,
                 "svp-acl: also write <name>.crypt.rknn, encrypted at this level (1, 2 or 3; "
                 "export_encrypted_rknn_model's levels)");
  app.add_option("--export_qdq", export_qdq,
                 "svp-acl: also write the int8 model's quantization as a QDQ ONNX model to this file (svp_atc's "
                 "--export_qdq; onnxruntime runs it)");
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
  const std::size_t plan_warnings = plan->warnings.size();
  const std::string soc = plan->options.soc_version->name, name = plan->name;
  const bool is_float = plan->options.compile_mode == "float";
  if (app.count("--crypt_level") > 0) {
    if (crypt_level < svp::runtime::rknn::kMinCryptLevel || crypt_level > svp::runtime::rknn::kMaxCryptLevel) {
      return fail(svp::Error(err::kInvalidParam, "--crypt_level {} is not one of 1, 2, 3", crypt_level));
    }
    // The guide's platforms for encryption (seed 000 §5.9).
    if (soc.rfind("RV110", 0) == 0) {
      return fail(svp::Error(err::kInvalidParam, "--crypt_level: model encryption is not supported on {} (only "
                             "RK3562/RK3566/RK3568/RK3576/RK3588)", soc));
    }
  }
  if (!export_qdq.empty()) {
    if (is_float) {
      return fail(svp::Error(err::kInvalidParam, "--export_qdq writes the int8 quantization, and {} builds a float "
                             "model (models.quantize is false): set models.quantize: true or leave the flag out",
                             config));
    }
    plan->options.export_qdq = export_qdq;
  }
  auto r = svp::rknn_convert::convert(std::move(*plan), "rknn_convert -t " + target + " -i " + config + " -o " + out_dir);
  if (!r.ok()) return fail(r.status());
  for (std::size_t i = plan_warnings; i < r->warnings.size(); ++i) {
    std::fprintf(stderr, "rknn_convert: warning: %s\n", r->warnings[i].c_str());
  }
  for (const std::string& line : r->log) {
    const bool pruning = line.rfind("model_pruning results:", 0) == 0 || line.rfind("Weight: -", 0) == 0;
    if (verbose || pruning) std::fprintf(stderr, "rknn_convert: %s\n", line.c_str());
  }
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  const std::string out = (fs::path(out_dir) / (name + ".rknn")).string();
  std::ofstream file(out, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(r->image.data()), static_cast<std::streamsize>(r->image.size()));
  if (!file) return fail(svp::Error(err::kInvalidFile, "cannot write {}", out));
  std::fprintf(stderr, "rknn_convert: wrote %s (%zu bytes, %s, %s)\n", out.c_str(), r->image.size(), soc.c_str(),
               is_float ? "float" : "int8 asymmetric");
  if (!export_qdq.empty()) {
    std::ofstream qdq(export_qdq, std::ios::binary | std::ios::trunc);
    qdq.write(r->qdq_onnx.data(), static_cast<std::streamsize>(r->qdq_onnx.size()));
    if (!qdq) return fail(svp::Error(err::kInvalidFile, "cannot write {} (--export_qdq)", export_qdq));
    std::fprintf(stderr, "rknn_convert: wrote %s (the quantization as QDQ ONNX)\n", export_qdq.c_str());
  }
  if (app.count("--crypt_level") == 0) return kOk;
  auto sealed = svp::runtime::rknn::encrypt_model(r->image, crypt_level);
  if (!sealed.ok()) return fail(sealed.status());
  const std::string crypt_out = (fs::path(out_dir) / (name + ".crypt.rknn")).string();
  std::ofstream crypt_file(crypt_out, std::ios::binary | std::ios::trunc);
  crypt_file.write(reinterpret_cast<const char*>(sealed->data()), static_cast<std::streamsize>(sealed->size()));
  if (!crypt_file) return fail(svp::Error(err::kInvalidFile, "cannot write {}", crypt_out));
  std::fprintf(stderr, "rknn_convert: wrote %s (encrypted, crypt_level %d)\n", crypt_out.c_str(), crypt_level);
  return kOk;
}
