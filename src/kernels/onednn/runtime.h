// What every oneDNN fast path shares: the CPU engine, the per-thread stream and scratch
// memory, and the thread-count scope.
//
// Threads: Debian's libdnnl is built with the OpenMP (libgomp) CPU runtime, where a
// primitive runs on as many threads as the *calling* thread's OpenMP ICV says
// (omp_get_max_threads), read both when a primitive is created (kernel blocking and the
// scratchpad size depend on it) and when it runs. ThreadScope sets that ICV to the
// program's CompileOptions::threads around creation and execution and restores the
// caller's value afterwards, so the count is fixed at load and other OpenMP users of the
// executing thread are not affected. The ICV is per thread, so concurrent executions on
// different threads do not interfere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

namespace svp::kernels::onednn {

// The process-wide CPU engine (thread-safe in oneDNN).
const dnnl::engine& cpu_engine();

// A copy of constant weights `user` (their data attached) in the layout `wanted` a
// primitive chose, made once at load. Throws dnnl::error.
dnnl::memory reordered_weights(dnnl::memory user, const dnnl::memory::desc& wanted);
// A memory of descriptor `md` holding a copy of `bytes` bytes from `data` (a primitive's
// bias: float32 values, or int32 in accumulator units on the integer paths).
dnnl::memory copied_memory(const dnnl::memory::desc& md, const void* data, std::size_t bytes);
// A stream for the calling thread (oneDNN streams must not be shared between threads
// executing concurrently).
dnnl::stream& thread_stream();

// The threads a native kernel made for `made_for` may use in this run: fewer when the
// caller's ThreadScope allows fewer (the spin governor's one-thread mode on a busy machine),
// as oneDNN's one-thread twins do; never fewer than 1.
int threads_allowed(int made_for);

class ThreadScope {
 public:
  explicit ThreadScope(int threads);
  ~ThreadScope();
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  int saved_;
  bool changed_;
};

// Runs f(i, m0, m1) over a batched product — batch i, rows [m0, m1) of its A and C (today
// always all `rows`) — returning false on the first failure. With two or more batches on
// two or more threads the batches are split over the threads and each call runs
// single-threaded: oneDNN's gemm drivers split one small product (attention's 128 × 128 × 32
// per head) so poorly that two threads took 15–30× one thread's time. Otherwise the
// batches run one after another with `threads` threads each.
bool for_each_batch(std::int64_t batches, std::int64_t rows, int threads,
                    const std::function<bool(std::int64_t, std::int64_t, std::int64_t)>& f);

// Per-thread scratch memory for one run_layer call: layout-conversion buffers and the
// primitives' scratchpads (scratchpad_mode::user), so no primitive holds mutable state.
// The buffer only grows; it lives as long as the thread.
std::uint8_t* thread_scratch(std::size_t bytes);

// True when this CPU runs oneDNN's int8 convolution and inner product bit-exactly: with VNNI
// (AVX512-VNNI, AVX-VNNI, AMX) u8·s8 products accumulate straight into int32. Without it
// (plain AVX2, e.g. AMD Zen 2/3) oneDNN sums pairs of products into saturating int16 and,
// for signed inputs, halves the weights ("scale adjust 0.5") to avoid that saturation:
// results then differ from the board by one or more levels, so the integer fast paths
// decline and the reference kernels run (exact, slower). Read once per process.
bool exact_int8_isa();

inline std::size_t align_up(std::size_t v, std::size_t a = 64) { return (v + a - 1) / a * a; }

}  // namespace svp::kernels::onednn
