#include "compiler/pipeline.h"

#include <chrono>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "compiler/aipp/insert_op_apply.h"
#include "compiler/graph_dot.h"
#include "compiler/onnx_export.h"
#include "compiler/passes/cancel_reshape.h"
#include "compiler/passes/cancel_transpose.h"
#include "compiler/passes/check_kernels.h"
#include "compiler/passes/fold_batchnorm.h"
#include "compiler/passes/fold_batchnorm_gemm.h"
#include "compiler/passes/fold_channel_affine.h"
#include "compiler/passes/fold_pad.h"
#include "compiler/passes/fuse_hardswish.h"
#include "compiler/passes/input_normalization.h"
#include "compiler/passes/io_types.h"
#include "compiler/passes/placement.h"
#include "compiler/passes/remove_identity.h"
#include "compiler/passes/segmentation.h"
#include "compiler/quantize/quantize_stages.h"

namespace svp::compiler {
namespace {

template <class P>
Status run_class(Graph& g, PassContext& ctx) {
  P pass;
  return pass.run(g, ctx);
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const std::string& x : v) out += (out.empty() ? "" : sep) + x;
  return out;
}

Status run_placement(Graph& g, PassContext& ctx) {
  const CompileOptions& o = *ctx.options;
  const PlacementReport place = place_nodes(g, *o.soc_version);
  SVP_RETURN_IF_ERROR(placement_error(place, *o.soc_version));
  ctx.log.push_back(fmt::format(
      "placement: NPU {} nodes ({} MACs), AI-CPU {} nodes ({} MACs){}, {} group(s){}{}", place.npu_nodes,
      place.npu_macs, place.aicpu_nodes, place.aicpu_macs,
      o.force_to_cpu.empty() ? std::string() : fmt::format(" ({} forced by --force_to_cpu)", o.force_to_cpu.size()),
      place.groups,
      place.moved_to_aicpu ? fmt::format(", {} cheap node(s) joined their AI-CPU neighbours", place.moved_to_aicpu)
                           : std::string(),
      place.cuts.empty() ? std::string() : "; cuts: " + join(place.cuts, ", ")));
  return Status::Ok();
}

Status run_segments(Graph& g, PassContext& ctx) {
  const SegmentReport seg = segment_by_cost(g, ctx.options->max_segment_macs);
  ctx.log.push_back(fmt::format("segments: {} (bound {} MACs); the longest, from \"{}\", {} MACs of {} in all",
                                seg.segments, ctx.options->max_segment_macs, seg.longest_first_node,
                                seg.longest_macs, seg.total_macs));
  return Status::Ok();
}

bool quantizes(const CompileOptions& o) { return quant::quantizes(o); }

// The rewrites between import and quantization may leave dead nodes and change the order.
constexpr unsigned kRewrite = kFactSorted;

}  // namespace

std::string fact_names(unsigned facts) {
  static const char* const names[] = {"imported",  "sorted",    "kernels", "calibration data",
                                      "calibrated", "quantized", "placed",  "segmented"};
  std::string out;
  for (unsigned i = 0; i < sizeof names / sizeof names[0]; ++i) {
    if (facts & (1u << i)) out += (out.empty() ? "" : ", ") + std::string(names[i]);
  }
  return out.empty() ? "nothing" : out;
}

const std::vector<PassInfo>& registered_passes() {
  static const std::vector<PassInfo> passes = {
      {"insert_op", "--insert_op_conf: AIPP in front of the inputs it names", kFactImported, 0, kRewrite,
       [](const CompileOptions& o) { return !o.insert_op_conf.empty(); },
       [](Graph& g, PassContext& c) { return aipp_conf::apply_insert_op_conf(*c.options, g, &c.log); }},
      // Before the rewrites, so that they leave the nodes the user placed alone.
      {"force_to_cpu", "--force_to_cpu: the named nodes run on the AI-CPU", kFactImported, 0, 0,
       [](const CompileOptions& o) { return !o.force_to_cpu.empty(); },
       [](Graph& g, PassContext& c) { return force_to_cpu(g, c.options->force_to_cpu); }},
      {"remove_identity", "Identity and inference Dropout read through", kFactImported, 0, kRewrite, nullptr,
       run_class<RemoveIdentityPass>},
      {"fold_pad", "a constant zero Pad into the Conv/pool after it", kFactImported, 0, kRewrite, nullptr,
       run_class<FoldPadPass>},
      // Runs twice: before fold_batchnorm for a bias written as an Add between a Conv and
      // its BN (paddle2onnx's ConvTranspose), after it for a Mul after the BN.
      {"fold_channel_affine", "per-channel constant Mul/Add into the Conv before it", kFactImported, 0, kRewrite,
       nullptr, run_class<FoldChannelAffinePass>},
      {"fold_batchnorm", "BatchNormalization into the Conv before it", kFactImported, 0, kRewrite, nullptr,
       run_class<FoldBatchNormPass>},
      {"fold_batchnorm_gemm", "BatchNormalization into the Gemm/MatMul before it", kFactImported, 0, kRewrite,
       nullptr, run_class<FoldBatchNormGemmPass>},
      {"fuse_hardswish", "x * HardSigmoid(x) as one HardSwish", kFactImported, 0, kRewrite, nullptr,
       run_class<FuseHardSwishPass>},
      {"cancel_transpose", "Transpose pairs that cancel", kFactImported, 0, kRewrite, nullptr,
       run_class<CancelTransposePass>},
      {"cancel_reshape", "Reshape chains that return to their input's shape", kFactImported, 0, kRewrite, nullptr,
       run_class<CancelReshapePass>},
      {"compact", "dead nodes dropped, nodes in topological order", kFactImported, kFactSorted, 0, nullptr,
       [](Graph& g, PassContext&) {
         g.compact();
         return g.topo_sort();
       }},
      {"input_normalization", "(x - mean) / std per channel after the inputs (rknn_convert's mean/std_values)",
       kFactSorted, 0, 0, [](const CompileOptions& o) { return !o.input_normalization.empty(); },
       [](Graph& g, PassContext& c) {
         SVP_RETURN_IF_ERROR(apply_input_normalization(g, *c.options));
         c.log.push_back(fmt::format("input_normalization: {} input(s)", c.options->input_normalization.size()));
         return Status::Ok();
       }},
      {"io_types", "--input_type/--output_type: the types the application exchanges", kFactSorted, 0, 0,
       [](const CompileOptions& o) { return !o.input_type.empty() || !o.output_type.empty(); },
       [](Graph& g, PassContext& c) {
         SVP_RETURN_IF_ERROR(apply_io_types(g, *c.options));
         c.log.push_back(fmt::format("io_types: {} input type(s) applied", c.options->input_type.size()));
         return Status::Ok();
       }},
      {"check_kernels", "every op has a kernel (NPU and AI-CPU run the same definitions)", kFactImported,
       kFactKernels, 0, nullptr, [](Graph& g, PassContext& c) {
         const bool rknn = c.options->soc_version != nullptr && c.options->soc_version->family == target::Family::kRknn;
         return check_kernels(g, rknn, quantizes(*c.options));
       }},
      {"load_calibration", "--image_list read against the graph's inputs; --high_precision_layer marked",
       kFactSorted, kFactCalibrationData, 0, quantizes, quant::load_calibration_pass},
      {"absorb_qdq", "A8W8: the model's QuantizeLinear/DequantizeLinear pairs become encodings",
       kFactSorted | kFactKernels, 0, 0,
       [](const CompileOptions& o) { return quantizes(o) && o.compile_mode == "0"; }, quant::absorb_qdq_pass},
      {"external_params", "--gfpq_param_file: encodings and weight scales resolved against the graph",
       kFactImported, 0, 0, [](const CompileOptions& o) { return quantizes(o) && !o.gfpq_param_file.empty(); },
       quant::external_params_pass},
      {"calibrate", "the float graph over the calibration data: every activation's encoding",
       kFactSorted | kFactKernels | kFactCalibrationData, kFactCalibrated, 0, quantizes, quant::calibrate_pass},
      {"quantize", "precisions, integer types, Quantize/DequantizeLinear at the edges, int8 weights",
       kFactSorted | kFactCalibrated, kFactQuantized, 0, quantizes, quant::quantize_pass},
      {"placement", "each node on the target's NPU or its AI-CPU (the device profile's op support)",
       kFactSorted | kFactKernels, kFactPlaced, 0, nullptr, run_placement},
      {"segments", "segments (the preemption unit) from the nodes' estimated cost", kFactSorted | kFactPlaced,
       kFactSegmented, 0, nullptr, run_segments},
      // After placement: the model outputs are predicted with the program the runtime runs,
      // AI-CPU layers included.
      {"layer_accuracy", "--accuracy_report: each layer of the quantized graph against the float one",
       kFactQuantized | kFactCalibrationData | kFactPlaced, 0, 0,
       [](const CompileOptions& o) { return quantizes(o) && o.accuracy_report; }, quant::layer_accuracy_pass},
  };
  return passes;
}

const PassInfo* find_pass(std::string_view name) {
  for (const PassInfo& p : registered_passes()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

const std::vector<std::string_view>& default_pipeline() {
  static const std::vector<std::string_view> names = {
      "insert_op",       "force_to_cpu",     "remove_identity", "fold_pad",       "fold_channel_affine",
      "fold_batchnorm",  "fold_batchnorm_gemm", "fold_channel_affine", "fuse_hardswish", "cancel_transpose",
      "cancel_reshape",  "compact",          "input_normalization", "io_types",        "check_kernels",  "load_calibration",
      "absorb_qdq",      "external_params",  "calibrate",       "quantize",       "placement",
      "segments",        "layer_accuracy"};
  return names;
}

Status dump_graph(const Graph& g, PassContext& ctx, const std::string& name) {
  if (ctx.options == nullptr || ctx.options->dump_graph.empty()) return Status::Ok();
  std::error_code ec;
  std::filesystem::create_directories(ctx.options->dump_graph, ec);
  const auto base = std::filesystem::path(ctx.options->dump_graph) / fmt::format("{:02d}_{}", ctx.dumped++, name);
  auto write = [](const std::filesystem::path& path, const std::string& text) -> Status {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) return Error(err::kWriteFile, "--dump_graph: cannot write {}", path.string());
    return Status::Ok();
  };
  SVP_RETURN_IF_ERROR(write(base.string() + ".dot", to_dot(g, name)));
  auto onnx = to_onnx(g, name);
  if (!onnx.ok()) return Error(onnx.status().code(), "--dump_graph: {}.onnx: {}", base.string(), onnx.status().message());
  return write(base.string() + ".onnx", *onnx);
}

Status run_pipeline(Graph& g, PassContext& ctx, const std::vector<std::string_view>& names, unsigned facts) {
  // The whole list is checked before anything runs.
  std::vector<const PassInfo*> run;
  unsigned have = facts;
  for (std::string_view name : names) {
    const PassInfo* p = find_pass(name);
    if (p == nullptr) return Error(err::kInternalError, "compiler pipeline: no pass is registered as \"{}\"", name);
    if (p->applies != nullptr && (ctx.options == nullptr || !p->applies(*ctx.options))) continue;
    if ((p->requires & ~have) != 0) {
      return Error(err::kInternalError,
                   "compiler pipeline: pass \"{}\" requires {} of the graph, which no pass before it guarantees "
                   "(the graph has: {})",
                   p->name, fact_names(p->requires & ~have), fact_names(have));
    }
    have = (have & ~p->invalidates) | p->guarantees;
    run.push_back(p);
  }
  for (const PassInfo* p : run) {
    const std::size_t before = g.live_node_count();
    const auto t0 = std::chrono::steady_clock::now();
    const Status st = p->run(g, ctx);
    if (!st.ok()) return st;
    ctx.log.push_back(fmt::format("{}: {} → {} nodes ({:.1f} ms)", p->name, before, g.live_node_count(),
                                  std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                                      .count()));
    SVP_RETURN_IF_ERROR(dump_graph(g, ctx, p->name));
  }
  return Status::Ok();
}

}  // namespace svp::compiler
