#include "svp_compare/layer_match.h"

#include <map>
#include <string>
#include <utility>

namespace svp::compare {
namespace {

bool EndsWithSuffix(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "name_12" → "name"; anything else unchanged.
std::string WithoutUniquenessSuffix(const std::string& s) {
  const std::size_t us = s.rfind('_');
  if (us == std::string::npos || us + 1 == s.size()) return s;
  for (std::size_t i = us + 1; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return s;
  }
  return s.substr(0, us);
}

}  // namespace

std::vector<LayerOutput> GroupLayerOutputs(const std::vector<DumpEntry>& entries) {
  std::vector<LayerOutput> outputs;
  std::map<std::pair<std::string, std::int64_t>, std::size_t> position;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const DumpEntry& e = entries[i];
    if (e.input) continue;
    auto [it, inserted] = position.emplace(std::make_pair(e.layer, e.index), outputs.size());
    if (inserted) {
      LayerOutput o;
      o.layer = e.layer;
      o.op = e.op;
      o.index = e.index;
      o.tensor = e.tensor;
      outputs.push_back(std::move(o));
    }
    outputs[it->second].entries.push_back(i);
  }
  return outputs;
}

std::string UnquantizedTensorName(const std::string& tensor) {
  for (const std::string& base : {tensor, WithoutUniquenessSuffix(tensor)}) {
    for (const char* suffix : {"_int8", "_int16", "_float"}) {
      if (EndsWithSuffix(base, suffix)) return base.substr(0, base.size() - std::char_traits<char>::length(suffix));
    }
  }
  return tensor;
}

LayerMatch MatchLayers(const std::vector<LayerOutput>& golden, const std::vector<LayerOutput>& actual) {
  std::map<std::pair<std::string, std::int64_t>, std::size_t> by_layer;
  std::map<std::string, std::size_t> by_tensor;
  for (std::size_t g = 0; g < golden.size(); ++g) {
    by_layer.emplace(std::make_pair(golden[g].layer, golden[g].index), g);
    by_tensor.emplace(golden[g].tensor, g);
  }
  std::vector<bool> golden_used(golden.size(), false);
  std::vector<long> pair_of(actual.size(), -1);  // golden index, or -1
  std::vector<bool> pair_by_layer(actual.size(), false);
  // Layer names first, over the whole model, so that a tensor-name pairing further up
  // cannot take a golden output its own layer would have matched.
  for (std::size_t a = 0; a < actual.size(); ++a) {
    auto it = by_layer.find({actual[a].layer, actual[a].index});
    if (it == by_layer.end() || golden_used[it->second]) continue;
    golden_used[it->second] = true;
    pair_of[a] = static_cast<long>(it->second);
    pair_by_layer[a] = true;
  }
  LayerMatch m;
  for (std::size_t a = 0; a < actual.size(); ++a) {
    if (pair_of[a] >= 0) continue;
    long taken = -1;
    for (const std::string& name : {actual[a].tensor, UnquantizedTensorName(actual[a].tensor)}) {
      auto it = by_tensor.find(name);
      if (it == by_tensor.end()) continue;
      if (golden_used[it->second]) {
        taken = static_cast<long>(it->second);
        continue;
      }
      golden_used[it->second] = true;
      pair_of[a] = static_cast<long>(it->second);
      break;
    }
    if (pair_of[a] < 0 && taken >= 0) m.actual_repeats.push_back({a, static_cast<std::size_t>(taken)});
  }
  for (std::size_t a = 0; a < actual.size(); ++a) {
    if (pair_of[a] < 0) {
      bool repeat = false;
      for (const auto& r : m.actual_repeats) repeat = repeat || r.first == a;
      if (!repeat) m.actual_unmatched.push_back(a);
      continue;
    }
    LayerPair p;
    p.golden = static_cast<std::size_t>(pair_of[a]);
    p.actual = a;
    p.by_layer_name = pair_by_layer[a];
    m.pairs.push_back(p);
  }
  for (std::size_t g = 0; g < golden.size(); ++g) {
    if (!golden_used[g]) m.golden_unmatched.push_back(g);
  }
  return m;
}

}  // namespace svp::compare
