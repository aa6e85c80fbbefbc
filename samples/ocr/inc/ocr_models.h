// The three PP-OCR models on the NPU, each with its own stream and datasets:
//   detector   (ppocr_det.om)  static AIPP, fixed input size          stream A, priority 3 (default)
//   classifier (ppocr_cls.om)  static AIPP, 48 x 192                  stream C, priority 3
//   recogniser (ppocr_rec.om)  dynamic AIPP, resolution gears 48 x W  stream B, priority 1
// The recogniser runs at a higher priority (a smaller number) so that the lines of a page
// already detected finish before the detector starts on the next pages: the NPU arbiter
// picks it first whenever both wait (docs/scheduling.md).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "dataset_pool.h"
#include "svp/acl.hpp"

namespace ocr {

struct RecGear {
  int height = 0;
  int width = 0;
  std::size_t steps = 0;  // time steps of the recogniser's output at this gear
};

struct Stage {
  std::string name;
  svp::acl::model model;
  svp::acl::stream stream;
  std::unique_ptr<DatasetPool> datasets;
  int input_w = 0;  // the model input's (largest) width and height after AIPP
  int input_h = 0;
};

class OcrModels {
 public:
  // Loads <dir>/ppocr_det.om, ppocr_cls.om and ppocr_rec.om with `in_flight` sets of
  // datasets each; completions and waiting requests go to `executor`. Throws
  // std::runtime_error (a file is missing or not the expected model) or svp::acl::error.
  OcrModels(const svp::acl::runtime& rt, const svp::acl::context& ctx, const std::string& dir, std::size_t in_flight,
            boost::asio::any_io_executor executor);

  Stage det, cls, rec;
  std::vector<RecGear> gears;  // narrowest first
  std::size_t rec_classes = 0;

  // The index of the narrowest gear at least `width` wide (the widest when none is).
  std::size_t gear_for(int width) const;

  // Starts recognition of the input in `io` at gears[gear]: selects the gear, writes the gear's
  // AIPP parameters into io and submits. The gear is a property of the model, not of the
  // dataset (svp_acl_mdl_set_dynamic_hw_size; an execution keeps the gear selected when it
  // was submitted), so selection and submission happen under one lock.
  template <class Handler>
  void start_rec(std::size_t gear, const svp::acl::model_io& io, Handler&& handler) {
    std::lock_guard<std::mutex> lock(rec_mu_);
    select_gear(gear, io);
    svp::acl::async_execute(rec.model, io, rec.stream, std::forward<Handler>(handler));
  }

 private:
  void select_gear(std::size_t gear, const svp::acl::model_io& io);

  std::mutex rec_mu_;
  std::size_t rec_dynamic_index_ = 0;        // input index of SVP_ACL_DYNAMIC_TENSOR_NAME
  std::vector<svp::acl::aipp_set> rec_aipp_;  // per gear (same order as gears)
};

}  // namespace ocr
