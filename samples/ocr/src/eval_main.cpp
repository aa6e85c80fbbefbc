// ocr_eval — every line the OCR pipeline finds, written out for comparing two sets of
// models (float and int8: script/int8_eval.sh), and the calibration data of the int8 models.
//
//   ocr_eval MODEL_DIR PAGES_DIR OUT.tsv [CALIBRATION_DIR]
//
// MODEL_DIR holds ppocr_det.om, ppocr_cls.om, ppocr_rec.om and ppocr_keys_v1.txt (as for
// ocr_sample); PAGES_DIR the pages (<name>.png with its truth <name>.txt). OUT.tsv gets a
// header and one row per detected line: page, line (reading order), the box's corners in
// page pixels (top-left, top-right, bottom-right, bottom-left: x0 y0 ... x3 y3), whether
// the classifier turned the line, its confidence, the recogniser's mean character
// probability and the text. Pages go through one at a time, so the order of the file does
// not depend on timing.
//
// With CALIBRATION_DIR the lines are also written as the classifier and the recogniser
// receive them (crop, placed on mid-grey at the model's input size; for the recogniser
// turned when the classifier said so, at its widest gear), as .npy model inputs normalised
// as the AIPP would normalise them (R and B swapped, (x - 127.5) / 127.5), with the lists
// svp_atc --image_list reads: cls.txt, rec.txt (at most kMaxCalibration items each) and
// det.txt (the page PNGs themselves: pages of the detector's input size pass through the
// letterbox unchanged, and the detector's static AIPP takes images).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/asio/thread_pool.hpp>

#include "ctc_decoder.h"
#include "document_set.h"
#include "image_ops.h"
#include "ocr_models.h"
#include "ocr_pipeline.h"
#include "ocr_sample.h"
#include "page_runner.h"
#include "svp/acl.hpp"

namespace {

namespace acl = svp::acl;
namespace fs = std::filesystem;

// The calibration budget: at most 32 items per input.
constexpr std::size_t kMaxCalibration = 32;

// A float32 .npy file of shape [1, 3, h, w]: the RGB888 buffer `rgb` (rows `stride` bytes
// apart) with R and B swapped and normalised to (x - 127.5) / 127.5, as the classifier's and
// recogniser's AIPP configurations do (script/aipp_cls.cfg, ocr_models.cpp).
void write_normalised_npy(const std::string& path, const std::uint8_t* rgb, int w, int h, std::size_t stride) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, " + std::to_string(h) + ", " +
                       std::to_string(w) + "), }";
  // Magic, version 1.0, a 2-byte length; the header padded with spaces and a newline so
  // that the data starts at a multiple of 64 bytes.
  const std::size_t preamble = 10;
  header.append(64 - (preamble + header.size() + 1) % 64, ' ');
  header += '\n';
  std::vector<float> values(std::size_t(3) * std::size_t(h) * std::size_t(w));
  for (int c = 0; c < 3; ++c) {
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        const std::uint8_t v = rgb[std::size_t(y) * stride + std::size_t(x) * 3 + std::size_t(2 - c)];
        values[(std::size_t(c) * std::size_t(h) + std::size_t(y)) * std::size_t(w) + std::size_t(x)] =
            (float(v) - 127.5f) / 127.5f;
      }
    }
  }
  std::ofstream f(path, std::ios::binary);
  const char magic[8] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0};
  const std::uint16_t len = static_cast<std::uint16_t>(header.size());
  const char len_le[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  f.write(magic, sizeof magic).write(len_le, 2).write(header.data(), std::streamsize(header.size()));
  f.write(reinterpret_cast<const char*>(values.data()), std::streamsize(values.size() * sizeof(float)));
  if (!f) throw std::runtime_error("cannot write " + path);
}

// One line's model input as the pipeline makes it (place_line on mid-grey), as .npy.
void write_line_input(const std::string& path, const ocr::RgbImage& line, int w, int h) {
  std::vector<std::uint8_t> buf(std::size_t(w) * std::size_t(h) * 3);
  ocr::place_line(line, w, h, ocr::kPad, buf.data(), std::size_t(w) * 3);
  write_normalised_npy(path, buf.data(), w, h, std::size_t(w) * 3);
}

void write_calibration(const std::string& dir, const std::string& pages_dir, const std::vector<ocr::Page>& pages,
                       const std::vector<ocr::PageResult>& results, const ocr::OcrModels& models) {
  fs::create_directories(dir);
  std::ofstream det(dir + "/det.txt"), cls(dir + "/cls.txt"), rec(dir + "/rec.txt");
  std::size_t pages_listed = 0, lines = 0;
  for (const ocr::Page& p : pages) {
    if (pages_listed++ == kMaxCalibration) break;
    det << fs::absolute(fs::path(pages_dir) / p.name).string() << "\n";
  }
  const ocr::RecGear& widest = models.gears.back();
  for (const ocr::PageResult& r : results) {
    for (const ocr::LineResult& l : r.lines) {
      if (lines == kMaxCalibration) break;
      const ocr::RgbImage crop = ocr::crop_box(r.page->image, l.box, ocr::kCropHeightScale, widest.height, widest.width);
      const std::string n = std::to_string(lines++);
      write_line_input(dir + "/cls_" + n + ".npy", crop, models.cls.input_w, models.cls.input_h);
      write_line_input(dir + "/rec_" + n + ".npy", l.flipped ? ocr::rotate_180(crop) : crop, widest.width,
                       widest.height);
      cls << "cls_" << n << ".npy\n";
      rec << "rec_" << n << ".npy\n";
    }
  }
  if (!det || !cls || !rec) throw std::runtime_error("cannot write the calibration lists in " + dir);
  std::printf("calibration: %zu pages, %zu lines in %s\n", std::min(pages.size(), kMaxCalibration), lines, dir.c_str());
}

// Tabs and newlines cannot occur in recognised text (the dictionary has neither), so the
// text needs no quoting as the last column.
void write_tsv(const std::string& path, const std::vector<ocr::PageResult>& results) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("cannot create " + path);
  std::fprintf(f, "page\tline\tx0\ty0\tx1\ty1\tx2\ty2\tx3\ty3\tflipped\tcls_score\trec_score\ttext\n");
  for (const ocr::PageResult& r : results) {
    for (std::size_t i = 0; i < r.lines.size(); ++i) {
      const ocr::LineResult& l = r.lines[i];
      std::fprintf(f, "%s\t%zu", r.page->name.c_str(), i);
      for (const ocr::Point& c : l.box.corners()) std::fprintf(f, "\t%.2f\t%.2f", c.x, c.y);
      std::fprintf(f, "\t%d\t%.4f\t%.4f\t%s\n", l.flipped ? 1 : 0, l.cls_score, l.score, l.text.c_str());
    }
  }
  if (std::fclose(f) != 0) throw std::runtime_error("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    std::fprintf(stderr, "usage: %s MODEL_DIR PAGES_DIR OUT.tsv [CALIBRATION_DIR]\n", argv[0]);
    return 2;
  }
  const std::string model_dir = argv[1], pages_dir = argv[2], out = argv[3];
  try {
    const std::vector<ocr::Page> pages = ocr::load_documents(pages_dir);
    const ocr::CtcDecoder decoder(model_dir + "/ppocr_keys_v1.txt");
    auto rt = acl::runtime::init(nullptr);
    acl::device dev(rt, 0);
    acl::context ctx(dev);
    boost::asio::thread_pool host(ocr::kHostThreads);
    ocr::OcrModels models(rt, ctx, model_dir, ocr::kInFlight, host.get_executor());
    ocr::Pipeline pipeline(models, decoder, host.get_executor());
    std::vector<const ocr::Page*> all;
    for (const ocr::Page& p : pages) all.push_back(&p);
    const std::vector<ocr::PageResult> results = ocr::run_pages(pipeline, all, 1);
    host.join();
    std::size_t lines = 0;
    for (const ocr::PageResult& r : results) {
      if (!r.error.empty()) throw std::runtime_error(r.error);
      lines += r.lines.size();
    }
    write_tsv(out, results);
    std::printf("%zu pages, %zu lines found: %s\n", pages.size(), lines, out.c_str());
    if (argc == 5) {
      write_calibration(argv[4], pages_dir, pages, results, models);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ocr_eval: %s\n", e.what());
    return 1;
  }
  return 0;
}
