#include "model/model_registry.h"

#include <utility>

#include "model/format.h"
#include "model/gears.h"

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
                                             const kernels::CompileOptions& options) {
  auto loaded = read_model(image, size);
  if (!loaded.ok()) return loaded.status();
  auto m = std::make_shared<Model>();
  m->program = std::move(loaded->program);
  m->image = static_cast<const std::uint8_t*>(image);
  m->image_size = size;
  m->weights = loaded->weights;
  m->weights_size = loaded->weights_size;
  const Program& p = m->program;
  const std::uint32_t a = p.flags.internal_stride;
  auto table = [&](const Program& q, std::vector<IoDesc>* ins, std::vector<IoDesc>* outs) -> Status {
    for (std::int32_t ti : q.input_tensors()) {
      auto d = describe(q.tensors[static_cast<std::size_t>(ti)], a);
      if (!d.ok()) return d.status();
      ins->push_back(std::move(*d));
    }
    // task_buf / work_buf keep the stored (largest) program's sizes at every gear.
    ins->push_back(extended(kTaskBufName, p.flags.task_buf_size, a));
    ins->push_back(extended(kWorkBufName, p.flags.work_buf_size, a));
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
    m->gears.push_back(std::move(g));
  }
  for (const Layer& l : p.layers) {
    if (l.target == Target::kAiCpu) ++m->aicpu_layers;
  }
  auto compiled = kernels::CompiledProgram::compile(m->program, m->weights, m->weights_size, options);
  if (!compiled.ok()) return compiled.status();
  m->compiled = std::move(*compiled);
  return m;
}

Result<std::uint32_t> ModelRegistry::load(const void* image, std::size_t size, const Scheduling& s,
                                          const kernels::CompileOptions& options) {
  auto limit_error = [] {
    return Error(err::kStorageOverLimit, "{} models are loaded already (the maximum); unload one first",
                 kMaxLoadedModels);
  };
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (models_.size() >= kMaxLoadedModels) return limit_error();
  }
  auto model = Model::create(image, size, options);  // parsing and compiling run outside the lock
  if (!model.ok()) return model.status();
  std::lock_guard<std::mutex> lock(mu_);
  if (models_.size() >= kMaxLoadedModels) return limit_error();
  std::uint32_t id = 0;
  for (const auto& kv : models_) {  // ordered: the first gap is the smallest free id
    if (kv.first != id) break;
    ++id;
  }
  models_.emplace(id, Entry{std::shared_ptr<const Model>(std::move(*model)), s});
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
  return Loaded{it->second.model, it->second.scheduling};
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
