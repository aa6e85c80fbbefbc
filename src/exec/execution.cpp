#include "exec/execution.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "common/log.h"
#include "profiling/profiler.h"

namespace svp::exec {
namespace {

// What the first segment writes at the start of task_buf; later segments check
// it.
struct TaskDescriptor {
  char magic[8];
  std::uint64_t execution;
  std::uint32_t model_id;
  std::uint32_t segments;
  std::uint64_t batch;
  std::uint64_t next_segment;  // progress, so a dump of task_buf shows where the task is
};
constexpr char kTaskMagic[8] = {'S', 'V', 'P', 'T', 'A', 'S', 'K', '1'};

std::atomic<std::uint64_t> g_next_execution{1};

bool aligned16(std::uint64_t v) { return v % 16 == 0; }

// Data input `i` of `m` as AIPP sees it (AIPP hook, issue 4).
aipp::ModelInput aipp_input(const model::Model& m, std::size_t i) {
  return aipp::ModelInput{i, m.inputs.at(i), m.program, m.input_aipp[i]};
}

}  // namespace

ModelExecution::ModelExecution(Request r) : request_(std::move(r)), id_(g_next_execution.fetch_add(1)) {
  run_args_.total_t = request_.total_t;
  run_args_.custom_ops = request_.custom_ops.get();
  const auto &plan = request_.model->dump;
  if (plan != nullptr && Dumper::instance().active(*plan)) {
    const std::uint64_t n = plan->executions.fetch_add(1);
    if (plan->dumps_execution(n)) {
      dump_ = plan;
      dump_execution_ = n;
    }
  }
}

// Copies the inputs or the outputs of layer `l` (in logical order) and queues them for the
// dump writer; runs on the thread executing the segment.
void ModelExecution::dump_layer(std::int32_t l, std::uint64_t item, bool inputs) {
  const model::Program &p = program();
  const model::Layer &layer = p.layers[static_cast<std::size_t>(l)];
  const auto &compiled = request_.model->compiled_at(request_.gear);
  auto queue = [&](bool input, std::size_t k, std::int32_t t) {
    if (t < 0) return;
    const model::Tensor &tensor = p.tensors[static_cast<std::size_t>(t)];
    if (tensor.placement == model::Placement::kWeights) return;  // constants: the model file has them
    DumpRecord r;
    r.plan = dump_;
    r.execution = dump_execution_;
    r.batch_item = item;
    r.batch = request_.batch;
    r.layer = layer.name;
    r.op = layer.op;
    r.input = input;
    r.index = k;
    r.tensor = tensor.name;
    r.dtype = tensor.dtype;
    r.dims = tensor.dims;
    r.quant = tensor.quant;
    auto bytes = compiled.read_tensor(static_cast<std::size_t>(t), tensor_data_);
    if (bytes.ok()) {
      r.bytes = std::move(*bytes);
    } else {
      r.note = bytes.status().message();
    }
    Dumper::instance().write(std::move(r));
  };
  const auto &tensors = inputs ? layer.inputs : layer.outputs;
  for (std::size_t k = 0; k < tensors.size(); ++k) queue(inputs, k, tensors[k]);
}

Result<std::shared_ptr<ModelExecution>> ModelExecution::create(Request request) {
  if (!request.model || !request.model->compiled) return Error(err::kInvalidParam, "no model to execute");
  if (request.gear >= static_cast<std::int32_t>(request.model->gears.size())) {
    return Error(err::kInvalidParam, "resolution gear {} does not exist", request.gear);
  }
  std::shared_ptr<ModelExecution> e(new ModelExecution(std::move(request)));
  SVP_RETURN_IF_ERROR(e->validate());
  return e;
}

Status ModelExecution::validate() {
  const model::Model &m = *request_.model;
  const model::Program &p = program();
  const std::size_t num_in = m.inputs.size();  // data inputs + task_buf + work_buf
  if (request_.inputs.size() != num_in) {
    return Error(err::kInvalidParam,
                 "the input dataset holds {} buffers; model {} needs {} ({} "
                 "data inputs, then task_buf and work_buf)",
                 request_.inputs.size(), request_.model_id, num_in, num_in - 2);
  }
  if (request_.outputs.size() != m.outputs.size()) {
    return Error(err::kInvalidParam, "the output dataset holds {} buffers; model {} has {} outputs",
                 request_.outputs.size(), request_.model_id, m.outputs.size());
  }
  const std::uint64_t batch = request_.batch;
  const std::uint64_t max_t = p.flags.max_total_t;
  if (request_.total_t != 0 && (max_t == 0 || request_.total_t > max_t)) {
    return Error(err::kInvalidParam, "the input dataset's total_t {} does not fit model {} ({})", request_.total_t,
                 request_.model_id,
                 max_t == 0 ? std::string("not a recurrent net") : fmt::format("at most {} time steps", max_t));
  }
  if (max_t != 0 && batch != 1) {
    return Error(err::kInvalidParam, "model {} is a recurrent net, which runs batch 1 only; batch {} was set",
                 request_.model_id, batch);
  }
  auto check_address = [](const char *side, std::size_t i, const IoBuffer &b) -> Status {
    if (b.data == nullptr) return Error(err::kInvalidParam, "{} {}: the data buffer's address is NULL", side, i);
    if (!aligned16(reinterpret_cast<std::uintptr_t>(b.data))) {
      return Error(err::kMemoryAddressUnaligned, "{} {}: address {} is not 16-byte aligned", side, i, b.data);
    }
    return Status::Ok();
  };
  auto plan = [&](const char *side, std::size_t i, std::int32_t tensor, const IoBuffer &b) -> Result<IoPlan> {
    SVP_RETURN_IF_ERROR(check_address(side, i, b));
    const model::Tensor &t = p.tensors[static_cast<std::size_t>(tensor)];
    IoPlan io;
    io.tensor = tensor;
    io.buffer = b;
    io.row_bytes = static_cast<std::uint64_t>(t.dims.back()) * model::dtype_size(t.dtype);
    io.rows = 1;
    for (std::size_t d = 0; d + 1 < t.dims.size(); ++d) io.rows *= static_cast<std::uint64_t>(t.dims[d]);
    if (b.stride == 0 || !aligned16(b.stride)) {
      return Error(err::kMemoryAddressUnaligned, "{} {} (\"{}\"): stride {} is not a non-zero multiple of 16", side, i,
                   t.name, b.stride);
    }
    if (b.stride < io.row_bytes) {
      return Error(err::kInvalidParam,
                   "{} {} (\"{}\"): stride {} is smaller than one row ({} "
                   "bytes: {} x {})",
                   side, i, t.name, b.stride, io.row_bytes, t.dims.back(), model::dtype_name(t.dtype));
    }
    io.item_bytes = io.rows * b.stride;
    const std::uint64_t need = io.item_bytes * batch;
    if (b.size < need) {
      return Error(err::kInvalidParam,
                   "{} {} (\"{}\"): buffer holds {} bytes, the execution needs "
                   "{} ({} rows x stride {} x batch {})",
                   side, i, t.name, b.size, need, io.rows, b.stride, batch);
    }
    return io;
  };
  const auto inputs = p.input_tensors();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    // >>> AIPP hook (issue 4): a data input with AIPP holds a source image (src/aipp/exec_input.h).
    if (m.inputs[i].aipp != model::AippRole::kNone) {
      SVP_RETURN_IF_ERROR(check_address("input", i, request_.inputs[i]));
      const IoBuffer& b = request_.inputs[i];
      const std::uint8_t* params = nullptr;
      std::uint64_t params_size = 0;
      if (m.inputs[i].aipp == model::AippRole::kDynamic) {
        const auto k = static_cast<std::size_t>(m.inputs[i].aipp_link);
        params = static_cast<const std::uint8_t*>(request_.inputs[k].data);
        params_size = request_.inputs[k].size;
        SVP_RETURN_IF_ERROR(check_address("input", k, request_.inputs[k]));
      }
      auto ap = aipp::plan_input(aipp_input(m, i), b.stride, b.size, batch, params, params_size, aipp_hw());
      if (!ap.ok()) return ap.status();
      IoPlan io;
      io.tensor = inputs[i];
      io.buffer = b;
      io.item_bytes = ap->image_bytes * static_cast<std::uint64_t>(ap->images);
      io.aipp = std::make_shared<const aipp::InputPlan>(std::move(*ap));
      in_.push_back(std::move(io));
      continue;
    }
    // <<< AIPP hook
    auto io = plan("input", i, inputs[i], request_.inputs[i]);
    if (!io.ok()) return io.status();
    in_.push_back(*io);
  }
  const auto outputs = p.output_tensors();
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    auto io = plan("output", i, outputs[i], request_.outputs[i]);
    if (!io.ok()) return io.status();
    out_.push_back(*io);
  }
  const struct {
    const char *name;
    std::size_t index;
    std::uint64_t need;
  } extended[] = {{model::kTaskBufName, num_in - 2, p.flags.task_buf_size},
                  {model::kWorkBufName, num_in - 1, p.flags.work_buf_size}};
  for (const auto &x : extended) {
    const IoBuffer &b = request_.inputs[x.index];
    SVP_RETURN_IF_ERROR(check_address("input", x.index, b));
    if (b.size < x.need) {
      return Error(err::kInvalidParam, "input {} ({}): buffer holds {} bytes, the model needs {}", x.index, x.name,
                   b.size, x.need);
    }
  }
  SVP_RETURN_IF_ERROR(validate_arena());
  in_dense_.resize(in_.size());
  for (std::size_t i = 0; i < in_.size(); ++i) {
    if (in_[i].aipp) {  // AIPP hook (issue 4): the dense tensor AIPP produces
      in_dense_[i].resize(p.tensors[static_cast<std::size_t>(in_[i].tensor)].size);
      continue;
    }
    if (!in_[i].dense()) in_dense_[i].resize(in_[i].rows * in_[i].row_bytes);
  }
  out_dense_.resize(out_.size());
  for (std::size_t i = 0; i < out_.size(); ++i) {
    if (!out_[i].dense()) out_dense_[i].resize(out_[i].rows * out_[i].row_bytes);
  }
  return Status::Ok();
}

// AIPP hook (issue 4): the (h, w) AIPP must produce: the selected gear's, or {0, 0} = the
// input tensor's own.
std::pair<std::int64_t, std::int64_t> ModelExecution::aipp_hw() const {
  if (request_.gear < 0) return {0, 0};
  const auto &g = *request_.model->gears[static_cast<std::size_t>(request_.gear)];
  return {static_cast<std::int64_t>(g.h), static_cast<std::int64_t>(g.w)};
}

std::uint8_t *ModelExecution::part_address(const model::ArenaPart &part) const {
  switch (part.kind) {
    case model::ArenaPart::Kind::kInput:
      return static_cast<std::uint8_t *>(in_[part.io_index].buffer.data);
    case model::ArenaPart::Kind::kOutput:
      return static_cast<std::uint8_t *>(out_[part.io_index].buffer.data);
    case model::ArenaPart::Kind::kWorkBuf:
      break;
  }
  return static_cast<std::uint8_t *>(work_buf().data);
}

Status ModelExecution::validate_arena() {
  const model::Program &p = program();
  auto parts = model::arena_parts(p);
  if (!parts) return Error(err::kInvalidParam, "model {}: the buffer-reuse arena size overflows", request_.model_id);
  parts_ = std::move(*parts);
  if (!model::reuses_io(p.flags.buffer_reuse)) return Status::Ok();
  // The plan put intermediates into input/output memory at fixed positions: the
  // buffers must be exactly where the reuse type says, one item at the default
  // stride.
  const char *type_name[] = {
      "", "", "IN_CONT", "OUT_CONT", "IN_OUT_CONT", "INOUT_CONT", "INOUTWORK_CONT", "OUTWORK_CONT"};
  const char *type = type_name[p.flags.buffer_reuse];
  if (request_.batch != 1) {
    return Error(err::kInvalidParam,
                 "model {} (buffer reuse {}) runs one batch item at a time; "
                 "batch {} was set",
                 request_.model_id, type, request_.batch);
  }
  auto describe = [](const model::ArenaPart &part) {
    switch (part.kind) {
      case model::ArenaPart::Kind::kInput:
        return fmt::format("input {}", part.io_index);
      case model::ArenaPart::Kind::kOutput:
        return fmt::format("output {}", part.io_index);
      case model::ArenaPart::Kind::kWorkBuf:
        break;
    }
    return std::string("work_buf");
  };
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    const model::ArenaPart &part = parts_[k];
    if (part.kind != model::ArenaPart::Kind::kWorkBuf) {
      const IoPlan &io = part.kind == model::ArenaPart::Kind::kInput ? in_[part.io_index] : out_[part.io_index];
      if (io.item_bytes != part.size) {
        return Error(err::kInvalidParam,
                     "model {} (buffer reuse {}): {} must use the default "
                     "stride (its rows take {} "
                     "bytes at stride {}, the plan expects {})",
                     request_.model_id, type, describe(part), io.item_bytes, io.buffer.stride, part.size);
      }
    }
    if (k == 0 || !part.joined) continue;
    const model::ArenaPart &prev = parts_[k - 1];
    const std::uint8_t *want = part_address(prev) + prev.size;
    if (part_address(part) != want) {
      return Error(err::kInvalidParam,
                   "model {} (buffer reuse {}) needs {} to start right after "
                   "{} (at {}), but it is at {}; allocate "
                   "them as one block",
                   request_.model_id, type, describe(part), describe(prev), static_cast<const void *>(want),
                   static_cast<const void *>(part_address(part)));
    }
  }
  return Status::Ok();
}

std::size_t ModelExecution::segment_count() const {
  return static_cast<std::size_t>(request_.batch) * program().segments.size();
}

bool ModelExecution::on_aicpu(std::size_t index) const {
  const model::Program &p = program();
  const model::Segment &s = p.segments[index % p.segments.size()];
  if (p.layers[static_cast<std::size_t>(s.begin)].target != model::Target::kAiCpu) return false;
  // Deviation (docs/runtime.md, "AI-CPU operators"): a segment whose every layer the fast
  // path folded into an NPU layer (ViT's Erf, inside the GELU its Linear layer's matmul
  // computes) leaves nothing for the AI-CPU; it runs on the core instead of costing a
  // round trip through the application's AI-CPU thread.
  const auto &compiled = request_.model->compiled_at(request_.gear);
  for (std::int32_t l = s.begin; l < s.end; ++l)
    if (!compiled.layer_folded(static_cast<std::size_t>(l))) return true;
  return false;
}

std::uint64_t ModelExecution::segment_macs(std::size_t index) const {
  const auto &macs = request_.model->segment_macs_at(request_.gear);
  return macs.empty() ? 0 : macs[index % macs.size()];
}

hal::Nanos ModelExecution::board_ns(std::size_t index) const {
  const exec::BoardSegments &b = request_.model->board_at(request_.gear);
  if (b.segment_ns.empty()) return 0;
  // The per-task cost is the first segment's: the board starts the task there.
  return b.segment_ns[index % b.segment_ns.size()] + (index == 0 ? b.task_ns : 0);
}

Status ModelExecution::acquire(hal::SegmentContext &ctx) {
  auto view = [&](const IoBuffer &b, std::uint64_t bytes, bool write) -> Result<std::uint8_t *> {
    if (ctx.memory == nullptr) return static_cast<std::uint8_t *>(b.data);
    return write ? ctx.memory->device_write(b.data, bytes) : ctx.memory->device_read(b.data, bytes);
  };
  const std::uint64_t batch = request_.batch;
  for (const IoPlan &io : in_) {
    auto p = view(io.buffer, io.item_bytes * batch, false);
    if (!p.ok()) return p.status();
    in_dev_.push_back(*p);
  }
  for (const IoPlan &io : out_) {
    auto p = view(io.buffer, io.item_bytes * batch, true);
    if (!p.ok()) return p.status();
    out_dev_.push_back(*p);
  }
  const model::ModelFlags &f = program().flags;
  auto task = view(task_buf(), f.task_buf_size, true);
  if (!task.ok()) return task.status();
  task_dev_ = *task;
  // One device view per run of joined parts, so a tensor that straddles two of
  // them is contiguous in the device view too (and a run spanning two
  // allocations is an error).
  part_dev_.assign(parts_.size(), nullptr);
  for (std::size_t k = 0; k < parts_.size();) {
    std::size_t end = k + 1;
    while (end < parts_.size() && parts_[end].joined) ++end;
    const std::uint64_t bytes = parts_[end - 1].offset + parts_[end - 1].size - parts_[k].offset;
    IoBuffer run{part_address(parts_[k]), bytes, bytes};
    auto dev = view(run, bytes, true);
    if (!dev.ok()) return dev.status();
    for (std::size_t j = k; j < end; ++j) part_dev_[j] = *dev + (parts_[j].offset - parts_[k].offset);
    k = end;
  }
  if (f.task_buf_size >= sizeof(TaskDescriptor)) {
    TaskDescriptor d{};
    std::memcpy(d.magic, kTaskMagic, sizeof d.magic);
    d.execution = id_;
    d.model_id = request_.model_id;
    d.segments = static_cast<std::uint32_t>(segment_count());
    d.batch = batch;
    d.next_segment = 0;
    std::memcpy(task_dev_, &d, sizeof d);
  }
  const model::Program &p = program();
  tensor_data_.assign(p.tensors.size(), nullptr);
  for (std::size_t t = 0; t < p.tensors.size(); ++t) {
    const model::Tensor &tensor = p.tensors[t];
    if (tensor.placement == model::Placement::kWorkBuf) {
      std::size_t k = parts_.size() - 1;
      while (k > 0 && parts_[k].offset > tensor.offset) --k;
      tensor_data_[t] = part_dev_[k] + (tensor.offset - parts_[k].offset);
    }
    if (tensor.placement == model::Placement::kWeights) {
      tensor_data_[t] = const_cast<std::uint8_t *>(request_.model->weights) + tensor.offset;
    }
  }
  return Status::Ok();
}

Status ModelExecution::check_task_buf(std::size_t segment) const {
  if (program().flags.task_buf_size < sizeof(TaskDescriptor)) return Status::Ok();
  TaskDescriptor d;
  std::memcpy(&d, task_dev_, sizeof d);
  if (std::memcmp(d.magic, kTaskMagic, sizeof d.magic) != 0 || d.execution != id_) {
    return Error(err::kInvalidParam,
                 "model {}: task_buf {} was overwritten by another execution "
                 "while this one was in flight (segment {}); "
                 "a task_buf must not be shared by executions that can run at "
                 "the same time",
                 request_.model_id, task_buf().data, segment);
  }
  std::uint64_t next = segment + 1;
  std::memcpy(task_dev_ + offsetof(TaskDescriptor, next_segment), &next, sizeof next);
  return Status::Ok();
}

Status ModelExecution::load_inputs(std::uint64_t item) {
  for (std::size_t i = 0; i < in_.size(); ++i) {
    const IoPlan& io = in_[i];
    std::uint8_t* src = in_dev_[i] + item * io.item_bytes;
    if (io.aipp) {  // >>> AIPP hook (issue 4): source image -> dense first-layer tensor
      SVP_RETURN_IF_ERROR(
          aipp::convert_input(aipp_input(*request_.model, i), *io.aipp, item, src, in_dense_[i].data(), aipp_hw()));
      tensor_data_[static_cast<std::size_t>(io.tensor)] = in_dense_[i].data();
      continue;
    }  // <<< AIPP hook
    if (io.dense()) {
      tensor_data_[static_cast<std::size_t>(io.tensor)] = src;
      continue;
    }
    std::uint8_t *dst = in_dense_[i].data();
    for (std::uint64_t r = 0; r < io.rows; ++r)
      std::memcpy(dst + r * io.row_bytes, src + r * io.buffer.stride, io.row_bytes);
    tensor_data_[static_cast<std::size_t>(io.tensor)] = dst;
  }
  for (std::size_t i = 0; i < out_.size(); ++i) {
    const IoPlan &io = out_[i];
    tensor_data_[static_cast<std::size_t>(io.tensor)] =
        io.dense() ? static_cast<void *>(out_dev_[i] + item * io.item_bytes) : out_dense_[i].data();
  }
  return Status::Ok();
}

void ModelExecution::store_outputs(std::uint64_t item) {
  for (std::size_t i = 0; i < out_.size(); ++i) {
    const IoPlan &io = out_[i];
    if (io.dense()) continue;
    std::uint8_t *dst = out_dev_[i] + item * io.item_bytes;
    const std::uint8_t *src = out_dense_[i].data();
    for (std::uint64_t r = 0; r < io.rows; ++r) {
      std::memcpy(dst + r * io.buffer.stride, src + r * io.row_bytes, io.row_bytes);
      // Row padding is left as the application wrote it (the vendor does not
      // define it).
    }
  }
}

void ModelExecution::record_op(std::int32_t layer, std::size_t seg, std::uint64_t item, const hal::SegmentContext &ctx,
                               profiling::Nanos start, profiling::Nanos end) const {
  const model::Layer &L = program().layers[static_cast<std::size_t>(layer)];
  profiling::OpRecord r;
  r.aicpu = L.target == model::Target::kAiCpu;
  r.to_file = r.aicpu ? request_.trace.aicpu_ops_file : request_.trace.npu_ops_file;
  r.to_pipe = request_.trace.pipe;
  if (!r.to_file && !r.to_pipe) return;
  r.model = request_.model_id;
  r.device = ctx.device;
  r.sq = ctx.sq_id;
  r.task = ctx.task;
  r.core = ctx.core;
  r.priority = ctx.priority;
  r.layer = static_cast<std::uint32_t>(layer);
  r.segment = static_cast<std::uint32_t>(seg);
  r.batch = item;
  r.pipe_times = request_.trace.pipe_times;
  r.session = request_.trace.session;
  r.start = start;
  r.end = end;
  r.name = L.name;
  r.type = L.op;
  profiling::Profiler::instance().record(std::move(r));
}

Status ModelExecution::run_segment(std::size_t index, hal::SegmentContext &ctx) {
  const model::Program &p = program();
  const std::size_t nseg = p.segments.size();
  const std::uint64_t item = index / nseg;
  const std::size_t seg = index % nseg;
  if (index == 0) {
    SVP_RETURN_IF_ERROR(acquire(ctx));
  }
  SVP_RETURN_IF_ERROR(check_task_buf(index));
  if (seg == 0) SVP_RETURN_IF_ERROR(load_inputs(item));
  const model::Segment &s = p.segments[seg];
  const bool timed = profiling::kHooksBuilt && request_.trace.any_ops();
  std::vector<std::uint64_t> *layer_ns = request_.layer_ns.get();
  for (std::int32_t l = s.begin; l < s.end; ++l) {
    const bool dumped = dump_ != nullptr && dump_->layers[static_cast<std::size_t>(l)];
    // Inputs before the layer runs: its output may reuse an input's bytes.
    if (dumped && dump_->inputs) dump_layer(l, item, true);
    const profiling::Nanos start = timed || layer_ns != nullptr ? profiling::now() : 0;
    Status st = request_.model->compiled_at(request_.gear).run_layer(static_cast<std::size_t>(l), tensor_data_, run_args_);
    if (!st.ok()) {
      return Status(st.code(), fmt::format("model {} batch item {}: {}", request_.model_id, item, st.message()));
    }
    if (timed || layer_ns != nullptr) {
      const profiling::Nanos end = profiling::now();
      if (timed) record_op(l, seg, item, ctx, start, end);
      if (layer_ns != nullptr && static_cast<std::size_t>(l) < layer_ns->size()) {
        (*layer_ns)[static_cast<std::size_t>(l)] += end - start;
      }
    }
    if (dumped && dump_->outputs) dump_layer(l, item, false);
  }
  if (request_.board_time) add_board_time(s, ctx);
  if (seg + 1 == nseg) store_outputs(item);
  if (index + 1 == segment_count()) pins_.clear();  // done with the application's memory
  return Status::Ok();
}

void ModelExecution::add_board_time(const model::Segment &s, const hal::SegmentContext &ctx) {
  BoardRunTime &b = *request_.board_time;
  b.run_ns += ctx.board_ns;
  const std::vector<std::uint64_t> &predicted = request_.model->board_at(request_.gear).layer_ns;
  if (ctx.board_ns == 0 || predicted.empty()) return;  // the host clock
  const std::uint64_t cores = std::max<std::uint32_t>(ctx.cores, 1);
  for (std::int32_t l = s.begin; l < s.end; ++l) {
    const auto i = static_cast<std::size_t>(l);
    if (i < b.layer_ns.size() && i < predicted.size()) b.layer_ns[i] += predicted[i] / cores;  // the device's 1/n
  }
}

std::vector<const IoBuffer *> ModelExecution::buffers() const {
  std::vector<const IoBuffer *> all;
  for (const IoBuffer &b : request_.inputs) all.push_back(&b);
  for (const IoBuffer &b : request_.outputs) all.push_back(&b);
  return all;
}

}  // namespace svp::exec
