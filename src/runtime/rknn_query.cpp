// rknn_query: the commands' answers from a context's attributes, memory and last run.
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runtime/rknn_ctx.h"

namespace svp::runtime::rknn {
namespace {

template <typename T>
int copy_struct(const char* fn, void* info, std::uint32_t size, const T& value, const char* what) {
  if (size < sizeof(T)) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("size {} is smaller than sizeof({}) = {}", size, what, sizeof(T)));
  }
  std::memcpy(info, &value, sizeof(T));
  return RKNN_SUCC;
}

// `current`: at the shapes selected now (RKNN_QUERY_CURRENT_*); otherwise the largest set's.
int query_attr(const char* fn, const std::vector<Io>& list, void* info, std::uint32_t size, const char* which,
               bool current = false) {
  if (size < sizeof(rknn_tensor_attr)) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("size {} is smaller than sizeof(rknn_tensor_attr) = {}", size, sizeof(rknn_tensor_attr)));
  }
  auto* attr = static_cast<rknn_tensor_attr*>(info);
  if (attr->index >= list.size()) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("{} index {} is out of range (the model has {} {}s)", which, attr->index, list.size(), which));
  }
  *attr = current ? list[attr->index].attr : list[attr->index].max_attr;
  return RKNN_SUCC;
}

int query_native(const char* fn, const Ctx& c, bool input, bool nhwc, void* info, std::uint32_t size,
                 bool current = false) {
  const std::vector<Io>& list = input ? c.inputs : c.outputs;
  const int r = query_attr(fn, list, info, size, input ? "input" : "output", current);
  if (r != RKNN_SUCC) return r;
  auto* attr = static_cast<rknn_tensor_attr*>(info);
  const Io& io = list[attr->index];
  *attr = native_attr(*attr, current ? io.desc.dims : io.max_dims, input, nhwc, *c.platform);
  return RKNN_SUCC;
}

std::string shape_text(const std::vector<std::int64_t>& dims) {
  return "(" + fmt::format("{}", fmt::join(dims, ",")) + ")";
}

// Where the performance queries' times come from: host time of this machine, or on the
// board clock (softnpu.clock "board") the board timing model's prediction for `soc`.
struct PerfTimes {
  const std::vector<std::uint64_t>* layer_ns = nullptr;
  std::uint64_t run_ns = 0;  // the run's time (host: its layers'; board: its segments')
  bool board = false;
  std::string soc;
};

// The board clock's target on `c`'s runtime ("" on the host clock).
std::string board_soc(const Ctx& c) {
  if (!c.rt || !c.rt->config().backend.board_clock) return "";
  const target::DeviceProfile* soc = target::find_profile(c.rt->config().backend.board_target);
  return soc != nullptr ? soc->name : target::default_profile().name;  // as Runtime::load_model falls back
}

PerfTimes perf_times(const Ctx& c) {
  PerfTimes t;
  if (c.last_board_time) {
    t.board = true;
    t.layer_ns = &c.last_board_time->layer_ns;
    t.run_ns = c.last_board_time->run_ns;
    t.soc = board_soc(c);
    return t;
  }
  t.layer_ns = c.last_layer_ns.get();
  for (std::uint64_t x : *t.layer_ns) t.run_ns += x;
  return t;
}

std::uint64_t round_us(std::uint64_t ns) { return (ns + 500) / 1000; }

// The board prints a per-layer table for RKNN_QUERY_PERF_DETAIL; this is the same table with
// the columns the software NPU can fill: each layer's time in the last run (host time, or the
// predicted board time on the board clock; no DDR/NPU cycles, MAC usage or bandwidth:
// docs/rknn.md).
std::string perf_table(const model::Program& p, const PerfTimes& times, const Ctx& c) {
  std::string t;
  const std::string rule(140, '-');
  t += rule + "\n";
  const std::string clock =
      times.board ? fmt::format("predicted board time on {} (board clock)", times.soc) : std::string("host time");
  t += fmt::format("{:^140}\n", fmt::format("Network Layer Information Table (svp-acl software NPU, {})", clock));
  // The cores the application chose (rknn_set_core_mask / rknn_set_batch_core_num): recorded;
  // the host time is one software core's, the board time a split run's share (1/n).
  t += fmt::format("{:^140}\n", fmt::format("{} ({} NPU cores), batch core num {}", core_mask_name(c.core_mask),
                                             c.platform->npu_cores, c.batch_core_num));
  t += rule + "\n";
  t += fmt::format("{:<5}{:<22}{:<9}{:<7}{:<36}{:<22}{:>10}  {}\n", "ID", "OpType", "DataType", "Target", "InputShape",
                   "OutputShape", "Time(us)", "FullName");
  t += rule + "\n";
  const std::vector<std::uint64_t>& layer_ns = *times.layer_ns;
  std::uint64_t total_ns = 0;
  for (std::size_t i = 0; i < p.layers.size(); ++i) {
    const model::Layer& l = p.layers[i];
    std::vector<std::string> ins;
    for (std::int32_t x : l.inputs) {
      if (x < 0 || p.tensors[static_cast<std::size_t>(x)].placement == model::Placement::kWeights) continue;
      ins.push_back(shape_text(p.tensors[static_cast<std::size_t>(x)].dims));
    }
    const model::Tensor& out = p.tensors[static_cast<std::size_t>(l.outputs.at(0))];
    const std::uint64_t ns = i < layer_ns.size() ? layer_ns[i] : 0;
    total_ns += ns;
    t += fmt::format("{:<5}{:<22}{:<9}{:<7}{:<36}{:<22}{:>10}  {}\n", i + 1, l.op, model::dtype_name(out.dtype),
                     l.target == model::Target::kAiCpu ? "CPU" : "NPU", ins.empty() ? "\\" : fmt::format("{}", fmt::join(ins, ",")),
                     shape_text(out.dims), round_us(ns), l.name);
  }
  t += rule + "\n";
  t += fmt::format("Total Operator Elapsed Per Frame Time(us): {}\n", round_us(total_ns));
  if (times.board) {
    // The run's board time beyond its layers': the per-task cost and the NPU <-> CPU switches
    // (docs/board_time.md), so that the layers and this line add up to RKNN_QUERY_PERF_RUN.
    const std::uint64_t other = times.run_ns > total_ns ? times.run_ns - total_ns : 0;
    t += fmt::format("Task and NPU/CPU Switch Time(us): {}\n", round_us(other));
    t += fmt::format(
        "Total Predicted Run Time(us): {} (RKNN_QUERY_PERF_RUN; predicted board time on {}, not measured)\n",
        round_us(times.run_ns), times.soc);
  }
  t += rule + "\n";
  return t;
}

int query_perf(const char* fn, Ctx& c, int cmd, void* info, std::uint32_t size) {
  if (!c.last_layer_ns) {
    return fail(fn, RKNN_ERR_FAIL, "no run has finished on this context yet: query the performance after rknn_run");
  }
  const PerfTimes times = perf_times(c);
  if (cmd == RKNN_QUERY_PERF_RUN) {
    rknn_perf_run r{};
    r.run_duration = static_cast<std::int64_t>(round_us(times.run_ns));
    return copy_struct(fn, info, size, r, "rknn_perf_run");
  }
  if ((c.flags & RKNN_FLAG_COLLECT_PERF_MASK) == 0) {
    return fail(fn, RKNN_ERR_FAIL, "per-layer times are collected only for a context created with "
                                   "RKNN_FLAG_COLLECT_PERF_MASK (rknn_init's flag)");
  }
  if (size < sizeof(rknn_perf_detail)) return copy_struct(fn, info, size, rknn_perf_detail{}, "rknn_perf_detail");
  auto loaded = c.rt->models().lookup(c.model->model_id);
  if (!loaded.ok()) return fail(fn, RKNN_ERR_CTX_INVALID, loaded.status().message());
  c.perf_text = perf_table(loaded->model->program_at(c.shape_sets[c.shape].gear), times, c);
  rknn_perf_detail d{};
  d.perf_data = c.perf_text.data();
  d.data_len = c.perf_text.size();
  return copy_struct(fn, info, size, d, "rknn_perf_detail");
}

// The model buffer the runtime holds, as Rockchip's runtime describes it on the platforms
// that answer this query (RV1106/RV1103; the RKNN C API reference's query list): the host
// has no dma-buf fd (-1) and no physical address (the host address stands in, as for
// rknn_create_mem).
int query_device_mem(const char* fn, const Ctx& c, void* info, std::uint32_t size) {
  const std::string_view soc = c.platform->name;
  if (soc != "RV1106") {
    return fail(fn, RKNN_ERR_FAIL,
                fmt::format("RKNN_QUERY_DEVICE_MEM_INFO is answered only for RV1106/RV1103 models, as Rockchip's "
                            "runtime answers it only there; this model is for {} (RKNN_QUERY_MEM_SIZE gives its "
                            "memory use)",
                            soc));
  }
  rknn_tensor_mem m{};
  m.virt_addr = c.model->image.data();
  m.phys_addr = reinterpret_cast<std::uintptr_t>(c.model->image.data());
  m.fd = -1;
  m.size = static_cast<std::uint32_t>(c.model->image.size());
  return copy_struct(fn, info, size, m, "rknn_tensor_mem");
}

}  // namespace

std::string board_clock_soc(Handle h) {
  Lookup l = find("rknn_query", h);
  if (!l.ctx) return "";
  CallScope call("rknn_query", *l.ctx);
  return board_soc(*l.ctx);
}

int query(Handle h, int cmd, void* info, std::uint32_t size) {
  static constexpr char fn[] = "rknn_query";
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  Ctx& c = *l.ctx;
  CallScope call(fn, c);
  switch (cmd) {
    case RKNN_QUERY_IN_OUT_NUM: {
      rknn_input_output_num n{};
      n.n_input = static_cast<std::uint32_t>(c.inputs.size());
      n.n_output = static_cast<std::uint32_t>(c.outputs.size());
      return copy_struct(fn, info, size, n, "rknn_input_output_num");
    }
    case RKNN_QUERY_INPUT_ATTR: return query_attr(fn, c.inputs, info, size, "input");
    case RKNN_QUERY_OUTPUT_ATTR: return query_attr(fn, c.outputs, info, size, "output");
    case RKNN_QUERY_SDK_VERSION: {
      rknn_sdk_version v{};
      // The API level served, and who serves it (the board reports its runtime build and
      // its kernel driver's version).
      std::snprintf(v.api_version, sizeof v.api_version, "2.3.2 (svp-acl)");
      std::snprintf(v.drv_version, sizeof v.drv_version, "svp-acl software NPU");
      return copy_struct(fn, info, size, v, "rknn_sdk_version");
    }
    case RKNN_QUERY_MEM_SIZE: {
      rknn_mem_size m{};
      m.total_weight_size = static_cast<std::uint32_t>(c.weights_bytes);
      m.total_internal_size = static_cast<std::uint32_t>(c.task_desc.size + c.work_desc.size);
      // Weights count where they are allocated: not in a context sharing another's, nor with
      // RKNN_FLAG_MEM_ALLOC_OUTSIDE (the application's rknn_set_weight_mem memory).
      m.total_dma_allocated_size = c.device_bytes + (owns_weight_allocation(c) ? c.weights_bytes : 0);
      return copy_struct(fn, info, size, m, "rknn_mem_size");
    }
    case RKNN_QUERY_CUSTOM_STRING: {
      rknn_custom_string s{};  // svp-acl models carry no custom string yet
      return copy_struct(fn, info, size, s, "rknn_custom_string");
    }
    case RKNN_QUERY_NATIVE_INPUT_ATTR: return query_native(fn, c, true, false, info, size);
    case RKNN_QUERY_NATIVE_OUTPUT_ATTR: return query_native(fn, c, false, false, info, size);
    case RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR: return query_native(fn, c, true, true, info, size);
    case RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR: return query_native(fn, c, false, true, info, size);
    case RKNN_QUERY_PERF_DETAIL:
    case RKNN_QUERY_PERF_RUN: return query_perf(fn, c, cmd, info, size);
    // The shapes rknn_set_input_shapes selected (before it: the largest set; a static
    // model's are its static ones).
    case RKNN_QUERY_CURRENT_INPUT_ATTR: return query_attr(fn, c.inputs, info, size, "input", true);
    case RKNN_QUERY_CURRENT_OUTPUT_ATTR: return query_attr(fn, c.outputs, info, size, "output", true);
    case RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR: return query_native(fn, c, true, false, info, size, true);
    case RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR: return query_native(fn, c, false, false, info, size, true);
    case RKNN_QUERY_INPUT_DYNAMIC_RANGE: return query_dynamic_range(fn, c, info, size);
    case RKNN_QUERY_DEVICE_MEM_INFO: return query_device_mem(fn, c, info, size);
    case RKNN_QUERY_SVP_NPU_LOAD: {
      rknn_svp_npu_load load{};
      if (const int r = npu_load(fn, c, &load); r != RKNN_SUCC) return r;
      return copy_struct(fn, info, size, load, "rknn_svp_npu_load");
    }
    default:
      return fail(fn, RKNN_ERR_PARAM_INVALID, fmt::format("cmd {} is not an rknn_query_cmd (0..{})", cmd,
                                                          static_cast<int>(RKNN_QUERY_CMD_MAX) - 1));
  }
}

}  // namespace svp::runtime::rknn
