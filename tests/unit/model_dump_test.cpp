// Model dump (svp_acl_mdl_init_dump / set_dump / finalize_dump and acl.json "dump"): the
// vendor's state rules, and that the files hold what the execution computed — checked
// against the reference kernels evaluated here, layer by layer, from the same input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/invoke.h"
#include "model_io.h"

namespace svp {
namespace {

namespace fs = std::filesystem;
using compiler::BuiltModel;
using compiler::ModelBuilder;
using kernels::OwnedTensor;
using model::DType;
using nlohmann::json;
using test::ModelRun;

// x [1,3,8,8] → conv (4 filters, pad 1) → relu → gap → flatten → fc (5): the conv and
// relu fuse on the fast path, so the conv's own output is never materialised.
struct DumpNet {
  std::vector<float> w = test::random_floats(4 * 3 * 3 * 3, 1, -0.5f, 0.5f);
  std::vector<float> b = test::random_floats(4, 2);
  std::vector<float> fw = test::random_floats(4 * 5, 3);
  std::vector<float> fb = test::random_floats(5, 4);
  BuiltModel model;

  explicit DumpNet(const std::string& name = "dumpnet") {
    ModelBuilder mb(name);
    auto x = mb.add_input("x", DType::kFloat32, {1, 3, 8, 8});
    compiler::LayerOptions conv;
    conv.attrs.set("pads", std::vector<std::int64_t>{1, 1, 1, 1});
    auto c = mb.add_layer("conv", "Conv", {x, mb.add_constant("w", {4, 3, 3, 3}, w), mb.add_constant("b", {4}, b)},
                          conv);
    auto r = mb.add_layer("relu", "Relu", {c});
    auto g = mb.add_layer("gap", "GlobalAveragePool", {r});
    auto f = mb.add_layer("flat", "Flatten", {g});
    compiler::LayerOptions gemm;
    auto y = mb.add_layer("fc", "Gemm", {f, mb.add_constant("fw", {4, 5}, fw), mb.add_constant("fb", {5}, fb)}, gemm);
    mb.add_output(y);
    auto built = mb.build();
    EXPECT_TRUE(built.ok()) << built.status().message();
    model = std::move(*built);
  }

  // Reference results of every layer for input `x`, by layer name.
  std::map<std::string, OwnedTensor> reference(const std::vector<float>& x) const {
    std::map<std::string, OwnedTensor> out;
    auto run = [&](const std::string& name, const std::string& op, const model::Attrs& attrs,
                   const std::vector<model::TensorView>& in) {
      auto r = kernels::run_reference_owned(op, attrs, in);
      EXPECT_TRUE(r.ok()) << r.status().message();
      out[name] = std::move((*r)[0]);
      return out[name].view();
    };
    const OwnedTensor xt = OwnedTensor::from(DType::kFloat32, {1, 3, 8, 8}, x);
    const OwnedTensor wt = OwnedTensor::from(DType::kFloat32, {4, 3, 3, 3}, w);
    const OwnedTensor bt = OwnedTensor::from(DType::kFloat32, {4}, b);
    const OwnedTensor fwt = OwnedTensor::from(DType::kFloat32, {4, 5}, fw);
    const OwnedTensor fbt = OwnedTensor::from(DType::kFloat32, {5}, fb);
    model::Attrs pads;
    pads.set("pads", std::vector<std::int64_t>{1, 1, 1, 1});
    auto c = run("conv", "Conv", pads, {xt.view(), wt.view(), bt.view()});
    auto r = run("relu", "Relu", {}, {c});
    auto g = run("gap", "GlobalAveragePool", {}, {r});
    auto f = run("flat", "Flatten", {}, {g});
    run("fc", "Gemm", {}, {f, fwt.view(), fbt.view()});
    return out;
  }
};

// A fresh directory under the system temp dir, removed afterwards.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/svp_dump_test_XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

std::vector<json> read_index(const std::string& dir) {
  std::vector<json> lines;
  std::ifstream in(dir + "/index.jsonl");
  std::string line;
  while (std::getline(in, line)) lines.push_back(json::parse(line));
  return lines;
}

// The float32 data of a .npy file written by the dumper (header length from the file).
std::vector<float> read_npy_floats(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  EXPECT_GE(s.size(), 10u);
  EXPECT_EQ(s.substr(1, 5), "NUMPY");
  const std::size_t header = 10 + static_cast<unsigned char>(s[8]) + 256u * static_cast<unsigned char>(s[9]);
  EXPECT_NE(s.find("'descr': '<f4'"), std::string::npos);
  std::vector<float> v((s.size() - header) / sizeof(float));
  std::memcpy(v.data(), s.data() + header, v.size() * sizeof(float));
  return v;
}

class ModelDumpTest : public test::RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_EQ(svp_acl_rt_set_device(0), SVP_ACL_SUCCESS);
  }
  void TearDown() override {
    svp_acl_rt_reset_device(0);
    RuntimeTest::TearDown();
  }
  std::string config(const std::string& list, const std::string& mode = "output") {
    return write_file(dir_.path() + "/dump.json", R"({"dump": {"dump_path": ")" + dir_.path() + R"(", "dump_mode": ")" +
                                                      mode + R"(", "dump_list": )" + list + "}}");
  }
  TempDir dir_;
};

TEST_F(ModelDumpTest, TheApiFollowsTheVendorStateRules) {
  EXPECT_EQ(svp_acl_mdl_set_dump(config("[]").c_str()), SVP_ACL_ERROR_DUMP_NOT_RUN);
  EXPECT_EQ(svp_acl_mdl_finalize_dump(), SVP_ACL_ERROR_DUMP_NOT_RUN);
  ASSERT_EQ(svp_acl_mdl_init_dump(), SVP_ACL_SUCCESS);
  EXPECT_EQ(svp_acl_mdl_init_dump(), SVP_ACL_ERROR_DUMP_ALREADY_RUN);
  EXPECT_EQ(svp_acl_mdl_set_dump(nullptr), SVP_ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(svp_acl_mdl_set_dump((dir_.path() + "/missing.json").c_str()), SVP_ACL_ERROR_INVALID_DUMP_CONFIG);
  EXPECT_EQ(svp_acl_mdl_set_dump(write_file(dir_.path() + "/bad.json", "{\"dump\": ").c_str()),
            SVP_ACL_ERROR_INVALID_DUMP_CONFIG);
  EXPECT_EQ(svp_acl_mdl_set_dump(write_file(dir_.path() + "/nodump.json", "{}").c_str()),
            SVP_ACL_ERROR_INVALID_DUMP_CONFIG);
  EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("\"dump\""), std::string::npos);
  EXPECT_EQ(svp_acl_mdl_set_dump(config("[]").c_str()), SVP_ACL_SUCCESS);
  EXPECT_EQ(svp_acl_mdl_finalize_dump(), SVP_ACL_SUCCESS);
  EXPECT_EQ(svp_acl_mdl_finalize_dump(), SVP_ACL_ERROR_DUMP_NOT_RUN);
}

TEST_F(ModelDumpTest, FilesHoldWhatTheExecutionComputed) {
  DumpNet net;
  ASSERT_EQ(svp_acl_mdl_init_dump(), SVP_ACL_SUCCESS);
  ASSERT_EQ(svp_acl_mdl_set_dump(config(R"([{"model_name": "dumpnet"}])", "all").c_str()), SVP_ACL_SUCCESS);
  ModelRun run(net.model.image);
  const std::vector<float> x = test::random_floats(3 * 8 * 8, 7);
  run.set_input(0, x.data());
  ASSERT_EQ(svp_acl_mdl_execute(run.id(), run.input(), run.output()), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
  ASSERT_EQ(svp_acl_mdl_finalize_dump(), SVP_ACL_SUCCESS);  // drains the writer

  const std::string model_dir = dir_.path() + "/dumpnet";
  const auto index = read_index(model_dir);
  const auto ref = net.reference(x);
  std::set<std::string> seen;
  for (const json& e : index) {
    EXPECT_EQ(e["model"], "dumpnet");
    EXPECT_EQ(e["execution"], 0);
    const std::string layer = e["layer"];
    const std::string io = e["io"];
    seen.insert(layer + "." + io);
    if (layer == "conv" && io == "output") {
      // Fused with the relu on the fast path: said, not faked.
      EXPECT_TRUE(e["file"].is_null());
      EXPECT_NE(e["note"].get<std::string>().find("fused"), std::string::npos) << e.dump();
      continue;
    }
    if (io == "input") continue;
    ASSERT_TRUE(e["file"].is_string()) << e.dump();
    const auto got = read_npy_floats(model_dir + "/" + e["file"].get<std::string>());
    const OwnedTensor& want = ref.at(layer);
    ASSERT_EQ(got.size(), static_cast<std::size_t>(want.view().elements())) << layer;
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(got[i], want.view().as<float>()[i], 1e-4) << layer << "[" << i << "]";
    }
  }
  // Every layer's output, and the inputs that are not constants (x, the activations).
  for (const char* want : {"conv.output", "relu.output", "gap.output", "flat.output", "fc.output", "conv.input",
                           "relu.input", "fc.input"}) {
    EXPECT_TRUE(seen.count(want)) << want;
  }
  // The conv's input is the model input, dumped exactly.
  for (const json& e : index) {
    if (e["layer"] == "conv" && e["io"] == "input" && e["index"] == 0) {
      EXPECT_EQ(read_npy_floats(model_dir + "/" + e["file"].get<std::string>()), x);
    }
  }
}

TEST_F(ModelDumpTest, OnlyTheListedModelsAndLayersAreDumped) {
  DumpNet net;
  DumpNet other("othernet");
  ASSERT_EQ(svp_acl_mdl_init_dump(), SVP_ACL_SUCCESS);
  ASSERT_EQ(svp_acl_mdl_set_dump(config(R"([{"model_name": "dumpnet", "layer": ["gap", "nosuchlayer"]}])").c_str()),
            SVP_ACL_SUCCESS);
  ModelRun a(net.model.image);
  ModelRun b(other.model.image);
  ASSERT_EQ(svp_acl_mdl_execute(a.id(), a.input(), a.output()), SVP_ACL_SUCCESS);
  ASSERT_EQ(svp_acl_mdl_execute(b.id(), b.input(), b.output()), SVP_ACL_SUCCESS);
  ASSERT_EQ(svp_acl_mdl_finalize_dump(), SVP_ACL_SUCCESS);
  const auto index = read_index(dir_.path() + "/dumpnet");
  ASSERT_EQ(index.size(), 1u);
  EXPECT_EQ(index[0]["layer"], "gap");
  EXPECT_FALSE(fs::exists(dir_.path() + "/othernet"));
}

TEST_F(ModelDumpTest, DumpStepSelectsTheExecutionsCountedFromZero) {
  DumpNet net;
  ASSERT_EQ(svp_acl_mdl_init_dump(), SVP_ACL_SUCCESS);
  const std::string path = write_file(dir_.path() + "/dump.json", R"({"dump": {"dump_path": ")" + dir_.path() +
                                                                      R"(", "dump_list": [], "dump_step": "1|3-4"}})");
  ASSERT_EQ(svp_acl_mdl_set_dump(path.c_str()), SVP_ACL_SUCCESS) << svp_acl_get_recent_err_msg();
  ModelRun run(net.model.image);
  for (int i = 0; i < 6; ++i) ASSERT_EQ(svp_acl_mdl_execute(run.id(), run.input(), run.output()), SVP_ACL_SUCCESS);
  ASSERT_EQ(svp_acl_mdl_finalize_dump(), SVP_ACL_SUCCESS);
  std::set<std::uint64_t> executions;
  for (const json& e : read_index(dir_.path() + "/dumpnet")) executions.insert(e["execution"].get<std::uint64_t>());
  EXPECT_EQ(executions, (std::set<std::uint64_t>{1, 3, 4}));
  ASSERT_EQ(svp_acl_mdl_init_dump(), SVP_ACL_SUCCESS);
  for (const char* bad : {"", "1|", "4-2", "a", "-3", "1,2"}) {
    const std::string p = write_file(dir_.path() + "/bad.json", R"({"dump": {"dump_path": ")" + dir_.path() +
                                                                     R"(", "dump_list": [], "dump_step": ")" + bad + "\"}}");
    EXPECT_EQ(svp_acl_mdl_set_dump(p.c_str()), SVP_ACL_ERROR_INVALID_DUMP_CONFIG) << bad;
    EXPECT_NE(std::string(svp_acl_get_recent_err_msg()).find("dump_step"), std::string::npos) << bad;
  }
  ASSERT_EQ(svp_acl_mdl_finalize_dump(), SVP_ACL_SUCCESS);
}

TEST_F(ModelDumpTest, ModelsLoadedBeforeTheConfigurationOrAfterFinalizeAreNotDumped) {
  DumpNet net;
  ModelRun before(net.model.image);
  ASSERT_EQ(svp_acl_mdl_init_dump(), SVP_ACL_SUCCESS);
  ASSERT_EQ(svp_acl_mdl_set_dump(config("[]").c_str()), SVP_ACL_SUCCESS);
  ModelRun during(net.model.image);
  ASSERT_EQ(svp_acl_mdl_execute(before.id(), before.input(), before.output()), SVP_ACL_SUCCESS);
  ASSERT_EQ(svp_acl_mdl_execute(during.id(), during.input(), during.output()), SVP_ACL_SUCCESS);
  ASSERT_EQ(svp_acl_mdl_finalize_dump(), SVP_ACL_SUCCESS);
  // After finalize_dump the model loaded under it stops dumping.
  ASSERT_EQ(svp_acl_mdl_execute(during.id(), during.input(), during.output()), SVP_ACL_SUCCESS);
  const auto index = read_index(dir_.path() + "/dumpnet");
  ASSERT_EQ(index.size(), 5u);  // one execution, five layer outputs
  for (const json& e : index) EXPECT_EQ(e["model_id"], during.id());
}

// Two streams executing one dumped model asynchronously: every execution's files are
// complete and numbered apart.
TEST_F(ModelDumpTest, ConcurrentExecutionsOnTwoStreamsAreAllDumped) {
  DumpNet net;
  ASSERT_EQ(svp_acl_mdl_init_dump(), SVP_ACL_SUCCESS);
  ASSERT_EQ(svp_acl_mdl_set_dump(config(R"([{"model_name": "dumpnet", "layer": ["relu", "fc"]}])").c_str()),
            SVP_ACL_SUCCESS);
  constexpr int kRuns = 10;
  std::vector<std::thread> threads;
  std::vector<svp_acl_error> errors(2, SVP_ACL_SUCCESS);
  svp_acl_rt_context ctx = nullptr;
  ASSERT_EQ(svp_acl_rt_get_current_context(&ctx), SVP_ACL_SUCCESS);
  ModelRun run0(net.model.image), run1(net.model.image);
  ModelRun* runs[2] = {&run0, &run1};
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      svp_acl_rt_set_current_context(ctx);
      svp_acl_rt_stream s = nullptr;
      svp_acl_rt_create_stream(&s);
      for (int i = 0; i < kRuns && errors[t] == SVP_ACL_SUCCESS; ++i) {
        errors[t] = svp_acl_mdl_execute_async(runs[t]->id(), runs[t]->input(), runs[t]->output(), s);
      }
      if (errors[t] == SVP_ACL_SUCCESS) errors[t] = svp_acl_rt_synchronize_stream(s);
      svp_acl_rt_destroy_stream(s);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(errors[0], SVP_ACL_SUCCESS);
  EXPECT_EQ(errors[1], SVP_ACL_SUCCESS);
  ASSERT_EQ(svp_acl_mdl_finalize_dump(), SVP_ACL_SUCCESS);
  const auto index = read_index(dir_.path() + "/dumpnet");
  ASSERT_EQ(index.size(), 2u * kRuns * 2u);  // 2 models × kRuns executions × 2 layers
  std::set<std::string> files;
  for (const json& e : index) {
    ASSERT_TRUE(e["file"].is_string()) << e.dump();
    files.insert(e["file"].get<std::string>());
    EXPECT_TRUE(fs::exists(dir_.path() + "/dumpnet/" + e["file"].get<std::string>()));
  }
  EXPECT_EQ(files.size(), index.size());
}

class AclJsonDumpTest : public test::RuntimeTest {
 protected:
  std::string config_json() const override {
    return R"({"dump": {"dump_path": ")" + dir_.path() + R"(", "dump_list": [{"model_name": "dumpnet", "layer": ["fc"]}]}})";
  }
  TempDir dir_;
};

TEST_F(AclJsonDumpTest, AnAclJsonDumpAppliesToEveryLoadAndExcludesTheApi) {
  ASSERT_EQ(svp_acl_rt_set_device(0), SVP_ACL_SUCCESS);
  EXPECT_EQ(svp_acl_mdl_init_dump(), SVP_ACL_ERROR_DUMP_ALREADY_RUN);
  DumpNet net;
  {
    ModelRun run(net.model.image);
    ASSERT_EQ(svp_acl_mdl_execute(run.id(), run.input(), run.output()), SVP_ACL_SUCCESS);
  }
  ASSERT_EQ(svp_acl_rt_reset_device(0), SVP_ACL_SUCCESS);
  ASSERT_EQ(svp_acl_finalize(), SVP_ACL_SUCCESS);  // writes everything queued
  const auto index = read_index(dir_.path() + "/dumpnet");
  ASSERT_EQ(index.size(), 1u);
  EXPECT_EQ(index[0]["layer"], "fc");
  ASSERT_EQ(svp_acl_init(nullptr), SVP_ACL_SUCCESS);  // RuntimeTest finalizes again
}

}  // namespace
}  // namespace svp
