// ModelBuilder: work_buf planning with liveness, weights layout, segmentation, flags,
// output defaults, sticky errors, shape inference through the kernels, and the round trip
// through the model file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "compiler/builder.h"
#include "model/format.h"
#include "model/program.h"

namespace svp::model {
namespace {

using namespace svp::compiler;  // NOLINT(google-build-using-namespace): the builder under test

LayerOptions with_shape(std::vector<std::int64_t> shape) {
  LayerOptions o;
  o.output_shapes = {std::move(shape)};
  return o;
}

const Tensor& tensor(const Program& p, const std::string& name) {
  for (const Tensor& t : p.tensors) {
    if (t.name == name) return t;
  }
  ADD_FAILURE() << "no tensor " << name;
  static const Tensor none;
  return none;
}

// A chain of `n` unary layers over a [1, 16, 8, 8] float tensor (4096 bytes each).
ModelBuilder chain(int n) {
  ModelBuilder b("chain");
  TensorId t = b.add_input("x", DType::kFloat32, {1, 16, 8, 8});
  for (int i = 0; i < n; ++i) t = b.add_layer("l" + std::to_string(i), "Relu", {t}, with_shape({1, 16, 8, 8}));
  b.add_output(t);
  return b;
}

TEST(ModelBuilder, ChainReusesTwoBuffers) {
  constexpr std::uint64_t kBytes = 16 * 8 * 8 * 4;
  for (int n : {2, 3, 4, 10}) {
    auto m = chain(n).build();
    ASSERT_TRUE(m.ok()) << m.status().message();
    // n layers, n-1 intermediates, the last output in the application's buffer: one buffer
    // for a single intermediate, two once lifetimes alternate.
    EXPECT_EQ(m->program.flags.work_buf_size, n == 2 ? kBytes : 2 * kBytes) << n << " layers";
    // Neighbours never share; every other one does.
    for (int i = 0; i + 1 < n - 1; ++i) {
      const Tensor& a = tensor(m->program, "l" + std::to_string(i));
      const Tensor& b = tensor(m->program, "l" + std::to_string(i + 1));
      EXPECT_NE(a.offset, b.offset);
      if (i + 2 < n - 1) {
        EXPECT_EQ(a.offset, tensor(m->program, "l" + std::to_string(i + 2)).offset);
      }
    }
  }
}

TEST(ModelBuilder, PlannerRespectsLongLifetimesAndAlignment) {
  // x -> a -> b -> c -> d(a, c) -> y: `a` lives until d, so it overlaps both b and c; b
  // and c overlap at layer c. Sizes differ to exercise the largest-first greedy placement
  // and the 64-byte alignment.
  ModelBuilder b("diamond");
  const TensorId x = b.add_input("x", DType::kUint8, {1, 100});
  const TensorId ta = b.add_layer("a", "Relu", {x}, with_shape({1, 100}));     // 100 bytes → slot of 128
  const TensorId tb = b.add_layer("b", "Relu", {ta}, with_shape({1, 1000}));   // 1000
  const TensorId tc = b.add_layer("c", "Relu", {tb}, with_shape({1, 30}));     // 30
  b.add_output(b.add_layer("d", "Add", {ta, tc}, with_shape({1, 100})));
  auto m = b.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
  const Program& p = m->program;
  for (const Tensor& t : p.tensors) {
    if (t.placement == Placement::kWorkBuf) {
      EXPECT_EQ(t.offset % 64, 0u) << t.name;
    }
  }
  // b (largest) at 0; a must avoid b (both live at layer 1); c must avoid b (layer 2) and a.
  EXPECT_EQ(tensor(p, "b").offset, 0u);
  EXPECT_EQ(tensor(p, "a").offset, 1024u);
  EXPECT_EQ(tensor(p, "c").offset, 1152u);
  EXPECT_EQ(p.flags.work_buf_size, 1216u);
  EXPECT_TRUE(p.validate(m->weights.size()).ok());
}

TEST(ModelBuilder, DeadOutputsGetMemoryButOnlyForTheirLayer) {
  ModelBuilder b;
  const TensorId x = b.add_input("x", DType::kFloat32, {4, 16});
  LayerOptions split;
  split.output_shapes = {{2, 16}, {2, 16}};
  const LayerRef s = b.add_layer("split", "Split", {x}, split);
  ASSERT_EQ(s.outputs.size(), 2u);
  EXPECT_EQ(tensor(b.program(), "split:0").dims, (std::vector<std::int64_t>{2, 16}));
  const TensorId r = b.add_layer("r", "Relu", {s.out(0)}, with_shape({2, 16}));
  const TensorId r2 = b.add_layer("r2", "Relu", {r}, with_shape({2, 16}));
  b.add_output(r2);
  auto m = b.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
  // split:0, split:1 (unused) and r: at most three 128-byte slots; r may reuse split:1's.
  EXPECT_LE(m->program.flags.work_buf_size, 3u * 128);
  EXPECT_EQ(tensor(m->program, "r").offset == tensor(m->program, "split:1").offset, true);
}

TEST(ModelBuilder, PlanWorkBufIsUsableOnItsOwn) {
  auto m = chain(4).build();
  ASSERT_TRUE(m.ok());
  Program p = m->program;
  for (Tensor& t : p.tensors) t.offset = t.placement == Placement::kWorkBuf ? 4096 * 7 : t.offset;
  p.flags.work_buf_size = 1;
  ASSERT_TRUE(plan_work_buf(&p).ok());
  EXPECT_TRUE(p == m->program);
}

TEST(ModelBuilder, EmptyWorkBufIsStillNonZero) {
  ModelBuilder b;
  b.add_output(b.add_layer("r", "Relu", {b.add_input("x", DType::kInt8, {3})}, with_shape({3})));
  auto m = b.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->program.flags.work_buf_size, 64u);
  EXPECT_EQ(m->program.flags.task_buf_size, 4096u + 256u);
}

TEST(ModelBuilder, ConstantsAreCopiedAligned) {
  ModelBuilder b;
  const TensorId x = b.add_input("x", DType::kFloat32, {1, 3});
  const std::vector<float> w = {1.5f, 2.5f, -3.5f};
  const std::vector<std::int8_t> q = {1, 2, 3, 4, 5};
  const std::uint16_t half[2] = {0x3C00, 0xC000};
  const TensorId tw = b.add_constant("w", {3}, w);
  const TensorId tq = b.add_constant("q", {5}, q, Quant{{0.5f}, {1}, -1});
  const TensorId th = b.add_constant("h", DType::kFloat16, {2}, half, sizeof half);
  const TensorId ti = b.add_constant("i64", {1}, std::vector<std::int64_t>{-7});
  const TensorId y = b.add_layer("add", "Add", {x, tw}, with_shape({1, 3}));
  LayerOptions many = with_shape({1, 3});
  b.add_output(b.add_layer("sum", "Sum", {y, tq, th, ti}, many));
  auto m = b.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
  const Program& p = m->program;
  std::uint64_t prev_end = 0;
  for (TensorId id : {tw, tq, th, ti}) {
    const Tensor& t = p.tensors[static_cast<std::size_t>(id)];
    EXPECT_EQ(t.placement, Placement::kWeights);
    EXPECT_EQ(t.offset % 64, 0u) << t.name;
    EXPECT_GE(t.offset, prev_end);
    prev_end = t.offset + t.size;
  }
  EXPECT_EQ(m->weights.size(), prev_end);
  EXPECT_EQ(p.tensors[static_cast<std::size_t>(tq)].dtype, DType::kInt8);
  EXPECT_EQ(p.tensors[static_cast<std::size_t>(th)].dtype, DType::kFloat16);
  EXPECT_EQ(p.tensors[static_cast<std::size_t>(ti)].dtype, DType::kInt64);
  EXPECT_EQ(std::memcmp(m->weights.data() + p.tensors[static_cast<std::size_t>(tw)].offset, w.data(), 12), 0);
  EXPECT_EQ(std::memcmp(m->weights.data() + p.tensors[static_cast<std::size_t>(th)].offset, half, 4), 0);
  // The file carries the same bytes, at the same offsets.
  auto loaded = read_model(m->image.data(), m->image.size());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_EQ(loaded->weights_size, m->weights.size());
  EXPECT_EQ(std::memcmp(loaded->weights, m->weights.data(), m->weights.size()), 0);
  EXPECT_TRUE(loaded->program == p);
}

// ---------------------------------------------------------------------------------------
std::vector<std::pair<int, int>> segments_of(const Program& p) {
  std::vector<std::pair<int, int>> v;
  for (const Segment& s : p.segments) v.emplace_back(s.begin, s.end);
  return v;
}
using Ranges = std::vector<std::pair<int, int>>;

TEST(ModelBuilder, SegmentsDefaultToOnePerLayer) {
  auto m = chain(3).build();
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(segments_of(m->program), (Ranges{{0, 1}, {1, 2}, {2, 3}}));
}

TEST(ModelBuilder, SegmentEveryGroupsLayers) {
  auto b = chain(5);
  b.segment_every(2);
  auto m = b.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(segments_of(m->program), (Ranges{{0, 2}, {2, 4}, {4, 5}}));
  auto all = chain(5);
  all.segment_every(100);
  m = all.build();
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(segments_of(m->program), (Ranges{{0, 5}}));
}

TEST(ModelBuilder, ManualSegmentsAndTargetChanges) {
  ModelBuilder b;
  TensorId t = b.add_input("x", DType::kFloat32, {8});
  t = b.add_layer("a", "Relu", {t}, with_shape({8}));
  t = b.add_layer("b", "Relu", {t}, with_shape({8}));
  b.begin_segment();
  t = b.add_layer("c", "Relu", {t}, with_shape({8}));
  t = b.add_layer("d", "Relu", {t}, with_shape({8}));
  LayerOptions cpu = with_shape({8});
  cpu.target = Target::kAiCpu;
  t = b.add_layer("e", "TopK", {t}, cpu);  // AI-CPU: its own segment even without a call
  t = b.add_layer("f", "Relu", {t}, with_shape({8}));
  b.begin_segment();
  b.begin_segment();  // twice = once
  t = b.add_layer("g", "Relu", {t}, with_shape({8}));
  b.add_output(t);
  auto m = b.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(segments_of(m->program), (Ranges{{0, 2}, {2, 4}, {4, 5}, {5, 6}, {6, 7}}));

  // segment_every also splits at target changes and restarts counting there.
  ModelBuilder e;
  t = e.add_input("x", DType::kFloat32, {8});
  e.segment_every(3);
  for (int i = 0; i < 5; ++i) t = e.add_layer("n" + std::to_string(i), "Relu", {t}, i == 1 ? cpu : with_shape({8}));
  e.add_output(t);
  m = e.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(segments_of(m->program), (Ranges{{0, 1}, {1, 2}, {2, 5}}));
}

TEST(ModelBuilder, SegmentModesCannotBeMixed) {
  auto a = chain(2);
  a.segment_every(2);
  a.begin_segment();
  EXPECT_EQ(a.status().code(), err::kInvalidParam);
  auto b = chain(2);
  b.begin_segment();
  b.segment_every(2);
  EXPECT_EQ(b.build().status().code(), err::kInvalidParam);
  auto c = chain(2);
  c.segment_every(0);
  EXPECT_EQ(c.build().status().code(), err::kInvalidParam);
}

// ---------------------------------------------------------------------------------------
TEST(ModelBuilder, FlagsAreStoredAndValidated) {
  auto b = chain(2);
  b.set_preemptible(true);
  b.set_aicpu_busy_wait(true);
  b.set_buffer_reuse(7);
  b.set_internal_stride(256);
  b.set_dynamic_batch({8});
  b.set_dynamic_hw({{224, 224}, {112, 112}});
  b.set_inout_reuse(0, 1);
  // (AIPP needs an image input; chain's has 16 channels: aipp tests cover set_aipp.)
  b.set_compiler_info("my compiler 2.0", "compile --all");
  auto m = b.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
  const ModelFlags& f = m->program.flags;
  EXPECT_TRUE(f.preemptible);
  EXPECT_TRUE(f.aicpu_busy_wait);
  EXPECT_EQ(f.buffer_reuse, 7);
  EXPECT_EQ(f.internal_stride, 256u);
  EXPECT_EQ(f.dynamic_batch, (std::vector<std::uint64_t>{8}));
  EXPECT_EQ(f.dynamic_hw.size(), 2u);
  EXPECT_EQ(m->program.tensors[0].inout_reuse, 1);
  EXPECT_EQ(m->program.compiler.producer_version, "my compiler 2.0");
  auto loaded = read_model(m->image.data(), m->image.size());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_TRUE(loaded->program == m->program);

  struct Bad {
    std::function<void(ModelBuilder&)> set;
    const char* needle;
  };
  const std::vector<Bad> bad = {
      {[](ModelBuilder& x) { x.set_buffer_reuse(8); }, "buffer reuse type 8"},
      {[](ModelBuilder& x) { x.set_internal_stride(24); }, "internal stride 24"},
      {[](ModelBuilder& x) { x.set_dynamic_batch({0}); }, "dynamic batch size 0"},
      {[](ModelBuilder& x) { x.set_dynamic_hw(std::vector<std::pair<std::uint64_t, std::uint64_t>>(101, {1, 1})); },
       "101 dynamic resolution gears"},
      {[](ModelBuilder& x) { x.set_inout_reuse(0, 5); }, "model input \"x\": reuse type 5"},
      {[](ModelBuilder& x) { x.set_inout_reuse(1, 1); }, "tensor \"l0\" (work_buf) has an I/O reuse type"},
      {[](ModelBuilder& x) { x.set_aipp(0, "not json"); }, "AIPP configuration is not a JSON object"},
  };
  for (const Bad& c : bad) {
    auto x = chain(2);
    c.set(x);
    const Status s = x.build().status();
    EXPECT_EQ(s.code(), err::kParseModel) << c.needle;
    EXPECT_NE(s.message().find(c.needle), std::string::npos) << s.message();
  }
}

TEST(ModelBuilder, OutputDefaultsFollowTheFirstInput) {
  ModelBuilder b;
  const Quant q{{0.25f}, {3}, -1};
  const TensorId x = b.add_input("x", DType::kInt8, {1, 2, 3, 4}, Layout::kNHWC, q);
  // (A first input of -1 is refused by validation: no op reads an optional first input.)
  const TensorId same = b.add_layer("same", "Relu", {x}, with_shape({1, 2, 3, 4}));
  LayerOptions deq = with_shape({1, 24});
  deq.output_dtypes = {DType::kFloat32};
  const TensorId f = b.add_layer("deq", "DequantizeLinear", {same}, deq);
  LayerOptions named = with_shape({1, 24});
  named.output_names = {"result"};
  named.output_layouts = {Layout::kND};
  b.add_output(b.add_layer("relu", "Relu", {f}, named));
  auto m = b.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
  const Program& p = m->program;
  const Tensor& ts = tensor(p, "same");
  EXPECT_EQ(ts.dtype, DType::kInt8);
  EXPECT_EQ(ts.layout, Layout::kNHWC);
  EXPECT_EQ(ts.quant.scale, q.scale);
  EXPECT_EQ(ts.quant.zero_point, q.zero_point);
  const Tensor& td = tensor(p, "deq");
  EXPECT_EQ(td.dtype, DType::kFloat32);
  EXPECT_TRUE(td.quant.empty());
  EXPECT_EQ(td.layout, Layout::kND);  // rank differs from the input's
  const Tensor& tr = tensor(p, "result");
  EXPECT_EQ(tr.placement, Placement::kModelOutput);
  EXPECT_EQ(tr.io_index, 0);
  EXPECT_EQ(p.layers[0].inputs, (std::vector<std::int32_t>{0}));
}

TEST(ModelBuilder, ErrorsAreStickyAndNameTheCulprit) {
  {
    ModelBuilder b;
    const TensorId x = b.add_input("x", DType::kFloat32, {4});
    EXPECT_EQ(b.add_layer("bad", "Relu", {x, 42}, with_shape({4})).out(), -1);
    EXPECT_EQ(b.status().code(), err::kInvalidParam);
    EXPECT_NE(b.status().message().find("layer \"bad\" (Relu): input 1 is not a tensor id (42)"), std::string::npos)
        << b.status().message();
    // Later calls do nothing and the first error stays.
    EXPECT_EQ(b.add_input("y", DType::kFloat32, {4}), -1);
    EXPECT_EQ(b.program().tensors.size(), 1u);
    EXPECT_EQ(b.build().status().message(), b.status().message());
  }
  {
    ModelBuilder b;
    const float w[3] = {1, 2, 3};
    EXPECT_EQ(b.add_constant("w", DType::kFloat32, {4}, w, sizeof w), -1);
    EXPECT_NE(b.status().message().find("constant \"w\": 12 bytes"), std::string::npos) << b.status().message();
  }
  {
    ModelBuilder b;
    const TensorId x = b.add_input("x", DType::kFloat32, {4});
    b.add_output(x);
    EXPECT_NE(b.status().message().find("tensor \"x\" is a model input, not an intermediate"), std::string::npos)
        << b.status().message();
  }
  {
    ModelBuilder b;
    LayerOptions o = with_shape({4});
    o.output_dtypes = {DType::kFloat32, DType::kFloat32};
    b.add_layer("l", "Relu", {b.add_input("x", DType::kFloat32, {4})}, o);
    EXPECT_NE(b.status().message().find("1 outputs but 2 dtypes"), std::string::npos) << b.status().message();
  }
  {
    ModelBuilder b;
    b.add_layer("c", "Constant", {}, with_shape({4}));
    EXPECT_NE(b.status().message().find("give output_dtypes"), std::string::npos) << b.status().message();
  }
  {
    // Problems only the whole program shows surface from build(), via validate().
    ModelBuilder b;
    const TensorId x = b.add_input("x", DType::kFloat32, {4});
    b.add_output(b.add_layer("x", "Relu", {x}, with_shape({4})));
    const Status s = b.build().status();
    EXPECT_EQ(s.code(), err::kParseModel);
    EXPECT_NE(s.message().find("tensor name \"x\" is used twice"), std::string::npos) << s.message();
  }
  {
    ModelBuilder b;
    b.add_layer("r", "Relu", {b.add_input("x", DType::kFloat32, {4, 0})}, with_shape({4}));
    const Status s = b.build().status();
    EXPECT_NE(s.message().find("tensor \"x\": dims [4,0]"), std::string::npos) << s.message();
  }
  {
    ModelBuilder b;
    b.add_layer("r", "Relu", {b.add_input("x", DType::kFloat32, {4})}, with_shape({4}));
    const Status s = b.build().status();
    EXPECT_EQ(s.code(), err::kModelMissingAttr);
    EXPECT_NE(s.message().find("no output"), std::string::npos) << s.message();
  }
}

TEST(ModelBuilder, BuildIsDeterministicAndRepeatable) {
  auto b = chain(4);
  auto m1 = b.build();
  auto m2 = b.build();
  ASSERT_TRUE(m1.ok() && m2.ok());
  EXPECT_EQ(m1->image, m2->image);
  EXPECT_EQ(chain(4).build()->image, m1->image);
  EXPECT_TRUE(read_model(m1->image.data(), m1->image.size()).ok());
}

TEST(ModelBuilder, ShapeInferenceGoesThroughTheKernels) {
  ModelBuilder b;
  const TensorId x = b.add_input("x", DType::kFloat32, {1, 3, 5, 7});
  const LayerRef r = b.add_layer("relu", "Relu", {x});
  if (!b.status().ok()) {
    if (b.status().code() == err::kFeatureUnsupported &&
        b.status().message().find("not implemented") != std::string::npos) {
      GTEST_SKIP() << "kernels::infer_shapes not implemented yet: " << b.status().message();
    }
    FAIL() << b.status().message();
  }
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(b.program().tensors[static_cast<std::size_t>(r.out())].dims, (std::vector<std::int64_t>{1, 3, 5, 7}));
  // Constant inputs reach the shape function (Reshape's shape input).
  const TensorId shape = b.add_constant("shape", {2}, std::vector<std::int64_t>{3, 35});
  const LayerRef reshaped = b.add_layer("reshape", "Reshape", {r, shape});
  ASSERT_TRUE(b.status().ok()) << b.status().message();
  EXPECT_EQ(b.program().tensors[static_cast<std::size_t>(reshaped.out())].dims, (std::vector<std::int64_t>{3, 35}));
  b.add_output(reshaped);
  auto m = b.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
}

TEST(ModelBuilder, InferredConvNetworkRoundTrips) {
  ModelBuilder b("convnet");
  const TensorId x = b.add_input("x", DType::kFloat32, {1, 3, 8, 8});
  const TensorId w = b.add_constant("w", {4, 3, 3, 3}, std::vector<float>(4 * 3 * 3 * 3, 0.5f));
  LayerOptions conv;
  conv.attrs.set("pads", std::vector<std::int64_t>{1, 1, 1, 1});
  conv.attrs.set("kernel_shape", std::vector<std::int64_t>{3, 3});
  const TensorId c = b.add_layer("conv", "Conv", {x, w}, conv);
  if (b.status().code() == err::kFeatureUnsupported) GTEST_SKIP() << b.status().message();
  const TensorId r = b.add_layer("relu", "Relu", {c});
  LayerOptions pool;
  pool.attrs.set("kernel_shape", std::vector<std::int64_t>{2, 2});
  pool.attrs.set("strides", std::vector<std::int64_t>{2, 2});
  const TensorId p = b.add_layer("pool", "MaxPool", {r}, pool);
  b.add_output(p);
  auto m = b.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(tensor(m->program, "conv").dims, (std::vector<std::int64_t>{1, 4, 8, 8}));
  EXPECT_EQ(tensor(m->program, "pool").dims, (std::vector<std::int64_t>{1, 4, 4, 4}));
  EXPECT_EQ(tensor(m->program, "pool").layout, Layout::kNCHW);
  auto loaded = read_model(m->image.data(), m->image.size());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_TRUE(loaded->program == m->program);
}

TEST(ModelBuilder, ShapeInferenceErrorsNameTheLayer) {
  ModelBuilder b;
  const TensorId x = b.add_input("x", DType::kFloat32, {2, 3});
  const TensorId y = b.add_input("y", DType::kFloat32, {4, 5});
  b.add_layer("sum", "Add", {x, y});
  ASSERT_FALSE(b.status().ok());
  if (b.status().code() == err::kFeatureUnsupported) GTEST_SKIP() << b.status().message();
  EXPECT_EQ(b.status().message().rfind("layer \"sum\" (Add): ", 0), 0u) << b.status().message();
  ModelBuilder u;
  u.add_layer("mystery", "NoSuchOp", {u.add_input("x", DType::kFloat32, {2})});
  EXPECT_NE(u.status().message().find("layer \"mystery\" (NoSuchOp): "), std::string::npos) << u.status().message();
}

}  // namespace
}  // namespace svp::model
