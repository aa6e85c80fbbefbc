// AIPP throughput vs OpenCV, measured in the same run on one thread.
//
// Workload (issue 4): a camera-style NV12 1920x1080 frame → centre crop 1080x1080 →
// BT.601 YUV→RGB → bilinear resize to 224x224 → (x − 128) / 128 → int8 NHWC
// (scale 1/128, zero point 0).
//   AIPP:   svp::aipp::run, the entry the executor calls per AIPP input (src/aipp/pipeline.h);
//   OpenCV: cv::cvtColor(COLOR_YUV2RGB_NV12) on the frame + ROI + cv::resize(INTER_LINEAR)
//           + convertTo(CV_8S, 1, −128) — the usual host-side preprocessing.
// Both run interleaved (one AIPP, one OpenCV per round, order rotating) so they see the
// same machine load; cv::setNumThreads(1). Reported: P50/P99 per frame and the ratio
// OpenCV P50 / AIPP P50 (> 1 = AIPP faster); target ≥ 1.0. The outputs are compared too
// (≤ 2 LSB expected: CSC and resize each differ by ≤ 1, tests/opencv).
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <random>
#include <vector>

#include "aipp/pipeline.h"
#include "harness.h"

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse_args(argc, argv);
  bench::print_machine(SVP_BENCH_BUILD_TYPE, opt.quick);
  cv::setNumThreads(1);
  const int W = 1920, H = 1080, OUT = 224;

  cv::Mat nv12(H * 3 / 2, W, CV_8UC1);
  std::mt19937 rng(1);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      nv12.at<std::uint8_t>(y, x) = static_cast<std::uint8_t>(16 + (x / 4 + y / 3) % 200 + static_cast<int>(rng() % 16));
  for (int y = H; y < H * 3 / 2; ++y)
    for (int x = 0; x < W; ++x) nv12.at<std::uint8_t>(y, x) = static_cast<std::uint8_t>(64 + (x / 8 + y) % 128);

  svp::aipp::AippParams p;
  p.format_set = p.src_size_set = true;
  p.format = svp::aipp::fmt_id::kYuv420Sp;
  p.src_w = W;
  p.src_h = H;
  p.csc = true;
  p.matrix = {1192, 0, 1634, 1192, -401, -832, 1192, 2066, 0};
  p.in_bias = {16, 128, 128};
  auto& e = p.batches[0];
  e.crop = true;
  e.crop_x = (W - H) / 2;
  e.crop_w = e.crop_h = H;
  e.resize = svp::aipp::Resize::kBilinear;
  e.resize_in_w = e.resize_in_h = H;
  e.resize_out_w = e.resize_out_h = OUT;
  e.mean = {128, 128, 128, 0};
  e.var_reci = {1.0f / 128, 1.0f / 128, 1.0f / 128, 1};
  const svp::model::Quant q{{1.0f / 128}, {0}, -1};
  std::vector<std::int8_t> aipp_out(static_cast<std::size_t>(OUT * OUT * 3));
  svp::model::TensorView v;
  v.dtype = svp::model::DType::kInt8;
  v.dims = {1, OUT, OUT, 3};
  v.data = aipp_out.data();
  v.quant = &q;

  cv::Mat rgb, resized, cv_out;
  bool ok = true;
  auto run_aipp = [&] {
    const svp::Status s = svp::aipp::run(p, 0, nv12.data, static_cast<std::uint64_t>(W),
                                         static_cast<std::uint64_t>(W) * (H * 3 / 2), svp::model::Layout::kNHWC, v);
    if (!s.ok()) {
      std::fprintf(stderr, "AIPP failed: %s\n", s.message().c_str());
      ok = false;
    }
  };
  auto run_cv = [&] {
    cv::cvtColor(nv12, rgb, cv::COLOR_YUV2RGB_NV12);
    cv::resize(rgb(cv::Rect((W - H) / 2, 0, H, H)), resized, cv::Size(OUT, OUT), 0, 0, cv::INTER_LINEAR);
    resized.convertTo(cv_out, CV_8SC3, 1.0, -128.0);
  };

  const std::size_t iters = opt.n(300, 20);
  bench::Samples sa(iters), sc(iters);
  for (int i = 0; i < 5; ++i) {  // warm-up: caches, page faults of the outputs
    run_aipp();
    run_cv();
  }
  bench::interleave(iters, {[&] {
                              const std::int64_t t0 = bench::now_ns();
                              run_aipp();
                              sa.add(bench::now_ns() - t0);
                            },
                            [&] {
                              const std::int64_t t0 = bench::now_ns();
                              run_cv();
                              sc.add(bench::now_ns() - t0);
                            }});
  int max_diff = 0;
  const auto* co = reinterpret_cast<const std::int8_t*>(cv_out.data);
  for (std::size_t i = 0; i < aipp_out.size(); ++i) max_diff = std::max(max_diff, std::abs(aipp_out[i] - co[i]));

  const bench::Stats a = sa.stats(), c = sc.stats();
  const double ratio = bench::safe_ratio(c.p50, a.p50);
  std::printf("aipp_nv12_1080p_to_224_int8_nhwc (1 thread, %zu frames each, interleaved)\n", iters);
  std::printf("  AIPP    P50 %8.1f us  P99 %8.1f us  (%.0f frames/s)\n", a.p50 / 1e3, a.p99 / 1e3, 1e9 / a.p50);
  std::printf("  OpenCV  P50 %8.1f us  P99 %8.1f us  (%.0f frames/s)\n", c.p50 / 1e3, c.p99 / 1e3, 1e9 / c.p50);
  std::printf("  speed ratio OpenCV/AIPP (P50) %.2fx  target >= 1.0x: %s\n", ratio, ratio >= 1.0 ? "PASS" : "MISS");
  std::printf("  max |AIPP - OpenCV| = %d LSB (expected <= 2)\n", max_diff);
  return ok && max_diff <= 2 ? 0 : 1;
}
