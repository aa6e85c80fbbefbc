// The board clock's determinism at length (label "stress"): the priority co-run workload
// (foreground every 5 ms of board time at priority 0, saturating preemptible background at
// priority 7) over 100 frames (0.5 s of board time), repeated, on one and two cores, with
// kernel_threads 1 and 2 and under a CPU hog: every run gives the first run's device event
// order and foreground latencies.
#include "board_corun.h"

using namespace svp::test::board;  // NOLINT: the co-run workload's vocabulary

namespace {

TEST(BoardClockStress, LongCoRunsRepeatTheSameDeviceOrderWhateverTheHostDoes) {
  const BuiltModel fg = fg_model();
  const BuiltModel bg = bg_model();
  constexpr int kFrames = 100;
  const int bg_runs = saturating_bg_runs(predicted(bg), kFrames);
  for (int cores : {1, 2}) {
    const CoRun first = co_run(fg, bg, 1, cores, kFrames, bg_runs);
    ASSERT_EQ(first.fg_latency_ns.size(), static_cast<std::size_t>(kFrames));
    for (int rep = 0; rep < 3; ++rep) {
      const int threads = 1 + rep % 2;
      CoRun again;
      if (rep == 2) {
        CpuHog hog;
        again = co_run(fg, bg, threads, cores, kFrames, bg_runs);
      } else {
        again = co_run(fg, bg, threads, cores, kFrames, bg_runs);
      }
      EXPECT_EQ(first.order, again.order) << "cores " << cores << ", repetition " << rep;
      EXPECT_EQ(first.fg_latency_ns, again.fg_latency_ns) << "cores " << cores << ", repetition " << rep;
    }
  }
}

}  // namespace
