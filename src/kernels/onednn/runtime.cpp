#include "kernels/onednn/runtime.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace svp::kernels::onednn {

const dnnl::engine& cpu_engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::memory reordered_weights(dnnl::memory user, const dnnl::memory::desc& wanted) {
  // One thread on purpose. A parallel region opened by the loading thread gives that
  // thread its own libgomp pool whose worker outlives the load; once libgomp manages more
  // threads than there are CPUs it throttles every pool's spin-wait to ~100 iterations, so
  // the core thread's workers then sleep in futex between layers and each layer pays a
  // wake-up (MobileNetV2 with kernel_threads 2 on 2 vCPUs: 10.1 ms -> 6.0 ms per inference
  // once loads stopped doing this). docs/performance.md, "OpenMP pools".
  ThreadScope one(1);
  dnnl::memory out(wanted, cpu_engine());
  dnnl::stream s(cpu_engine());
  dnnl::reorder(user, out).execute(s, user, out);
  s.wait();
  return out;
}

dnnl::memory copied_memory(const dnnl::memory::desc& md, const void* data, std::size_t bytes) {
  dnnl::memory m(md, cpu_engine());
  std::memcpy(m.get_data_handle(), data, bytes);
  return m;
}

bool exact_int8_isa() {
  static const bool exact = [] {
    switch (dnnl::get_effective_cpu_isa()) {
      case dnnl::cpu_isa::avx512_core_vnni:
      case dnnl::cpu_isa::avx512_core_bf16:
      case dnnl::cpu_isa::avx512_core_amx:
      case dnnl::cpu_isa::avx2_vnni:
        return true;
      default:
        return false;
    }
  }();
  return exact;
}

dnnl::stream& thread_stream() {
  thread_local dnnl::stream stream(cpu_engine());
  return stream;
}

int threads_allowed(int made_for) { return std::min(made_for, std::max(1, omp_get_max_threads())); }

ThreadScope::ThreadScope(int threads) : saved_(omp_get_max_threads()), changed_(threads > 0 && threads != saved_) {
  if (changed_) omp_set_num_threads(threads);
}

ThreadScope::~ThreadScope() {
  if (changed_) omp_set_num_threads(saved_);
}

namespace {
struct FreeDeleter {
  void operator()(std::uint8_t* p) const { std::free(p); }
};
}  // namespace

std::uint8_t* thread_scratch(std::size_t bytes) {
  thread_local std::unique_ptr<std::uint8_t, FreeDeleter> buf;
  thread_local std::size_t cap = 0;
  if (bytes > cap) {
    // 64-byte aligned (oneDNN scratchpads and AVX-512 loads prefer it); grow by half
    // again so a sequence of slightly larger requests does not reallocate every time.
    const std::size_t want = align_up(bytes + bytes / 2);
    buf.reset(static_cast<std::uint8_t*>(std::aligned_alloc(64, want)));
    cap = buf ? want : 0;
  }
  return buf.get();
}

bool for_each_batch(std::int64_t batches, std::int64_t rows, int threads,
                    const std::function<bool(std::int64_t, std::int64_t, std::int64_t)>& f) {
  // Row bands were tried for fewer batches than threads: a 128-row Linear layer with its
  // B packed by every band's call was slower on two threads than one call on both.
  const std::int64_t bands = 1;
  const std::int64_t tasks = batches * bands;
  if (threads < 2 || tasks < 2) {
    ThreadScope scope(threads);
    for (std::int64_t i = 0; i < batches; ++i)
      if (!f(i, 0, rows)) return false;
    return true;
  }
  bool ok = true;
  const int nt = static_cast<int>(std::min<std::int64_t>(threads, tasks));
#pragma omp parallel for num_threads(nt) schedule(static) reduction(&& : ok)
  for (std::int64_t t = 0; t < tasks; ++t) {
    ThreadScope one(1);
    const std::int64_t i = t / bands, k = t % bands;
    ok = f(i, rows * k / bands, rows * (k + 1) / bands) && ok;
  }
  return ok;
}

}  // namespace svp::kernels::onednn
