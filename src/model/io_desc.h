// What a loaded model's description table is made of (IoDesc), and the per-model settings
// the application changes after loading (ModelSettings). Plain data over the Program IR:
// the executor (src/exec), AIPP (src/aipp) and the runtime read them; nothing here knows
// about kernels, the executor or the runtime.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "model/program.h"
#include "model/tensor.h"

namespace svp::model {

// What an entry of the input table is (spec §2.2).
enum class IoKind { kData, kAippParams, kTaskBuf, kWorkBuf };

// AIPP role of an input (svp_acl_mdl_aipp_type values).
enum class AippRole : std::int32_t { kNone = 0, kStatic = 1, kDynamic = 2, kParamNode = 3 };

// One entry of a model's description: a data input/output, a dynamic-AIPP parameter input,
// or task_buf / work_buf.
struct IoDesc {
  IoKind kind = IoKind::kData;
  AippRole aipp = AippRole::kNone;
  // kDynamic: index of the attached parameter input; kParamNode: index of its data input.
  std::int64_t aipp_link = -1;
  std::int32_t tensor = -1;  // kData: the Program tensor index
  std::string name;
  DType dtype = DType::kUint8;
  Layout layout = Layout::kND;
  std::vector<std::int64_t> dims;
  std::uint64_t stride = 0;  // default row stride in bytes (spec §2.3)
  std::uint64_t size = 0;    // one batch at the default stride (spec §2.4)
  std::int32_t reuse = kInoutReuseNone;  // svp_acl_inout_reuse_type
};

// What the application set on a loaded model after loading, per model and shared by every
// user of it (as the vendor's): the resolution gear svp_acl_mdl_set_dynamic_hw_size selected
// (-1: none yet) and the source image each dynamic-AIPP input expects
// (svp_acl_mdl_set_input_aipp; spec §2.4: size and stride follow it). The loaded Model
// itself never changes; descriptions read these settings, and an execution copies the gear
// into its request when it is created. Thread-safe.
class ModelSettings {
 public:
  std::int32_t gear() const { return gear_.load(); }
  void select_gear(std::int32_t gear) { gear_.store(gear); }
  void set_aipp_source(std::size_t input, IoDesc d);
  bool aipp_source(std::size_t input, IoDesc* out) const;

 private:
  std::atomic<std::int32_t> gear_{-1};
  mutable std::mutex mu_;
  std::map<std::size_t, IoDesc> aipp_sources_;
};

}  // namespace svp::model
