// int8 Conv on real layer shapes (ResNet-18, PP-OCR-like depthwise/pointwise, MobileNetV2
// and EfficientNet-B0 depthwise): the fast path this CPU gets for int8 (oneDNN with VNNI,
// avx2_int8 without, vnni_dw_int8 for depthwise layers that fill its blocks) against the
// reference int8 kernel and oneDNN's float32 convolution of the same shape, all measured in
// the same run, 1 and 2 kernel threads (docs/performance.md, "int8 without VNNI"). For the
// depthwise shapes also against oneDNN's own int8 primitive, created directly as the fast
// path would create it (uint8 NHWC input without zero point, per-channel output scales, a
// destination zero point as a post-op): the "dnnl" column.
//
//   int8_conv_bench [--quick] [--filter=ID]
//
// Each conv sits between two 1×1 MaxPools so that, as inside a network, it reads and
// writes NHWC work_buf tensors; only the conv layer's run_layer is timed. Figures are the
// median of the runs; ratios < 1 mean the int8 fast path is faster. The exit status
// reflects only errors (a fast path that is not bit-identical to the reference, a build
// failure), never speed.
#include <omp.h>
#include <sched.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/builder.h"
#include "harness.h"
#include "kernel_runner.h"

namespace {

using svp::compiler::LayerOptions;
using svp::compiler::ModelBuilder;
using svp::model::DType;
using svp::model::Quant;
using I = std::vector<std::int64_t>;

int g_errors = 0;

struct Shape {
  const char* id;
  const char* name;
  std::int64_t c, m, h, w, k, stride, pad, group;
};

const Shape kShapes[] = {
    {"r18.conv1", "ResNet-18 conv1 7x7/2 3->64 @224", 3, 64, 224, 224, 7, 2, 3, 1},
    {"r18.l1", "ResNet-18 layer1 3x3 64->64 @56", 64, 64, 56, 56, 3, 1, 1, 1},
    {"r18.l3", "ResNet-18 layer3 3x3 256->256 @14", 256, 256, 14, 14, 3, 1, 1, 1},
    {"r18.l4", "ResNet-18 layer4 3x3 512->512 @7", 512, 512, 7, 7, 3, 1, 1, 1},
    {"ocr.pw", "PP-OCR-like pointwise 1x1 96->192 @24x80", 96, 192, 24, 80, 1, 1, 0, 1},
    {"ocr.dw", "PP-OCR-like depthwise 3x3 c96 @48x160", 96, 96, 48, 160, 3, 1, 1, 96},
    {"mnv2.dw32", "MobileNetV2 depthwise 3x3 c32 @112", 32, 32, 112, 112, 3, 1, 1, 32},
    {"mnv2.dw192", "MobileNetV2 depthwise 3x3 c192 @28", 192, 192, 28, 28, 3, 1, 1, 192},
    {"mnv2.dw192s2", "MobileNetV2 depthwise 3x3/2 c192 @28", 192, 192, 28, 28, 3, 2, 1, 192},
    {"mnv2.dw384", "MobileNetV2 depthwise 3x3 c384 @14", 384, 384, 14, 14, 3, 1, 1, 384},
    {"mnv2.dw960", "MobileNetV2 depthwise 3x3 c960 @7", 960, 960, 7, 7, 3, 1, 1, 960},
    {"eff.dw240", "EfficientNet-B0 depthwise 5x5 c240 @28", 240, 240, 28, 28, 5, 1, 2, 240},
    {"eff.dw480", "EfficientNet-B0 depthwise 3x3 c480 @14", 480, 480, 14, 14, 3, 1, 1, 480},
    {"eff.dw672", "EfficientNet-B0 depthwise 5x5 c672 @14", 672, 672, 14, 14, 5, 1, 2, 672},
    {"eff.dw1152", "EfficientNet-B0 depthwise 5x5 c1152 @7", 1152, 1152, 7, 7, 5, 1, 2, 1152},
};

// oneDNN's int8 depthwise primitive on the shape, run directly (the "dnnl" column).
class DnnlDepthwise {
 public:
  DnnlDepthwise(const Shape& sh, int threads) : eng_(dnnl::engine::kind::cpu, 0), strm_(eng_) {
    using dt = dnnl::memory::data_type;
    using tag = dnnl::memory::format_tag;
    const std::int64_t oh = (sh.h + 2 * sh.pad - sh.k) / sh.stride + 1, ow = (sh.w + 2 * sh.pad - sh.k) / sh.stride + 1;
    dnnl::memory::desc src({1, sh.c, sh.h, sh.w}, dt::u8, tag::nhwc), dst({1, sh.m, oh, ow}, dt::u8, tag::nhwc);
    dnnl::memory::desc wei({sh.group, 1, 1, sh.k, sh.k}, dt::s8, tag::any), bia({sh.m}, dt::s32, tag::a);
    dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src, wei,
                                      bia, dst, {sh.stride, sh.stride}, {0, 0}, {sh.pad, sh.pad}, {sh.pad, sh.pad});
    dnnl::primitive_attr attr;
    std::vector<float> scales(static_cast<std::size_t>(sh.m));
    for (std::size_t i = 0; i < scales.size(); ++i) scales[i] = 0.01f + 0.001f * static_cast<float>(i % 7);
    attr.set_output_scales(1 << 1, scales);
    dnnl::post_ops po;
    po.append_eltwise(1.f, dnnl::algorithm::eltwise_linear, 1.f, 100.f);
    attr.set_post_ops(po);
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const int saved = omp_get_max_threads();
    omp_set_num_threads(threads);  // oneDNN fixes a primitive's threads when it is created
    dnnl::convolution_forward::primitive_desc pd(d, attr, eng_);
    omp_set_num_threads(saved);
    impl_ = pd.impl_info_str();
    prim_ = dnnl::convolution_forward(pd);
    for (auto [arg, md] : {std::pair{DNNL_ARG_SRC, pd.src_desc()}, std::pair{DNNL_ARG_WEIGHTS, pd.weights_desc()},
                           std::pair{DNNL_ARG_BIAS, pd.bias_desc()}, std::pair{DNNL_ARG_DST, pd.dst_desc()},
                           std::pair{DNNL_ARG_SCRATCHPAD, pd.scratchpad_desc()}}) {
      dnnl::memory m(md, eng_);
      std::memset(m.get_data_handle(), 3, md.get_size());
      args_.emplace(arg, m);
    }
  }
  void sample() {
    const std::int64_t t0 = bench::now_ns();
    prim_.execute(strm_, args_);
    strm_.wait();
    samples_.add(bench::now_ns() - t0);
  }
  double median() const { return samples_.stats().p50; }
  const std::string& impl() const { return impl_; }

 private:
  dnnl::engine eng_;
  dnnl::stream strm_;
  dnnl::primitive prim_;
  std::unordered_map<int, dnnl::memory> args_;
  std::string impl_;
  bench::Samples samples_;
};

std::vector<std::int8_t> weights_i8(std::size_t n) {
  std::vector<std::int8_t> v(n);
  std::uint32_t s = 7;
  for (auto& x : v) x = static_cast<std::int8_t>(static_cast<int>(svp::testing::lcg(s) % 255) - 127);
  return v;
}

// MaxPool 1×1 → Conv → MaxPool 1×1; int8 (uint8 input with a zero point, per-channel
// weights, int32 bias) or float32.
svp::compiler::BuiltModel sandwich(const Shape& sh, bool int8) {
  ModelBuilder b("bench");
  const float sx = 0.02f;
  const Quant qx = int8 ? Quant{{sx}, {128}, -1} : Quant{};  // uint8, mid-range zero point
  auto x =
      b.add_input("x", int8 ? DType::kUint8 : DType::kFloat32, {1, sh.c, sh.h, sh.w}, svp::model::Layout::kNCHW, qx);
  LayerOptions pool;
  pool.attrs.set("kernel_shape", I{1, 1});
  auto p = b.add_layer("pool_in", "MaxPool", {x}, pool);
  const I wd{sh.m, sh.c / sh.group, sh.k, sh.k};
  const std::size_t wn = static_cast<std::size_t>(wd[0] * wd[1] * wd[2] * wd[3]);
  LayerOptions o;
  o.attrs.set("strides", I{sh.stride, sh.stride});
  o.attrs.set("pads", I{sh.pad, sh.pad, sh.pad, sh.pad});
  o.attrs.set("group", sh.group);
  svp::compiler::TensorId w;
  if (int8) {
    Quant wq{{}, {}, 0};
    for (std::int64_t i = 0; i < sh.m; ++i) {
      wq.scale.push_back(0.002f + 0.0005f * static_cast<float>(i % 7));
      wq.zero_point.push_back(0);
    }
    w = b.add_constant("w", wd, weights_i8(wn), wq);
    const float k = static_cast<float>(wd[1] * wd[2] * wd[3]);
    o.output_quants = {Quant{{sx * 0.003f * 60.f * std::sqrt(k)}, {100}, -1}};
  } else {
    std::vector<float> wf(wn);
    std::uint32_t s = 7;
    for (auto& v : wf) v = static_cast<float>(svp::testing::lcg(s) % 2001) / 10000.f - 0.1f;
    w = b.add_constant("w", wd, wf);
  }
  auto y = b.add_layer("conv", "Conv", {p, w}, o);
  b.add_output(b.add_layer("pool_out", "MaxPool", {y}, pool));
  auto r = b.build();
  if (!r.ok()) throw std::runtime_error(r.status().message());
  return std::move(r.value());
}

// Runs the conv layer (index 1) of a compiled model on fixed inputs, one sample per call.
class ConvRunner {
 public:
  ConvRunner(const svp::compiler::BuiltModel& m, const svp::kernels::CompiledProgram& prog) : e_(m), prog_(prog) {
    const std::int32_t in = m.program.input_tensors()[0];
    svp::testing::fill_random(e_.io(in), m.program.tensors[static_cast<std::size_t>(in)].dtype, 5);
    if (!e_.run(prog).ok()) {
      std::fprintf(stderr, "error: run failed\n");
      ++g_errors;
    }
    out_ = e_.io(m.program.output_tensors()[0]);
  }
  void sample() {
    const std::int64_t t0 = bench::now_ns();
    if (!e_.run_layer(prog_, 1).ok()) ++g_errors;
    samples_.add(bench::now_ns() - t0);
  }
  double median() const { return samples_.stats().p50; }
  const svp::testing::Bytes& out() const { return out_; }

 private:
  svp::testing::Execution e_;
  const svp::kernels::CompiledProgram& prog_;
  svp::testing::Bytes out_;
  bench::Samples samples_;
};

// Which CPUs a parallel region of `threads` threads of this thread's pool runs on.
std::string placement(int threads) {
  std::set<int> cpus;
#pragma omp parallel num_threads(threads)
  {
    const int c = sched_getcpu();
#pragma omp critical
    cpus.insert(c);
  }
  std::string s;
  for (int c : cpus) s += (s.empty() ? "" : ",") + std::to_string(c);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options opt = bench::parse_args(argc, argv);
  bench::print_machine(SVP_BENCH_BUILD_TYPE, opt.quick);
  cpu_set_t set;
  CPU_ZERO(&set);
  std::string allowed;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) allowed += (allowed.empty() ? "" : ",") + std::to_string(c);
  }
  const char* bind = std::getenv("OMP_PROC_BIND");
  const char* places = std::getenv("OMP_PLACES");
  std::printf("affinity cpus=%s OMP_PROC_BIND=%s OMP_PLACES=%s\n\n", allowed.c_str(), bind ? bind : "(unset)",
              places ? places : "(unset)");
  const std::size_t runs = opt.n(31, 2);
  std::printf("%-15s %-44s %3s %-12s %10s %10s %10s %10s %9s %9s %9s  %s\n", "id", "shape", "thr", "int8", "int8 ms",
              "ref ms", "f32 ms", "dnnl ms", "/ref", "/f32", "/dnnl", "cpus");
  for (int threads : {1, 2}) {
    for (const Shape& sh : kShapes) {
      const std::string id = std::string(sh.id) + ".t" + std::to_string(threads);
      if (!opt.wants(id)) continue;
      // The quick smoke run skips the big shapes whose reference takes seconds.
      if (opt.quick && sh.h * sh.w * sh.m * sh.c / sh.group * sh.k * sh.k > (std::int64_t{1} << 26)) continue;
      try {
        const auto mi = sandwich(sh, true), mf = sandwich(sh, false);
        const auto fast = svp::testing::compile(mi, true, threads);
        const auto ref = svp::testing::compile(mi, false, threads);
        const auto f32 = svp::testing::compile(mf, true, threads);
        omp_set_num_threads(threads);
        const std::string cpus = placement(threads);
        ConvRunner rf(mi, *fast), rr(mi, *ref), r32(mf, *f32);
        std::unique_ptr<DnnlDepthwise> dnnl_dw;
        if (sh.group > 1 && sh.group == sh.c && sh.m == sh.c) dnnl_dw = std::make_unique<DnnlDepthwise>(sh, threads);
        // Rounds of one run each, rotating the order, so that all see the same load on a
        // shared machine; the reference (seconds on the big shapes) in the first rounds only.
        const std::size_t ref_runs = opt.quick ? 1 : 3;
        for (std::size_t r = 0; r < runs; ++r) {
          std::vector<std::function<void()>> order{[&] { rf.sample(); }, [&] { r32.sample(); }};
          if (dnnl_dw) order.emplace_back([&] { dnnl_dw->sample(); });
          if (r < ref_runs) order.emplace_back([&] { rr.sample(); });
          for (std::size_t i = 0; i < order.size(); ++i) order[(r + i) % order.size()]();
        }
        const double tf = rf.median(), tr = rr.median(), t32 = r32.median();
        const double td = dnnl_dw ? dnnl_dw->median() : 0;
        if (rf.out() != rr.out()) {
          std::fprintf(stderr, "error: %s: the int8 fast path differs from the reference\n", id.c_str());
          ++g_errors;
        }
        std::printf("%-15s %-44s %3d %-12s %10.3f %10.3f %10.3f %10.3f %9.3f %9.3f %9.3f  %s\n", id.c_str(), sh.name,
                    threads, fast->layer_impl(1).c_str(), tf / 1e6, tr / 1e6, t32 / 1e6, td / 1e6,
                    bench::safe_ratio(tf, tr), bench::safe_ratio(tf, t32), bench::safe_ratio(tf, td), cpus.c_str());
        std::printf(
            "RESULT id=%s impl=%s int8_p50_ns=%.0f ref_p50_ns=%.0f f32_p50_ns=%.0f dnnl_p50_ns=%.0f ratio_ref=%.4f "
            "ratio_f32=%.4f ratio_dnnl=%.4f threads=%d%s%s\n",
            id.c_str(), fast->layer_impl(1).c_str(), tf, tr, t32, td, bench::safe_ratio(tf, tr),
            bench::safe_ratio(tf, t32), bench::safe_ratio(tf, td), threads, dnnl_dw ? " dnnl_impl=" : "",
            dnnl_dw ? dnnl_dw->impl().c_str() : "");
        std::fflush(stdout);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s: %s\n", id.c_str(), e.what());
        ++g_errors;
      }
    }
  }
  return g_errors == 0 ? 0 : 1;
}
