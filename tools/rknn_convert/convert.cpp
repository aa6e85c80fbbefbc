#include "convert.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "compiler/compile.h"
#include "compiler/onnx_prune.h"
#include "image_dataset.h"
#include "sparsity.h"

namespace svp::rknn_convert {
namespace {

namespace fs = std::filesystem;

// What the image records as its compiler command line: rknn_init reads the target from
// the --soc_version token, and a user reading the model sees the svp_atc equivalent.
std::string recorded_command(const std::string& caller, const compiler::CompileOptions& o) {
  std::string line = caller + " ; as svp_atc: --framework=5 --model=" + o.model + " --soc_version=" +
                     o.soc_version->name + " --compile_mode=" + o.compile_mode;
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

Result<Converted> convert(ConvertPlan plan, const std::string& caller) {
  compiler::CompileOptions& o = plan.options;
  o.command_line = recorded_command(caller, o);
  Converted out;
  out.warnings = plan.warnings;
  // Dataset images become tensor files in a directory of this conversion's (the process id
  // and a counter: a Python process may convert several models), removed afterwards.
  static std::atomic<unsigned> serial{0};
  const fs::path work = fs::temp_directory_path() /
                        ("rknn_convert_" + std::to_string(::getpid()) + "_" + std::to_string(serial++));
  std::error_code ec;
  if (!o.image_list.empty()) {
    auto list = images_to_tensors(o, plan.rgb2bgr, work.string());
    if (!list.ok()) {
      fs::remove_all(work, ec);
      return list.status();
    }
    if (plan.rgb2bgr && *list == o.image_list) {
      out.warnings.push_back("models.configs.quant_img_RGB2BGR has no effect: the dataset names no image");
    }
    o.image_list = *list;
  }
  if (plan.sparse_infer) {
    // The board runs 4:2-sparse int8 Convs sparsely (seed 000 §5.11); the software NPU
    // computes every layer densely, so the flag changes no output: the log says what the
    // board would do, as the toolkit's verbose log does.
    auto layers = conv_sparsity(o.model);
    if (!layers.ok()) return layers.status();
    if (o.compile_mode == "float") {
      out.warnings.push_back("models.configs.sparse_infer has no effect on a float model (RK3576 runs int8 Convs "
                             "sparsely only)");
    }
    for (const ConvSparsity& l : *layers) {
      out.log.push_back(fmt::format("sparse_infer: Conv {} ({} -> {} channels): SparseRatio {}{}", l.name,
                                    l.in_channels, l.out_channels, l.ratio,
                                    l.why_dense.empty() ? "" : " (" + l.why_dense + ")"));
    }
  }
  if (plan.model_pruning) {
    // Lossless pruning (seed 000 §5.8): the compiler reads the pruned copy; the recorded
    // command line keeps the user's model. Nothing pruned: no message, as the toolkit.
    fs::create_directories(work, ec);
    const std::string pruned = (work / "pruned.onnx").string();
    auto p = compiler::prune_onnx(o.model, pruned);
    if (!p.ok()) {
      fs::remove_all(work, ec);
      return p.status();
    }
    if (p->channels_removed > 0) {
      o.model = pruned;
      out.log.push_back("model_pruning results:");
      out.log.push_back(fmt::format("Weight: -{:.5f} MB (-{:.1f}%), {} channel(s) removed",
                                    static_cast<double>(p->weight_bytes_removed) / (1024.0 * 1024.0),
                                    100.0 * static_cast<double>(p->weight_bytes_removed) /
                                        static_cast<double>(std::max<std::int64_t>(p->weight_bytes_before, 1)),
                                    p->channels_removed));
    }
  }
  auto r = compiler::compile(o);
  fs::remove_all(work, ec);
  if (!r.ok()) return r.status();
  out.image = std::move(r->model.image);
  out.log.insert(out.log.end(), r->log.begin(), r->log.end());
  out.layer_accuracy_csv = std::move(r->layer_accuracy_csv);
  out.accuracy_summary = std::move(r->accuracy_summary);
  out.command_line = o.command_line;
  out.qdq_onnx = std::move(r->qdq_onnx);
  out.qdq_error = std::move(r->qdq_error);
  return out;
}

}  // namespace svp::rknn_convert
