#include "model/aipp/model_config.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace svp::aipp {
namespace {

using nlohmann::json;

// Reads optional typed keys of one JSON object; the first error sticks.
class Reader {
 public:
  explicit Reader(const json& j) : j_(j) {}

  void i32(const char* key, std::int32_t* out) {
    const json* v = find(key);
    if (v == nullptr) return;
    if (!v->is_number_integer()) return fail(key, "an integer");
    const auto x = v->get<std::int64_t>();
    if (x < INT32_MIN || x > INT32_MAX) return fail(key, "a 32-bit integer");
    *out = static_cast<std::int32_t>(x);
  }
  template <typename T>
  void small(const char* key, T* out, std::int64_t lo, std::int64_t hi) {
    std::int32_t x = static_cast<std::int32_t>(*out);
    i32(key, &x);
    if (x < lo || x > hi) return fail(key, fmt::format("an integer in [{}, {}]", lo, hi).c_str());
    *out = static_cast<T>(x);
  }
  void f32(const char* key, float* out) {
    const json* v = find(key);
    if (v == nullptr) return;
    if (!v->is_number()) return fail(key, "a number");
    *out = v->get<float>();
  }
  void flag(const char* key, bool* out) {
    const json* v = find(key);
    if (v == nullptr) return;
    if (v->is_boolean()) {
      *out = v->get<bool>();
    } else if (v->is_number_integer() && (v->get<std::int64_t>() == 0 || v->get<std::int64_t>() == 1)) {
      *out = v->get<std::int64_t>() == 1;
    } else {
      fail(key, "true/false (or 0/1)");
    }
  }
  // A switch that is a bool (true = `on_value`) or one of the enum's names.
  template <typename E>
  void mode(const char* key, E* out, E on_value, std::initializer_list<std::pair<const char*, E>> names) {
    const json* v = find(key);
    if (v == nullptr) return;
    if (v->is_boolean()) {
      *out = v->get<bool>() ? on_value : E{};
      return;
    }
    if (v->is_string()) {
      for (const auto& n : names) {
        if (v->get<std::string>() == n.first) {
          *out = n.second;
          return;
        }
      }
    }
    fail(key, "true/false or a mode name");
  }
  bool has(const char* key) const { return j_.find(key) != j_.end(); }
  const json* find(const char* key) const {
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  void fail(const char* key, const char* what) {
    if (st_.ok()) st_ = Error(err::kParseModel, "AIPP configuration key \"{}\" must be {}", key, what);
  }
  const Status& status() const { return st_; }

 private:
  const json& j_;
  Status st_;
};

const char* kMatrixKeys[9] = {"matrix_r0c0", "matrix_r0c1", "matrix_r0c2", "matrix_r1c0", "matrix_r1c1",
                              "matrix_r1c2", "matrix_r2c0", "matrix_r2c1", "matrix_r2c2"};

std::string short_name(std::int32_t format) {
  std::string n = format_name(format);
  return n.rfind("SVP_ACL_", 0) == 0 ? n.substr(8) : n;
}

}  // namespace

Result<ModelAipp> parse_model_aipp(const std::string& text) {
  ModelAipp a;
  if (text.empty()) return a;
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Error(err::kParseModel, "AIPP configuration is not a JSON object");
  const json* mode = j.contains("aipp_mode") ? &j["aipp_mode"] : nullptr;
  if (mode == nullptr || !mode->is_string() ||
      (mode->get<std::string>() != "static" && mode->get<std::string>() != "dynamic")) {
    return Error(err::kParseModel, "AIPP configuration needs \"aipp_mode\": \"static\" or \"dynamic\"");
  }
  Reader r(j);
  std::int32_t format = a.initial_format;
  if (const json* f = r.find("input_format")) {
    std::optional<std::int32_t> id;
    if (f->is_string()) id = format_from_name(f->get<std::string>());
    if (!id) {
      return Error(err::kParseModel, "AIPP configuration: \"input_format\" {} is not a supported format name",
                   f->dump());
    }
    format = *id;
  }
  if (mode->get<std::string>() == "dynamic") {
    a.mode = ModelAipp::Mode::kDynamic;
    a.initial_format = format;
    r.i32("max_src_image_size_w", &a.max_src_w);
    r.i32("max_src_image_size_h", &a.max_src_h);
    if (const json* b = r.find("max_src_image_size")) {
      if (!b->is_number_integer() || b->get<std::int64_t>() <= 0) {
        return Error(err::kParseModel, "AIPP configuration key \"max_src_image_size\" must be a positive integer");
      }
      a.max_src_bytes = b->get<std::uint64_t>();
    }
    SVP_RETURN_IF_ERROR(r.status());
    if (a.max_src_w <= 0 || a.max_src_h <= 0) {
      return Error(err::kParseModel,
                   "dynamic AIPP configuration needs \"max_src_image_size_w\" and \"max_src_image_size_h\" > 0");
    }
    return a;
  }
  a.mode = ModelAipp::Mode::kStatic;
  AippParams& p = a.params;
  if (!r.has("input_format")) return Error(err::kParseModel, "static AIPP configuration needs \"input_format\"");
  if (!r.has("src_image_size_w") || !r.has("src_image_size_h")) {
    return Error(err::kParseModel, "static AIPP configuration needs \"src_image_size_w\" and \"src_image_size_h\"");
  }
  p.format_set = p.src_size_set = true;
  p.format = format;
  r.i32("src_image_size_w", &p.src_w);
  r.i32("src_image_size_h", &p.src_h);
  r.flag("csc_switch", &p.csc);
  r.flag("rbuv_swap_switch", &p.rbuv_swap);
  r.flag("ax_swap_switch", &p.ax_swap);
  for (int i = 0; i < 9; ++i) r.small(kMatrixKeys[i], &p.matrix[static_cast<std::size_t>(i)], INT16_MIN, INT16_MAX);
  const char* ob[3] = {"output_bias_0", "output_bias_1", "output_bias_2"};
  const char* ib[3] = {"input_bias_0", "input_bias_1", "input_bias_2"};
  for (std::size_t i = 0; i < 3; ++i) {
    r.small(ob[i], &p.out_bias[i], 0, 255);
    r.small(ib[i], &p.in_bias[i], 0, 255);
  }
  BatchParams& e = p.batches[0];
  r.flag("crop", &e.crop);
  r.i32("load_start_pos_w", &e.crop_x);
  r.i32("load_start_pos_h", &e.crop_y);
  r.i32("crop_size_w", &e.crop_w);
  r.i32("crop_size_h", &e.crop_h);
  r.mode("resize", &e.resize, Resize::kBilinear, {{"bilinear", Resize::kBilinear}, {"nearest", Resize::kNearest}});
  r.i32("resize_output_w", &e.resize_out_w);
  r.i32("resize_output_h", &e.resize_out_h);
  r.mode("padding", &e.padding, Padding::kConstant,
         {{"constant", Padding::kConstant},
          {"replication", Padding::kReplication},
          {"reflection", Padding::kReflection},
          {"symmetric", Padding::kSymmetric}});
  r.i32("top_padding_size", &e.pad_top);
  r.i32("bottom_padding_size", &e.pad_bottom);
  r.i32("left_padding_size", &e.pad_left);
  r.i32("right_padding_size", &e.pad_right);
  const char* mean[4] = {"mean_chn_0", "mean_chn_1", "mean_chn_2", "mean_chn_3"};
  const char* mn[4] = {"min_chn_0", "min_chn_1", "min_chn_2", "min_chn_3"};
  const char* vr[4] = {"var_reci_chn_0", "var_reci_chn_1", "var_reci_chn_2", "var_reci_chn_3"};
  for (std::size_t c = 0; c < 4; ++c) {
    r.f32(mean[c], &e.mean[c]);
    r.f32(mn[c], &e.min[c]);
    r.f32(vr[c], &e.var_reci[c]);
  }
  SVP_RETURN_IF_ERROR(r.status());
  // The resize input is the padded crop (or source) size by construction in a model file.
  const Size in = after_padding(p, 0);
  e.resize_in_w = in.w;
  e.resize_in_h = in.h;
  const Status v = validate(p);
  if (!v.ok()) return Status(err::kParseModel, "static AIPP configuration: " + v.message());
  return a;
}

std::string static_aipp_json(const AippParams& p) {
  json j;
  j["aipp_mode"] = "static";
  j["input_format"] = short_name(p.format);
  j["src_image_size_w"] = p.src_w;
  j["src_image_size_h"] = p.src_h;
  j["csc_switch"] = p.csc;
  j["rbuv_swap_switch"] = p.rbuv_swap;
  j["ax_swap_switch"] = p.ax_swap;
  for (int i = 0; i < 9; ++i) j[kMatrixKeys[i]] = p.matrix[static_cast<std::size_t>(i)];
  for (std::size_t i = 0; i < 3; ++i) {
    j[fmt::format("output_bias_{}", i)] = p.out_bias[i];
    j[fmt::format("input_bias_{}", i)] = p.in_bias[i];
  }
  const BatchParams& e = p.batches.at(0);
  j["crop"] = e.crop;
  j["load_start_pos_w"] = e.crop_x;
  j["load_start_pos_h"] = e.crop_y;
  j["crop_size_w"] = e.crop_w;
  j["crop_size_h"] = e.crop_h;
  const char* resize_names[] = {"off", "nearest", "bilinear"};
  const char* pad_names[] = {"off", "constant", "replication", "reflection", "symmetric"};
  if (e.resize == Resize::kOff) j["resize"] = false;
  else j["resize"] = resize_names[static_cast<int>(e.resize)];
  j["resize_output_w"] = e.resize_out_w;
  j["resize_output_h"] = e.resize_out_h;
  if (e.padding == Padding::kOff) j["padding"] = false;
  else j["padding"] = pad_names[static_cast<int>(e.padding)];
  j["top_padding_size"] = e.pad_top;
  j["bottom_padding_size"] = e.pad_bottom;
  j["left_padding_size"] = e.pad_left;
  j["right_padding_size"] = e.pad_right;
  for (std::size_t c = 0; c < 4; ++c) {
    j[fmt::format("mean_chn_{}", c)] = e.mean[c];
    j[fmt::format("min_chn_{}", c)] = e.min[c];
    j[fmt::format("var_reci_chn_{}", c)] = e.var_reci[c];
  }
  return j.dump();
}

std::string dynamic_aipp_json(std::int32_t max_src_w, std::int32_t max_src_h, std::int32_t initial_format,
                              std::uint64_t max_src_bytes) {
  json j;
  j["aipp_mode"] = "dynamic";
  j["max_src_image_size_w"] = max_src_w;
  j["max_src_image_size_h"] = max_src_h;
  j["input_format"] = short_name(initial_format);
  if (max_src_bytes > 0) j["max_src_image_size"] = max_src_bytes;
  return j.dump();
}

std::pair<std::int32_t, std::int32_t> budget_description(std::int32_t format, std::uint64_t max_src_bytes,
                                                         std::int64_t model_w) {
  // Bytes of a 2-row strip per pixel of width (3 for 4:2:0: two Y rows and one UV row).
  auto g = source_geometry(format, 2, 2, 1);
  const std::uint64_t strip = g.ok() ? g->size / 2 : 2;
  const auto w = static_cast<std::uint64_t>(std::max<std::int64_t>(model_w, 2));
  const std::uint64_t limit = (1ULL << 24);  // the largest side source_geometry takes
  if (max_src_bytes >= strip * w) {
    const std::uint64_t h = std::min(2 * (max_src_bytes / (strip * w)), limit);
    return {static_cast<std::int32_t>(w), static_cast<std::int32_t>(h)};
  }
  const std::uint64_t narrow = std::max<std::uint64_t>(2, (max_src_bytes / strip) & ~1ULL);
  return {static_cast<std::int32_t>(std::min(narrow, limit)), 2};
}

Target target_for(const model::Tensor& t, const model::ModelFlags& flags, const ModelAipp& a) {
  Target g;
  g.input_name = t.name;
  g.dtype = t.dtype;
  g.layout = t.layout;
  if (t.dims.size() == 4) {
    const bool nchw = t.layout == model::Layout::kNCHW;
    g.batch = t.dims[0];
    g.channels = nchw ? t.dims[1] : t.dims[3];
    const std::int64_t h = nchw ? t.dims[2] : t.dims[1];
    const std::int64_t w = nchw ? t.dims[3] : t.dims[2];
    g.hw.emplace_back(h, w);
  }
  for (const auto& gear : flags.dynamic_hw) {
    g.hw.emplace_back(static_cast<std::int64_t>(gear.first), static_cast<std::int64_t>(gear.second));
  }
  g.dynamic_batch = !flags.dynamic_batch.empty();
  if (a.mode == ModelAipp::Mode::kDynamic && a.max_src_bytes > 0) {
    g.max_src_bytes = a.max_src_bytes;
  } else if (a.mode == ModelAipp::Mode::kDynamic) {
    g.max_src_w = a.max_src_w;
    g.max_src_h = a.max_src_h;
  }
  return g;
}

Status check_model_input(const model::Tensor& t, const model::ModelFlags& flags, const ModelAipp& a) {
  if (a.mode == ModelAipp::Mode::kNone) return Status::Ok();
  if (t.dims.size() != 4 || (t.layout != model::Layout::kNCHW && t.layout != model::Layout::kNHWC)) {
    return Error(err::kParseModel, "model input \"{}\" with AIPP must be a rank-4 NCHW or NHWC tensor", t.name);
  }
  if (t.dtype != model::DType::kFloat32 && t.dtype != model::DType::kInt8 && t.dtype != model::DType::kUint8) {
    return Error(err::kParseModel, "model input \"{}\" with AIPP must be float32, int8 or uint8 (is {})", t.name,
                 model::dtype_name(t.dtype));
  }
  if (t.dtype != model::DType::kFloat32 && t.quant.scale.size() != 1) {
    return Error(err::kParseModel, "model input \"{}\" with AIPP: an integer input needs per-tensor quantization",
                 t.name);
  }
  const Target g = target_for(t, flags, a);
  if (a.mode == ModelAipp::Mode::kStatic) {
    const Status s = validate_for(a.params, g);
    if (!s.ok()) return Status(err::kParseModel, "static AIPP configuration: " + s.message());
    return Status::Ok();
  }
  const FormatInfo* f = format_info(a.initial_format);
  if (g.channels != 1 && g.channels != 3) {
    return Error(err::kParseModel, "model input \"{}\" with dynamic AIPP must have 1 or 3 channels", t.name);
  }
  if (f->channels != g.channels) {
    return Error(err::kParseModel, "model input \"{}\": initial AIPP format {} does not produce {} channel(s)", t.name,
                 f->name, g.channels);
  }
  auto geo = source_geometry(a.initial_format, a.max_src_w, a.max_src_h, flags.internal_stride);
  if (!geo.ok()) return Status(err::kParseModel, "dynamic AIPP configuration: " + geo.status().message());
  for (const auto& gear : flags.dynamic_hw) {
    if (a.max_src_bytes > 0) {
      // An unscaled source of the gear's size must fit the byte budget.
      auto gg = source_geometry(a.initial_format, static_cast<std::int32_t>(gear.second),
                                static_cast<std::int32_t>(gear.first), 1);
      if (gg.ok() && gg->size > a.max_src_bytes) {
        return Error(err::kParseModel,
                     "model input \"{}\": dynamic AIPP max_src_image_size {} bytes is smaller than one {}x{} {} "
                     "source of the dynamic-HW gear ({} bytes)",
                     t.name, a.max_src_bytes, gear.second, gear.first, f->name, gg->size);
      }
      continue;
    }
    if (gear.first > static_cast<std::uint64_t>(a.max_src_h) || gear.second > static_cast<std::uint64_t>(a.max_src_w)) {
      return Error(err::kParseModel,
                   "model input \"{}\": dynamic AIPP maximum source {}x{} is smaller than the dynamic-HW gear {}x{}",
                   t.name, a.max_src_w, a.max_src_h, gear.second, gear.first);
    }
  }
  return Status::Ok();
}

}  // namespace svp::aipp
