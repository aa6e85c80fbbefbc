#include "compiler/device_profile.h"

namespace svp::compiler {

// NPU rates: the vendors' marketing figure where one is published (SS928V100 4 TOPS,
// Hi3519DV500 2.5 TOPS); for the two smaller chips no public figure was found, the values
// below are assumptions scaled to their class and say so in the log. DRAM: a 32-bit DDR4 /
// LPDDR4 interface at its nominal transfer rate. AI-CPU: one Cortex-A55-class core at
// ~1.4 GHz doing four fp32 MACs per cycle with NEON.
const DeviceProfile& device_profile(SocVersion soc) {
  static const DeviceProfile kSS928{"SS928V100", 4.0, 17.0, 5.6, "product brief (NPU), nominal LPDDR4X x32"};
  static const DeviceProfile kSS626{"SS626V100", 1.0, 10.6, 5.6, "assumed: no public NPU figure found"};
  static const DeviceProfile kHi3519DV500{"Hi3519DV500", 2.5, 10.6, 5.6, "product brief (NPU), nominal DDR4 x32"};
  static const DeviceProfile kHi3516CV610{"Hi3516CV610", 0.5, 6.4, 4.0, "assumed: no public NPU figure found"};
  switch (soc) {
    case SocVersion::kSS626V100: return kSS626;
    case SocVersion::kHi3519DV500: return kHi3519DV500;
    case SocVersion::kHi3516CV610: return kHi3516CV610;
    case SocVersion::kSS928V100: break;
  }
  return kSS928;
}

}  // namespace svp::compiler
