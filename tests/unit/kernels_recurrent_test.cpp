// LSTM, GRU and RNN reference kernels: values computed by hand on one-unit cells, the
// sequence_lens rules (zero past an entry's length, reverse within it), the execution's
// total_t limit (kernels/time_steps.h) as a sequence_lens bound, float64/float16, and the
// errors for bad shapes, attributes and lengths. onnxruntime is the oracle for everything
// else (tests/accuracy/recurrent_vs_onnxruntime_test.cpp, the ONNX backend cases).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/invoke.h"
#include "kernels/kernels.h"
#include "kernels/reference/typed.h"
#include "kernels/time_steps.h"
#include "model/program.h"

namespace svp::kernels {
namespace {

using model::DType;
using F = std::vector<float>;

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

std::vector<OwnedTensor> run_ok(const char* op, const Attrs& a, const std::vector<TensorView>& in,
                                const std::vector<OutputSpec>& specs = {}) {
  auto r = run_reference_owned(op, a, in, specs);
  EXPECT_TRUE(r.ok()) << op << ": " << r.status().message();
  return r.ok() ? std::move(r.value()) : std::vector<OwnedTensor>{};
}

void expect_near(const std::vector<float>& got, const std::vector<double>& want, double tol = 1e-6) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << i;
}

OwnedTensor i32(std::vector<std::int64_t> dims, const std::vector<std::int32_t>& v) {
  return OwnedTensor::from(DType::kInt32, std::move(dims), v);
}

// A one-unit RNN (W = 0.5, R = 0.25, B = Wb 0.1 + Rb 0.2): h_t = tanh(0.5 x_t + 0.25 h_t-1 + 0.3).
TEST(KernelsRecurrent, RnnOneUnitByHand) {
  auto x = OwnedTensor::f32({3, 1, 1}, {1, 2, -1});
  auto w = OwnedTensor::f32({1, 1, 1}, {0.5f});
  auto r = OwnedTensor::f32({1, 1, 1}, {0.25f});
  auto b = OwnedTensor::f32({1, 2}, {0.1f, 0.2f});
  auto out = run_ok("RNN", {{"hidden_size", std::int64_t{1}}}, {x.view(), w.view(), r.view(), b.view()});
  ASSERT_EQ(out.size(), 2u);
  const double h1 = std::tanh(0.5 + 0.3), h2 = std::tanh(1.0 + 0.25 * h1 + 0.3), h3 = std::tanh(-0.5 + 0.25 * h2 + 0.3);
  expect_near(out[0].values<float>(), {h1, h2, h3});
  expect_near(out[1].values<float>(), {h3});
  // Reverse: the steps in the other order, Y still indexed by time.
  auto rev = run_ok("RNN", {{"hidden_size", std::int64_t{1}}, {"direction", std::string("reverse")}},
                    {x.view(), w.view(), r.view(), b.view()});
  const double g3 = std::tanh(-0.5 + 0.3), g2 = std::tanh(1.0 + 0.25 * g3 + 0.3), g1 = std::tanh(0.5 + 0.25 * g2 + 0.3);
  expect_near(rev[0].values<float>(), {g1, g2, g3});
  expect_near(rev[1].values<float>(), {g1});
}

// sequence_lens: entry 0 runs 3 steps, entry 1 one; Y is zero past each length, Y_h is the
// state after the last step, and the reverse direction starts at the entry's own last step.
TEST(KernelsRecurrent, SequenceLensZeroPastTheLengthAndReverseWithinIt) {
  auto x = OwnedTensor::f32({3, 2, 1}, {1, 4, 2, 5, -1, 6});  // [t][b]
  auto w = OwnedTensor::f32({2, 1, 1}, {0.5f, 0.5f});
  auto r = OwnedTensor::f32({2, 1, 1}, {0.25f, 0.25f});
  auto lens = i32({2}, {3, 1});
  auto out = run_ok("RNN", {{"hidden_size", std::int64_t{1}}, {"direction", std::string("bidirectional")}},
                    {x.view(), w.view(), r.view(), TensorView{}, lens.view()});
  ASSERT_EQ(out.size(), 2u);
  const double f1 = std::tanh(0.5), f2 = std::tanh(1.0 + 0.25 * f1), f3 = std::tanh(-0.5 + 0.25 * f2);
  const double b3 = std::tanh(-0.5), b2 = std::tanh(1.0 + 0.25 * b3), b1 = std::tanh(0.5 + 0.25 * b2);
  const double e = std::tanh(2.0);  // entry 1: one step from x = 4, either direction
  // Y [T=3, D=2, N=2, H=1].
  expect_near(out[0].values<float>(), {f1, e, b1, e, f2, 0, b2, 0, f3, 0, b3, 0});
  // Y_h [D=2, N=2, H=1]: forward ends at t = len-1, reverse at t = 0.
  expect_near(out[1].values<float>(), {f3, e, b1, e});
}

// An LSTM unit with W = R = 0 but biases: the gates are constants, so
// C_t = f C_t-1 + i g and H_t = o tanh(C_t) with i, f, o = sigmoid(b), g = tanh(b).
TEST(KernelsRecurrent, LstmConstantGatesByHandWithPeepholesAndInputForget) {
  auto x = OwnedTensor::f32({2, 1, 1}, {3, -3});
  auto w = OwnedTensor::f32({1, 4, 1}, {0, 0, 0, 0});
  auto r = OwnedTensor::f32({1, 4, 1}, {0, 0, 0, 0});
  // Wb (i, o, f, c) = 0.1, 0.2, 0.3, 0.4; Rb = 0.
  auto b = OwnedTensor::f32({1, 8}, {0.1f, 0.2f, 0.3f, 0.4f, 0, 0, 0, 0});
  auto h0 = OwnedTensor::f32({1, 1, 1}, {0.5f});
  auto c0 = OwnedTensor::f32({1, 1, 1}, {-0.5f});
  const Attrs a{{"hidden_size", std::int64_t{1}}};
  auto out = run_ok("LSTM", a, {x.view(), w.view(), r.view(), b.view(), TensorView{}, h0.view(), c0.view()});
  ASSERT_EQ(out.size(), 3u);
  const double i = sigmoid(0.1), o = sigmoid(0.2), f = sigmoid(0.3), g = std::tanh(0.4);
  const double c1 = f * -0.5 + i * g, c2 = f * c1 + i * g;
  expect_near(out[0].values<float>(), {o * std::tanh(c1), o * std::tanh(c2)});
  expect_near(out[1].values<float>(), {o * std::tanh(c2)});
  expect_near(out[2].values<float>(), {c2});

  // Peepholes P = (Pi, Po, Pf) = (1, 2, 3): i, f see C_t-1, o sees C_t.
  auto p = OwnedTensor::f32({1, 3}, {1, 2, 3});
  auto peep = run_ok("LSTM", a, {x.view(), w.view(), r.view(), b.view(), TensorView{}, h0.view(), c0.view(), p.view()});
  double c = -0.5, h = 0;
  for (int t = 0; t < 2; ++t) {
    const double ig = sigmoid(0.1 + 1 * c), fg = sigmoid(0.3 + 3 * c);
    c = fg * c + ig * g;
    h = sigmoid(0.2 + 2 * c) * std::tanh(c);
  }
  expect_near(peep[1].values<float>(), {h});
  expect_near(peep[2].values<float>(), {c});

  // input_forget couples f = 1 - i; clip 0.05 bounds every gate's input and C before h.
  const Attrs coupled{{"hidden_size", std::int64_t{1}}, {"input_forget", std::int64_t{1}}, {"clip", 0.05}};
  auto cf = run_ok("LSTM", coupled, {x.view(), w.view(), r.view(), b.view(), TensorView{}, h0.view(), c0.view()});
  const double ci = sigmoid(0.05), co = sigmoid(0.05), cg = std::tanh(0.05);
  double cc = -0.5;
  for (int t = 0; t < 2; ++t) cc = (1 - ci) * cc + ci * cg;
  expect_near(cf[1].values<float>(), {co * std::tanh(std::min(std::max(cc, -0.05), 0.05))});
  expect_near(cf[2].values<float>(), {cc});
}

// GRU, one unit, W = 0: z = sigmoid(Rz h + bz), r = sigmoid(Rr h + br) and the candidate
// with the reset before (0) or after (1) the recurrent product.
TEST(KernelsRecurrent, GruLinearBeforeResetByHand) {
  auto x = OwnedTensor::f32({1, 1, 1}, {0});
  auto w = OwnedTensor::f32({1, 3, 1}, {0, 0, 0});
  auto r = OwnedTensor::f32({1, 3, 1}, {0.5f, -0.5f, 2.0f});  // Rz, Rr, Rh
  // Wb = (0.1, 0.2, 0.3), Rb = (0, 0, 0.4).
  auto b = OwnedTensor::f32({1, 6}, {0.1f, 0.2f, 0.3f, 0, 0, 0.4f});
  auto h0 = OwnedTensor::f32({1, 1, 1}, {0.8f});
  const double h = 0.8, z = sigmoid(0.5 * h + 0.1), rg = sigmoid(-0.5 * h + 0.2);
  for (std::int64_t lbr : {0, 1}) {
    auto out = run_ok("GRU", {{"hidden_size", std::int64_t{1}}, {"linear_before_reset", lbr}},
                      {x.view(), w.view(), r.view(), b.view(), TensorView{}, h0.view()});
    ASSERT_EQ(out.size(), 2u);
    const double cand = lbr == 0 ? std::tanh(2.0 * (rg * h) + 0.4 + 0.3) : std::tanh(0.3 + rg * (2.0 * h + 0.4));
    expect_near(out[1].values<float>(), {(1 - z) * cand + z * h});
  }
}

// Layout 1 is layout 0 with X, the states and the outputs batch-first.
TEST(KernelsRecurrent, Layout1IsBatchFirst) {
  const F xv = {0.1f, -0.2f, 0.3f, 0.4f, -0.5f, 0.6f, 0.7f, 0.8f, -0.9f, 1.0f, 1.1f, -1.2f};  // [T=3][N=2][I=2]
  F xb(12);
  for (int t = 0; t < 3; ++t)
    for (int n = 0; n < 2; ++n)
      for (int i = 0; i < 2; ++i) xb[static_cast<std::size_t>((n * 3 + t) * 2 + i)] = xv[static_cast<std::size_t>((t * 2 + n) * 2 + i)];
  auto x0 = OwnedTensor::f32({3, 2, 2}, xv);
  auto x1 = OwnedTensor::f32({2, 3, 2}, xb);
  F wv(3 * 2 * 2), rv(3 * 2 * 2);
  for (std::size_t k = 0; k < wv.size(); ++k) wv[k] = 0.1f * static_cast<float>(k % 5) - 0.2f;
  for (std::size_t k = 0; k < rv.size(); ++k) rv[k] = 0.05f * static_cast<float>(k % 7) - 0.1f;
  auto w = OwnedTensor::f32({1, 6, 2}, wv);
  auto r = OwnedTensor::f32({1, 6, 2}, rv);
  const Attrs a0{{"hidden_size", std::int64_t{2}}};
  const Attrs a1{{"hidden_size", std::int64_t{2}}, {"layout", std::int64_t{1}}};
  auto y0 = run_ok("GRU", a0, {x0.view(), w.view(), r.view()});
  auto y1 = run_ok("GRU", a1, {x1.view(), w.view(), r.view()});
  ASSERT_EQ(y1.size(), 2u);
  EXPECT_EQ(y1[0].view().dims, (std::vector<std::int64_t>{2, 3, 1, 2}));
  const F a = y0[0].values<float>(), b = y1[0].values<float>();
  for (int t = 0; t < 3; ++t)
    for (int n = 0; n < 2; ++n)
      for (int h = 0; h < 2; ++h)
        EXPECT_FLOAT_EQ(b[static_cast<std::size_t>((n * 3 + t) * 2 + h)], a[static_cast<std::size_t>((t * 2 + n) * 2 + h)]);
}

// The execution's total_t (svp_acl_mdl_set_total_t) runs the layer as with
// sequence_lens = min(sequence_lens, total_t).
TEST(KernelsRecurrent, TotalTBoundsTheSequenceLengths) {
  const F xv = {1, 2, 3, 4, 5, 6, 7, 8};  // [T=4][N=2][I=1]
  auto x = OwnedTensor::f32({4, 2, 1}, xv);
  auto w = OwnedTensor::f32({1, 1, 1}, {0.3f});
  auto r = OwnedTensor::f32({1, 1, 1}, {0.6f});
  model::Layer layer{"rnn", "RNN", {}, {}, {}};
  layer.attrs.set("hidden_size", std::int64_t{1});
  auto lens = i32({2}, {4, 1});
  OwnedTensor y(DType::kFloat32, {4, 1, 2, 1}), yh(DType::kFloat32, {1, 2, 1});
  RunArgs args;
  args.total_t = 2;
  ASSERT_TRUE(run_reference_with_steps(layer, {x.view(), w.view(), r.view(), TensorView{}, lens.view()},
                                       {y.view(), yh.view()}, args)
                  .ok());
  auto bounded = i32({2}, {2, 1});
  auto want = run_ok("RNN", layer.attrs, {x.view(), w.view(), r.view(), TensorView{}, bounded.view()});
  EXPECT_EQ(y.values<float>(), want[0].values<float>());
  EXPECT_EQ(yh.values<float>(), want[1].values<float>());
  const F got = y.values<float>();
  EXPECT_NE(got[0], 0.0f);
  EXPECT_EQ(got[4], 0.0f);  // t = 2 and 3 are zero for both entries
  EXPECT_EQ(got[7], 0.0f);
}

// float64 computes in double, float16 in float; both agree with float32 closely.
TEST(KernelsRecurrent, Float64AndFloat16) {
  const F xv = {0.5f, -0.25f, 0.75f};
  const F wv = {0.1f, 0.2f, 0.3f, 0.4f}, rv = {0.5f, -0.5f, 0.25f, -0.25f};
  auto ref = run_ok("LSTM", {{"hidden_size", std::int64_t{1}}},
                    {OwnedTensor::f32({3, 1, 1}, xv).view(), OwnedTensor::f32({1, 4, 1}, wv).view(),
                     OwnedTensor::f32({1, 4, 1}, rv).view()});
  ASSERT_EQ(ref.size(), 3u);
  auto to_d = [](const F& v) { return std::vector<double>(v.begin(), v.end()); };
  auto xd = OwnedTensor::from(DType::kFloat64, {3, 1, 1}, to_d(xv));
  auto wd = OwnedTensor::from(DType::kFloat64, {1, 4, 1}, to_d(wv));
  auto rd = OwnedTensor::from(DType::kFloat64, {1, 4, 1}, to_d(rv));
  auto d = run_ok("LSTM", {{"hidden_size", std::int64_t{1}}}, {xd.view(), wd.view(), rd.view()},
                  {{DType::kFloat64, {}}, {DType::kFloat64, {}}, {DType::kFloat64, {}}});
  ASSERT_EQ(d.size(), 3u);
  EXPECT_NEAR(d[1].values<double>()[0], ref[1].values<float>()[0], 1e-6);
  // float16 (these values are exact halves) computes in float and rounds the results.
  auto half = [](const F& v) {
    std::vector<std::uint16_t> h;
    for (float f : v) h.push_back(detail::float_to_half(f));
    return h;
  };
  auto xh = OwnedTensor::from(DType::kFloat16, {3, 1, 1}, half(xv));
  auto wh = OwnedTensor::from(DType::kFloat16, {1, 4, 1}, half(wv));
  auto rh = OwnedTensor::from(DType::kFloat16, {1, 4, 1}, half(rv));
  auto h = run_ok("LSTM", {{"hidden_size", std::int64_t{1}}}, {xh.view(), wh.view(), rh.view()},
                  {{DType::kFloat16, {}}, {DType::kFloat16, {}}, {DType::kFloat16, {}}});
  ASSERT_EQ(h.size(), 3u);
  EXPECT_NEAR(detail::half_to_float(h[1].values<std::uint16_t>()[0]), ref[1].values<float>()[0], 1e-3);
  // Mixed element types are refused.
  auto wf = OwnedTensor::f32({1, 4, 1}, wv);
  EXPECT_EQ(run_reference_owned("LSTM", {{"hidden_size", std::int64_t{1}}}, {xd.view(), wf.view(), rd.view()},
                                {{DType::kFloat64, {}}, {DType::kFloat64, {}}, {DType::kFloat64, {}}})
                .status()
                .code(),
            err::kUnsupportedDataType);
}

// Random small configurations of every op (directions, layouts, optional inputs, lengths
// including 0): a bidirectional layer is its forward and reverse halves run separately,
// and layout 1 is layout 0 batch-first, value for value. Run under AddressSanitizer this
// also walks every index path of the kernels.
TEST(KernelsRecurrent, RandomConfigurationsAreConsistent) {
  std::mt19937 rng(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto rnd = [&](std::int64_t n) {
    F v(static_cast<std::size_t>(n));
    for (float& f : v) f = std::uniform_real_distribution<float>(-1, 1)(rng);
    return v;
  };
  // [a, b, c] → [b, a, c] (rank 3) or [a, b, c, d] → [c, a, b, d] (Y: [T, D, N, H] → [N, T, D, H]).
  auto to_batch_first = [](const F& v, const std::vector<std::int64_t>& d) {
    F out(v.size());
    if (d.size() == 3) {
      for (std::int64_t a = 0; a < d[0]; ++a)
        for (std::int64_t b = 0; b < d[1]; ++b)
          for (std::int64_t c = 0; c < d[2]; ++c)
            out[static_cast<std::size_t>((b * d[0] + a) * d[2] + c)] = v[static_cast<std::size_t>((a * d[1] + b) * d[2] + c)];
    } else {
      for (std::int64_t t = 0; t < d[0]; ++t)
        for (std::int64_t k = 0; k < d[1]; ++k)
          for (std::int64_t n = 0; n < d[2]; ++n)
            for (std::int64_t h = 0; h < d[3]; ++h)
              out[static_cast<std::size_t>(((n * d[0] + t) * d[1] + k) * d[3] + h)] =
                  v[static_cast<std::size_t>(((t * d[1] + k) * d[2] + n) * d[3] + h)];
    }
    return out;
  };
  for (const char* op : {"LSTM", "GRU", "RNN"}) {
    const bool lstm = std::string(op) == "LSTM";
    const std::int64_t G = lstm ? 4 : std::string(op) == "GRU" ? 3 : 1;
    for (int iter = 0; iter < 40; ++iter) {
      SCOPED_TRACE(std::string(op) + " iteration " + std::to_string(iter));
      const std::int64_t T = pick(1, 5), N = pick(1, 3), I = pick(1, 4), H = pick(1, 4);
      const F x = rnd(T * N * I), w = rnd(2 * G * H * I), r = rnd(2 * G * H * H), b = rnd(2 * 2 * G * H),
              h0 = rnd(2 * N * H), c0 = rnd(2 * N * H), p = rnd(2 * 3 * H);
      std::vector<std::int32_t> lens;
      for (std::int64_t k = 0; k < N; ++k) lens.push_back(pick(0, static_cast<int>(T)));
      const bool use_b = pick(0, 1) == 1, use_lens = pick(0, 1) == 1, use_h0 = pick(0, 1) == 1,
                 use_c0 = lstm && pick(0, 1) == 1, use_p = lstm && pick(0, 1) == 1;
      Attrs attrs{{"hidden_size", H}};
      if (std::string(op) == "GRU") attrs.set("linear_before_reset", std::int64_t{pick(0, 1)});
      if (pick(0, 2) == 0) attrs.set("clip", 0.5);
      // Inputs for D directions taken from the bidirectional weights (dir = -1: both).
      auto run = [&](int dir, bool batch_first) {
        const std::int64_t D = dir < 0 ? 2 : 1, d0 = dir < 0 ? 0 : dir;
        auto slice = [&](const F& v, std::int64_t per_dir) {
          return F(v.begin() + d0 * per_dir, v.begin() + (d0 + D) * per_dir);
        };
        auto state = [&](const F& v) {  // [2, N, H] → the directions used, maybe batch-first
          F s = slice(v, N * H);
          return batch_first ? to_batch_first(s, {D, N, H}) : s;
        };
        const std::vector<std::int64_t> sd = batch_first ? std::vector<std::int64_t>{N, D, H} : std::vector<std::int64_t>{D, N, H};
        std::vector<OwnedTensor> keep;
        keep.push_back(batch_first ? OwnedTensor::f32({N, T, I}, to_batch_first(x, {T, N, I})) : OwnedTensor::f32({T, N, I}, x));
        keep.push_back(OwnedTensor::f32({D, G * H, I}, slice(w, G * H * I)));
        keep.push_back(OwnedTensor::f32({D, G * H, H}, slice(r, G * H * H)));
        keep.push_back(use_b ? OwnedTensor::f32({D, 2 * G * H}, slice(b, 2 * G * H)) : OwnedTensor());
        keep.push_back(use_lens ? i32({N}, lens) : OwnedTensor());
        keep.push_back(use_h0 ? OwnedTensor::f32(sd, state(h0)) : OwnedTensor());
        if (lstm) {
          keep.push_back(use_c0 ? OwnedTensor::f32(sd, state(c0)) : OwnedTensor());
          keep.push_back(use_p ? OwnedTensor::f32({D, 3 * H}, slice(p, 3 * H)) : OwnedTensor());
        }
        std::vector<TensorView> in;
        for (auto& t : keep) in.push_back(t.view().data != nullptr && !t.view().dims.empty() ? t.view() : TensorView{});
        Attrs a = attrs;
        a.set("direction", std::string(dir < 0 ? "bidirectional" : dir == 0 ? "forward" : "reverse"));
        a.set("layout", std::int64_t{batch_first ? 1 : 0});
        return run_ok(op, a, in);
      };
      const auto both = run(-1, false), fwd = run(0, false), rev = run(1, false), bf = run(-1, true);
      ASSERT_EQ(both.size(), lstm ? 3u : 2u);
      ASSERT_EQ(bf.size(), both.size());
      // Y [T, 2, N, H] holds the forward half at direction 0 and the reverse at 1; the states likewise.
      const F y = both[0].values<float>(), yf = fwd[0].values<float>(), yr = rev[0].values<float>();
      for (std::int64_t t = 0; t < T; ++t)
        for (std::int64_t k = 0; k < N * H; ++k) {
          EXPECT_EQ(y[static_cast<std::size_t>((t * 2 + 0) * N * H + k)], yf[static_cast<std::size_t>(t * N * H + k)]);
          EXPECT_EQ(y[static_cast<std::size_t>((t * 2 + 1) * N * H + k)], yr[static_cast<std::size_t>(t * N * H + k)]);
        }
      for (std::size_t o = 1; o < both.size(); ++o) {
        F halves = fwd[o].values<float>();
        const F second = rev[o].values<float>();
        halves.insert(halves.end(), second.begin(), second.end());
        EXPECT_EQ(both[o].values<float>(), halves) << "output " << o;
      }
      EXPECT_EQ(bf[0].values<float>(), to_batch_first(y, {T, 2, N, H}));
      for (std::size_t o = 1; o < both.size(); ++o) {
        EXPECT_EQ(bf[o].values<float>(), to_batch_first(both[o].values<float>(), {2, N, H})) << "output " << o;
      }
      // Past each entry's length Y is zero.
      if (use_lens) {
        for (std::int64_t t = 0; t < T; ++t) {
          for (std::int64_t n = 0; n < N; ++n) {
            if (t < lens[static_cast<std::size_t>(n)]) continue;
            for (std::int64_t d = 0; d < 2; ++d) {
              for (std::int64_t h = 0; h < H; ++h) {
                EXPECT_EQ(y[static_cast<std::size_t>(((t * 2 + d) * N + n) * H + h)], 0.0f);
              }
            }
          }
        }
      }
    }
  }
}

TEST(KernelsRecurrent, Errors) {
  auto x = OwnedTensor::f32({2, 1, 3}, F(6, 0.5f));
  auto w = OwnedTensor::f32({1, 8, 3}, F(24, 0.1f));  // LSTM, hidden 2
  auto r = OwnedTensor::f32({1, 8, 2}, F(16, 0.1f));
  const std::vector<TensorView> in = {x.view(), w.view(), r.view()};
  auto code = [](const char* op, const Attrs& a, const std::vector<TensorView>& v) {
    auto res = run_reference_owned(op, a, v);
    if (!res.ok()) {
      EXPECT_NE(res.status().message().find(op), std::string::npos) << res.status().message();
    }
    return res.ok() ? 0 : res.status().code();
  };
  EXPECT_EQ(code("LSTM", {{"hidden_size", std::int64_t{2}}}, in), 0);
  EXPECT_EQ(code("LSTM", {{"hidden_size", std::int64_t{3}}}, in), err::kInvalidParam);  // W is not [1, 12, 3]
  EXPECT_EQ(code("GRU", {{"hidden_size", std::int64_t{2}}}, in), err::kInvalidParam);   // 8 rows are not 3 gates
  EXPECT_EQ(code("LSTM", {{"direction", std::string("sideways")}}, in), err::kParseModel);
  EXPECT_EQ(code("LSTM", {{"direction", std::string("bidirectional")}}, in), err::kInvalidParam);  // W has 1 direction
  EXPECT_EQ(code("LSTM", {{"layout", std::int64_t{2}}}, in), err::kParseModel);
  EXPECT_EQ(code("LSTM", {{"activations", std::string("Sigmoid,Tanh")}}, in), err::kParseModel);
  EXPECT_EQ(code("LSTM", {{"activations", std::string("Sigmoid,Tanh,Swish")}}, in), err::kParseModel);
  EXPECT_EQ(code("LSTM", {{"clip", -1.0}}, in), err::kInvalidParam);
  EXPECT_EQ(code("LSTM", {{"hidden_size", std::int64_t{-2}}}, in), err::kInvalidParam);
  auto bad_b = OwnedTensor::f32({1, 8}, F(8, 0));
  EXPECT_EQ(code("LSTM", {}, {x.view(), w.view(), r.view(), bad_b.view()}), err::kInvalidParam);
  auto long_len = i32({1}, {3});
  EXPECT_EQ(code("LSTM", {}, {x.view(), w.view(), r.view(), TensorView{}, long_len.view()}), err::kInvalidParam);
  auto neg_len = i32({1}, {-1});
  EXPECT_EQ(code("LSTM", {}, {x.view(), w.view(), r.view(), TensorView{}, neg_len.view()}), err::kInvalidParam);
  // Zero length: Y zero, Y_h and Y_c zero (onnxruntime's answer).
  auto zero_len = i32({1}, {0});
  auto z = run_ok("LSTM", {}, {x.view(), w.view(), r.view(), TensorView{}, zero_len.view()});
  ASSERT_EQ(z.size(), 3u);
  for (const auto& t : z) {
    for (float v : t.values<float>()) EXPECT_EQ(v, 0.0f);
  }
  // Y, Y_h, Y_c by default; at most 3 outputs (LSTM).
  auto shapes = infer_shapes("LSTM", {}, {x.view().dims, w.view().dims, r.view().dims});
  ASSERT_TRUE(shapes.ok()) << shapes.status().message();
  EXPECT_EQ(shapes->size(), 3u);
  OwnedTensor y(DType::kFloat32, {2, 1, 1, 2}), s1(DType::kFloat32, {1, 1, 2}), s2(DType::kFloat32, {1, 1, 2}),
      s3(DType::kFloat32, {1, 1, 2});
  EXPECT_EQ(run_reference("LSTM", {}, in, {y.view(), s1.view(), s2.view(), s3.view()}).code(), err::kInvalidParam);
}

}  // namespace
}  // namespace svp::kernels
