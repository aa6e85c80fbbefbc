#include "compiler/perf_csv.h"

#include <fmt/format.h>

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

}  // namespace

std::string atc_perf_csv(const model::Program& p) {
  std::string out = "index,name,type,device,segment,macs,bytes_read,bytes_written,weight_bytes\n";
  std::size_t segment = 0;
  std::uint64_t macs = 0, read = 0, written = 0, weights = 0;
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
    out += fmt::format("{},{},{},{},{},{},{},{},{}\n", l, field(L.name), field(L.op),
                       L.target == model::Target::kAiCpu ? "CPU" : "NPU", segment, m, in, o, w);
    macs += m;
    read += in;
    written += o;
    weights += w;
  }
  out += fmt::format("total,,,,{},{},{},{},{}\n", p.segments.size(), macs, read, written, weights);
  return out;
}

}  // namespace svp::compiler
