#include "svp_prof/tracks.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <tuple>
#include <utility>

namespace svp::prof {
namespace {

// Logical track before lanes: (device, kind, id) orders devices, then streams before
// cores before the AI-CPU host track, then ids.
using TrackKey = std::tuple<std::int64_t, TrackKind, std::int64_t>;

constexpr std::int64_t kMaxIdleCoreRows = 64;
constexpr std::size_t kMaxLanes = 16;

std::string track_name(TrackKind kind, std::int64_t id, int lane) {
  std::string name;
  switch (kind) {
    case TrackKind::kStream:
      name = "stream " + std::to_string(id);
      break;
    case TrackKind::kCore:
      name = "core " + std::to_string(id);
      break;
    case TrackKind::kAicpuHost:
      name = "AI-CPU (host)";
      break;
    case TrackKind::kApiThread:
      name = "API thread " + std::to_string(id);
      break;
  }
  if (lane > 0) name += " (overlap " + std::to_string(lane) + ")";
  return name;
}

}  // namespace

Layout build_layout(const Job& job, const Timeline& timeline) {
  std::map<TrackKey, std::vector<TrackItem>> logical;
  std::set<std::int64_t> devices;
  for (const DeviceInfo& d : job.info.devices) {
    devices.insert(d.id);
    // Every core gets a row, idle or not: an idle core is worth seeing. (A header
    // claiming millions of cores gets rows only for the first ones and those with data.)
    for (std::int64_t c = 0; c < std::min(d.cores, kMaxIdleCoreRows); ++c) logical[{d.id, TrackKind::kCore, c}];
  }

  for (std::size_t i = 0; i < timeline.tasks.size(); ++i) {
    const Task& t = timeline.tasks[i];
    devices.insert(t.device);
    auto& stream = logical[{t.device, TrackKind::kStream, t.stream}];
    if (t.start_ns) {
      stream.push_back({ItemKind::kTask, i, 0, *t.start_ns, std::max(*t.start_ns, t.bar_end_ns(timeline.end_ns))});
    }
    for (std::size_t g = 0; g < t.gaps.size(); ++g) {
      const TaskGap& gap = t.gaps[g];
      if (gap.kind != GapKind::kAicpuHeld) continue;
      logical[{t.device, TrackKind::kCore, gap.core}].push_back({ItemKind::kCoreHeld, i, g, gap.begin_ns, gap.end_ns});
    }
  }
  for (std::size_t i = 0; i < job.ops.size(); ++i) {
    const OpRecord& o = job.ops[i];
    devices.insert(o.device);
    const TrackKey key =
        o.core < 0 ? TrackKey{o.device, TrackKind::kAicpuHost, -1} : TrackKey{o.device, TrackKind::kCore, o.core};
    logical[key].push_back({ItemKind::kOp, i, 0, o.start_ns, o.end_ns});
  }
  // API threads sort after every device.
  constexpr std::int64_t kApiDevice = std::numeric_limits<std::int64_t>::max();
  for (std::size_t i = 0; i < job.api.size(); ++i) {
    const ApiRecord& a = job.api[i];
    logical[{kApiDevice, TrackKind::kApiThread, a.tid}].push_back({ItemKind::kApi, i, 0, a.start_ns, a.end_ns});
  }

  Layout layout;
  layout.devices.assign(devices.begin(), devices.end());
  for (auto& [key, items] : logical) {
    std::stable_sort(items.begin(), items.end(), [](const TrackItem& a, const TrackItem& b) {
      return std::tie(a.begin_ns, a.end_ns) < std::tie(b.begin_ns, b.end_ns);
    });
    // Greedy lane assignment: each item goes to the lowest lane free by its begin, or a
    // new lane. Beyond kMaxLanes, items share the lane that frees first, overlapping:
    // data that broken cannot be drawn usefully anyway, and a million rows would be worse.
    using LaneEnd = std::pair<std::int64_t, std::size_t>;  // (end of its last item, lane)
    std::priority_queue<LaneEnd, std::vector<LaneEnd>, std::greater<LaneEnd>> busy;
    std::set<std::size_t> free_lanes;
    std::vector<std::vector<TrackItem>> lanes;
    std::vector<std::int64_t> lane_end;
    for (const TrackItem& item : items) {
      while (!busy.empty() && busy.top().first <= item.begin_ns) {
        free_lanes.insert(busy.top().second);
        busy.pop();
      }
      std::size_t lane;
      if (!free_lanes.empty()) {
        lane = *free_lanes.begin();
        free_lanes.erase(free_lanes.begin());
      } else if (lanes.size() < kMaxLanes) {
        lane = lanes.size();
        lanes.emplace_back();
        lane_end.push_back(item.end_ns);
      } else {
        lane = busy.top().second;
        busy.pop();
      }
      lane_end[lane] = std::max(lane_end[lane], item.end_ns);
      busy.push({lane_end[lane], lane});
      lanes[lane].push_back(item);
    }
    if (lanes.empty()) lanes.emplace_back();  // an idle core still gets its row
    const auto [device, kind, id] = key;
    for (std::size_t lane = 0; lane < lanes.size(); ++lane) {
      Track track;
      track.kind = kind;
      track.device = kind == TrackKind::kApiThread ? -1 : device;
      track.id = id;
      track.lane = static_cast<int>(lane);
      track.name = track_name(kind, id, track.lane);
      layout.tracks.push_back(std::move(track));
      layout.items.push_back(std::move(lanes[lane]));
    }
  }
  return layout;
}

}  // namespace svp::prof
