// What profiling costs a model run: svp_acl_mdl_execute_async + synchronize_stream of an
// 8-layer model (8 segments) with profiling off, with a subscription pipe drained by a
// reader thread, and in file mode with every data type, interleaved round by round in one
// process so machine noise hits all three alike. Reports P50/P99 and each as a ratio to
// "off". The other half of the cost target — "off" against a build without the
// hooks — needs two builds: bench/profiling_overhead.sh.
//
//   prof_bench [--quick]
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "acl/svp_acl.h"
#include "acl/svp_acl_prof.h"
#include "harness.h"
#include "model_io_bench.h"
#include "compiler/builder.h"
#include "profiling/profiler.h"

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  svp::compiler::ModelBuilder b("eight_layers");
  auto t = b.add_input("x", svp::model::DType::kFloat32, {1, 16, 16, 16});
  for (int i = 0; i < 8; ++i) t = b.add_layer("l" + std::to_string(i), i % 2 ? "Sigmoid" : "Relu", {t});
  b.add_output(t, "y");
  b.segment_every(1);
  auto built = b.build();
  if (!built.ok()) {
    std::fprintf(stderr, "build: %s\n", built.status().message().c_str());
    return 1;
  }
  auto session = std::make_unique<bench::BenchModel>(built->image);
  const uint32_t id = session->id;
  svp_acl_rt_stream stream = session->stream;
  bench::ModelBuffers& io = *session->io;

  char tmpl[] = "/tmp/svp_prof_bench_XXXXXX";
  const std::string dir = mkdtemp(tmpl) != nullptr ? tmpl : "/tmp";
  const std::size_t rounds = quick ? 3 : 15, per_round = quick ? 200 : 600, warmup = 300;
  auto run = [&] {
    const std::int64_t t0 = bench::now_ns();
    BENCH_CHECK(svp_acl_mdl_execute_async(id, io.in, io.out, stream));
    BENCH_CHECK(svp_acl_rt_synchronize_stream(stream));
    return bench::now_ns() - t0;
  };
  for (std::size_t i = 0; i < warmup; ++i) run();

  // Probe: a library built without hooks refuses profiling; only "off" is measured then.
  const bool hooks = svp::profiling::kHooksBuilt;
  std::vector<std::int64_t> t_off, t_pipe, t_file;
  std::uint64_t piped = 0;
  for (std::size_t r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < per_round; ++i) t_off.push_back(run());
    if (!hooks) continue;

    int fd[2];
    if (pipe(fd) != 0) return 1;
    svp_acl_prof_subscribe_config* sc = svp_acl_prof_create_subscribe_config(1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, &fd[1]);
    BENCH_CHECK(svp_acl_prof_model_subscribe(id, sc));
    std::thread reader([&] {
      std::vector<char> buf(400 * 10);
      ssize_t n;
      while ((n = read(fd[0], buf.data(), buf.size())) > 0) piped += static_cast<std::uint64_t>(n) / 400;
    });
    for (std::size_t i = 0; i < per_round; ++i) t_pipe.push_back(run());
    BENCH_CHECK(svp_acl_prof_model_unsubscribe(id));
    close(fd[1]);
    reader.join();
    close(fd[0]);
    BENCH_CHECK(svp_acl_prof_destroy_subscribe_config(sc));

    BENCH_CHECK(svp_acl_prof_init(dir.c_str(), dir.size()));
    const uint32_t devices[1] = {0};
    svp_acl_prof_config* fc = svp_acl_prof_create_config(
        devices, 1, SVP_ACL_AICORE_ARITHMETIC_UTILIZATION, nullptr,
        SVP_ACL_PROF_ACL_API | SVP_ACL_PROF_TASK_TIME | SVP_ACL_PROF_AICORE_METRICS | SVP_ACL_PROF_AICPU_TRACE);
    BENCH_CHECK(svp_acl_prof_start(fc));
    for (std::size_t i = 0; i < per_round; ++i) t_file.push_back(run());
    BENCH_CHECK(svp_acl_prof_stop(fc));
    BENCH_CHECK(svp_acl_prof_destroy_config(fc));
    BENCH_CHECK(svp_acl_prof_finalize());
  }
  const bench::Stats so = bench::summarize(t_off);
  std::printf("profiling off (hooks %s):        P50 %7.2f us  P99 %8.2f us  (n=%zu)\n", hooks ? "built" : "compiled out",
              so.p50 / 1e3, so.p99 / 1e3, so.n);
  if (hooks) {
    const bench::Stats sp = bench::summarize(t_pipe), sf = bench::summarize(t_file);
    std::printf("subscription pipe + reader:       P50 %7.2f us  P99 %8.2f us  ratio P50 %.2fx P99 %.2fx\n", sp.p50 / 1e3,
                sp.p99 / 1e3, sp.p50 / so.p50, sp.p99 / so.p99);
    std::printf("file mode, all data types:        P50 %7.2f us  P99 %8.2f us  ratio P50 %.2fx P99 %.2fx\n", sf.p50 / 1e3,
                sf.p99 / 1e3, sf.p50 / so.p50, sf.p99 / so.p99);
    const std::uint64_t expected = 8 * t_pipe.size();
    std::printf("pipe records read %llu of %llu (dropped %llu)\n", static_cast<unsigned long long>(piped),
                static_cast<unsigned long long>(expected), static_cast<unsigned long long>(expected - piped));
    std::printf("RESULT id=prof off_p50_ns=%.0f off_p99_ns=%.0f pipe_p50_ns=%.0f pipe_p99_ns=%.0f file_p50_ns=%.0f "
                "file_p99_ns=%.0f\n",
                so.p50, so.p99, sp.p50, sp.p99, sf.p50, sf.p99);
  } else {
    std::printf("RESULT id=prof off_p50_ns=%.0f off_p99_ns=%.0f\n", so.p50, so.p99);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);

  session.reset();
  return 0;
}
