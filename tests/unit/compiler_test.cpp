// The compiler library: the vendor command line (golden lines from the HiSpark modelzoo,
// COMPILER.md §1.2), the importer's handling of real-world ONNX shapes and of bad files,
// segmentation by cost, and byte-identical output.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <sstream>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "compiler/atc_options.h"
#include "compiler/compile.h"
#include "compiler/om_json.h"
#include "compiler/onnx_import.h"
#include "compiler/perf_csv.h"
#include "compiler/passes/segmentation.h"
#include "onnx_builder.h"

namespace svp::compiler {
namespace {

namespace fs = std::filesystem;
using test::OnnxBuilder;

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ' ' && !quoted) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

TEST(AtcOptions, TheModelzooResNet50LineParses) {
  auto p = parse_atc_command_line(
      words("--framework=5 --model=resnet50.onnx --input_shape=\"input_0:1,3,224,224\" "
            "--insert_op_conf=../SS928V100_SVP_NNN/insert_op.cfg --output=resnet50 "
            "--image_list=./data/image_ref_list.txt --soc_version=SS928V100"));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->options.model, "resnet50.onnx");
  EXPECT_EQ(p->options.output, "resnet50");
  ASSERT_EQ(p->options.input_shape.size(), 1u);
  EXPECT_EQ(p->options.input_shape[0].first, "input_0");
  EXPECT_EQ(p->options.input_shape[0].second, (std::vector<std::int64_t>{1, 3, 224, 224}));
  EXPECT_STREQ(p->options.soc_version->name, "SS928V100");
  EXPECT_EQ(p->options.image_list, "./data/image_ref_list.txt");
  EXPECT_EQ(p->options.insert_op_conf, "../SS928V100_SVP_NNN/insert_op.cfg");
  // Every flag of the line is supported: nothing for compile() to refuse.
  EXPECT_TRUE(p->unsupported.empty());
}

TEST(AtcOptions, TheOtherVendorLinesParse) {
  for (const char* line :
       {"--model=yolov8l.onnx --framework=5 --output=yolov8l --soc_version=SS928V100 --compile_mode=6",
        "--model=clip.onnx --framework=5 --output=clip --soc_version=SS928V100 --compile_mode=6 "
        "--matmul_per_channel_enable=1 --fusion_switch_file=TransformerFusion:on --force_to_cpu=Gather_12 "
        "--gfpq_param_file=clip_param.txt",
        "--model=yolov5.onnx --framework=5 --output=yolov5 --soc_version=Hi3519DV500 --input_type=\"images:UINT8\" "
        "--online_model_type=2 --batch_num=1 --compile_mode=0 --save_original_model=true",
        "--model m.onnx --framework 5 --output out --soc_version Hi3516CV610 --log_level 1"}) {
    auto p = parse_atc_command_line(words(line));
    EXPECT_TRUE(p.ok()) << line << ": " << p.status().message();
  }
  auto p = parse_atc_command_line(
      words("--model=m.onnx --input_type=\"images:UINT8\" --force_to_cpu=a;b --high_precision_layer=c;d"));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->options.input_type.at("images"), model::DType::kUint8);
  EXPECT_EQ(p->options.force_to_cpu, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p->options.high_precision_layer, (std::vector<std::string>{"c", "d"}));
  EXPECT_TRUE(p->unsupported.empty());
}

TEST(AtcOptions, TheConfigFileFormReadsBracketedKeys) {
  const std::string path = (fs::temp_directory_path() / "svp_atc_test.cfg").string();
  std::ofstream(path) << "# a vendor-style configuration\n[model] lenet.onnx\n[framework] 5\n\n[output] lenet\n"
                         "[soc_version] Hi3516CV610\n[compile_mode] float\n";
  auto p = parse_atc_command_line({path});
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->options.model, "lenet.onnx");
  EXPECT_STREQ(p->options.soc_version->name, "Hi3516CV610");
  EXPECT_EQ(p->options.compile_mode, "float");
  std::ofstream(path) << "model lenet.onnx\n";
  auto bad = parse_atc_command_line({path});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(":1: expected a line \"[key] value\""), std::string::npos);
  fs::remove(path);
}

TEST(AtcOptions, SocVersionSelectsADeviceProfileAndAnUnknownOneListsTheKnownOnes) {
  auto hi = parse_atc_command_line({"--soc_version=Hi3519DV500"});
  ASSERT_TRUE(hi.ok()) << hi.status().message();
  EXPECT_EQ(hi->options.soc_version, target::find_profile("Hi3519DV500"));
  auto unknown = parse_atc_command_line({"--soc_version=SS999"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), err::kInvalidParam);
  EXPECT_NE(unknown.status().message().find("SS928V100, SS626V100, Hi3519DV500, Hi3516CV610"), std::string::npos)
      << unknown.status().message();
  EXPECT_NE(unknown.status().message().find("RK3588"), std::string::npos) << unknown.status().message();
  // An RKNN target compiles a model for librknnrt (docs/rknn.md), alias included.
  for (const char* rknn : {"RK3588", "RK3568", "RV1106"}) {
    auto rk = parse_atc_command_line({std::string("--soc_version=") + rknn});
    ASSERT_TRUE(rk.ok()) << rk.status().message();
    EXPECT_EQ(rk->options.soc_version, target::find_profile(rknn));
    EXPECT_EQ(rk->options.soc_version->family, target::Family::kRknn);
  }
}

TEST(AtcOptions, ErrorsNameTheFlagAndTheWayOut) {
  auto unknown = parse_atc_command_line({"--soc_versoin=SS928V100"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("did you mean --soc_version?"), std::string::npos);
  auto caffe = parse_atc_command_line({"--framework=0"});
  ASSERT_FALSE(caffe.ok());
  EXPECT_NE(caffe.status().message().find("convert the model to ONNX"), std::string::npos);
  EXPECT_FALSE(parse_atc_command_line({"--soc_version=SS999"}).ok());
  EXPECT_FALSE(parse_atc_command_line({"--input_shape=x:1,0,3"}).ok());
  EXPECT_FALSE(parse_atc_command_line({"--dynamic_image_size=224,224"}).ok());  // one gear: 2..100 needed
  EXPECT_FALSE(parse_atc_command_line({"--log_level=9"}).ok());
  EXPECT_FALSE(parse_atc_command_line({"--model"}).ok());  // no value
  for (const char* bad : {"--auto_mixed_precision=1.5", "--auto_mixed_precision=-0.1", "--auto_mixed_precision=0.9x",
                          "--auto_mixed_precision_layer=0", "--auto_mixed_precision_rounds=0"}) {
    auto p = parse_atc_command_line({bad});
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_NE(p.status().message().find(std::string(bad).substr(2)), std::string::npos) << p.status().message();
  }
  auto amp = parse_atc_command_line({"--auto_mixed_precision=0.999", "--auto_mixed_precision_layer=0.98",
                                     "--auto_mixed_precision_rounds=3", "--auto_mixed_precision_float=1"});
  ASSERT_TRUE(amp.ok()) << amp.status().message();
  EXPECT_EQ(amp->options.auto_mixed_precision, 0.999);
  EXPECT_EQ(amp->options.auto_mixed_precision_layer, 0.98);
  EXPECT_EQ(amp->options.auto_mixed_precision_rounds, 3);
  EXPECT_TRUE(amp->options.auto_mixed_precision_float);
}

TEST(AtcOptions, LogLevelTakesNumbersNamesAndAscendsLogFlag) {
  EXPECT_EQ(parse_atc_command_line({"--model=m"})->options.log_level, 2);  // warnings and progress by default
  for (const auto& [arg, level] : {std::pair{"--log_level=info", 1}, std::pair{"--log_level=0", 0},
                                   std::pair{"--log=debug", 0}, std::pair{"--log=null", 3},
                                   std::pair{"--log_level=WARNING", 2}}) {
    auto p = parse_atc_command_line({arg});
    ASSERT_TRUE(p.ok()) << arg << ": " << p.status().message();
    EXPECT_EQ(p->options.log_level, level) << arg;
  }
  auto bad = parse_atc_command_line({"--log_level=verbose"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("debug, info, warning, error, null"), std::string::npos) << bad.status().message();
}

TEST(AtcOptions, VendorScriptTyposGetTheFlagTheyMeant) {
  for (const auto& [arg, hint] : {std::pair{"-output=x", "did you mean \"--output=x\"?"},
                                  std::pair{"----framework=5", "did you mean --framework?"},
                                  std::pair{"--input-shape=x:1", "did you mean --input_shape?"},
                                  std::pair{"--images_list=a", "did you mean --image_list?"},
                                  std::pair{"--hight_precision_later=a", "did you mean --high_precision_layer?"}}) {
    auto p = parse_atc_command_line({arg});
    ASSERT_FALSE(p.ok()) << arg;
    EXPECT_NE(p.status().message().find(hint), std::string::npos) << arg << ": " << p.status().message();
  }
}

// x [N, 3, 8, 8] → Conv (4 filters) → Relu → Softmax-free head: GlobalAveragePool → Flatten.
OnnxBuilder small_cnn(std::int64_t batch = 1) {
  OnnxBuilder b;
  b.input("x", {batch, 3, 8, 8});
  std::vector<float> w(4 * 3 * 3 * 3);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 7) * 0.1f - 0.3f;
  b.initializer("w", {4, 3, 3, 3}, w);
  auto& conv = b.node("Conv", {"x", "w"}, {"c"}, "conv");
  OnnxBuilder::attr_ints(conv, "pads", {1, 1, 1, 1});
  b.node("Relu", {"c"}, {"r"}, "relu");
  b.node("GlobalAveragePool", {"r"}, {"g"}, "gap");
  b.node("Flatten", {"g"}, {"y"}, "flat");
  b.output("y", {batch, 4});
  return b;
}

TEST(OnnxImport, AModelBecomesAGraphWithStaticShapes) {
  auto g = import_onnx_bytes(small_cnn().bytes(), "", CompileOptions{});
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->live_node_count(), 4u);
  ASSERT_EQ(g->outputs.size(), 1u);
  EXPECT_EQ(g->value(g->outputs[0]).shape, (std::vector<std::int64_t>{1, 4}));
}

TEST(OnnxImport, SymbolicDimensionsNeedInputShape) {
  auto g = import_onnx_bytes(small_cnn(-1).bytes(), "", CompileOptions{});
  ASSERT_FALSE(g.ok());
  // The hint has the input's own rank and its fixed dimensions.
  EXPECT_NE(g.status().message().find("--input_shape=\"x:1,3,8,8\""), std::string::npos) << g.status().message();
  CompileOptions o;
  o.input_shape = {{"x", {3, 8, 8}}};  // a rank mistake is named as one, not as a Conv weight error
  auto rank = import_onnx_bytes(small_cnn(-1).bytes(), "", o);
  ASSERT_FALSE(rank.ok());
  EXPECT_NE(rank.status().message().find("gives \"x\" 3 dimensions, but the model's input has 4"), std::string::npos)
      << rank.status().message();
  o.input_shape = {{"x", {2, 3, 8, 8}}};
  auto fixed = import_onnx_bytes(small_cnn(-1).bytes(), "", o);
  ASSERT_TRUE(fixed.ok()) << fixed.status().message();
  EXPECT_EQ(fixed->value(fixed->outputs[0]).shape, (std::vector<std::int64_t>{2, 4}));
  o.input_shape = {{"nosuch", {1}}};
  auto wrong = import_onnx_bytes(small_cnn(-1).bytes(), "", o);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("inputs: x"), std::string::npos);
}

TEST(OnnxImport, BadFilesAndVersionsGetClearErrors) {
  auto garbage = import_onnx_bytes("this is not a protobuf", "", CompileOptions{});
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.status().message().find("not an ONNX model"), std::string::npos);
  const std::string good = small_cnn().bytes();
  EXPECT_FALSE(import_onnx_bytes(good.substr(0, good.size() / 2), "", CompileOptions{}).ok());
  OnnxBuilder ir9 = small_cnn();
  ir9.model().set_ir_version(9);
  auto e9 = import_onnx_bytes(ir9.bytes(), "", CompileOptions{});
  ASSERT_FALSE(e9.ok());
  EXPECT_NE(e9.status().message().find("IR version 9"), std::string::npos);
  OnnxBuilder op18 = small_cnn();
  op18.model().mutable_opset_import(0)->set_version(18);
  auto e18 = import_onnx_bytes(op18.bytes(), "", CompileOptions{});
  ASSERT_FALSE(e18.ok());
  EXPECT_NE(e18.status().message().find("opset 18"), std::string::npos);
  EXPECT_NE(e18.status().message().find("convert_version"), std::string::npos);
}

TEST(OnnxImport, AnOpWithoutKernelIsNamedWithItsNodeAndOpset) {
  OnnxBuilder b(15);
  b.input("x", {1, 4});
  b.node("Bernoulli", {"x"}, {"y"}, "the_erf");  // random: it will never have a kernel
  b.output("y", {1, 4});
  const std::string path = b.write((fs::temp_directory_path() / "svp_erf.onnx").string());
  CompileOptions o;
  o.model = path;
  o.compile_mode = "float";
  auto r = compile(o);
  fs::remove(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("\"the_erf\" (Bernoulli, opset 15)"), std::string::npos) << r.status().message();
}

// libonnx 1.12's Conv shape inference crashes (out-of-bounds read) on a Conv whose input
// rank does not fit its weights (found by onnx_import_fuzz). The importer must reject the
// node with the kernels' message before ONNX's inference ever sees it.
TEST(OnnxImport, AConvWhoseWeightsDoNotFitItsInputIsAnErrorNotACrash) {
  OnnxBuilder b;
  b.input("x", {1, 3, 8});  // 3-D input, 4-D weights
  b.initializer("w", {4, 3, 3, 3}, std::vector<float>(4 * 3 * 3 * 3, 0.5f));
  b.node("Conv", {"x", "w"}, {"y"}, "bad_conv");
  b.output("y", {1, 4, 6});
  // The checker accepts it (it does not check shapes); whole-model inference would crash.
  auto g = import_onnx_bytes(b.bytes(), "", CompileOptions{});
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), err::kParseModel);
  EXPECT_NE(g.status().message().find("\"bad_conv\" (Conv, opset 13)"), std::string::npos) << g.status().message();
}

// --mode=3: every problem at once (COMPILER.md §6: users hate unsupported ops reported one
// compile at a time), the nodes depending on a failed one counted but not reported.
TEST(OnnxImport, PrecheckReportsEveryProblemOfTheModelAtOnce) {
  OnnxBuilder b(15);
  b.input("x", {1, 3, 8, 8});
  b.input("v", {1, 4});
  b.initializer("w", {4, 5, 3, 3}, std::vector<float>(4 * 5 * 3 * 3, 0.5f));  // 5 channels, x has 3
  b.node("Conv", {"x", "w"}, {"c"}, "bad_conv");
  b.node("Relu", {"c"}, {"r"}, "after_bad_conv");
  b.node("Bernoulli", {"v"}, {"e"}, "the_erf");  // an op without kernel (random: never will)
  b.node("Relu", {"e"}, {"y2"}, "after_erf");
  b.output("r", {1, 4, 6, 6});
  b.output("y2", {1, 4});
  CompileOptions o;
  auto first = import_onnx_bytes(b.bytes(), "", o);  // mode 0: the first problem stops the import
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.status().message().find("the_erf"), std::string::npos) << first.status().message();
  o.mode = 3;
  auto all = import_onnx_bytes(b.bytes(), "", o);
  ASSERT_FALSE(all.ok());
  const std::string& m = all.status().message();
  EXPECT_NE(m.find("2 problem(s)"), std::string::npos) << m;
  EXPECT_NE(m.find("\"bad_conv\" (Conv, opset 15)"), std::string::npos) << m;
  EXPECT_NE(m.find("\"the_erf\" (Bernoulli, opset 15)"), std::string::npos) << m;
  EXPECT_NE(m.find("1 node(s) after them"), std::string::npos) << m;  // after_bad_conv
  EXPECT_EQ(m.find("after_erf"), std::string::npos) << m;             // checked, and fine
}

TEST(OnnxImport, ScalarOutputsLeaveAsOneElement) {
  OnnxBuilder b;
  b.input("x", {2, 3});
  auto& n = b.node("ReduceMax", {"x"}, {"y"});
  auto* keep = n.add_attribute();
  keep->set_name("keepdims");
  keep->set_type(onnx::AttributeProto::INT);
  keep->set_i(0);
  OnnxBuilder::attr_ints(n, "axes", {0, 1});
  b.output("y");
  auto g = import_onnx_bytes(b.bytes(), "", CompileOptions{});
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->value(g->outputs[0]).shape, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(g->value(g->outputs[0]).name, "y");
}

TEST(OnnxImport, AnOutputThatFoldsToAConstantIsCopiedByAnIdentityLayer) {
  // Shape of a static input folds at import; the model still returns it.
  OnnxBuilder b;
  b.input("x", {2, 3});
  b.node("Shape", {"x"}, {"y"});
  b.output("y", {2}, onnx::TensorProto::INT64);
  auto g = import_onnx_bytes(b.bytes(), "", CompileOptions{});
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Value& y = g->value(g->outputs[0]);
  EXPECT_EQ(y.name, "y");
  EXPECT_EQ(y.dtype, model::DType::kInt64);
  EXPECT_FALSE(y.is_constant());
  ASSERT_GE(y.producer, 0);
  const Node& copy = g->node(y.producer);
  EXPECT_EQ(copy.op, "Identity");
  ASSERT_EQ(copy.inputs.size(), 1u);
  const Value& c = g->value(copy.inputs[0]);
  ASSERT_TRUE(c.is_constant());
  std::vector<std::int64_t> dims(2);
  std::memcpy(dims.data(), c.data->data(), 16);
  EXPECT_EQ(dims, (std::vector<std::int64_t>{2, 3}));
}

TEST(Compile, TheSameInputsGiveByteIdenticalModels) {
  const std::string path = small_cnn().write((fs::temp_directory_path() / "svp_det.onnx").string());
  CompileOptions o;
  o.model = path;
  o.output = "det";
  o.compile_mode = "float";
  auto a = compile(o);
  auto b = compile(o);
  fs::remove(path);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(a->model.image, b->model.image);
  EXPECT_EQ(a->model.program.name, "det");  // the --output basename names the model
}

TEST(Compile, DumpGraphWritesEveryStageAndThePerfTableSumsTheLayers) {
  const std::string path = small_cnn().write((fs::temp_directory_path() / "svp_dump.onnx").string());
  const fs::path dir = fs::temp_directory_path() / "svp_dump_graph";
  fs::remove_all(dir);
  CompileOptions o;
  o.model = path;
  o.compile_mode = "float";
  o.dump_graph = dir.string();
  auto r = compile(o);
  fs::remove(path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  // After import and after every pass that ran, as Graphviz and as ONNX.
  ASSERT_GE(files.size(), 2u * 5u);
  ASSERT_EQ(files.size() % 2, 0u);
  EXPECT_EQ(files[0], "00_import.dot");
  EXPECT_EQ(files[1], "00_import.onnx");
  EXPECT_EQ(files.back(), fmt::format("{:02d}_segments.onnx", files.size() / 2 - 1));
  EXPECT_EQ(files[files.size() - 4], fmt::format("{:02d}_placement.dot", files.size() / 2 - 2));
  std::ifstream in(dir / files[files.size() - 2]);
  const std::string dot((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(dot.rfind("digraph", 0), 0u);
  EXPECT_NE(dot.find("\"conv\" [label=\"conv\\nConv\"]"), std::string::npos) << dot;
  fs::remove_all(dir);

  const target::DeviceProfile& chip = *target::find_profile("Hi3519DV500");
  const std::string csv = atc_perf_csv(r->model.program, chip);
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line,
            "index,name,type,device,segment,macs,bytes_read,bytes_written,weight_bytes,est_time_us,bound,predicted_us,"
            "predicted_bound");
  std::size_t rows = 0;
  double conv_us = -1;
  while (std::getline(lines, line) && line.rfind("total", 0) != 0) {
    ++rows;
    if (line.find(",Conv,") == std::string::npos) continue;
    // A float Conv at half the int8 rate, or its bytes over DRAM, whichever is slower.
    std::vector<std::string> f;
    std::istringstream cells(line);
    for (std::string c; std::getline(cells, c, ',');) f.push_back(c);
    ASSERT_EQ(f.size(), 13u) << line;
    const double macs = std::stod(f[5]), bytes = std::stod(f[6]) + std::stod(f[7]);
    const double compute = macs / (chip.npu_int8_tops * 1e12 / 4) * 1e6, memory = bytes / (chip.ddr_gbps * 1e9) * 1e6;
    conv_us = std::stod(f[9]);
    EXPECT_NEAR(conv_us, std::max(compute, memory), 1e-3) << line;
    EXPECT_EQ(f[10], compute >= memory ? "compute" : "memory");
  }
  EXPECT_EQ(rows, r->model.program.layers.size());
  EXPECT_GT(conv_us, 0);
  EXPECT_NE(line.find(",6912,"), std::string::npos) << line;  // the conv's MACs are the model's
}

// Gears: the model is stored at its largest resolution gear (one item for batch gears) and
// carries the gear list the runtime's
// svp_acl_mdl_set_dynamic_batch_size / _hw_size select from (tests/unit/model_execute_test
// runs such models).
TEST(Compile, GearFlagsGiveModelsStoredAtTheLargestGear) {
  const std::string path = small_cnn(-1).write((fs::temp_directory_path() / "svp_gears.onnx").string());
  CompileOptions o;
  o.model = path;
  o.compile_mode = "float";
  o.input_shape = {{"x", {-1, 3, 8, 8}}};
  o.dynamic_batch_size = {1, 2, 4};
  auto batch = compile(o);
  ASSERT_TRUE(batch.ok()) << batch.status().message();
  const model::Program& pb = batch->model.program;
  // One item in the program; the runtime runs the selected batch (up to 4) as items.
  EXPECT_EQ(pb.tensors[static_cast<std::size_t>(pb.input_tensors().at(0))].dims,
            (std::vector<std::int64_t>{1, 3, 8, 8}));
  EXPECT_EQ(pb.flags.dynamic_batch, (std::vector<std::uint64_t>{4}));

  OnnxBuilder hw = small_cnn();
  hw.model().mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(2)->set_dim_param("H");
  hw.model().mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(3)->set_dim_param("W");
  hw.write(path);
  o.input_shape = {{"x", {1, 3, -1, -1}}};
  o.dynamic_batch_size.clear();
  o.dynamic_image_size = {{8, 8}, {6, 6}};
  auto gears = compile(o);
  fs::remove(path);
  ASSERT_TRUE(gears.ok()) << gears.status().message();
  const model::Program& ph = gears->model.program;
  EXPECT_EQ(ph.tensors[static_cast<std::size_t>(ph.input_tensors().at(0))].dims,
            (std::vector<std::int64_t>{1, 3, 8, 8}));
  EXPECT_EQ(ph.flags.dynamic_hw, (std::vector<std::pair<std::uint64_t, std::uint64_t>>{{8, 8}, {6, 6}}));
}

TEST(Compile, PreemptibleIsAskedForAtCompileTime) {
  const std::string path = small_cnn().write((fs::temp_directory_path() / "svp_preempt.onnx").string());
  auto p = parse_atc_command_line({"--model=" + path, "--compile_mode=float", "--preemptible=1"});
  ASSERT_TRUE(p.ok()) << p.status().message();
  auto yes = compile(p->options);
  p->options.preemptible = false;
  auto no = compile(p->options);
  fs::remove(path);
  ASSERT_TRUE(yes.ok() && no.ok());
  EXPECT_TRUE(yes->model.program.flags.preemptible);
  EXPECT_FALSE(no->model.program.flags.preemptible);  // the default, as the vendor's
  EXPECT_FALSE(parse_atc_command_line({"--preemptible=maybe"}).ok());
}

TEST(Compile, EveryQuantizedModeNeedsCalibrationData) {
  CompileOptions o;
  o.model = "unused.onnx";
  auto r = compile(o);  // compile_mode 0, the vendor's default, without --image_list
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), err::kInvalidParam);
  EXPECT_NE(r.status().message().find("--image_list"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("--compile_mode=float"), std::string::npos);
  for (const char* mode : {"1", "5", "6"}) {
    o.compile_mode = mode;
    auto u = compile(o);
    ASSERT_FALSE(u.ok());
    EXPECT_EQ(u.status().code(), err::kInvalidParam) << mode;
    EXPECT_NE(u.status().message().find("--image_list"), std::string::npos) << u.status().message();
  }
  EXPECT_FALSE(parse_atc_command_line({"--compile_mode=2"}).ok());
  for (const char* mode : {"0", "1", "5", "6", "float"}) {
    auto p = parse_atc_command_line({std::string("--compile_mode=") + mode});
    ASSERT_TRUE(p.ok()) << mode;
    EXPECT_EQ(p->options.compile_mode, mode);
  }
}

// The Fashion-MNIST LeNet with `items` synthetic calibration rows in a temporary list
// (removed with the object).
class LenetCalibration {
 public:
  explicit LenetCalibration(int items)
      : list_(fs::temp_directory_path() / ("svp_lenet_calibration_" + std::to_string(::getpid()) + ".txt")) {
    std::ofstream out(list_);
    for (int item = 0; item < items; ++item) {
      for (int k = 0; k < 784; ++k) out << (k ? " " : "") << static_cast<float>((k * 7 + item * 3) % 17) / 16.0f;
      out << "\n";
    }
  }
  ~LenetCalibration() { fs::remove(list_); }
  CompileOptions options() const {
    CompileOptions o;
    o.model = SVP_SOURCE_DIR "/models/lenet_fashion_mnist.onnx";
    o.image_list = list_.string();
    return o;
  }

 private:
  fs::path list_;
};

// Each mode's choice per layer shows in om.json ("precision") and, where a layer is not
// at the mode's own precision (--high_precision_layer), in the log.
TEST(Compile, EveryQuantizedModeRecordsEachLayersPrecision) {
  const LenetCalibration calibration(2);
  CompileOptions o = calibration.options();
  auto precision_of = [](const CompileResult& r, const std::string& layer) {
    const nlohmann::json j = om_json(r.model.program, r.model.weights.size(), nullptr);
    for (const auto& op : j["ops"]) {
      if (op["name"] == layer) return op.value("precision", std::string("none"));
    }
    return std::string("missing");
  };
  const struct {
    const char* mode;
    const char* conv;
    const char* relu;
  } expect[] = {{"0", "A8W8", "A8W8"}, {"1", "A16W8", "A16W8"}, {"5", "A8W8", "FP16"}, {"6", "A16W8", "FP16"}};
  for (const auto& e : expect) {
    o.compile_mode = e.mode;
    auto r = compile(o);
    ASSERT_TRUE(r.ok()) << e.mode << ": " << r.status().message();
    EXPECT_EQ(precision_of(*r, "/conv2/Conv"), e.conv) << e.mode;
    EXPECT_EQ(precision_of(*r, "/Relu_1"), e.relu) << e.mode;
  }
  o.compile_mode = "0";
  o.high_precision_layer = {"/conv2/Conv"};
  auto raised = compile(o);
  ASSERT_TRUE(raised.ok()) << raised.status().message();
  EXPECT_EQ(precision_of(*raised, "/conv2/Conv"), "A16W8");
  EXPECT_EQ(precision_of(*raised, "/conv1/Conv"), "A8W8");
  const bool logged = std::any_of(raised->log.begin(), raised->log.end(), [](const std::string& line) {
    return line.find("layer \"/conv2/Conv\" (Conv) is A16W8") != std::string::npos;
  });
  EXPECT_TRUE(logged);
}

// --auto_mixed_precision on the Fashion-MNIST LeNet: the layers it raises are named in the
// log, and om.json shows their new precision.
TEST(Compile, AutoMixedPrecisionRaisesLayersUntilTheOutputsMeetTheTarget) {
  const LenetCalibration calibration(4);
  CompileOptions o = calibration.options();
  o.auto_mixed_precision = 0.9999999;  // beyond plain A8W8 on this data
  o.auto_mixed_precision_layer = 1.0;
  auto r = compile(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::vector<std::string> raised;
  for (const std::string& line : r->log) {
    if (line.rfind("auto mixed precision", 0) == 0) std::printf("%s\n", line.c_str());
    const std::string key = "quantize: layer \"";
    if (line.rfind(key, 0) == 0) raised.push_back(line.substr(key.size(), line.find('"', key.size()) - key.size()));
  }
  ASSERT_FALSE(raised.empty());
  const nlohmann::json j = om_json(r->model.program, r->model.weights.size(), nullptr);
  for (const std::string& name : raised) {
    bool seen = false;
    for (const auto& op : j["ops"]) {
      if (op["name"] != name) continue;
      seen = true;
      EXPECT_NE(op.value("precision", std::string()), "A8W8") << name;
    }
    EXPECT_TRUE(seen) << name;
  }
  const bool concluded = std::any_of(r->log.begin(), r->log.end(), [](const std::string& line) {
    return line.find("meets the target") != std::string::npos || line.find("is not met") != std::string::npos;
  });
  EXPECT_TRUE(concluded);
}

// In A16W8 a Conv read only by a Relu writes int16 symmetric over the Relu's range, so its
// negatives below -max are clipped, which the Relu makes irrelevant: the per-layer analysis
// compares what the Relu sees (it reported the LeNet's first Conv at cosine 0.94 before).
TEST(Compile, TheAccuracyReportComparesAnA16W8ConvAsItsReluSeesIt) {
  const LenetCalibration calibration(4);
  CompileOptions o = calibration.options();
  o.compile_mode = "1";
  o.accuracy_report = true;
  auto r = compile(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::istringstream csv(r->layer_accuracy_csv);
  std::string row;
  int convs = 0;
  while (std::getline(csv, row)) {
    if (row.find(",Conv,") == std::string::npos) continue;
    ++convs;
    const std::size_t at = row.find(",Conv,") + 6;
    EXPECT_GT(std::stod(row.substr(at, row.find(',', at) - at)), 0.999) << row;
  }
  EXPECT_EQ(convs, 2);
}

TEST(Segmentation, SegmentsStayWithinTheBoundAndActivationsStayWithTheirConv) {
  auto g = import_onnx_bytes(small_cnn().bytes(), "", CompileOptions{});
  ASSERT_TRUE(g.ok()) << g.status().message();
  const auto order = g->live_nodes();
  // conv: 1·4·8·8 outputs × 27 MACs = 6912.
  EXPECT_EQ(node_macs(*g, order[0]), 6912u);
  const SegmentReport one = segment_by_cost(*g, 10000);
  EXPECT_EQ(one.segments, 1u);
  EXPECT_EQ(one.longest_macs, 6912u);
  const SegmentReport tight = segment_by_cost(*g, 100);
  EXPECT_EQ(tight.segments, 1u);  // a single costly node is a segment of its own; relu & co follow it
  g->node(order[2]).target = model::Target::kAiCpu;  // a target change always cuts
  const SegmentReport cut = segment_by_cost(*g, 10000);
  EXPECT_EQ(cut.segments, 3u);
  EXPECT_TRUE(g->node(order[2]).starts_segment);
  EXPECT_TRUE(g->node(order[3]).starts_segment);
}

}  // namespace
}  // namespace svp::compiler

namespace svp::compiler {
namespace {

// Corrupt model files never crash the importer (run under ASan/UBSan in CI): thousands of
// deterministic truncations and byte flips of a valid model, each an error or a model.
TEST(OnnxImport, CorruptFilesAreErrorsNeverCrashes) {
  const std::string good = small_cnn().bytes();
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  int errors = 0, models = 0;
  for (std::size_t cut = 0; cut < good.size(); cut += 7) {
    (import_onnx_bytes(good.substr(0, cut), "", CompileOptions{}).ok() ? models : errors) += 1;
  }
  for (int i = 0; i < 1500; ++i) {
    std::string bad = good;
    const int flips = 1 + static_cast<int>(next() % 4);
    for (int f = 0; f < flips; ++f) bad[next() % bad.size()] = static_cast<char>(next());
    (import_onnx_bytes(bad, "", CompileOptions{}).ok() ? models : errors) += 1;
  }
  EXPECT_GT(errors, 0);
  std::printf("corrupt inputs: %d rejected, %d still valid models\n", errors, models);
}

}  // namespace
}  // namespace svp::compiler

namespace svp::compiler {
namespace {

// x → Q/DQ (scale 0.02, uint8 zero point 128) → Conv → Relu → Q/DQ (0.05, uint8 0) →
// GlobalAveragePool → Flatten: an activation-QDQ model as onnxruntime's quantizer writes.
OnnxBuilder qdq_cnn() {
  OnnxBuilder b = small_cnn();
  onnx::GraphProto* g = b.model().mutable_graph();
  auto scalar = [&](const std::string& name, int type, float f, std::uint8_t u) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    if (type == onnx::TensorProto::FLOAT) {
      t->add_float_data(f);
    } else {
      t->add_int32_data(u);
    }
  };
  scalar("s_in", onnx::TensorProto::FLOAT, 0.02f, 0);
  scalar("z_in", onnx::TensorProto::UINT8, 0, 128);
  scalar("s_r", onnx::TensorProto::FLOAT, 0.05f, 0);
  scalar("z_r", onnx::TensorProto::UINT8, 0, 0);
  // Rewire: conv reads dq_x; gap reads dq_r.
  for (onnx::NodeProto& n : *g->mutable_node()) {
    if (n.name() == "conv") n.set_input(0, "dq_x");
    if (n.name() == "gap") n.set_input(0, "dq_r");
  }
  b.node("QuantizeLinear", {"x", "s_in", "z_in"}, {"q_x"}, "q_x");
  b.node("DequantizeLinear", {"q_x", "s_in", "z_in"}, {"dq_x"}, "dq_x");
  b.node("QuantizeLinear", {"r", "s_r", "z_r"}, {"q_r"}, "q_r");
  b.node("DequantizeLinear", {"q_r", "s_r", "z_r"}, {"dq_r"}, "dq_r");
  // Topological order for the checker: the QDQ nodes before their readers.
  auto* nodes = g->mutable_node();
  std::vector<onnx::NodeProto> order;
  for (const char* name : {"q_x", "dq_x", "conv", "relu", "q_r", "dq_r", "gap", "flat"}) {
    for (const auto& n : *nodes) {
      if (n.name() == name) order.push_back(n);
    }
  }
  nodes->Clear();
  for (auto& n : order) *nodes->Add() = n;
  return b;
}

TEST(Compile, QdqPairsBecomeTheEncodingsOfTheirTensors) {
  const fs::path dir = fs::temp_directory_path() / ("svp_qdq_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  CompileOptions o;
  o.model = qdq_cnn().write((dir / "qdq.onnx").string());
  {
    std::ofstream list(dir / "cal.txt");
    for (int item = 0; item < 4; ++item) {
      for (int i = 0; i < 3 * 8 * 8; ++i) list << (((i * 7 + item * 13) % 50) / 25.0 - 1.0) << " ";
      list << "\n";
    }
  }
  o.image_list = "x:" + (dir / "cal.txt").string();
  auto r = compile(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto& log = r->log;
  EXPECT_NE(std::find_if(log.begin(), log.end(), [](const std::string& l) { return l.find("QDQ: 2 ") == 0; }),
            log.end());
  bool input_encoding = false, relu_encoding = false;
  for (const model::Tensor& t : r->model.program.tensors) {
    if (t.quant.scale.size() != 1) continue;
    // uint8 zero point 128 is the int8 zero point 0; uint8 0 stays uint8 0 ([0, max]).
    input_encoding |= t.dtype == model::DType::kInt8 && t.quant.scale[0] == 0.02f && t.quant.zero_point[0] == 0;
    relu_encoding |= t.dtype == model::DType::kUint8 && t.quant.scale[0] == 0.05f && t.quant.zero_point[0] == 0;
  }
  EXPECT_TRUE(input_encoding);
  EXPECT_TRUE(relu_encoding);
  for (const model::Layer& l : r->model.program.layers) {
    EXPECT_TRUE(l.name.rfind("q_", 0) != 0 && l.name.rfind("dq_", 0) != 0) << l.name << " was kept";
  }

  // Float: the pairs stay, computing what ONNX says they compute.
  o.compile_mode = "float";
  o.image_list.clear();
  auto f = compile(o);
  ASSERT_TRUE(f.ok()) << f.status().message();
  std::size_t kept = 0;
  for (const model::Layer& l : f->model.program.layers) kept += l.op == "QuantizeLinear" || l.op == "DequantizeLinear";
  EXPECT_EQ(kept, 4u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace svp::compiler
