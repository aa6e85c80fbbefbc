// The rows of a timeline, shared by trace.json and report.html: per device one track
// per stream (task bars) and per NPU core (operators, cores held by AI-CPU waits), one
// for AI-CPU operators run by application threads (core -1), and per host thread one
// track of API calls.
//
// A viewer draws the items of one track side by side, and Chrome's trace format cannot
// show slices that overlap without nesting. The format does not rule overlaps out (two
// application threads may run AI-CPU operators at once), so overlapping items go to
// extra "lanes" of the same track rather than being drawn on top of each other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "svp_prof/job.h"
#include "svp_prof/timeline.h"

namespace svp::prof {

enum class TrackKind { kStream, kCore, kAicpuHost, kApiThread };

struct Track {
  TrackKind kind = TrackKind::kStream;
  std::int64_t device = -1;  // -1 for API threads
  std::int64_t id = 0;       // stream, core or tid
  int lane = 0;              // 0, or the overlap lane
  std::string name;          // "stream 3", "core 0", "AI-CPU (host)", "API thread 4243"
};

enum class ItemKind {
  kTask,      // a started task's bar: Timeline::tasks[index], its runs and gaps
  kOp,        // Job::ops[index]
  kCoreHeld,  // Timeline::tasks[index].gaps[gap], an AI-CPU wait holding the core
  kApi,       // Job::api[index]
};

struct TrackItem {
  ItemKind kind = ItemKind::kTask;
  std::size_t index = 0;
  std::size_t gap = 0;
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
};

struct Layout {
  // Display order: devices ascending, each with its streams, cores and AI-CPU host
  // track; then the API threads.
  std::vector<Track> tracks;
  std::vector<std::vector<TrackItem>> items;  // per track, by begin time, not overlapping
  std::vector<std::int64_t> devices;          // the devices shown, ascending
};

Layout build_layout(const Job& job, const Timeline& timeline);

}  // namespace svp::prof
