// svp_run end to end: models from the builder written as .om files, run through
// svp_run_lib (and the executable for its command line); outputs checked against values
// computed here (Relu / Add by hand), never against svp_run's own output.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "compiler/builder.h"
#include "common/npy.h"
#include "svp_run/runner.h"

namespace {

namespace fs = std::filesystem;
using svp::compiler::BuiltModel;
using svp::compiler::DType;
using svp::compiler::ModelBuilder;
using svp::compiler::TensorId;
using svp::run::RunOptions;

struct Outcome {
  int code;
  std::string out, err;
};

Outcome run_tool(RunOptions o) {
  std::ostringstream out, err;
  const int code = svp::run::run(o, out, err);
  return {code, out.str(), err.str()};
}

template <typename T>
void write_bytes(const fs::path& p, const T* data, std::size_t n) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(n * sizeof(T)));
}

std::vector<float> read_floats(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::vector<char> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<float> v(b.size() / 4);
  std::memcpy(v.data(), b.data(), v.size() * 4);
  return v;
}

std::vector<float> ramp(std::size_t n, float start) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = start + 0.25f * static_cast<float>(i);
  return v;
}

std::vector<float> relu(std::vector<float> v) {
  for (float& f : v) f = std::max(f, 0.0f);
  return v;
}

nlohmann::json read_json(const fs::path& p) {
  std::ifstream f(p);
  return nlohmann::json::parse(f);
}

class SvpRun : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() / ("svp_run_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes a built model as an .om file and returns its path.
  std::string save(const ModelBuilder& b, const std::string& name) {
    auto m = b.build();
    EXPECT_TRUE(m.ok()) << m.status().message();
    const fs::path p = dir_ / (name + ".om");
    write_bytes(p, m.value().image.data(), m.value().image.size());
    return p.string();
  }
  // Relu on x [1,3,4,5] float32: rows of 20 bytes stored at a 32-byte stride.
  std::string relu_model() {
    ModelBuilder b("relu");
    const TensorId x = b.add_input("x", DType::kFloat32, {1, 3, 4, 5});
    b.add_output(b.add_layer("relu", "Relu", {x}), "y");
    return save(b, "relu");
  }
  // y = a + b, both [1,2,3] float32.
  std::string add_model() {
    ModelBuilder b("add");
    const TensorId a = b.add_input("a", DType::kFloat32, {1, 2, 3});
    const TensorId c = b.add_input("b", DType::kFloat32, {1, 2, 3});
    b.add_output(b.add_layer("add", "Add", {a, c}), "y");
    return save(b, "add");
  }
  // Relu with resolution gears 16x24 (stored) and 8x12.
  std::string gear_model() {
    ModelBuilder b("gears");
    const TensorId x = b.add_input("x", DType::kFloat32, {1, 3, 16, 24});
    b.add_output(b.add_layer("relu", "Relu", {x}), "y");
    b.set_dynamic_hw({{16, 24}, {8, 12}});
    return save(b, "gears");
  }
  RunOptions options(const std::string& model) {
    RunOptions o;
    o.model = model;
    o.output = (dir_ / "out").string();
    o.output_dirname = "r";
    return o;
  }
  fs::path result(const std::string& name) const { return dir_ / "out" / "r" / name; }

  fs::path dir_;
};

constexpr std::size_t kReluCount = 60;

TEST_F(SvpRun, ZeroDataGivesZeroOutputsNamedLikeAisBench) {
  RunOptions o = options(relu_model());
  o.loop = 3;
  o.warmup_count = 2;
  const Outcome r = run_tool(o);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_floats(result("pure_infer_data_0.bin")), std::vector<float>(kReluCount, 0.0f));
  const auto j = read_json(result("summary.json"));
  EXPECT_EQ(j["inferences"], 3);
  EXPECT_EQ(j["loop"], 3);
  EXPECT_EQ(j["warmup_count"], 2);
  EXPECT_EQ(j["NPU_compute_time"]["count"], 3);
  EXPECT_TRUE(j.contains("throughput"));
  // svp_acl_query_status: one emulated core, a percentage.
  ASSERT_TRUE(j["npu_utilization"].is_array()) << j.dump();
  EXPECT_EQ(j["npu_utilization"].size(), 1u);
  EXPECT_LE(j["npu_utilization"][0].get<int>(), 100);
  EXPECT_NE(r.out.find("P99"), std::string::npos);
  EXPECT_EQ(read_json(dir_ / "out" / "r_summary.json"), j);
}

TEST_F(SvpRun, RandomDataGivesTheReluOfValuesInTheUnitInterval) {
  RunOptions o = options(relu_model());
  o.pure_data_type = "random";
  ASSERT_EQ(run_tool(o).code, 0);
  const auto y = read_floats(result("pure_infer_data_0.bin"));
  ASSERT_EQ(y.size(), kReluCount);
  EXPECT_TRUE(std::all_of(y.begin(), y.end(), [](float f) { return f >= 0 && f < 1; }));
  EXPECT_GT(*std::max_element(y.begin(), y.end()), 0.0f);
}

TEST_F(SvpRun, BinInputIsCopiedThroughTheStridedBuffers) {
  const auto x = ramp(kReluCount, -7.0f);
  write_bytes(dir_ / "img.bin", x.data(), x.size());
  RunOptions o = options(relu_model());
  o.inputs = {(dir_ / "img.bin").string()};
  const Outcome r = run_tool(o);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_floats(result("img_0.bin")), relu(x));
}

TEST_F(SvpRun, NpyInputAndNpyOutput) {
  const auto x = ramp(kReluCount, -3.0f);
  const auto f = svp::npy::make("<f4", {1, 3, 4, 5}, reinterpret_cast<const std::uint8_t*>(x.data()), x.size() * 4);
  write_bytes(dir_ / "a.npy", f.data(), f.size());
  RunOptions o = options(relu_model());
  o.inputs = {(dir_ / "a.npy").string()};
  o.outfmt = "NPY";
  ASSERT_EQ(run_tool(o).code, 0);
  std::ifstream in(result("a_0.npy"), std::ios::binary);
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  svp::npy::Array a;
  std::string error;
  ASSERT_TRUE(svp::npy::parse(bytes.data(), bytes.size(), a, error)) << error;
  EXPECT_EQ(a.descr, "<f4");
  EXPECT_EQ(a.shape, (std::vector<std::int64_t>{1, 3, 4, 5}));
  std::vector<float> y(kReluCount);
  std::memcpy(y.data(), a.data.data(), a.data.size());
  EXPECT_EQ(y, relu(x));
}

// Arrays of the input's byte count but another layout or type used to run as raw bytes.
TEST_F(SvpRun, NpyArraysOfAnotherShapeOrDtypeAreRefusedWithTheirHeader) {
  const auto x = ramp(kReluCount, -3.0f);
  const auto* raw = reinterpret_cast<const std::uint8_t*>(x.data());
  const std::string model = relu_model();
  struct Case {
    std::string descr;
    std::vector<std::int64_t> shape;
    std::vector<std::string> says;
  };
  const Case cases[] = {
      {"<f4", {1, 4, 5, 3}, {"shape (1, 4, 5, 3)", "has the shape (1, 3, 4, 5)", "needs a transpose"}},
      {"<i4", {1, 3, 4, 5}, {"dtype '<i4'", "takes '<f4' elements"}},
      {"<f2", {1, 3, 4, 10}, {"dtype '<f2'", "takes '<f4' elements"}},
  };
  for (const Case& c : cases) {
    const auto f = svp::npy::make(c.descr, c.shape, raw, x.size() * 4);
    write_bytes(dir_ / "a.npy", f.data(), f.size());
    RunOptions o = options(model);
    o.inputs = {(dir_ / "a.npy").string()};
    const Outcome r = run_tool(o);
    EXPECT_EQ(r.code, svp::run::kExitBadInput) << c.descr;
    for (const std::string& s : c.says) EXPECT_NE(r.err.find(s), std::string::npos) << s << "\n" << r.err;
  }
}

TEST_F(SvpRun, NpyArraysWithoutTheLeadingBatchOfOneAreAccepted) {
  const auto x = ramp(kReluCount, -3.0f);
  const auto f = svp::npy::make("<f4", {3, 4, 5}, reinterpret_cast<const std::uint8_t*>(x.data()), x.size() * 4);
  write_bytes(dir_ / "a.npy", f.data(), f.size());
  RunOptions o = options(relu_model());
  o.inputs = {(dir_ / "a.npy").string()};
  const Outcome r = run_tool(o);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_floats(result("a_0.bin")), relu(x));
}

TEST_F(SvpRun, TxtOutputHasOneLinePerRow) {
  const auto x = ramp(kReluCount, 1.0f);
  write_bytes(dir_ / "t.bin", x.data(), x.size());
  RunOptions o = options(relu_model());
  o.inputs = {(dir_ / "t.bin").string()};
  o.outfmt = "TXT";
  ASSERT_EQ(run_tool(o).code, 0);
  std::ifstream in(result("t_0.txt"));
  std::vector<float> y;
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    std::istringstream s(line);
    float v;
    while (s >> v) y.push_back(v);
  }
  EXPECT_EQ(lines, 12);
  EXPECT_EQ(y, x);
}

TEST_F(SvpRun, DirectoriesGiveOneExecutionPerFilePairWithTwoStreamsAndThreads) {
  fs::create_directories(dir_ / "a");
  fs::create_directories(dir_ / "b");
  for (int k = 0; k < 5; ++k) {
    const auto a = ramp(6, static_cast<float>(k)), b = ramp(6, -1.0f);
    write_bytes(dir_ / "a" / ("s" + std::to_string(k) + ".bin"), a.data(), a.size());
    write_bytes(dir_ / "b" / ("s" + std::to_string(k) + ".bin"), b.data(), b.size());
  }
  RunOptions o = options(add_model());
  o.inputs = {(dir_ / "a").string(), (dir_ / "b").string()};
  o.streams = 2;
  o.threads = 2;
  o.loop = 2;
  o.priority = 0;
  const Outcome r = run_tool(o);
  ASSERT_EQ(r.code, 0) << r.err;
  for (int k = 0; k < 5; ++k) {
    const auto a = ramp(6, static_cast<float>(k)), b = ramp(6, -1.0f);
    std::vector<float> want(6);
    for (int i = 0; i < 6; ++i) want[i] = a[i] + b[i];
    EXPECT_EQ(read_floats(result("s" + std::to_string(k) + "_0.bin")), want) << k;
  }
  const auto j = read_json(result("summary.json"));
  EXPECT_EQ(j["inferences"], 10);
  EXPECT_EQ(j["streams"], 2);
  EXPECT_EQ(j["threads"], 2);
}

// A model with an AI-CPU layer executes asynchronously only while a thread serves
// svp_acl_ext_process_aicpu_task (as on the board): svp_run starts one, so the run
// completes on several streams instead of waiting forever.
TEST_F(SvpRun, ModelsWithAiCpuLayersRunOnStreamsWithTheToolsAiCpuThread) {
  ModelBuilder b("aicpu");
  const TensorId x = b.add_input("x", DType::kFloat32, {1, 3, 4, 5});
  svp::compiler::LayerOptions cpu;
  cpu.target = svp::model::Target::kAiCpu;
  b.add_output(b.add_layer("relu_on_cpu", "Relu", {b.add_layer("relu", "Relu", {x})}, cpu), "y");
  RunOptions o = options(save(b, "aicpu"));
  const auto x0 = ramp(kReluCount, -7.0f);
  write_bytes(dir_ / "x.bin", x0.data(), x0.size());
  o.inputs = {(dir_ / "x.bin").string()};
  o.streams = 2;
  o.threads = 2;
  o.loop = 4;
  const Outcome r = run_tool(o);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_floats(result("x_0.bin")), relu(x0));
}

TEST_F(SvpRun, BatchsizeGroupsSingleItemFilesIntoDynamicBatches) {
  fs::create_directories(dir_ / "items");
  std::vector<std::vector<float>> xs;
  for (int k = 0; k < 4; ++k) {
    xs.push_back(ramp(kReluCount, static_cast<float>(-k * 3)));
    write_bytes(dir_ / "items" / ("i" + std::to_string(k) + ".bin"), xs.back().data(), kReluCount);
  }
  RunOptions o = options(relu_model());
  o.inputs = {(dir_ / "items").string()};
  o.dym_batch = 2;
  o.batchsize = 2;
  const Outcome r = run_tool(o);
  ASSERT_EQ(r.code, 0) << r.err;
  for (int g = 0; g < 2; ++g) {
    std::vector<float> want = relu(xs[2 * g]);
    const auto second = relu(xs[2 * g + 1]);
    want.insert(want.end(), second.begin(), second.end());
    EXPECT_EQ(read_floats(result("i" + std::to_string(2 * g) + "_0.bin")), want) << g;
  }
  EXPECT_EQ(read_json(result("summary.json"))["batch"], 2);
}

TEST_F(SvpRun, DymHWRunsTheSelectedGear) {
  const auto x = ramp(3 * 8 * 12, -20.0f);
  write_bytes(dir_ / "g.bin", x.data(), x.size());
  RunOptions o = options(gear_model());
  o.inputs = {(dir_ / "g.bin").string()};
  o.dym_h = 8;
  o.dym_w = 12;
  const Outcome r = run_tool(o);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_floats(result("g_0.bin")), relu(x));
  o.dym_h = 9;
  EXPECT_EQ(run_tool(o).code, svp::run::kExitRuntime);
}

TEST_F(SvpRun, ExpectedOutputsPassAndAMismatchNamesTheWorstElement) {
  const auto x = ramp(kReluCount, -5.0f);
  write_bytes(dir_ / "e.bin", x.data(), x.size());
  fs::create_directories(dir_ / "exp");
  auto want = relu(x);
  write_bytes(dir_ / "exp" / "e_0.bin", want.data(), want.size());
  RunOptions o = options(relu_model());
  o.inputs = {(dir_ / "e.bin").string()};
  o.expected = (dir_ / "exp").string();
  o.cosine = 0.999;
  Outcome r = run_tool(o);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("all outputs match"), std::string::npos);

  want[37] += 0.5f;
  want[40] += 0.01f;
  write_bytes(dir_ / "exp" / "e_0.bin", want.data(), want.size());
  r = run_tool(o);
  EXPECT_EQ(r.code, svp::run::kExitMismatch);
  EXPECT_NE(r.err.find("element 37"), std::string::npos) << r.err;
  EXPECT_EQ(read_json(result("summary.json"))["mismatches"], 1);

  // Within tolerance elementwise, but pointing elsewhere: the cosine check catches it.
  for (float& f : want) f = 1.0f;
  write_bytes(dir_ / "exp" / "e_0.bin", want.data(), want.size());
  o.atol = 100;
  r = run_tool(o);
  EXPECT_EQ(r.code, svp::run::kExitMismatch);
  EXPECT_NE(r.err.find("cosine"), std::string::npos) << r.err;
}

TEST_F(SvpRun, ProfilerWritesSvpProfReportBesideTheOutputs) {
  RunOptions o = options(relu_model());
  o.profiler = true;
  const Outcome r = run_tool(o);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(result("acl.json")));
  EXPECT_TRUE(fs::is_directory(result("profiling_report")));
  EXPECT_FALSE(fs::is_empty(result("profiling_report")));
}

TEST_F(SvpRun, DumpWritesEveryLayersOutputThroughTheRuntime) {
  RunOptions o = options(relu_model());
  o.dump = true;
  const Outcome r = run_tool(o);
  ASSERT_EQ(r.code, 0) << r.err;
  bool index = false;
  for (const auto& e : fs::recursive_directory_iterator(result("dump"))) index = index || e.path().filename() == "index.jsonl";
  EXPECT_TRUE(index) << "no index.jsonl under " << result("dump");
}

// The layers an index.jsonl under `dir` records, over every execution.
std::multiset<std::string> dumped_layers(const fs::path& dir) {
  std::multiset<std::string> layers;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().filename() != "index.jsonl") continue;
    std::ifstream in(e.path());
    for (std::string line; std::getline(in, line);) layers.insert(nlohmann::json::parse(line)["layer"]);
  }
  return layers;
}

// Five EfficientNet runs wrote 412 MB of dump (the bad-input probe): --dump_layer (our
// extension) limits it to the named layers, --dump_step to some executions; a name the
// model lacks is warned about, naming it.
TEST_F(SvpRun, DumpLayerLimitsTheDumpToTheNamedLayersAndWarnsAboutUnknownOnes) {
  ModelBuilder b("three");
  const TensorId x = b.add_input("x", DType::kFloat32, {1, 2, 3});
  const TensorId r1 = b.add_layer("first", "Relu", {x});
  const TensorId n = b.add_layer("second", "Neg", {r1});
  b.add_output(b.add_layer("third", "Relu", {n}), "y");
  RunOptions o = options(save(b, "three"));
  o.dump = true;
  o.loop = 3;
  o.warmup_count = 0;
  const Outcome all = run_tool(o);
  ASSERT_EQ(all.code, 0) << all.err;
  EXPECT_EQ(dumped_layers(result("dump")),
            (std::multiset<std::string>{"first", "first", "first", "second", "second", "second", "third", "third",
                                        "third"}));

  o.output_dirname = "limited";
  o.dump_layer = "first;third;no_such_layer";
  o.dump_step = "1";
  const Outcome limited = run_tool(o);
  ASSERT_EQ(limited.code, 0) << limited.err;
  EXPECT_EQ(dumped_layers(dir_ / "out" / "limited" / "dump"), (std::multiset<std::string>{"first", "third"}));
  EXPECT_NE(limited.err.find("has no layer \"no_such_layer\""), std::string::npos) << limited.err;
  EXPECT_EQ(limited.err.find("has no layer \"first\""), std::string::npos) << limited.err;
  const auto cfg = read_json(dir_ / "out" / "limited" / "dump.json");
  EXPECT_EQ(cfg["dump"]["dump_list"][0]["model_name"], "three") << cfg.dump();

  o.output_dirname = "empty";
  o.dump_layer = ";";
  EXPECT_EQ(run_tool(o).code, svp::run::kExitUsage);
}

TEST_F(SvpRun, AclJsonAndDeviceArePassedToTheRuntime) {
  std::ofstream(dir_ / "acl.json") << "{}";
  RunOptions o = options(relu_model());
  o.acl_json_path = (dir_ / "acl.json").string();
  o.device = 0;
  o.display_all_summary = true;
  o.debug = true;
  const Outcome r = run_tool(o);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("latencies (ms):"), std::string::npos);
  // 12 rows of 20 bytes at the model's 32-byte stride.
  EXPECT_NE(r.err.find("input 0 'x' [1,3,4,5] float32, 384 bytes per batch, stride 32"), std::string::npos) << r.err;
  std::ofstream(dir_ / "bad.json") << "{ \"profiler\": { \"switch\": \"maybe\" } }";
  o.acl_json_path = (dir_ / "bad.json").string();
  EXPECT_EQ(run_tool(o).code, svp::run::kExitRuntime);
}

TEST_F(SvpRun, OutputsGoToADateTimeDirectoryAndProgressIsReportedPerTenPercent) {
  RunOptions o = options(relu_model());
  o.output_dirname.clear();
  o.loop = 20;
  o.progress_after_ms = 0;
  const Outcome r = run_tool(o);
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> dirs;
  for (const auto& e : fs::directory_iterator(dir_ / "out")) {
    if (e.is_directory()) dirs.push_back(e.path().filename().string());
  }
  ASSERT_EQ(dirs.size(), 1u);
  // YYYY_MM_DD-HH_MM_SS (std::regex trips GCC 12's -Wmaybe-uninitialized under ASan).
  const std::string pattern = "dddd_dd_dd-dd_dd_dd";
  ASSERT_EQ(dirs[0].size(), pattern.size()) << dirs[0];
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    EXPECT_TRUE(pattern[i] == 'd' ? std::isdigit(static_cast<unsigned char>(dirs[0][i])) != 0 : dirs[0][i] == pattern[i])
        << dirs[0];
  }
  EXPECT_TRUE(fs::exists(dir_ / "out" / dirs[0] / "pure_infer_data_0.bin"));
  std::size_t lines = 0;
  for (std::size_t p = r.err.find("inferences ("); p != std::string::npos; p = r.err.find("inferences (", p + 1)) ++lines;
  EXPECT_EQ(lines, 10u) << r.err;
  EXPECT_NE(r.err.find("20/20 inferences (100%)"), std::string::npos) << r.err;
}

TEST_F(SvpRun, WrongInputCountIsABadInput) {
  const auto x = ramp(kReluCount, 0);
  write_bytes(dir_ / "x.bin", x.data(), x.size());
  RunOptions o = options(relu_model());
  o.inputs = {(dir_ / "x.bin").string(), (dir_ / "x.bin").string()};
  const Outcome r = run_tool(o);
  EXPECT_EQ(r.code, svp::run::kExitBadInput);
  EXPECT_NE(r.err.find("1 data input(s) but --input gives 2"), std::string::npos) << r.err;
}

TEST_F(SvpRun, SizeMismatchNamesTheExpectedSizeAndTheInput) {
  const auto x = ramp(kReluCount - 1, 0);
  write_bytes(dir_ / "x.bin", x.data(), x.size());
  RunOptions o = options(relu_model());
  o.inputs = {(dir_ / "x.bin").string()};
  const Outcome r = run_tool(o);
  EXPECT_EQ(r.code, svp::run::kExitBadInput);
  EXPECT_NE(r.err.find("needs 240 bytes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'x' [1,3,4,5] float32"), std::string::npos) << r.err;
}

TEST_F(SvpRun, MalformedAndMissingInputFilesAreBadInputs) {
  std::ofstream(dir_ / "bad.npy") << "\x93NUMPY garbage";
  RunOptions o = options(relu_model());
  o.inputs = {(dir_ / "bad.npy").string()};
  Outcome r = run_tool(o);
  EXPECT_EQ(r.code, svp::run::kExitBadInput);
  EXPECT_NE(r.err.find("bad.npy"), std::string::npos) << r.err;
  o.inputs = {(dir_ / "missing.bin").string()};
  r = run_tool(o);
  EXPECT_EQ(r.code, svp::run::kExitBadInput);
  EXPECT_NE(r.err.find("missing.bin"), std::string::npos) << r.err;
}

TEST_F(SvpRun, MissingOrForeignModelIsReported) {
  RunOptions o = options((dir_ / "none.om").string());
  Outcome r = run_tool(o);
  EXPECT_EQ(r.code, svp::run::kExitModel);
  EXPECT_NE(r.err.find("not found"), std::string::npos) << r.err;
  std::ofstream(dir_ / "junk.om") << "this is not a model at all, just some text bytes";
  o.model = (dir_ / "junk.om").string();
  r = run_tool(o);
  EXPECT_EQ(r.code, svp::run::kExitModel);
  EXPECT_NE(r.err.find("not an svp-acl model"), std::string::npos) << r.err;
}

TEST_F(SvpRun, BadOptionsAreUsageErrors) {
  RunOptions o = options(relu_model());
  o.priority = 9;
  EXPECT_EQ(run_tool(o).code, svp::run::kExitUsage);
  o = options(relu_model());
  o.outfmt = "CSV";
  EXPECT_EQ(run_tool(o).code, svp::run::kExitUsage);
  o = options(relu_model());
  o.streams = 0;
  EXPECT_EQ(run_tool(o).code, svp::run::kExitUsage);
}

// "--output_dirname ../../X" wrote outside --output (the bad-input probe).
TEST_F(SvpRun, AnOutputDirnameLeavingTheOutputFolderIsAUsageError) {
  for (const std::string bad : {"../../escaped", "a/../../escaped", "/tmp/escaped"}) {
    RunOptions o = options(relu_model());
    o.output_dirname = bad;
    const auto r = run_tool(o);
    EXPECT_EQ(r.code, svp::run::kExitUsage) << bad;
    EXPECT_NE(r.err.find("must be a folder inside --output"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir_.parent_path() / "escaped"));
  EXPECT_FALSE(fs::exists(dir_ / "escaped"));
  RunOptions o = options(relu_model());
  o.output_dirname = "nested/run1";  // inside: fine
  EXPECT_EQ(run_tool(o).code, 0);
  EXPECT_TRUE(fs::is_directory(fs::path(o.output) / "nested" / "run1"));
}

TEST_F(SvpRun, CommandLineParsesTheVendorFlags) {
  const std::string model = relu_model();
  const auto x = ramp(kReluCount, -2.0f);
  write_bytes(dir_ / "c.bin", x.data(), x.size());
  const std::string base = std::string(SVP_RUN_EXE) + " --model " + model + " --input " + (dir_ / "c.bin").string() +
                           " --output " + (dir_ / "out").string() + " --output_dirname r --outfmt BIN --loop 2" +
                           " --warmup_count 1 --device 0 --streams 1 --threads 1 --priority 3 --atol 0 --rtol 0" +
                           " --pure_data_type zero --display_all_summary True --debug 0 --profiler false" +
                           " > /dev/null 2>&1";
  EXPECT_EQ(std::system(base.c_str()), 0);
  EXPECT_EQ(read_floats(result("c_0.bin")), relu(x));
  EXPECT_FALSE(fs::exists(result("acl.json")));  // --profiler false
  const std::string dump = std::string(SVP_RUN_EXE) + " --model " + model + " --output " + (dir_ / "out").string() +
                           " --output_dirname d --dump 1 > /dev/null 2>&1";
  const int dump_status = std::system(dump.c_str());
  EXPECT_TRUE(WIFEXITED(dump_status));
  EXPECT_EQ(WEXITSTATUS(dump_status), 0);
  EXPECT_TRUE(fs::is_directory(dir_ / "out" / "d" / "dump"));
  const std::string bad = std::string(SVP_RUN_EXE) + " --model " + model + " --dymHW 8x12 > /dev/null 2>&1";
  const int status = std::system(bad.c_str());
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), svp::run::kExitUsage);
}

}  // namespace
