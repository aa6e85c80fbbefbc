#include "exec/board_segments.h"

#include <cmath>

#include "kernels/cost.h"
#include "target/board_time.h"
#include "target/board_work.h"

namespace svp::exec {

BoardSegments board_segments(const model::Program& p, const target::DeviceProfile& device) {
  std::vector<std::uint64_t> macs(p.layers.size());
  for (std::size_t l = 0; l < p.layers.size(); ++l) macs[l] = kernels::layer_macs(p, l);
  const target::ProgramTime t = target::predict_program(device, target::fitted_factors(device),
                                                        target::program_work(p, macs), target::segment_ends(p));
  // Whole nanoseconds: the board clock is an integer clock; each value is rounded once.
  auto ns = [](double us) { return static_cast<std::uint64_t>(std::llround(us * 1000.0)); };
  BoardSegments out;
  out.segment_ns.reserve(t.segment_us.size());
  for (double us : t.segment_us) out.segment_ns.push_back(ns(us));
  out.task_ns = ns(t.task_us);
  out.layer_ns.reserve(t.layers.size());
  for (const target::LayerTime& l : t.layers) out.layer_ns.push_back(ns(l.us));
  return out;
}

}  // namespace svp::exec
