#include "convert.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "compiler/compile.h"
#include "image_dataset.h"

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
  auto r = compiler::compile(o);
  fs::remove_all(work, ec);
  if (!r.ok()) return r.status();
  out.image = std::move(r->model.image);
  out.log = std::move(r->log);
  out.layer_accuracy_csv = std::move(r->layer_accuracy_csv);
  out.accuracy_summary = std::move(r->accuracy_summary);
  out.command_line = o.command_line;
  return out;
}

}  // namespace svp::rknn_convert
