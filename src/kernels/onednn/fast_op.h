// A layer (or a fused group of layers) executed by one oneDNN primitive, or by a
// NativeKernel of ours where oneDNN's arithmetic is not the reference's, created once at
// model load. Factories return null — with the reason in *why — when the layer is outside
// what the fast path reproduces exactly enough (the caller then uses the reference
// kernel); they never fail a model.
//
// Data: 4-D activations are NHWC (layout.h), everything else dense row-major. `run` is
// const and touches no member state: per-call memory (the scratchpad) is passed in, so
// one FastOp serves concurrent executions.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "model/attrs.h"
#include "model/tensor.h"

namespace svp::kernels::onednn {

using model::TensorView;

// An elementwise op folded into the producer as a oneDNN post-op.
struct PostEltwise {
  dnnl::algorithm alg = dnnl::algorithm::eltwise_relu;
  float alpha = 0.f;
  float beta = 0.f;
};

// What is folded into a Conv: `sum` adds the previous content of dst (the residual, the
// caller pre-fills dst with it) before `eltwise` is applied in order.
struct Fusion {
  bool sum = false;
  std::vector<PostEltwise> eltwise;
};

// Our own kernel behind FastOp's interface (int8_conv_avx2.h); `run` is const and
// thread-safe like a primitive's.
class NativeKernel {
 public:
  virtual ~NativeKernel() = default;
  virtual std::size_t scratch_bytes() const = 0;
  virtual void run(const void* src, void* dst, void* scratch) const = 0;
};

class FastOp {
 public:
  FastOp(dnnl::primitive prim, dnnl::memory::desc src, dnnl::memory::desc dst, dnnl::memory::desc scratchpad);
  // `impl` is also the layer's layer_impl() name (e.g. "avx2_int8").
  FastOp(std::unique_ptr<NativeKernel> kernel, std::string impl);
  ~FastOp();

  // Bytes of scratch `run` needs (the oneDNN scratchpad).
  std::size_t scratch_bytes() const { return scratch_bytes_; }
  // Runs on `src` writing `dst` (in which a fused sum finds its operand); `scratch` has
  // scratch_bytes(). Call inside a ThreadScope. Throws dnnl::error.
  void run(const void* src, void* dst, void* scratch) const;
  // The same with weights given at run time (set_runtime_weights): attention's MatMul of
  // two activations.
  void run(const void* src, const void* weights, void* dst, void* scratch) const;
  // oneDNN's implementation name, e.g. "brg:avx512_core_vnni", or the native kernel's.
  const std::string& impl() const { return impl_; }
  bool native() const { return kernel_ != nullptr; }

  void set_weights(dnnl::memory w) { weights_ = std::move(w); }
  // Weights that come with each run (the four-argument run), in this layout.
  void set_runtime_weights(dnnl::memory::desc md) { runtime_weights_md_ = std::move(md); }
  // An NHWC input of 1-byte elements that `run` pads itself, into its scratch, before the
  // primitive (made for the padded size and no pads) reads it: `fill` is the padding's
  // byte (an int8 input's zero point). With `flip_sign` the copy turns int8 into uint8 (x
  // + 128: the sign bit flipped; `fill` is then the uint8 byte), for primitives that are
  // faster on uint8 (docs/kernels.md). Adds the padded input to scratch_bytes().
  struct InputPadding {
    std::int64_t n = 0, h = 0, w = 0, c = 0;  // the input as the caller gives it
    std::int64_t top = 0, left = 0, bottom = 0, right = 0;
    std::uint8_t fill = 0;
    bool flip_sign = false;
  };
  void set_input_padding(const InputPadding& p);
  void set_bias(dnnl::memory b) { bias_ = std::move(b); }
  // A float32 bias added by `run` itself after the primitive, one value per channel of an
  // NHWC (channels innermost) float32 dst. For primitives whose own bias is slow: oneDNN
  // 2.6's deconvolution adds its bias in a scalar reference loop after the JIT kernel (PP-OCR
  // det: 8 ms for a bias against 2.6 ms for the deconvolution itself).
  void set_channel_bias(std::vector<float> b) { channel_bias_ = std::move(b); }
  // x·sigmoid(x) applied by `run` to the whole float32 dst after the primitive (and the
  // channel bias): swish_f32.h says why not oneDNN's eltwise_swish post-op. Primitives only
  // (a native kernel has no dst descriptor).
  void set_post_swish() { post_swish_ = true; }
  void set_impl(std::string s) { impl_ = std::move(s); }
  // oneDNN's JIT primitives fix their thread count when they are created and open regions
  // of that many threads whatever the caller's ICV says when they run. So while a run's
  // ThreadScope allows fewer threads than `created_for` (the spin governor's one-thread
  // mode on a busy machine), `run` uses a twin made for one thread: `remake` recreates the
  // primitive descriptor (it is called under a ThreadScope(1), once, on first need, by
  // whichever thread needs it first). A twin wanting more scratch than scratch_bytes() or
  // another weights layout is not used (the op then runs as created).
  void set_one_thread_twin(int created_for, std::function<dnnl::primitive_desc_base()> remake);
  // True once a run has created the twin (tests).
  bool one_thread_twin_made() const;

 private:
  struct Twin;
  void add_channel_bias(float* y) const;
  const Twin* twin() const;
  void execute(const void* src, const void* weights, void* dst, void* scratch) const;
  void pad_input(const void* src, std::uint8_t* dst) const;

  dnnl::primitive prim_;
  std::unique_ptr<NativeKernel> kernel_;
  dnnl::memory::desc src_md_, dst_md_, scratch_md_, runtime_weights_md_;
  dnnl::memory weights_, bias_;
  InputPadding in_pad_;  // c > 0: set_input_padding was called
  std::vector<float> channel_bias_;
  bool post_swish_ = false;
  std::size_t scratch_bytes_ = 0;       // all `run` needs
  std::size_t prim_scratch_bytes_ = 0;  // the primitive's scratchpad, at the start of it
  std::uint64_t id_;  // unique per FastOp (per-thread memory-object cache key)
  std::string impl_;
  int twin_for_ = 0;
  std::function<dnnl::primitive_desc_base()> remake_;
  mutable std::once_flag twin_once_;
  mutable std::unique_ptr<Twin> twin_;
  mutable std::atomic<bool> twin_made_{false};
};

// Conv (2-D, any group, stride, pad, dilation, auto_pad) in float32, or quantized
// int8/uint8 input with int8 weights (zero point 0, per-tensor or per output channel),
// int8/uint8 or float32 output. `y` is the tensor finally written (after fusion; its type
// and quantization are the conv's own output's, the caller checks that). Weights and bias
// views carry their data.
std::unique_ptr<FastOp> make_conv(const model::Attrs& attrs, const TensorView& x, const TensorView& w,
                                  const TensorView* bias, const TensorView& y, const Fusion& fusion, int threads,
                                  std::string* why);

// ConvTranspose (2-D, any group, stride, dilation, explicit pads and output_padding) in
// float32, with the same post-op fusions as make_conv except the sum.
std::unique_ptr<FastOp> make_deconv(const model::Attrs& attrs, const TensorView& x, const TensorView& w,
                                    const TensorView* bias, const TensorView& y, const Fusion& fusion, int threads,
                                    std::string* why);

// Gemm (transA = 0, alpha = 1, C a vector of N or absent, beta = 1) and MatMul with a 2-D
// constant B, as an inner product; float32 or the integer path.
std::unique_ptr<FastOp> make_inner_product(const std::string& op, const model::Attrs& attrs, const TensorView& a,
                                           const TensorView& b, const TensorView* c, const TensorView& y, int threads,
                                           std::string* why);

// MaxPool (float32, int8, uint8), AveragePool and GlobalAveragePool (float32), 2-D.
std::unique_ptr<FastOp> make_pool(const std::string& op, const model::Attrs& attrs, const TensorView& x,
                                  const TensorView& y, int threads, std::string* why);

// The oneDNN algorithm matching an ONNX elementwise op on float32, when one matches:
// Relu, LeakyRelu, Sigmoid, Tanh, Clip (min ≤ max), HardSigmoid, HardSwish. `clip_min` /
// `clip_max` are Clip's bounds (the caller reads them from inputs or attributes).
bool eltwise_of(const std::string& op, const model::Attrs& attrs, float clip_min, float clip_max, PostEltwise* out);

// NCHW ↔ NHWC of a 4-D tensor as a oneDNN reorder (faster than a plain transpose for the
// few-channel model inputs); `to_nhwc` false = back to NCHW.
std::unique_ptr<FastOp> make_layout_reorder(const std::vector<std::int64_t>& nchw, model::DType dtype, bool to_nhwc,
                                            int threads, std::string* why);

// A standalone float32 elementwise op over `elements` values (layout-agnostic).
std::unique_ptr<FastOp> make_eltwise(const PostEltwise& e, std::int64_t elements, int threads, std::string* why);

// Softmax (float32) along `axis` of a dense row-major tensor of `dims`.
std::unique_ptr<FastOp> make_softmax(const std::vector<std::int64_t>& dims, std::int64_t axis, int threads,
                                     std::string* why);

// LayerNormalization (float32) of `outer` rows of `inner` values; `scale` and `bias` hold
// `inner` values each, or are null (1 and 0). Copied at creation.
std::unique_ptr<FastOp> make_layer_norm(std::int64_t outer, std::int64_t inner, float epsilon, const float* scale,
                                        const float* bias, int threads, std::string* why);

}  // namespace svp::kernels::onednn
