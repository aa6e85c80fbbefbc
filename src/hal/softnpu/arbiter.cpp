#include "hal/softnpu/arbiter.h"

#include <algorithm>

namespace svp::hal::softnpu {
namespace {

constexpr Nanos kNsPerMs = 1'000'000;

// The promotion period in force for a task, or 0 when it is never promoted.
Nanos promotion_period(const TaskSettings& s, int start_level) {
  if (start_level == 0) return 0;  // priority 0 is never promoted
  if (s.step_timeout_ms != 0) return Nanos{s.step_timeout_ms} * kNsPerMs;
  if (s.top_timeout_ms != 0) return Nanos{s.top_timeout_ms} * kNsPerMs;
  return 0;
}

}  // namespace

int Contender::level_at(Nanos now) const {
  const Nanos period = promotion_period(settings, level);
  if (period == 0 || now < wait_start) return level;
  const Nanos steps = (now - wait_start) / period;
  if (steps == 0) return level;
  if (settings.step_timeout_ms != 0) {
    return steps >= static_cast<Nanos>(level) ? 0 : level - static_cast<int>(steps);
  }
  return 0;  // TOP: straight to the highest level
}

Nanos Contender::wait_reset_at(Nanos now) const {
  const Nanos period = promotion_period(settings, level);
  if (period == 0 || now < wait_start) return wait_start;
  // The hardware clears the wait counter at every promotion timeout, also once the task
  // has reached level 0 (guide §8.6: such tasks remain subject to the timeout).
  return wait_start + (now - wait_start) / period * period;
}

void Arbiter::add(Contender* c, int level, Nanos now) {
  c->level = level;
  c->wait_start = now;
  c->start_tick = now / config_.tick;
  waiting_.push_back(c);
}

void Arbiter::remove(Contender* c) {
  auto it = std::find(waiting_.begin(), waiting_.end(), c);
  if (it != waiting_.end()) waiting_.erase(it);
}

std::uint32_t Arbiter::wait_ticks(const Contender& c, Nanos now, Nanos now_tick) const {
  // The counter advances on a global tick grid: a task counts the tick boundaries it
  // has seen since its wait (re)started. Two tasks issued less than a tick apart can
  // therefore report the same wait, as the guide warns.
  const Nanos reset_tick = c.promotes() ? c.wait_reset_at(now) / config_.tick : c.start_tick;
  if (now_tick <= reset_tick) return 0;
  return static_cast<std::uint32_t>(std::min<Nanos>(now_tick - reset_tick, config_.cap_ticks));
}

Contender* Arbiter::best(Nanos now, const Fits& fits) const {
  Contender* best = nullptr;
  int best_level = 0;
  std::uint32_t best_ticks = 0;
  const Nanos now_tick = now / config_.tick;
  for (Contender* c : waiting_) {
    if (c->wait_start > now) continue;  // arrives later (board clock: a future release)
    if (fits && !fits(*c)) continue;
    const int level = c->promotes() ? c->level_at(now) : c->level;
    const std::uint32_t ticks = wait_ticks(*c, now, now_tick);
    const bool better = best == nullptr || level < best_level ||
                        (level == best_level && (ticks > best_ticks ||
                                                 (ticks == best_ticks && c->sq < best->sq)));
    if (better) {
      best = c;
      best_level = level;
      best_ticks = ticks;
    }
  }
  return best;
}

std::optional<Nanos> Arbiter::earliest(const Fits& fits) const {
  std::optional<Nanos> t;
  for (const Contender* c : waiting_) {
    if (fits && !fits(*c)) continue;
    if (!t || c->wait_start < *t) t = c->wait_start;
  }
  return t;
}

Contender* Arbiter::preemptor(const Contender& running, int running_level, Nanos now, const Fits& fits) const {
  if (!running.settings.preemptible) return nullptr;
  // Any waiting task of strictly higher priority whose model may preempt raises the
  // request; the core it frees then goes to the best waiting task by the usual rules.
  for (Contender* c : waiting_) {
    if (c->wait_start <= now && c->settings.preempt_enable && c->level_at(now) < running_level &&
        (!fits || fits(*c))) {
      return c;
    }
  }
  return nullptr;
}

}  // namespace svp::hal::softnpu
