// The board clock's cost on the host (issue 27: host-clock throughput of the software NPU no
// more than 5 % lower with the board clock on; it changes accounting and ordering only).
//
//   board_clock_bench [--quick] [--runs=N]
//
// Per workload, executions/s of the host with acl.json softnpu.clock "host" and "board",
// runs interleaved (host, board, host, ...), the median of each; the figure is the ratio
// board / host. Workloads (models from the builder, one stream, N executions queued, then
// synchronize): "small" (one 1x16x16x16 Relu: the scheduler's per-task cost dominates) and
// "conv" (four 3x3 convolutions 32->32 on 1x32x32x32, 2 segments: compute dominates).
// METRIC lines for bench/summarize_metrics.py. The exit status reflects API errors only.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#include "acl/svp_acl.h"
#include "acl/svp_acl_mdl.h"
#include "compiler/builder.h"
#include "harness.h"
#include "model_io_bench.h"

namespace {

using svp::compiler::BuiltModel;
using svp::compiler::LayerOptions;
using svp::compiler::ModelBuilder;
using svp::compiler::TensorId;
using svp::model::DType;

BuiltModel small_model() {
  ModelBuilder b("small");
  const TensorId x = b.add_input("x", DType::kFloat32, {1, 16, 16, 16});
  b.add_output(b.add_layer("relu", "Relu", {x}), "y");
  return std::move(*b.build());
}

BuiltModel conv_model() {
  ModelBuilder b("conv");
  TensorId t = b.add_input("x", DType::kFloat32, {1, 32, 32, 32});
  LayerOptions conv;
  conv.attrs.set("kernel_shape", std::vector<std::int64_t>{3, 3});
  conv.attrs.set("pads", std::vector<std::int64_t>{1, 1, 1, 1});
  for (int i = 0; i < 4; ++i) {
    const TensorId w = b.add_constant("w" + std::to_string(i), {32, 32, 3, 3}, std::vector<float>(32 * 32 * 9, 0.01f));
    t = b.add_layer("conv" + std::to_string(i), "Conv", {t, w}, conv);
  }
  b.add_output(t, "y");
  b.segment_every(2);
  return std::move(*b.build());
}

// Executions/s of `n` executions of `m` queued on one stream, with the given clock.
double throughput(const BuiltModel& m, const char* clock, int n) {
  const std::string path = "/tmp/board_clock_bench_" + std::to_string(getpid()) + ".json";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(1);
  }
  std::fprintf(f, "{\"softnpu\": {\"clock\": \"%s\"}}\n", clock);
  std::fclose(f);
  BENCH_CHECK(svp_acl_init(path.c_str()));
  std::remove(path.c_str());
  BENCH_CHECK(svp_acl_rt_set_device(0));
  uint32_t id = 0;
  BENCH_CHECK(svp_acl_mdl_load_from_mem(m.image.data(), m.image.size(), &id));
  svp_acl_mdl_desc* desc = svp_acl_mdl_create_desc();
  BENCH_CHECK(svp_acl_mdl_get_desc(desc, id));
  std::vector<void*> mem;
  std::vector<svp_acl_data_buffer*> bufs;
  svp_acl_mdl_dataset* in = svp_acl_mdl_create_dataset();
  svp_acl_mdl_dataset* out = svp_acl_mdl_create_dataset();
  auto add = [&](svp_acl_mdl_dataset* ds, size_t size, size_t stride) {
    void* p = nullptr;
    BENCH_CHECK(svp_acl_rt_malloc(&p, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    std::memset(p, 0, size);
    mem.push_back(p);
    bufs.push_back(svp_acl_create_data_buffer(p, size, stride));
    BENCH_CHECK(svp_acl_mdl_add_dataset_buffer(ds, bufs.back()));
  };
  for (size_t i = 0; i < svp_acl_mdl_get_num_inputs(desc); ++i) {
    add(in, svp_acl_mdl_get_input_size_by_index(desc, i), svp_acl_mdl_get_input_default_stride(desc, i));
  }
  for (size_t i = 0; i < svp_acl_mdl_get_num_outputs(desc); ++i) {
    add(out, svp_acl_mdl_get_output_size_by_index(desc, i), svp_acl_mdl_get_output_default_stride(desc, i));
  }
  svp_acl_rt_stream s = nullptr;
  BENCH_CHECK(svp_acl_rt_create_stream(&s));
  BENCH_CHECK(svp_acl_mdl_execute_async(id, in, out, s));  // warm-up
  BENCH_CHECK(svp_acl_rt_synchronize_stream(s));
  const std::int64_t t0 = bench::now_ns();
  for (int k = 0; k < n; ++k) BENCH_CHECK(svp_acl_mdl_execute_async(id, in, out, s));
  BENCH_CHECK(svp_acl_rt_synchronize_stream(s));
  const double seconds = static_cast<double>(bench::now_ns() - t0) / 1e9;
  BENCH_CHECK(svp_acl_rt_destroy_stream(s));
  BENCH_CHECK(svp_acl_mdl_unload(id));
  for (auto* b : bufs) BENCH_CHECK(svp_acl_destroy_data_buffer(b));
  for (void* p : mem) BENCH_CHECK(svp_acl_rt_free(p));
  BENCH_CHECK(svp_acl_mdl_destroy_dataset(in));
  BENCH_CHECK(svp_acl_mdl_destroy_dataset(out));
  BENCH_CHECK(svp_acl_mdl_destroy_desc(desc));
  BENCH_CHECK(svp_acl_rt_reset_device(0));
  BENCH_CHECK(svp_acl_finalize());
  return n / seconds;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  int runs = 7;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
      runs = 3;
    } else if (std::strncmp(argv[i], "--runs=", 7) == 0) {
      runs = std::max(1, std::atoi(argv[i] + 7));
    } else {
      std::fprintf(stderr, "usage: %s [--quick] [--runs=N]\n", argv[0]);
      return 2;
    }
  }
  struct Workload {
    const char* name;
    BuiltModel model;
    int n;
  };
  Workload workloads[] = {{"small", small_model(), quick ? 500 : 5000}, {"conv", conv_model(), quick ? 50 : 400}};
  for (Workload& w : workloads) {
    std::vector<double> host, board;
    for (int r = 0; r < runs; ++r) {
      host.push_back(throughput(w.model, "host", w.n));
      board.push_back(throughput(w.model, "board", w.n));
    }
    const double h = median(host), b = median(board);
    std::printf("%-6s host clock %10.1f exec/s, board clock %10.1f exec/s (medians of %d): board/host %.3f\n", w.name, h,
                b, runs, b / h);
    // One METRIC line per figure: bench/summarize_metrics.py takes medians over runs.
    std::printf("METRIC board_clock.%s.host_exec_per_s %.3f exec/s\n", w.name, h);
    std::printf("METRIC board_clock.%s.board_exec_per_s %.3f exec/s\n", w.name, b);
    std::printf("METRIC board_clock.%s.ratio %.4f x\n", w.name, b / h);
  }
  return 0;
}
