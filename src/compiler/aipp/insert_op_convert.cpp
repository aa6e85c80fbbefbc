#include "compiler/aipp/insert_op_convert.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include <fmt/ranges.h>

#include "model/aipp/model_config.h"
#include "model/aipp/params.h"

namespace svp::compiler::aipp_conf {
namespace {

using svp::atc::AippOpParams;
namespace fid = aipp::fmt_id;

Status fail(int code, const AippBlock& b, const std::string& field, const std::string& message) {
  return Status(code, b.where(field) + ": " + message);
}

// The runtime's source format for a configuration format (either dialect's name).
std::optional<std::int32_t> runtime_format(AippOpParams::InputFormat f) {
  switch (f) {
    case AippOpParams::YUV420SP_U8:
    case AippOpParams::YUV420SP:
      return fid::kYuv420Sp;
    case AippOpParams::YVU420SP:
      return fid::kYvu420Sp;
    case AippOpParams::YUV422SP_U8:
    case AippOpParams::YUV422SP:
      return fid::kYuv422Sp;
    case AippOpParams::YVU422SP:
      return fid::kYvu422Sp;
    case AippOpParams::YUV400_U8:
    case AippOpParams::YUV400:
      return fid::kYuv400;
    case AippOpParams::RGB888_U8:
    case AippOpParams::RGB_PACKAGE:
      return fid::kRgb888;
    case AippOpParams::BGR_PACKAGE:
      return fid::kBgrPackage;
    case AippOpParams::XRGB8888_U8:
    case AippOpParams::XRGB_PACKAGE:
      return fid::kXrgb8888;
    case AippOpParams::ARGB8888_U8:
    case AippOpParams::ARGB_PACKAGE:
      return fid::kArgb8888;
    case AippOpParams::XBGR_PACKAGE:
      return fid::kXbgrPackage;
    case AippOpParams::RGBX_PACKAGE:
      return fid::kRgbxPackage;
    case AippOpParams::BGRX_PACKAGE:
      return fid::kBgrxPackage;
    case AippOpParams::RGB_PLANAR:
      return fid::kRgbPlanar;
    case AippOpParams::BGR_PLANAR:
      return fid::kBgrPlanar;
    case AippOpParams::XRGB_PLANAR:
      return fid::kXrgbPlanar;
    case AippOpParams::XBGR_PLANAR:
      return fid::kXbgrPlanar;
    case AippOpParams::RGBX_PLANAR:
      return fid::kRgbxPlanar;
    case AippOpParams::BGRX_PLANAR:
      return fid::kBgrxPlanar;
    default:
      return std::nullopt;
  }
}

constexpr const char* kSupportedFormats =
    "YUV420SP_U8, YUV422SP_U8, YUV400_U8, RGB888_U8, XRGB8888_U8, ARGB8888_U8 (Ascend names) or YUV420SP, "
    "YVU420SP, YUV422SP, YVU422SP, YUV400, RGB_PLANAR, BGR_PLANAR, RGB_PACKAGE, BGR_PACKAGE, the X/A 4-channel "
    "PLANAR and PACKAGE variants (SVP names)";

Result<std::int32_t> source_format(const AippBlock& b) {
  const auto f = b.params.input_format();
  const auto id = runtime_format(f);
  if (!id) {
    return fail(err::kFeatureUnsupported, b, "input_format",
                fmt::format("input_format {} is a vendor format svp-acl's AIPP does not read; use one of {}",
                            AippOpParams::InputFormat_Name(f), kSupportedFormats));
  }
  return *id;
}

// Repeated vendor fields (per-batch lists in the vendor's schema) hold one value here.
template <typename T>
Status single(const AippBlock& b, const char* name, const google::protobuf::RepeatedField<T>& r, T* out) {
  if (r.size() > 1) {
    return fail(err::kInvalidParam, b, name,
                fmt::format("{} is written {} times; write it once (svp-acl applies one value to every batch image)",
                            name, r.size()));
  }
  if (r.size() == 1) *out = r.Get(0);
  return Status::Ok();
}

// BT.601 video range YUV -> R, G, B rows in Q10 (1.164, 1.596, 0.392, 0.813, 2.017 x 1024):
// what the SVP dialect's model_format RGB / BGR asks of a YUV source (docs/compiler.md).
constexpr std::array<std::int16_t, 9> kYuvToRgb = {1192, 0, 1634, 1192, -401, -832, 1192, 2066, 0};
constexpr std::array<std::int16_t, 9> kYuvToBgr = {1192, 2066, 0, 1192, -401, -832, 1192, 0, 1634};

Status apply_model_format(const AippBlock& b, aipp::AippParams* p) {
  const AippOpParams& c = b.params;
  bool explicit_csc = c.has_csc_switch();
  for (const char* m : {"matrix_r0c0", "matrix_r0c1", "matrix_r0c2", "matrix_r1c0", "matrix_r1c1", "matrix_r1c2",
                        "matrix_r2c0", "matrix_r2c1", "matrix_r2c2", "rbuv_swap_switch"}) {
    explicit_csc = explicit_csc || b.fields.count(m) > 0;
  }
  if (explicit_csc) {
    return fail(err::kInvalidParam, b, "model_format",
                "model_format chooses the colour conversion and the channel swap itself; remove either model_format "
                "or csc_switch / matrix_* / rbuv_swap_switch");
  }
  const aipp::FormatInfo& f = *aipp::format_info(p->format);
  const auto mf = c.model_format();
  const std::string mf_name = AippOpParams::ModelFormat_Name(mf);
  switch (mf) {
    case AippOpParams::RGB:
    case AippOpParams::BGR:
      if (f.channels != 3) {
        return fail(err::kInvalidParam, b, "model_format",
                    fmt::format("model_format {} needs a 3-channel source, {} has one channel; use model_format: GRAY",
                                mf_name, f.name));
      }
      if (f.yuv) {
        p->csc = true;
        p->matrix = mf == AippOpParams::RGB ? kYuvToRgb : kYuvToBgr;
        p->in_bias = {16, 128, 128};
      } else if (mf == AippOpParams::BGR) {
        p->rbuv_swap = true;
      }
      return Status::Ok();
    case AippOpParams::GRAY:
      if (f.channels != 1) {
        return fail(err::kFeatureUnsupported, b, "model_format",
                    fmt::format("model_format GRAY from the 3-channel {} (a colour-to-gray conversion) is not "
                                "implemented; feed YUV400 images",
                                f.name));
      }
      return Status::Ok();
    case AippOpParams::YUV444:
      if (!f.yuv) {
        return fail(err::kFeatureUnsupported, b, "model_format",
                    fmt::format("model_format YUV444 from the RGB source {} (an RGB-to-YUV conversion) is not "
                                "implemented; feed YUV images or set csc_switch with an RGB-to-YUV matrix",
                                f.name));
      }
      return Status::Ok();
    default:
      return fail(err::kInvalidParam, b, "model_format", "model_format must be RGB, BGR, GRAY or YUV444");
  }
}

// Ascend CSC: csc_switch with a Q8 matrix and biases.
Status apply_csc(const AippBlock& b, aipp::AippParams* p) {
  const AippOpParams& c = b.params;
  p->rbuv_swap = c.rbuv_swap_switch();
  if (!c.csc_switch()) return Status::Ok();
  const google::protobuf::RepeatedField<std::int32_t>* m[9] = {
      &c.matrix_r0c0(), &c.matrix_r0c1(), &c.matrix_r0c2(), &c.matrix_r1c0(), &c.matrix_r1c1(),
      &c.matrix_r1c2(), &c.matrix_r2c0(), &c.matrix_r2c1(), &c.matrix_r2c2()};
  bool any = false;
  for (int i = 0; i < 9; ++i) {
    const std::string name = fmt::format("matrix_r{}c{}", i / 3, i % 3);
    std::int32_t v = 0;
    SVP_RETURN_IF_ERROR(single(b, name.c_str(), *m[i], &v));
    any = any || m[i]->size() > 0;
    // The runtime's matrix is Q10 in int16 (svp_acl_mdl_set_aipp_csc_params); Q8 x 4 must fit.
    if (v < -8192 || v > 8191) {
      return fail(err::kInvalidParam, b, name,
                  fmt::format("{}: {} is outside -8192..8191 (Q8 fixed point, 256 = 1.0; svp-acl holds the matrix "
                              "as Q10 int16, so |coefficient| < 32)",
                              name, v));
    }
    p->matrix[static_cast<std::size_t>(i)] = static_cast<std::int16_t>(v * 4);
  }
  if (!any) {
    return fail(err::kInvalidParam, b, "csc_switch",
                "csc_switch: true needs the matrix (matrix_r0c0 .. matrix_r2c2, Q8: 256 = 1.0)");
  }
  const google::protobuf::RepeatedField<std::int32_t>* ob[3] = {&c.output_bias_0(), &c.output_bias_1(),
                                                                 &c.output_bias_2()};
  const google::protobuf::RepeatedField<std::int32_t>* ib[3] = {&c.input_bias_0(), &c.input_bias_1(),
                                                                 &c.input_bias_2()};
  for (std::size_t i = 0; i < 3; ++i) {
    for (int k = 0; k < 2; ++k) {
      const std::string name = fmt::format("{}_bias_{}", k == 0 ? "output" : "input", i);
      std::int32_t v = 0;
      SVP_RETURN_IF_ERROR(single(b, name.c_str(), k == 0 ? *ob[i] : *ib[i], &v));
      if (v < 0 || v > 255) {
        return fail(err::kInvalidParam, b, name, fmt::format("{}: {} is outside 0..255", name, v));
      }
      (k == 0 ? p->out_bias : p->in_bias)[i] = static_cast<std::uint8_t>(v);
    }
  }
  p->csc = true;
  return Status::Ok();
}

Status check_unsupported(const AippBlock& b) {
  const AippOpParams& c = b.params;
  auto no = [&](const char* field, const char* what) {
    return fail(err::kFeatureUnsupported, b, field, fmt::format("{}: {} is not implemented in svp-acl; remove it", field, what));
  };
  if (c.input_edge_idx_size() > 0) return no("input_edge_idx", "AIPP on some of an input's consumers only");
  if (c.support_rotation()) return no("support_rotation", "rotation");
  if (c.single_line_mode()) return no("single_line_mode", "single-line mode");
  if (c.has_cpadding_value() && c.cpadding_value() != 0) return no("cpadding_value", "a channel padding value");
  if (c.has_padding_value() && c.padding_value() != 0) {
    return no("padding_value", "a padding value other than 0 (svp-acl's constant padding writes pixel value 0)");
  }
  return Status::Ok();
}

Result<aipp::AippParams> static_params(const AippBlock& b, const ModelInput& in) {
  const AippOpParams& c = b.params;
  if (!c.has_input_format()) {
    return fail(err::kInvalidParam, b, "",
                "static AIPP needs input_format (e.g. input_format: YUV420SP_U8 or input_format: RGB_PLANAR)");
  }
  auto format = source_format(b);
  if (!format.ok()) return format.status();
  const std::int64_t H = in.dims[2], W = in.dims[3];
  aipp::AippParams p;
  p.format_set = p.src_size_set = true;
  p.format = *format;
  // Every size and position within the runtime's 2^24 pixels per side, so that the sums
  // below (crop + pads) stay far inside int32.
  constexpr std::int32_t kMaxSide = 1 << 24;
  const std::pair<const char*, std::int32_t> sizes[] = {
      {"src_image_size_w", c.src_image_size_w()},       {"src_image_size_h", c.src_image_size_h()},
      {"load_start_pos_w", c.load_start_pos_w()},       {"load_start_pos_h", c.load_start_pos_h()},
      {"crop_size_w", c.crop_size_w()},                 {"crop_size_h", c.crop_size_h()},
      {"resize_output_w", c.resize_output_w()},         {"resize_output_h", c.resize_output_h()},
      {"left_padding_size", c.left_padding_size()},     {"right_padding_size", c.right_padding_size()},
      {"top_padding_size", c.top_padding_size()},       {"bottom_padding_size", c.bottom_padding_size()}};
  for (const auto& [f, v] : sizes) {
    if (v < 0 || v > kMaxSide) {
      return fail(err::kInvalidParam, b, f, fmt::format("{}: {} is outside 0..{}", f, v, kMaxSide));
    }
  }
  if (W > kMaxSide || H > kMaxSide) {
    return fail(err::kInvalidParam, b, "", fmt::format("the model input's {}x{} is too large for AIPP", W, H));
  }
  // Absent or 0: the model input's size (the vendor's default).
  p.src_w = c.src_image_size_w() > 0 ? c.src_image_size_w() : static_cast<std::int32_t>(W);
  p.src_h = c.src_image_size_h() > 0 ? c.src_image_size_h() : static_cast<std::int32_t>(H);

  aipp::BatchParams& e = p.batches[0];
  if (c.padding()) {
    e.padding = aipp::Padding::kConstant;
    e.pad_left = c.left_padding_size();
    e.pad_right = c.right_padding_size();
    e.pad_top = c.top_padding_size();
    e.pad_bottom = c.bottom_padding_size();
  }
  // Without resize the crop is the model input minus the pads; with it the crop has no
  // default (the vendor's rule).
  const std::int32_t inner_w = static_cast<std::int32_t>(W) - e.pad_left - e.pad_right;
  const std::int32_t inner_h = static_cast<std::int32_t>(H) - e.pad_top - e.pad_bottom;
  if (c.resize()) {
    e.resize = aipp::Resize::kBilinear;
    e.resize_out_w = c.resize_output_w() > 0 ? c.resize_output_w() : inner_w;
    e.resize_out_h = c.resize_output_h() > 0 ? c.resize_output_h() : inner_h;
  }
  if (c.crop()) {
    e.crop = true;
    e.crop_x = c.load_start_pos_w();
    e.crop_y = c.load_start_pos_h();
    if (c.resize() && (c.crop_size_w() <= 0 || c.crop_size_h() <= 0)) {
      return fail(err::kInvalidParam, b, "crop",
                  "crop: true with resize: true needs crop_size_w and crop_size_h (> 0): the crop size cannot be "
                  "derived from the model input when the image is resized");
    }
    e.crop_w = c.crop_size_w() > 0 ? c.crop_size_w() : inner_w;
    e.crop_h = c.crop_size_h() > 0 ? c.crop_size_h() : inner_h;
  }
  const aipp::Size padded = aipp::after_padding(p, 0);
  e.resize_in_w = padded.w;
  e.resize_in_h = padded.h;

  if (c.has_model_format()) {
    SVP_RETURN_IF_ERROR(apply_model_format(b, &p));
  } else {
    SVP_RETURN_IF_ERROR(apply_csc(b, &p));
  }
  p.ax_swap = c.ax_swap_switch();

  const float mean[4] = {c.mean_chn_0(), c.mean_chn_1(), c.mean_chn_2(), c.mean_chn_3()};
  const float mn[4] = {c.min_chn_0(), c.min_chn_1(), c.min_chn_2(), c.min_chn_3()};
  const google::protobuf::RepeatedField<float>* vr[4] = {&c.var_reci_chn_0(), &c.var_reci_chn_1(),
                                                         &c.var_reci_chn_2(), &c.var_reci_chn_3()};
  for (std::size_t k = 0; k < 4; ++k) {
    const std::string name = fmt::format("var_reci_chn_{}", k);
    e.mean[k] = mean[k];
    e.min[k] = mn[k];
    float v = 1.0f;
    SVP_RETURN_IF_ERROR(single(b, name.c_str(), *vr[k], &v));
    if (!std::isfinite(v) || !std::isfinite(mean[k]) || !std::isfinite(mn[k])) {
      return fail(err::kInvalidParam, b, name, fmt::format("channel {}: mean, min and var_reci must be finite", k));
    }
    e.var_reci[k] = v;
  }
  return p;
}

// The largest source the dynamic input accepts: width x height limits (svp_atc's
// max_src_image_size_w/_h), or the vendor's byte budget (max_src_image_size), which each
// source must fit whatever its shape — checked at set_input_aipp time, not against the model
// input size here (a 720x576 camera frame resized to a 1920x1080 input is the vendor sample).
struct DynamicMax {
  std::int32_t w = 0, h = 0;  // the limits, or (byte budget) the description before set_input_aipp
  std::uint64_t bytes = 0;
};

Result<DynamicMax> dynamic_max(const AippBlock& b, std::int32_t format, std::int64_t W, std::int64_t H) {
  const AippOpParams& c = b.params;
  if (c.has_max_src_image_size_w() || c.has_max_src_image_size_h()) {
    if (c.max_src_image_size_w() > (1 << 24) || c.max_src_image_size_h() > (1 << 24)) {
      return fail(err::kInvalidParam, b, "max_src_image_size_w",
                  fmt::format("max_src_image_size_w/_h {}x{}: each side must be at most {}", c.max_src_image_size_w(),
                              c.max_src_image_size_h(), 1 << 24));
    }
    if (c.max_src_image_size_w() < W || c.max_src_image_size_h() < H) {
      return fail(err::kInvalidParam, b, "max_src_image_size_w",
                  fmt::format("max_src_image_size_w/_h {}x{} is smaller than the model input {}x{} (every gear); "
                              "the maximum source must hold at least one unscaled image",
                              c.max_src_image_size_w(), c.max_src_image_size_h(), W, H));
    }
    return DynamicMax{static_cast<std::int32_t>(c.max_src_image_size_w()),
                      static_cast<std::int32_t>(c.max_src_image_size_h()), 0};
  }
  if (!c.has_max_src_image_size() || c.max_src_image_size() == 0) {
    return fail(err::kInvalidParam, b, "",
                "dynamic AIPP needs max_src_image_size (the largest source image in bytes, e.g. W x H x 1.5 for "
                "YUV420SP_U8) or max_src_image_size_w and max_src_image_size_h");
  }
  const auto d = aipp::budget_description(format, c.max_src_image_size(), W);
  return DynamicMax{d.first, d.second, c.max_src_image_size()};
}

// Static-only fields written in a dynamic block: the vendor ignores them; say so.
void note_ignored(const AippBlock& b, std::vector<std::string>* log) {
  for (const char* f : {"src_image_size_w", "src_image_size_h", "crop", "resize", "padding", "csc_switch",
                        "mean_chn_0", "min_chn_0", "var_reci_chn_0", "model_format"}) {
    if (b.fields.count(f) > 0) {
      log->push_back(fmt::format("{}: warning: {} has no effect with aipp_mode: dynamic (the application sets it with "
                                 "svp_acl_mdl_set_aipp_* at run time)",
                                 b.where(f), f));
    }
  }
}

}  // namespace

Result<Converted> convert_insert_op(const InsertOpConfig& cfg, const ModelContext& model) {
  if (!cfg.multi_shape_ops.empty()) {
    const Location l = cfg.multi_shape_ops.front();
    return Error(err::kFeatureUnsupported,
                 "{}:{}:{}: multi_shape_op is not supported; use --dynamic_batch_size or --dynamic_image_size", cfg.file,
                 l.line, l.column);
  }
  if (cfg.blocks.empty()) {
    return Error(err::kInvalidParam, "{}: no aipp_op block; write aipp_op {{ aipp_mode: static input_format: ... }}",
                 cfg.file);
  }
  Converted out;
  out.input_aipp.assign(model.inputs.size(), "");
  std::vector<const AippBlock*> owner(model.inputs.size(), nullptr);
  for (const AippBlock& b : cfg.blocks) {
    const AippOpParams& c = b.params;
    const std::uint32_t rank = c.related_input_rank();
    if (rank >= model.inputs.size()) {
      return fail(err::kInvalidParam, b, "related_input_rank",
                  fmt::format("related_input_rank: {} is not an input of this model, which has {} input(s); use "
                              "0..{} (the 0-based position in the model's inputs)",
                              rank, model.inputs.size(), model.inputs.size() - 1));
    }
    const ModelInput& in = model.inputs[rank];
    if (owner[rank] != nullptr) {
      return fail(err::kInvalidParam, b, "related_input_rank",
                  fmt::format("a second AIPP block for input {} (\"{}\"), the first is at {}; one block per input",
                              rank, in.name, owner[rank]->where()));
    }
    owner[rank] = &b;
    const std::string what = fmt::format("input {} (\"{}\")", rank, in.name);
    if (in.dims.size() != 4 || (in.dims[1] != 1 && in.dims[1] != 3) || in.dims[0] <= 0 || in.dims[2] <= 0 ||
        in.dims[3] <= 0) {
      return fail(err::kInvalidParam, b, "related_input_rank",
                  fmt::format("{} has dims [{}]: AIPP feeds an image input, N x C x H x W with C = 1 or 3", what,
                              fmt::join(in.dims, ", ")));
    }
    if (in.dtype != model::DType::kFloat32) {
      return fail(err::kInvalidParam, b, "related_input_rank",
                  fmt::format("{} is {}: AIPP feeds a float32 model input", what, model::dtype_name(in.dtype)));
    }
    SVP_RETURN_IF_ERROR(check_unsupported(b));

    if (c.aipp_mode() == AippOpParams::dynamic) {
      // The format the description assumes until the application sets one: the input's
      // own if written, else the camera format with the input's channel count.
      std::int32_t format = in.dims[1] == 1 ? fid::kYuv400 : fid::kYuv420Sp;
      if (c.has_input_format()) {
        auto f = source_format(b);
        if (!f.ok()) return f.status();
        format = *f;
        if (aipp::format_info(format)->channels != in.dims[1]) {
          return fail(err::kInvalidParam, b, "input_format",
                      fmt::format("input_format {} gives {} channel(s), {} has {}", aipp::format_name(format),
                                  aipp::format_info(format)->channels, what, in.dims[1]));
        }
      }
      std::int64_t W = in.dims[3], H = in.dims[2];
      for (const auto& g : model.hw_gears) {
        H = std::max(H, g.first);
        W = std::max(W, g.second);
      }
      auto mx = dynamic_max(b, format, W, H);
      if (!mx.ok()) return mx.status();
      note_ignored(b, &out.log);
      out.input_aipp[rank] = aipp::dynamic_aipp_json(mx->w, mx->h, format, mx->bytes);
      if (mx->bytes > 0) {
        out.log.push_back(fmt::format("aipp: {}: dynamic, sources up to {} bytes each (described as {}x{} {} until "
                                      "svp_acl_mdl_set_input_aipp)",
                                      what, mx->bytes, mx->w, mx->h, aipp::format_name(format)));
      } else {
        out.log.push_back(fmt::format("aipp: {}: dynamic, sources up to {}x{} (initially {})", what, mx->w, mx->h,
                                      aipp::format_name(format)));
      }
      continue;
    }
    if (!model.hw_gears.empty()) {
      return fail(err::kInvalidParam, b, "aipp_mode",
                  "static AIPP produces one image size, but --dynamic_image_size asks for several; use aipp_mode: "
                  "dynamic");
    }
    auto p = static_params(b, in);
    if (!p.ok()) return p.status();
    aipp::Target t;
    t.input_name = in.name;
    t.dtype = in.dtype;
    t.layout = model::Layout::kNCHW;
    t.channels = in.dims[1];
    t.batch = in.dims[0];
    t.dynamic_batch = model.dynamic_batch;
    t.hw = {{in.dims[2], in.dims[3]}};
    const Status v = aipp::validate_for(*p, t);
    if (!v.ok()) {
      // A size mismatch: say which size the stages must end at.
      const bool size = v.message().find("does not match the model input") != std::string::npos;
      return fail(err::kInvalidParam, b, "",
                  fmt::format("aipp_op for {}: {}{}", what, v.message(),
                              size ? fmt::format("; crop, padding and resize must end at the model input's {}x{} "
                                                 "(w x h)",
                                                 in.dims[3], in.dims[2])
                                   : std::string()));
    }
    out.input_aipp[rank] = aipp::static_aipp_json(*p);
    const aipp::BatchParams& e = p->batches[0];
    out.log.push_back(fmt::format("aipp: {}: static {} {}x{}{}{}{}{} -> {}x{} x {} channel(s)", what,
                                  aipp::format_name(p->format), p->src_w, p->src_h,
                                  e.crop ? fmt::format(", crop {}x{} at ({}, {})", e.crop_w, e.crop_h, e.crop_x, e.crop_y)
                                         : std::string(),
                                  e.padding != aipp::Padding::kOff ? ", padding" : "",
                                  e.resize != aipp::Resize::kOff ? ", resize" : "", p->csc ? ", CSC" : "",
                                  in.dims[3], in.dims[2], in.dims[1]));
  }
  return out;
}

}  // namespace svp::compiler::aipp_conf
