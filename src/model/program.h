// The program IR of an offline model: what the model file stores and what the executor,
// the model description (svp_acl_mdl_desc) and the compiler agree on.
//
// A Program is a list of tensors, a list of layers in execution order, and a partition of
// the layers into segments (fused-layer groups, the unit of preemption). Tensors live in
// one of four places:
//   * model inputs and outputs: in the application's buffers (io_index = their position
//     among the model's data inputs / outputs; task_buf and work_buf are not tensors);
//   * intermediates: at `offset` inside the work_buf the application passes to execute;
//   * constants (weights): at `offset` inside the model image's WEIGHTS section.
// Inside the executor every tensor is dense and row-major in its logical shape; the vendor
// row stride (spec §2.3) applies only to model inputs/outputs in application buffers.
//
// Program::validate() is the single definition of a well-formed program; the reader runs
// it on every loaded model, the builder before writing one. docs/model_format.md lists the
// rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "model/attrs.h"
#include "model/tensor.h"

namespace svp::model {

// ---------------------------------------------------------------------------------------
// Limits (vendor values where the vendor has one).
inline constexpr std::size_t kMaxTensorNameLen = 127;     // SVP_ACL_MAX_TENSOR_NAME_LEN - NUL
inline constexpr std::size_t kMaxLayerNameLen = 256;      // SVP_ACL_PROF_MAX_OP_NAME_LEN - NUL
inline constexpr std::size_t kMaxOpNameLen = 64;          // SVP_ACL_PROF_MAX_OP_TYPE_LEN - NUL
inline constexpr std::size_t kMaxAttrNameLen = 256;
inline constexpr std::size_t kMaxModelNameLen = 255;
inline constexpr std::size_t kMaxDims = 128;              // SVP_ACL_MAX_DIM_CNT
inline constexpr std::size_t kMaxBatchNum = 1;            // SVP_ACL_MAX_BATCH_NUM
inline constexpr std::uint64_t kMaxBatchSize = 5000;      // set_dynamic_batch_size, non-image input
inline constexpr std::size_t kMaxHwNum = 100;  // SVP_ACL_MAX_HW_NUM at level >= 2 (128 at level 1): the smaller fits both structs
inline constexpr std::uint64_t kMaxTotalT = 1024;         // recurrent nets: compiled maximum of total_t
inline constexpr std::uint64_t kMaxVendorSize = 0xFFFFFFFFull;  // dim product, stride, one-batch size
inline constexpr std::uint64_t kBufferAlign = 64;         // work_buf / weights offsets
inline constexpr std::size_t kMaxAippJsonLen = 65536;
inline constexpr std::uint32_t kDefaultInternalStride = 16;

// Names the C API reserves for the extended inputs (spec §2.2); no data input or output
// may use them.
inline constexpr const char* kTaskBufName = "task_buf";
inline constexpr const char* kWorkBufName = "work_buf";
inline constexpr const char* kDynamicTensorName = "svp_acl_mbatch_shape_data";
// Dynamic-AIPP parameter inputs: the first is named exactly this, later ones get "_<k>".
inline constexpr const char* kDynamicAippName = "svp_acl_dynamic_aipp_data";

// ---------------------------------------------------------------------------------------
enum class Placement : std::int32_t {
  kModelInput = 0,   // application input buffer, io_index = data input index
  kModelOutput = 1,  // application output buffer, io_index = output index
  kWorkBuf = 2,      // intermediate, [offset, offset+size) of the work_buf
  kWeights = 3,      // constant, [offset, offset+size) of the WEIGHTS section
};

enum class Target : std::int32_t {
  kNpu = 0,    // runs on the (software) NPU core
  kAiCpu = 1,  // AI-CPU operator: sync execution runs it internally, async in
               // svp_acl_ext_process_aicpu_task
};

// svp_acl_buffer_reuse_type (spec §1.4): -1 UNDEFINED .. 7 OUTWORK_CONT.
inline constexpr std::int32_t kBufferReuseUndefined = -1;
inline constexpr std::int32_t kBufferReuseNone = 0;
inline constexpr std::int32_t kBufferReuseMax = 7;
// svp_acl_inout_reuse_type: -1 UNDEFINED, 0 NONE, 1 DISCONT, 2 CONT.
inline constexpr std::int32_t kInoutReuseUndefined = -1;
inline constexpr std::int32_t kInoutReuseNone = 0;
inline constexpr std::int32_t kInoutReuseMax = 2;

// LSTM, GRU and RNN (the op table's recurrent cost rule): the layers that make a model a
// recurrent net.
bool is_recurrent_op(const std::string& op);

const char* placement_name(Placement p);  // "input", "output", "work_buf", "weights"
const char* target_name(Target t);        // "npu", "aicpu"
const char* layout_name(Layout l);        // "NCHW", "NHWC", "ND"
// Inverses of the *_name functions (and of dtype_name); nullopt for unknown names.
std::optional<DType> dtype_from_name(const std::string& s);
std::optional<Layout> layout_from_name(const std::string& s);
std::optional<Placement> placement_from_name(const std::string& s);
std::optional<Target> target_from_name(const std::string& s);
bool is_valid(DType t);
bool is_valid(Layout l);
bool is_valid(Placement p);
bool is_valid(Target t);

// ---------------------------------------------------------------------------------------
struct Tensor {
  std::string name;                 // unique among tensors, 1..127 bytes of UTF-8
  DType dtype = DType::kFloat32;
  std::vector<std::int64_t> dims;   // every dim > 0; rank 0..128 (model I/O: 1..128)
  Layout layout = Layout::kND;
  Quant quant;                      // empty = not quantized
  Placement placement = Placement::kWorkBuf;
  std::uint64_t offset = 0;         // kWorkBuf / kWeights only (multiple of 64), else 0
  std::uint64_t size = 0;           // dense bytes = dtype_size × product(dims)
  std::int32_t io_index = -1;       // kModelInput / kModelOutput only, else -1
  // Model inputs/outputs only (else kInoutReuseNone): svp_acl_inout_reuse_type of this I/O.
  std::int32_t inout_reuse = kInoutReuseNone;
  // Model inputs only (else empty): AIPP configuration, a JSON object kept verbatim for
  // the AIPP feature; empty = no AIPP.
  std::string aipp;

  bool is_io() const { return placement == Placement::kModelInput || placement == Placement::kModelOutput; }
  // Element count; nullopt if it overflows.
  std::optional<std::uint64_t> elements() const;
};

struct Layer {
  std::string name;                  // unique among layers, 1..256 bytes of UTF-8
  std::string op;                    // ONNX op type, e.g. "Conv"
  Attrs attrs;
  std::vector<std::int32_t> inputs;  // tensor indices; -1 = absent optional input
  std::vector<std::int32_t> outputs; // tensor indices (at least one, never -1)
  Target target = Target::kNpu;
};

// The time dimension (T) of a recurrent layer's input X of shape `x_dims` under the op's
// `layout` attribute (0: [T, N, I], 1: [N, T, I]); nullopt if X is not 3-D or the
// attribute is malformed.
std::optional<std::int64_t> recurrent_time_steps(const Layer& layer, const std::vector<std::int64_t>& x_dims);

// Layers [begin, end) run without interruption. Segments partition the layers in order
// and never mix NPU and AI-CPU layers.
struct Segment {
  std::int32_t begin = 0;
  std::int32_t end = 0;
};

struct ModelFlags {
  bool preemptible = false;         // compiled as preemptible: may be interrupted between segments
  // While an AI-CPU layer runs, the NPU core busy-waits for it (true) or may switch to
  // other streams' work (false; the model's context then lives in its work_buf).
  bool aicpu_busy_wait = false;
  std::int32_t buffer_reuse = kBufferReuseNone;  // svp_acl_buffer_reuse_type
  std::uint32_t internal_stride = kDefaultInternalStride;  // 16·2^k ≤ 256
  // Compiled maximum batch (svp_acl_mdl_get_dynamic_batch; at most SVP_ACL_MAX_BATCH_NUM
  // entries, each 1..5000). Empty = batch 1, not dynamic.
  std::vector<std::uint64_t> dynamic_batch;
  // Resolution gears (h, w), at most SVP_ACL_MAX_HW_NUM, distinct; empty = not dynamic.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> dynamic_hw;
  // Recurrent nets (models with LSTM / GRU / RNN layers): the compiled maximum of total_t,
  // the time steps one execution processes (svp_acl_mdl_set_total_t), equal to the time
  // dimension of every recurrent layer's input; 1..1024. 0 for every other model.
  std::uint64_t max_total_t = 0;
  std::uint64_t task_buf_size = 0;  // bytes, > 0
  std::uint64_t work_buf_size = 0;  // bytes, > 0, covers every intermediate
};

struct CompilerInfo {
  std::string producer_version;     // e.g. "svp-acl 0.1.0"
  std::string command_line;
};

struct Program {
  std::string name;                 // optional model name
  std::vector<Tensor> tensors;
  std::vector<Layer> layers;
  std::vector<Segment> segments;
  ModelFlags flags;
  CompilerInfo compiler;

  // Tensor indices of the model inputs / outputs ordered by io_index (valid programs).
  std::vector<std::int32_t> input_tensors() const;
  std::vector<std::int32_t> output_tensors() const;

  // Checks every invariant of a well-formed program against a WEIGHTS section of
  // `weights_size` bytes. Errors: err::kModelMissingAttr when something required is
  // absent (no input, no output, no layer, an empty name or op), err::kParseModel for any
  // other inconsistency; the message names the tensor / layer / segment at fault.
  Status validate(std::uint64_t weights_size) const;
};

// ---------------------------------------------------------------------------------------
// Buffer reuse (docs/model_format.md, "Buffer reuse"). A reuse type that joins model inputs
// and/or outputs into one block lets intermediates (kWorkBuf tensors) also use the memory of
// inputs after their last reader and of outputs before their producer. Their `offset` is
// then a position in the arena: the concatenation of the parts the type involves, in the
// order inputs (by index), outputs (by index), work_buf. Parts are one batch item at the
// default stride. The application must place a part marked `joined` right after the
// previous one; a tensor never straddles into a part that is not joined.
struct ArenaPart {
  enum class Kind { kInput, kOutput, kWorkBuf };
  Kind kind = Kind::kWorkBuf;
  std::int32_t io_index = -1;  // inputs / outputs
  std::int32_t tensor = -1;    // inputs / outputs: the program tensor
  std::uint64_t offset = 0;    // in the arena
  std::uint64_t size = 0;      // default-stride size of one item; work_buf: flags.work_buf_size
  bool joined = false;         // contiguous with the previous part
};

// True for the reuse types that let intermediates use input/output memory (IN_CONT ..
// OUTWORK_CONT, 2..7).
bool reuses_io(std::int32_t buffer_reuse);
// The arena of `p` (for other reuse types: the work_buf alone at offset 0); nullopt when a
// size overflows. Needs valid I/O numbering.
std::optional<std::vector<ArenaPart>> arena_parts(const Program& p);

// Default row stride in bytes of a model input/output (spec §2.3):
// round_up(last_dim × dtype_size, internal_stride); nullopt on overflow or rank 0.
std::optional<std::uint64_t> default_stride(const Tensor& t, std::uint32_t internal_stride);
// One-batch size with the default stride (spec §2.4): product(dims[0..n-2]) × stride.
std::optional<std::uint64_t> strided_size(const Tensor& t, std::uint32_t internal_stride);

// True when `s` is well-formed UTF-8 (JSON can carry it unchanged).
bool is_valid_utf8(const std::string& s);

bool operator==(const Tensor& a, const Tensor& b);
bool operator==(const Layer& a, const Layer& b);
bool operator==(const Segment& a, const Segment& b);
bool operator==(const ModelFlags& a, const ModelFlags& b);
bool operator==(const CompilerInfo& a, const CompilerInfo& b);
bool operator==(const Program& a, const Program& b);
inline bool operator!=(const Program& a, const Program& b) { return !(a == b); }

}  // namespace svp::model
