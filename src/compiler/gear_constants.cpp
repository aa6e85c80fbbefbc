#include "compiler/gear_constants.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace svp::compiler {
namespace {

bool same_constant(const Value& a, const Value& b) {
  return a.dtype == b.dtype && a.shape == b.shape && *a.data == *b.data;
}

std::vector<std::int64_t> int64s(const Value& v) {
  std::vector<std::int64_t> out(v.data->size() / sizeof(std::int64_t));
  std::memcpy(out.data(), v.data->data(), out.size() * sizeof(std::int64_t));
  return out;
}

}  // namespace

std::vector<std::pair<std::int64_t, std::int64_t>> comparison_gears(
    const std::vector<std::pair<std::int64_t, std::int64_t>>& gears) {
  const auto first = gears.front();
  for (const auto& g : gears) {
    if (g.first != first.first && g.second != first.second) return {g};
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (const auto& g : gears) {
    if (g.first != first.first) {
      out.push_back(g);
      break;
    }
  }
  for (const auto& g : gears) {
    if (g.second != first.second) {
      out.push_back(g);
      break;
    }
  }
  return out;
}

Result<int> generalize_against(Graph& g, const Graph& other, std::pair<std::int64_t, std::int64_t> gear,
                               std::pair<std::int64_t, std::int64_t> other_gear) {
  const std::string gears =
      fmt::format("gears {}x{} and {}x{}", gear.first, gear.second, other_gear.first, other_gear.second);
  int generalised = 0;
  for (NodeId id : g.live_nodes()) {
    const std::optional<NodeId> twin = other.find_node(g.node(id).name);
    if (!twin || other.node(*twin).dead || other.node(*twin).op != g.node(id).op ||
        other.node(*twin).inputs.size() != g.node(id).inputs.size()) {
      return Error(err::kFeatureUnsupported,
                   "--dynamic_image_size: {} does not exist in the same form at {} (constant folding depends on "
                   "the image size); compile one model per size",
                   g.describe(id), gears);
    }
    const Node& o = other.node(*twin);
    if (!(g.node(id).attrs.all() == o.attrs.all())) {
      return Error(err::kFeatureUnsupported,
                   "--dynamic_image_size: the attributes of {} depend on the image size ({}); one model cannot hold "
                   "them for every gear: compile one model per size",
                   g.describe(id), gears);
    }
    for (std::size_t k = 0; k < o.inputs.size(); ++k) {
      const ValueId mine = g.node(id).inputs[k];
      if (mine == kNoValue || o.inputs[k] == kNoValue || !g.value(mine).is_constant()) continue;
      const Value& theirs = other.value(o.inputs[k]);
      if (theirs.is_constant() && same_constant(g.value(mine), theirs)) continue;
      const Value& v = g.value(mine);
      // A Reshape target with one image-dependent entry: -1 computes it at every gear.
      if (g.node(id).op == "Reshape" && k == 1 && theirs.is_constant() && v.dtype == model::DType::kInt64 &&
          v.shape == theirs.shape) {
        std::vector<std::int64_t> target = int64s(v);
        const std::vector<std::int64_t> at_other = int64s(theirs);
        std::size_t differing = 0, where = 0;
        for (std::size_t i = 0; i < target.size(); ++i) {
          if (target[i] != at_other[i]) ++differing, where = i;
        }
        const bool has_minus_one = std::find(target.begin(), target.end(), -1) != target.end();
        if (differing == 1 && !has_minus_one && target[where] > 0 && at_other[where] > 0) {
          target[where] = -1;
          auto bytes = std::make_shared<std::vector<std::uint8_t>>(target.size() * sizeof(std::int64_t));
          std::memcpy(bytes->data(), target.data(), bytes->size());
          const ValueId c = g.add_constant(g.unique_name(v.name + "_any_gear"), v.dtype, v.shape, std::move(bytes));
          g.node(id).inputs[k] = c;
          ++generalised;
          continue;
        }
      }
      return Error(err::kFeatureUnsupported,
                   "--dynamic_image_size: input {} (\"{}\") of {} is a constant that depends on the image size ({}); "
                   "svp_atc generalises only Reshape targets with one image-dependent entry: compile one model per "
                   "size",
                   k, v.name, g.describe(id), gears);
    }
  }
  return generalised;
}

}  // namespace svp::compiler
