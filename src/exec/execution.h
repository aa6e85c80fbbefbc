// One execution of a loaded model: the dataset checked against the model, and
// the NPU task that runs it on the software NPU.
//
// create() validates everything that can be known before the task runs (buffer
// counts, 16-byte alignment of addresses and strides, sizes for the batch) so
// execute_async can refuse a bad dataset synchronously; the returned task is
// then submitted to a stream. Running it, segment by segment:
//   * the first segment resolves device views of every buffer (HAL Memory: a
//   cached
//     buffer the CPU wrote without mem_flush is read stale, as on a board),
//     writes the task descriptor into task_buf, and takes the model inputs;
//   * every segment runs its layers through the model's CompiledProgram;
//   intermediates
//     live in the application's work_buf, weights are read in place from the
//     model image;
//   * the last segment of each batch item writes the outputs in the
//   application's stride.
// Batch items run one after another through the whole program (batch = N means
// N independent images, as the vendor's batch count does).
//
// Between segments the task may be preempted by a higher-priority task and
// resumed later, possibly on another core: all of its state lives here, in
// task_buf and in work_buf, so the resumed execution is bit-identical. Each
// segment checks that task_buf still holds this execution's descriptor, which
// catches a task_buf shared by two executions in flight (the vendor forbids it;
// on a board it corrupts both silently).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "aipp/exec_input.h"  // AIPP hook (issue 4)
#include "common/status.h"
#include "hal/hal.h"
#include "exec/io_buffer.h"
#include "exec/model_registry.h"
#include "kernels/custom_op.h"
#include "profiling/records.h"

namespace svp::exec {

// What one execution took on the board clock (rknn's RKNN_QUERY_PERF_RUN / _DETAIL there):
// the board time its segments advanced the clock by (task cost and NPU/CPU switches
// included; time spent preempted or waiting excluded), and each layer's predicted board
// time on the cores it ran on, summed over the batch items. Zero on the host clock.
struct BoardRunTime {
  std::uint64_t run_ns = 0;
  std::vector<std::uint64_t> layer_ns;  // one entry per layer of the program run
};

struct Request {
  std::shared_ptr<const model::Model> model;
  std::uint32_t model_id = 0;
  std::vector<IoBuffer> inputs;   // get_num_inputs entries: data inputs, task_buf, work_buf
  std::vector<IoBuffer> outputs;  // get_num_outputs entries
  std::uint64_t batch = 1;        // svp_acl_mdl_set_dynamic_batch_size, default 1
  std::uint64_t total_t = 0;      // svp_acl_mdl_set_total_t (recurrent nets); 0 = compiled maximum
  std::int32_t gear = -1;         // dynamic HW gear (ModelSettings::gear() at submission)
  profiling::ExecTrace trace;     // what this execution records (decided at submission)
  // Per-layer run time in nanoseconds, summed over the batch items (one entry per layer of
  // the program run; rknn's RKNN_FLAG_COLLECT_PERF_MASK). Written by the NPU thread running
  // the segments, read by whoever waited for the execution to end.
  std::shared_ptr<std::vector<std::uint64_t>> layer_ns;
  // Set: the execution's board time is added to it (written and read as layer_ns is).
  std::shared_ptr<BoardRunTime> board_time;
  // The front-end's custom operators (rknn_register_custom_ops), kept alive by the execution.
  std::shared_ptr<const kernels::CustomOps> custom_ops;
};

// Geometry of one model input/output in the application's buffer.
struct IoPlan {
  std::int32_t tensor = -1;  // program tensor index
  IoBuffer buffer;
  std::uint64_t row_bytes = 0;   // last dim × element size
  std::uint64_t rows = 0;        // rows of one batch item
  std::uint64_t item_bytes = 0;  // rows × stride
  bool dense() const { return aipp == nullptr && buffer.stride == row_bytes; }
  // AIPP hook (issue 4): set for a data input with AIPP; the buffer holds the raw source
  // image, converted into the dense tensor when the item's first segment runs.
  std::shared_ptr<const aipp::InputPlan> aipp;
};

class ModelExecution final : public hal::SegmentedTask {
 public:
  // Errors: err::kInvalidParam (counts, NULL addresses, sizes, batch) and
  // err::kMemoryAddressUnaligned (addresses or strides not multiples of 16),
  // each naming the input/output index at fault.
  static Result<std::shared_ptr<ModelExecution>> create(Request request);

  std::size_t segment_count() const override;
  Status run_segment(std::size_t index, hal::SegmentContext &ctx) override;
  bool on_aicpu(std::size_t index) const override;
  std::uint64_t segment_macs(std::size_t index) const override;
  hal::Nanos board_ns(std::size_t index) const override;

  const model::Model &model() const { return *request_.model; }
  // The program this execution runs (the selected resolution gear's).
  const model::Program &program() const { return request_.model->program_at(request_.gear); }
  const profiling::ExecTrace &trace() const { return request_.trace; }
  const IoBuffer &work_buf() const { return request_.inputs.back(); }
  const IoBuffer &task_buf() const { return request_.inputs[request_.inputs.size() - 2]; }
  // Every application buffer of the request (inputs, task_buf, work_buf, outputs).
  std::vector<const IoBuffer *> buffers() const;
  // Tokens (hal::Memory::pin) that keep the buffers from being freed until the last
  // segment has stored the outputs, or the task is dropped.
  void hold(std::vector<std::shared_ptr<void>> pins) { pins_ = std::move(pins); }

 private:
  explicit ModelExecution(Request r);
  Status validate();
  Status validate_arena();
  std::uint8_t *part_address(const model::ArenaPart &part) const;
  Status acquire(hal::SegmentContext &ctx);
  Status check_task_buf(std::size_t segment) const;
  Status load_inputs(std::uint64_t item);
  void dump_layer(std::int32_t layer, std::uint64_t item, bool inputs);
  std::pair<std::int64_t, std::int64_t> aipp_hw() const;  // AIPP hook (issue 4)
  void store_outputs(std::uint64_t item);
  // Adds segment `s`'s board time (ctx.board_ns) and its layers' to request_.board_time.
  void add_board_time(const model::Segment &s, const hal::SegmentContext &ctx);
  void record_op(std::int32_t layer, std::size_t seg, std::uint64_t item, const hal::SegmentContext &ctx,
                 profiling::Nanos start, profiling::Nanos end) const;

  Request request_;
  std::uint64_t id_ = 0;  // process-unique, written into task_buf
  std::vector<IoPlan> in_;
  std::vector<IoPlan> out_;
  // Device views of the application's buffers (set by the first segment).
  std::vector<std::uint8_t *> in_dev_;
  std::vector<std::uint8_t *> out_dev_;
  std::uint8_t *task_dev_ = nullptr;
  // The arena of kWorkBuf tensors (model::arena_parts: the work_buf alone, or
  // with the input/output memory a buffer-reuse type joins) and each part's
  // device view.
  std::vector<model::ArenaPart> parts_;
  std::vector<std::uint8_t *> part_dev_;
  // Dense copies of inputs/outputs whose stride has row padding (one batch item
  // each).
  std::vector<std::vector<std::uint8_t>> in_dense_;
  std::vector<std::vector<std::uint8_t>> out_dense_;
  std::vector<void *> tensor_data_;  // per program tensor, for the current batch item
  kernels::RunArgs run_args_;        // what every layer of this execution is told (total_t)
  std::shared_ptr<DumpPlan> dump_;   // model dump: null = this execution dumps nothing
  std::uint64_t dump_execution_ = 0;
  std::vector<std::shared_ptr<void>> pins_;
};

}  // namespace svp::exec
