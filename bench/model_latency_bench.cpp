// One-layer model: svp_acl_mdl_execute_async + synchronize_stream round trip, against the
// empty NPU task round trip (runtime_bench figure 4) measured in the same run, interleaved
// round by round so machine noise hits both alike. The difference is what model execution
// adds on top of the task machinery: dataset validation, device views, the task_buf
// descriptor, and one small kernel (Relu over 16×16×16 floats, ~16 KiB).
//
//   model_latency_bench [--quick]
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "acl/svp_acl.h"
#include "acl/svp_acl_ext.h"
#include "acl/svp_acl_mdl.h"
#include "harness.h"
#include "model_io_bench.h"
#include "compiler/builder.h"

namespace {
svp_acl_error seg_nothing(void*, uint32_t) { return SVP_ACL_SUCCESS; }
}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  svp::compiler::ModelBuilder b("one_layer");
  const auto x = b.add_input("x", svp::model::DType::kFloat32, {1, 16, 16, 16});
  b.add_output(b.add_layer("relu", "Relu", {x}), "y");
  auto built = b.build();
  if (!built.ok()) {
    std::fprintf(stderr, "build: %s\n", built.status().message().c_str());
    return 1;
  }
  auto session = std::make_unique<bench::BenchModel>(built->image);
  const uint32_t id = session->id;
  svp_acl_rt_stream stream = session->stream;
  bench::ModelBuffers& io = *session->io;

  const std::size_t rounds = quick ? 4 : 20, per_round = quick ? 200 : 1000, warmup = 500;
  auto empty_task = [&] {
    const std::int64_t t0 = bench::now_ns();
    BENCH_CHECK(svp_acl_ext_launch_segmented_task(seg_nothing, nullptr, 1, nullptr, stream));
    BENCH_CHECK(svp_acl_rt_synchronize_stream(stream));
    return bench::now_ns() - t0;
  };
  auto model = [&] {
    const std::int64_t t0 = bench::now_ns();
    BENCH_CHECK(svp_acl_mdl_execute_async(id, io.in, io.out, stream));
    BENCH_CHECK(svp_acl_rt_synchronize_stream(stream));
    return bench::now_ns() - t0;
  };
  for (std::size_t i = 0; i < warmup; ++i) {
    empty_task();
    model();
  }
  std::vector<std::int64_t> te, tm;
  for (std::size_t r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < per_round; ++i) te.push_back(empty_task());
    for (std::size_t i = 0; i < per_round; ++i) tm.push_back(model());
  }
  const bench::Stats se = bench::summarize(te), sm = bench::summarize(tm);
  std::printf("empty NPU task  launch + synchronize_stream:   P50 %7.2f us  P99 %8.2f us  (n=%zu)\n", se.p50 / 1e3,
              se.p99 / 1e3, se.n);
  std::printf("one-layer model execute_async + synchronize:   P50 %7.2f us  P99 %8.2f us  (n=%zu)\n", sm.p50 / 1e3,
              sm.p99 / 1e3, sm.n);
  std::printf("ratio model / empty task: P50 %.2fx  P99 %.2fx\n", sm.p50 / se.p50, sm.p99 / se.p99);
  std::printf("RESULT id=model1 empty_p50_ns=%.0f empty_p99_ns=%.0f model_p50_ns=%.0f model_p99_ns=%.0f\n", se.p50,
              se.p99, sm.p50, sm.p99);

  session.reset();
  return 0;
}
