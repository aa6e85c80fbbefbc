#include "image_dataset.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <vector>

#include "compiler/onnx_import.h"
#include "compiler/quantize/image_calibration.h"

namespace svp::rknn_convert {
namespace {

namespace fs = std::filesystem;

std::string trimmed(const std::string& line) {
  const auto b = line.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return line.substr(b, line.find_last_not_of(" \t\r") - b + 1);
}

bool is_image(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".jpg" || ext == ".jpeg" || ext == ".png" || ext == ".bmp";
}

// The model's single input shape, [1, 3, H, W]: from subgraphs.input_size_list when given,
// else from the ONNX file.
Result<std::vector<std::int64_t>> image_input_shape(const compiler::CompileOptions& o) {
  std::vector<std::int64_t> shape;
  if (o.input_shape.size() == 1) {
    shape = o.input_shape[0].second;
    // Gear dimensions (configs.dynamic_input): calibration runs one item at the largest
    // resolution, the model as stored.
    if (!shape.empty() && shape[0] == -1) shape[0] = 1;
    if (shape.size() == 4 && shape[2] == -1 && !o.dynamic_image_size.empty()) {
      shape[2] = o.dynamic_image_size.front().first;
      shape[3] = o.dynamic_image_size.front().second;
    }
  } else {
    auto g = compiler::import_onnx(o.model, o);
    if (!g.ok()) return g.status();
    if (g->inputs.size() != 1) {
      return Error(err::kFeatureUnsupported, "dataset: image files for a model with {} inputs are not implemented yet "
                   "(list .npy files instead)", g->inputs.size());
    }
    shape = g->value(g->inputs[0]).shape;
  }
  if (shape.size() != 4 || shape[0] != 1 || shape[1] != 3) {
    return Error(err::kFeatureUnsupported, "dataset: image files need an input of shape [1, 3, H, W]; the model's is "
                 "[{}] (list .npy files instead)", fmt::join(shape, ","));
  }
  return shape;
}

}  // namespace

Result<std::string> images_to_tensors(const compiler::CompileOptions& options, bool rgb2bgr,
                                      const std::string& work_dir) {
  const std::string& list = options.image_list;
  std::vector<std::string> lines;
  bool images = false;
  {
    std::ifstream in(list);
    for (std::string line; std::getline(in, line);) {
      lines.push_back(trimmed(line));
      images = images || is_image(lines.back());
    }
  }
  if (!images) return list;
  auto shape = image_input_shape(options);
  if (!shape.ok()) return shape.status();
  const std::int64_t H = (*shape)[2], W = (*shape)[3];
  std::error_code ec;
  fs::create_directories(work_dir, ec);
  const fs::path base = fs::path(list).parent_path();
  const std::string out_list = (fs::path(work_dir) / "dataset.txt").string();
  std::ofstream out(out_list);
  for (std::size_t no = 0; no < lines.size(); ++no) {
    const std::string& line = lines[no];
    if (line.empty()) continue;
    const fs::path p = fs::path(line).is_absolute() ? fs::path(line) : base / line;
    if (!is_image(line)) {
      out << p.string() << "\n";
      continue;
    }
    auto image = compiler::quant::decode_image(p.string());
    if (!image.ok()) return Error(image.status().code(), "dataset {} line {}: {}", list, no + 1, image.status().message());
    if (image->w != W || image->h != H) {
      return Error(err::kFeatureUnsupported, "dataset {} line {}: {} is {}x{}, the model input is {}x{}; resizing "
                   "images is not implemented yet in svp-acl's rknn_convert (resize them beforehand)",
                   list, no + 1, p.string(), image->w, image->h, W, H);
    }
    // Raw float32 NCHW, pixels as they are (normalisation is the model's).
    std::vector<float> t(static_cast<std::size_t>(3 * H * W));
    const std::size_t plane = static_cast<std::size_t>(H * W);
    for (std::size_t i = 0; i < plane; ++i) {
      for (std::size_t c = 0; c < 3; ++c) t[c * plane + i] = image->rgb[i * 3 + (rgb2bgr ? 2 - c : c)];
    }
    const std::string item = (fs::path(work_dir) / ("image_" + std::to_string(no) + ".bin")).string();
    std::ofstream bin(item, std::ios::binary);
    bin.write(reinterpret_cast<const char*>(t.data()), static_cast<std::streamsize>(t.size() * sizeof(float)));
    if (!bin) return Error(err::kInvalidFile, "cannot write {}", item);
    out << item << "\n";
  }
  if (!out) return Error(err::kInvalidFile, "cannot write {}", out_list);
  return out_list;
}

}  // namespace svp::rknn_convert
