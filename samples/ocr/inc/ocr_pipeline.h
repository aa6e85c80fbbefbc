// The OCR pipeline of one page, as a chain of completions:
//
//   host: letterbox the page into the detector's input
//   NPU stream A: detector (AIPP: R/B swap, normalisation)  -> completion on a host thread:
//   host: DB post-processing -> text boxes -> each box cropped straight to 48 rows
//   per line, concurrently:
//     NPU stream C: direction classifier -> host: turn the crop by 180 degrees if it says so
//     NPU stream B (higher priority): recogniser at the narrowest resolution gear the line
//       fits -> host: CTC decoding
//   when the page's last line is decoded: the result goes to the caller.
//
// Every host step runs on the executor given (an asio::thread_pool): completions of
// svp::acl::async_execute are posted there, so no thread ever waits for the NPU.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "ctc_decoder.h"
#include "geometry.h"
#include "image.h"
#include "ocr_models.h"

namespace ocr {

// PP-OCR pads its classifier and recogniser inputs with 0 after normalisation, i.e. with
// (x - 127.5) / 127.5 = 0: mid-grey.
constexpr std::uint8_t kPad = 128;
// Lines are cropped 1.5 times as high as their box (a quarter of the box height of paper
// above and below): with the box alone the recogniser drops spaces between words on these
// pages; 1.4 to 1.6 give the same texts (measured, samples/README.md).
constexpr float kCropHeightScale = 1.5f;

struct Page {
  std::string name;
  RgbImage image;
  std::vector<std::string> truth;  // the lines, top to bottom
  bool exact = true;                // every line must be recognised exactly
};

struct LineResult {
  TextBox box;           // in page coordinates
  float cls_score = 0;   // the classifier's confidence in its label
  bool flipped = false;  // turned by 180 degrees before recognition
  int gear_width = 0;    // the recogniser's resolution gear
  std::string text;
  float score = 0;  // CTC: mean probability of the characters kept
};

// Milliseconds. NPU stages: from submission to the completion handler (the execution, and
// any wait behind other work on the stream or for a higher-priority model).
struct PageTimes {
  double det = 0;
  std::vector<double> cls, rec;  // per line
  double host = 0;               // every host step of the page (pre- and post-processing)
  double total = 0;              // from start to the last line
};

struct PageResult {
  const Page* page = nullptr;
  std::vector<LineResult> lines;  // reading order
  PageTimes times;
  std::string error;  // empty when every step succeeded
};

class Pipeline {
 public:
  Pipeline(OcrModels& models, const CtcDecoder& decoder, boost::asio::any_io_executor host);

  // Starts `page` (which must outlive the run); `done` runs on a host thread when its last
  // line has been recognised or a step failed.
  void run(const Page& page, std::function<void(PageResult)> done);

 private:
  struct Job;
  using JobPtr = std::shared_ptr<Job>;
  void detect(const JobPtr& job, DatasetPool::Lease io);
  void classify(const JobPtr& job, std::size_t line);
  void recognise(const JobPtr& job, std::size_t line);
  void line_done(const JobPtr& job);  // a line finished (or failed)
  void finish(const JobPtr& job);     // every line finished: hand the result over
  void fail(const JobPtr& job, const std::string& what);

  OcrModels& models_;
  const CtcDecoder& decoder_;
  boost::asio::any_io_executor host_;
};

}  // namespace ocr
