// rknn_matmul_run on the software NPU's device: the matmul is one 1-segment task on the same
// device the process's RKNN model contexts run on, on the cores its rknn_matmul_set_core_mask
// allows (AUTO: any idle core), at the vendor's default priority (a model context's without
// RKNN_FLAG_PRIORITY_*), so a matmul and a model on one core arbitrate like two models and
// the per-core load (RKNN_QUERY_SVP_NPU_LOAD) counts its time. docs/rknn.md "Matmul".
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "rknn/rknn_matmul_api.h"
#include "runtime/runtime.h"

namespace svp::runtime::rknn {

// What the board timing model needs of one matmul: M x K x N and the operand types.
struct MatmulWork {
  std::int64_t M = 0, K = 0, N = 0;
  rknn_tensor_type a = RKNN_TENSOR_FLOAT16;
  std::string platform;  // the matmul library's SoC (its profile's MAC rates)
};

// Predicted board time of one matmul (board_time.h's MatMul work class on `w.platform`'s
// profile, falling back to `board_target`'s): the segment's time plus the per-task cost.
std::uint64_t matmul_board_ns(const MatmulWork& w, const std::string& board_target);

// A matmul context's hold on the device: its own runtime context (so its own stream), made
// at rknn_matmul_create and released with the context.
class MatmulDevice {
 public:
  MatmulDevice() = default;
  ~MatmulDevice();
  MatmulDevice(const MatmulDevice&) = delete;
  MatmulDevice& operator=(const MatmulDevice&) = delete;

  // Starts the software NPU if nothing has (with `platform`'s NPU cores, as a first model of
  // that platform would) and creates the context.
  int open(const char* fn, const std::string& platform);
  // Runs `body` as one task on the device, on the cores `core_mask` (an rknn_core_mask of a
  // `cores`-core platform) selects, and waits for it. `body` returns an RKNN code; a failing
  // body's message (its thread's last_error) becomes the caller's.
  int run(const char* fn, int core_mask, std::uint32_t cores, const MatmulWork& work, std::function<int()> body);

 private:
  std::shared_ptr<Runtime> rt_;
  void* context_ = nullptr;
};

}  // namespace svp::runtime::rknn
