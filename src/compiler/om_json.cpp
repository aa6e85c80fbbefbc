#include "compiler/om_json.h"

#include <string>

#include "compiler/board_time.h"
#include "kernels/cost.h"
#include "ops/op_def.h"

namespace svp::compiler {

nlohmann::json om_json(const model::Program& p, std::uint64_t weights_size, const std::vector<FusionGroup>* fusions,
                       const target::DeviceProfile* device) {
  using nlohmann::json;
  auto desc = [&](std::int32_t t) {
    if (t < 0) return json(nullptr);
    const model::Tensor& x = p.tensors[static_cast<std::size_t>(t)];
    json d = {{"name", x.name},
              {"dtype", model::dtype_name(x.dtype)},
              {"shape", x.dims},
              {"layout", model::layout_name(x.layout)},
              {"placement", model::placement_name(x.placement)}};
    if (!x.quant.empty()) d["quant"] = {{"scale", x.quant.scale}, {"zero_point", x.quant.zero_point}};
    // --insert_op_conf's result, so --mode=1 shows what the input expects from the camera.
    if (!x.aipp.empty()) d["aipp"] = json::parse(x.aipp, nullptr, false);
    return d;
  };
  std::vector<std::int32_t> producer(p.tensors.size(), -1);
  for (std::size_t l = 0; l < p.layers.size(); ++l) {
    for (std::int32_t t : p.layers[l].outputs) producer[static_cast<std::size_t>(t)] = static_cast<std::int32_t>(l);
  }
  std::vector<std::int64_t> fused_into(p.layers.size(), -1);
  json fusion_list = json::array();
  if (fusions != nullptr) {
    for (const FusionGroup& g : *fusions) {
      json names = json::array({p.layers[g.head].name});
      for (std::size_t f : g.fused) {
        fused_into[f] = static_cast<std::int64_t>(g.head);
        names.push_back(p.layers[f].name);
      }
      fusion_list.push_back(names);
    }
  }
  std::vector<std::vector<std::size_t>> readers(p.tensors.size());
  for (std::size_t l = 0; l < p.layers.size(); ++l) {
    for (std::int32_t t : p.layers[l].inputs) {
      if (t >= 0) readers[static_cast<std::size_t>(t)].push_back(l);
    }
  }
  // The precision the quantizer chose (compiler/quantize/quantize.h), read off the tensors:
  // A8W8 / A16W8 for layers on int8 / int16 activations, FP16 for float layers whose
  // outputs are all rounded to float16 (modes 5/6 emulate fp16 storage with a Cast pair),
  // FP32 otherwise. Type casts and the Quantize/DequantizeLinear boundaries have none.
  auto precision = [&](const model::Layer& L) -> const char* {
    const ops::QuantRole role = ops::op_def(L.op).quant;
    if (role == ops::QuantRole::kFloatOnly || role == ops::QuantRole::kBoundary) return nullptr;
    bool a8 = false, a16 = false;
    for (std::int32_t t : L.inputs) {
      if (t < 0) continue;
      const model::Tensor& x = p.tensors[static_cast<std::size_t>(t)];
      if (x.placement == model::Placement::kWeights || x.quant.empty()) continue;
      a16 = a16 || x.dtype == model::DType::kInt16;
      a8 = a8 || x.dtype == model::DType::kInt8 || x.dtype == model::DType::kUint8;
    }
    for (std::int32_t t : L.outputs) {
      const model::Tensor& x = p.tensors[static_cast<std::size_t>(t)];
      if (x.quant.empty()) continue;
      a16 = a16 || x.dtype == model::DType::kInt16;
      a8 = a8 || x.dtype == model::DType::kInt8 || x.dtype == model::DType::kUint8;
    }
    if (a16) return "A16W8";
    if (a8) return "A8W8";
    bool fp16 = !L.outputs.empty();
    for (std::int32_t t : L.outputs) {
      const auto& rs = readers[static_cast<std::size_t>(t)];
      fp16 = fp16 && !rs.empty() && p.tensors[static_cast<std::size_t>(t)].dtype == model::DType::kFloat32;
      for (std::size_t r : rs) {
        const model::Layer& c = p.layers[r];
        fp16 = fp16 && c.op == "Cast" && c.outputs.size() == 1 &&
               p.tensors[static_cast<std::size_t>(c.outputs[0])].dtype == model::DType::kFloat16;
      }
    }
    if (fp16) return "FP16";
    // Ops that only move values are not rounded again: FP16 when what they move was.
    if (!ops::moves_values(L.op)) return "FP32";
    bool moved16 = false;
    for (std::int32_t t : L.inputs) {
      if (t < 0 || p.tensors[static_cast<std::size_t>(t)].placement == model::Placement::kWeights) continue;
      const std::int32_t from = producer[static_cast<std::size_t>(t)];
      const model::Layer* c = from >= 0 ? &p.layers[static_cast<std::size_t>(from)] : nullptr;
      if (c == nullptr || c->op != "Cast" || c->inputs.empty() || c->inputs[0] < 0 ||
          p.tensors[static_cast<std::size_t>(c->inputs[0])].dtype != model::DType::kFloat16) {
        return "FP32";
      }
      moved16 = true;
    }
    return moved16 ? "FP16" : "FP32";
  };
  std::uint64_t aicpu_layers = 0;
  json ops = json::array();
  for (std::size_t l = 0; l < p.layers.size(); ++l) {
    const model::Layer& L = p.layers[l];
    const bool cpu = L.target == model::Target::kAiCpu;
    aicpu_layers += cpu ? 1 : 0;
    json in = json::array(), out = json::array(), flow = json::array();
    for (std::int32_t t : L.inputs) {
      in.push_back(desc(t));
      if (t >= 0 && producer[static_cast<std::size_t>(t)] >= 0) {
        flow.push_back(p.layers[static_cast<std::size_t>(producer[static_cast<std::size_t>(t)])].name);
      }
    }
    for (std::int32_t t : L.outputs) out.push_back(desc(t));
    ops.push_back({{"name", L.name},
                   {"type", L.op},
                   {"device_type", cpu ? "CPU" : "NPU"},
                   {"macs", kernels::layer_macs(p, l)},
                   {"input_desc", in},
                   {"output_desc", out},
                   {"data_flow", flow}});
    if (const char* prec = precision(L)) ops.back()["precision"] = prec;
    if (fused_into[l] >= 0) ops.back()["fused_into"] = p.layers[static_cast<std::size_t>(fused_into[l])].name;
  }
  json segments = json::array();
  for (const model::Segment& s : p.segments) segments.push_back({s.begin, s.end});
  json j = {{"name", p.name},
          {"atc_version", p.compiler.producer_version},
          {"atc_command_line", p.compiler.command_line},
          {"tmp_buf_size", p.flags.work_buf_size},
          {"task_buf_size", p.flags.task_buf_size},
          {"work_buf_size", p.flags.work_buf_size},
          {"aacpu_buf_size", 0},
          {"aicpu_layer_num", aicpu_layers},
          {"model_param_size", weights_size},
          {"batch_num", p.flags.dynamic_batch.empty() ? 1 : p.flags.dynamic_batch.front()},
          {"dynamic_hw", p.flags.dynamic_hw},
          {"preemptible", p.flags.preemptible},
          {"segments", segments},
          {"ops", ops}};
  if (fusions != nullptr) j["fusions"] = fusion_list;
  if (device != nullptr) {
    const target::ProgramTime t = predict_board_time(p, *device);
    for (std::size_t l = 0; l < p.layers.size(); ++l) {
      j["ops"][l]["predicted_us"] = t.layers[l].us;
      j["ops"][l]["predicted_bound"] = t.layers[l].us > 0 ? target::to_string(t.layers[l].bound) : "fused";
    }
    j["predicted_board_time"] = {{"soc", device->name}, {"total_us", t.total_us}, {"task_us", t.task_us},
                                 {"segment_us", t.segment_us}};
  }
  return j;
}

}  // namespace svp::compiler
