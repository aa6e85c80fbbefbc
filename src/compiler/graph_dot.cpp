#include "compiler/graph_dot.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace svp::compiler {
namespace {

// A double-quoted DOT string.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";  // a line break inside the label
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string value_label(const Value& v) {
  std::string label = fmt::format("{}\n{} [{}]", v.name, model::dtype_name(v.dtype), fmt::join(v.shape, ","));
  if (!v.quant.empty() && !v.quant.per_channel()) label += fmt::format(" s={:.4g}", v.quant.scale[0]);
  if (v.quant.per_channel()) label += fmt::format(" {} scales", v.quant.scale.size());
  return label;
}

}  // namespace

std::string to_dot(const Graph& g, const std::string& title) {
  std::string out = fmt::format("digraph {} {{\n  label={};\n  node [shape=box, fontsize=10];\n", quoted(g.name),
                                quoted(title));
  for (ValueId v : g.inputs) {
    out += fmt::format("  {} [shape=ellipse, label={}];\n", quoted("in:" + g.value(v).name),
                       quoted(value_label(g.value(v))));
  }
  for (NodeId id : g.live_nodes()) {
    const Node& n = g.node(id);
    const bool cpu = n.target == model::Target::kAiCpu;
    out += fmt::format("  {} [label={}{}];\n", quoted(n.name), quoted(n.name + "\n" + n.op),
                       cpu ? ", style=filled, fillcolor=lightgrey" : "");
    for (ValueId v : n.inputs) {
      if (v == kNoValue || g.value(v).is_constant()) continue;
      const Value& val = g.value(v);
      const std::string from = val.producer >= 0 ? g.node(val.producer).name : "in:" + val.name;
      out += fmt::format("  {} -> {} [label={}, fontsize=8];\n", quoted(from), quoted(n.name), quoted(value_label(val)));
    }
  }
  for (ValueId v : g.outputs) {
    const Value& val = g.value(v);
    out += fmt::format("  {} [shape=ellipse];\n", quoted("out:" + val.name));
    const std::string from = val.producer >= 0 ? g.node(val.producer).name : "in:" + val.name;
    out += fmt::format("  {} -> {} [label={}, fontsize=8];\n", quoted(from), quoted("out:" + val.name),
                       quoted(value_label(val)));
  }
  return out + "}\n";
}

}  // namespace svp::compiler
