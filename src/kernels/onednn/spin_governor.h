// Keeps libgomp's spin-waiting from starving a busy machine (issue 28, docs/performance.md
// "Two kernel threads on a busy machine").
//
// Why: after each parallel region a libgomp worker spins on the team barrier (about
// 300,000 `pause` iterations) before it sleeps. On a quiet machine that makes the next
// layer start at once; when other processes want the CPUs, the spinning worker takes a CPU
// the team's master or the other processes need, and every layer waits for a preempted
// thread (2 kernel threads measured 3–20× slower than 1 on a 2-CPU machine with two busy
// processes). GOMP_SPINCOUNT is read once, when libgomp loads, before any code of ours runs,
// so the library cannot change it. What libgomp does offer, documented with GOMP_SPINCOUNT:
// when a process has more OpenMP threads than available CPUs, every wait spins only 100
// times (1000 with OMP_WAIT_POLICY=active). The governor uses exactly that: while the
// machine is oversubscribed it holds one docked, sleeping OpenMP team of (CPUs + 1) threads,
// which puts the process over the line, and it lets the team go once the machine is quiet
// again, so quiet-machine latency keeps the full spin.
//
// Contention is sampled from /proc/loadavg's count of runnable threads (machine-wide,
// ours included: a master and a spinning worker on a quiet 2-CPU machine make 2), at most
// every 10 ms, filtered with hysteresis (ContentionFilter).
//
// Threads: every function is safe to call from any thread; tick() is meant for the hot
// path (a clock read and an atomic compare when no sample is due).
#pragma once

#include "kernels/compiled_program.h"  // KernelSpin

namespace svp::kernels::onednn {

// The decision from a sequence of samples, alone so it can be tested without a machine:
// an exponentially weighted share of oversubscribed samples (each sample weighs `weight`),
// switched on at `on` and off at `off`. The default (0.25, 0.6, 0.1) decides whether to
// shorten libgomp's spin-waits: a passing compile job does not flip it and a lasting one
// does within ~4 samples. Running kernels on one thread costs half the throughput when
// wrong, and on a 2-CPU machine whose two CPUs run the kernel team any kernel thread
// waking up makes a sample oversubscribed by one (12 % of the samples on a quiet VM: four
// in a row a few times a second). So that decision takes the default filter only on
// samples two or more threads over, and slow() (~12 samples in a row, a quiet spell of
// ~16 to let go) on samples one over.
class ContentionFilter {
 public:
  ContentionFilter() = default;
  ContentionFilter(double weight, double on, double off) : weight_(weight), on_level_(on), off_level_(off) {}
  static ContentionFilter slow() { return ContentionFilter(0.1, 0.7, 0.2); }

  // One sample: were more threads runnable than there are CPUs? Returns the new state.
  bool add(bool oversubscribed);
  bool contended() const { return on_; }

 private:
  double weight_ = 0.25;
  double on_level_ = 0.6;
  double off_level_ = 0.1;
  double level_ = 0.0;
  bool on_ = false;
};

// Whether a sample says the machine is oversubscribed: `runnable` threads machine-wide
// (/proc/loadavg), of which `spinning` are this process's waiters in their spin phase
// (they give way: not contention), on `cpus` CPUs. While the kernels run on one thread
// (`reduced`) the sample also counts the `team` − 1 workers a full team would add, so the
// machine must have room for them before the team comes back (no see-saw between the two).
bool oversubscribed(int runnable, int spinning, int team, bool reduced, int cpus);
// How many threads over: the same count less `cpus` (oversubscribed() is excess > 0).
int excess_threads(int runnable, int spinning, int team, bool reduced, int cpus);

// Called by a thread about to run kernel work configured for `threads` > 1 OpenMP threads
// under `policy`. Cheap unless a sample is due.
void spin_governor_tick(KernelSpin policy, int threads);

// The OpenMP threads kernel work configured for `threads` should run with now: all of
// them, except under "auto" while the machine is oversubscribed, when one. Why one: a
// parallel region waits for its slowest thread, and on a machine whose CPUs are all wanted
// a team member is often descheduled, so every layer waits for the scheduler; one thread
// takes its share of a CPU and never waits for a partner (measured in
// docs/performance.md, "Two kernel threads on a busy machine"). A relaxed atomic load.
int spin_governor_threads(KernelSpin policy, int threads);

// True while the governor holds its docked team (tests, diagnostics).
bool spin_throttle_engaged();

// True while "auto" runs kernel work on one thread (tests, diagnostics).
bool spin_governor_reduced();

// Releases the docked team now, whatever the samples say (tests; also safe at any time).
void spin_governor_reset();

// The number of runnable threads machine-wide (/proc/loadavg), or -1 if unreadable.
int runnable_threads();

}  // namespace svp::kernels::onednn
