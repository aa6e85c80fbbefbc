// CompiledProgram: a Program prepared for execution, once, when the model is loaded.
//
// Compilation picks an implementation for every layer (the reference kernel, or a fast
// path such as oneDNN when one applies) and does everything that does not depend on the
// data of one execution: shape checks, weight reordering, primitive creation. Executing is
// then a sequence of run_layer calls, one per layer in program order.
//
// Addresses: the executor resolves, for one execution, where every tensor of the program
// lives and passes them as `tensor_data` (indexed like Program::tensors):
//   * model inputs and outputs: dense row-major buffers in the tensor's logical shape (the
//     executor converts the application's strided buffers before and after);
//   * kWorkBuf tensors: work_buf + offset (the device view of the application's work_buf);
//   * kWeights tensors: the weights section + offset.
// The bytes of kWorkBuf tensors are private to the compiled program: an implementation may
// store them in another element order (e.g. NHWC) as long as it uses no more than the
// planned `size` bytes and its consumers read the same order. Model inputs and outputs are
// always in the logical order.
//
// Lifetime and threading: the Program and weights passed to compile() must outlive the
// CompiledProgram. run_layer is const and thread-safe: different executions of one model
// (different tensor_data) may run concurrently on different threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "kernels/custom_op.h"
#include "model/program.h"

namespace svp::kernels {

// How kernels with more than one thread let libgomp's workers wait between layers
// (acl.json softnpu.kernel_spin; src/kernels/onednn/spin_governor.h).
enum class KernelSpin {
  kAuto,      // spin as libgomp does, shortened while the machine is oversubscribed (default)
  kSpin,      // never intervene: libgomp's own policy (GOMP_SPINCOUNT / OMP_WAIT_POLICY)
  kThrottle,  // shortened whenever multi-threaded kernels run
};

struct CompileOptions {
  // Allow fast paths; false = reference kernels only (tests compare the two).
  bool fast_paths = true;
  // Threads a fast-path kernel may use for one layer; fixed at compile time.
  int threads = 1;
  // With threads > 1: how the OpenMP workers wait between layers.
  KernelSpin spin = KernelSpin::kAuto;
  // Fold layers into their producer (Conv + Add + activation, int8 Add + Relu). false:
  // every layer writes its own output, so that read_tensor can read every tensor — the
  // compiler's calibration observes each activation that way.
  bool fuse = true;
};

// What one execution tells its layers beyond the tensors.
struct RunArgs {
  // Recurrent nets: the time steps to process (svp_acl_mdl_set_total_t); 0 = all of them.
  // Recurrent layers then run as if sequence_lens were min(sequence_lens, total_t): their
  // outputs past that step are zero and the final states are those of that step.
  std::uint64_t total_t = 0;
  // The application's custom operators (model/custom_op.h); null: none registered, and a
  // custom op layer fails.
  const CustomOps* custom_ops = nullptr;
};

class CompiledProgram {
 public:
  virtual ~CompiledProgram() = default;

  // Prepares every layer of `program` (a valid Program) with `weights` (its WEIGHTS
  // section). Errors: err::kParseModel naming the layer when an op, shape or type is not
  // supported.
  static Result<std::unique_ptr<CompiledProgram>> compile(const model::Program& program, const std::uint8_t* weights,
                                                          std::size_t weights_size, const CompileOptions& options);

  virtual std::size_t layer_count() const = 0;
  // Runs layer `index` on the tensors at `tensor_data`. Errors name the layer.
  virtual Status run_layer(std::size_t index, const std::vector<void*>& tensor_data, const RunArgs& args) const = 0;
  // The implementation chosen for a layer: "reference" or a fast-path name such as
  // "onednn"; for tests, logs and profiling.
  virtual std::string layer_impl(std::size_t index) const = 0;
  // True when another layer computes this one's result (a fused group: Conv + Relu, a
  // Linear layer + its GELU), so running it does nothing.
  virtual bool layer_folded(std::size_t /*index*/) const { return false; }

  // The logical bytes (row-major in the tensor's shape) of tensor `t` of an execution whose
  // tensors are at `tensor_data`, read right after the layer producing it ran (model dump,
  // accuracy analysis). Error if this implementation never writes the tensor: a result
  // fused into the following layer's (Conv + Relu writes only the Relu's output).
  virtual Result<std::vector<std::uint8_t>> read_tensor(std::size_t t, const std::vector<void*>& tensor_data) const = 0;
};

}  // namespace svp::kernels
