#include "document_set.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace ocr {

std::vector<Page> load_documents(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> pngs;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".png") pngs.push_back(e.path());
  }
  if (ec) throw std::runtime_error("cannot list " + dir + ": " + ec.message());
  if (pngs.empty()) throw std::runtime_error(dir + " holds no .png document");
  std::sort(pngs.begin(), pngs.end());
  std::vector<Page> pages;
  for (const fs::path& png : pngs) {
    Page p;
    p.name = png.filename().string();
    p.image = load_png(png.string());
    fs::path truth = png;
    truth.replace_extension(".txt");
    std::ifstream in(truth);
    if (!in) throw std::runtime_error("the ground truth " + truth.string() + " of " + p.name + " is missing");
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty()) p.truth.push_back(line);
    }
    const std::string stem = png.stem().string();
    p.exact = !(stem.size() >= 6 && stem.compare(stem.size() - 6, 6, "_noisy") == 0);
    pages.push_back(std::move(p));
  }
  return pages;
}

}  // namespace ocr
