#include "exec/model_registry.h"

#include <utility>

#include <fmt/format.h>

#include "aipp/param_block.h"
#include "model/format.h"
#include "exec/dumper.h"
#include "exec/gears.h"
#include "exec/layer_inputs.h"
#include "kernels/cost.h"

namespace svp::model {
namespace {

Result<IoDesc> describe(const Tensor& t, std::uint32_t internal_stride) {
  const auto stride = default_stride(t, internal_stride);
  const auto size = strided_size(t, internal_stride);
  if (!stride || !size) {
    return Error(err::kParseModel, "model input/output \"{}\": stride or size overflows", t.name);
  }
  IoDesc d;
  d.name = t.name;
  d.dtype = t.dtype;
  d.layout = t.layout;
  d.dims = t.dims;
  d.stride = *stride;
  d.size = *size;
  d.reuse = t.inout_reuse;
  return d;
}

// A data input with AIPP: the raw source image of `format` and w x h, d0 = the batch.
Result<IoDesc> describe_source(const Tensor& t, std::int32_t format, std::int32_t w, std::int32_t h,
                               std::uint32_t internal_stride) {
  auto g = aipp::source_geometry(format, w, h, internal_stride);
  if (!g.ok()) return Error(err::kParseModel, "model input \"{}\": {}", t.name, g.status().message());
  IoDesc d;
  d.name = t.name;
  d.dtype = DType::kUint8;
  d.layout = Layout::kNCHW;
  d.dims = g->dims;
  d.dims[0] = t.dims[0];
  d.stride = g->stride;
  d.size = g->size * static_cast<std::uint64_t>(t.dims[0]);
  d.reuse = t.inout_reuse;
  return d;
}

// task_buf / work_buf: a 1-D uint8 tensor of `bytes`; stride and size follow §2.3.
IoDesc extended(const char* name, std::uint64_t bytes, std::uint32_t internal_stride) {
  IoDesc d;
  d.name = name;
  d.dtype = DType::kUint8;
  d.layout = Layout::kND;
  d.dims = {static_cast<std::int64_t>(bytes)};
  const std::uint64_t a = internal_stride == 0 ? 1 : internal_stride;
  d.stride = (bytes + a - 1) / a * a;
  d.size = d.stride;
  d.reuse = kInoutReuseNone;
  return d;
}

}  // namespace

Result<std::shared_ptr<Model>> Model::create(const void* image, std::size_t size,
                                             const kernels::CompileOptions& options,
                                             const target::DeviceProfile* board) {
  auto loaded = read_model(image, size);
  if (!loaded.ok()) return loaded.status();
  SVP_RETURN_IF_ERROR(check_required_inputs(loaded->program));
  auto m = std::make_shared<Model>();
  m->program = std::move(loaded->program);
  m->image = static_cast<const std::uint8_t*>(image);
  m->image_size = size;
  m->weights = loaded->weights;
  m->weights_size = loaded->weights_size;
  const Program& p = m->program;
  const std::uint32_t a = p.flags.internal_stride;
  // One description table per program (the stored one and each dynamic-HW gear): data
  // inputs (an AIPP input is described by its raw source image, the same at every gear),
  // then one dynamic-AIPP parameter input per data input with dynamic AIPP (spec §2.2),
  // then task_buf / work_buf, which keep the stored (largest) program's sizes at every gear.
  auto table = [&](const Program& q, std::vector<IoDesc>* ins, std::vector<IoDesc>* outs) -> Status {
    std::vector<std::size_t> dynamic_inputs;  // data inputs with dynamic AIPP
    for (std::int32_t ti : q.input_tensors()) {
      const Tensor& t = q.tensors[static_cast<std::size_t>(ti)];
      auto cfg = aipp::parse_model_aipp(t.aipp);  // validated by read_model already
      if (!cfg.ok()) return cfg.status();
      Result<IoDesc> d = Status::Ok();
      if (cfg->mode == aipp::ModelAipp::Mode::kStatic) {
        d = describe_source(t, cfg->params.format, cfg->params.src_w, cfg->params.src_h, a);
      } else if (cfg->mode == aipp::ModelAipp::Mode::kDynamic) {
        d = describe_source(t, cfg->initial_format, cfg->max_src_w, cfg->max_src_h, a);
      } else {
        d = describe(t, a);
      }
      if (!d.ok()) return d.status();
      d->tensor = ti;
      d->aipp = cfg->mode == aipp::ModelAipp::Mode::kStatic    ? AippRole::kStatic
                : cfg->mode == aipp::ModelAipp::Mode::kDynamic ? AippRole::kDynamic
                                                               : AippRole::kNone;
      if (d->aipp == AippRole::kDynamic) dynamic_inputs.push_back(ins->size());
      ins->push_back(std::move(*d));
      if (&q == &p) m->input_aipp.push_back(std::move(*cfg));
    }
    for (std::size_t k = 0; k < dynamic_inputs.size(); ++k) {
      IoDesc& data = (*ins)[dynamic_inputs[k]];
      const Tensor& t = q.tensors[static_cast<std::size_t>(data.tensor)];
      const std::string name = k == 0 ? std::string(kDynamicAippName) : fmt::format("{}_{}", kDynamicAippName, k);
      IoDesc d = extended(name.c_str(), aipp::block_capacity(static_cast<std::size_t>(t.dims[0])), a);
      d.kind = IoKind::kAippParams;
      d.aipp = AippRole::kParamNode;
      d.aipp_link = static_cast<std::int64_t>(dynamic_inputs[k]);
      data.aipp_link = static_cast<std::int64_t>(ins->size());
      ins->push_back(std::move(d));
    }
    ins->push_back(extended(kTaskBufName, p.flags.task_buf_size, a));
    ins->back().kind = IoKind::kTaskBuf;
    ins->push_back(extended(kWorkBufName, p.flags.work_buf_size, a));
    ins->back().kind = IoKind::kWorkBuf;
    for (std::int32_t ti : q.output_tensors()) {
      auto d = describe(q.tensors[static_cast<std::size_t>(ti)], a);
      if (!d.ok()) return d.status();
      outs->push_back(std::move(*d));
    }
    return Status::Ok();
  };
  SVP_RETURN_IF_ERROR(table(p, &m->inputs, &m->outputs));
  for (const auto& [h, w] : p.flags.dynamic_hw) {
    auto gp = program_at_gear(p, m->weights, m->weights_size, h, w);
    if (!gp.ok()) return gp.status();
    auto g = std::make_unique<Model::Gear>();
    g->h = h;
    g->w = w;
    g->program = std::move(*gp);
    SVP_RETURN_IF_ERROR(table(g->program, &g->inputs, &g->outputs));
    auto c = kernels::CompiledProgram::compile(g->program, m->weights, m->weights_size, options);
    if (!c.ok()) return c.status();
    g->compiled = std::move(*c);
    g->segment_macs = kernels::segment_macs(g->program);
    if (board != nullptr) g->board = exec::board_segments(g->program, *board);
    m->gears.push_back(std::move(g));
  }
  for (const Layer& l : p.layers) {
    if (l.target == Target::kAiCpu) ++m->aicpu_layers;
  }
  auto compiled = kernels::CompiledProgram::compile(m->program, m->weights, m->weights_size, options);
  if (!compiled.ok()) return compiled.status();
  m->compiled = std::move(*compiled);
  m->segment_macs = kernels::segment_macs(m->program);
  if (board != nullptr) m->board = exec::board_segments(m->program, *board);
  return m;
}

std::int32_t Model::find_gear(std::uint64_t h, std::uint64_t w) const {
  for (std::size_t g = 0; g < gears.size(); ++g) {
    if (gears[g]->h == h && gears[g]->w == w) return static_cast<std::int32_t>(g);
  }
  return -1;
}

IoDesc Model::input_desc(std::size_t index, const ModelSettings& settings) const {
  const std::vector<IoDesc>& now = inputs_at(settings.gear());
  IoDesc d;
  if (now[index].aipp == AippRole::kDynamic && settings.aipp_source(index, &d)) return d;
  return now[index];
}

Result<IoDesc> Model::aipp_source_desc(std::size_t index, std::int32_t format, std::int32_t w,
                                       std::int32_t h) const {
  const IoDesc& d = inputs.at(index);
  auto src = describe_source(program.tensors[static_cast<std::size_t>(d.tensor)], format, w, h,
                             program.flags.internal_stride);
  if (!src.ok()) return Status(err::kInvalidParam, src.status().message());
  IoDesc now = d;  // same identity and links; new source geometry
  now.dims = src->dims;
  now.stride = src->stride;
  now.size = src->size;
  return now;
}

Result<std::uint32_t> ModelRegistry::load(const void* image, std::size_t size, const Scheduling& s,
                                          const kernels::CompileOptions& options,
                                          const target::DeviceProfile* board) {
  auto limit_error = [] {
    return Error(err::kStorageOverLimit, "{} models are loaded already (the maximum); unload one first",
                 kMaxLoadedModels);
  };
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (models_.size() >= kMaxLoadedModels) return limit_error();
  }
  auto model = Model::create(image, size, options, board);  // parsing and compiling run outside the lock
  if (!model.ok()) return model.status();
  std::lock_guard<std::mutex> lock(mu_);
  if (models_.size() >= kMaxLoadedModels) return limit_error();
  std::uint32_t id = 0;
  for (const auto& kv : models_) {  // ordered: the first gap is the smallest free id
    if (kv.first != id) break;
    ++id;
  }
  // Model dump: decided at load by the configuration active now (lock order: registry,
  // then dumper).
  (*model)->dump = exec::Dumper::instance().plan_for((*model)->program, id);
  models_.emplace(id, Entry{std::shared_ptr<const Model>(std::move(*model)), s, std::make_shared<ModelSettings>()});
  return id;
}

Result<std::shared_ptr<const Model>> ModelRegistry::get(std::uint32_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = models_.find(id);
  if (it == models_.end()) return Error(err::kInvalidModelId, "model id {} is not loaded", id);
  return it->second.model;
}

Result<ModelRegistry::Loaded> ModelRegistry::lookup(std::uint32_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = models_.find(id);
  if (it == models_.end()) return Error(err::kInvalidModelId, "model id {} is not loaded", id);
  return Loaded{it->second.model, it->second.scheduling, it->second.settings};
}

Status ModelRegistry::unload(std::uint32_t id) {
  std::shared_ptr<const Model> last;  // released outside the lock
  std::lock_guard<std::mutex> lock(mu_);
  auto it = models_.find(id);
  if (it == models_.end()) return Error(err::kInvalidModelId, "model id {} is not loaded (or already unloaded)", id);
  last = std::move(it->second.model);
  models_.erase(it);
  return Status::Ok();
}

Status ModelRegistry::set_scheduling(std::uint32_t id, const LoadConfig& config) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = models_.find(id);
  if (it == models_.end()) return Error(err::kInvalidModelId, "model id {} is not loaded", id);
  config.apply_scheduling(&it->second.scheduling);
  return Status::Ok();
}

Result<Scheduling> ModelRegistry::scheduling(std::uint32_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = models_.find(id);
  if (it == models_.end()) return Error(err::kInvalidModelId, "model id {} is not loaded", id);
  return it->second.scheduling;
}

std::size_t ModelRegistry::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return models_.size();
}

void ModelRegistry::clear() {
  std::map<std::uint32_t, Entry> old;
  {
    std::lock_guard<std::mutex> lock(mu_);
    old.swap(models_);
  }
}

}  // namespace svp::model
