#include "compiler/aipp/insert_op_apply.h"

#include "compiler/aipp/insert_op_convert.h"
#include "compiler/aipp/insert_op_parse.h"

namespace svp::compiler::aipp_conf {

Status apply_insert_op_conf(const CompileOptions& options, Graph& graph, std::vector<std::string>* log) {
  if (options.insert_op_conf.empty()) return Status::Ok();
  auto cfg = read_insert_op_conf(options.insert_op_conf);
  if (!cfg.ok()) return cfg.status();
  ModelContext ctx;
  for (ValueId id : graph.inputs) {
    const Value& v = graph.value(id);
    ctx.inputs.push_back(ModelInput{v.name, v.shape, v.dtype});
  }
  ctx.hw_gears = options.dynamic_image_size;
  ctx.dynamic_batch = !options.dynamic_batch_size.empty();
  auto converted = convert_insert_op(*cfg, ctx);
  if (!converted.ok()) return converted.status();
  graph.input_aipp = std::move(converted->input_aipp);
  for (std::string& line : converted->log) log->push_back(std::move(line));
  return Status::Ok();
}

}  // namespace svp::compiler::aipp_conf
