// trace.json: the Chrome trace event format (JSON object form), for ui.perfetto.dev and
// chrome://tracing.
//
// One process per device, one thread (track) per stream and per NPU core, "AI-CPU
// (host)" for AI-CPU operators run by application threads, and a "host API" process
// with one thread per API-calling thread. On stream tracks a task is a row of complete
// ("X") slices: its running parts, and between them "preempted" and "AI-CPU wait (core
// released/held)" slices, plus an instant event where it was preempted. Core tracks
// hold operator slices and "held by task N" slices for busy-waiting AI-CPU segments.
// Timestamps are microseconds since info.json start_ns.
#pragma once

#include <cstddef>
#include <filesystem>

#include "svp_prof/job.h"
#include "svp_prof/status.h"
#include "svp_prof/timeline.h"
#include "svp_prof/tracks.h"

namespace svp::prof {

struct TraceCounts {
  std::size_t events = 0;  // everything in traceEvents, metadata included
  std::size_t task_slices = 0;
  std::size_t gap_slices = 0;
  std::size_t op_slices = 0;
  std::size_t api_slices = 0;
};

Status write_chrome_trace(const std::filesystem::path& path, const Job& job, const Timeline& timeline,
                          const Layout& layout, TraceCounts* counts);

}  // namespace svp::prof
