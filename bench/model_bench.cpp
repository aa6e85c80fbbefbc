// Model benchmarks: ResNet-18- and MobileNetV2-shaped networks (tools/netzoo, random
// weights), batch 1, 224×224, float32 and int8, 1 and 2 kernel threads.
//
// Figures, each with the same network executed directly with oneDNN primitives as the
// floor (DirectNet below: NHWC, primitives created once, the same fusions, in-place
// residual sums; no layout conversions, no per-layer dispatch), measured interleaved in
// the same run:
//   .prog  CompiledProgram::run_layer for every layer (the kernels' own overhead: NCHW ↔
//          NHWC at the model boundary, reference layers, per-call memory objects);
//   .api   svp_acl_mdl_execute through the public C API (dataset checks, strided I/O
//          copies, task submission to the software NPU, segment scheduling);
//   load   svp_acl_mdl_load_from_mem + unload of ResNet-18 (target ≤ 50 ms).
// Target: P50 ratio to the direct time ≤ 1.10. Reported, never asserted; the exit status
// reflects API errors and output mismatches only (int8: CompiledProgram and the C API must
// produce the same bytes).
//
//   model_bench [--quick] [--filter=ID] [--threads=N] [--segment-every=N]
//   (threads default: 1 and 2; segments default: one per layer, the builder's default)
#include <omp.h>

#include <unistd.h>

#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>

#include "acl/svp_acl.h"
#include "acl/svp_acl_mdl.h"
#include "harness.h"
#include "kernel_runner.h"
#include "kernels/compiled_program.h"
#include "netzoo/networks.h"

namespace {

using namespace svp;
using bench::Report;
using bench::Row;
using model::DType;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

int g_errors = 0;
bool g_layers = false;  // --layers: per-layer-kind time breakdown
std::size_t g_segment_every = 0;  // --segment-every=N: netzoo segment grouping

void fail(const std::string& what) {
  std::fprintf(stderr, "ERROR: %s\n", what.c_str());
  ++g_errors;
}

// ---------------------------------------------------------------------------------------
// The floor: the network as a plain list of oneDNN primitives.
class DirectNet {
 public:
  DirectNet(const compiler::BuiltModel& m, int threads) : m_(m), eng_(dnnl::engine::kind::cpu, 0), stream_(eng_) {
    omp_set_num_threads(threads);
    const model::Program& p = m.program;
    readers_.assign(p.tensors.size(), {});
    for (std::size_t i = 0; i < p.layers.size(); ++i)
      for (std::int32_t t : p.layers[i].inputs)
        if (t >= 0) readers_[static_cast<std::size_t>(t)].push_back(i);
    for (std::size_t i = 0; i < p.layers.size(); ++i) {
      if (done_.count(i)) continue;
      const model::Layer& l = p.layers[i];
      if (l.op == "Conv") {
        conv(i);
      } else if (l.op == "Relu" || l.op == "Clip") {
        eltwise(l);
      } else if (l.op == "Add") {
        add(i);
      } else if (l.op == "MaxPool" || l.op == "GlobalAveragePool") {
        pool(l);
      } else if (l.op == "Flatten") {
        // [N, C, 1, 1] NHWC is [N, C] already: share the memory.
        const model::Tensor& y = tensor(l.outputs[0]);
        mem_[l.outputs[0]] = dnnl::memory({{y.dims[0], y.dims[1]}, type(y.dtype), tag::nc}, eng_,
                                          memory(l.inputs[0]).get_data_handle());
      } else if (l.op == "Gemm") {
        gemm(l);
      } else {
        throw std::runtime_error("DirectNet: no support for " + l.op);
      }
    }
  }

  void* input() { return memory(m_.program.input_tensors()[0]).get_data_handle(); }
  const void* output() { return memory(m_.program.output_tensors()[0]).get_data_handle(); }

  void run() {
    for (auto& s : steps_) s.first.execute(stream_, s.second);
    stream_.wait();
  }
  // Time per primitive (ns, summed into `out` by oneDNN primitive kind), for --layers.
  void run_timed(std::map<std::string, double>& out, std::vector<double>* conv_ns = nullptr) {
    std::size_t ci = 0;
    for (auto& s : steps_) {
      const std::int64_t a = bench::now_ns();
      s.first.execute(stream_, s.second);
      stream_.wait();
      const auto kind = s.first.get_kind();
      if (conv_ns && kind == dnnl::primitive::kind::convolution) {
        if (conv_ns->size() <= ci) conv_ns->resize(ci + 1);
        (*conv_ns)[ci++] += static_cast<double>(bench::now_ns() - a);
      }
      out[kind == dnnl::primitive::kind::convolution ? "conv" : kind == dnnl::primitive::kind::binary ? "binary"
          : kind == dnnl::primitive::kind::pooling_v2 || kind == dnnl::primitive::kind::pooling ? "pool" : "other"] +=
          static_cast<double>(bench::now_ns() - a);
    }
  }

 private:
  const model::Tensor& tensor(std::int32_t t) const { return m_.program.tensors[static_cast<std::size_t>(t)]; }
  static dt type(DType d) { return d == DType::kFloat32 ? dt::f32 : d == DType::kInt8 ? dt::s8 : d == DType::kUint8 ? dt::u8 : dt::s32; }
  dnnl::memory::desc md(std::int32_t t) const {
    const model::Tensor& x = tensor(t);
    dnnl::memory::dims d(x.dims.begin(), x.dims.end());
    return {d, type(x.dtype), d.size() == 4 ? tag::nhwc : d.size() == 2 ? tag::nc : tag::a};
  }
  dnnl::memory& memory(std::int32_t t) {
    auto it = mem_.find(t);
    if (it == mem_.end()) it = mem_.emplace(t, dnnl::memory(md(t), eng_)).first;
    return it->second;
  }
  const void* weights(std::int32_t t) const { return m_.weights.data() + tensor(t).offset; }
  dnnl::memory reordered(const dnnl::memory::desc& want, dnnl::memory::desc user, std::int32_t t) {
    dnnl::memory src(user, eng_, const_cast<void*>(weights(t)));
    dnnl::memory dst(want, eng_);
    dnnl::reorder(src, dst).execute(stream_, src, dst);
    stream_.wait();
    return dst;
  }
  // Per-channel output scales of an integer op: s_x · s_w[c] / s_y (s_y = 1 for float out).
  std::vector<float> scales(std::int32_t x, std::int32_t w, std::int32_t y, std::int64_t channels) const {
    std::vector<float> s;
    for (std::int64_t c = 0; c < channels; ++c) {
      const auto& wq = tensor(w).quant.scale;
      float v = tensor(x).quant.scale[0] * wq[wq.size() == 1 ? 0 : static_cast<std::size_t>(c)];
      if (tensor(y).dtype != DType::kFloat32) v /= tensor(y).quant.scale[0];
      s.push_back(v);
    }
    return s;
  }
  bool only_reader(std::int32_t t, std::size_t layer) const {
    const auto& r = readers_[static_cast<std::size_t>(t)];
    return r.size() == 1 && r[0] == layer && tensor(t).placement == model::Placement::kWorkBuf;
  }

  void conv(std::size_t i) {
    const model::Program& p = m_.program;
    const model::Layer& l = p.layers[i];
    const std::int32_t x = l.inputs[0], w = l.inputs[1], b = l.inputs[2], t = l.outputs[0];
    const bool fp32 = tensor(x).dtype == DType::kFloat32;
    const auto& wd = tensor(w).dims;
    const std::int64_t g = l.attrs.get_int("group", 1).value();
    const auto strides = l.attrs.get_ints("strides", {1, 1}).value();
    const auto pads = l.attrs.get_ints("pads", {0, 0, 0, 0}).value();
    dnnl::post_ops po;
    std::int32_t dst = t;
    // Same fusions as the fast paths: [Add (float)] then Relu/Clip.
    std::size_t j = i + 1;
    if (fp32 && j < p.layers.size() && p.layers[j].op == "Add" && only_reader(t, j)) {
      const model::Layer& a = p.layers[j];
      const std::int32_t u = a.inputs[0] == t ? a.inputs[1] : a.inputs[0];
      // In place: the Add writes over its other operand when nothing reads it later.
      const auto& ur = readers_[static_cast<std::size_t>(u)];
      if (std::all_of(ur.begin(), ur.end(), [&](std::size_t r) { return r <= j; })) {
        po.append_sum(1.f);
        mem_[a.outputs[0]] = memory(u);
        dst = a.outputs[0];
        done_.insert(j++);
      }
    }
    if (j < p.layers.size() && only_reader(dst, j) &&
        (p.layers[j].op == "Relu" || (fp32 && p.layers[j].op == "Clip"))) {
      const model::Layer& e = p.layers[j];
      if (e.op == "Relu") {
        po.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
      } else {
        po.append_eltwise(1.f, dnnl::algorithm::eltwise_clip_v2, static_cast<float>(e.attrs.get_float("min", 0).value()),
                          static_cast<float>(e.attrs.get_float("max", 6).value()));
      }
      if (dst != t) mem_[e.outputs[0]] = memory(dst);
      dst = e.outputs[0];
      done_.insert(j);
    }
    dnnl::memory::dims wdims = g > 1 ? dnnl::memory::dims{g, wd[0] / g, wd[1], wd[2], wd[3]}
                                     : dnnl::memory::dims{wd[0], wd[1], wd[2], wd[3]};
    const dt wdt = type(tensor(w).dtype), bdt = type(tensor(b).dtype);
    const auto& yd = tensor(t).dims;
    dnnl::memory::desc dst_md({yd[0], yd[1], yd[2], yd[3]}, type(tensor(t).dtype), tag::nhwc);
    dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, md(x),
                                      dnnl::memory::desc(wdims, wdt, tag::any), dnnl::memory::desc({wd[0]}, bdt, tag::a),
                                      dst_md, {strides[0], strides[1]}, {pads[0], pads[1]}, {pads[2], pads[3]});
    dnnl::primitive_attr attr;
    if (!fp32) attr.set_output_scales(1 << 1, scales(x, w, t, wd[0]));
    attr.set_post_ops(po);
    dnnl::convolution_forward::primitive_desc pd(d, attr, eng_);
    dnnl::memory wm = reordered(pd.weights_desc(), {wdims, wdt, g > 1 ? tag::goihw : tag::oihw}, w);
    dnnl::memory bm({{wd[0]}, bdt, tag::a}, eng_, const_cast<void*>(weights(b)));
    dnnl::memory& out = memory(dst);
    steps_.push_back({dnnl::convolution_forward(pd),
                      {{DNNL_ARG_SRC, memory(x)}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_BIAS, bm}, {DNNL_ARG_DST, out}}});
  }

  void eltwise(const model::Layer& l) {
    const std::int32_t x = l.inputs[0];
    dnnl::algorithm alg = l.op == "Relu" ? dnnl::algorithm::eltwise_relu : dnnl::algorithm::eltwise_clip_v2;
    float lo = 0, hi = 0;
    if (l.op == "Clip") {
      lo = static_cast<float>(l.attrs.get_float("min", 0).value());
      hi = static_cast<float>(l.attrs.get_float("max", 6).value());
    }
    dnnl::eltwise_forward::primitive_desc pd({dnnl::prop_kind::forward_inference, alg, md(x), lo, hi}, eng_);
    steps_.push_back({dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, memory(x)}, {DNNL_ARG_DST, memory(l.outputs[0])}}});
  }

  // A standalone Add (integer residuals; float ones are fused) with a following Relu.
  void add(std::size_t i) {
    const model::Program& p = m_.program;
    const model::Layer& l = p.layers[i];
    const std::int32_t a = l.inputs[0], b = l.inputs[1];
    std::int32_t y = l.outputs[0];
    dnnl::primitive_attr attr;
    if (!tensor(y).quant.empty()) {
      attr.set_scales(DNNL_ARG_SRC_0, 0, {tensor(a).quant.scale[0] / tensor(y).quant.scale[0]});
      attr.set_scales(DNNL_ARG_SRC_1, 0, {tensor(b).quant.scale[0] / tensor(y).quant.scale[0]});
    }
    if (i + 1 < p.layers.size() && p.layers[i + 1].op == "Relu" && only_reader(y, i + 1)) {
      dnnl::post_ops po;
      po.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
      attr.set_post_ops(po);
      y = p.layers[i + 1].outputs[0];
      done_.insert(i + 1);
    }
    dnnl::binary::primitive_desc pd({dnnl::algorithm::binary_add, md(a), md(b), md(y)}, attr, eng_);
    steps_.push_back(
        {dnnl::binary(pd), {{DNNL_ARG_SRC_0, memory(a)}, {DNNL_ARG_SRC_1, memory(b)}, {DNNL_ARG_DST, memory(y)}}});
  }

  void pool(const model::Layer& l) {
    const std::int32_t x = l.inputs[0], y = l.outputs[0];
    const auto& xd = tensor(x).dims;
    dnnl::memory::dims k{xd[2], xd[3]}, s{1, 1}, pl{0, 0}, pr{0, 0};
    dnnl::algorithm alg = dnnl::algorithm::pooling_avg_exclude_padding;
    if (l.op == "MaxPool") {
      alg = dnnl::algorithm::pooling_max;
      const auto ks = l.attrs.get_ints("kernel_shape", {}).value();
      const auto st = l.attrs.get_ints("strides", {1, 1}).value();
      const auto pd = l.attrs.get_ints("pads", {0, 0, 0, 0}).value();
      k = {ks[0], ks[1]};
      s = {st[0], st[1]};
      pl = {pd[0], pd[1]};
      pr = {pd[2], pd[3]};
    }
    dnnl::pooling_forward::primitive_desc pd({dnnl::prop_kind::forward_inference, alg, md(x), md(y), s, k, pl, pr},
                                             eng_);
    steps_.push_back({dnnl::pooling_forward(pd), {{DNNL_ARG_SRC, memory(x)}, {DNNL_ARG_DST, memory(y)}}});
  }

  void gemm(const model::Layer& l) {
    const std::int32_t a = l.inputs[0], w = l.inputs[1], b = l.inputs[2], y = l.outputs[0];
    const auto& wd = tensor(w).dims;  // [N, K], transB = 1
    const dt wdt = type(tensor(w).dtype), bdt = type(tensor(b).dtype);
    dnnl::inner_product_forward::desc d(dnnl::prop_kind::forward_inference, md(a),
                                        dnnl::memory::desc({wd[0], wd[1]}, wdt, tag::any),
                                        dnnl::memory::desc({wd[0]}, bdt, tag::a), md(y));
    dnnl::primitive_attr attr;
    if (tensor(a).dtype != DType::kFloat32) attr.set_output_scales(1 << 1, scales(a, w, y, wd[0]));
    dnnl::inner_product_forward::primitive_desc pd(d, attr, eng_);
    dnnl::memory wm = reordered(pd.weights_desc(), {{wd[0], wd[1]}, wdt, tag::oi}, w);
    dnnl::memory bm({{wd[0]}, bdt, tag::a}, eng_, const_cast<void*>(weights(b)));
    steps_.push_back({dnnl::inner_product_forward(pd),
                      {{DNNL_ARG_SRC, memory(a)}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_BIAS, bm}, {DNNL_ARG_DST, memory(y)}}});
  }

  const compiler::BuiltModel& m_;
  dnnl::engine eng_;
  dnnl::stream stream_;
  std::map<std::int32_t, dnnl::memory> mem_;
  std::vector<std::vector<std::size_t>> readers_;
  std::set<std::size_t> done_;
  std::vector<std::pair<dnnl::primitive, std::unordered_map<int, dnnl::memory>>> steps_;
};

// ---------------------------------------------------------------------------------------
// The model through the public C API: loaded model and datasets (spec §2.2: data inputs,
// task_buf, work_buf; outputs), buffers from svp_acl_rt_malloc with the default strides.
class ApiModel {
 public:
  explicit ApiModel(const std::vector<std::uint8_t>& image) {
    check(svp_acl_mdl_load_from_mem(image.data(), image.size(), &id_), "load_from_mem");
    desc_ = svp_acl_mdl_create_desc();
    check(svp_acl_mdl_get_desc(desc_, id_), "get_desc");
    in_ = svp_acl_mdl_create_dataset();
    out_ = svp_acl_mdl_create_dataset();
    for (size_t i = 0; i < svp_acl_mdl_get_num_inputs(desc_); ++i)
      add(in_, svp_acl_mdl_get_input_size_by_index(desc_, i), svp_acl_mdl_get_input_default_stride(desc_, i));
    for (size_t i = 0; i < svp_acl_mdl_get_num_outputs(desc_); ++i)
      add(out_, svp_acl_mdl_get_output_size_by_index(desc_, i), svp_acl_mdl_get_output_default_stride(desc_, i));
  }
  ~ApiModel() {
    for (svp_acl_data_buffer* b : buffers_) svp_acl_destroy_data_buffer(b);
    for (void* p : memory_) svp_acl_rt_free(p);
    svp_acl_mdl_destroy_dataset(in_);
    svp_acl_mdl_destroy_dataset(out_);
    svp_acl_mdl_destroy_desc(desc_);
    svp_acl_mdl_unload(id_);
  }
  void execute() { check(svp_acl_mdl_execute(id_, in_, out_), "execute"); }
  // Dense rows ↔ the strided buffers (the last dim is the row).
  void set_input(const void* dense, std::size_t row_bytes, std::size_t rows) { copy(in_, 0, dense, row_bytes, rows, true); }
  std::vector<std::uint8_t> output(std::size_t row_bytes, std::size_t rows) {
    std::vector<std::uint8_t> v(row_bytes * rows);
    copy(out_, 0, v.data(), row_bytes, rows, false);
    return v;
  }

 private:
  static void check(svp_acl_error e, const char* what) {
    if (e != SVP_ACL_SUCCESS) fail(std::string(what) + ": " + svp_acl_get_recent_err_msg());
  }
  void add(svp_acl_mdl_dataset* ds, size_t size, size_t stride) {
    void* p = nullptr;
    check(svp_acl_rt_malloc(&p, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY), "rt_malloc");
    std::memset(p, 0, size);
    memory_.push_back(p);
    buffers_.push_back(svp_acl_create_data_buffer(p, size, stride));
    check(svp_acl_mdl_add_dataset_buffer(ds, buffers_.back()), "add_dataset_buffer");
  }
  void copy(svp_acl_mdl_dataset* ds, size_t i, const void* dense, size_t rb, size_t rows, bool in) {
    svp_acl_data_buffer* b = svp_acl_mdl_get_dataset_buffer(ds, i);
    const size_t stride = svp_acl_get_data_buffer_stride(b);
    auto* base = static_cast<std::uint8_t*>(svp_acl_get_data_buffer_addr(b));
    for (size_t r = 0; r < rows; ++r) {
      if (in) {
        std::memcpy(base + r * stride, static_cast<const std::uint8_t*>(dense) + r * rb, rb);
      } else {
        std::memcpy(static_cast<std::uint8_t*>(const_cast<void*>(dense)) + r * rb, base + r * stride, rb);
      }
    }
  }

  uint32_t id_ = 0;
  svp_acl_mdl_desc* desc_ = nullptr;
  svp_acl_mdl_dataset* in_ = nullptr;
  svp_acl_mdl_dataset* out_ = nullptr;
  std::vector<void*> memory_;
  std::vector<svp_acl_data_buffer*> buffers_;
};

// ---------------------------------------------------------------------------------------
struct NetCase {
  const char* id;
  const char* name;
  Result<compiler::BuiltModel> (*build)(const netzoo::NetOptions&);
  DType dtype;
};

void bench_net(const bench::Options& opt, Report& report, const NetCase& nc, int threads) {
  const std::string id = std::string(nc.id) + ".t" + std::to_string(threads);
  if (!opt.wants(id)) return;
  netzoo::NetOptions no;
  no.dtype = nc.dtype;
  no.segment_every = g_segment_every;
  const std::int64_t t0 = bench::now_ns();
  auto built = nc.build(no);
  if (!built.ok()) return fail(built.status().message());
  const compiler::BuiltModel& m = built.value();
  std::printf("%s: built in %.0f ms (%zu layers, weights %.1f MB)\n", id.c_str(), (bench::now_ns() - t0) / 1e6,
              m.program.layers.size(), static_cast<double>(m.weights.size()) / 1e6);

  // Input: random values in the model's element type, dense NCHW.
  const std::int32_t in_t = m.program.input_tensors()[0];
  const model::Tensor& in = m.program.tensors[static_cast<std::size_t>(in_t)];
  testing::Bytes x(in.size);
  testing::fill_random(x, in.dtype, 7);

  DirectNet direct(m, threads);
  {
    // The direct net reads NHWC: convert once, outside the timing.
    std::vector<std::uint8_t> nhwc(in.size);
    const std::size_t e = model::dtype_size(in.dtype);
    const std::int64_t C = in.dims[1], HW = in.dims[2] * in.dims[3];
    for (std::int64_t c = 0; c < C; ++c)
      for (std::int64_t s = 0; s < HW; ++s)
        std::memcpy(&nhwc[static_cast<std::size_t>((s * C + c)) * e], &x[static_cast<std::size_t>(c * HW + s) * e], e);
    std::memcpy(direct.input(), nhwc.data(), nhwc.size());
  }
  std::unique_ptr<kernels::CompiledProgram> prog;
  try {
    prog = testing::compile(m, true, threads);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  testing::Execution exec(m);
  exec.io(in_t) = x;
  ApiModel api(m.image);
  const std::size_t row = static_cast<std::size_t>(in.dims.back()) * model::dtype_size(in.dtype);
  api.set_input(x.data(), row, in.size / row);

  bench::Samples s_direct, s_prog, s_api;
  const std::size_t rounds = opt.n(20, 2);
  const std::size_t warm = opt.n(3, 1);
  auto time = [](auto&& f) {
    const std::int64_t a = bench::now_ns();
    f();
    return bench::now_ns() - a;
  };
  for (std::size_t i = 0; i < warm; ++i) {
    direct.run();
    (void)exec.run(*prog);
    api.execute();
  }
  omp_set_num_threads(threads);  // the direct runner runs on this thread's ICV
  // Each chunk runs a short block and keeps all but its first sample: with 2 threads every
  // runner has its own OpenMP team (this thread's, the NPU core thread's), and an idle
  // team's worker keeps spinning for a few ms after its last parallel region (libgomp's
  // default wait policy), stealing a CPU from the next runner on a 2-CPU machine.
  const std::size_t block = 3;
  auto chunk = [&](bench::Samples& out, auto&& f) {
    for (std::size_t k = 0; k < block; ++k) {
      const std::int64_t ns = time(f);
      if (k > 0) out.add(ns);
    }
  };
  bench::interleave(rounds, {[&] { chunk(s_direct, [&] { direct.run(); }); },
                             [&] {
                               chunk(s_prog, [&] {
                                 Status st = exec.run(*prog);
                                 if (!st.ok()) fail(st.message());
                               });
                             },
                             [&] { chunk(s_api, [&] { api.execute(); }); }});
  if (g_layers) {
    // Where the time goes: CompiledProgram per op/impl vs the direct primitives per kind.
    std::map<std::string, double> prog_t, direct_t;
    std::vector<double> prog_conv, direct_conv;
    std::vector<std::string> conv_names;
    const int reps = 20;
    for (int r = 0; r < reps; ++r) {
      std::size_t ci = 0;
      for (std::size_t l = 0; l < prog->layer_count(); ++l) {
        const std::int64_t a = bench::now_ns();
        (void)exec.run_layer(*prog, l);
        const double ns = static_cast<double>(bench::now_ns() - a);
        prog_t[m.program.layers[l].op + "/" + prog->layer_impl(l)] += ns;
        if (m.program.layers[l].op == "Conv" && prog->layer_impl(l) == "onednn") {
          if (prog_conv.size() <= ci) {
            prog_conv.resize(ci + 1);
            conv_names.push_back(m.program.layers[l].name);
          }
          prog_conv[ci++] += ns;
        }
      }
      direct.run_timed(direct_t, &direct_conv);
    }
    // The convs where CompiledProgram loses most against the same primitive run directly.
    std::vector<std::pair<double, std::size_t>> diff;
    for (std::size_t i = 0; i < prog_conv.size() && i < direct_conv.size(); ++i)
      diff.emplace_back(prog_conv[i] - direct_conv[i], i);
    std::sort(diff.rbegin(), diff.rend());
    for (std::size_t k = 0; k < diff.size() && k < 6; ++k) {
      const std::size_t i = diff[k].second;
      std::printf("  conv %-28s prog %8.1f direct %8.1f us\n", conv_names[i].c_str(), prog_conv[i] / reps / 1e3,
                  direct_conv[i] / reps / 1e3);
    }
    for (auto& [k, v] : prog_t) std::printf("  prog   %-32s %9.1f us\n", k.c_str(), v / reps / 1e3);
    for (auto& [k, v] : direct_t) std::printf("  direct %-32s %9.1f us\n", k.c_str(), v / reps / 1e3);
  }
  if (nc.dtype == DType::kInt8) {
    const std::int32_t out_t = m.program.output_tensors()[0];
    const model::Tensor& o = m.program.tensors[static_cast<std::size_t>(out_t)];
    const std::size_t orow = static_cast<std::size_t>(o.dims.back()) * model::dtype_size(o.dtype);
    if (api.output(orow, o.size / orow) != exec.io(out_t)) fail(id + ": C API and CompiledProgram outputs differ");
  }
  const bench::Stats d = s_direct.stats();
  for (auto [suffix, what, st] : {std::tuple{".prog", "CompiledProgram, all layers", s_prog.stats()},
                                  std::tuple{".api", "svp_acl_mdl_execute", s_api.stats()}}) {
    Row r;
    r.id = id + suffix;
    r.name = std::string(nc.name) + " " + what + " (" + std::to_string(threads) + " thr)";
    r.stats = st;
    r.floor = "direct";
    r.floor_stats = d;
    r.ratio_value = bench::safe_ratio(st.p50, d.p50);
    r.targets = {bench::ratio_le(1.10)};
    report.add(r);
  }
}

void bench_load(const bench::Options& opt, Report& report, DType dtype, int threads) {
  const std::string id = std::string("load.r18.") + (dtype == DType::kInt8 ? "i8" : "f32") + ".t" + std::to_string(threads);
  if (!opt.wants(id)) return;
  netzoo::NetOptions no;
  no.dtype = dtype;
  auto built = netzoo::build_resnet18(no);
  if (!built.ok()) return fail(built.status().message());
  const auto& image = built.value().image;
  bench::Samples s;
  for (std::size_t i = 0; i < opt.n(15, 2); ++i) {
    uint32_t id_ = 0;
    const std::int64_t a = bench::now_ns();
    const svp_acl_error e = svp_acl_mdl_load_from_mem(image.data(), image.size(), &id_);
    s.add(bench::now_ns() - a);
    if (e != SVP_ACL_SUCCESS) return fail(std::string("load: ") + svp_acl_get_recent_err_msg());
    svp_acl_mdl_unload(id_);
  }
  // Of which the kernels' compile (primitive creation, weight reordering), for the record.
  bench::Samples c;
  for (std::size_t i = 0; i < opt.n(15, 2); ++i) {
    kernels::CompileOptions co;
    co.threads = threads;
    const std::int64_t a = bench::now_ns();
    auto compiled = kernels::CompiledProgram::compile(built.value().program, built.value().weights.data(),
                                                      built.value().weights.size(), co);
    c.add(bench::now_ns() - a);
    if (!compiled.ok()) return fail(compiled.status().message());
  }
  Row r;
  r.id = id;
  r.name = std::string("ResNet-18 ") + (dtype == DType::kInt8 ? "int8" : "fp32") + " load_from_mem";
  r.stats = s.stats();
  r.targets = {bench::p50_le_us(50000)};
  report.add(r);
  Row rc;
  rc.id = id + ".compile";
  rc.name = "  of which CompiledProgram::compile";
  rc.stats = c.stats();
  report.add(rc);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> args;
  std::vector<int> thread_counts = {1, 2};
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--layers") == 0) {
      g_layers = true;
    } else if (std::strncmp(argv[i], "--segment-every=", 16) == 0) {
      g_segment_every = static_cast<std::size_t>(std::atoi(argv[i] + 16));
    } else if (std::strncmp(argv[i], "--threads=", 10) == 0) {
      thread_counts = {std::atoi(argv[i] + 10)};
    } else {
      args.push_back(argv[i]);
    }
  }
  const bench::Options opt = bench::parse_args(static_cast<int>(args.size()), args.data());
  bench::print_machine(SVP_BENCH_BUILD_TYPE, opt.quick);
  const NetCase nets[] = {{"r18.f32", "ResNet-18 fp32", netzoo::build_resnet18, DType::kFloat32},
                          {"r18.i8", "ResNet-18 int8", netzoo::build_resnet18, DType::kInt8},
                          {"mnv2.f32", "MobileNetV2 fp32", netzoo::build_mobilenet_v2, DType::kFloat32},
                          {"mnv2.i8", "MobileNetV2 int8", netzoo::build_mobilenet_v2, DType::kInt8}};
  Report report;
  for (int threads : thread_counts) {
    // The kernel thread count is fixed per svp_acl_init (acl.json softnpu.kernel_threads).
    const std::string path = "/tmp/model_bench_acl_" + std::to_string(::getpid()) + ".json";
    {
      std::ofstream f(path);
      f << R"({"softnpu": {"kernel_threads": )" << threads << "}}";
    }
    if (svp_acl_init(path.c_str()) != SVP_ACL_SUCCESS) {
      fail(std::string("init: ") + svp_acl_get_recent_err_msg());
      break;
    }
    std::remove(path.c_str());
    if (svp_acl_rt_set_device(0) != SVP_ACL_SUCCESS) fail(std::string("set_device: ") + svp_acl_get_recent_err_msg());
    for (const NetCase& nc : nets) {
      try {
        bench_net(opt, report, nc, threads);
      } catch (const std::exception& e) {
        fail(std::string(nc.id) + ": " + e.what());
      }
    }
    bench_load(opt, report, DType::kFloat32, threads);
    bench_load(opt, report, DType::kInt8, threads);
    svp_acl_rt_reset_device(0);
    svp_acl_finalize();
  }
  report.print_summary();
  return g_errors == 0 ? 0 : 1;
}
