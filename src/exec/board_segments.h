// A program's segments in predicted board time: what the board clock (acl.json
// softnpu.clock "board", docs/scheduling.md) advances by while each segment runs.
// Computed once per program at load from the board timing model (src/target/board_time.h).
#pragma once

#include <cstdint>
#include <vector>

#include "model/program.h"
#include "target/device_profile.h"

namespace svp::exec {

struct BoardSegments {
  std::vector<std::uint64_t> segment_ns;  // per segment of one batch item (ProgramTime::segment_us)
  std::uint64_t task_ns = 0;              // once per execution (ProgramTime::task_us)
  // Per layer (ProgramTime::layers[l].us): a segment's time is its layers' plus the switch
  // into it (NPU <-> CPU), each rounded on its own.
  std::vector<std::uint64_t> layer_ns;
};

BoardSegments board_segments(const model::Program& program, const target::DeviceProfile& device);

}  // namespace svp::exec
