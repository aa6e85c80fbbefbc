#include "compiler/fusion_report.h"

#include "kernels/compiled_program.h"

namespace svp::compiler {

Result<std::vector<FusionGroup>> runtime_fusions(const model::Program& program, const std::uint8_t* weights,
                                                 std::size_t weights_size) {
  auto compiled = kernels::CompiledProgram::compile(program, weights, weights_size, kernels::CompileOptions{});
  if (!compiled.ok()) return compiled.status();
  return runtime_fusions(**compiled);
}

std::vector<FusionGroup> runtime_fusions(const kernels::CompiledProgram& cp) {
  std::vector<FusionGroup> groups;
  // A fused layer is folded into the nearest non-fused layer before it (the runtime only
  // folds the layers right after the head, each the sole reader of the previous one).
  for (std::size_t i = 0; i < cp.layer_count(); ++i) {
    const std::string impl = cp.layer_impl(i);
    const bool fused = impl.size() > 6 && impl.compare(impl.size() - 6, 6, ":fused") == 0;
    if (!fused) continue;
    if (groups.empty() || groups.back().fused.empty() || groups.back().fused.back() + 1 != i) {
      if (i == 0) continue;  // cannot happen: nothing before it to fold into
      groups.push_back({i - 1, {}, cp.layer_impl(i - 1)});
    }
    groups.back().fused.push_back(i);
  }
  return groups;
}

std::string fusion_text(const model::Program& program, const std::vector<FusionGroup>& groups) {
  std::string out;
  for (const FusionGroup& g : groups) {
    out += out.empty() ? "" : ", ";
    out += program.layers[g.head].name;
    for (std::size_t f : g.fused) out += "+" + program.layers[f].name;
  }
  return out.empty() ? "none" : out;
}

}  // namespace svp::compiler
