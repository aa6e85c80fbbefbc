// The board timing model: how long a compiled layer takes on the target SoC's NPU (or its
// CPU), predicted from the layer's work and the target's figures, with efficiency factors
// fitted to published board latencies (../shared/design/BOARD_TIME.md, docs/board_time.md).
//
//   time = max(compute, memory) + overhead
//   compute  = work / (peak rate at the layer's precision × efficiency of its work class)
//   memory   = DDR bytes / (DDR bandwidth × DDR efficiency)
//   overhead = the NPU's per-layer cost (cycles at the NPU clock), on top of it the
//              per-task cost and each switch between NPU and CPU segments
//
// The per-target figures (peak rates, DDR bandwidth, on-chip buffer, clock, CPU rate) are
// the device profile's; the efficiency factors are one fitted set per NPU design
// (data/board_time_factors.inc, written by tools/board_time_fit). The model knows nothing
// about a Program: board_work.h turns a compiled program's layers into LayerWork.
//
// Immutable data and pure functions: safe from any thread.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "target/device_profile.h"

namespace svp::target {

// Where a layer runs on the board.
enum class Unit : std::uint8_t { kNpu, kCpu };

// The precision the NPU computes a layer in: it selects the peak rate and the bytes per
// activation element (weights: 1 byte unless kFp16).
enum class Precision : std::uint8_t {
  kA8W8,   // int8 activations and weights
  kA16W8,  // int16 activations, int8 weights
  kFp16,   // fp16 activations and weights (float layers: the NPU computes float in fp16)
};

// What kind of work a layer is: each class has its own fitted compute efficiency.
enum class WorkClass : std::uint8_t {
  kConv,         // dense or grouped convolution (MACs)
  kDepthwise,    // depthwise convolution (MACs; poor use of the cube)
  kMatMul,       // MatMul / Gemm (MACs)
  kElementwise,  // per-element math and normalisations (output elements)
  kPool,         // pooling (input elements)
  kMove,         // data movement: transpose, concat, slice, resize (output elements)
  kFree,         // no device work (reshape of a contiguous tensor): no time at all
  // A binary elementwise op with a data operand broadcast over the spatial dimensions (the
  // channel-wise multiply of a squeeze-and-excitation gate: [N, C, 1, 1] against
  // [N, C, H, W], directly or through an Expand), output elements. Its own class because the
  // published SE networks run far slower than their convolutions and elementwise ops
  // explain (docs/board_time.md).
  kBroadcast,
};
inline constexpr std::size_t kWorkClasses = 8;
inline bool is_cube(WorkClass w) { return w == WorkClass::kConv || w == WorkClass::kDepthwise || w == WorkClass::kMatMul; }

// What bounds a layer's predicted time.
enum class Bound : std::uint8_t { kCompute, kDdr, kOverhead };

// One layer's work, in elements so the precision sets the bytes. "Chained" feature maps
// pass between layers of one unit at one precision and stay in the on-chip buffer when
// they fit in it; the rest go through DDR.
struct LayerWork {
  Unit unit = Unit::kNpu;
  Precision precision = Precision::kA8W8;
  WorkClass work = WorkClass::kElementwise;
  std::uint64_t macs = 0;          // cube MACs (cube classes)
  std::uint64_t elements = 0;      // vector work: see WorkClass
  std::uint64_t in_elements = 0;   // feature-map elements read from DDR
  std::uint64_t in_chained = 0;    // read, produced on this unit at this precision
  std::uint64_t out_elements = 0;  // written to DDR (model outputs, other units or precisions)
  std::uint64_t out_chained = 0;   // written for readers on this unit at this precision
  std::uint64_t weight_elements = 0;
  // Folded into the previous layer by the board's compiler (an activation after a
  // convolution): no pass of its own, so no time.
  bool fused = false;
};

// The fitted factors of one NPU design (a factor set); log-space fit, each positive.
enum Factor : std::size_t {
  kEffConv,
  kEffDepthwise,
  kEffMatMul,
  kEffElementwise,
  kEffPool,
  kEffMove,
  kEffBroadcast,    // WorkClass::kBroadcast at A16W8 and fp16
  kEffBroadcastA8,  // WorkClass::kBroadcast at A8W8: the published SE networks need two
  kEffDdr,          // fraction of the nominal DDR bandwidth a layer's transfers reach
  kLayerKcycles,   // per-layer NPU cost, thousands of NPU cycles
  kTaskUs,         // per execution (task submission, completion), µs
  kCpuEff,         // fraction of the CPU's MAC rate a CPU layer reaches
  kSwitchUs,       // each switch between an NPU and a CPU segment, µs
  kFactorCount,
};
using Factors = std::array<double, kFactorCount>;

const char* factor_name(std::size_t f);

// The committed fitted factors of `device`'s factor set (BoardFigures::factor_set); a set
// without committed factors gets its family's first set.
const Factors& fitted_factors(const DeviceProfile& device);

struct LayerTime {
  double us = 0;  // predicted board time
  double compute_us = 0;
  double memory_us = 0;
  double overhead_us = 0;
  double ddr_bytes = 0;
  Bound bound = Bound::kOverhead;
};

// One layer on `device` with `factors` (fitted_factors(device) normally; the fit
// passes candidates). Monotone: more MACs, elements or bytes never give less time.
LayerTime predict_layer(const DeviceProfile& device, const Factors& factors, const LayerWork& work);

// A whole program's prediction: per layer, per segment (its layers plus the switch into
// it when its unit differs from the previous segment's) and the total (segments plus the
// per-task cost). A runtime asks segment_us[k] for "segment k on this target".
struct ProgramTime {
  std::vector<LayerTime> layers;
  std::vector<double> segment_us;
  double task_us = 0;
  double total_us = 0;
  double ddr_bytes = 0;
};

// `segment_ends[k]` is one past segment k's last layer (Program::segments' end).
ProgramTime predict_program(const DeviceProfile& device, const Factors& factors, const std::vector<LayerWork>& work,
                            const std::vector<std::int32_t>& segment_ends);

// Peak MAC rate (MAC/s) of one NPU core at `p`: the calibration figures are single-core.
double npu_macs_per_s(const DeviceProfile& device, Precision p);

const char* to_string(Bound b);
const char* to_string(WorkClass w);
const char* to_string(Precision p);

}  // namespace svp::target
