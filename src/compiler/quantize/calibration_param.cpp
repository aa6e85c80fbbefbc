#include "compiler/quantize/calibration_param.h"

#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <google/protobuf/text_format.h>

#include "compiler/quantize/calibration_param.pb.h"
#include "compiler/text_proto.h"

namespace svp::compiler::quant {
namespace {

namespace pb = google::protobuf;
namespace cal = svp::calibration;

const char* kHint =
    "a --gfpq_param_file is protobuf text: layer { name: \"conv1\" calc_data_type: S8 quant_param { input { "
    "data_type: S8 scale: 12.75 offset: -77 } weight { data_type: S8 scale: 127 } } }; docs/quantization.md "
    "\"External parameters\"";

// The vendor's scale r stores x as round(x * r): ONNX's scale is its reciprocal. Computed
// in double and rounded once, the same way both directions.
float onnx_scale_of(float vendor) { return static_cast<float>(1.0 / static_cast<double>(vendor)); }

// A vendor scale that reads back as exactly `s` when there is one: the nearest float to
// 1/s usually, else a neighbour; the nearest when none does (s not representable_scale).
float vendor_scale_of(float s) {
  const float nearest = static_cast<float>(1.0 / static_cast<double>(s));
  float down = nearest, up = nearest;
  for (int i = 0; i < 8; ++i) {
    if (onnx_scale_of(down) == s) return down;
    if (onnx_scale_of(up) == s) return up;
    down = std::nextafter(down, 0.0f);
    up = std::nextafter(up, HUGE_VALF);
  }
  return nearest;
}

}  // namespace

float representable_scale(float s) {
  if (!std::isnormal(s) || s < 0.0f) return s;
  const float r = vendor_scale_of(s);
  return std::isnormal(r) ? onnx_scale_of(r) : s;
}

namespace {

std::string layer_where(const std::string& file, const pb::TextFormat::ParseInfoTree* tree, int index) {
  if (tree == nullptr) return fmt::format("{}: layer {}", file, index + 1);
  const Location l = location_of(tree, cal::CalibrationParam::descriptor()->FindFieldByName("layer"), index);
  return fmt::format("{}:{}:{}", file, l.line, l.column);
}

bool valid_scale(float r) { return std::isfinite(r) && r > 0.0f && std::isnormal(onnx_scale_of(r)); }

// An activation encoding from an S8/U8 FactorParam.
Result<std::optional<Encoding>> activation_encoding(const cal::FactorParam& f, const std::string& where, int index) {
  const std::string dtype = cal::DataType_Name(f.data_type());
  if (f.data_type() == cal::S16 || f.data_type() == cal::U16) {
    return Error(err::kFeatureUnsupported,
                 "{}: input {} is {}: 16-bit activations (A16W8) from --gfpq_param_file are not implemented; give "
                 "S8 or U8, or leave the layer out to calibrate it",
                 where, index + 1, dtype);
  }
  if (f.data_type() == cal::F16 || f.data_type() == cal::F32) return std::optional<Encoding>();
  if (f.data_type() != cal::S8 && f.data_type() != cal::U8) {
    return Error(err::kInvalidParam, "{}: input {} has data_type {}; activations are S8, U8 or F32", where,
                 index + 1, dtype);
  }
  if (f.scale_size() != 1 || f.offset_size() > 1) {
    return Error(err::kInvalidParam, "{}: input {} has {} scale(s) and {} offset(s); an activation has one of each",
                 where, index + 1, f.scale_size(), f.offset_size());
  }
  if (!valid_scale(f.scale(0))) {
    return Error(err::kInvalidParam, "{}: input {} scale {} is not a positive finite number", where, index + 1,
                 f.scale(0));
  }
  const float offset = f.offset_size() ? f.offset(0) : 0.0f;
  const bool u8 = f.data_type() == cal::U8;
  const float lo = u8 ? 0.0f : -128.0f, hi = u8 ? 255.0f : 127.0f;
  if (!(offset >= lo && offset <= hi) || offset != std::nearbyint(offset)) {
    return Error(err::kInvalidParam, "{}: input {} offset {} is not an integer in [{}, {}] ({})", where, index + 1,
                 offset, lo, hi, dtype);
  }
  Encoding e;
  e.scale = onnx_scale_of(f.scale(0));
  // The same 256 levels as int8: a uint8 zero point z is the int8 zero point z - 128.
  e.zero_point = static_cast<std::int32_t>(offset) - (u8 ? 128 : 0);
  e.lo = static_cast<float>(-128 - e.zero_point) * e.scale;
  e.hi = static_cast<float>(127 - e.zero_point) * e.scale;
  return std::optional<Encoding>(e);
}

Result<std::vector<float>> weight_scales(const cal::FactorParam& f, const std::string& where) {
  const std::string dtype = cal::DataType_Name(f.data_type());
  if (f.data_type() == cal::S4 || f.data_type() == cal::U4) {
    return Error(err::kFeatureUnsupported,
                 "{}: weight data_type {}: 4-bit weights (A8W4) are not implemented; give S8 or leave the weight "
                 "out to quantize it to int8",
                 where, dtype);
  }
  if (f.data_type() != cal::S8) {
    return Error(err::kInvalidParam, "{}: weight data_type {}; weights are S8", where, dtype);
  }
  if (f.scale_size() == 0) return Error(err::kInvalidParam, "{}: weight has no scale", where);
  for (float o : f.offset()) {
    if (o != 0.0f) {
      return Error(err::kFeatureUnsupported,
                   "{}: weight offset {}: weights are symmetric int8 on the software NPU (offset 0)", where, o);
    }
  }
  std::vector<float> out;
  for (float r : f.scale()) {
    if (!valid_scale(r)) return Error(err::kInvalidParam, "{}: weight scale {} is not a positive finite number", where, r);
    out.push_back(onnx_scale_of(r));
  }
  return out;
}

}  // namespace

Result<ExternalParams> parse_calibration_param(const std::string& bytes, const std::string& file) {
  if (bytes.size() > kMaxCalibrationParamBytes) {
    return Error(err::kInvalidFileSize, "{}: {} bytes; a --gfpq_param_file is at most {} bytes", file, bytes.size(),
                 kMaxCalibrationParamBytes);
  }
  cal::CalibrationParam msg;
  pb::TextFormat::ParseInfoTree tree;
  const pb::TextFormat::ParseInfoTree* where_tree = &tree;
  Status text = parse_text_proto(bytes, file, kHint, &msg, &tree);
  if (!text.ok()) {
    // The vendor accepts the binary encoding too; a text file that fails is reported as text.
    msg.Clear();
    const bool binary = !bytes.empty() && bytes.find('\0') != std::string::npos;
    if (!binary || !msg.ParsePartialFromString(bytes)) return text;
    where_tree = nullptr;
  }
  ExternalParams out;
  out.file = file;
  std::map<std::string, std::string> seen;
  for (int i = 0; i < msg.layer_size(); ++i) {
    const cal::LayerParam& l = msg.layer(i);
    LayerParams p;
    p.name = l.name();
    p.where = layer_where(file, where_tree, i);
    if (p.name.empty()) return Error(err::kInvalidParam, "{}: layer without a name", p.where);
    if (auto [it, fresh] = seen.emplace(p.name, p.where); !fresh) {
      return Error(err::kInvalidParam, "{}: layer \"{}\" is listed twice (first at {})", p.where, p.name, it->second);
    }
    switch (l.calc_data_type()) {
      case cal::S8:
      case cal::U8: p.precision = CalcDataType::kA8W8; break;
      case cal::S16:
      case cal::U16: p.precision = CalcDataType::kA16W8; break;
      case cal::F16:
      case cal::F32: p.precision = CalcDataType::kFloat; break;
      default:
        return Error(err::kInvalidParam, "{}: layer \"{}\": calc_data_type {} is not one of S8, U8, S16, U16, F16, F32",
                     p.where, p.name, cal::DataType_Name(l.calc_data_type()));
    }
    if (p.precision == CalcDataType::kA16W8) {
      return Error(err::kFeatureUnsupported,
                   "{}: layer \"{}\": calc_data_type {} (A16W8) from --gfpq_param_file is not implemented; give S8, "
                   "F32 (keep the layer float) or leave the layer out",
                   p.where, p.name, cal::DataType_Name(l.calc_data_type()));
    }
    if (p.precision == CalcDataType::kA8W8) {
      const std::string at = fmt::format("{}: layer \"{}\"", p.where, p.name);
      for (int k = 0; k < l.quant_param().input_size(); ++k) {
        auto e = activation_encoding(l.quant_param().input(k), at, k);
        if (!e.ok()) return e.status();
        p.inputs.push_back(*e);
      }
      if (l.quant_param().has_weight()) {
        auto w = weight_scales(l.quant_param().weight(), at);
        if (!w.ok()) return w.status();
        p.weight_scale = std::move(*w);
      }
    }
    out.layers.push_back(std::move(p));
  }
  return out;
}

Result<ExternalParams> read_calibration_param(const std::string& path) {
  auto bytes = read_bounded_file(path, kMaxCalibrationParamBytes, "--gfpq_param_file");
  if (!bytes.ok()) return bytes.status();
  return parse_calibration_param(*bytes, path);
}

std::string calibration_param_text(const ExternalParams& params) {
  cal::CalibrationParam msg;
  for (const LayerParams& p : params.layers) {
    cal::LayerParam* l = msg.add_layer();
    l->set_name(p.name);
    cal::QuantParam* q = l->mutable_quant_param();
    if (p.precision == CalcDataType::kFloat) {
      l->set_calc_data_type(cal::F32);
      continue;
    }
    l->set_calc_data_type(p.precision == CalcDataType::kA16W8 ? cal::S16 : cal::S8);
    for (const std::optional<Encoding>& e : p.inputs) {
      cal::FactorParam* f = q->add_input();
      if (!e) {
        f->set_data_type(cal::F32);  // keeps the position of the inputs after it
        continue;
      }
      const bool u8 = e->zero_point == -128;
      f->set_data_type(u8 ? cal::U8 : cal::S8);
      f->add_scale(vendor_scale_of(e->scale));
      f->add_offset(static_cast<float>(u8 ? 0 : e->zero_point));
    }
    if (!p.weight_scale.empty()) {
      cal::FactorParam* f = q->mutable_weight();
      f->set_data_type(cal::S8);
      for (float s : p.weight_scale) f->add_scale(vendor_scale_of(s));
    }
  }
  std::string text;
  pb::TextFormat::PrintToString(msg, &text);
  return text;
}

}  // namespace svp::compiler::quant
