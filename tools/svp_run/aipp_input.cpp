#include "svp_run/aipp_input.h"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "acl/svp_acl.h"

namespace svp::run {
namespace {

// Row bytes per pixel of width and rows per image row, in halves (4:2:0 has 1.5·H rows).
struct FormatRow {
  std::int32_t format;
  const char* name;
  std::size_t bytes_per_pixel;
  std::size_t half_rows;
  const char* formula;
};

constexpr FormatRow kFormats[] = {
    {SVP_ACL_YUV420SP_U8, "YUV420SP_U8", 1, 3, "W x H x 1.5"},
    {SVP_ACL_YVU420SP_U8, "YVU420SP_U8", 1, 3, "W x H x 1.5"},
    {SVP_ACL_YUV422SP_U8, "YUV422SP_U8", 1, 4, "W x H x 2"},
    {SVP_ACL_YVU422SP_U8, "YVU422SP_U8", 1, 4, "W x H x 2"},
    {SVP_ACL_YUV400_U8, "YUV400_U8", 1, 2, "W x H"},
    {SVP_ACL_RGB888_U8, "RGB888_U8", 3, 2, "W x H x 3"},
    {SVP_ACL_BGR_PACKAGE_U8, "BGR_PACKAGE_U8", 3, 2, "W x H x 3"},
    {SVP_ACL_XRGB8888_U8, "XRGB8888_U8", 4, 2, "W x H x 4"},
    {SVP_ACL_ARGB8888_U8, "ARGB8888_U8", 4, 2, "W x H x 4"},
    {SVP_ACL_XBGR_PACKAGE_U8, "XBGR_PACKAGE_U8", 4, 2, "W x H x 4"},
    {SVP_ACL_RGBX_PACKAGE_U8, "RGBX_PACKAGE_U8", 4, 2, "W x H x 4"},
    {SVP_ACL_BGRX_PACKAGE_U8, "BGRX_PACKAGE_U8", 4, 2, "W x H x 4"},
    {SVP_ACL_RGB_PLANAR_U8, "RGB_PLANAR_U8", 1, 6, "W x H x 3"},
    {SVP_ACL_BGR_PLANAR_U8, "BGR_PLANAR_U8", 1, 6, "W x H x 3"},
    {SVP_ACL_XRGB_PLANAR_U8, "XRGB_PLANAR_U8", 1, 8, "W x H x 4"},
    {SVP_ACL_XBGR_PLANAR_U8, "XBGR_PLANAR_U8", 1, 8, "W x H x 4"},
    {SVP_ACL_RGBX_PLANAR_U8, "RGBX_PLANAR_U8", 1, 8, "W x H x 4"},
    {SVP_ACL_BGRX_PLANAR_U8, "BGRX_PLANAR_U8", 1, 8, "W x H x 4"},
};

const FormatRow* find_format(std::int32_t format) {
  for (const FormatRow& f : kFormats) {
    if (f.format == format) return &f;
  }
  return nullptr;
}

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw std::invalid_argument(where + ": " + what);
}

std::string trim(const std::string& s) {
  const std::size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// Every key ais_bench's file may hold (the ATC aipp-config names of the dynamic setters).
const std::set<std::string>& known_keys() {
  static const std::set<std::string> keys = [] {
    std::set<std::string> k = {"aipp_mode", "related_input_rank", "input_format", "src_image_size_w",
                               "src_image_size_h", "crop", "load_start_pos_w", "load_start_pos_h", "crop_size_w",
                               "crop_size_h", "resize", "resize_output_w", "resize_output_h", "padding",
                               "left_padding_size", "right_padding_size", "top_padding_size",
                               "bottom_padding_size", "csc_switch", "rbuv_swap_switch", "ax_swap_switch"};
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) k.insert("matrix_r" + std::to_string(r) + "c" + std::to_string(c));
      k.insert("input_bias_" + std::to_string(r));
      k.insert("output_bias_" + std::to_string(r));
    }
    for (int c = 0; c < 4; ++c) {
      for (const char* p : {"mean_chn_", "min_chn_", "var_reci_chn_"}) k.insert(p + std::to_string(c));
    }
    return k;
  }();
  return keys;
}

class Keys {
 public:
  Keys(const std::map<std::string, std::string>& c, const std::string& path) : c_(c), path_(path) {}
  bool has(const std::string& k) const { return c_.count(k) > 0; }
  long long integer(const std::string& k, long long def, long long lo, long long hi) const {
    const auto it = c_.find(k);
    if (it == c_.end()) return def;
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(it->second, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != it->second.size()) bad(path_, k + ": '" + it->second + "' is not an integer");
    if (v < lo || v > hi) {
      bad(path_, k + ": " + it->second + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
    }
    return v;
  }
  bool flag(const std::string& k) const {
    const auto it = c_.find(k);
    if (it == c_.end()) return false;
    const std::string& v = it->second;
    if (v == "1" || v == "true" || v == "True") return true;
    if (v == "0" || v == "false" || v == "False") return false;
    bad(path_, k + ": '" + v + "' is not 1/0 or true/false");
  }
  float real(const std::string& k, float def) const {
    const auto it = c_.find(k);
    if (it == c_.end()) return def;
    std::size_t used = 0;
    float v = 0;
    try {
      v = std::stof(it->second, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != it->second.size() || !std::isfinite(v)) {
      bad(path_, k + ": '" + it->second + "' is not a finite number");
    }
    return v;
  }

 private:
  const std::map<std::string, std::string>& c_;
  const std::string& path_;
};

void check_set(svp_acl_error e, const std::string& path, const std::string& what) {
  if (e != SVP_ACL_SUCCESS) bad(path, what + " refused: " + svp_acl_get_recent_err_msg());
}

}  // namespace

std::string SourceLayout::describe() const {
  const FormatRow* f = find_format(format);
  return std::to_string(width) + "x" + std::to_string(height) + " " + aipp_format_name(format) + " (" +
         (f ? f->formula : "?") + " = " + std::to_string(bytes()) + " bytes)";
}

bool source_layout(std::int32_t format, std::int32_t width, std::int32_t height, SourceLayout* out) {
  const FormatRow* f = find_format(format);
  if (!f || width <= 0 || height <= 0) return false;
  out->format = format;
  out->width = width;
  out->height = height;
  out->row_bytes = static_cast<std::size_t>(width) * f->bytes_per_pixel;
  out->rows = static_cast<std::size_t>(height) * f->half_rows / 2;
  return true;
}

std::string aipp_format_name(std::int32_t format) {
  if (const FormatRow* f = find_format(format)) return f->name;
  std::ostringstream s;
  s << "format 0x" << std::hex << format;
  return s.str();
}

std::map<std::string, std::string> read_aipp_config(const std::string& path) {
  std::ifstream f(path);
  if (!f) bad(path, "cannot read the --aipp_config file");
  std::map<std::string, std::string> out;
  std::string line;
  bool in_section = false;
  for (int n = 1; std::getline(f, line); ++n) {
    const std::string where = path + ":" + std::to_string(n);
    const std::size_t hash = line.find('#');
    const std::string text = trim(hash == std::string::npos ? line : line.substr(0, hash));
    if (text.empty()) continue;
    if (text.front() == '[') {
      if (text != "[aipp_op]") bad(where, "section " + text + ": the file holds one [aipp_op] section");
      if (in_section) bad(where, "a second [aipp_op] section: svp_run feeds one dynamic-AIPP input");
      in_section = true;
      continue;
    }
    if (!in_section) bad(where, "'" + text + "' before the [aipp_op] section header");
    const std::size_t colon = text.find(':');
    if (colon == std::string::npos) bad(where, "'" + text + "' is not 'key : value'");
    const std::string key = trim(text.substr(0, colon)), value = trim(text.substr(colon + 1));
    if (known_keys().count(key) == 0) bad(where, "unknown key '" + key + "' (ATC aipp-config names, docs/svp_run.md)");
    if (value.empty()) bad(where, key + " has no value");
    out[key] = value;  // a repeated key: the last one wins, as in ais_bench's parser
  }
  if (!in_section) bad(path, "no [aipp_op] section");
  return out;
}

svp_acl_mdl_aipp* make_aipp(const std::map<std::string, std::string>& config, const std::string& path,
                            SourceLayout* source) {
  const Keys k(config, path);
  // read_aipp_config checks its file's keys; a caller's own map (svp_acl.Model's aipp=) too.
  for (const auto& kv : config) {
    if (known_keys().count(kv.first) == 0) {
      bad(path, "unknown key '" + kv.first + "' (ATC aipp-config names, docs/svp_run.md)");
    }
  }
  for (const char* key : {"input_format", "src_image_size_w", "src_image_size_h"}) {
    if (!k.has(key)) bad(path, std::string(key) + " is missing (input_format, src_image_size_w and src_image_size_h are mandatory)");
  }
  std::int32_t format = -1;
  for (const FormatRow& f : kFormats) {
    if (config.at("input_format") == f.name) format = f.format;
  }
  if (format < 0) bad(path, "input_format " + config.at("input_format") + " is not a format svp_run reads (e.g. YUV420SP_U8, RGB888_U8)");
  const auto w = static_cast<std::int32_t>(k.integer("src_image_size_w", 0, 1, 1 << 24));
  const auto h = static_cast<std::int32_t>(k.integer("src_image_size_h", 0, 1, 1 << 24));
  source_layout(format, w, h, source);

  svp_acl_mdl_aipp* a = svp_acl_mdl_create_aipp(1);
  if (!a) bad(path, "svp_acl_mdl_create_aipp: out of memory");
  try {
    check_set(svp_acl_mdl_set_aipp_input_format(a, static_cast<svp_acl_aipp_input_format>(format)), path, "input_format");
    check_set(svp_acl_mdl_set_aipp_src_image_size(a, w, h), path, "src_image_size_w/_h");
    const bool crop = k.flag("crop");
    const auto cx = static_cast<std::int32_t>(k.integer("load_start_pos_w", 0, 0, 1 << 24));
    const auto cy = static_cast<std::int32_t>(k.integer("load_start_pos_h", 0, 0, 1 << 24));
    const auto cw = static_cast<std::int32_t>(k.integer("crop_size_w", crop ? -1 : 0, crop ? 1 : 0, 1 << 24));
    const auto ch = static_cast<std::int32_t>(k.integer("crop_size_h", crop ? -1 : 0, crop ? 1 : 0, 1 << 24));
    if (crop && (cw < 0 || ch < 0)) bad(path, "crop : 1 needs crop_size_w and crop_size_h");
    check_set(svp_acl_mdl_set_aipp_crop_params(a, crop ? 1 : 0, cx, cy, cw, ch, 0), path, "crop");
    const bool pad = k.flag("padding");
    const auto top = static_cast<std::int32_t>(k.integer("top_padding_size", 0, 0, 1 << 24));
    const auto bottom = static_cast<std::int32_t>(k.integer("bottom_padding_size", 0, 0, 1 << 24));
    const auto left = static_cast<std::int32_t>(k.integer("left_padding_size", 0, 0, 1 << 24));
    const auto right = static_cast<std::int32_t>(k.integer("right_padding_size", 0, 0, 1 << 24));
    check_set(svp_acl_mdl_set_aipp_padding_params(a, pad ? AIPP_PADDING_SWITCH_CONSTANT : AIPP_PADDING_SWITCH_OFF, top,
                                                  bottom, left, right, 0),
              path, "padding");
    if (k.flag("resize")) {
      // The resize stage reads the padded crop (docs/aipp.md §2.1).
      const std::int32_t in_w = (crop ? cw : w) + (pad ? left + right : 0);
      const std::int32_t in_h = (crop ? ch : h) + (pad ? top + bottom : 0);
      for (const char* key : {"resize_output_w", "resize_output_h"}) {
        if (!k.has(key)) bad(path, std::string("resize : 1 needs ") + key);
      }
      check_set(svp_acl_mdl_set_aipp_scf_params(a, AIPP_RESIZE_SWITCH_BILINEAR, in_w, in_h,
                                                static_cast<std::int32_t>(k.integer("resize_output_w", 0, 1, 1 << 24)),
                                                static_cast<std::int32_t>(k.integer("resize_output_h", 0, 1, 1 << 24)), 0),
                path, "resize");
    }
    if (k.flag("csc_switch")) {
      // ATC's matrix is Q8 (256 = 1.0), the API's Q10: the same conversion as svp_atc's.
      std::int16_t m[9];
      for (int i = 0; i < 9; ++i) {
        const std::string key = "matrix_r" + std::to_string(i / 3) + "c" + std::to_string(i % 3);
        if (!k.has(key)) bad(path, "csc_switch : 1 needs the whole matrix (matrix_r0c0 .. matrix_r2c2, Q8: 256 = 1.0); " + key + " is missing");
        m[i] = static_cast<std::int16_t>(k.integer(key, 0, -8192, 8191) * 4);
      }
      std::uint8_t ob[3], ib[3];
      for (int i = 0; i < 3; ++i) {
        ob[i] = static_cast<std::uint8_t>(k.integer("output_bias_" + std::to_string(i), 0, 0, 255));
        ib[i] = static_cast<std::uint8_t>(k.integer("input_bias_" + std::to_string(i), 0, 0, 255));
      }
      check_set(svp_acl_mdl_set_aipp_csc_params(a, 1, m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], ob[0], ob[1],
                                                ob[2], ib[0], ib[1], ib[2]),
                path, "csc_switch");
    }
    check_set(svp_acl_mdl_set_aipp_rbuv_swap_switch(a, k.flag("rbuv_swap_switch") ? 1 : 0), path, "rbuv_swap_switch");
    check_set(svp_acl_mdl_set_aipp_ax_swap_switch(a, k.flag("ax_swap_switch") ? 1 : 0), path, "ax_swap_switch");
    float mean[4], mn[4], vr[4];
    for (int c = 0; c < 4; ++c) {
      mean[c] = k.real("mean_chn_" + std::to_string(c), 0.0f);
      mn[c] = k.real("min_chn_" + std::to_string(c), 0.0f);
      vr[c] = k.real("var_reci_chn_" + std::to_string(c), 1.0f);
    }
    check_set(svp_acl_mdl_set_aipp_dtc_pixel_mean(a, mean[0], mean[1], mean[2], mean[3], 0), path, "mean_chn_*");
    check_set(svp_acl_mdl_set_aipp_dtc_pixel_min(a, mn[0], mn[1], mn[2], mn[3], 0), path, "min_chn_*");
    check_set(svp_acl_mdl_set_aipp_pixel_var_reci(a, vr[0], vr[1], vr[2], vr[3], 0), path, "var_reci_chn_*");
  } catch (...) {
    svp_acl_mdl_destroy_aipp(a);
    throw;
  }
  return a;
}

}  // namespace svp::run
