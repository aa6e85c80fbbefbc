// Recurrent nets (ONNX LSTM, GRU, RNN) compiled by svp_atc's library and run through the C
// API agree with onnxruntime (tests/oracle/ort_run.mjs, its own process) — never with our
// own kernels:
// - RecurrentFeatures: one-node models built here that cover what the ONNX backend cases
//   leave out (bidirectional with sequence_lens and initial states, peepholes, clip,
//   input_forget, layout 1, linear_before_reset 0 and 1, the alternative activation
//   functions with alpha/beta, Y/Y_h/Y_c each optional), on random weights.
// - TorchLstmAsTheVendorSampleRunsIt: the committed torch export tests/data/onnx/lstm_small.onnx
//   (bidirectional LSTM + Linear, T = 8) run the way the vendor's svp_npu sample runs its
//   LSTM case (sample_svp_npu_acl_lstm): the .om file read into cached memory and loaded,
//   datasets with task_buf and work_buf, svp_acl_mdl_set_total_t on the input dataset,
//   execute. With total_t = 5 the answer must be onnxruntime's on the same model with
//   sequence_lens = 5 given to its LSTM; then the full 8 steps; then the errors.
// - TorchGruWithTotalT: the same for tests/data/onnx/gru_small.onnx (batch-first GRU with
//   the Transposes and initial-state Expand torch writes around it; two outputs).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "acl/svp_acl_ext.h"
#include "common/npy.h"
#include "compiler/compile.h"
#include "compiler/om_json.h"
#include "model_io.h"
#include "npy_io.h"
#include "onnxruntime_oracle.h"
#include "onnx_builder.h"

namespace svp {
namespace {

namespace fs = std::filesystem;

using test::npm_modules;

void write_npy_i32(const std::string& path, const std::vector<std::int64_t>& dims, const std::vector<std::int32_t>& v) {
  std::ofstream out(path, std::ios::binary);
  const std::string h = npy::header("<i4", dims);
  out.write(h.data(), static_cast<std::streamsize>(h.size()));
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(std::int32_t)));
}

std::string file_name(std::string name) {
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') c = '_';
  }
  return name;
}

// A model input: float32 or int32 (sequence_lens) values.
struct Input {
  std::string name;
  std::vector<std::int64_t> dims;
  std::vector<float> f;
  std::vector<std::int32_t> i;
};

// Largest |a - b| and |b|.
std::pair<double, double> max_errors(const std::vector<float>& got, const std::vector<float>& want) {
  double err = 0, ref = 0;
  for (std::size_t k = 0; k < got.size() && k < want.size(); ++k) {
    err = std::max(err, std::fabs(static_cast<double>(got[k]) - want[k]));
    ref = std::max(ref, std::fabs(static_cast<double>(want[k])));
  }
  return {err, ref};
}

class RecurrentVsOnnxruntime : public test::RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_EQ(svp_acl_rt_set_device(0), SVP_ACL_SUCCESS);
    dir_ = fs::temp_directory_path() / ("svp_recurrent_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    ASSERT_TRUE(fs::exists(npm_modules() + "/onnxruntime-node"))
        << "the onnxruntime oracle is missing: run scripts/npm_deps.sh (or set SVP_NPM_MODULES)";
  }
  void TearDown() override {
    svp_acl_rt_reset_device(0);
    std::error_code ec;
    fs::remove_all(dir_, ec);
    RuntimeTest::TearDown();
  }

  // onnxruntime's outputs of `onnx_path` on `inputs`, by output name.
  std::map<std::string, test::NpyF32> oracle(const std::string& onnx_path, const std::vector<Input>& inputs,
                                             const std::string& tag) {
    std::vector<std::pair<std::string, std::string>> files;
    for (const Input& in : inputs) {
      const std::string p = (dir_ / (tag + "_" + file_name(in.name) + ".npy")).string();
      if (in.i.empty()) {
        test::write_npy_f32(p, in.dims, in.f);
      } else {
        write_npy_i32(p, in.dims, in.i);
      }
      files.emplace_back(in.name, p);
    }
    const std::string cmd = test::onnxruntime_command(onnx_path, (dir_ / (tag + "_ort")).string(), files);
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::map<std::string, test::NpyF32> out;
    for (const auto& e : fs::directory_iterator(dir_ / (tag + "_ort"))) {
      if (e.path().extension() == ".npy") out[e.path().stem().string()] = test::read_npy_f32(e.path().string());
    }
    return out;
  }

  compiler::CompileResult compile(const std::string& onnx_path) {
    compiler::CompileOptions o;
    o.model = onnx_path;
    o.compile_mode = "float";
    auto r = compiler::compile(o);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? std::move(*r) : compiler::CompileResult{};
  }

  // Every output of `run` equals onnxruntime's `want` (by name) within float rounding.
  static void expect_outputs(const compiler::CompileResult& c, test::ModelRun& run,
                             std::map<std::string, test::NpyF32>& want, const std::string& what) {
    const auto& outs = c.model.program.output_tensors();
    ASSERT_FALSE(outs.empty());
    for (std::size_t k = 0; k < outs.size(); ++k) {
      const std::string name = c.model.program.tensors[static_cast<std::size_t>(outs[k])].name;
      ASSERT_TRUE(want.count(file_name(name))) << what << ": onnxruntime gave no output " << name;
      const std::vector<float> got = run.output<float>(k);
      const test::NpyF32& w = want[file_name(name)];
      ASSERT_EQ(got.size(), w.data.size()) << what << " " << name;
      const auto [err, ref] = max_errors(got, w.data);
      std::printf("%s output %s: max |error| %.3g (max |value| %.3g)\n", what.c_str(), name.c_str(), err, ref);
      EXPECT_LE(err, 2e-5 * std::max(1.0, ref)) << what << " " << name;
    }
  }

  fs::path dir_;
};

// ---------------------------------------------------------------------------------------
// One-node models over the operators' features.

struct RnnCase {
  std::string name;
  std::string op;                         // LSTM | GRU | RNN
  std::int64_t opset = 14;
  std::int64_t T = 4, N = 3, I = 5, H = 4;
  std::string direction = "forward";
  std::int64_t layout = 0;
  bool bias = true, seq_lens = false, init_h = false, init_c = false, peepholes = false;
  std::vector<std::string> activations;
  std::vector<float> alphas, betas;
  float clip = 0;
  std::int64_t input_forget = -1, linear_before_reset = -1;
  std::vector<bool> outputs = {true, true, true};  // Y, Y_h, Y_c (LSTM) as used
};

void attr_int(onnx::NodeProto& n, const std::string& name, std::int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void attr_float(onnx::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

void attr_floats(onnx::NodeProto& n, const std::string& name, const std::vector<float>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float x : v) a->add_floats(x);
}

void attr_string(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

void attr_strings(onnx::NodeProto& n, const std::string& name, const std::vector<std::string>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRINGS);
  for (const auto& s : v) a->add_strings(s);
}

// Builds the case's model (weights as initializers; X, sequence_lens and the initial
// states as model inputs) and its inputs. onnxruntime refuses layout 1 ("Batchwise
// recurrent operations (layout == 1) are not supported"): `for_ort` writes such a case as
// ONNX defines layout 1, the layout-0 op between Transposes of X, the states and the outputs.
std::string build_case(const RnnCase& c, const fs::path& dir, std::vector<Input>* inputs, bool for_ort) {
  std::mt19937 rng(static_cast<unsigned>(std::hash<std::string>{}(c.name)));
  std::uniform_real_distribution<float> u(-0.7f, 0.7f);
  auto rnd = [&](std::int64_t n) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (float& f : v) f = u(rng);
    return v;
  };
  const std::int64_t G = c.op == "LSTM" ? 4 : c.op == "GRU" ? 3 : 1;
  const std::int64_t D = c.direction == "bidirectional" ? 2 : 1;
  const bool bf = c.layout == 1;
  test::OnnxBuilder b(c.opset);
  const std::vector<std::int64_t> xd = bf ? std::vector<std::int64_t>{c.N, c.T, c.I} : std::vector<std::int64_t>{c.T, c.N, c.I};
  const std::vector<std::int64_t> sd = bf ? std::vector<std::int64_t>{c.N, D, c.H} : std::vector<std::int64_t>{D, c.N, c.H};
  b.input("X", xd);
  inputs->push_back({"X", xd, rnd(c.T * c.N * c.I), {}});
  b.initializer("W", {D, G * c.H, c.I}, rnd(D * G * c.H * c.I));
  b.initializer("R", {D, G * c.H, c.H}, rnd(D * G * c.H * c.H));
  std::vector<std::string> in = {"X", "W", "R", "", "", "", "", ""};
  if (c.bias) {
    b.initializer("B", {D, 2 * G * c.H}, rnd(D * 2 * G * c.H));
    in[3] = "B";
  }
  if (c.seq_lens) {
    b.input("sequence_lens", {c.N}, onnx::TensorProto::INT32);
    std::vector<std::int32_t> lens;
    for (std::int64_t k = 0; k < c.N; ++k) lens.push_back(static_cast<std::int32_t>(std::max<std::int64_t>(1, c.T - k)));
    inputs->push_back({"sequence_lens", {c.N}, {}, lens});
    in[4] = "sequence_lens";
  }
  if (c.init_h) {
    b.input("initial_h", sd);
    inputs->push_back({"initial_h", sd, rnd(D * c.N * c.H), {}});
    in[5] = "initial_h";
  }
  if (c.init_c) {
    b.input("initial_c", sd);
    inputs->push_back({"initial_c", sd, rnd(D * c.N * c.H), {}});
    in[6] = "initial_c";
  }
  if (c.peepholes) {
    b.initializer("P", {D, 3 * c.H}, rnd(D * 3 * c.H));
    in[7] = "P";
  }
  while (!in.empty() && in.back().empty()) in.pop_back();
  const std::vector<std::string> names = {"Y", "Y_h", "Y_c"};
  std::vector<std::string> out;
  const std::size_t n_out = c.op == "LSTM" ? 3 : 2;
  for (std::size_t k = 0; k < n_out; ++k) out.push_back(c.outputs[k] ? names[k] : "");
  while (!out.empty() && out.back().empty()) out.pop_back();
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (out[k].empty()) continue;
    b.output(out[k], k == 0 ? (bf ? std::vector<std::int64_t>{c.N, c.T, D, c.H} : std::vector<std::int64_t>{c.T, D, c.N, c.H})
                            : sd);
  }
  const bool transpose = bf && for_ort;
  if (transpose) {
    for (std::size_t k : {std::size_t{0}, std::size_t{5}, std::size_t{6}}) {
      if (k >= in.size() || in[k].empty()) continue;
      onnx::NodeProto& t = b.node("Transpose", {in[k]}, {in[k] + "_layout0"});
      test::OnnxBuilder::attr_ints(t, "perm", {1, 0, 2});
      in[k] += "_layout0";
    }
    for (std::size_t k = 0; k < out.size(); ++k) {
      if (out[k].empty()) continue;
      onnx::NodeProto& t = b.node("Transpose", {out[k] + "_layout0"}, {out[k]});
      test::OnnxBuilder::attr_ints(t, "perm", k == 0 ? std::vector<std::int64_t>{2, 0, 1, 3} : std::vector<std::int64_t>{1, 0, 2});
      out[k] += "_layout0";
    }
  }
  onnx::NodeProto& n = b.node(c.op, in, out, c.op + "_node");
  attr_int(n, "hidden_size", c.H);
  attr_string(n, "direction", c.direction);
  if (c.opset >= 14) attr_int(n, "layout", transpose ? 0 : c.layout);
  if (!c.activations.empty()) attr_strings(n, "activations", c.activations);
  if (!c.alphas.empty()) attr_floats(n, "activation_alpha", c.alphas);
  if (!c.betas.empty()) attr_floats(n, "activation_beta", c.betas);
  if (c.clip > 0) attr_float(n, "clip", c.clip);
  if (c.input_forget >= 0) attr_int(n, "input_forget", c.input_forget);
  if (c.linear_before_reset >= 0) attr_int(n, "linear_before_reset", c.linear_before_reset);
  return b.write((dir / (c.name + (for_ort ? "_ort.onnx" : ".onnx"))).string());
}

RnnCase make_case(const std::string& name, const std::string& op) {
  RnnCase c;
  c.name = name;
  c.op = op;
  return c;
}

std::vector<RnnCase> feature_cases() {
  std::vector<RnnCase> v;
  {
    RnnCase c = make_case("lstm_bidirectional_everything", "LSTM");
    c.direction = "bidirectional";
    c.seq_lens = c.init_h = c.init_c = c.peepholes = true;
    v.push_back(c);
  }
  {
    RnnCase c = make_case("lstm_reverse_layout1_clip_input_forget_activations", "LSTM");
    c.direction = "reverse";
    c.layout = 1;
    c.seq_lens = c.init_h = true;
    c.clip = 0.6f;
    c.input_forget = 1;
    c.activations = {"HardSigmoid", "ScaledTanh", "Softsign"};
    c.alphas = {0.3f, 0.9f};
    c.betas = {0.45f, 1.2f};
    c.outputs = {false, true, true};
    v.push_back(c);
  }
  {
    RnnCase c = make_case("lstm_opset7_no_bias_only_y_c", "LSTM");
    c.opset = 7;
    c.bias = false;
    c.activations = {"Sigmoid", "Elu", "Softplus"};
    c.alphas = {0.7f};
    c.outputs = {false, false, true};
    v.push_back(c);
  }
  {
    RnnCase c = make_case("gru_forward_reset_after", "GRU");
    c.seq_lens = c.init_h = true;
    c.linear_before_reset = 0;
    v.push_back(c);
  }
  {
    RnnCase c = make_case("gru_bidirectional_linear_before_reset_layout1", "GRU");
    c.direction = "bidirectional";
    c.layout = 1;
    c.seq_lens = c.init_h = true;
    c.linear_before_reset = 1;
    c.activations = {"Sigmoid", "Tanh", "HardSigmoid", "LeakyRelu"};
    c.alphas = {0.25f, 0.1f};
    c.betas = {0.4f};
    v.push_back(c);
  }
  {
    RnnCase c = make_case("gru_reverse_clip_only_y", "GRU");
    c.direction = "reverse";
    c.clip = 0.5f;
    c.seq_lens = true;
    c.outputs = {true, false};
    v.push_back(c);
  }
  {
    RnnCase c = make_case("rnn_bidirectional_relu_leakyrelu", "RNN");
    c.direction = "bidirectional";
    c.seq_lens = c.init_h = true;
    c.activations = {"Relu", "LeakyRelu"};
    c.alphas = {0.2f};
    v.push_back(c);
  }
  {
    RnnCase c = make_case("rnn_reverse_layout1_affine", "RNN");
    c.direction = "reverse";
    c.layout = 1;
    c.activations = {"Affine"};
    c.alphas = {0.5f};
    c.betas = {0.1f};
    v.push_back(c);
  }
  {
    RnnCase c = make_case("rnn_thresholdedrelu_only_y_h", "RNN");
    c.activations = {"ThresholdedRelu"};
    c.alphas = {0.05f};
    c.init_h = true;
    c.outputs = {false, true};
    v.push_back(c);
  }
  return v;
}

TEST_F(RecurrentVsOnnxruntime, RecurrentFeatures) {
  for (const RnnCase& c : feature_cases()) {
    SCOPED_TRACE(c.name);
    std::vector<Input> inputs, same_inputs;
    const std::string path = build_case(c, dir_, &inputs, false);
    auto want = oracle(build_case(c, dir_, &same_inputs, true), inputs, c.name);
    compiler::CompileResult compiled = compile(path);
    if (compiled.model.image.empty()) continue;
    test::ModelRun run(compiled.model.image);
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      run.set_input(k, inputs[k].i.empty() ? static_cast<const void*>(inputs[k].f.data()) : inputs[k].i.data());
    }
    ASSERT_EQ(run.execute(), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
    expect_outputs(compiled, run, want, c.name);
  }
}

// ---------------------------------------------------------------------------------------
// torch exports run as the vendor sample runs its LSTM.

// `onnx_path` with sequence_lens = `steps` given to its recurrent node (batch 1): what an
// execution with svp_acl_mdl_set_total_t(steps) must compute, by the ONNX definition.
std::string with_sequence_lens(const std::string& onnx_path, std::int32_t steps, const fs::path& out) {
  onnx::ModelProto m;
  std::ifstream in(onnx_path, std::ios::binary);
  EXPECT_TRUE(m.ParseFromIstream(&in)) << onnx_path;
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name("svp_test_sequence_lens");
  t->set_data_type(onnx::TensorProto::INT32);
  t->add_dims(1);
  t->add_int32_data(steps);
  int found = 0;
  for (auto& n : *m.mutable_graph()->mutable_node()) {
    if (n.op_type() != "LSTM" && n.op_type() != "GRU" && n.op_type() != "RNN") continue;
    while (n.input_size() < 5) n.add_input("");
    n.set_input(4, "svp_test_sequence_lens");
    ++found;
  }
  EXPECT_EQ(found, 1) << onnx_path;
  std::ofstream o(out, std::ios::binary);
  m.SerializeToOstream(&o);
  return out.string();
}

// The vendor sample's loading: the .om file read into cached memory, flushed, loaded from
// there. The model runs from that memory (no copy), which stays allocated until unload.
class VendorStyleModel {
 public:
  explicit VendorStyleModel(const std::string& om_path) {
    std::ifstream f(om_path, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_EQ(svp_acl_rt_malloc_cached(&mem_, bytes.size(), SVP_ACL_MEM_MALLOC_NORMAL_ONLY), SVP_ACL_SUCCESS);
    std::memcpy(mem_, bytes.data(), bytes.size());
    EXPECT_EQ(svp_acl_rt_mem_flush(mem_, bytes.size()), SVP_ACL_SUCCESS);
    EXPECT_EQ(svp_acl_mdl_load_from_mem(mem_, bytes.size(), &id_), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
  }
  ~VendorStyleModel() {
    EXPECT_EQ(svp_acl_mdl_unload(id_), SVP_ACL_SUCCESS);
    EXPECT_EQ(svp_acl_rt_free(mem_), SVP_ACL_SUCCESS);
  }
  VendorStyleModel(const VendorStyleModel&) = delete;
  VendorStyleModel& operator=(const VendorStyleModel&) = delete;
  std::uint32_t id() const { return id_; }

 private:
  void* mem_ = nullptr;
  std::uint32_t id_ = 0;
};

class VendorStyleRun {
 public:
  // Datasets as sample_svp_npu_acl_init_task builds them: a cached buffer per data input
  // (size_by_index), then task_buf and work_buf, then the outputs.
  explicit VendorStyleRun(std::uint32_t id) : id_(id) {
    desc_ = svp_acl_mdl_create_desc();
    EXPECT_EQ(svp_acl_mdl_get_desc(desc_, id_), SVP_ACL_SUCCESS);
    in_ = svp_acl_mdl_create_dataset();
    out_ = svp_acl_mdl_create_dataset();
    const size_t n = svp_acl_mdl_get_num_inputs(desc_);
    for (size_t i = 0; i < n; ++i) {
      add(in_, svp_acl_mdl_get_input_size_by_index(desc_, i), svp_acl_mdl_get_input_default_stride(desc_, i));
    }
    for (size_t i = 0; i < svp_acl_mdl_get_num_outputs(desc_); ++i) {
      add(out_, svp_acl_mdl_get_output_size_by_index(desc_, i), svp_acl_mdl_get_output_default_stride(desc_, i));
    }
  }
  ~VendorStyleRun() {
    for (void* p : mem_) svp_acl_rt_free(p);
    for (auto* b : bufs_) svp_acl_destroy_data_buffer(b);
    svp_acl_mdl_destroy_dataset(in_);
    svp_acl_mdl_destroy_dataset(out_);
    svp_acl_mdl_destroy_desc(desc_);
  }
  svp_acl_mdl_dataset* input() const { return in_; }
  // Input 0 (dense rows written at the input's stride), flushed as the sample does.
  void set_input(const std::vector<float>& x) {
    svp_acl_data_buffer* b = svp_acl_mdl_get_dataset_buffer(in_, 0);
    auto* base = static_cast<std::uint8_t*>(svp_acl_get_data_buffer_addr(b));
    const size_t stride = svp_acl_get_data_buffer_stride(b);
    svp_acl_mdl_io_dims d{};
    svp_acl_mdl_get_input_dims(desc_, 0, &d);
    const size_t row = static_cast<size_t>(d.dims[d.dim_count - 1]);
    for (size_t r = 0; r * row < x.size(); ++r) std::memcpy(base + r * stride, x.data() + r * row, row * sizeof(float));
    svp_acl_rt_mem_flush(base, svp_acl_get_data_buffer_size(b));
  }
  svp_acl_error execute() { return svp_acl_mdl_execute(id_, in_, out_); }
  // Output k as dense floats, after invalidating the cache as the sample does.
  std::vector<float> output(size_t k) {
    svp_acl_data_buffer* b = svp_acl_mdl_get_dataset_buffer(out_, k);
    auto* base = static_cast<std::uint8_t*>(svp_acl_get_data_buffer_addr(b));
    svp_acl_rt_mem_invalidate(base, svp_acl_get_data_buffer_size(b));
    const size_t stride = svp_acl_get_data_buffer_stride(b);
    svp_acl_mdl_io_dims d{};
    svp_acl_mdl_get_output_dims(desc_, k, &d);
    size_t rows = 1;
    for (size_t i = 0; i + 1 < d.dim_count; ++i) rows *= static_cast<size_t>(d.dims[i]);
    const size_t row = static_cast<size_t>(d.dims[d.dim_count - 1]);
    std::vector<float> v(rows * row);
    for (size_t r = 0; r < rows; ++r) std::memcpy(v.data() + r * row, base + r * stride, row * sizeof(float));
    return v;
  }

 private:
  void add(svp_acl_mdl_dataset* ds, size_t size, size_t stride) {
    void* p = nullptr;
    ASSERT_EQ(svp_acl_rt_malloc_cached(&p, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY), SVP_ACL_SUCCESS);
    std::memset(p, 0, size);
    svp_acl_rt_mem_flush(p, size);
    mem_.push_back(p);
    bufs_.push_back(svp_acl_create_data_buffer(p, size, stride));
    EXPECT_EQ(svp_acl_mdl_add_dataset_buffer(ds, bufs_.back()), SVP_ACL_SUCCESS);
  }
  std::uint32_t id_;
  svp_acl_mdl_desc* desc_ = nullptr;
  svp_acl_mdl_dataset* in_ = nullptr;
  svp_acl_mdl_dataset* out_ = nullptr;
  std::vector<void*> mem_;
  std::vector<svp_acl_data_buffer*> bufs_;
};

// Compares every output of `run` with onnxruntime's, by name.
void expect_like(const compiler::CompileResult& c, VendorStyleRun& run, std::map<std::string, test::NpyF32>& want,
                 const std::string& what) {
  const auto& outs = c.model.program.output_tensors();
  for (std::size_t k = 0; k < outs.size(); ++k) {
    const std::string name = c.model.program.tensors[static_cast<std::size_t>(outs[k])].name;
    ASSERT_TRUE(want.count(file_name(name))) << what << ": no oracle output " << name;
    const std::vector<float> got = run.output(k);
    const test::NpyF32& w = want[file_name(name)];
    ASSERT_EQ(got.size(), w.data.size()) << what << " " << name;
    const auto [err, ref] = max_errors(got, w.data);
    std::printf("%s output %s: max |error| %.3g (max |value| %.3g)\n", what.c_str(), name.c_str(), err, ref);
    EXPECT_LE(err, 2e-5 * std::max(1.0, ref)) << what << " " << name;
  }
}

TEST_F(RecurrentVsOnnxruntime, TorchLstmAsTheVendorSampleRunsIt) {
  const std::string onnx_path = SVP_SOURCE_DIR "/tests/data/onnx/lstm_small.onnx";
  compiler::CompileResult c = compile(onnx_path);
  ASSERT_FALSE(c.model.image.empty());
  // The compiler: T = 8 is the compiled maximum; the LSTM runs on the NPU core (om.json).
  EXPECT_EQ(c.model.program.flags.max_total_t, 8u);
  const nlohmann::json om = compiler::om_json(c.model.program, c.model.weights.size());
  int lstm_ops = 0;
  for (const auto& op : om.at("ops")) {
    if (op.at("type") == "LSTM") {
      ++lstm_ops;
      EXPECT_EQ(op.at("device_type"), "NPU");
    }
  }
  EXPECT_EQ(lstm_ops, 1) << om.dump(1);
  const std::string om_path = (dir_ / "lstm.om").string();
  {
    std::ofstream f(om_path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(c.model.image.data()), static_cast<std::streamsize>(c.model.image.size()));
  }

  const std::vector<float> x = test::random_floats(8 * 1 * 4, 21);
  const std::vector<Input> in = {{"x", {8, 1, 4}, x, {}}};
  auto want5 = oracle(with_sequence_lens(onnx_path, 5, dir_ / "lstm_t5.onnx"), in, "t5");
  auto want8 = oracle(onnx_path, in, "t8");
  // The two answers differ (else total_t would not be tested): steps 5..7 and the reverse
  // direction's start.
  ASSERT_TRUE(want5.count("y") && want8.count("y"));
  EXPECT_GT(max_errors(want5["y"].data, want8["y"].data).first, 1e-3);

  VendorStyleModel model(om_path);
  const std::uint32_t id = model.id();
  std::uint32_t net_type = 0;
  ASSERT_EQ(svp_acl_ext_get_mdl_net_type(id, &net_type), SVP_ACL_SUCCESS);
  EXPECT_EQ(net_type, static_cast<std::uint32_t>(SVP_ACL_NET_TYPE_RECURRENT));
  {
    VendorStyleRun run(id);
    run.set_input(x);
    ASSERT_EQ(svp_acl_mdl_set_total_t(id, run.input(), 5), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
    ASSERT_EQ(run.execute(), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
    expect_like(c, run, want5, "lstm total_t=5");
    // The same dataset at the compiled maximum, then a fresh one without the call (all 8).
    ASSERT_EQ(svp_acl_mdl_set_total_t(id, run.input(), 8), SVP_ACL_SUCCESS);
    ASSERT_EQ(run.execute(), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
    expect_like(c, run, want8, "lstm total_t=8");
    // Outside 1..8: the vendor's invalid-parameter error, and the dataset keeps its 8.
    EXPECT_EQ(svp_acl_mdl_set_total_t(id, run.input(), 9), SVP_ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(svp_acl_mdl_set_total_t(id, run.input(), 0), SVP_ACL_ERROR_INVALID_PARAM);
    ASSERT_EQ(run.execute(), SVP_ACL_SUCCESS);
    expect_like(c, run, want8, "lstm after rejected total_t");
  }
  {
    VendorStyleRun run(id);
    run.set_input(x);
    ASSERT_EQ(run.execute(), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
    expect_like(c, run, want8, "lstm without set_total_t");
  }
}

TEST_F(RecurrentVsOnnxruntime, TorchGruWithTotalT) {
  const std::string onnx_path = SVP_SOURCE_DIR "/tests/data/onnx/gru_small.onnx";
  compiler::CompileResult c = compile(onnx_path);
  ASSERT_FALSE(c.model.image.empty());
  EXPECT_EQ(c.model.program.flags.max_total_t, 8u);
  const std::string om_path = (dir_ / "gru.om").string();
  {
    std::ofstream f(om_path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(c.model.image.data()), static_cast<std::streamsize>(c.model.image.size()));
  }
  const std::vector<float> x = test::random_floats(1 * 8 * 4, 22);
  const std::vector<Input> in = {{"x", {1, 8, 4}, x, {}}};
  for (std::uint64_t t : {1u, 3u, 8u}) {
    auto want = oracle(with_sequence_lens(onnx_path, static_cast<std::int32_t>(t), dir_ / "gru_t.onnx"), in,
                       "gru_t" + std::to_string(t));
    VendorStyleModel model(om_path);
    VendorStyleRun run(model.id());
    run.set_input(x);
    ASSERT_EQ(svp_acl_mdl_set_total_t(model.id(), run.input(), t), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
    ASSERT_EQ(run.execute(), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
    expect_like(c, run, want, "gru total_t=" + std::to_string(t));
  }
}

// total_t belongs to recurrent nets: on a CNN (the committed LeNet) the call is the
// vendor's invalid-parameter error and the net type is CNN.
TEST_F(RecurrentVsOnnxruntime, TotalTOnANonRecurrentModelIsRejected) {
  compiler::CompileResult c = compile(SVP_SOURCE_DIR "/models/lenet_fashion_mnist.onnx");
  ASSERT_FALSE(c.model.image.empty());
  EXPECT_EQ(c.model.program.flags.max_total_t, 0u);
  test::ModelRun run(c.model.image);
  std::uint32_t net_type = 99;
  ASSERT_EQ(svp_acl_ext_get_mdl_net_type(run.id(), &net_type), SVP_ACL_SUCCESS);
  EXPECT_EQ(net_type, static_cast<std::uint32_t>(SVP_ACL_NET_TYPE_CNN));
  EXPECT_EQ(svp_acl_mdl_set_total_t(run.id(), run.input(), 1), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("not a recurrent net"), std::string::npos)
      << svp_acl_get_recent_err_msg();
}

}  // namespace
}  // namespace svp
