// rknn_convert's YAML → CompileOptions (convert_config.h). Key names and values follow
// rknn-toolkit2's user guide (section "Model conversion tool: RKNN_Convert", table 3-1) and
// its README example; svp-acl's deviations are listed in docs/rknn.md.
#include "convert_config.h"

#include <fmt/ranges.h>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "compiler/onnx_import.h"

namespace svp::rknn_convert {
namespace {

namespace fs = std::filesystem;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string line_of(const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return m.line >= 0 ? fmt::format(" (line {})", m.line + 1) : std::string();
}

// Typed reads: a wrong type names the key, the type wanted and the line.
template <typename T>
Result<T> scalar(const YAML::Node& n, const std::string& key, const char* wanted) {
  if (!n.IsScalar()) return Error(err::kInvalidParam, "{}{}: expected {}, got a list or mapping", key, line_of(n), wanted);
  try {
    return n.as<T>();
  } catch (const YAML::Exception&) {
    return Error(err::kInvalidParam, "{}{}: expected {}, got \"{}\"", key, line_of(n), wanted, n.Scalar());
  }
}

Result<std::string> text(const YAML::Node& n, const std::string& key) { return scalar<std::string>(n, key, "a string"); }
Result<bool> boolean(const YAML::Node& n, const std::string& key) { return scalar<bool>(n, key, "true or false"); }

Status expect_map(const YAML::Node& n, const std::string& key) {
  if (!n.IsMap()) return Error(err::kInvalidParam, "{}{}: expected a mapping of keys", key, line_of(n));
  return Status::Ok();
}

// Every key of `map` must be one of `known` (the vendor's keys at this level).
Status check_keys(const YAML::Node& map, const std::string& where, const std::set<std::string>& known) {
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) return Error(err::kInvalidParam, "{}{}: a key is not a string", where, line_of(kv.first));
    const std::string k = kv.first.Scalar();
    if (known.count(k) == 0) {
      const std::string at = where.empty() ? k : where + "." + k;
      std::string names;
      for (const std::string& n : known) names += (names.empty() ? "" : ", ") + n;
      return Error(err::kInvalidParam, "{}{}: unknown key (rknn_convert's keys here: {})", at,
                   line_of(kv.first), names);
    }
  }
  return Status::Ok();
}

std::string resolve(const fs::path& base, const std::string& p) {
  const fs::path path(p);
  return (path.is_absolute() ? path : base / path).lexically_normal().string();
}

Result<std::string> existing_file(const YAML::Node& n, const std::string& key, const fs::path& base) {
  auto v = text(n, key);
  if (!v.ok()) return v.status();
  const std::string path = resolve(base, *v);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return Error(err::kInvalidFile, "{}{}: file {} does not exist (relative paths are read beside the .yml)", key,
                 line_of(n), path);
  }
  return path;
}

// "1,3,224,224" (the vendor's form), "1, 3, 224, 224" or [1, 3, 224, 224].
Result<std::vector<std::int64_t>> dims_of(const YAML::Node& n, const std::string& key) {
  std::vector<std::string> parts;
  if (n.IsSequence()) {
    for (const auto& d : n) {
      if (!d.IsScalar()) return Error(err::kInvalidParam, "{}{}: expected numbers", key, line_of(n));
      parts.push_back(d.Scalar());
    }
  } else if (n.IsScalar()) {
    std::stringstream in(n.Scalar());
    for (std::string p; std::getline(in, p, ',');) parts.push_back(p);
  } else {
    return Error(err::kInvalidParam, "{}{}: expected a shape such as 1,3,224,224", key, line_of(n));
  }
  std::vector<std::int64_t> dims;
  for (const std::string& p : parts) {
    std::size_t used = 0;
    long long d = -1;
    try {
      d = std::stoll(p, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    while (used < p.size() && std::isspace(static_cast<unsigned char>(p[used])) != 0) ++used;
    if (used == 0 || used != p.size() || d <= 0) {
      return Error(err::kInvalidParam, "{}{}: \"{}\" is not a positive dimension (dynamic shapes: configs.dynamic_input)",
                   key, line_of(n), p);
    }
    dims.push_back(d);
  }
  if (dims.empty()) return Error(err::kInvalidParam, "{}{}: an empty shape", key, line_of(n));
  return dims;
}

// mean_values / std_values: [a, b, c] (one input) or [[a, b, c], [d, e, f]] (one list per
// input).
Result<std::vector<std::vector<float>>> per_input(const YAML::Node& n, const std::string& key) {
  if (!n.IsSequence() || n.size() == 0) {
    return Error(err::kInvalidParam, "{}{}: expected a list such as [[123.675, 116.28, 103.53]]", key, line_of(n));
  }
  const auto numbers = [&key](const YAML::Node& list) -> Result<std::vector<float>> {
    std::vector<float> out;
    for (const auto& v : list) {
      auto x = scalar<float>(v, key, "numbers");
      if (!x.ok()) return x.status();
      out.push_back(*x);
    }
    if (out.empty()) return Error(err::kInvalidParam, "{}{}: an empty list", key, line_of(list));
    return out;
  };
  std::vector<std::vector<float>> inputs;
  if (!n[0].IsSequence()) {
    auto one = numbers(n);
    if (!one.ok()) return one.status();
    inputs.push_back(*one);
    return inputs;
  }
  for (const auto& list : n) {
    if (!list.IsSequence()) return Error(err::kInvalidParam, "{}{}: mixes numbers and lists", key, line_of(list));
    auto one = numbers(list);
    if (!one.ok()) return one.status();
    inputs.push_back(*one);
  }
  return inputs;
}

// mean_values/std_values → the compiler's per-input normalisation (a missing one is the
// identity: mean 0, std 1).
Status read_normalization(const YAML::Node& c, ConvertPlan* plan) {
  std::vector<std::vector<float>> mean, std;
  if (const YAML::Node n = c["mean_values"]) {
    auto v = per_input(n, "models.configs.mean_values");
    if (!v.ok()) return v.status();
    mean = *v;
  }
  if (const YAML::Node n = c["std_values"]) {
    auto v = per_input(n, "models.configs.std_values");
    if (!v.ok()) return v.status();
    std = *v;
  }
  if (!mean.empty() && !std.empty() && mean.size() != std.size()) {
    return Error(err::kInvalidParam, "models.configs.mean_values gives {} input(s), std_values {}", mean.size(), std.size());
  }
  for (std::size_t i = 0; i < std::max(mean.size(), std.size()); ++i) {
    compiler::InputNormalization n;
    n.mean = mean.empty() ? std::vector<float>{0.0f} : mean[i];
    n.std = std.empty() ? std::vector<float>{1.0f} : std[i];
    plan->options.input_normalization.push_back(std::move(n));
  }
  return Status::Ok();
}

// dynamic_input: [[[1,3,224,224]], [[1,3,192,192]]] (sets of one shape per input).
Status read_dynamic_input(const YAML::Node& n, ConvertPlan* plan) {
  static constexpr char kKey[] = "models.configs.dynamic_input";
  if (!n.IsSequence() || n.size() == 0) {
    return Error(err::kInvalidParam, "{}{}: expected a list of shape sets such as [[[1,3,224,224]], [[1,3,192,192]]]",
                 kKey, line_of(n));
  }
  for (const auto& set : n) {
    if (!set.IsSequence() || set.size() == 0) {
      return Error(err::kInvalidParam, "{}{}: each shape set is a list of shapes, one per input, e.g. [[1,3,224,224]]",
                   kKey, line_of(set));
    }
    std::vector<std::vector<std::int64_t>> shapes;
    for (const auto& shape : set) {
      auto dims = dims_of(shape, kKey);
      if (!dims.ok()) return dims.status();
      shapes.push_back(*dims);
    }
    if (!plan->dynamic_input.empty() && shapes.size() != plan->dynamic_input.front().size()) {
      return Error(err::kInvalidParam, "{}{}: a set of {} shapes, the first set has {} (one shape per input in each)",
                   kKey, line_of(set), shapes.size(), plan->dynamic_input.front().size());
    }
    plan->dynamic_input.push_back(std::move(shapes));
  }
  return Status::Ok();
}

Status read_subgraphs(const YAML::Node& sub, ConvertPlan* plan) {
  if (auto s = expect_map(sub, "models.subgraphs"); !s.ok()) return s;
  if (auto s = check_keys(sub, "models.subgraphs", {"input_size_list", "inputs", "outputs"}); !s.ok()) return s;
  if (sub["outputs"]) {
    return Error(err::kFeatureUnsupported, "models.subgraphs.outputs{}: choosing output tensors is not implemented yet "
                 "in svp-acl's rknn_convert (docs/rknn.md); remove the key to keep the ONNX model's outputs",
                 line_of(sub["outputs"]));
  }
  if (const YAML::Node names = sub["inputs"]; names && names.IsSequence()) {
    for (const auto& name : names) {
      auto v = text(name, "models.subgraphs.inputs");
      if (!v.ok()) return v.status();
      plan->input_names.push_back(*v);
    }
  }
  const YAML::Node sizes = sub["input_size_list"];
  if (!sizes) {
    if (sub["inputs"]) plan->warnings.push_back("models.subgraphs.inputs without input_size_list has no effect");
    return Status::Ok();
  }
  if (!sizes.IsSequence()) return Error(err::kInvalidParam, "models.subgraphs.input_size_list{}: expected a list of shapes", line_of(sizes));
  const YAML::Node names = sub["inputs"];
  // The ONNX input names are not known before import: svp-acl needs them with the shapes.
  if (!names || !names.IsSequence() || names.size() != sizes.size()) {
    return Error(err::kInvalidParam, "models.subgraphs.input_size_list{}: svp-acl needs models.subgraphs.inputs too, "
                 "one ONNX input name per shape (docs/rknn.md)", line_of(sizes));
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    auto name = text(names[i], "models.subgraphs.inputs");
    if (!name.ok()) return name.status();
    auto dims = dims_of(sizes[i], "models.subgraphs.input_size_list");
    if (!dims.ok()) return dims.status();
    plan->options.input_shape.emplace_back(*name, *dims);
  }
  return Status::Ok();
}

Status read_quantization(const YAML::Node& c, ConvertPlan* plan) {
  compiler::CompileOptions& o = plan->options;
  if (const YAML::Node n = c["quantized_dtype"]) {
    auto v = text(n, "models.configs.quantized_dtype");
    if (!v.ok()) return v.status();
    if (*v != "asymmetric_quantized-8" && *v != "w8a8") {
      return Error(err::kFeatureUnsupported, "models.configs.quantized_dtype{}: \"{}\" is not implemented yet in "
                   "svp-acl (asymmetric_quantized-8 / w8a8 are; docs/rknn.md)", line_of(n), *v);
    }
  }
  if (const YAML::Node n = c["quantized_algorithm"]) {
    auto v = text(n, "models.configs.quantized_algorithm");
    if (!v.ok()) return v.status();
    if (*v == "normal") o.calibration = "minmax";
    else if (*v == "mmse") o.calibration = "mse";
    else if (*v == "kl_divergence") o.calibration = "kl";
    else return Error(err::kInvalidParam, "models.configs.quantized_algorithm{}: \"{}\" is not one of normal, mmse, kl_divergence", line_of(n), *v);
  }
  if (const YAML::Node n = c["quantized_method"]) {
    auto v = text(n, "models.configs.quantized_method");
    if (!v.ok()) return v.status();
    if (*v != "channel" && *v != "layer") {
      return Error(err::kInvalidParam, "models.configs.quantized_method{}: \"{}\" is not one of layer, channel", line_of(n), *v);
    }
    o.weight_quant_per_channel = *v == "channel";
  }
  return Status::Ok();
}

Status read_configs(const YAML::Node& c, ConvertPlan* plan) {
  if (auto s = expect_map(c, "models.configs"); !s.ok()) return s;
  if (auto s = check_keys(c, "models.configs",
                          {"quantized_dtype", "mean_values", "std_values", "quant_img_RGB2BGR", "quantized_algorithm",
                           "quantized_method", "optimization_level", "target_platform", "model_pruning",
                           "quantize_weight", "single_core_mode", "dynamic_input", "compress_weight", "sparse_infer"});
      !s.ok()) {
    return s;
  }
  if (auto s = read_quantization(c, plan); !s.ok()) return s;
  if (auto s = read_normalization(c, plan); !s.ok()) return s;
  if (const YAML::Node n = c["model_pruning"]) {
    auto on = boolean(n, "models.configs.model_pruning");
    if (!on.ok()) return on.status();
    plan->model_pruning = *on;
  }
  if (const YAML::Node n = c["sparse_infer"]) {
    auto on = boolean(n, "models.configs.sparse_infer");
    if (!on.ok()) return on.status();
    // The guide: sparse inference is RK3576's only (seed 000 §5.11).
    if (*on && plan->options.soc_version != nullptr && plan->options.soc_version->name != std::string("RK3576")) {
      return Error(err::kInvalidParam, "models.configs.sparse_infer{}: true is supported on rk3576 only (the target "
                   "is {})", line_of(n), plan->options.soc_version->name);
    }
    plan->sparse_infer = *on;
  }
  for (const char* key : {"quantize_weight", "compress_weight"}) {
    if (const YAML::Node n = c[key]) {
      auto on = boolean(n, std::string("models.configs.") + key);
      if (!on.ok()) return on.status();
      if (*on) return Error(err::kFeatureUnsupported, "models.configs.{}{}: true is not implemented yet in svp-acl (docs/rknn.md)", key, line_of(n));
    }
  }
  if (const YAML::Node n = c["dynamic_input"]) {
    if (auto s = read_dynamic_input(n, plan); !s.ok()) return s;
  }
  if (const YAML::Node n = c["quant_img_RGB2BGR"]) {
    auto on = boolean(n, "models.configs.quant_img_RGB2BGR");
    if (!on.ok()) return on.status();
    plan->rgb2bgr = *on;
  }
  if (const YAML::Node n = c["optimization_level"]) {
    auto level = scalar<int>(n, "models.configs.optimization_level", "an integer 0..3");
    if (!level.ok()) return level.status();
    if (*level < 0 || *level > 3) return Error(err::kInvalidParam, "models.configs.optimization_level{}: {} is not in 0..3", line_of(n), *level);
    plan->warnings.push_back("models.configs.optimization_level has no effect: svp-acl's compiler always runs all of its passes");
  }
  if (const YAML::Node n = c["single_core_mode"]) {
    auto on = boolean(n, "models.configs.single_core_mode");
    if (!on.ok()) return on.status();
    if (*on) plan->warnings.push_back("models.configs.single_core_mode has no effect: svp-acl images are not built per core");
  }
  if (const YAML::Node n = c["target_platform"]) {
    auto v = text(n, "models.configs.target_platform");
    if (!v.ok()) return v.status();
    auto soc = rknn_platform(*v);
    if (!soc.ok()) return soc.status();
    if (*soc != plan->options.soc_version) {
      return Error(err::kInvalidParam, "models.configs.target_platform{}: {} differs from -t {}", line_of(n), *v,
                   plan->options.soc_version->name);
    }
  }
  return Status::Ok();
}

// One (h, w) per set: the size of every 4-D input whose height or width changes between sets
// (they must agree within a set).
Result<std::vector<std::pair<std::int64_t, std::int64_t>>> set_sizes(
    const std::vector<std::vector<std::vector<std::int64_t>>>& sets, const char* key) {
  const std::size_t n = sets.front().size();
  std::vector<bool> varies(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    for (const auto& set : sets) {
      varies[i] = varies[i] || (set[i].size() == 4 && (set[i][2] != sets.front()[i][2] || set[i][3] != sets.front()[i][3]));
    }
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> hw(sets.size(), {0, 0});
  for (std::size_t s = 0; s < sets.size(); ++s) {
    for (std::size_t i = 0; i < n; ++i) {
      if (!varies[i]) continue;
      const auto& d = sets[s][i];
      if (hw[s].first == 0) hw[s] = {d[2], d[3]};
      if (hw[s] != std::make_pair(d[2], d[3])) {
        return Error(err::kFeatureUnsupported, "{}: set {} gives its 4-D inputs different heights and widths; one "
                     "size per set is implemented (docs/rknn.md)", key, s);
      }
    }
  }
  return hw;
}

// The shape sets onto the compiler's gears: sets that differ only in the batch (dimension 0,
// the same in every input of a set) become --dynamic_batch_size; sets that differ only in the
// height and width of 4-D inputs (the same in every such input of a set) become
// --dynamic_image_size, largest first (the model is stored at its first gear); sets that vary
// both must be every listed batch at every listed size (both flags).
Status apply_dynamic_input(ConvertPlan* plan) {
  static constexpr char kKey[] = "models.configs.dynamic_input";
  compiler::CompileOptions& o = plan->options;
  const auto& sets = plan->dynamic_input;
  std::vector<std::string> names = plan->input_names;
  if (names.empty()) {
    auto file = compiler::OnnxFile::read(o.model);
    if (!file.ok()) return file.status();
    names = file->input_names();
  }
  const std::size_t n = sets.front().size();
  if (names.size() != n) {
    return Error(err::kInvalidParam, "{}: each set gives {} shape(s), the model has {} input(s) ({})", kKey, n,
                 names.size(), fmt::join(names, ", "));
  }
  bool batch_varies = false, hw_varies = false, other_varies = false;
  for (std::size_t i = 0; i < n; ++i) {
    const std::vector<std::int64_t>& first = sets.front()[i];
    for (const auto& set : sets) {
      const std::vector<std::int64_t>& d = set[i];
      if (d.size() != first.size()) {
        return Error(err::kInvalidParam, "{}: input {} (\"{}\") has {} dimensions in one set and {} in another", kKey, i,
                     names[i], first.size(), d.size());
      }
      for (std::size_t k = 0; k < d.size(); ++k) {
        if (d[k] == first[k]) continue;
        if (k == 0 && d[0] == set[0][0] && first[0] == sets.front()[0][0]) batch_varies = true;
        else if (d.size() == 4 && (k == 2 || k == 3)) hw_varies = true;
        else other_varies = true;
      }
    }
  }
  if (other_varies) {
    return Error(err::kFeatureUnsupported,
                 "{}: shape sets that differ in more than the batch (dimension 0 of every input alike) and the height "
                 "and width of 4-D inputs are not implemented yet in svp-acl (docs/rknn.md)", kKey);
  }
  if (batch_varies || hw_varies) {
    std::set<std::vector<std::vector<std::int64_t>>> distinct(sets.begin(), sets.end());
    if (distinct.size() != sets.size()) return Error(err::kInvalidParam, "{}: a shape set is listed twice", kKey);
  }
  o.input_shape.clear();
  std::vector<std::size_t> order(sets.size());
  for (std::size_t s = 0; s < order.size(); ++s) order[s] = s;
  std::vector<std::pair<std::int64_t, std::int64_t>> hw;
  if (hw_varies) {
    auto sizes = set_sizes(sets, kKey);
    if (!sizes.ok()) return sizes.status();
    hw = std::move(*sizes);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return hw[a].first * hw[a].second > hw[b].first * hw[b].second; });
    for (std::size_t s : order) {
      if (std::find(o.dynamic_image_size.begin(), o.dynamic_image_size.end(), hw[s]) == o.dynamic_image_size.end()) {
        o.dynamic_image_size.push_back(hw[s]);
      }
    }
  }
  if (batch_varies) {
    for (const auto& set : sets) {
      if (std::find(o.dynamic_batch_size.begin(), o.dynamic_batch_size.end(), set[0][0]) == o.dynamic_batch_size.end()) {
        o.dynamic_batch_size.push_back(set[0][0]);
      }
    }
  }
  // Both: the model runs every batch at every size, so the sets must be exactly those.
  if (batch_varies && hw_varies && sets.size() != o.dynamic_batch_size.size() * o.dynamic_image_size.size()) {
    return Error(err::kFeatureUnsupported,
                 "{}: sets that vary the batch and the size together must list every batch ({}) at every size ({} "
                 "sizes): {} sets expected, {} given; other combinations are not implemented yet in svp-acl "
                 "(docs/rknn.md)",
                 kKey, fmt::join(o.dynamic_batch_size, ","), o.dynamic_image_size.size(),
                 o.dynamic_batch_size.size() * o.dynamic_image_size.size(), sets.size());
  }
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::int64_t> d = sets[order.front()][i];
    for (const auto& set : sets) {
      for (std::size_t k = 0; k < d.size(); ++k) {
        if (set[i][k] != sets.front()[i][k]) d[k] = -1;
      }
    }
    o.input_shape.emplace_back(names[i], d);
  }
  return Status::Ok();
}

Status read_model(const YAML::Node& m, const fs::path& base, ConvertPlan* plan) {
  if (auto s = expect_map(m, "models"); !s.ok()) return s;
  if (auto s = check_keys(m, "models",
                          {"name", "platform", "model_file_path", "subgraphs", "quantize", "dataset", "configs",
                           "prototxt_file_path", "caffemodel_file_path", "darknet_cfg_path", "darknet_weights_path"});
      !s.ok()) {
    return s;
  }
  for (const char* key : {"name", "platform", "model_file_path"}) {
    if (!m[key]) return Error(err::kInvalidParam, "models.{}: missing (required)", key);
  }
  auto name = text(m["name"], "models.name");
  if (!name.ok()) return name.status();
  if (name->empty() || name->find('/') != std::string::npos || *name == "." || *name == "..") {
    return Error(err::kInvalidParam, "models.name{}: \"{}\" is not a file name", line_of(m["name"]), *name);
  }
  plan->name = *name;
  auto platform = text(m["platform"], "models.platform");
  if (!platform.ok()) return platform.status();
  if (lower(*platform) != "onnx") {
    return Error(err::kFeatureUnsupported, "models.platform{}: \"{}\" is not implemented yet in svp-acl (onnx is)",
                 line_of(m["platform"]), *platform);
  }
  for (const char* key : {"prototxt_file_path", "caffemodel_file_path", "darknet_cfg_path", "darknet_weights_path"}) {
    if (m[key]) plan->warnings.push_back(std::string("models.") + key + " has no effect: models.platform is onnx");
  }
  auto model = existing_file(m["model_file_path"], "models.model_file_path", base);
  if (!model.ok()) return model.status();
  plan->options.model = *model;
  if (const YAML::Node sub = m["subgraphs"]) {
    if (auto s = read_subgraphs(sub, plan); !s.ok()) return s;
  }
  bool quantize = false;
  if (const YAML::Node q = m["quantize"]) {
    auto v = boolean(q, "models.quantize");
    if (!v.ok()) return v.status();
    quantize = *v;
  }
  if (const YAML::Node c = m["configs"]) {
    if (auto s = read_configs(c, plan); !s.ok()) return s;
  }
  if (!plan->dynamic_input.empty()) {
    if (auto s = apply_dynamic_input(plan); !s.ok()) return s;
  }
  plan->options.compile_mode = quantize ? "0" : "float";  // 0: A8W8, RKNN's asymmetric int8
  if (quantize) {
    if (!m["dataset"]) return Error(err::kInvalidParam, "models.dataset: missing (required when models.quantize is true)");
    auto dataset = existing_file(m["dataset"], "models.dataset", base);
    if (!dataset.ok()) return dataset.status();
    plan->options.image_list = *dataset;
  } else if (m["dataset"]) {
    plan->warnings.push_back("models.dataset has no effect: models.quantize is false");
  }
  if (plan->rgb2bgr && !quantize) {
    plan->warnings.push_back("models.configs.quant_img_RGB2BGR has no effect: models.quantize is false");
  }
  return Status::Ok();
}

}  // namespace

Result<const target::DeviceProfile*> rknn_platform(const std::string& name) {
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  const target::DeviceProfile* p = target::find_profile(upper);
  if (p == nullptr || p->family != target::Family::kRknn) {
    return Error(err::kInvalidParam, "target platform \"{}\" is not one of svp-acl's RKNN targets ({}, any case)", name,
                 target::profile_names(target::Family::kRknn));
  }
  return p;
}

Result<ConvertPlan> read_convert_config(const std::string& yml_path, const std::string& target_platform) {
  ConvertPlan plan;
  auto soc = rknn_platform(target_platform);
  if (!soc.ok()) return soc.status();
  plan.options.soc_version = *soc;
  std::error_code ec;
  if (!fs::is_regular_file(yml_path, ec)) return Error(err::kInvalidFile, "config file {} does not exist or is not a file", yml_path);
  YAML::Node root;
  try {
    root = YAML::LoadFile(yml_path);
  } catch (const YAML::Exception& e) {
    return Error(err::kInvalidParam, "{}: not valid YAML: {}", yml_path, e.what());
  }
  if (!root.IsMap()) return Error(err::kInvalidParam, "{}: expected a mapping with the key \"models\"", yml_path);
  if (auto s = check_keys(root, "", {"models"}); !s.ok()) return s;
  if (!root["models"]) return Error(err::kInvalidParam, "{}: models: missing (required)", yml_path);
  const fs::path base = fs::path(yml_path).parent_path();
  try {
    if (auto s = read_model(root["models"], base, &plan); !s.ok()) return s;
  } catch (const YAML::Exception& e) {  // yaml-cpp's accessors throw on invalid nodes
    return Error(err::kInvalidParam, "{}: {}", yml_path, e.what());
  }
  return plan;
}

}  // namespace svp::rknn_convert
