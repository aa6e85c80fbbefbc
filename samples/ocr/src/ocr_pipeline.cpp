// The chain of completions of one page (see ocr_pipeline.h).
#include "ocr_pipeline.h"

#include <cmath>
#include <cstring>
#include <mutex>
#include <utility>

#include <boost/asio/bind_executor.hpp>

#include "db_postprocess.h"
#include "image_ops.h"

namespace ocr {
namespace acl = svp::acl;
namespace net = boost::asio;
using Clock = std::chrono::steady_clock;

namespace {

double ms(Clock::time_point from, Clock::time_point to = Clock::now()) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

constexpr float kFlipThreshold = 0.9f;  // PaddleOCR's cls_thresh

std::uint8_t* input_pixels(const acl::model_io& io) { return reinterpret_cast<std::uint8_t*>(io.input(0).row(0)); }

}  // namespace

struct Pipeline::Job {
  const Page* page = nullptr;
  std::function<void(PageResult)> done;
  Clock::time_point start = Clock::now();
  std::mutex mu;  // guards result.times, result.error and pending
  PageResult result;
  std::vector<RgbImage> crops;  // per line: one step at a time works on a line
  std::size_t pending = 0;      // lines still in the pipeline

  void add_host(Clock::time_point since) {
    const double t = ms(since);
    std::lock_guard<std::mutex> lock(mu);
    result.times.host += t;
  }
};

Pipeline::Pipeline(OcrModels& models, const CtcDecoder& decoder, net::any_io_executor host)
    : models_(models), decoder_(decoder), host_(std::move(host)) {
  if (decoder_.num_classes() != models_.rec_classes) {
    throw std::runtime_error("the recogniser has " + std::to_string(models_.rec_classes) +
                             " classes, the dictionary gives " + std::to_string(decoder_.num_classes()) +
                             " (blank + characters + space)");
  }
}

void Pipeline::run(const Page& page, std::function<void(PageResult)> done) {
  auto job = std::make_shared<Job>();
  job->page = &page;
  job->done = std::move(done);
  job->result.page = &page;
  models_.det.datasets->acquire([this, job](DatasetPool::Lease io) { detect(job, std::move(io)); });
}

void Pipeline::detect(const JobPtr& job, DatasetPool::Lease io) {
  const Stage& det = models_.det;
  try {
    const Clock::time_point t0 = Clock::now();
    const Letterbox lb = letterbox_into(job->page->image, det.input_w, det.input_h, input_pixels(*io),
                                        io->input(0).stride());
    job->add_host(t0);
    const Clock::time_point submitted = Clock::now();
    acl::async_execute(
        det.model, *io, det.stream, net::bind_executor(host_, [this, job, io, lb, submitted](boost::system::error_code ec) mutable {
          const double npu = ms(submitted);
          std::size_t lines = 0;
          try {
            if (ec) throw std::runtime_error("detection failed on the NPU: " + ec.message());
            const Clock::time_point t1 = Clock::now();
            const acl::tensor_view prob = io->output(0);
            const std::vector<TextBox> boxes =
                db_boxes(reinterpret_cast<const float*>(prob.row(0)), models_.det.input_w, models_.det.input_h,
                         static_cast<int>(prob.stride() / sizeof(float)), lb.width, lb.height, lb.scale);
            io.reset();  // the detector's datasets are free for the next page
            const RecGear& widest = models_.gears.back();
            std::vector<RgbImage> crops;
            for (const TextBox& b : boxes) crops.push_back(crop_box(job->page->image, b, kCropHeightScale, widest.height, widest.width));
            std::lock_guard<std::mutex> lock(job->mu);
            job->result.times.det = npu;
            job->result.times.host += ms(t1);
            job->result.lines.resize(boxes.size());
            for (std::size_t i = 0; i < boxes.size(); ++i) job->result.lines[i].box = boxes[i];
            job->result.times.cls.assign(boxes.size(), 0);
            job->result.times.rec.assign(boxes.size(), 0);
            job->crops = std::move(crops);
            job->pending = lines = boxes.size();
          } catch (const std::exception& e) {
            fail(job, e.what());
          }
          if (lines == 0) return finish(job);  // nothing found, or failed
          for (std::size_t i = 0; i < lines; ++i) classify(job, i);
        }));
  } catch (const std::exception& e) {
    fail(job, e.what());
    finish(job);
  }
}

void Pipeline::classify(const JobPtr& job, std::size_t line) {
  models_.cls.datasets->acquire([this, job, line](DatasetPool::Lease io) {
    const Stage& cls = models_.cls;
    try {
      const Clock::time_point t0 = Clock::now();
      place_line(job->crops[line], cls.input_w, cls.input_h, kPad, input_pixels(*io), io->input(0).stride());
      job->add_host(t0);
      const Clock::time_point submitted = Clock::now();
      acl::async_execute(
          cls.model, *io, cls.stream, net::bind_executor(host_, [this, job, line, io, submitted](boost::system::error_code ec) mutable {
            const double npu = ms(submitted);
            try {
              if (ec) throw std::runtime_error("direction classification failed on the NPU: " + ec.message());
              const Clock::time_point t1 = Clock::now();
              const std::vector<float> p = io->output(0).to_vector<float>();  // [0 degrees, 180 degrees]
              io.reset();
              if (p.size() != 2) throw std::runtime_error("the direction classifier gives " + std::to_string(p.size()) + " scores, not 2");
              LineResult& r = job->result.lines[line];
              r.flipped = p[1] > p[0] && p[1] > kFlipThreshold;
              r.cls_score = std::max(p[0], p[1]);
              if (r.flipped) job->crops[line] = rotate_180(job->crops[line]);
              {
                std::lock_guard<std::mutex> lock(job->mu);
                job->result.times.cls[line] = npu;
                job->result.times.host += ms(t1);
              }
              recognise(job, line);
            } catch (const std::exception& e) {
              fail(job, e.what());
              line_done(job);
            }
          }));
    } catch (const std::exception& e) {
      fail(job, e.what());
      line_done(job);
    }
  });
}

void Pipeline::recognise(const JobPtr& job, std::size_t line) {
  models_.rec.datasets->acquire([this, job, line](DatasetPool::Lease io) {
    try {
      const Clock::time_point t0 = Clock::now();
      const RgbImage& crop = job->crops[line];
      const int height = models_.gears.back().height;
      const std::size_t gear = models_.gear_for(int(std::ceil(float(height) * float(crop.width) / float(crop.height))));
      const RecGear& g = models_.gears[gear];
      place_line(crop, g.width, g.height, kPad, input_pixels(*io), io->input(0).stride());
      job->result.lines[line].gear_width = g.width;
      job->add_host(t0);
      const Clock::time_point submitted = Clock::now();
      models_.start_rec(gear, *io, net::bind_executor(host_, [this, job, line, io, g, submitted](boost::system::error_code ec) mutable {
        const double npu = ms(submitted);
        try {
          if (ec) throw std::runtime_error("recognition failed on the NPU: " + ec.message());
          const Clock::time_point t1 = Clock::now();
          const acl::tensor_view out = io->output(0);
          const CtcDecoder::Text text = decoder_.decode(reinterpret_cast<const float*>(out.row(0)), g.steps,
                                                        models_.rec_classes, out.stride() / sizeof(float));
          io.reset();
          job->result.lines[line].text = text.text;
          job->result.lines[line].score = text.score;
          std::lock_guard<std::mutex> lock(job->mu);
          job->result.times.rec[line] = npu;
          job->result.times.host += ms(t1);
        } catch (const std::exception& e) {
          fail(job, e.what());
        }
        line_done(job);
      }));
    } catch (const std::exception& e) {
      fail(job, e.what());
      line_done(job);
    }
  });
}

void Pipeline::fail(const JobPtr& job, const std::string& what) {
  std::lock_guard<std::mutex> lock(job->mu);
  if (job->result.error.empty()) job->result.error = job->page->name + ": " + what;
}

void Pipeline::line_done(const JobPtr& job) {
  {
    std::lock_guard<std::mutex> lock(job->mu);
    if (--job->pending != 0) return;
  }
  finish(job);
}

void Pipeline::finish(const JobPtr& job) {
  job->result.times.total = ms(job->start);
  job->crops.clear();
  job->done(std::move(job->result));
}

}  // namespace ocr
