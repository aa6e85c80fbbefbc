#include "compiler/board_time.h"

#include "kernels/cost.h"
#include "target/board_work.h"

namespace svp::compiler {

target::ProgramTime predict_board_time(const model::Program& p, const target::DeviceProfile& device) {
  std::vector<std::uint64_t> macs(p.layers.size());
  for (std::size_t l = 0; l < p.layers.size(); ++l) macs[l] = kernels::layer_macs(p, l);
  return target::predict_program(device, target::fitted_factors(device), target::program_work(p, macs),
                                 target::segment_ends(p));
}

}  // namespace svp::compiler
