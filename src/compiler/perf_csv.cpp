#include "compiler/perf_csv.h"

#include <fmt/format.h>

#include <algorithm>

#include "compiler/board_time.h"
#include "kernels/cost.h"

namespace svp::compiler {
namespace {

// CSV field: quoted when it holds a separator or a quote.
std::string field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// MACs per second the layer's unit reaches at best: the NPU's cube at its int8 rate for
// 8-bit activations, half of it otherwise; the AI-CPU's vector rate.
double peak_macs_per_s(const model::Program& p, const model::Layer& L, const target::DeviceProfile& d) {
  if (L.target == model::Target::kAiCpu) return d.cpu_gmacs * 1e9;
  const double int8_macs = d.npu_int8_tops * 1e12 / 2;
  if (L.inputs.empty() || L.inputs[0] < 0) return int8_macs;
  const model::DType t = p.tensors[static_cast<std::size_t>(L.inputs[0])].dtype;
  return t == model::DType::kInt8 || t == model::DType::kUint8 ? int8_macs : int8_macs / 2;
}

}  // namespace

std::string atc_perf_csv(const model::Program& p, const target::DeviceProfile& device) {
  std::string out =
      "index,name,type,device,segment,macs,bytes_read,bytes_written,weight_bytes,est_time_us,bound,predicted_us,"
      "predicted_bound\n";
  const target::ProgramTime board = predict_board_time(p, device);
  std::size_t segment = 0;
  std::uint64_t macs = 0, read = 0, written = 0, weights = 0;
  double total_us = 0;
  for (std::size_t l = 0; l < p.layers.size(); ++l) {
    while (segment + 1 < p.segments.size() && static_cast<std::size_t>(p.segments[segment].end) <= l) ++segment;
    const model::Layer& L = p.layers[l];
    std::uint64_t in = 0, w = 0, o = 0;
    for (std::int32_t t : L.inputs) {
      if (t < 0) continue;
      const model::Tensor& x = p.tensors[static_cast<std::size_t>(t)];
      in += x.size;
      if (x.placement == model::Placement::kWeights) w += x.size;
    }
    for (std::int32_t t : L.outputs) o += p.tensors[static_cast<std::size_t>(t)].size;
    const std::uint64_t m = kernels::layer_macs(p, l);
    const double compute_us = static_cast<double>(m) / peak_macs_per_s(p, L, device) * 1e6;
    const double memory_us = static_cast<double>(in + o) / (device.ddr_gbps * 1e9) * 1e6;
    const double us = std::max(compute_us, memory_us);
    const target::LayerTime& t = board.layers[l];
    out += fmt::format("{},{},{},{},{},{},{},{},{},{:.3f},{},{:.3f},{}\n", l, field(L.name), field(L.op),
                       L.target == model::Target::kAiCpu ? "CPU" : "NPU", segment, m, in, o, w, us,
                       compute_us >= memory_us ? "compute" : "memory", t.us,
                       t.us > 0 ? target::to_string(t.bound) : "fused");
    total_us += us;
    macs += m;
    read += in;
    written += o;
    weights += w;
  }
  // The total's predicted time adds the per-task and NPU/CPU switch costs to the layers'.
  out += fmt::format("total,,,,{},{},{},{},{},{:.3f},,{:.3f},\n", p.segments.size(), macs, read, written, weights,
                     total_us, board.total_us);
  return out;
}

}  // namespace svp::compiler
