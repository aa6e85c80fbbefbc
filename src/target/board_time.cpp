#include "target/board_time.h"

#include <algorithm>
#include <string_view>

namespace svp::target {
namespace {

// The committed fit (tools/board_time_fit writes the file; docs/board_time.md).
struct FactorSet {
  const char* name;
  Family family;
  Factors factors;
};
constexpr FactorSet kFitted[] = {
#include "target/data/board_time_factors.inc"
};

double bytes_per_element(Precision p) { return p == Precision::kA8W8 ? 1.0 : 2.0; }
double weight_bytes_per_element(Precision p) { return p == Precision::kFp16 ? 2.0 : 1.0; }

double efficiency(const Factors& f, WorkClass w, Precision p) {
  switch (w) {
    case WorkClass::kConv: return f[kEffConv];
    case WorkClass::kDepthwise: return f[kEffDepthwise];
    case WorkClass::kMatMul: return f[kEffMatMul];
    case WorkClass::kElementwise: return f[kEffElementwise];
    case WorkClass::kPool: return f[kEffPool];
    case WorkClass::kMove: return f[kEffMove];
    case WorkClass::kBroadcast: return p == Precision::kA8W8 ? f[kEffBroadcastA8] : f[kEffBroadcast];
    case WorkClass::kFree: break;
  }
  return 1.0;
}

// Bytes a layer moves through DDR: chained feature maps stay on chip when they fit in the
// buffer (judged per layer, on all its chained reads or writes together).
double ddr_bytes(const DeviceProfile& d, const LayerWork& w) {
  const double b = w.unit == Unit::kCpu ? 4.0 : bytes_per_element(w.precision);
  const double sram = w.unit == Unit::kCpu ? 0.0 : static_cast<double>(d.sram_bytes);
  auto chained = [&](std::uint64_t e) {
    const double bytes = static_cast<double>(e) * b;
    return bytes <= sram ? 0.0 : bytes;
  };
  const double wb = w.unit == Unit::kCpu ? 4.0 : weight_bytes_per_element(w.precision);
  return static_cast<double>(w.in_elements + w.out_elements) * b + chained(w.in_chained) + chained(w.out_chained) +
         static_cast<double>(w.weight_elements) * wb;
}

}  // namespace

const char* factor_name(std::size_t f) {
  static const char* const names[kFactorCount] = {
      "eff_conv", "eff_depthwise", "eff_matmul",    "eff_elementwise", "eff_pool", "eff_move",
      "eff_broadcast", "eff_broadcast_a8", "eff_ddr", "layer_kcycles", "task_us", "cpu_eff", "switch_us"};
  return f < kFactorCount ? names[f] : "?";
}

const Factors& fitted_factors(const DeviceProfile& device) {
  for (const FactorSet& f : kFitted) {
    if (std::string_view(f.name) == device.board.factor_set) return f.factors;
  }
  for (const FactorSet& f : kFitted) {
    if (f.family == device.family) return f.factors;
  }
  return kFitted[0].factors;
}

double npu_macs_per_s(const DeviceProfile& d, Precision p) {
  const double int8 = d.npu_int8_tops * 1e12 / 2 / std::max<std::uint32_t>(d.npu_cores, 1);
  switch (p) {
    case Precision::kA8W8: return int8;
    case Precision::kA16W8: return int8 * d.board.a16w8_ratio;
    case Precision::kFp16: break;
  }
  return int8 * d.board.fp16_ratio;
}

LayerTime predict_layer(const DeviceProfile& d, const Factors& f, const LayerWork& w) {
  LayerTime t;
  if (w.work == WorkClass::kFree || w.fused) return t;
  const double work = static_cast<double>(is_cube(w.work) ? w.macs : w.elements);
  if (w.unit == Unit::kCpu) {
    t.compute_us = work / (d.cpu_gmacs * 1e9 * f[kCpuEff]) * 1e6;
  } else {
    t.compute_us = work / (npu_macs_per_s(d, w.precision) * efficiency(f, w.work, w.precision)) * 1e6;
    t.overhead_us = f[kLayerKcycles] * 1e3 / (d.board.npu_clock_ghz * 1e9) * 1e6;
  }
  t.ddr_bytes = ddr_bytes(d, w);
  t.memory_us = t.ddr_bytes / (d.ddr_gbps * 1e9 * f[kEffDdr]) * 1e6;
  const double busy = std::max(t.compute_us, t.memory_us);
  t.us = busy + t.overhead_us;
  t.bound = t.overhead_us > busy ? Bound::kOverhead : t.compute_us >= t.memory_us ? Bound::kCompute : Bound::kDdr;
  return t;
}

ProgramTime predict_program(const DeviceProfile& d, const Factors& f, const std::vector<LayerWork>& work,
                            const std::vector<std::int32_t>& segment_ends) {
  ProgramTime p;
  p.layers.reserve(work.size());
  for (const LayerWork& w : work) {
    p.layers.push_back(predict_layer(d, f, w));
    p.ddr_bytes += p.layers.back().ddr_bytes;
  }
  std::size_t begin = 0;
  bool have_unit = false;
  Unit previous = Unit::kNpu;
  for (std::int32_t e : segment_ends) {
    const std::size_t end = std::min(static_cast<std::size_t>(std::max(e, 0)), work.size());
    double us = 0;
    for (std::size_t l = begin; l < end; ++l) us += p.layers[l].us;
    if (begin < end) {
      if (have_unit && work[begin].unit != previous) us += f[kSwitchUs];
      previous = work[begin].unit;
      have_unit = true;
    }
    p.segment_us.push_back(us);
    p.total_us += us;
    begin = std::max(begin, end);
  }
  p.task_us = f[kTaskUs];
  p.total_us += p.task_us;
  return p;
}

const char* to_string(Bound b) {
  switch (b) {
    case Bound::kCompute: return "compute";
    case Bound::kDdr: return "DDR";
    case Bound::kOverhead: break;
  }
  return "overhead";
}

const char* to_string(WorkClass w) {
  switch (w) {
    case WorkClass::kConv: return "conv";
    case WorkClass::kDepthwise: return "depthwise";
    case WorkClass::kMatMul: return "matmul";
    case WorkClass::kElementwise: return "elementwise";
    case WorkClass::kPool: return "pool";
    case WorkClass::kMove: return "move";
    case WorkClass::kBroadcast: return "broadcast";
    case WorkClass::kFree: break;
  }
  return "free";
}

const char* to_string(Precision p) {
  switch (p) {
    case Precision::kA8W8: return "A8W8";
    case Precision::kA16W8: return "A16W8";
    case Precision::kFp16: break;
  }
  return "fp16";
}

}  // namespace svp::target
