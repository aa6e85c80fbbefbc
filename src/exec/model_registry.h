// Loaded offline models: what svp_acl_mdl_load_from_mem / load_with_config create and what
// model ids name.
//
// A Model is immutable once loaded: the parsed Program, the weights (a pointer into the
// caller's image, zero copy) and the precomputed description table that the
// svp_acl_mdl_desc queries read. The image is NOT copied (vendor rule): it must stay valid
// and unchanged until the model is unloaded. Descriptions keep a shared_ptr to the Model, so
// a description stays readable after unload (its weights pointer must not be used then).
//
// Model ids: the smallest id not in use, starting at 0 (ids are reused after unload, as the
// vendor does). At most kMaxModels models are loaded at once. Everything is thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "exec/board_segments.h"
#include "exec/dumper.h"
#include "kernels/compiled_program.h"
#include "model/aipp/model_config.h"
#include "model/io_desc.h"
#include "model/load_config.h"
#include "model/program.h"

namespace svp::model {

inline constexpr std::size_t kMaxLoadedModels = 128;

struct Model {
  Program program;
  const std::uint8_t* image = nullptr;  // the caller's image (not copied)
  std::size_t image_size = 0;
  const std::uint8_t* weights = nullptr;  // inside the image; nullptr when no weights
  std::size_t weights_size = 0;
  // Data inputs in model order, then one dynamic-AIPP parameter input per data input with
  // dynamic AIPP (in data-input order; 1-D uint8, stride = size = the parameter block
  // capacity rounded up to the internal stride), then task_buf (size()-2) and work_buf
  // (size()-1): task_buf/work_buf are 1-D uint8 [flag size], ND, stride = size = the flag
  // size rounded up to the internal stride. A data input with AIPP is described by its
  // raw source image (initial: the maximum / static source size).
  std::vector<IoDesc> inputs;
  // Per data input (io_index order): its AIPP configuration (Mode::kNone without).
  std::vector<aipp::ModelAipp> input_aipp;
  std::vector<IoDesc> outputs;
  std::uint32_t aicpu_layers = 0;  // layers with Target::kAiCpu
  // The program prepared for execution (kernels chosen, weights prepared); references
  // `program` and `weights`.
  std::unique_ptr<kernels::CompiledProgram> compiled;
  // Model dump (exec/dumper.h): what this model dumps, or null.
  std::shared_ptr<exec::DumpPlan> dump;
  // Cube MACs of each segment of `program` (one batch item): the device's throughput figure.
  std::vector<std::uint64_t> segment_macs;
  // Predicted board time of each segment and of the task (board clock only; else empty).
  exec::BoardSegments board;

  // Dynamic resolution: one derived program per gear (flags.dynamic_hw order). Which gear
  // runs is not the Model's: ModelSettings::gear() (what svp_acl_mdl_set_dynamic_hw_size
  // selected, -1 = none yet: the stored = largest program) is copied into each execution's
  // request; descriptions read it too.
  struct Gear {
    std::uint64_t h = 0, w = 0;
    Program program;
    std::unique_ptr<kernels::CompiledProgram> compiled;
    std::vector<IoDesc> inputs, outputs;
    std::vector<std::uint64_t> segment_macs;
    exec::BoardSegments board;
  };
  std::vector<std::unique_ptr<Gear>> gears;

  const Program& program_at(std::int32_t gear) const { return gear < 0 ? program : gears[gear]->program; }
  const std::vector<std::uint64_t>& segment_macs_at(std::int32_t gear) const {
    return gear < 0 ? segment_macs : gears[gear]->segment_macs;
  }
  const exec::BoardSegments& board_at(std::int32_t gear) const { return gear < 0 ? board : gears[gear]->board; }
  const kernels::CompiledProgram& compiled_at(std::int32_t gear) const {
    return gear < 0 ? *compiled : *gears[gear]->compiled;
  }
  const std::vector<IoDesc>& inputs_at(std::int32_t gear) const { return gear < 0 ? inputs : gears[gear]->inputs; }
  const std::vector<IoDesc>& outputs_at(std::int32_t gear) const {
    return gear < 0 ? outputs : gears[gear]->outputs;
  }
  // The index of the gear of h x w, or -1 when the model has none of that size.
  std::int32_t find_gear(std::uint64_t h, std::uint64_t w) const;

  // Input `index` as the description queries report it with `settings` (the selected gear;
  // dynamic AIPP inputs follow the last svp_acl_mdl_set_input_aipp). Precondition:
  // index < inputs.size().
  IoDesc input_desc(std::size_t index, const ModelSettings& settings) const;
  // The description of data input `index` (dynamic AIPP) when it expects a `format` source
  // of w x h (svp_acl_mdl_set_input_aipp stores it in the ModelSettings). Errors:
  // kInvalidParam.
  Result<IoDesc> aipp_source_desc(std::size_t index, std::int32_t format, std::int32_t w, std::int32_t h) const;

  // Parses `image` (read_model), builds the description table and compiles the program.
  // With `board` (the board clock's target), each program's predicted board time too.
  static Result<std::shared_ptr<Model>> create(const void* image, std::size_t size,
                                               const kernels::CompileOptions& options = {},
                                               const target::DeviceProfile* board = nullptr);
};

class ModelRegistry {
 public:
  // Loads (parses) `image` and registers it with scheduling `s`. Errors: those of
  // read_model, err::kStorageOverLimit when kMaxLoadedModels are loaded.
  Result<std::uint32_t> load(const void* image, std::size_t size, const Scheduling& s,
                             const kernels::CompileOptions& options = {},
                             const target::DeviceProfile* board = nullptr);
  // err::kInvalidModelId for an id not loaded.
  Result<std::shared_ptr<const Model>> get(std::uint32_t id) const;
  // The model, its settings and its current scheduling, read together (what an execution
  // captures).
  struct Loaded {
    std::shared_ptr<const Model> model;
    Scheduling scheduling;
    std::shared_ptr<ModelSettings> settings;
  };
  Result<Loaded> lookup(std::uint32_t id) const;
  Status unload(std::uint32_t id);
  // Applies the scheduling attributes set in `config` (LoadConfig::apply_scheduling).
  Status set_scheduling(std::uint32_t id, const LoadConfig& config);
  Result<Scheduling> scheduling(std::uint32_t id) const;
  std::size_t size() const;
  // Unloads everything (svp_acl_finalize).
  void clear();

 private:
  struct Entry {
    std::shared_ptr<const Model> model;
    Scheduling scheduling;
    std::shared_ptr<ModelSettings> settings;
  };
  mutable std::mutex mu_;
  std::map<std::uint32_t, Entry> models_;
};

}  // namespace svp::model
