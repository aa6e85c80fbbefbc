// libFuzzer target for svp_atc's --insert_op_conf reader: any bytes are either refused
// with a Status or become per-input AIPP configurations that the model reader accepts
// (the compiler never writes a model file the runtime would reject). Seeds: the golden
// files of tests/data/aipp. Built beside model_loader_fuzz and run by run_model_fuzz.cmake.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "compiler/aipp/insert_op_convert.h"
#include "compiler/aipp/insert_op_parse.h"
#include "model/aipp/model_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace svp::compiler::aipp_conf;
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
