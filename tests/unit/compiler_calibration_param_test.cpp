// The CalibrationParam file (--gfpq_param_file, calibration_param.txt): the vendor's
// conventions, errors that point at the line to fix, and written files that read back
// bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "compiler/quantize/calibration_param.h"
#include "compiler/quantize/calibration_param.pb.h"

namespace svp::compiler::quant {
namespace {

// The guide's example: input scale 12.75 with offset -77 stores x as round(x·12.75) - 77,
// so int8's [-128, 127] is x in [-4, 16]; weight scale 127 is weights in [-1, 1].
TEST(CalibrationParam, TheGuidesExampleIsTheInt8RangeMinus4To16) {
  auto p = read_calibration_param(std::string(SVP_SOURCE_DIR "/tests/data/calibration_param/") + "vendor_example.txt");
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->layers.size(), 1u);
  const LayerParams& l = p->layers[0];
  EXPECT_EQ(l.name, "conv1");
  EXPECT_EQ(l.precision, CalcDataType::kA8W8);
  ASSERT_EQ(l.inputs.size(), 1u);
  ASSERT_TRUE(l.inputs[0].has_value());
  EXPECT_FLOAT_EQ(l.inputs[0]->scale, 1.0f / 12.75f);
  EXPECT_EQ(l.inputs[0]->zero_point, -77);
  EXPECT_NEAR(l.inputs[0]->lo, -4.0f, 1e-5);
  EXPECT_NEAR(l.inputs[0]->hi, 16.0f, 1e-5);
  ASSERT_EQ(l.weight_scale.size(), 1u);
  EXPECT_FLOAT_EQ(l.weight_scale[0], 1.0f / 127.0f);
}

TEST(CalibrationParam, U8InputsPerChannelWeightsAndFloatLayersRead) {
  auto p = read_calibration_param(std::string(SVP_SOURCE_DIR "/tests/data/calibration_param/") + "mixed_layers.txt");
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->layers.size(), 3u);
  // U8 with offset 0 is the [0, max] encoding: the same levels as int8 with zero point -128.
  EXPECT_EQ(p->layers[0].inputs[0]->zero_point, -128);
  EXPECT_EQ(p->layers[0].weight_scale.size(), 3u);
  EXPECT_EQ(p->layers[1].precision, CalcDataType::kA8W8);  // calc_data_type defaults to S8
  ASSERT_EQ(p->layers[1].inputs.size(), 2u);
  EXPECT_EQ(p->layers[1].inputs[1]->zero_point, -5);
  EXPECT_EQ(p->layers[2].precision, CalcDataType::kFloat);
}

TEST(CalibrationParam, ErrorsNameThePlaceTheValueAndTheWayOut) {
  struct Case {
    const char* text;
    int code;
    const char* says;
  };
  const Case cases[] = {
      {"layer {\n  name: \"a\"\n  calc_data_type: S9\n  quant_param { }\n}", err::kParseFile, "p.txt:3:19"},
      {"layer { name: \"a\" quant_param { }\n", err::kParseFile, "p.txt:2:"},
      {"layer { name: \"a\" quant_param { inputs { } } }", err::kParseFile, "inputs"},
      {"layer { name: \"a\" quant_param { input { scale: 2 offset: 0.5 } } }", err::kInvalidParam,
       "offset 0.5 is not an integer in [-128, 127]"},
      {"layer { name: \"a\" quant_param { input { data_type: U8 scale: 2 offset: -1 } } }", err::kInvalidParam,
       "[0, 255]"},
      {"layer { name: \"a\" quant_param { input { scale: -2 } } }", err::kInvalidParam, "not a positive finite"},
      {"layer { name: \"a\" quant_param { input { scale: 1 scale: 2 } } }", err::kInvalidParam, "2 scale(s)"},
      {"layer { name: \"a\" quant_param { weight { data_type: S4 scale: 7 } } }", err::kFeatureUnsupported,
       "4-bit weights"},
      {"layer { name: \"a\" quant_param { weight { scale: 7 offset: 3 } } }", err::kFeatureUnsupported, "symmetric"},
      {"layer { name: \"a\" calc_data_type: S16 quant_param { } }", err::kFeatureUnsupported, "A16W8"},
      {"layer { name: \"a\" quant_param { } }\nlayer { name: \"a\" quant_param { } }", err::kInvalidParam,
       "listed twice (first at p.txt:1:1)"},
      {"layer { name: \"\" quant_param { } }", err::kInvalidParam, "without a name"},
  };
  for (const Case& c : cases) {
    auto p = parse_calibration_param(c.text, "p.txt");
    ASSERT_FALSE(p.ok()) << c.text;
    EXPECT_EQ(p.status().code(), c.code) << c.text << ": " << p.status().message();
    EXPECT_NE(p.status().message().find(c.says), std::string::npos) << c.text << ": " << p.status().message();
  }
}

// The file stores 1/scale: about one float in seven is no float's reciprocal, so the
// quantizer uses representable_scale()s, and those come back bit for bit.
TEST(CalibrationParam, WrittenScalesReadBackBitForBit) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> exponent(-20.0f, 10.0f);
  ExternalParams params;
  for (int i = 0; i < 2000; ++i) {
    LayerParams l;
    l.name = "layer" + std::to_string(i);
    Encoding e;
    e.scale = representable_scale(std::exp2(exponent(rng)));
    e.zero_point = (i % 3 == 0) ? -128 : i % 200 - 100;
    l.inputs.emplace_back(e);
    l.inputs.emplace_back();  // a float input keeps its position
    l.weight_scale = {representable_scale(std::exp2(exponent(rng))), representable_scale(std::exp2(exponent(rng)))};
    params.layers.push_back(l);
  }
  std::size_t moved = 0;
  for (int i = 0; i < 2000; ++i) {
    const float s = std::exp2(exponent(rng));
    const float r = representable_scale(s);
    moved += r != s;
    EXPECT_LE(std::fabs(r - s), s * 2e-7f) << s;  // an ulp at most
  }
  EXPECT_GT(moved, 0u);  // the reason representable_scale exists
  auto back = parse_calibration_param(calibration_param_text(params), "back.txt");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->layers.size(), params.layers.size());
  for (std::size_t i = 0; i < params.layers.size(); ++i) {
    const LayerParams& a = params.layers[i];
    const LayerParams& b = back->layers[i];
    ASSERT_EQ(b.inputs.size(), 2u);
    EXPECT_EQ(std::memcmp(&a.inputs[0]->scale, &b.inputs[0]->scale, sizeof(float)), 0) << i;
    EXPECT_EQ(a.inputs[0]->zero_point, b.inputs[0]->zero_point) << i;
    EXPECT_FALSE(b.inputs[1].has_value());
    EXPECT_EQ(a.weight_scale, b.weight_scale) << i;
  }
}

TEST(CalibrationParam, TheBinaryEncodingReadsLikeTheText) {
  svp::calibration::CalibrationParam m;
  auto* l = m.add_layer();
  l->set_name("conv1");
  auto* in = l->mutable_quant_param()->add_input();
  in->set_data_type(svp::calibration::S8);
  in->add_scale(12.75f);
  in->add_offset(-77.0f);
  std::string bytes;
  ASSERT_TRUE(m.SerializeToString(&bytes));
  ASSERT_NE(bytes.find('\0'), std::string::npos);  // what tells it from text
  auto p = parse_calibration_param(bytes, "record.bin");
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->layers.size(), 1u);
  EXPECT_EQ(p->layers[0].inputs[0]->zero_point, -77);
  // Neither text nor binary: the text parser's message.
  auto bad = parse_calibration_param(std::string("\x01\x02layer", 7), "junk.bin");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), err::kParseFile);
  EXPECT_EQ(read_calibration_param("/nonexistent/p.txt").status().code(), err::kInvalidFile);
}

}  // namespace
}  // namespace svp::compiler::quant
