#include "kernels/onednn/fast_op.h"

#include <omp.h>

#include <atomic>
#include <cstring>
#include <unordered_map>

#include "kernels/onednn/runtime.h"
#include "kernels/onednn/swish_f32.h"

namespace svp::kernels::onednn {
namespace {

std::atomic<std::uint64_t> g_next_id{1};

// Per-thread memory objects of one FastOp. Creating dnnl::memory objects costs about a
// microsecond each, which adds up over a hundred layers; re-pointing existing ones
// (set_data_handle) costs nanoseconds. Keyed by the FastOp's unique id (never reused, so a
// later FastOp at the same address cannot pick up stale descriptors); the objects belong
// to the calling thread only, so concurrent executions share nothing.
struct Bound {
  dnnl::memory src, dst, pad, wei;
};

Bound& bound(std::uint64_t id, const dnnl::memory::desc& src, const dnnl::memory::desc& dst,
             const dnnl::memory::desc& pad, bool has_pad, const dnnl::memory::desc& wei) {
  thread_local std::unordered_map<std::uint64_t, Bound> cache;
  auto it = cache.find(id);
  if (it != cache.end()) return it->second;
  // Bounded: models loaded and unloaded for ever must not grow it without limit.
  if (cache.size() >= 4096) cache.clear();
  const dnnl::engine& eng = cpu_engine();
  Bound b;
  b.src = dnnl::memory(src, eng, DNNL_MEMORY_NONE);
  b.dst = dnnl::memory(dst, eng, DNNL_MEMORY_NONE);
  if (has_pad) b.pad = dnnl::memory(pad, eng, DNNL_MEMORY_NONE);
  if (!wei.is_zero()) b.wei = dnnl::memory(wei, eng, DNNL_MEMORY_NONE);
  return cache.emplace(id, std::move(b)).first->second;
}

// dst[i] = src[i] ^ 0x80: int8 as uint8 shifted by 128. Eight bytes a step; the compiler
// vectorises the loop further.
void flip_sign_bits(const std::uint8_t* src, std::uint8_t* dst, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t v;
    std::memcpy(&v, src + i, 8);
    v ^= 0x8080808080808080ull;
    std::memcpy(dst + i, &v, 8);
  }
  for (; i < n; ++i) dst[i] = static_cast<std::uint8_t>(src[i] ^ 0x80u);
}

}  // namespace

struct FastOp::Twin {
  dnnl::primitive prim;
  dnnl::memory::desc scratch_md;
  std::size_t scratch_bytes = 0;
  std::uint64_t id = 0;
};

FastOp::FastOp(dnnl::primitive prim, dnnl::memory::desc src, dnnl::memory::desc dst, dnnl::memory::desc scratchpad)
    : prim_(std::move(prim)),
      src_md_(std::move(src)),
      dst_md_(std::move(dst)),
      scratch_md_(std::move(scratchpad)),
      scratch_bytes_(scratch_md_.get_size()),
      prim_scratch_bytes_(scratch_bytes_),
      id_(g_next_id.fetch_add(1, std::memory_order_relaxed)) {}

FastOp::FastOp(std::unique_ptr<NativeKernel> kernel, std::string impl)
    : kernel_(std::move(kernel)),
      scratch_bytes_(kernel_->scratch_bytes()),
      id_(g_next_id.fetch_add(1, std::memory_order_relaxed)),
      impl_(std::move(impl)) {}

FastOp::~FastOp() = default;

void FastOp::set_one_thread_twin(int created_for, std::function<dnnl::primitive_desc_base()> remake) {
  if (created_for <= 1 || kernel_) return;
  twin_for_ = created_for;
  remake_ = std::move(remake);
}

void FastOp::set_input_padding(const InputPadding& p) {
  in_pad_ = p;
  scratch_bytes_ = align_up(prim_scratch_bytes_) +
                   static_cast<std::size_t>(p.n * (p.h + p.top + p.bottom) * (p.w + p.left + p.right) * p.c);
}

void FastOp::pad_input(const void* src, std::uint8_t* dst) const {
  const InputPadding& p = in_pad_;
  const auto row = static_cast<std::size_t>(p.w * p.c), left = static_cast<std::size_t>(p.left * p.c),
             right = static_cast<std::size_t>(p.right * p.c), padded_row = left + row + right;
  const auto padded_h = static_cast<std::size_t>(p.top + p.h + p.bottom);
  const auto* s = static_cast<const std::uint8_t*>(src);
  // Rows split over the caller's threads (its ThreadScope) when there is enough to copy: a
  // serial copy in front of a two-thread primitive held back PP-OCRv4 det's large layers.
  const std::int64_t rows = p.n * p.h;
#pragma omp parallel for schedule(static) if (rows * static_cast <std::int64_t>(padded_row) >= (1 << 17))
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t n = i / p.h, y = i % p.h;
    std::uint8_t* d = dst + (static_cast<std::size_t>(n) * padded_h + static_cast<std::size_t>(p.top + y)) * padded_row;
    const std::uint8_t* from = s + static_cast<std::size_t>(i) * row;
    std::memset(d, p.fill, left);
    if (p.flip_sign) {
      flip_sign_bits(from, d + left, row);
    } else {
      std::memcpy(d + left, from, row);
    }
    std::memset(d + left + row, p.fill, right);
  }
  for (std::int64_t n = 0; n < p.n; ++n) {
    std::uint8_t* plane = dst + static_cast<std::size_t>(n) * padded_h * padded_row;
    std::memset(plane, p.fill, padded_row * static_cast<std::size_t>(p.top));
    std::memset(plane + (padded_h - static_cast<std::size_t>(p.bottom)) * padded_row, p.fill,
                padded_row * static_cast<std::size_t>(p.bottom));
  }
}

bool FastOp::one_thread_twin_made() const { return twin_made_.load(std::memory_order_acquire); }

const FastOp::Twin* FastOp::twin() const {
  std::call_once(twin_once_, [this] {
    try {
      ThreadScope one(1);
      const dnnl::primitive_desc_base pd = remake_();
      const dnnl::memory::desc pad = pd.scratchpad_desc();
      // The caller sized its scratch for the op as created, and the weights were reordered
      // for its layout; a twin that differs in either would need its own.
      if (pad.get_size() > prim_scratch_bytes_) return;
      if (weights_ && pd.weights_desc() != weights_.get_desc()) return;
      if (!runtime_weights_md_.is_zero() && pd.weights_desc() != runtime_weights_md_) return;
      auto t = std::make_unique<Twin>();
      t->prim = dnnl::primitive(pd.get());
      t->scratch_md = pad;
      t->scratch_bytes = pad.get_size();
      t->id = g_next_id.fetch_add(1, std::memory_order_relaxed);
      twin_ = std::move(t);
      twin_made_.store(true, std::memory_order_release);
    } catch (const dnnl::error&) {
      // No twin: the op keeps running as created, which is correct, only slower when busy.
    }
  });
  return twin_.get();
}

void FastOp::run(const void* src, void* dst, void* scratch) const {
  if (kernel_) {
    kernel_->run(src, dst, scratch);
    return;
  }
  execute(src, nullptr, dst, scratch);
}

void FastOp::run(const void* src, const void* weights, void* dst, void* scratch) const {
  execute(src, weights, dst, scratch);
}

void FastOp::execute(const void* src, const void* weights, void* dst, void* scratch) const {
  if (in_pad_.c > 0) {
    auto* padded = static_cast<std::uint8_t*>(scratch) + align_up(prim_scratch_bytes_);
    pad_input(src, padded);
    src = padded;
  }
  const dnnl::primitive* prim = &prim_;
  const dnnl::memory::desc* pad_md = &scratch_md_;
  std::size_t pad_bytes = prim_scratch_bytes_;
  std::uint64_t id = id_;
  if (twin_for_ > 1 && omp_get_max_threads() < twin_for_) {
    if (const Twin* t = twin()) {
      prim = &t->prim;
      pad_md = &t->scratch_md;
      pad_bytes = t->scratch_bytes;
      id = t->id;
    }
  }
  Bound& b = bound(id, src_md_, dst_md_, *pad_md, pad_bytes > 0, runtime_weights_md_);
  b.src.set_data_handle(const_cast<void*>(src));
  b.dst.set_data_handle(dst);
  dnnl_exec_arg_t args[5];
  int n = 0;
  args[n++] = {DNNL_ARG_SRC, b.src.get()};
  args[n++] = {DNNL_ARG_DST, b.dst.get()};
  if (weights_) {
    args[n++] = {DNNL_ARG_WEIGHTS, weights_.get()};
  } else if (b.wei) {
    if (weights == nullptr) throw dnnl::error(dnnl_invalid_arguments, "runtime weights missing");
    b.wei.set_data_handle(const_cast<void*>(weights));
    args[n++] = {DNNL_ARG_WEIGHTS, b.wei.get()};
  }
  if (bias_) args[n++] = {DNNL_ARG_BIAS, bias_.get()};
  if (pad_bytes > 0) {
    b.pad.set_data_handle(scratch);
    args[n++] = {DNNL_ARG_SCRATCHPAD, b.pad.get()};
  }
  dnnl::stream& s = thread_stream();
  dnnl::error::wrap_c_api(dnnl_primitive_execute(prim->get(), s.get(), n, args), "could not execute a primitive");
  s.wait();
  if (!channel_bias_.empty()) add_channel_bias(static_cast<float*>(dst));
  if (post_swish_) swish_f32_inplace(static_cast<float*>(dst), static_cast<std::int64_t>(dst_md_.get_size() / sizeof(float)));
}

void FastOp::add_channel_bias(float* y) const {
  const auto channels = static_cast<std::int64_t>(channel_bias_.size());
  const auto pixels = static_cast<std::int64_t>(dst_md_.get_size() / sizeof(float)) / channels;
  const float* b = channel_bias_.data();
  // The caller's ThreadScope decides the threads, as for the primitive; small maps stay on
  // the calling thread (a parallel region costs a few microseconds).
#pragma omp parallel for schedule(static) if (pixels * channels >= (1 << 16))
  for (std::int64_t p = 0; p < pixels; ++p) {
    float* row = y + p * channels;
    for (std::int64_t c = 0; c < channels; ++c) row[c] += b[c];
  }
}

}  // namespace svp::kernels::onednn
