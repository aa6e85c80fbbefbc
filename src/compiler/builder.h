// ModelBuilder: builds a Program plus its weights in C++ and serialises it into an
// offline model image. Part of the compiler library (the ONNX compiler emits through it);
// tests, samples and benchmarks use it to make models.
//
//   ModelBuilder b("tiny");
//   TensorId x = b.add_input("x", DType::kFloat32, {1, 3, 8, 8});
//   TensorId w = b.add_constant("w", {4, 3, 3, 3}, weights);   // std::vector<float>
//   LayerOptions conv;
//   conv.attrs.set("pads", std::vector<std::int64_t>{1, 1, 1, 1});
//   TensorId y = b.add_layer("conv", "Conv", {x, w}, conv);
//   b.add_output(b.add_layer("relu", "Relu", {y}));
//   Result<BuiltModel> m = b.build();                            // m->image = .om bytes
//
// Errors are sticky: a failing call records the first error (status()) and returns -1;
// build() returns it. Output shapes come from kernels::infer_shapes unless given in
// LayerOptions::output_shapes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "model/aipp/model_config.h"
#include "common/status.h"
#include "model/program.h"

namespace svp::compiler {

// The builder speaks the IR's vocabulary.
using model::Attrs;
using model::DType;
using model::Layout;
using model::Program;
using model::Quant;
using model::Segment;
using model::Target;
using model::Tensor;

using TensorId = std::int32_t;

struct LayerOptions {
  Attrs attrs;
  Target target = Target::kNpu;
  // One shape per output; empty = kernels::infer_shapes (constant inputs are passed to it).
  std::vector<std::vector<std::int64_t>> output_shapes;
  // Per output; empty = the first present input's dtype for every output.
  std::vector<DType> output_dtypes;
  // Per output; empty = the first present input's quantization where the output has that
  // input's dtype, none otherwise.
  std::vector<Quant> output_quants;
  // Per output; empty = the first present input's layout where the ranks match, else ND.
  std::vector<Layout> output_layouts;
  // Per output; empty = the layer name for a single output, "<layer>:<i>" otherwise.
  std::vector<std::string> output_names;
};

// What add_layer returns: the layer index and its output tensors. Converts to the first
// output, so single-output layers read like values: `b.add_layer("r", "Relu", {x})`.
struct LayerRef {
  std::int32_t layer = -1;
  std::vector<TensorId> outputs;

  TensorId out(std::size_t i = 0) const { return i < outputs.size() ? outputs[i] : -1; }
  operator TensorId() const { return out(0); }  // NOLINT(google-explicit-constructor)
};

struct BuiltModel {
  Program program;                   // as written: planned, segmented, validated
  std::vector<std::uint8_t> weights;  // the WEIGHTS section
  std::vector<std::uint8_t> image;    // the offline model file (.om) bytes
};

class ModelBuilder {
 public:
  explicit ModelBuilder(std::string model_name = {});

  // A model data input; io_index = number of inputs added before.
  TensorId add_input(const std::string& name, DType dtype, std::vector<std::int64_t> dims,
                     Layout layout = Layout::kNCHW, Quant quant = {});
  // A constant: copies `bytes` (= dtype_size × elements) into the weights blob at the next
  // 64-byte aligned offset.
  TensorId add_constant(const std::string& name, DType dtype, std::vector<std::int64_t> dims, const void* data,
                        std::size_t bytes, Quant quant = {}, Layout layout = Layout::kND);
  template <typename T>
  TensorId add_constant(const std::string& name, std::vector<std::int64_t> dims, const std::vector<T>& values,
                        Quant quant = {}) {
    return add_constant(name, dtype_of<T>(), std::move(dims), values.data(), values.size() * sizeof(T),
                        std::move(quant));
  }
  // A layer reading `inputs` (-1 = absent optional input) in execution order.
  LayerRef add_layer(const std::string& name, const std::string& op, std::vector<TensorId> inputs,
                     LayerOptions options = {});
  // Marks a layer output as the next model output, optionally renaming it.
  void add_output(TensorId tensor, const std::string& rename = {});

  // Segments (fused-layer groups, the preemption unit). Default: one segment per layer.
  // segment_every(n): consecutive groups of n layers. begin_segment(): manual grouping, a
  // segment starts at the first layer and at the first layer added after each call.
  // In every mode a change of target (NPU / AI-CPU) starts a new segment.
  void begin_segment();
  void segment_every(std::size_t n);

  // Model flags; values are checked by build() (Program::validate).
  void set_preemptible(bool on) { program_.flags.preemptible = on; }
  void set_aicpu_busy_wait(bool on) { program_.flags.aicpu_busy_wait = on; }
  void set_buffer_reuse(std::int32_t type) { program_.flags.buffer_reuse = type; }
  void set_internal_stride(std::uint32_t bytes) { program_.flags.internal_stride = bytes; }
  void set_dynamic_batch(std::vector<std::uint64_t> batches) { program_.flags.dynamic_batch = std::move(batches); }
  void set_dynamic_hw(std::vector<std::pair<std::uint64_t, std::uint64_t>> gears) {
    program_.flags.dynamic_hw = std::move(gears);
  }
  // svp_acl_inout_reuse_type of a model input or output tensor.
  void set_inout_reuse(TensorId io_tensor, std::int32_t type);
  // AIPP configuration (JSON object text, kept verbatim) of a model input.
  void set_aipp(TensorId input, std::string json);
  // Static AIPP: `p` compiled into the input (one parameter entry, for every batch image).
  void set_static_aipp(TensorId input, const aipp::AippParams& p) { set_aipp(input, aipp::static_aipp_json(p)); }
  // Dynamic AIPP: the application sets parameters through the extra parameter input; the
  // source is at most max_w x max_h, described as `initial_format` until then.
  void set_dynamic_aipp(TensorId input, std::int32_t max_w, std::int32_t max_h,
                        std::int32_t initial_format = aipp::fmt_id::kYuv420Sp) {
    set_aipp(input, aipp::dynamic_aipp_json(max_w, max_h, initial_format));
  }
  void set_compiler_info(std::string producer_version, std::string command_line);

  const Status& status() const { return status_; }
  // The program so far (no segments, no memory plan yet) and the weights blob.
  const Program& program() const { return program_; }
  const std::vector<std::uint8_t>& weights() const { return weights_; }
  // Room for `bytes` more of constants (each at a 64-byte aligned offset: reserve the
  // aligned sizes), so that the weights never reallocate — old and new buffers side by
  // side would double the compiler's peak memory.
  void reserve_weights(std::size_t bytes) { weights_.reserve(weights_.size() + bytes); }

  // Segments, plans the work_buf, sizes the task_buf, validates and serialises. May be
  // called more than once.
  Result<BuiltModel> build() const&;
  // The same, moving the builder's weights into the model instead of copying them (the
  // compiler's emit: one copy fewer at its peak).
  Result<BuiltModel> build() &&;
  // As build() &&, but image left empty: the caller writes it (model::write_model) when
  // it is done with the weights (the compiler's fusion report needs them before the image
  // doubles them in memory).
  Result<BuiltModel> build_without_image() &&;

 private:
  Result<BuiltModel> finish(std::vector<std::uint8_t> weights, bool image = true) const;
  template <typename T>
  static constexpr DType dtype_of() {
    if constexpr (std::is_same_v<T, float>) return DType::kFloat32;
    else if constexpr (std::is_same_v<T, std::int8_t>) return DType::kInt8;
    else if constexpr (std::is_same_v<T, std::uint8_t>) return DType::kUint8;
    else if constexpr (std::is_same_v<T, std::int16_t>) return DType::kInt16;
    else if constexpr (std::is_same_v<T, std::uint16_t>) return DType::kUint16;
    else if constexpr (std::is_same_v<T, std::int32_t>) return DType::kInt32;
    else if constexpr (std::is_same_v<T, std::uint32_t>) return DType::kUint32;
    else if constexpr (std::is_same_v<T, std::int64_t>) return DType::kInt64;
    else if constexpr (std::is_same_v<T, std::uint64_t>) return DType::kUint64;
    else if constexpr (std::is_same_v<T, double>) return DType::kFloat64;
    else static_assert(!sizeof(T), "no DType for this element type (use the untyped add_constant for float16)");
  }

  TensorId fail(Status s);
  TensorId add_tensor(Tensor t);
  bool valid_id(TensorId id) const { return id >= 0 && static_cast<std::size_t>(id) < program_.tensors.size(); }
  std::vector<Segment> make_segments() const;

  enum class SegmentMode { kPerLayer, kEvery, kManual };

  Program program_;
  std::vector<std::uint8_t> weights_;
  Status status_;
  std::int32_t num_inputs_ = 0;
  std::int32_t num_outputs_ = 0;
  SegmentMode segment_mode_ = SegmentMode::kPerLayer;
  std::size_t segment_every_ = 1;
  bool pending_segment_start_ = false;
  std::vector<bool> starts_segment_;  // per layer, manual mode
};

// task_buf bytes of a program with `layers` layers: 4096 + 256 per layer.
std::uint64_t task_buf_size_for(std::size_t layers);

// Plans the work_buf: gives every intermediate (kWorkBuf) tensor a 64-byte aligned offset so
// that tensors whose lifetimes overlap (from the producing layer to the last consumer) do
// not share bytes, largest tensors first, each at the lowest offset that fits (greedy).
// Sets flags.work_buf_size to the aligned peak (at least 64: the vendor requires a non-empty
// work_buf). With a buffer-reuse type that involves model inputs/outputs (reuses_io), the
// plan also uses their memory while they are not alive (offsets are then arena positions,
// see ArenaPart) and work_buf_size shrinks accordingly.
Status plan_work_buf(Program* program);

}  // namespace svp::compiler
