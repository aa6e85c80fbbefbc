#include "compiler/emit.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

namespace svp::compiler {

std::string model_name_for(const Graph& graph, const CompileOptions& options) {
  std::string name = options.output.empty() ? std::string() : std::filesystem::path(options.output).filename().string();
  if (name.size() > 3 && name.compare(name.size() - 3, 3, ".om") == 0) name.resize(name.size() - 3);
  if (name.empty()) name = graph.name;
  if (name.size() > model::kMaxModelNameLen) name.resize(model::kMaxModelNameLen);
  return name;
}

namespace {

// One emit for both forms: `release`, when given, drops a constant's data after copying.
Result<BuiltModel> emit_graph(const Graph& g, const CompileOptions& options, Graph* release, bool image) {
  ModelBuilder b(model_name_for(g, options));
  std::map<ValueId, TensorId> tensor_of;
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    const Value& v = g.value(g.inputs[i]);
    const model::Layout layout = v.shape.size() == 4 ? model::Layout::kNCHW : model::Layout::kND;
    const TensorId t = b.add_input(v.name, v.dtype, v.shape, layout, v.quant);
    if (i < g.input_aipp.size() && !g.input_aipp[i].empty()) b.set_aipp(t, g.input_aipp[i]);
    tensor_of[g.inputs[i]] = t;
  }
  const auto order = g.live_nodes();
  {
    // Every constant a node reads, at its aligned size, reserved at once.
    std::set<ValueId> seen;
    std::size_t bytes = 0;
    for (NodeId id : order) {
      for (ValueId v : g.node(id).inputs) {
        if (v == kNoValue || !g.value(v).is_constant() || !seen.insert(v).second) continue;
        bytes += (g.value(v).data->size() + model::kBufferAlign - 1) / model::kBufferAlign * model::kBufferAlign;
      }
    }
    b.reserve_weights(bytes);
  }
  bool manual_segments = false;
  for (NodeId n : order) manual_segments = manual_segments || g.node(n).starts_segment;
  for (NodeId id : order) {
    const Node& n = g.node(id);
    std::vector<TensorId> inputs;
    for (ValueId v : n.inputs) {
      if (v == kNoValue) {
        inputs.push_back(-1);
        continue;
      }
      auto it = tensor_of.find(v);
      if (it == tensor_of.end()) {
        const Value& c = g.value(v);
        if (!c.is_constant()) {
          return Error(err::kParseModel, "{} reads \"{}\" before it is produced", g.describe(id), c.name);
        }
        it = tensor_of.emplace(v, b.add_constant(c.name, c.dtype, c.shape, c.data->data(), c.data->size(), c.quant))
                 .first;
        if (release != nullptr) release->value(v).data = std::make_shared<const std::vector<std::uint8_t>>();
      }
      inputs.push_back(it->second);
    }
    LayerOptions lo;
    lo.attrs = n.attrs;
    lo.target = n.target;
    for (ValueId o : n.outputs) {
      const Value& v = g.value(o);
      lo.output_shapes.push_back(v.shape);
      lo.output_dtypes.push_back(v.dtype);
      lo.output_quants.push_back(v.quant);
      lo.output_layouts.push_back(v.shape.size() == 4 ? model::Layout::kNCHW : model::Layout::kND);
      lo.output_names.push_back(v.name);
    }
    if (manual_segments && n.starts_segment) b.begin_segment();
    const LayerRef ref = b.add_layer(n.name, n.op, std::move(inputs), std::move(lo));
    if (!b.status().ok()) return Error(b.status().code(), "{}: {}", g.describe(id), b.status().message());
    for (std::size_t k = 0; k < n.outputs.size(); ++k) tensor_of[n.outputs[k]] = ref.out(k);
  }
  for (ValueId o : g.outputs) {
    auto it = tensor_of.find(o);
    if (it == tensor_of.end()) {
      return Error(err::kParseModel, "model output \"{}\" is not produced by a layer", g.value(o).name);
    }
    b.add_output(it->second);
  }
  if (!options.dynamic_batch_size.empty()) {
    std::vector<std::uint64_t> batches(options.dynamic_batch_size.begin(), options.dynamic_batch_size.end());
    b.set_dynamic_batch({*std::max_element(batches.begin(), batches.end())});
  }
  if (!options.dynamic_image_size.empty()) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> gears;
    for (const auto& [h, w] : options.dynamic_image_size) {
      gears.emplace_back(static_cast<std::uint64_t>(h), static_cast<std::uint64_t>(w));
    }
    b.set_dynamic_hw(std::move(gears));
  }
  b.set_buffer_reuse(options.buffer_reuse);
  b.set_preemptible(options.preemptible);
  b.set_compiler_info(fmt::format("svp-acl svp_atc {}", SVP_ACL_VERSION_STRING), options.command_line);
  // The graph's constants, now copied into the weights and released, went back to
  // malloc's free lists, which keep their pages: hand them to the system before the image
  // (another copy of the weights) is written, or the three would add up in the peak
  // resident memory (ResNet-50: 292 MB instead of about 212 MB).
  if (release != nullptr) return_free_memory();
  auto built = image ? std::move(b).build() : std::move(b).build_without_image();
  if (!built.ok()) return built.status();
  return built;
}

}  // namespace

Result<BuiltModel> emit(const Graph& g, const CompileOptions& options) {
  return emit_graph(g, options, nullptr, true);
}

Result<BuiltModel> emit_program(const Graph& g, const CompileOptions& options) {
  return emit_graph(g, options, nullptr, false);
}

Result<BuiltModel> emit_consuming(Graph& g, const CompileOptions& options, bool image) {
  return emit_graph(g, options, &g, image);
}

void return_free_memory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

}  // namespace svp::compiler
