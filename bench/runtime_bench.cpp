// runtime_bench: latency and throughput of the svp-acl runtime on the software NPU,
// each figure printed beside a floor measured in the same process and run.
//
// Floors (pure C++, no svp-acl involved):
//   F1  two threads ping-ponging a token through std::mutex + std::condition_variable
//       (the mechanism the runtime itself uses), both pinned to one CPU (its best
//       placement): round trip (rtt) and one-way = rtt / 2.
//       F1.push: one push into a mutex + condvar work queue whose consumer drains it
//       concurrently; F1.queue: that queue's throughput in ns per item.
//   F2  the same token through an atomic word: spin ~2000 pause iterations, then a futex
//       wait (std::atomic::wait is C++20-only in libstdc++ 12, so on Linux we call the
//       futex syscall directly, which is what libstdc++ does underneath; elsewhere a
//       condition variable after the spin); threads on two CPUs (its best placement).
//       F2.post: the signalling side (store + wake only if the partner sleeps).
//   A placement survey (--filter=env) shows both mechanisms on one CPU, on two CPUs and
//   unpinned: on small VMs, waking a thread on an idle vCPU costs tens of microseconds.
//
// Figures (targets are reported as PASS/MISS, never asserted):
//   1   enqueue cost of svp_acl_rt_launch_callback(NO_BLOCK) and svp_acl_rt_record_event
//   2   callback latency (launch -> callback start on an idle stream; and NPU task end ->
//       callback start)
//   3   event completion -> svp_acl_rt_synchronize_event returns
//   4   empty NPU task: launch + synchronize_stream
//   5   throughput with 1, 8 and 64 streams
//
// Exit status: 0 when every API call succeeded and every callback/segment ran as
// expected (whatever the targets say), 1 on an API or consistency error.
#include <atomic>
#include <climits>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <pthread.h>

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "acl/svp_acl.h"
#include "acl/svp_acl_ext.h"
#include "harness.h"

#ifndef SVP_BENCH_BUILD_TYPE
#define SVP_BENCH_BUILD_TYPE "unknown"
#endif

using bench::now_ns;
using bench::Options;
using bench::Row;
using bench::Samples;
using bench::Stats;

namespace {

// ---------------------------------------------------------------------------
// Error handling: any API failure ends the run with exit status 1.

[[noreturn]] void die(const char* what, int rc) {
  std::fprintf(stderr, "runtime_bench: %s failed: %d (%s)\n", what, rc, svp_acl_get_recent_err_msg());
  std::fflush(stdout);
  std::_Exit(1);
}

#define CHECK(call)                                 \
  do {                                              \
    const svp_acl_error rc_ = (call);               \
    if (rc_ != SVP_ACL_SUCCESS) die(#call, rc_);    \
  } while (0)

#define EXPECT(cond, msg)                                                        \
  do {                                                                           \
    if (!(cond)) {                                                               \
      std::fprintf(stderr, "runtime_bench: consistency check failed: %s\n", msg); \
      std::_Exit(1);                                                             \
    }                                                                            \
  } while (0)

// Errors seen on threads the benchmark does not control (report thread, NPU core).
std::atomic<int> g_async_error{0};

void check_async() {
  const int rc = g_async_error.load();
  if (rc != 0) die("an asynchronous step (report thread or NPU segment)", rc);
}

// ---------------------------------------------------------------------------
// Floors. Each runs as a "chunk" (its own helper thread, a few warm-up iterations, then
// n measured ones appended to the caller's samples), so it can be interleaved with the
// figure it is the floor of.

// Where the two threads of a ping-pong floor run. On this class of machine (a small VM)
// the placement decides the handoff cost: waking a thread on an idle vCPU costs tens of
// microseconds, a switch on the same vCPU about one. The runtime's own threads are not
// pinned; the floors pin to measure each mechanism in its best placement.
struct Placement {
  int a = -1;  // CPU of the measuring thread (-1: not pinned)
  int b = -1;  // CPU of the partner thread
  static Placement same() {
    const int c = sched_getcpu();
    return {c, c};
  }
  static Placement cross() {
    const int c = sched_getcpu();
    for (int other : bench::allowed_cpus()) {
      if (other != c) return {c, other};
    }
    return {c, c};  // a single CPU: nothing else possible
  }
  static Placement free() { return {}; }
};

// F1: std::mutex + std::condition_variable, notify after unlock (as the runtime does).
// rtt: A publishes the token and waits for it back; post: A's publish + notify_one.
void f1_pingpong_chunk(Placement pl, std::size_t warmup, std::size_t n, Samples& rtt, Samples& post) {
  bench::ScopedAffinity pin_a(pl.a);
  std::mutex m;
  std::condition_variable cv_a;
  std::condition_variable cv_b;
  int turn = 0;  // 0: A's turn, 1: B's turn
  bool stop = false;
  std::thread b([&] {
    bench::ScopedAffinity pin_b(pl.b);
    std::unique_lock<std::mutex> lock(m);
    for (;;) {
      cv_b.wait(lock, [&] { return turn == 1 || stop; });
      if (stop) return;
      turn = 0;
      lock.unlock();
      cv_a.notify_one();
      lock.lock();
    }
  });
  for (std::size_t i = 0; i < warmup + n; ++i) {
    const std::int64_t t0 = now_ns();
    {
      std::lock_guard<std::mutex> lock(m);
      turn = 1;
    }
    cv_b.notify_one();
    const std::int64_t tp = now_ns();
    {
      std::unique_lock<std::mutex> lock(m);
      cv_a.wait(lock, [&] { return turn == 0; });
    }
    const std::int64_t t1 = now_ns();
    if (i >= warmup) {
      rtt.add(t1 - t0);
      post.add(tp - t0);
    }
  }
  {
    std::lock_guard<std::mutex> lock(m);
    stop = true;
  }
  cv_b.notify_one();
  b.join();
}

// F2: an atomic turn word; wait = spin, then sleep in the kernel.
class SpinFutexTurn {
 public:
  static constexpr int kSpin = 2000;

  void wait_for(std::uint32_t v) {
    for (int i = 0; i < kSpin; ++i) {
      if (turn_.load(std::memory_order_acquire) == v) return;
      bench::cpu_relax();
    }
#ifdef __linux__
    sleepers_[v].store(1, std::memory_order_seq_cst);
    for (;;) {
      const std::uint32_t cur = turn_.load(std::memory_order_seq_cst);
      if (cur == v) break;
      syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&turn_), FUTEX_WAIT_PRIVATE, cur, nullptr, nullptr, 0);
    }
    sleepers_[v].store(0, std::memory_order_relaxed);
#else
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return turn_.load() == v; });
#endif
  }

  void set(std::uint32_t v) {
#ifdef __linux__
    turn_.store(v, std::memory_order_seq_cst);
    if (sleepers_[v].load(std::memory_order_seq_cst) != 0) {
      syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&turn_), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
    }
#else
    {
      std::lock_guard<std::mutex> lock(m_);
      turn_.store(v);
    }
    cv_.notify_all();
#endif
  }

 private:
  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t), "futex word must be 32-bit");
  alignas(64) std::atomic<std::uint32_t> turn_{0};
  alignas(64) std::atomic<std::uint32_t> sleepers_[2] = {};
#ifndef __linux__
  std::mutex m_;
  std::condition_variable cv_;
#endif
};

const char* f2_mechanism() {
#ifdef __linux__
  return "spin 2000 x pause, then futex(FUTEX_WAIT_PRIVATE)";
#else
  return "spin 2000 x pause, then std::condition_variable";
#endif
}

void f2_pingpong_chunk(Placement pl, std::size_t warmup, std::size_t n, Samples& rtt, Samples& post) {
  bench::ScopedAffinity pin_a(pl.a);
  SpinFutexTurn turn;  // 0: A's turn, 1: B's turn
  std::atomic<bool> stop{false};
  std::thread b([&] {
    bench::ScopedAffinity pin_b(pl.b);
    for (;;) {
      turn.wait_for(1);
      if (stop.load()) return;
      turn.set(0);
    }
  });
  for (std::size_t i = 0; i < warmup + n; ++i) {
    const std::int64_t t0 = now_ns();
    turn.set(1);
    const std::int64_t tp = now_ns();
    turn.wait_for(0);
    const std::int64_t t1 = now_ns();
    if (i >= warmup) {
      rtt.add(t1 - t0);
      post.add(tp - t0);
    }
  }
  stop.store(true);
  turn.set(1);
  b.join();
}

// F1.queue: a producer pushes `items` work items into a mutex-protected deque; a consumer
// pops and "runs" them, sleeping on a condition variable when the queue is empty (the
// shape of one stream feeding one NPU core). Returns ns per item (throughput); when
// `push` is given, each push (lock, push, unlock, notify if the consumer sleeps) is timed.
double f1_queue_chunk(Placement pl, std::size_t items, Samples* push) {
  bench::ScopedAffinity pin_a(pl.a);
  std::mutex m;
  std::condition_variable cv;
  std::condition_variable done_cv;
  std::deque<std::uint64_t> q;
  bool consumer_waiting = false;
  std::size_t consumed = 0;
  std::thread consumer([&] {
    bench::ScopedAffinity pin_b(pl.b);
    std::unique_lock<std::mutex> lock(m);
    for (;;) {
      while (q.empty()) {
        consumer_waiting = true;
        cv.wait(lock);
        consumer_waiting = false;
      }
      const std::uint64_t v = q.front();
      q.pop_front();
      if (v == UINT64_MAX) return;
      lock.unlock();  // the trivial "task" runs here, unlocked
      lock.lock();
      if (++consumed == items) done_cv.notify_one();
    }
  });
  const std::int64_t t0 = now_ns();
  for (std::size_t i = 0; i < items; ++i) {
    const std::int64_t p0 = push != nullptr ? now_ns() : 0;
    bool wake = false;
    {
      std::lock_guard<std::mutex> lock(m);
      q.push_back(i);
      wake = consumer_waiting;
    }
    if (wake) cv.notify_one();
    if (push != nullptr) push->add(now_ns() - p0);
  }
  {
    std::unique_lock<std::mutex> lock(m);
    done_cv.wait(lock, [&] { return consumed == items; });
  }
  const std::int64_t t1 = now_ns();
  {
    std::lock_guard<std::mutex> lock(m);
    q.push_back(UINT64_MAX);
  }
  cv.notify_one();
  consumer.join();
  return static_cast<double>(t1 - t0) / static_cast<double>(items);
}

// Placement of the F1.queue/F1.push floors (chosen from the placement survey, see main).
Placement kQueuePlacement() {
  const char* e = std::getenv("RUNTIME_BENCH_QUEUE_PLACEMENT");  // experiments only
  if (e != nullptr && std::string(e) == "same") return Placement::same();
  if (e != nullptr && std::string(e) == "free") return Placement::free();
  return Placement::cross();
}

// The F1/F2 ping-pong floors of one figure, accumulated over interleaved chunks. Each
// mechanism in its best placement: F1 (blocking) with both threads on one CPU, F2
// (spinning) with the threads on two CPUs.
struct PingPongFloors {
  Samples f1_rtt, f1_post, f2_rtt, f2_post;
  void chunk(std::size_t n) {
    f1_pingpong_chunk(Placement::same(), 50, n, f1_rtt, f1_post);
    f2_pingpong_chunk(Placement::cross(), 50, n, f2_rtt, f2_post);
  }
  static Stats half(const Samples& rtt) {
    std::vector<std::int64_t> v;
    v.reserve(rtt.size());
    for (std::int64_t x : rtt.raw()) v.push_back(x / 2);
    return bench::summarize(std::move(v));
  }
  Stats f1_oneway() const { return half(f1_rtt); }
  Stats f2_oneway() const { return half(f2_rtt); }
};

// ---------------------------------------------------------------------------
// svp-acl helpers.

// A thread that serves host callbacks: loops in svp_acl_rt_process_report.
class ReportThread {
 public:
  void start() {
    thread_ = std::thread([this] { loop(); });
    id_ = static_cast<std::uint64_t>(thread_.native_handle());
  }
  std::uint64_t id() const { return id_; }
  // Call once at least one stream is subscribed.
  void go() { go_.store(true); }
  // Teardown: request_stop(), unsubscribe its streams (which wakes it), then join().
  void request_stop() {
    stop_.store(true);
    go_.store(true);
  }
  void join() { thread_.join(); }

 private:
  void loop() {
    while (!go_.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
    while (!stop_.load()) {
      const svp_acl_error rc = svp_acl_rt_process_report(50);
      if (rc == SVP_ACL_SUCCESS || rc == SVP_ACL_ERROR_RT_REPORT_TIMEOUT) continue;
      if (stop_.load()) break;  // unsubscribed while waiting: expected during teardown
      g_async_error.store(rc);
      std::fprintf(stderr, "runtime_bench: svp_acl_rt_process_report failed: %d (%s)\n", rc,
                   svp_acl_get_recent_err_msg());
      return;
    }
  }

  std::thread thread_;
  std::uint64_t id_ = 0;
  std::atomic<bool> go_{false};
  std::atomic<bool> stop_{false};
};

// A gate an NPU segment can block on (without spinning, so it leaves the CPU free).
class Gate {
 public:
  void close() {
    std::lock_guard<std::mutex> lock(m_);
    open_ = false;
  }
  void open() {
    {
      std::lock_guard<std::mutex> lock(m_);
      open_ = true;
    }
    cv_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return open_; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool open_ = true;
};

svp_acl_error seg_trivial(void*, uint32_t) { return SVP_ACL_SUCCESS; }

svp_acl_error seg_gate(void* user_data, uint32_t) {
  static_cast<Gate*>(user_data)->wait();
  return SVP_ACL_SUCCESS;
}

void cb_count(void* user_data) { static_cast<std::atomic<std::uint64_t>*>(user_data)->fetch_add(1); }

struct Stamp {
  std::atomic<std::int64_t> t{0};
};

void cb_stamp(void* user_data) { static_cast<Stamp*>(user_data)->t.store(now_ns(), std::memory_order_release); }

svp_acl_error seg_stamp(void* user_data, uint32_t) {
  static_cast<Stamp*>(user_data)->t.store(now_ns(), std::memory_order_release);
  return SVP_ACL_SUCCESS;
}

// Segment 0 sleeps (so the host is surely blocked by then), the last one stamps.
struct SleepThenStamp {
  std::chrono::microseconds sleep{100};
  Stamp end;
};

svp_acl_error seg_sleep_then_stamp(void* user_data, uint32_t index) {
  auto* s = static_cast<SleepThenStamp*>(user_data);
  if (index == 0) {
    std::this_thread::sleep_for(s->sleep);
  } else {
    s->end.t.store(now_ns(), std::memory_order_release);
  }
  return SVP_ACL_SUCCESS;
}

constexpr std::size_t kBatch = 256;

// Figure 1: cost of the enqueue call itself, timed per call, in batches of 256 followed
// by synchronize_stream. With `busy_head`, each batch queues behind an NPU task blocked
// on a gate, so no entry is retired or delivered inside the call (pure queueing cost).
enum class EnqueueKind { kCallback, kRecord };

void enqueue_batches(EnqueueKind kind, bool busy_head, svp_acl_rt_stream stream, svp_acl_rt_event event,
                     std::size_t batches, Samples* out) {
  std::atomic<std::uint64_t> ran{0};
  Gate gate;
  std::uint64_t launched = 0;
  for (std::size_t b = 0; b < batches; ++b) {
    if (busy_head) {
      gate.close();
      CHECK(svp_acl_ext_launch_segmented_task(seg_gate, &gate, 1, nullptr, stream));
    }
    for (std::size_t i = 0; i < kBatch; ++i) {
      const std::int64_t t0 = now_ns();
      const svp_acl_error rc = kind == EnqueueKind::kCallback
                                   ? svp_acl_rt_launch_callback(cb_count, &ran, SVP_ACL_CALLBACK_NO_BLOCK, stream)
                                   : svp_acl_rt_record_event(event, stream);
      const std::int64_t t1 = now_ns();
      if (rc != SVP_ACL_SUCCESS) {
        die(kind == EnqueueKind::kCallback ? "svp_acl_rt_launch_callback" : "svp_acl_rt_record_event", rc);
      }
      if (out != nullptr) out->add(t1 - t0);
    }
    launched += kBatch;
    if (busy_head) gate.open();
    CHECK(svp_acl_rt_synchronize_stream(stream));
  }
  check_async();
  if (kind == EnqueueKind::kCallback) {
    EXPECT(ran.load() == launched, "not every NO_BLOCK callback ran before synchronize_stream returned");
  }
}

// Figure 2a: launch -> callback start on an idle stream whose report thread is asleep.
std::int64_t callback_latency_idle(svp_acl_rt_stream stream) {
  Stamp stamp;
  std::this_thread::sleep_for(std::chrono::microseconds(50));  // let every helper thread fall asleep
  const std::int64_t t0 = now_ns();
  CHECK(svp_acl_rt_launch_callback(cb_stamp, &stamp, SVP_ACL_CALLBACK_NO_BLOCK, stream));
  CHECK(svp_acl_rt_synchronize_stream(stream));
  const std::int64_t t1 = stamp.t.load(std::memory_order_acquire);
  EXPECT(t1 != 0, "callback had not run when synchronize_stream returned");
  return t1 - t0;
}

// Figure 2b: an NPU task's (only) segment ends -> the callback queued behind it starts.
std::int64_t callback_latency_after_task(svp_acl_rt_stream stream) {
  Stamp seg;
  Stamp cb;
  std::this_thread::sleep_for(std::chrono::microseconds(50));
  CHECK(svp_acl_ext_launch_segmented_task(seg_stamp, &seg, 1, nullptr, stream));
  CHECK(svp_acl_rt_launch_callback(cb_stamp, &cb, SVP_ACL_CALLBACK_NO_BLOCK, stream));
  CHECK(svp_acl_rt_synchronize_stream(stream));
  check_async();
  const std::int64_t ts = seg.t.load(std::memory_order_acquire);
  const std::int64_t tc = cb.t.load(std::memory_order_acquire);
  EXPECT(ts != 0 && tc != 0, "segment or callback had not run when synchronize_stream returned");
  return tc - ts;
}

// Figure 3: last segment ends -> synchronize_event (blocked meanwhile) returns.
std::int64_t event_sync_latency(svp_acl_rt_stream stream, svp_acl_rt_event event) {
  SleepThenStamp task;
  CHECK(svp_acl_ext_launch_segmented_task(seg_sleep_then_stamp, &task, 2, nullptr, stream));
  CHECK(svp_acl_rt_record_event(event, stream));
  CHECK(svp_acl_rt_synchronize_event(event));
  const std::int64_t t1 = now_ns();
  check_async();
  const std::int64_t t0 = task.end.t.load(std::memory_order_acquire);
  EXPECT(t0 != 0, "the task had not finished when synchronize_event returned");
  return t1 - t0;
}

// Figure 4: launch an empty 1-segment task, then synchronize_stream; the pair is timed.
std::int64_t empty_task_roundtrip(svp_acl_rt_stream stream) {
  const std::int64_t t0 = now_ns();
  CHECK(svp_acl_ext_launch_segmented_task(seg_trivial, nullptr, 1, nullptr, stream));
  CHECK(svp_acl_rt_synchronize_stream(stream));
  return now_ns() - t0;
}

// Figure 5: `total` trivial tasks submitted round-robin over `streams` from this thread,
// then every stream synchronized. Returns wall-clock ns per task; adds the process CPU
// time per task (all threads: submitter, NPU core, idle helpers) to `cpu`.
std::int64_t throughput_rep(const std::vector<svp_acl_rt_stream>& streams, std::size_t total, Samples* cpu = nullptr) {
  const std::size_t n = streams.size();
  const std::int64_t c0 = bench::process_cpu_ns();
  const std::int64_t t0 = now_ns();
  for (std::size_t k = 0; k < total; ++k) {
    const svp_acl_error rc = svp_acl_ext_launch_segmented_task(seg_trivial, nullptr, 1, nullptr, streams[k % n]);
    if (rc != SVP_ACL_SUCCESS) die("svp_acl_ext_launch_segmented_task", rc);
  }
  for (svp_acl_rt_stream s : streams) CHECK(svp_acl_rt_synchronize_stream(s));
  const std::int64_t t1 = now_ns();
  const std::int64_t c1 = bench::process_cpu_ns();
  check_async();
  if (cpu != nullptr) cpu->add((c1 - c0) / static_cast<std::int64_t>(total));
  return (t1 - t0) / static_cast<std::int64_t>(total);
}

// A latency figure measured one sample per call of `one`, interleaved (in `rounds`
// rounds) with `floor_iters` ping-pong floor iterations per round. `cpu` receives, per
// round, the process CPU time (all threads) per sample: beside the wall-clock figure it
// shows what the host wait policy spends spinning.
template <typename One>
Stats interleaved_latency(std::size_t rounds, std::size_t warmup, std::size_t iters, std::size_t floor_iters,
                          PingPongFloors& floors, Samples& cpu, One&& one) {
  for (std::size_t i = 0; i < warmup; ++i) (void)one();
  Samples s(iters);
  const std::size_t per_round = (iters + rounds - 1) / rounds;
  bench::interleave(rounds, {[&] { floors.chunk(floor_iters / rounds); },
                             [&] {
                               const std::size_t before = s.size();
                               const std::int64_t c0 = bench::process_cpu_ns();
                               for (std::size_t i = 0; i < per_round && s.size() < iters; ++i) s.add(one());
                               const std::int64_t c1 = bench::process_cpu_ns();
                               if (s.size() > before) {
                                 cpu.add((c1 - c0) / static_cast<std::int64_t>(s.size() - before));
                               }
                             }});
  return s.stats();
}

// The info row beside a latency figure: process CPU time per sample (P50 = median round,
// P99 = worst round), against the figure's own P50 wall time.
Row cpu_row(const char* id, const char* name, const Samples& cpu, const Stats& wall) {
  Row r{id, name, cpu.stats(), "wall", wall, "", {}, {}};
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = bench::parse_args(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  bench::print_machine(SVP_BENCH_BUILD_TYPE, opt.quick);
  std::printf("Floors are measured in this process, interleaved with each figure (%s rounds):\n"
              "  F1        std::mutex + std::condition_variable token ping-pong, threads on one CPU:\n"
              "            rtt = round trip, oneway = rtt/2\n"
              "  F1.push   one push into a mutex + condvar work queue whose consumer drains concurrently\n"
              "  F1.queue  that queue's throughput, ns per item\n"
              "  F2        atomic token ping-pong, threads on two CPUs: %s;\n"
              "            F2.post = signalling side (store, futex wake only if the partner sleeps)\n\n",
              opt.quick ? "4" : "10", f2_mechanism());
  if (bench::allowed_cpus().size() < 2) {
    std::printf("NOTE: only one CPU is available: F2 (a spinning handoff) is measured on that one CPU,\n"
                "      where the spinner starves its partner; F2 ratios are meaningless in this run.\n\n");
  }
  bench::Report report;
  const std::size_t rounds = opt.n(10, 4);

  // ---- placement survey (info) ---------------------------------------------
  // The same floors with the two threads on one CPU, on two CPUs, and left to the
  // scheduler: shows how much of any figure can be thread placement alone.
  if (opt.wants("env")) {
    const std::size_t n = opt.n(3000, 300);
    struct P {
      const char* name;
      Placement (*where)();
    };
    const P places[] = {{"same CPU", &Placement::same}, {"two CPUs", &Placement::cross}, {"unpinned", &Placement::free}};
    std::printf("PLACEMENT survey (round trip P50 / P99 in us; queue in ns/item):\n");
    for (const P& p : places) {
      Samples f1r, f1p, f2r, f2p;
      f1_pingpong_chunk(p.where(), 50, n, f1r, f1p);
      f2_pingpong_chunk(p.where(), 50, n, f2r, f2p);
      Samples q;
      for (int i = 0; i < 3; ++i) q.add(static_cast<std::int64_t>(f1_queue_chunk(p.where(), opt.n(25600, 4096), nullptr)));
      const Stats a = f1r.stats(), b = f2r.stats(), c = q.stats();
      std::printf("    %-9s F1 rtt %8.2f / %8.2f   F2 rtt %8.2f / %8.2f   F1.queue %6.0f\n", p.name, a.p50 / 1e3,
                  a.p99 / 1e3, b.p50 / 1e3, b.p99 / 1e3, c.p50);
      std::printf("RESULT id=env.%s f1_rtt_p50_ns=%.0f f1_rtt_p99_ns=%.0f f2_rtt_p50_ns=%.0f f2_rtt_p99_ns=%.0f queue_ns=%.0f\n",
                  p.name[0] == 's' ? "same" : p.name[0] == 't' ? "cross" : "free", a.p50, a.p99, b.p50, b.p99, c.p50);
    }
    std::printf("\n");
  }
  const std::size_t pp_iters = opt.n(10000, 1000);  // ping-pong floor iterations per figure

  // ---- runtime setup -----------------------------------------------------
  // RUNTIME_BENCH_ACL_JSON (experiments only): an acl.json for svp_acl_init, e.g. to
  // compare softnpu.wait_policy values with one binary.
  const char* acl_json = std::getenv("RUNTIME_BENCH_ACL_JSON");
  if (acl_json != nullptr) std::printf("acl.json: %s\n", acl_json);
  CHECK(svp_acl_init(acl_json));
  CHECK(svp_acl_rt_set_device(0));
  svp_acl_rt_stream cb_stream = nullptr;  // subscribed to the report thread
  svp_acl_rt_stream npu_stream = nullptr;
  svp_acl_rt_event event = nullptr;
  CHECK(svp_acl_rt_create_stream(&cb_stream));
  CHECK(svp_acl_rt_create_stream(&npu_stream));
  CHECK(svp_acl_rt_create_event(&event));
  ReportThread reporter;
  reporter.start();
  CHECK(svp_acl_rt_subscribe_report(reporter.id(), cb_stream));
  reporter.go();

  // ---- figure 1: enqueue cost --------------------------------------------
  if (opt.wants("fig1")) {
    const std::size_t batches = opt.n(80, 8);      // x 256 calls
    const std::size_t busy_batches = opt.n(40, 4);
    struct Variant {
      const char* id;
      const char* name;
      EnqueueKind kind;
      bool busy;
      std::size_t batches;
      bool target;
    };
    const Variant variants[] = {
        {"fig1a", "launch_callback(NO_BLOCK) enqueue, per call", EnqueueKind::kCallback, false, batches, true},
        {"fig1b", "record_event enqueue, per call", EnqueueKind::kRecord, false, batches, true},
        {"fig1c", "launch_callback enqueue, stream busy (info)", EnqueueKind::kCallback, true, busy_batches, false},
        {"fig1d", "record_event enqueue, stream busy (info)", EnqueueKind::kRecord, true, busy_batches, false},
    };
    for (const Variant& v : variants) {
      enqueue_batches(v.kind, v.busy, cb_stream, event, 4, nullptr);  // warm-up
      Samples fig(v.batches * kBatch);
      Samples push(v.batches * kBatch);
      Samples f2_rtt, f2_post;
      const std::size_t per_round = (v.batches + rounds - 1) / rounds;
      std::size_t done = 0;
      bench::interleave(rounds, {[&] {
                                   (void)f1_queue_chunk(kQueuePlacement(), per_round * kBatch, &push);
                                   f2_pingpong_chunk(Placement::cross(), 50, pp_iters / rounds, f2_rtt, f2_post);
                                 },
                                 [&] {
                                   const std::size_t b = std::min(per_round, v.batches - done);
                                   enqueue_batches(v.kind, v.busy, cb_stream, event, b, &fig);
                                   done += b;
                                 }});
      Row r{v.id, v.name, fig.stats(), "F1.push", push.stats(), "F2.post", f2_post.stats(), {}};
      if (v.target) r.targets.push_back(bench::p50_le_us(2));
      report.add(r);
    }
  }

  // ---- figure 2: callback latency ----------------------------------------
  if (opt.wants("fig2")) {
    const std::size_t iters = opt.n(5000, 400);
    {
      PingPongFloors fl;
      Samples cpu;
      const Stats st =
          interleaved_latency(rounds, 100, iters, pp_iters, fl, cpu, [&] { return callback_latency_idle(cb_stream); });
      report.add(Row{"fig2a", "callback: launch -> callback start (idle stream)", st, "F1.oneway", fl.f1_oneway(),
                     "F2.oneway", fl.f2_oneway(), {bench::p50_le_us(20), bench::p99_le_us(100)}});
      report.add(cpu_row("fig2a.cpu", "CPU time per fig2a sample (info; sample incl. 50 us pause)", cpu, st));
    }
    {
      PingPongFloors fl;
      Samples cpu;
      const Stats st = interleaved_latency(rounds, 100, iters, pp_iters, fl, cpu,
                                           [&] { return callback_latency_after_task(cb_stream); });
      report.add(Row{"fig2b", "callback: NPU task end -> callback start", st, "F1.oneway", fl.f1_oneway(), "F2.oneway",
                     fl.f2_oneway(), {bench::p50_le_us(20), bench::p99_le_us(100)}});
      report.add(cpu_row("fig2b.cpu", "CPU time per fig2b sample (info; sample incl. 50 us pause)", cpu, st));
    }
  }

  // ---- figure 3: event completion -> synchronize_event returns -----------
  if (opt.wants("fig3")) {
    PingPongFloors fl;
    Samples cpu;
    const Stats st = interleaved_latency(rounds, 50, opt.n(3000, 300), pp_iters, fl, cpu,
                                         [&] { return event_sync_latency(npu_stream, event); });
    report.add(Row{"fig3", "segment end -> synchronize_event returns", st, "F1.oneway", fl.f1_oneway(), "F2.oneway",
                   fl.f2_oneway(), {bench::p99_le_us(50)}});
    report.add(cpu_row("fig3.cpu", "CPU time per fig3 sample (info; sample incl. 100 us sleep)", cpu, st));
  }

  // ---- figure 4: empty task round trip -----------------------------------
  if (opt.wants("fig4")) {
    PingPongFloors fl;
    Samples cpu;
    const Stats st = interleaved_latency(rounds, 1000, opt.n(20000, 2000), pp_iters, fl, cpu,
                                         [&] { return empty_task_roundtrip(npu_stream); });
    report.add(Row{"fig4", "empty task: launch + synchronize_stream", st, "F1.rtt", fl.f1_rtt.stats(), "F2.rtt",
                   fl.f2_rtt.stats(), {bench::p50_le_us(20)}});
    report.add(cpu_row("fig4.cpu", "CPU time per fig4 sample (info)", cpu, st));
  }

  // ---- figure 5: throughput ----------------------------------------------
  // Each repetition runs the floor and the 1/8/64-stream configurations back to back
  // (rotating order); per configuration P50 = median repetition, P99 = worst one.
  if (opt.wants("fig5")) {
    const std::size_t total = opt.n(25600, 4096);  // divisible by 64; >= 20000 (quick: >= 4000)
    const std::size_t reps = opt.n(7, 3);
    std::vector<svp_acl_rt_stream> s1(1), s8(8), s64(64);
    for (auto* v : {&s1, &s8, &s64}) {
      for (auto& s : *v) CHECK(svp_acl_rt_create_stream(&s));
    }
    Samples fq(reps), t1(reps), t8(reps), t64(reps), c1(reps), c8(reps), c64(reps);
    (void)f1_queue_chunk(kQueuePlacement(), total / 8, nullptr);  // warm-up
    for (auto* v : {&s1, &s8, &s64}) (void)throughput_rep(*v, total / 8);
    std::printf("[fig5] throughput: %zu trivial 1-segment tasks round-robin from one thread, %zu reps\n", total, reps);
    bench::interleave(reps, {[&] { fq.add(static_cast<std::int64_t>(f1_queue_chunk(kQueuePlacement(), total, nullptr))); },
                             [&] { t1.add(throughput_rep(s1, total, &c1)); },
                             [&] { t8.add(throughput_rep(s8, total, &c8)); },
                             [&] { t64.add(throughput_rep(s64, total, &c64)); }});
    for (auto* v : {&s1, &s8, &s64}) {
      for (auto& s : *v) CHECK(svp_acl_rt_destroy_stream(s));
    }
    const Stats st1 = t1.stats(), st8 = t8.stats(), st64 = t64.stats();
    Row r1{"fig5.1", "throughput, 1 stream (ns/task)", st1, "F1.queue", fq.stats(), "", {}, {}};
    r1.ratio_value = bench::safe_ratio(st1.p50, r1.floor_stats.p50);
    report.add(r1);
    Row r8{"fig5.8", "throughput, 8 streams (ns/task; vs 1 stream)", st8, "fig5.1", st1, "", {}, {}};
    r8.ratio_value = bench::safe_ratio(st8.p50, st1.p50);
    report.add(r8);
    Row r64{"fig5.64", "throughput, 64 streams (ns/task; vs 1 stream)", st64, "fig5.1", st1, "", {},
            {bench::ratio_le(1.5)}};
    r64.ratio_value = bench::safe_ratio(st64.p50, st1.p50);
    report.add(r64);
    // CPU time per task: less sensitive than wall time to whether the submitter and the
    // core thread happen to share a CPU; shows the work the scheduler adds per stream.
    const Stats sc1 = c1.stats(), sc8 = c8.stats(), sc64 = c64.stats();
    Row rc1{"fig5c.1", "CPU time per task, 1 stream (info)", sc1, "", {}, "", {}, {}};
    report.add(rc1);
    Row rc8{"fig5c.8", "CPU time per task, 8 streams (info; vs 1)", sc8, "fig5c.1", sc1, "", {}, {}};
    rc8.ratio_value = bench::safe_ratio(sc8.p50, sc1.p50);
    report.add(rc8);
    Row rc64{"fig5c.64", "CPU time per task, 64 streams (info; vs 1)", sc64, "fig5c.1", sc1, "", {}, {}};
    rc64.ratio_value = bench::safe_ratio(sc64.p50, sc1.p50);
    report.add(rc64);
  }

  // ---- teardown ----------------------------------------------------------
  check_async();
  CHECK(svp_acl_rt_synchronize_stream(cb_stream));
  reporter.request_stop();  // from here on "unsubscribed while waiting" is expected
  CHECK(svp_acl_rt_unsubscribe_report(reporter.id(), cb_stream));
  reporter.join();
  CHECK(svp_acl_rt_destroy_event(event));
  CHECK(svp_acl_rt_destroy_stream(cb_stream));
  CHECK(svp_acl_rt_destroy_stream(npu_stream));
  CHECK(svp_acl_rt_reset_device(0));
  CHECK(svp_acl_finalize());
  check_async();

  const int missed = report.print_summary();
  std::printf("loadavg at end: %s\n", bench::loadavg().c_str());
  std::printf("%d target(s) missed (reported, not asserted); no API errors.\n", missed);
  return 0;
}
