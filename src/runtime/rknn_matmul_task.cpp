#include "runtime/rknn_matmul_task.h"

#include <fmt/format.h>

#include <cmath>
#include <utility>

#include "runtime/rknn_ctx.h"
#include "target/board_time.h"

namespace svp::runtime::rknn {
namespace {

// The priority a model context runs at without RKNN_FLAG_PRIORITY_* (RKNN_FLAG_PRIORITY_HIGH,
// rknn_context.cpp's load): the matmul library has no priority of its own.
constexpr int kMatmulPriority = 3;

// One matmul as a 1-segment NPU task: `body` runs on the core the device picks. Its RKNN code
// and, when it fails, the message it left in that core thread's last_error.
class MatmulTask final : public hal::SegmentedTask {
 public:
  MatmulTask(std::function<int()> body, std::uint64_t macs, hal::Nanos board)
      : body_(std::move(body)), macs_(macs), board_(board) {}
  std::size_t segment_count() const override { return 1; }
  std::uint64_t segment_macs(std::size_t) const override { return macs_; }
  hal::Nanos board_ns(std::size_t) const override { return board_; }
  Status run_segment(std::size_t, hal::SegmentContext&) override {
    clear_last_error();
    code = body_();
    if (code != RKNN_SUCC) message = last_error();
    clear_last_error();
    // What the body holds (the matmul context) goes now, while its caller still waits and
    // holds it too: the context is never released on a core thread.
    body_ = nullptr;
    return Status::Ok();  // the matmul's own code is the caller's answer, not a device error
  }
  int code = RKNN_ERR_FAIL;  // read after the stream's wait
  std::string message = "the matmul task never ran";

 private:
  std::function<int()> body_;
  std::uint64_t macs_;
  hal::Nanos board_;
};

target::Precision precision_of(rknn_tensor_type a) {
  // The NPU computes a float16 A with a quantized B in float16 (B dequantized on the way in).
  return a == RKNN_TENSOR_FLOAT16 ? target::Precision::kFp16 : target::Precision::kA8W8;
}

}  // namespace

std::uint64_t matmul_board_ns(const MatmulWork& w, const std::string& board_target) {
  const target::DeviceProfile* p = target::find_profile(w.platform);
  if (p == nullptr) p = target::find_profile(board_target);
  if (p == nullptr) p = &target::default_profile();
  target::LayerWork l;
  l.unit = target::Unit::kNpu;
  l.precision = precision_of(w.a);
  l.work = target::WorkClass::kMatMul;
  l.macs = static_cast<std::uint64_t>(w.M * w.K * w.N);
  l.in_elements = static_cast<std::uint64_t>(w.M * w.K);  // A from DDR; B as the layer's weights
  l.weight_elements = static_cast<std::uint64_t>(w.K * w.N);
  l.out_elements = static_cast<std::uint64_t>(w.M * w.N);
  const target::ProgramTime t = target::predict_program(*p, target::fitted_factors(*p), {l}, {1});
  return static_cast<std::uint64_t>(std::llround(t.total_us * 1000.0));
}

MatmulDevice::~MatmulDevice() {
  if (context_ != nullptr) (void)rt_->destroy_context(context_);
}

int MatmulDevice::open(const char* fn, const std::string& platform) {
  std::string why;
  rt_ = core_runtime(&why, platform);
  if (!rt_) return fail(fn, RKNN_ERR_DEVICE_UNAVAILABLE, "the software NPU did not start: " + why);
  CurrentContextScope keep(*rt_);
  auto ctx = rt_->create_context(0);
  if (!ctx.ok()) return fail(fn, RKNN_ERR_DEVICE_UNAVAILABLE, "no runtime context: " + ctx.status().message());
  context_ = *ctx;
  return RKNN_SUCC;
}

int MatmulDevice::run(const char* fn, int core_mask, std::uint32_t cores, const MatmulWork& work,
                      std::function<int()> body) {
  const CoreUse use = core_use_of(core_mask, cores, 1);
  hal::TaskSettings settings;
  settings.priority = kMatmulPriority;
  settings.aicpu_inline = true;
  settings.core_mask = use.mask;
  settings.core_split = use.split;
  const hal::Nanos board =
      rt_->config().backend.board_clock ? matmul_board_ns(work, rt_->config().backend.board_target) : 0;
  auto task =
      std::make_shared<MatmulTask>(std::move(body), static_cast<std::uint64_t>(work.M * work.K * work.N), board);
  CurrentContextScope keep(*rt_);
  Status s = rt_->set_current_context(context_);
  if (s.ok()) s = rt_->submit_task(nullptr, task, settings);
  if (s.ok()) s = rt_->synchronize_stream(nullptr);
  if (!s.ok()) return fail(fn, RKNN_ERR_FAIL, "the matmul task failed on the software NPU: " + s.message());
  if (task->code == RKNN_SUCC) return RKNN_SUCC;
  // The body's message carries its "<function>: " prefix already.
  const std::string prefix = std::string(fn) + ": ";
  const bool prefixed = task->message.rfind(prefix, 0) == 0;
  return fail(fn, task->code, prefixed ? task->message.substr(prefix.size()) : task->message);
}

}  // namespace svp::runtime::rknn
