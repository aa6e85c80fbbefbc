// The executor's door to AIPP: a data input with AIPP receives a raw source image in the
// application's buffer; these functions check that buffer when an execution is created
// and convert it into the input's dense first-layer tensor when the first segment of a
// batch item runs (src/exec/execution.cpp, the blocks marked "AIPP hook").
#pragma once

#include <cstdint>

#include "model/aipp/model_config.h"
#include "model/aipp/params.h"
#include "common/status.h"
#include "model/io_desc.h"
#include "model/program.h"

namespace svp::aipp {

// One data input with AIPP in one execution.
struct InputPlan {
  AippParams params;             // static: the model's; dynamic: read from the parameter input
  std::uint64_t stride = 0;      // the application's source row stride
  std::uint64_t image_bytes = 0; // one source image at that stride (rows × stride)
  std::int64_t images = 1;       // source images per batch item (the tensor's dims[0])
};

// The model's side of data input `input` (number `input` of its input table): its
// description, the Program that holds its tensor and its AIPP configuration.
struct ModelInput {
  std::size_t input = 0;
  const model::IoDesc& desc;
  const model::Program& program;
  const ModelAipp& aipp;
};

// Plans data input `in` for an execution of `batch` items. `src_*` describe
// the application's buffer for the input; `param_data`/`param_size` the buffer of its
// dynamic-AIPP parameter input (ignored for static AIPP). The parameters are taken now,
// when the execution is created. Errors: err::kInvalidParam naming the input (no or stale
// parameters, source buffer too small, stride not a multiple of 16 or below a row).
// `hw` = the (h, w) this execution runs at (the selected dynamic-HW gear; {0, 0} = the
// tensor's own): every parameter entry must produce exactly that size.
Result<InputPlan> plan_input(const ModelInput& in, std::uint64_t src_stride,
                             std::uint64_t src_size, std::uint64_t batch, const std::uint8_t* param_data,
                             std::uint64_t param_size, std::pair<std::int64_t, std::int64_t> hw = {0, 0});

// Converts batch item `item` (its source starts at `src_item`) into the dense tensor `dst`
// (the input tensor's dense bytes). `hw` = the (h, w) the model runs at (its own, or the
// selected dynamic-HW gear; {0, 0} = the tensor's dims).
Status convert_input(const ModelInput& in, const InputPlan& plan, std::uint64_t item,
                     const std::uint8_t* src_item, void* dst, std::pair<std::int64_t, std::int64_t> hw = {0, 0});

}  // namespace svp::aipp
