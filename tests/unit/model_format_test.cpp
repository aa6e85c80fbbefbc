// The offline model container and the program IR: round trips, every validation rule,
// corrupt and foreign images (truncations, bit flips, garbage, vendor magic), the JSON
// decoder's error paths, and CRC-32.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/builder.h"
#include "model/crc32.h"
#include "model/format.h"
#include "model/program.h"

namespace svp::model {
namespace {

using namespace svp::compiler;  // NOLINT(google-build-using-namespace): the builder under test

using nlohmann::json;

// ---------------------------------------------------------------------------------------
// Fixtures.

// A small but complete model: x -> conv(w, b) -> t0 -> relu -> t1 -> add(t1, t0) -> y,
// plus an int8 per-channel quantized constant and an AI-CPU layer producing a second output.
BuiltModel rich_model() {
  ModelBuilder b("rich-model");
  const TensorId x = b.add_input("x", DType::kFloat32, {1, 3, 4, 4});
  const TensorId w = b.add_constant("w", {2, 3, 1, 1}, std::vector<float>{1, 2, 3, 4, 5, 6});
  const TensorId bias = b.add_constant("b", {2}, std::vector<float>{0.5f, -0.5f});
  Quant q;
  q.scale = {0.5f, 0.25f};
  q.zero_point = {0, -3};
  q.axis = 0;
  const TensorId wq = b.add_constant("wq", {2, 4}, std::vector<std::int8_t>{1, -2, 3, -4, 5, -6, 7, -8}, q);
  LayerOptions conv;
  conv.attrs.set("kernel_shape", std::vector<std::int64_t>{1, 1});
  conv.attrs.set("pads", std::vector<std::int64_t>{0, 0, 0, 0});
  conv.attrs.set("group", std::int64_t{1});
  conv.attrs.set("alpha", 0.1);
  conv.attrs.set("auto_pad", std::string("NOTSET"));
  conv.attrs.set("scales", std::vector<double>{1.5, 0.1, -2.0});
  conv.output_shapes = {{1, 2, 4, 4}};
  const TensorId t0 = b.add_layer("conv", "Conv", {x, w, bias}, conv);
  LayerOptions same;
  same.output_shapes = {{1, 2, 4, 4}};
  const TensorId t1 = b.add_layer("relu", "Relu", {t0}, same);
  const TensorId y = b.add_layer("add", "Add", {t1, t0}, same);
  b.add_output(y);
  LayerOptions cpu;
  cpu.target = Target::kAiCpu;
  cpu.output_shapes = {{2, 4}};
  cpu.output_dtypes = {DType::kFloat32};
  const TensorId z = b.add_layer("dequant", "DequantizeLinear", {wq, -1, -1}, cpu);
  b.add_output(z, "z");
  b.set_preemptible(true);
  b.set_aicpu_busy_wait(true);
  b.set_buffer_reuse(7);
  b.set_internal_stride(32);
  b.set_dynamic_hw({{4, 4}, {8, 8}});
  b.set_inout_reuse(x, 2);
  b.set_inout_reuse(y, 1);
  b.set_aipp(x, R"({"aipp_mode": "dynamic", "max_src_image_size_w": 8, "max_src_image_size_h": 8, "input_format": "YUV420SP_U8"})");
  b.set_compiler_info("svp-acl test 1.0", "svp_atc --model=rich.onnx --output=rich \u00e9\u4e2d");
  auto m = b.build();
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

// x[1,4] + w[4] -> t -> Relu -> y; about 1 KiB.
BuiltModel small_model() {
  ModelBuilder b("small");
  const TensorId x = b.add_input("x", DType::kFloat32, {1, 4});
  const TensorId w = b.add_constant("w", {4}, std::vector<float>{1.f, -2.f, 3.f, -4.f});
  LayerOptions o;
  o.output_shapes = {{1, 4}};
  const TensorId t = b.add_layer("add", "Add", {x, w}, o);
  b.add_output(b.add_layer("relu", "Relu", {t}, o), "y");
  auto m = b.build();
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

std::uint32_t u32_at(const std::vector<std::uint8_t>& v, std::size_t at) {
  std::uint32_t x = 0;
  for (int i = 3; i >= 0; --i) x = (x << 8) | v[at + static_cast<std::size_t>(i)];
  return x;
}
std::uint64_t u64_at(const std::vector<std::uint8_t>& v, std::size_t at) {
  std::uint64_t x = 0;
  for (int i = 7; i >= 0; --i) x = (x << 8) | v[at + static_cast<std::size_t>(i)];
  return x;
}
void set_u32(std::vector<std::uint8_t>& v, std::size_t at, std::uint32_t x) {
  for (int i = 0; i < 4; ++i) v[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(x >> (8 * i));
}
void set_u64(std::vector<std::uint8_t>& v, std::size_t at, std::uint64_t x) {
  for (int i = 0; i < 8; ++i) v[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(x >> (8 * i));
}

struct SectionInfo {
  std::uint32_t type, flags, crc;
  std::uint64_t offset, size;
  std::size_t entry;  // byte offset of its table entry
};
std::vector<SectionInfo> sections_of(const std::vector<std::uint8_t>& image) {
  std::vector<SectionInfo> out;
  const std::uint32_t n = u32_at(image, 12);
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::size_t e = kHeaderSize + kSectionEntrySize * i;
    out.push_back({u32_at(image, e), u32_at(image, e + 4), u32_at(image, e + 24), u64_at(image, e + 8),
                   u64_at(image, e + 16), e});
  }
  return out;
}
SectionInfo section(const std::vector<std::uint8_t>& image, std::uint32_t type) {
  for (const auto& s : sections_of(image)) {
    if (s.type == type) return s;
  }
  ADD_FAILURE() << "no section " << type;
  return {};
}

std::vector<std::uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

// A container holding `metadata` text plus the small model's weights and compiler info.
std::vector<std::uint8_t> with_metadata(const std::string& metadata) {
  const BuiltModel m = small_model();
  return write_container({{kSectionMetadata, 0, bytes_of(metadata)},
                          {kSectionWeights, 0, m.weights},
                          {kSectionCompiler, 0, bytes_of(encode_compiler(m.program.compiler))}});
}

Status read_status(const std::vector<std::uint8_t>& image) {
  auto r = read_model(image.data(), image.size());
  return r.ok() ? Status::Ok() : r.status();
}

#define EXPECT_ERROR(status_expr, code_, needle)                                                 \
  do {                                                                                           \
    const ::svp::Status s_ = (status_expr);                                                      \
    EXPECT_EQ(s_.code(), (code_)) << s_.message();                                               \
    EXPECT_NE(s_.message().find(needle), std::string::npos) << "message: " << s_.message();     \
  } while (0)

// ---------------------------------------------------------------------------------------
TEST(Crc32, MatchesTheStandardCheckValueAndABitwiseReference) {
  const char* check = "123456789";
  EXPECT_EQ(crc32(check, 9), 0xCBF43926u);
  EXPECT_EQ(crc32(nullptr, 0), 0u);
  auto bitwise = [](const std::uint8_t* p, std::size_t n) {
    std::uint32_t c = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < n; ++i) {
      c ^= p[i];
      for (int k = 0; k < 8; ++k) c = (c & 1u) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
    }
    return ~c;
  };
  std::mt19937 rng(7);
  // Lengths on both sides of the carry-less-multiplication path (256 bytes and up, on
  // CPUs that have it) and of its 64- and 16-byte steps, at every alignment mod 16.
  std::vector<std::uint8_t> data(1200);
  for (auto& b : data) b = static_cast<std::uint8_t>(rng());
  for (std::size_t start = 0; start < 17; ++start) {
    for (std::size_t len = 0; start + len <= data.size(); len += (len < 200 ? 7 : 5)) {
      ASSERT_EQ(crc32(data.data() + start, len), bitwise(data.data() + start, len)) << start << "+" << len;
    }
  }
  // Incremental = one shot, across the paths.
  for (std::size_t cut : {100u, 256u, 301u, 640u}) {
    const std::uint32_t part = crc32(data.data(), cut);
    EXPECT_EQ(crc32(data.data() + cut, data.size() - cut, part), crc32(data.data(), data.size())) << cut;
  }
  std::vector<std::uint8_t> big(3u << 20);
  for (auto& b : big) b = static_cast<std::uint8_t>(rng());
  EXPECT_EQ(crc32(big.data() + 3, big.size() - 3), bitwise(big.data() + 3, big.size() - 3));
}

// ---------------------------------------------------------------------------------------
TEST(ModelFormat, RoundTripKeepsTheProgramAndTheWeightsExactly) {
  const BuiltModel m = rich_model();
  auto loaded = read_model(m.image.data(), m.image.size());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_TRUE(loaded->program == m.program);
  ASSERT_EQ(loaded->weights_size, m.weights.size());
  EXPECT_EQ(std::memcmp(loaded->weights, m.weights.data(), m.weights.size()), 0);
  // Spot checks that equality compared what we think it did.
  const Program& p = loaded->program;
  EXPECT_EQ(p.name, "rich-model");
  EXPECT_EQ(p.compiler.command_line, "svp_atc --model=rich.onnx --output=rich \u00e9\u4e2d");
  EXPECT_EQ(p.flags.buffer_reuse, 7);
  EXPECT_EQ(p.flags.internal_stride, 32u);
  EXPECT_TRUE(p.flags.preemptible);
  EXPECT_TRUE(p.flags.aicpu_busy_wait);
  ASSERT_EQ(p.flags.dynamic_hw.size(), 2u);
  EXPECT_EQ(p.flags.dynamic_hw[1], std::make_pair(std::uint64_t{8}, std::uint64_t{8}));
  const Layer& conv = p.layers[0];
  EXPECT_EQ(std::get<double>(conv.attrs.all().at("alpha")), 0.1);
  EXPECT_EQ(std::get<std::vector<double>>(conv.attrs.all().at("scales"))[1], 0.1);
  EXPECT_EQ(std::get<std::string>(conv.attrs.all().at("auto_pad")), "NOTSET");
  EXPECT_EQ(p.layers[3].target, Target::kAiCpu);
  EXPECT_EQ(p.layers[3].inputs, (std::vector<std::int32_t>{3, -1, -1}));
  const Tensor& wq = p.tensors[3];
  EXPECT_EQ(wq.quant.zero_point, (std::vector<std::int32_t>{0, -3}));
  EXPECT_EQ(wq.quant.scale, (std::vector<float>{0.5f, 0.25f}));
  EXPECT_EQ(p.tensors[0].aipp, R"({"aipp_mode": "dynamic", "max_src_image_size_w": 8, "max_src_image_size_h": 8, "input_format": "YUV420SP_U8"})");
  EXPECT_EQ(p.input_tensors(), (std::vector<std::int32_t>{0}));
  EXPECT_EQ(p.output_tensors().size(), 2u);
  // Writing the loaded program again gives the same bytes.
  EXPECT_EQ(write_model(p, loaded->weights, loaded->weights_size), m.image);
}

TEST(ModelFormat, FloatValuesRoundTripBitExactly) {
  ModelBuilder b;
  const TensorId x = b.add_input("x", DType::kInt8, {1, 8}, Layout::kND, Quant{{0.1f}, {-128}, -1});
  LayerOptions o;
  o.output_shapes = {{1, 8}};
  const std::vector<double> awkward = {0.1, 1.0 / 3.0, 1e-300, -2.5e300, 123456789.123456789, 5e-324, -0.0};
  o.attrs.set("values", awkward);
  o.attrs.set("big", std::numeric_limits<std::int64_t>::min());
  o.output_quants = {Quant{{std::nextafter(1.0f, 2.0f)}, {127}, -1}};
  b.add_output(b.add_layer("id", "Identity", {x}, o));
  auto m = b.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto loaded = read_model(m->image.data(), m->image.size());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const auto& v = std::get<std::vector<double>>(loaded->program.layers[0].attrs.all().at("values"));
  ASSERT_EQ(v.size(), awkward.size());
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(std::memcmp(&v[i], &awkward[i], sizeof(double)), 0) << i;
  EXPECT_EQ(std::get<std::int64_t>(loaded->program.layers[0].attrs.all().at("big")),
            std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(loaded->program.tensors[1].quant.scale[0], std::nextafter(1.0f, 2.0f));
  EXPECT_TRUE(loaded->program == m->program);
}

TEST(ModelFormat, ContainerLayoutIsAsDocumented) {
  const BuiltModel m = small_model();
  const auto& img = m.image;
  ASSERT_GE(img.size(), 16u);
  EXPECT_EQ(std::string(img.begin(), img.begin() + 8), "SVPACLOM");
  EXPECT_EQ(u32_at(img, 8), 1u);
  ASSERT_EQ(u32_at(img, 12), 3u);
  const auto secs = sections_of(img);
  EXPECT_EQ(secs[0].type, kSectionMetadata);
  EXPECT_EQ(secs[1].type, kSectionWeights);
  EXPECT_EQ(secs[2].type, kSectionCompiler);
  std::uint64_t end = kHeaderSize + 3 * kSectionEntrySize;
  for (const auto& s : secs) {
    EXPECT_EQ(s.flags, 0u);
    EXPECT_EQ(s.offset % 64, 0u);
    EXPECT_GE(s.offset, end);
    EXPECT_EQ(crc32(img.data() + s.offset, s.size), s.crc);
    EXPECT_EQ(u32_at(img, s.entry + 28), 0u);
    end = s.offset + s.size;
  }
  EXPECT_EQ(end, img.size());
  EXPECT_EQ(secs[1].size, m.weights.size());
  // METADATA is the JSON the encoder produces; WEIGHTS the raw blob.
  EXPECT_EQ(std::string(img.begin() + static_cast<std::ptrdiff_t>(secs[0].offset),
                        img.begin() + static_cast<std::ptrdiff_t>(secs[0].offset + secs[0].size)),
            encode_metadata(m.program));
  EXPECT_EQ(std::memcmp(img.data() + secs[1].offset, m.weights.data(), m.weights.size()), 0);
}

TEST(ModelFormat, WeightsAreZeroCopyAndAligned) {
  const BuiltModel m = small_model();
  // Copy into a 64-byte aligned buffer, as svp_acl_rt_malloc would provide.
  std::vector<std::uint8_t> storage(m.image.size() + 64);
  auto* base = reinterpret_cast<std::uint8_t*>((reinterpret_cast<std::uintptr_t>(storage.data()) + 63) & ~std::uintptr_t{63});
  std::memcpy(base, m.image.data(), m.image.size());
  auto loaded = read_model(base, m.image.size());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->weights, base + section(m.image, kSectionWeights).offset);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(loaded->weights) % 64, 0u);
  float w0 = 0;
  std::memcpy(&w0, loaded->weights + loaded->program.tensors[1].offset, sizeof w0);
  EXPECT_EQ(w0, 1.0f);
}

TEST(ModelFormat, OptionalSectionsMayBeAbsentAndUnknownOptionalOnesAreSkipped) {
  // A model without constants needs no WEIGHTS; without COMPILER the info is empty.
  ModelBuilder b;
  LayerOptions o;
  o.output_shapes = {{2}};
  b.add_output(b.add_layer("r", "Relu", {b.add_input("x", DType::kFloat32, {2})}, o));
  auto m = b.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
  const auto meta = bytes_of(encode_metadata(m->program));
  auto only_meta = write_container({{kSectionMetadata, 0, meta}});
  auto loaded = read_model(only_meta.data(), only_meta.size());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->weights, nullptr);
  EXPECT_EQ(loaded->weights_size, 0u);
  EXPECT_EQ(loaded->program.compiler.producer_version, "");

  auto with_future = write_container({{77, kSectionFlagOptional, bytes_of("future data")}, {kSectionMetadata, 0, meta}});
  EXPECT_TRUE(read_model(with_future.data(), with_future.size()).ok());
  auto required_future = write_container({{kSectionMetadata, 0, meta}, {77, 0, bytes_of("future data")}});
  EXPECT_ERROR(read_status(required_future), err::kDeserializeModel, "unknown required type 77");
}

// ---------------------------------------------------------------------------------------
// Header and section-table errors.
TEST(ModelFormat, RejectsTooSmallAndNullImages) {
  const BuiltModel m = small_model();
  EXPECT_ERROR(read_status({}), err::kModelSizeInvalid, "smaller than the 16-byte");
  EXPECT_ERROR(read_model(m.image.data(), 15).status(), err::kModelSizeInvalid, "model size 15");
  EXPECT_ERROR(read_model(nullptr, 0).status(), err::kModelSizeInvalid, "model size 0");
  EXPECT_ERROR(read_model(nullptr, m.image.size()).status(), err::kInvalidParam, "null");
}

TEST(ModelFormat, ForeignFilesGetAClearMessage) {
  // Vendor-style images and other containers: same size as ours, different magic.
  const BuiltModel m = small_model();
  for (const std::string& magic : {std::string("IMOD\0\0\0\0", 8), std::string("\x7f" "ELF\2\1\1\0", 8),
                                  std::string("PK\3\4\0\0\0\0", 8), std::string("svpaclom"), std::string("SVPACLOm")}) {
    std::vector<std::uint8_t> img = m.image;
    std::memcpy(img.data(), magic.data(), 8);
    const Status s = read_status(img);
    EXPECT_EQ(s.code(), err::kDeserializeModel);
    EXPECT_NE(s.message().find("not an svp-acl offline model"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("compile the original ONNX model with svp_atc and the same flags"), std::string::npos)
        << s.message();
    const bool vendor = magic.compare(0, 4, "IMOD") == 0;
    EXPECT_EQ(s.message().find("compiled by the vendor's ATC") != std::string::npos, vendor) << s.message();
  }
  // Plain text / JSON handed over by mistake.
  const std::string text = R"({"this": "is a json file, not a model"})";
  EXPECT_ERROR(read_status(bytes_of(text)), err::kDeserializeModel, "starts with \"{\\x22this\\x22:\"");
}

// Version 2 exists for the dtypes uint64, float64 and bool: a model using one is written
// as version 2 and reads back; a model without them stays version 1 for older readers.
TEST(ModelFormat, NewDtypesWriteVersionTwoOthersStayVersionOne) {
  EXPECT_EQ(u32_at(small_model().image, 8), 1u);
  ModelBuilder b("cmp");
  const TensorId x = b.add_input("x", DType::kFloat64, {1, 4});
  const TensorId w = b.add_constant("w", {4}, std::vector<double>{1, 2, 3, 4});
  LayerOptions o;
  o.output_dtypes = {DType::kBool};
  b.add_output(b.add_layer("eq", "Equal", {x, w}, o), "y");
  auto m = b.build();
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(u32_at(m->image, 8), 2u);
  auto loaded = read_model(m->image.data(), m->image.size());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  bool saw_bool = false, saw_double = false;
  for (const auto& t : loaded->program.tensors) {
    saw_bool = saw_bool || t.dtype == DType::kBool;
    saw_double = saw_double || t.dtype == DType::kFloat64;
  }
  EXPECT_TRUE(saw_bool);
  EXPECT_TRUE(saw_double);
}

TEST(ModelFormat, RejectsUnknownVersionsAndBadSectionCounts) {
  const BuiltModel m = small_model();
  auto img = m.image;
  set_u32(img, 8, 3);
  EXPECT_ERROR(read_status(img), err::kDeserializeModel, "format version 3 is not supported");
  img = m.image;
  set_u32(img, 8, 0);
  EXPECT_ERROR(read_status(img), err::kDeserializeModel, "format version 0");
  img = m.image;
  set_u32(img, 12, 0);
  EXPECT_ERROR(read_status(img), err::kDeserializeModel, "section count 0");
  img = m.image;
  set_u32(img, 12, 65);
  EXPECT_ERROR(read_status(img), err::kDeserializeModel, "section count 65");
  img = m.image;
  set_u32(img, 12, 0xFFFFFFFFu);
  EXPECT_ERROR(read_status(img), err::kDeserializeModel, "section count 4294967295");
  // A table longer than the image.
  std::vector<std::uint8_t> header(m.image.begin(), m.image.begin() + 40);
  EXPECT_ERROR(read_status(header), err::kDeserializeModel, "extends beyond");
}

TEST(ModelFormat, RejectsBadSectionTables) {
  const BuiltModel m = small_model();
  const auto meta = section(m.image, kSectionMetadata);
  const auto weights = section(m.image, kSectionWeights);
  const auto comp = section(m.image, kSectionCompiler);
  struct Case {
    const char* what;
    std::function<void(std::vector<std::uint8_t>&)> patch;
    const char* needle;
  };
  const std::vector<Case> cases = {
      {"reserved", [&](auto& v) { set_u32(v, meta.entry + 28, 1); }, "reserved field"},
      {"unknown flag", [&](auto& v) { set_u32(v, meta.entry + 4, 2); }, "unknown flags"},
      {"optional known", [&](auto& v) { set_u32(v, weights.entry + 4, kSectionFlagOptional); }, "WEIGHTS has flags"},
      {"duplicate", [&](auto& v) { set_u32(v, comp.entry, kSectionMetadata); }, "METADATA appears twice"},
      {"type 0", [&](auto& v) { set_u32(v, comp.entry, 0); }, "unknown required type 0"},
      {"offset in table", [&](auto& v) { set_u64(v, meta.entry + 8, 16); }, "outside the data area"},
      {"offset past end", [&](auto& v) { set_u64(v, comp.entry + 8, v.size() + 1); }, "outside the data area"},
      {"offset max", [&](auto& v) { set_u64(v, comp.entry + 8, ~std::uint64_t{0}); }, "outside the data area"},
      {"size max", [&](auto& v) { set_u64(v, weights.entry + 16, ~std::uint64_t{0}); }, "outside the data area"},
      {"size past end", [&](auto& v) { set_u64(v, comp.entry + 16, comp.size + 1); }, "outside the data area"},
      {"overlap", [&](auto& v) { set_u64(v, meta.entry + 16, meta.size + 64); }, "overlaps"},
      {"same offset", [&](auto& v) { set_u64(v, comp.entry + 8, weights.offset); }, "overlaps"},
      {"shrunk", [&](auto& v) { set_u64(v, comp.entry + 16, comp.size - 1); }, "after its last section"},
      {"padding", [&](auto& v) { v[meta.offset - 1] = 0x20; }, "non-zero padding byte"},
      {"crc", [&](auto& v) { set_u32(v, comp.entry + 24, comp.crc ^ 1); }, "section COMPILER is corrupt"},
  };
  ASSERT_GT(meta.offset, kHeaderSize + 3 * kSectionEntrySize) << "the padding case needs a gap before METADATA";
  for (const Case& c : cases) {
    auto img = m.image;
    c.patch(img);
    SCOPED_TRACE(c.what);
    EXPECT_ERROR(read_status(img), err::kDeserializeModel, c.needle);
  }
  {
    // WEIGHTS moved back by 8 bytes into zero padding (CRC still right): only the alignment
    // rule objects. Trailing blanks in METADATA make room for the move.
    std::string text = encode_metadata(m.program);
    text.append((96 - text.size() % 64) % 64, ' ');  // METADATA at 128 now ends 32 bytes before WEIGHTS
    auto img = with_metadata(text);
    ASSERT_TRUE(read_model(img.data(), img.size()).ok());
    const auto w = section(img, kSectionWeights);
    ASSERT_GE(w.offset - 8, section(img, kSectionMetadata).offset + section(img, kSectionMetadata).size);
    set_u64(img, w.entry + 8, w.offset - 8);
    std::memmove(img.data() + w.offset - 8, img.data() + w.offset, w.size);
    std::memset(img.data() + w.offset - 8 + w.size, 0, 8);
    EXPECT_ERROR(read_status(img), err::kDeserializeModel,
                 fmt::format("WEIGHTS at offset {} is not 64-byte aligned", w.offset - 8));
  }
  // Trailing bytes.
  auto longer = m.image;
  longer.push_back(0);
  EXPECT_ERROR(read_status(longer), err::kDeserializeModel, "1 bytes after its last section");
  // No METADATA at all.
  auto no_meta = write_container({{kSectionWeights, 0, m.weights}});
  EXPECT_ERROR(read_status(no_meta), err::kDeserializeModel, "no METADATA section");
}

// ---------------------------------------------------------------------------------------
// Corruption corpus: every truncation, every single-bit flip, random garbage.
TEST(ModelFormat, EveryTruncationIsRejected) {
  const BuiltModel m = small_model();
  ASSERT_LT(m.image.size(), 4096u);
  for (std::size_t len = 0; len < m.image.size(); ++len) {
    // A fresh allocation of exactly `len` bytes, so ASan catches any read past the end.
    std::vector<std::uint8_t> img(m.image.begin(), m.image.begin() + static_cast<std::ptrdiff_t>(len));
    img.shrink_to_fit();
    const Status s = read_status(img);
    ASSERT_FALSE(s.ok()) << "truncated to " << len;
    EXPECT_EQ(s.code(), len < kHeaderSize ? err::kModelSizeInvalid : err::kDeserializeModel) << len << ": " << s.message();
  }
}

TEST(ModelFormat, EverySingleBitFlipIsRejected) {
  const BuiltModel m = small_model();
  const auto meta = section(m.image, kSectionMetadata);
  const auto weights = section(m.image, kSectionWeights);
  const auto comp = section(m.image, kSectionCompiler);
  auto inside = [](const SectionInfo& s, std::size_t at) { return at >= s.offset && at < s.offset + s.size; };
  std::vector<std::uint8_t> img = m.image;
  for (std::size_t at = 0; at < img.size(); ++at) {
    for (int bit = 0; bit < 8; ++bit) {
      img[at] ^= static_cast<std::uint8_t>(1u << bit);
      const Status s = read_status(img);
      img[at] ^= static_cast<std::uint8_t>(1u << bit);
      ASSERT_FALSE(s.ok()) << "flip of bit " << bit << " at byte " << at << " went unnoticed";
      if (inside(weights, at)) {
        ASSERT_EQ(s.code(), err::kDeserializeModel);
        ASSERT_NE(s.message().find("section WEIGHTS is corrupt"), std::string::npos) << s.message();
      } else if (inside(meta, at)) {
        ASSERT_NE(s.message().find("section METADATA is corrupt"), std::string::npos) << s.message();
      } else if (inside(comp, at)) {
        ASSERT_NE(s.message().find("section COMPILER is corrupt"), std::string::npos) << s.message();
      } else {
        ASSERT_TRUE(s.code() == err::kDeserializeModel) << at << ": " << s.message();
      }
    }
  }
  EXPECT_EQ(img, m.image);
}

TEST(ModelFormat, RandomGarbageAndRandomDamageAreRejected) {
  std::mt19937 rng(12345);
  const BuiltModel m = rich_model();
  for (int i = 0; i < 300; ++i) {
    // Pure garbage, sometimes behind a valid header.
    std::vector<std::uint8_t> g(rng() % 2048);
    for (auto& b : g) b = static_cast<std::uint8_t>(rng());
    if (i % 2 == 0 && g.size() >= 16) std::memcpy(g.data(), m.image.data(), 16);
    EXPECT_FALSE(read_model(g.data(), g.size()).ok());
    // The rich model with a few random bytes overwritten.
    auto img = m.image;
    const int n = 1 + static_cast<int>(rng() % 8);
    bool changed = false;
    for (int k = 0; k < n; ++k) {
      auto& b = img[rng() % img.size()];
      const auto nb = static_cast<std::uint8_t>(rng());
      changed |= nb != b;
      b = nb;
    }
    if (changed) {
      EXPECT_FALSE(read_model(img.data(), img.size()).ok()) << i;
    }
  }
}

// ---------------------------------------------------------------------------------------
// METADATA / COMPILER decoding errors.
json metadata_json() { return json::parse(encode_metadata(small_model().program)); }

TEST(ModelMetadata, MalformedJsonIsAParseError) {
  EXPECT_ERROR(read_status(with_metadata("{\"flags\": ")), err::kParseModel, "model metadata is not valid JSON");
  EXPECT_ERROR(read_status(with_metadata("")), err::kParseModel, "not valid JSON");
  EXPECT_ERROR(read_status(with_metadata("{} trailing")), err::kParseModel, "not valid JSON");
  EXPECT_ERROR(read_status(with_metadata("{\"a\": \"\xff\"}")), err::kParseModel, "not valid JSON");
  EXPECT_ERROR(read_status(with_metadata("[1, 2]")), err::kParseModel, "(top level)");
  EXPECT_ERROR(read_status(with_metadata(std::string(100000, '['))), err::kParseModel, "not valid JSON");
  EXPECT_ERROR(read_status(with_metadata("{\"x\": 1e999}")), err::kParseModel, "not valid JSON");
  // Malformed COMPILER JSON.
  const BuiltModel m = small_model();
  auto img = write_container({{kSectionMetadata, 0, bytes_of(encode_metadata(m.program))},
                              {kSectionWeights, 0, m.weights},
                              {kSectionCompiler, 0, bytes_of("{\"producer_version\": 3}")}});
  EXPECT_ERROR(read_status(img), err::kParseModel, "\"producer_version\" must be a string");
  img = write_container({{kSectionMetadata, 0, bytes_of(encode_metadata(m.program))},
                         {kSectionWeights, 0, m.weights},
                         {kSectionCompiler, 0, bytes_of("nope")}});
  EXPECT_ERROR(read_status(img), err::kParseModel, "compiler information is not valid JSON");
}

TEST(ModelMetadata, MissingRequiredKeysNameThePath) {
  struct Case {
    std::function<void(json&)> erase;
    const char* path;
  };
  const std::vector<Case> cases = {
      {[](json& j) { j.erase("flags"); }, "\"flags\""},
      {[](json& j) { j.erase("tensors"); }, "\"tensors\""},
      {[](json& j) { j.erase("layers"); }, "\"layers\""},
      {[](json& j) { j.erase("segments"); }, "\"segments\""},
      {[](json& j) { j["flags"].erase("task_buf_size"); }, "flags.task_buf_size"},
      {[](json& j) { j["flags"].erase("work_buf_size"); }, "flags.work_buf_size"},
      {[](json& j) { j["tensors"][0].erase("name"); }, "tensors[0].name"},
      {[](json& j) { j["tensors"][0].erase("dtype"); }, "tensors[0] (\"x\").dtype"},
      {[](json& j) { j["tensors"][0].erase("dims"); }, "tensors[0] (\"x\").dims"},
      {[](json& j) { j["tensors"][0].erase("placement"); }, "tensors[0] (\"x\").placement"},
      {[](json& j) { j["tensors"][0].erase("size"); }, "tensors[0] (\"x\").size"},
      {[](json& j) { j["tensors"][0].erase("io_index"); }, "tensors[0] (\"x\").io_index"},
      {[](json& j) { j["tensors"][1].erase("offset"); }, "tensors[1] (\"w\").offset"},
      {[](json& j) { j["tensors"][2].erase("offset"); }, "tensors[2] (\"add\").offset"},
      {[](json& j) { j["tensors"][1]["quant"] = {{"zero_point", {0}}}; }, "tensors[1] (\"w\").quant.scale"},
      {[](json& j) { j["layers"][1].erase("name"); }, "layers[1].name"},
      {[](json& j) { j["layers"][1].erase("op"); }, "layers[1] (\"relu\").op"},
      {[](json& j) { j["layers"][0].erase("inputs"); }, "layers[0] (\"add\").inputs"},
      {[](json& j) { j["layers"][0].erase("outputs"); }, "layers[0] (\"add\").outputs"},
      {[](json& j) { j["segments"][1].erase("end"); }, "segments[1].end"},
  };
  for (const Case& c : cases) {
    json j = metadata_json();
    c.erase(j);
    SCOPED_TRACE(c.path);
    EXPECT_ERROR(read_status(with_metadata(j.dump())), err::kModelMissingAttr, c.path);
  }
}

TEST(ModelMetadata, WrongTypesAndOutOfRangeNumbersNameThePath) {
  struct Case {
    std::function<void(json&)> edit;
    const char* needle;
  };
  const std::vector<Case> cases = {
      {[](json& j) { j["flags"] = 3; }, "\"flags\" must be an object"},
      {[](json& j) { j["flags"]["preemptible"] = 1; }, "flags.preemptible"},
      {[](json& j) { j["flags"]["buffer_reuse"] = 1ull << 40; }, "flags.buffer_reuse"},
      {[](json& j) { j["flags"]["internal_stride"] = -16; }, "flags.internal_stride"},
      {[](json& j) { j["flags"]["task_buf_size"] = -1; }, "flags.task_buf_size"},
      {[](json& j) { j["flags"]["work_buf_size"] = 1.5; }, "flags.work_buf_size"},
      {[](json& j) { j["flags"]["dynamic_batch"] = {"1"}; }, "flags.dynamic_batch[0]"},
      {[](json& j) { j["flags"]["dynamic_hw"] = {{1, 2, 3}}; }, "flags.dynamic_hw[0]"},
      {[](json& j) { j["flags"]["dynamic_hw"] = json::array({json::array({1, -2})}); }, "flags.dynamic_hw[0][1]"},
      {[](json& j) { j["name"] = 5; }, "\"name\" must be a string"},
      {[](json& j) { j["tensors"] = json::object(); }, "\"tensors\" must be an array"},
      {[](json& j) { j["tensors"][0] = 1; }, "tensors[0]\" must be an object"},
      {[](json& j) { j["tensors"][0]["dtype"] = "bfloat16"; }, "unknown data type \"bfloat16\""},
      {[](json& j) { j["tensors"][0]["dtype"] = 0; }, "tensors[0] (\"x\").dtype\" must be a data type name"},
      {[](json& j) { j["tensors"][0]["layout"] = "NC1HWC0"; }, "unknown layout \"NC1HWC0\""},
      {[](json& j) { j["tensors"][0]["placement"] = "heap"; }, "unknown placement \"heap\""},
      {[](json& j) { j["tensors"][0]["dims"] = {1, 4.0}; }, "tensors[0] (\"x\").dims[1]"},
      {[](json& j) { j["tensors"][0]["dims"] = {1, 18446744073709551615ull}; }, "tensors[0] (\"x\").dims[1]"},
      {[](json& j) { j["tensors"][0]["size"] = "16"; }, "tensors[0] (\"x\").size"},
      {[](json& j) { j["tensors"][0]["io_index"] = 1ll << 33; }, "tensors[0] (\"x\").io_index"},
      {[](json& j) { j["tensors"][0]["reuse"] = true; }, "tensors[0] (\"x\").reuse"},
      {[](json& j) { j["tensors"][0]["aipp"] = json::object(); }, "tensors[0] (\"x\").aipp"},
      {[](json& j) { j["tensors"][1]["quant"] = 1; }, "tensors[1] (\"w\").quant\" must be an object"},
      {[](json& j) { j["tensors"][1]["quant"] = {{"scale", {1e300}}, {"zero_point", {0}}}; }, "float32"},
      {[](json& j) { j["tensors"][1]["quant"] = {{"scale", {1.0}}, {"zero_point", {1ll << 40}}}; }, "zero_point[0]"},
      {[](json& j) { j["layers"] = "none"; }, "\"layers\" must be an array"},
      {[](json& j) { j["layers"][0]["op"] = 7; }, "layers[0] (\"add\").op"},
      {[](json& j) { j["layers"][0]["target"] = "gpu"; }, "unknown target \"gpu\""},
      {[](json& j) { j["layers"][0]["inputs"] = {0, nullptr}; }, "layers[0] (\"add\").inputs[1]"},
      {[](json& j) { j["layers"][0]["outputs"] = {1ll << 31}; }, "layers[0] (\"add\").outputs[0]"},
      {[](json& j) { j["layers"][0]["attrs"] = json::array(); }, "layers[0] (\"add\").attrs\" must be an object"},
      {[](json& j) { j["layers"][0]["attrs"] = {{"a", 1}}; }, "attrs.a\" must be an object with exactly one"},
      {[](json& j) { j["layers"][0]["attrs"] = {{"a", {{"i", 1}, {"f", 2.0}}}}; }, "attrs.a\" must be"},
      {[](json& j) { j["layers"][0]["attrs"] = {{"a", {{"x", 1}}}}; }, "attrs.a\" must be"},
      {[](json& j) { j["layers"][0]["attrs"] = {{"a", {{"i", 1.5}}}}; }, "attrs.a.i"},
      {[](json& j) { j["layers"][0]["attrs"] = {{"a", {{"f", "1"}}}}; }, "attrs.a.f"},
      {[](json& j) { j["layers"][0]["attrs"] = {{"a", {{"s", 1}}}}; }, "attrs.a.s"},
      {[](json& j) { j["layers"][0]["attrs"] = {{"a", {{"ints", {1, "2"}}}}}; }, "attrs.a.ints[1]"},
      {[](json& j) { j["layers"][0]["attrs"] = {{"a", {{"floats", 1.0}}}}; }, "attrs.a.floats"},
      {[](json& j) { j["segments"] = {1, 2}; }, "segments[0]\" must be an object"},
      {[](json& j) { j["segments"][0]["begin"] = "0"; }, "segments[0].begin"},
  };
  for (const Case& c : cases) {
    json j = metadata_json();
    c.edit(j);
    SCOPED_TRACE(c.needle);
    EXPECT_ERROR(read_status(with_metadata(j.dump())), err::kParseModel, c.needle);
  }
}

TEST(ModelMetadata, UnknownKeysAreIgnoredAndOptionalKeysDefault) {
  json j = metadata_json();
  j["future_feature"] = {{"x", 1}};
  j["tensors"][0]["future"] = "yes";
  j["layers"][0].erase("target");  // default npu
  j["tensors"][2].erase("layout");  // default ND
  j.erase("name");
  auto img = with_metadata(j.dump());
  auto loaded = read_model(img.data(), img.size());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->program.layers[0].target, Target::kNpu);
  EXPECT_EQ(loaded->program.tensors[2].layout, Layout::kND);
  EXPECT_EQ(loaded->program.name, "");
}

// ---------------------------------------------------------------------------------------
// Program::validate: every rule, with the code and a message naming the culprit. The base
// is rich_model()'s program: tensors x(0) w(1) b(2) wq(3) conv(4) relu(5) add(6) z(7);
// layers conv(0) relu(1) add(2) dequant(3, AI-CPU).
struct Rule {
  const char* what;
  std::function<void(Program&)> edit;
  int code;
  const char* needle;
};

std::vector<Rule> validation_rules() {
  auto T = [](Program& p, const char* name) -> Tensor& {
    for (Tensor& t : p.tensors) {
      if (t.name == name) return t;
    }
    throw std::runtime_error(name);
  };
  const int P = err::kParseModel;
  const int M = err::kModelMissingAttr;
  return {
      // Flags.
      {"reuse 8", [](Program& p) { p.flags.buffer_reuse = 8; }, P, "buffer reuse type 8"},
      {"reuse -2", [](Program& p) { p.flags.buffer_reuse = -2; }, P, "buffer reuse type -2"},
      {"stride 48", [](Program& p) { p.flags.internal_stride = 48; }, P, "internal stride 48"},
      {"stride 8", [](Program& p) { p.flags.internal_stride = 8; }, P, "internal stride 8"},
      {"stride 512", [](Program& p) { p.flags.internal_stride = 512; }, P, "internal stride 512"},
      {"two batches", [](Program& p) { p.flags.dynamic_batch = {1, 2}; }, P, "2 dynamic batch entries"},
      {"batch 0", [](Program& p) { p.flags.dynamic_batch = {0}; }, P, "dynamic batch size 0"},
      {"batch 5001", [](Program& p) { p.flags.dynamic_batch = {5001}; }, P, "dynamic batch size 5001"},
      {"101 gears", [](Program& p) { p.flags.dynamic_hw.resize(101, {1, 1}); }, P, "101 dynamic resolution gears"},
      {"gear 0", [](Program& p) { p.flags.dynamic_hw = {{0, 5}}; }, P, "gear 0 (0x5)"},
      {"gear huge", [](Program& p) { p.flags.dynamic_hw = {{5, 1ull << 32}}; }, P, "gear 0 (5x4294967296)"},
      {"gear twice", [](Program& p) { p.flags.dynamic_hw = {{2, 3}, {2, 3}}; }, P, "2x3 is listed twice"},
      {"task_buf 0", [](Program& p) { p.flags.task_buf_size = 0; }, P, "task_buf size 0"},
      {"work_buf 0", [](Program& p) { p.flags.work_buf_size = 0; }, P, "work_buf size 0"},
      {"work_buf 4G", [](Program& p) { p.flags.work_buf_size = 1ull << 32; }, P, "work_buf size 4294967296"},
      // Model name and compiler info.
      {"model name", [](Program& p) { p.name = "bad\nname"; }, P, "model name"},
      {"compiler utf8", [](Program& p) { p.compiler.command_line = "\xc0\xaf"; }, P, "compiler information"},
      // Tensors.
      {"no name", [T](Program& p) { T(p, "w").name.clear(); }, M, "tensor 1 has no name"},
      {"long name", [T](Program& p) { T(p, "w").name = std::string(128, 'n'); }, P, "tensor 1 name"},
      {"utf8 name", [T](Program& p) { T(p, "w").name = "w\xe2\x82"; }, P, "tensor 1 name"},
      {"ctrl name", [T](Program& p) { T(p, "w").name = "w\x01"; }, P, "tensor 1 name"},
      {"dup name", [T](Program& p) { T(p, "b").name = "w"; }, P, "tensor name \"w\" is used twice"},
      {"dtype", [T](Program& p) { T(p, "w").dtype = static_cast<DType>(5); }, P, "tensor \"w\": data type 5"},
      {"layout", [T](Program& p) { T(p, "w").layout = static_cast<Layout>(9); }, P, "tensor \"w\": layout 9"},
      {"placement", [T](Program& p) { T(p, "w").placement = static_cast<Placement>(4); }, P, "tensor \"w\": placement 4"},
      {"rank 129", [T](Program& p) { T(p, "b").dims.assign(129, 1); }, P, "tensor \"b\": rank 129"},
      {"dim 0", [T](Program& p) { T(p, "b").dims = {0}; }, P, "tensor \"b\": dims [0]"},
      {"dim -1", [T](Program& p) { T(p, "b").dims = {2, -1}; }, P, "tensor \"b\": dims [2,-1]"},
      {"elements", [T](Program& p) { T(p, "b").dims = {65536, 65537}; }, P, "tensor \"b\": dims [65536,65537] hold more"},
      {"overflow", [T](Program& p) { T(p, "b").dims = {1ll << 62, 1ll << 62}; }, P, "tensor \"b\": dims"},
      {"bytes", [T](Program& p) { T(p, "b").dims = {1ll << 30}; }, P, "tensor \"b\": size exceeds"},
      {"size", [T](Program& p) { T(p, "b").size = 12; }, P, "tensor \"b\": size 12 does not match float32 [2] (8"},
      // Quantization.
      {"zp no scale", [T](Program& p) { T(p, "x").quant.zero_point = {0}; }, P, "tensor \"x\": quantization zero"},
      {"axis no scale", [T](Program& p) { T(p, "x").quant.axis = 1; }, P, "tensor \"x\": quantization zero"},
      {"float quant", [T](Program& p) { T(p, "x").quant = Quant{{1.f}, {0}, -1}; }, P, "on a float32 tensor"},
      {"zp count", [T](Program& p) { T(p, "wq").quant.zero_point = {0}; }, P, "tensor \"wq\": 2 quantization scales but 1"},
      {"scale 0", [T](Program& p) { T(p, "wq").quant.scale[1] = 0; }, P, "tensor \"wq\": quantization scale 0"},
      {"scale nan", [T](Program& p) { T(p, "wq").quant.scale[0] = std::nanf(""); }, P, "tensor \"wq\": quantization scale"},
      {"scale inf", [T](Program& p) { T(p, "wq").quant.scale[0] = INFINITY; }, P, "tensor \"wq\": quantization scale"},
      {"zp range", [T](Program& p) { T(p, "wq").quant.zero_point[0] = 128; }, P, "tensor \"wq\": zero point 128"},
      {"no axis", [T](Program& p) { T(p, "wq").quant.axis = -1; }, P, "tensor \"wq\": 2 quantization scales need"},
      {"axis rank", [T](Program& p) { T(p, "wq").quant.axis = 2; }, P, "tensor \"wq\": quantization axis 2"},
      {"axis size", [T](Program& p) { T(p, "wq").quant.axis = 1; }, P, "tensor \"wq\": 2 quantization scales for axis 1"},
      // Model inputs and outputs.
      {"io rank 0", [T](Program& p) { T(p, "x").dims.clear(); T(p, "x").size = 4; }, P, "model input \"x\" has rank 0"},
      {"io offset", [T](Program& p) { T(p, "x").offset = 64; }, P, "model input \"x\" has an offset"},
      {"io index", [T](Program& p) { T(p, "z").io_index = -1; }, M, "model output \"z\" has no io_index"},
      {"io reuse", [T](Program& p) { T(p, "x").inout_reuse = 3; }, P, "model input \"x\": reuse type 3"},
      {"io stride",
       [T](Program& p) {
         Tensor& x = T(p, "z");
         x.dtype = DType::kUint8;
         x.dims = {1ll << 28, 1};
         x.size = 1ull << 28;
       },
       P, "model output \"z\": stride or one-batch size"},
      {"task_buf name", [T](Program& p) { T(p, "x").name = "task_buf"; }, P, "\"task_buf\" uses a name reserved"},
      {"work_buf name", [T](Program& p) { T(p, "z").name = "work_buf"; }, P, "\"work_buf\" uses a name reserved"},
      {"mbatch name", [T](Program& p) { T(p, "x").name = "svp_acl_mbatch_shape_data"; }, P, "uses a name reserved"},
      {"aipp output", [T](Program& p) { T(p, "z").aipp = "{}"; }, P, "model output \"z\" has an AIPP"},
      {"aipp json", [T](Program& p) { T(p, "x").aipp = "{oops"; }, P, "model input \"x\": AIPP configuration is not"},
      {"aipp array", [T](Program& p) { T(p, "x").aipp = "[1]"; }, P, "model input \"x\": AIPP configuration is not"},
      {"aipp long", [T](Program& p) { T(p, "x").aipp = std::string(70000, ' '); }, P, "AIPP configuration longer"},
      {"io_index on const", [T](Program& p) { T(p, "w").io_index = 0; }, P, "tensor \"w\" (weights) has an io_index"},
      {"reuse on temp", [T](Program& p) { T(p, "conv").inout_reuse = 1; }, P, "tensor \"conv\" (work_buf) has an I/O reuse"},
      {"aipp on const", [T](Program& p) { T(p, "w").aipp = "{}"; }, P, "tensor \"w\" (weights) has an AIPP"},
      {"no input", [T](Program& p) { T(p, "x").placement = Placement::kWorkBuf; T(p, "x").io_index = -1; T(p, "x").inout_reuse = 0; T(p, "x").aipp.clear(); }, M, "the model has no input"},
      {"no output", [T](Program& p) { for (auto* n : {"add", "z"}) { T(p, n).placement = Placement::kWorkBuf; T(p, n).io_index = -1; T(p, n).inout_reuse = 0; } }, M, "the model has no output"},
      {"io index range", [T](Program& p) { T(p, "z").io_index = 2; }, P, "model output \"z\": io_index 2 is not below"},
      {"io index dup", [T](Program& p) { T(p, "z").io_index = 0; }, P, "model outputs \"add\" and \"z\" share io_index 0"},
      // Offsets.
      {"unaligned temp", [T](Program& p) { T(p, "relu").offset += 32; }, P, "tensor \"relu\": work_buf offset"},
      {"unaligned const", [T](Program& p) { T(p, "b").offset = 72; }, P, "tensor \"b\": weights offset 72"},
      {"temp past end", [T](Program& p) { T(p, "relu").offset = std::uint64_t{1} << 32; }, P, "tensor \"relu\": ["},
      {"const past end", [T](Program& p) { T(p, "wq").offset = 1024; }, P, "outside the weights"},
      {"offset overflow", [T](Program& p) { T(p, "wq").offset = ~std::uint64_t{63}; }, P, "tensor \"wq\": ["},
      // Layers.
      {"no layers", [](Program& p) { p.layers.clear(); p.segments.clear(); }, M, "the model has no layer"},
      {"layer name", [](Program& p) { p.layers[1].name.clear(); }, M, "layer 1 has no name"},
      {"layer long", [](Program& p) { p.layers[1].name = std::string(257, 'l'); }, P, "layer 1 name is longer"},
      {"layer dup", [](Program& p) { p.layers[2].name = "conv"; }, P, "layer name \"conv\" is used twice"},
      {"no op", [](Program& p) { p.layers[1].op.clear(); }, M, "layer \"relu\" has no op type"},
      {"op space", [](Program& p) { p.layers[1].op = "Re lu"; }, P, "layer \"relu\": op type"},
      {"op long", [](Program& p) { p.layers[1].op = std::string(65, 'O'); }, P, "layer \"relu\": op type"},
      {"target", [](Program& p) { p.layers[1].target = static_cast<Target>(2); }, P, "layer \"relu\" (Relu): target 2"},
      {"attr nan", [](Program& p) { p.layers[0].attrs.set("alpha", std::nan("")); }, P, "layer \"conv\": attribute \"alpha\" is not finite"},
      {"attr inf", [](Program& p) { p.layers[0].attrs.set("scales", std::vector<double>{1, INFINITY}); }, P, "attribute \"scales\" has a non-finite"},
      {"attr name", [](Program& p) { p.layers[0].attrs.set("", std::int64_t{1}); }, P, "layer \"conv\": attribute name"},
      {"attr str", [](Program& p) { p.layers[0].attrs.set("s", std::string("\xff")); }, P, "string attribute \"s\""},
      {"input range", [](Program& p) { p.layers[1].inputs = {8}; }, P, "layer \"relu\" (Relu): input 0 refers to tensor 8 of 8"},
      {"input -2", [](Program& p) { p.layers[1].inputs = {-2}; }, P, "input 0 refers to tensor -2"},
      // A checksum-valid .om whose Conv data input was -1 made the kernel read tensors[-1].
      {"data input -1", [](Program& p) { p.layers[0].inputs[0] = -1; }, P, "layer \"conv\" (Conv) has no first input"},
      {"no inputs", [](Program& p) { p.layers[1].inputs.clear(); }, P, "layer \"relu\" (Relu) has no first input"},
      {"read early", [](Program& p) { p.layers[1].inputs = {6}; }, P, "layer \"relu\" (Relu) reads tensor \"add\" before"},
      {"read own", [](Program& p) { p.layers[1].inputs = {5}; }, P, "layer \"relu\" (Relu) reads tensor \"relu\" before"},
      {"no outputs", [](Program& p) { p.layers[3].outputs.clear(); }, P, "layer \"dequant\" (DequantizeLinear) has no output"},
      {"absent output", [](Program& p) { p.layers[3].outputs = {-1}; }, P, "output 0 refers to tensor -1"},
      {"output range", [](Program& p) { p.layers[3].outputs = {99}; }, P, "output 0 refers to tensor 99"},
      {"write input", [](Program& p) { p.layers[3].outputs = {7, 0}; }, P, "writes tensor \"x\", which is a model input"},
      {"write const", [](Program& p) { p.layers[3].outputs = {7, 1}; }, P, "writes tensor \"w\", which is a model constant"},
      {"twice", [](Program& p) { p.layers[3].outputs = {7, 5}; }, P, "tensor \"relu\" is produced twice (layers \"relu\" and \"dequant\")"},
      {"twice same", [](Program& p) { p.layers[3].outputs = {7, 7}; }, P, "tensor \"z\" is produced twice"},
      {"orphan temp", [](Program& p) { Tensor t = p.tensors[4]; t.name = "orphan"; p.tensors.push_back(t); }, P, "intermediate tensor \"orphan\" is not produced"},
      {"orphan output", [](Program& p) { p.layers.pop_back(); p.segments.pop_back(); }, P, "model output \"z\" is not produced by any layer"},
      // Segments.
      {"no segments", [](Program& p) { p.segments.clear(); }, P, "has layers but no segment"},
      {"gap", [](Program& p) { p.segments[1].begin = 2; }, P, "segment 1 [2, 2) does not continue"},
      {"overlap", [](Program& p) { p.segments[1].begin = 0; }, P, "segment 1 [0, 2) does not continue"},
      {"empty", [](Program& p) { p.segments.insert(p.segments.begin() + 1, Segment{1, 1}); }, P, "segment 1 [1, 1)"},
      {"short", [](Program& p) { p.segments.pop_back(); }, P, "segments cover layers [0, 3) of 4"},
      {"long", [](Program& p) { p.segments.back().end = 5; }, P, "segment 3 [3, 5)"},
      {"mixed", [](Program& p) { p.segments.pop_back(); p.segments.back().end = 4; }, P, "segment 2 mixes npu layer \"add\" with aicpu layer \"dequant\""},
      // Live intermediates sharing bytes.
      {"live overlap", [T](Program& p) { T(p, "relu").offset = T(p, "conv").offset; }, P, "\"conv\" and \"relu\" are alive at the same time"},
  };
}

TEST(ModelValidation, EveryRuleRejectsWithTheRightCodeAndNamesTheCulprit) {
  const BuiltModel base = rich_model();
  ASSERT_TRUE(base.program.validate(base.weights.size()).ok());
  int checked = 0;
  for (const Rule& r : validation_rules()) {
    Program p = base.program;
    r.edit(p);
    SCOPED_TRACE(r.what);
    const Status s = p.validate(base.weights.size());
    EXPECT_EQ(s.code(), r.code) << s.message();
    EXPECT_NE(s.message().find(r.needle), std::string::npos) << "message: " << s.message();
    ++checked;
  }
  EXPECT_GE(checked, 90);
}

TEST(ModelValidation, TheReaderAppliesTheSameRules) {
  // Written without validation, the broken program must be refused by read_model with the
  // same code (rules about enum values show up as JSON type errors instead).
  const BuiltModel base = rich_model();
  for (const Rule& r : validation_rules()) {
    Program p = base.program;
    r.edit(p);
    const std::string what = r.what;
    if (what == "dtype" || what == "layout" || what == "placement" || what == "target" || what == "scale nan" || what == "scale inf" ||
        what == "attr nan" || what == "attr inf" || what.find("utf8") != std::string::npos || what == "attr str") {
      continue;  // not representable in JSON as such; covered by the JSON tests
    }
    SCOPED_TRACE(r.what);
    const auto img = write_model(p, base.weights.data(), base.weights.size());
    const Status s = read_status(img);
    EXPECT_EQ(s.code(), r.code) << s.message();
    EXPECT_NE(s.message().find(r.needle), std::string::npos) << "message: " << s.message();
  }
  // Non-finite floats and invalid enums are written so that the reader refuses them.
  Program p = base.program;
  p.tensors[1].dtype = static_cast<DType>(5);
  auto img = write_model(p, base.weights.data(), base.weights.size());
  EXPECT_ERROR(read_status(img), err::kParseModel, "tensors[1] (\"w\").dtype\" must be a data type name");
  p = base.program;
  p.layers[0].attrs.set("alpha", std::nan(""));
  img = write_model(p, base.weights.data(), base.weights.size());
  EXPECT_ERROR(read_status(img), err::kParseModel, "attrs.alpha.f");
}

TEST(ModelValidation, VendorSizeLimitsUseTheDefaultStride) {
  Tensor t;
  t.dtype = DType::kFloat16;
  t.dims = {1, 3, 5, 7};
  EXPECT_EQ(default_stride(t, 16), 16u);   // 7 × 2 = 14 → 16
  EXPECT_EQ(default_stride(t, 32), 32u);
  EXPECT_EQ(strided_size(t, 16), 1u * 3 * 5 * 16);
  t.dims = {9};
  EXPECT_EQ(default_stride(t, 16), 32u);   // 18 → 32
  EXPECT_EQ(strided_size(t, 16), 32u);
  t.dims = {};
  EXPECT_FALSE(default_stride(t, 16).has_value());
  t.dims = {std::numeric_limits<std::int64_t>::max()};
  EXPECT_FALSE(default_stride(t, 16).has_value());
  EXPECT_TRUE(is_valid_utf8("plain \u00e9\u4e2d\U0001F600"));
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));        // surrogate
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));    // > U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xe0\x80\xaf"));        // overlong
  EXPECT_FALSE(is_valid_utf8("\xc3"));                // truncated
}

#ifdef SVP_ACL_FUZZ_CORPUS_DIR
// The committed fuzzing seeds (tests/fuzz/make_seed_corpus.cpp) must still mean what their
// names say, or the fuzzer starts from stale inputs.
TEST(ModelFormat, FuzzSeedCorpusIsCurrent) {
  const std::map<std::string, int> expected = {
      {"valid_small.om", err::kNone},           {"valid_rich.om", err::kNone},
      {"valid_optional_section.om", err::kNone}, {"bad_json.om", err::kParseModel},
      {"bad_missing_key.om", err::kModelMissingAttr}, {"bad_validation.om", err::kParseModel},
      {"bad_magic.om", err::kDeserializeModel}};
  std::size_t total = 0;
  for (const auto& [name, code] : expected) {
    const std::string path = std::string(SVP_ACL_FUZZ_CORPUS_DIR) + "/" + name;
    auto bytes = load_model_file(path);
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    total += bytes->size();
    EXPECT_EQ(read_status(*bytes).code(), code) << name << ": " << read_status(*bytes).message();
  }
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(SVP_ACL_FUZZ_CORPUS_DIR)) {
    ++files;
    EXPECT_TRUE(expected.count(entry.path().filename().string())) << "unexpected seed " << entry.path();
  }
  EXPECT_EQ(files, expected.size());
  EXPECT_LT(total, 50u * 1024);
}
#endif

TEST(ModelFormat, FileHelpers) {
  const BuiltModel m = small_model();
  const std::string path = ::testing::TempDir() + "/svp_model_format_test.om";
  ASSERT_TRUE(save_model_file(path, m.image).ok());
  auto bytes = load_model_file(path);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  EXPECT_EQ(*bytes, m.image);
  std::remove(path.c_str());
  EXPECT_EQ(load_model_file(path).status().code(), err::kReadModelFailure);
  EXPECT_EQ(save_model_file("/nonexistent-dir/x.om", m.image).code(), err::kWriteFile);
  { std::ofstream(path).flush(); }
  EXPECT_EQ(load_model_file(path).status().code(), err::kModelSizeInvalid);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace svp::model
