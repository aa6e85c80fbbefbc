// libFuzzer target for svp_atc's protobuf text readers.
// --insert_op_conf: any bytes are either refused with a Status or become per-input AIPP
// configurations that the model reader accepts (the compiler never writes a model file the
// runtime would reject).
// --gfpq_param_file: any bytes are refused with a Status or give layers whose file, written
// back, reads as the same layers (scales bit for bit).
// Seeds: the golden files of tests/data/aipp and tests/data/calibration_param. Built beside
// model_loader_fuzz and run by run_model_fuzz.cmake.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "compiler/aipp/insert_op_convert.h"
#include "compiler/aipp/insert_op_parse.h"
#include "compiler/quantize/calibration_param.h"
#include "model/aipp/model_config.h"

namespace {

bool same_layers(const svp::compiler::quant::ExternalParams& a, const svp::compiler::quant::ExternalParams& b) {
  if (a.layers.size() != b.layers.size()) return false;
  for (std::size_t i = 0; i < a.layers.size(); ++i) {
    const auto& x = a.layers[i];
    const auto& y = b.layers[i];
    if (x.name != y.name || x.precision != y.precision || x.weight_scale != y.weight_scale ||
        x.inputs.size() != y.inputs.size()) {
      return false;
    }
    for (std::size_t k = 0; k < x.inputs.size(); ++k) {
      if (x.inputs[k].has_value() != y.inputs[k].has_value()) return false;
      if (x.inputs[k] && (x.inputs[k]->scale != y.inputs[k]->scale || x.inputs[k]->zero_point != y.inputs[k]->zero_point)) {
        return false;
      }
    }
  }
  return true;
}

void calibration_param_round_trip(const std::string& bytes) {
  using namespace svp::compiler::quant;
  auto params = parse_calibration_param(bytes, "fuzz.txt");
  if (!params.ok()) return;
  auto again = parse_calibration_param(calibration_param_text(*params), "again.txt");
  if (!again.ok() || !same_layers(*params, *again)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace svp::compiler::aipp_conf;
  calibration_param_round_trip(std::string(reinterpret_cast<const char*>(data), size));
  auto cfg = parse_insert_op_conf(std::string(reinterpret_cast<const char*>(data), size), "fuzz.cfg");
  if (!cfg.ok()) return 0;
  ModelContext m;
  m.inputs.push_back(ModelInput{"rgb", {1, 3, 224, 224}, svp::model::DType::kFloat32});
  m.inputs.push_back(ModelInput{"gray", {1, 1, 28, 28}, svp::model::DType::kFloat32});
  auto out = convert_insert_op(*cfg, m);
  if (!out.ok()) return 0;
  for (const std::string& json : out->input_aipp) {
    if (json.empty()) continue;
    if (!svp::aipp::parse_model_aipp(json).ok()) std::abort();
  }
  return 0;
}
