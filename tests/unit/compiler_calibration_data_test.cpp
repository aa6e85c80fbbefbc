// --image_list: the calibration data reader (list files of .npy / .bin / numbers).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/npy.h"
#include "compiler/quantize/calibration_data.h"
#include "compiler_graph.h"

namespace svp::compiler::quant {
namespace {

namespace fs = std::filesystem;
using namespace testing_graph;  // NOLINT(google-build-using-namespace)

class CalibrationData : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("svp_calib_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  std::string write_bytes(const std::string& name, const std::vector<std::uint8_t>& b) {
    std::ofstream(dir_ / name, std::ios::binary).write(reinterpret_cast<const char*>(b.data()),
                                                       static_cast<std::streamsize>(b.size()));
    return (dir_ / name).string();
  }
  // A graph with one input "x" of `shape` and `dtype`.
  static Graph graph(std::vector<std::int64_t> shape, model::DType dtype = model::DType::kFloat32) {
    Graph g;
    const ValueId x = value(g, "x", std::move(shape));
    g.value(x).dtype = dtype;
    g.inputs.push_back(x);
    return g;
  }
  fs::path dir_;
};

TEST_F(CalibrationData, LinesOfNumbersNpyAndBinFilesAreItemsGroupedIntoBatches) {
  const Graph g = graph({2, 3});
  const float bin[3] = {7, 8, 9};
  std::vector<std::uint8_t> raw(sizeof bin);
  std::memcpy(raw.data(), bin, sizeof bin);
  write_bytes("item.bin", raw);
  const double d[3] = {4.5, 5.5, 6.5};  // float64 .npy, converted
  write_bytes("item.npy", npy::make("<f8", {1, 3}, reinterpret_cast<const std::uint8_t*>(d), sizeof d));
  const std::string list = write("list.txt", "# comment\n1 2 3\n\nitem.npy\nitem.bin\n-1,0.5,2e1\n");
  auto set = load_calibration_data(g, "x:" + list);
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->items, 4u);
  ASSERT_EQ(set->batches.size(), 2u);
  const float* b0 = set->batches[0][0].view().as<const float>();
  const float* b1 = set->batches[1][0].view().as<const float>();
  EXPECT_EQ(std::vector<float>(b0, b0 + 6), (std::vector<float>{1, 2, 3, 4.5f, 5.5f, 6.5f}));
  EXPECT_EQ(std::vector<float>(b1, b1 + 6), (std::vector<float>{7, 8, 9, -1, 0.5f, 20}));
  // One input: the name may be left out.
  EXPECT_TRUE(load_calibration_data(g, list).ok());
}

TEST_F(CalibrationData, InputNamesWithColonsAsTorchExportsThemAreFound) {
  Graph g;
  const ValueId a = value(g, "onnx::Flatten_0", {1, 2});
  const ValueId b = value(g, "y", {1, 2});
  g.inputs = {a, b};
  const std::string la = write("a.txt", "1 2\n"), lb = write("b.txt", "3 4\n");
  auto set = load_calibration_data(g, "onnx::Flatten_0:" + la + ";y:" + lb);
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->batches[0][0].view().as<const float>()[1], 2.0f);
  EXPECT_EQ(set->batches[0][1].view().as<const float>()[0], 3.0f);
  auto wrong = load_calibration_data(g, "onnx::Flatten_1:" + la + ";y:" + lb);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("inputs: onnx::Flatten_0, y"), std::string::npos) << wrong.status().message();
}

TEST_F(CalibrationData, IntegerInputsGetTheCastKernelsSaturatingConversion) {
  const Graph g = graph({1, 4}, model::DType::kUint8);
  const std::string list = write("list.txt", "0 254.7 300 -5\n");
  auto set = load_calibration_data(g, list);
  ASSERT_TRUE(set.ok()) << set.status().message();
  const std::uint8_t* v = set->batches[0][0].view().as<const std::uint8_t>();
  EXPECT_EQ(std::vector<int>(v, v + 4), (std::vector<int>{0, 254, 255, 0}));
}

TEST_F(CalibrationData, BadListsNameTheListTheItemAndTheFix) {
  const Graph g = graph({2, 3});
  auto message = [&](const std::string& image_list) {
    auto r = load_calibration_data(g, image_list);
    EXPECT_FALSE(r.ok()) << image_list;
    return r.ok() ? std::string() : r.status().message();
  };
  const std::string three = write("three.txt", "1 2 3\n4 5 6\n7 8 9\n");
  EXPECT_NE(message("y:" + three).find("(inputs: x)"), std::string::npos);
  EXPECT_NE(message("x:" + three).find("add 1 more"), std::string::npos);
  EXPECT_NE(message("x:" + write("short.txt", "1 2\n3 4 5\n")).find("2 numbers"), std::string::npos);
  EXPECT_NE(message("x:" + write("word.txt", "1 two 3\n4 5 6\n")).find("\"two\""), std::string::npos);
  EXPECT_NE(message("x:" + write("missing.txt", "nowhere.npy\n1 2 3\n")).find("cannot read"), std::string::npos);
  EXPECT_NE(message("x:" + (dir_ / "no_list.txt").string()).find("cannot read"), std::string::npos);
  EXPECT_NE(message("x:" + write("bin.txt", "b.bin\n1 2 3\n")).find("cannot read"), std::string::npos);
  write_bytes("small.bin", {1, 2, 3});
  EXPECT_NE(message("x:" + write("small.txt", "small.bin\n1 2 3\n")).find("12 bytes"), std::string::npos);
  EXPECT_NE(message("").find("--image_list is empty"), std::string::npos);
  // Images are data only for inputs with a static AIPP (compiler_image_calibration_test).
  auto image = load_calibration_data(g, "x:" + write("img.txt", "cat.jpg\ndog.jpg\n"));
  ASSERT_FALSE(image.ok());
  EXPECT_EQ(image.status().code(), err::kInvalidParam);
  EXPECT_NE(image.status().message().find("--insert_op_conf"), std::string::npos);
  auto yuv = load_calibration_data(g, "x:" + write("yuv.txt", "frame.yuv\nframe.yuv\n"));
  ASSERT_FALSE(yuv.ok());
  EXPECT_EQ(yuv.status().code(), err::kFeatureUnsupported);
}


// Opening a FIFO blocks until a writer comes: svp_atc waited forever on one listed as an
// item (the bad-input probe). FIFOs, directories and devices are refused before opening.
TEST_F(CalibrationData, AFifoOrDirectoryAsAnItemOrListIsRefusedWithoutBlocking) {
  const Graph g = graph({1, 3});
  ASSERT_EQ(::mkfifo((dir_ / "pipe.npy").c_str(), 0600), 0);
  auto item = load_calibration_data(g, "x:" + write("fifo.txt", "pipe.npy\n"));
  ASSERT_FALSE(item.ok());
  EXPECT_EQ(item.status().code(), err::kInvalidParam);
  EXPECT_NE(item.status().message().find("is not a regular file (a FIFO)"), std::string::npos) << item.status().message();
  EXPECT_NE(item.status().message().find("pipe.npy"), std::string::npos);
  ASSERT_EQ(::mkfifo((dir_ / "pipe_list.txt").c_str(), 0600), 0);
  auto list = load_calibration_data(g, "x:" + (dir_ / "pipe_list.txt").string());
  ASSERT_FALSE(list.ok());
  EXPECT_NE(list.status().message().find("a FIFO"), std::string::npos) << list.status().message();
  fs::create_directories(dir_ / "folder.bin");
  auto folder = load_calibration_data(g, "x:" + write("dir.txt", "folder.bin\n"));
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.status().message().find("a directory"), std::string::npos) << folder.status().message();
}

// NaN or infinite calibration values made the int8 ranges (and outputs) garbage without a
// word: refused, naming the item (list and line) and the input.
TEST_F(CalibrationData, NanOrInfiniteValuesAreRefusedNamingTheItemAndInput) {
  const Graph g = graph({1, 3});
  auto message = [&](const std::string& list) {
    auto r = load_calibration_data(g, "x:" + list);
    EXPECT_FALSE(r.ok()) << list;
    return r.ok() ? std::string() : r.status().message();
  };
  const std::string numbers = message(write("nan.txt", "1 2 3\n1 nan 3\n"));
  EXPECT_NE(numbers.find("nan.txt, item 2"), std::string::npos) << numbers;
  EXPECT_NE(numbers.find("input \"x\" is NaN"), std::string::npos) << numbers;
  const float inf[3] = {1, 2, INFINITY};
  std::vector<std::uint8_t> raw(sizeof inf);
  std::memcpy(raw.data(), inf, sizeof inf);
  write_bytes("inf.bin", raw);
  EXPECT_NE(message(write("bin.txt", "inf.bin\n")).find("value 2 of the item for input \"x\" is infinite"),
            std::string::npos);
  const double d[3] = {0.5, std::nan(""), 1};
  write_bytes("nan.npy", npy::make("<f8", {1, 3}, reinterpret_cast<const std::uint8_t*>(d), sizeof d));
  EXPECT_NE(message(write("npy.txt", "nan.npy\n")).find("is NaN"), std::string::npos);
}

}  // namespace
}  // namespace svp::compiler::quant
