// A small latency-benchmark harness: per-iteration samples in nanoseconds, warm-up,
// percentiles (nearest rank), a --quick mode, target checks and machine information.
//
// Deliberately header-only and free of any benchmark framework: the figures we care
// about are tail latencies (P99), which need the raw per-iteration samples.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace bench {

using Clock = std::chrono::steady_clock;

inline std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// One polite busy-wait step for spin loops.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// ---------------------------------------------------------------------------
// Statistics.

struct Stats {
  std::size_t n = 0;
  double p50 = 0;  // ns
  double p99 = 0;  // ns
  double mean = 0;
  double min = 0;
  double max = 0;
};

// Nearest-rank percentile of sorted data, p in (0, 100].
inline double percentile_sorted(const std::vector<std::int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(p / 100.0 * static_cast<double>(sorted.size()));
  std::size_t idx = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
  if (idx >= sorted.size()) idx = sorted.size() - 1;
  return static_cast<double>(sorted[idx]);
}

inline Stats summarize(std::vector<std::int64_t> v) {
  Stats s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.p50 = percentile_sorted(v, 50);
  s.p99 = percentile_sorted(v, 99);
  s.min = static_cast<double>(v.front());
  s.max = static_cast<double>(v.back());
  long double sum = 0;
  for (std::int64_t x : v) sum += x;
  s.mean = static_cast<double>(sum / v.size());
  return s;
}

// Per-iteration samples (ns). `add` is allocation-free after reserve().
class Samples {
 public:
  explicit Samples(std::size_t expected = 0) { v_.reserve(expected); }
  void add(std::int64_t ns) { v_.push_back(ns); }
  void clear() { v_.clear(); }
  std::size_t size() const { return v_.size(); }
  const std::vector<std::int64_t>& raw() const { return v_; }
  Stats stats() const { return summarize(v_); }

 private:
  std::vector<std::int64_t> v_;
};

// Runs `body` warmup + iters times; `body(bool record)` returns one sample in ns (the
// body decides what exactly is timed). Warm-up samples are discarded.
template <typename Body>
Stats measure(std::size_t warmup, std::size_t iters, Body&& body) {
  for (std::size_t i = 0; i < warmup; ++i) (void)body();
  Samples s(iters);
  for (std::size_t i = 0; i < iters; ++i) s.add(body());
  return s.stats();
}

// Interleaving: on a shared, noisy machine a floor measured minutes (or seconds) away
// from its figure sees different load. `interleave` runs `rounds` rounds, calling every
// chunk once per round, rotating which chunk goes first, so a figure and its floors
// sample the same load conditions.
inline void interleave(std::size_t rounds, const std::vector<std::function<void()>>& chunks) {
  for (std::size_t r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < chunks.size(); ++i) chunks[(r + i) % chunks.size()]();
  }
}

// ---------------------------------------------------------------------------
// Options.

struct Options {
  bool quick = false;
  std::string filter;  // run only figures whose id contains this
  bool wants(const std::string& id) const { return filter.empty() || id.find(filter) != std::string::npos; }
  // Iteration count: full value, or the quick value with --quick.
  std::size_t n(std::size_t full, std::size_t quick_n) const { return quick ? quick_n : full; }
};

inline Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      o.quick = true;
    } else if (std::strncmp(argv[i], "--filter=", 9) == 0) {
      o.filter = argv[i] + 9;
    } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::printf(
          "usage: %s [--quick] [--filter=ID]\n"
          "  --quick      fewer iterations (smoke run, a few seconds)\n"
          "  --filter=ID  run only the figures whose id contains ID (fig1, fig2, fig3, fig4, fig5)\n",
          argv[0]);
      std::exit(0);
    } else {
      std::fprintf(stderr, "unknown argument: %s (try --help)\n", argv[i]);
      std::exit(2);
    }
  }
  return o;
}

// ---------------------------------------------------------------------------
// Targets. A target is reported (PASS/MISS), never asserted: the process exit status
// only reflects API errors.

struct Target {
  enum Kind { kNone, kP50Le, kP99Le, kRatioLe };
  Kind kind = kNone;
  double limit = 0;  // ns for kP50Le/kP99Le, plain number for kRatioLe

  std::string describe() const {
    char buf[64];
    switch (kind) {
      case kP50Le: std::snprintf(buf, sizeof buf, "P50 <= %g us", limit / 1000.0); break;
      case kP99Le: std::snprintf(buf, sizeof buf, "P99 <= %g us", limit / 1000.0); break;
      case kRatioLe: std::snprintf(buf, sizeof buf, "ratio <= %g", limit); break;
      case kNone: return "-";
    }
    return buf;
  }
  // Whether `s` (or `ratio` for kRatioLe) meets the target.
  bool met(const Stats& s, double ratio = 0) const {
    switch (kind) {
      case kP50Le: return s.p50 <= limit;
      case kP99Le: return s.p99 <= limit;
      case kRatioLe: return ratio <= limit;
      case kNone: return true;
    }
    return true;
  }
};

inline Target p50_le_us(double us) { return {Target::kP50Le, us * 1000.0}; }
inline Target p99_le_us(double us) { return {Target::kP99Le, us * 1000.0}; }
inline Target ratio_le(double r) { return {Target::kRatioLe, r}; }

inline double safe_ratio(double a, double b) { return b > 0 ? a / b : 0; }

// ---------------------------------------------------------------------------
// Reporting. Human-readable blocks while running, then a summary table and one
// machine-readable "RESULT" line per row (bench/summarize_runs.py aggregates them).

struct Row {
  std::string id;     // short key, e.g. "fig2"
  std::string name;   // what was measured
  Stats stats;        // the figure
  std::string floor;  // floor name, e.g. "F1.oneway"
  Stats floor_stats;
  std::string floor2;  // second (better-mechanism) floor, e.g. "F2.oneway"; may be empty
  Stats floor2_stats;
  std::vector<Target> targets;
  double ratio_value = 0;  // for kRatioLe targets
};

class Report {
 public:
  void add(Row r) {
    print_block(r);
    rows_.push_back(std::move(r));
  }

  // Returns the number of missed targets.
  int print_summary() const {
    int missed = 0;
    std::printf("\n==== summary (us; ratio = figure / floor, same run) ====\n");
    std::printf("%-6s %-44s %9s %9s | %-10s %8s %8s | %6s %6s | %6s %6s | %s\n", "id", "figure", "P50", "P99", "floor",
                "fl.P50", "fl.P99", "r50", "r99", "r50F2", "r99F2", "target: result");
    for (const Row& r : rows_) {
      std::string verdicts;
      for (const Target& t : r.targets) {
        const bool ok = t.met(r.stats, r.ratio_value);
        if (!ok) ++missed;
        if (!verdicts.empty()) verdicts += ", ";
        verdicts += t.describe() + (t.kind == Target::kRatioLe ? " (=" + fmt2(r.ratio_value) + ")" : "") +
                    (ok ? ": PASS" : ": MISS");
      }
      if (verdicts.empty()) verdicts = "(info)";
      std::printf("%-6s %-44s %9.2f %9.2f | %-10s %8.2f %8.2f | %6.2f %6.2f | %6s %6s | %s\n", r.id.c_str(),
                  r.name.c_str(), r.stats.p50 / 1e3, r.stats.p99 / 1e3, r.floor.c_str(), r.floor_stats.p50 / 1e3,
                  r.floor_stats.p99 / 1e3, safe_ratio(r.stats.p50, r.floor_stats.p50),
                  safe_ratio(r.stats.p99, r.floor_stats.p99),
                  r.floor2.empty() ? "-" : fmt2(safe_ratio(r.stats.p50, r.floor2_stats.p50)).c_str(),
                  r.floor2.empty() ? "-" : fmt2(safe_ratio(r.stats.p99, r.floor2_stats.p99)).c_str(), verdicts.c_str());
    }
    std::printf("\n");
    for (const Row& r : rows_) {
      std::string met = "-";
      std::string targets;
      if (!r.targets.empty()) {
        met = "1";
        for (const Target& t : r.targets) {
          if (!t.met(r.stats, r.ratio_value)) met = "0";
          if (!targets.empty()) targets += "; ";
          targets += t.describe();
        }
      }
      std::printf(
          "RESULT id=%s p50_ns=%.0f p99_ns=%.0f mean_ns=%.0f n=%zu floor=%s floor_p50_ns=%.0f floor_p99_ns=%.0f "
          "floor2=%s floor2_p50_ns=%.0f floor2_p99_ns=%.0f ratio=%.4f met=%s target=\"%s\" name=\"%s\"\n",
          r.id.c_str(), r.stats.p50, r.stats.p99, r.stats.mean, r.stats.n, r.floor.empty() ? "-" : r.floor.c_str(),
          r.floor_stats.p50, r.floor_stats.p99, r.floor2.empty() ? "-" : r.floor2.c_str(), r.floor2_stats.p50,
          r.floor2_stats.p99, r.ratio_value, met.c_str(), targets.c_str(), r.name.c_str());
    }
    return missed;
  }

 private:
  static std::string fmt2(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
  }

  static void print_block(const Row& r) {
    std::printf("[%s] %s\n", r.id.c_str(), r.name.c_str());
    std::printf("    measured   P50 %9.2f us   P99 %9.2f us   mean %9.2f us   max %9.2f us   (n=%zu)\n",
                r.stats.p50 / 1e3, r.stats.p99 / 1e3, r.stats.mean / 1e3, r.stats.max / 1e3, r.stats.n);
    if (!r.floor.empty()) {
      std::printf("    floor %-10s P50 %7.2f us   P99 %9.2f us   -> ratio P50 %6.2fx   P99 %6.2fx\n", r.floor.c_str(),
                  r.floor_stats.p50 / 1e3, r.floor_stats.p99 / 1e3, safe_ratio(r.stats.p50, r.floor_stats.p50),
                  safe_ratio(r.stats.p99, r.floor_stats.p99));
    }
    if (!r.floor2.empty()) {
      std::printf("    floor %-10s P50 %7.2f us   P99 %9.2f us   -> ratio P50 %6.2fx   P99 %6.2fx\n", r.floor2.c_str(),
                  r.floor2_stats.p50 / 1e3, r.floor2_stats.p99 / 1e3, safe_ratio(r.stats.p50, r.floor2_stats.p50),
                  safe_ratio(r.stats.p99, r.floor2_stats.p99));
    }
    for (const Target& t : r.targets) {
      const bool ok = t.met(r.stats, r.ratio_value);
      if (t.kind == Target::kRatioLe) {
        std::printf("    target [%s]  measured ratio %.2f  -> %s\n", t.describe().c_str(), r.ratio_value,
                    ok ? "PASS" : "MISS");
      } else {
        std::printf("    target [%s]  -> %s\n", t.describe().c_str(), ok ? "PASS" : "MISS");
      }
    }
    std::fflush(stdout);
  }

  std::vector<Row> rows_;
};

// ---------------------------------------------------------------------------
// Machine description.

inline std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string m = line.substr(colon + 1);
        m.erase(0, m.find_first_not_of(" \t"));
        return m;
      }
    }
  }
  return "unknown";
}

inline std::string read_first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return "unknown";
  return line;
}

inline int online_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::thread::hardware_concurrency());
}

// Median cost of one steady_clock::now() call (ns), so readers can judge resolution.
inline double clock_overhead_ns() {
  constexpr int kReps = 1000;
  std::vector<std::int64_t> v;
  for (int r = 0; r < 21; ++r) {
    const std::int64_t t0 = now_ns();
    std::int64_t sink = 0;
    for (int i = 0; i < kReps; ++i) sink += now_ns();
    const std::int64_t t1 = now_ns();
    if (sink == 42) std::printf(" ");
    v.push_back((t1 - t0) / kReps);
  }
  return summarize(v).p50;
}

inline std::string loadavg() {
  std::string l = read_first_line("/proc/loadavg");
  // keep the three load averages only
  std::size_t pos = 0;
  for (int i = 0; i < 3 && pos != std::string::npos; ++i) pos = l.find(' ', pos + 1);
  return pos == std::string::npos ? l : l.substr(0, pos);
}

// CPUs this process may run on.
inline std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
    }
  }
  return cpus;
}

// Pins the calling thread to `cpu` (< 0: no change) and restores its previous affinity
// on destruction. Used only by the floors, to measure a handoff in a known placement.
class ScopedAffinity {
 public:
  explicit ScopedAffinity(int cpu) {
    if (cpu < 0) return;
    CPU_ZERO(&saved_);
    if (pthread_getaffinity_np(pthread_self(), sizeof saved_, &saved_) != 0) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    active_ = pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
  }
  ~ScopedAffinity() {
    if (active_) pthread_setaffinity_np(pthread_self(), sizeof saved_, &saved_);
  }
  ScopedAffinity(const ScopedAffinity&) = delete;
  ScopedAffinity& operator=(const ScopedAffinity&) = delete;

 private:
  cpu_set_t saved_;
  bool active_ = false;
};

// Process CPU time (user + system, all threads) in ns.
inline std::int64_t process_cpu_ns() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto ns = [](const timeval& tv) { return std::int64_t{tv.tv_sec} * 1'000'000'000 + std::int64_t{tv.tv_usec} * 1000; };
  return ns(ru.ru_utime) + ns(ru.ru_stime);
}

inline void print_machine(const char* build_type, bool quick) {
  std::printf("MACHINE nproc=%d cpu=\"%s\" clocksource=%s build_type=%s compiler=\"%s\" mode=%s loadavg=\"%s\"\n",
              online_cpus(), cpu_model().c_str(),
              read_first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource").c_str(), build_type,
              __VERSION__, quick ? "quick" : "full", loadavg().c_str());
  std::printf("        steady_clock::now() costs %.0f ns (included in every sample)\n\n", clock_overhead_ns());
}

}  // namespace bench
