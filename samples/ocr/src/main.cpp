// ocr_sample — an OCR pipeline on the NPU with the C++ API (include/svp/acl.hpp) and
// Boost.Asio: PP-OCRv4 text detection, the PP-OCR direction classifier and PP-OCRv4 text
// recognition, each model on its own stream (the recogniser at a higher priority, with
// resolution gears for the line widths), AIPP converting colours and normalising on the
// NPU, and the host's share (letterboxing, DB box extraction, crops, CTC decoding) on an
// asio::thread_pool that receives the NPU completions.
//
//   ocr_sample [MODEL_DIR] [DATA_DIR] [MAX_CER] [ROUNDS]
//
// MODEL_DIR holds ppocr_det.om, ppocr_cls.om, ppocr_rec.om (script/compile_model.sh) and
// ppocr_keys_v1.txt; DATA_DIR the documents (<name>.png with its truth <name>.txt). Two
// passes: pages one at a time (latency of each stage, the recognised lines beside the
// truth), then ROUNDS x all pages started at once (frames per second; every text must equal
// the first pass's). Checks: every line of the pages not named *_noisy is exact, and the
// character error rate over all pages is at most MAX_CER. Prints "ocr_sample OK".
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include <boost/asio/thread_pool.hpp>

#include "ctc_decoder.h"
#include "document_set.h"
#include "ocr_models.h"
#include "ocr_pipeline.h"
#include "ocr_sample.h"
#include "page_runner.h"
#include "report.h"
#include "svp/acl.hpp"

namespace {

namespace acl = svp::acl;
namespace net = boost::asio;
using Clock = std::chrono::steady_clock;

struct StageStats {
  std::vector<double> det, cls, rec, host, page;
  void add(const ocr::PageTimes& t) {
    det.push_back(t.det);
    cls.insert(cls.end(), t.cls.begin(), t.cls.end());
    rec.insert(rec.end(), t.rec.begin(), t.rec.end());
    host.push_back(t.host);
    page.push_back(t.total);
  }
  static std::string line(const char* name, std::vector<double> v) {
    if (v.empty()) return std::string(name) + ": -";
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (double x : v) sum += x;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%-5s %4zu x  mean %7.1f ms  median %7.1f ms  max %7.1f ms", name, v.size(),
                  sum / double(v.size()), v[v.size() / 2], v.back());
    return buf;
  }
  void print(const char* title) const {
    std::printf("%s\n", title);
    for (const auto& [name, v] : {std::pair{"det", det}, {"cls", cls}, {"rec", rec}, {"host", host}, {"page", page}}) {
      std::printf("  %s\n", line(name, v).c_str());
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  const std::string model_dir = argc > 1 ? argv[1] : ocr::kDefaultModelDir;
  const std::string data_dir = argc > 2 ? argv[2] : ocr::kDefaultDataDir;
  const double max_cer = argc > 3 ? std::atof(argv[3]) : ocr::kDefaultMaxCer;
  const int rounds = argc > 4 ? std::atoi(argv[4]) : ocr::kDefaultRounds;
  // acl.json, as vendor samples pass it to svp_acl_init (the demo's turns profiling on).
  const char* acl_json = argc > 5 ? argv[5] : nullptr;
  if (argc > 6 || rounds < 1 || max_cer < 0) {
    std::fprintf(stderr, "usage: %s [MODEL_DIR] [DATA_DIR] [MAX_CER] [ROUNDS >= 1] [ACL_JSON]\n", argv[0]);
    return 2;
  }
  bool ok = true;
  try {
    const std::vector<ocr::Page> pages = ocr::load_documents(data_dir);
    const ocr::CtcDecoder decoder(model_dir + "/ppocr_keys_v1.txt");

    auto rt = acl::runtime::init(acl_json);
    acl::device dev(rt, 0);
    acl::context ctx(dev);
    net::thread_pool host(ocr::kHostThreads);
    ocr::OcrModels models(rt, ctx, model_dir, ocr::kInFlight, host.get_executor());
    ocr::Pipeline pipeline(models, decoder, host.get_executor());
    std::printf("models: det %dx%d, cls %dx%d, rec gears", models.det.input_w, models.det.input_h, models.cls.input_w,
                models.cls.input_h);
    for (const ocr::RecGear& g : models.gears) std::printf(" %dx%d", g.width, g.height);
    std::printf(" (w x h); %zu pages from %s\n\n", pages.size(), data_dir.c_str());

    // Pass 1: one page at a time, so that each stage's latency is its own.
    std::vector<const ocr::Page*> once;
    for (const ocr::Page& p : pages) once.push_back(&p);
    const std::vector<ocr::PageResult> first = ocr::run_pages(pipeline, once, 1);
    ocr::Score total;
    StageStats alone;
    for (const ocr::PageResult& r : first) {
      ocr::print_page(r);
      total += ocr::score_page(r);
      alone.add(r.times);
      if (!r.error.empty()) ok = false;
    }

    // Pass 2: every page `rounds` times, all started at once: the stages overlap (det of
    // one page beside cls/rec of others on their streams, host work on the pool).
    std::vector<const ocr::Page*> many;
    for (int k = 0; k < rounds; ++k) many.insert(many.end(), once.begin(), once.end());
    const Clock::time_point t0 = Clock::now();
    const std::vector<ocr::PageResult> again = ocr::run_pages(pipeline, many, many.size());
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    StageStats loaded;
    std::size_t differ = 0;
    for (std::size_t i = 0; i < again.size(); ++i) {
      loaded.add(again[i].times);
      if (!again[i].error.empty()) {
        std::printf("ERROR: %s\n", again[i].error.c_str());
        ok = false;
      }
      differ += ocr::texts(again[i]) != ocr::texts(first[i % first.size()]);
    }
    host.join();

    std::printf("\n");
    alone.print("latency, one page at a time (NPU stages: submission to completion):");
    loaded.print(("latency, " + std::to_string(many.size()) + " pages in flight:").c_str());
    std::printf("throughput: %zu pages in %.2f s = %.2f frames per second (%zu host threads, %d datasets per model)\n",
                many.size(), seconds, double(many.size()) / seconds, std::size_t(ocr::kHostThreads), ocr::kInFlight);
    std::printf("accuracy: %zu of %zu lines exact; clean pages %zu of %zu lines exact; character error rate %.2f %% "
                "(%zu edits in %zu characters, limit %.2f %%)\n",
                total.exact, total.lines, total.required_exact, total.required, 100 * total.cer(), total.edits,
                total.chars, 100 * max_cer);
    if (differ != 0) {
      std::printf("FAILED: %zu pages of the concurrent pass differ from the first pass\n", differ);
      ok = false;
    }
    if (total.required_exact != total.required) {
      std::printf("FAILED: %zu lines of clean pages are not exact\n", total.required - total.required_exact);
      ok = false;
    }
    if (total.cer() > max_cer) {
      std::printf("FAILED: character error rate %.2f %% above %.2f %%\n", 100 * total.cer(), 100 * max_cer);
      ok = false;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ocr_sample: %s\n", e.what());
    return 1;
  }
  if (!ok) return 1;
  std::printf("ocr_sample OK\n");
  return 0;
}
