// The priority arbiter of the emulated task scheduler (../../../docs/scheduling.md).
//
// Pure policy: it holds the NPU tasks that are ready (at the head of their queue, all
// earlier entries retired) and answers two questions at a given instant:
//   pick(now)             which waiting task a free core takes next;
//   preemptor(running, now)  whether some waiting task may interrupt `running` at the
//                         segment boundary just reached.
// It owns no threads and reads no clock: the caller passes `now`, so tests drive it with
// virtual time and assert exact orders. Not thread-safe; the device serialises access.
//
// Promotion is evaluated in closed form from the time a wait began, which is exactly
// equivalent to a hardware timer because decisions are only ever taken at arbitration
// points (a core frees up or reaches a segment boundary).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "hal/hal.h"

namespace svp::hal::softnpu {

struct ArbiterConfig {
  Nanos tick = 10'600'000;        // resolution of the hardware wait counter
  std::uint32_t cap_ticks = 32;   // the counter saturates here (339.2 ms)
};

// The arbitration view of one task; owned by the device, referenced by the arbiter.
struct Contender {
  SqId sq = 0;
  TaskSettings settings;
  int level = 3;            // priority level the current wait started at
  Nanos wait_start = 0;     // when the current wait began
  Nanos start_tick = 0;     // wait_start on the tick grid (cached by Arbiter::add)

  // Whether STEP/TOP promotion can change this task's level or reset its wait.
  bool promotes() const { return level != 0 && (settings.step_timeout_ms != 0 || settings.top_timeout_ms != 0); }

  // Effective priority at `now` after STEP/TOP promotion of the current wait.
  int level_at(Nanos now) const;
  // When the hardware wait counter was last cleared (wait start or last promotion).
  Nanos wait_reset_at(Nanos now) const;
};

class Arbiter {
 public:
  explicit Arbiter(ArbiterConfig config = {}) : config_(config) {}

  // `c` starts waiting at `now` at priority `level`.
  void add(Contender* c, int level, Nanos now);
  void remove(Contender* c);
  bool empty() const { return waiting_.empty(); }
  std::size_t size() const { return waiting_.size(); }

  // A task whose wait starts after `now` (on the board clock, an arrival at a later board
  // time) does not compete yet.
  // Which waiting tasks a question is about: those a given core may take (a task bound to
  // other emulated cores by its core mask does not compete for this one). Empty: all.
  using Fits = std::function<bool(const Contender&)>;

  // Best waiting task (among those that fit), or nullptr. Does not remove it.
  Contender* best(Nanos now, const Fits& fits = {}) const;
  // A waiting task (among those that fit) allowed to interrupt `running` (level
  // `running_level`), or nullptr.
  Contender* preemptor(const Contender& running, int running_level, Nanos now, const Fits& fits = {}) const;

  // The earliest wait start of the waiting tasks that fit (board clock: when an idle core
  // next has something to take), or nothing when none waits.
  std::optional<Nanos> earliest(const Fits& fits = {}) const;

  // Wait counter of `c` in ticks at `now`, as the hardware would report it.
  std::uint32_t wait_ticks(const Contender& c, Nanos now) const { return wait_ticks(c, now, now / config_.tick); }

  const ArbiterConfig& config() const { return config_; }

 private:
  // The same with `now / tick` precomputed: one division per decision, not per task.
  std::uint32_t wait_ticks(const Contender& c, Nanos now, Nanos now_tick) const;

  ArbiterConfig config_;
  std::vector<Contender*> waiting_;
};

}  // namespace svp::hal::softnpu
