// The RKNN front-end's runtime core (librknnrt, include/rknn/rknn_api.h): what an
// rknn_context is and the policy behind every rknn_* call. The C shims in src/rknn check
// their pointers and call exactly one function here.
//
// An rknn context holds: a copy of the model image (an svp-acl model compiled for an RKNN
// device profile) loaded into the runtime core's registry (both shared with its
// rknn_dup_context copies), a runtime context (device 0) whose default stream runs it, and
// device buffers for every input, output, task_buf and work_buf. rknn_inputs_set converts
// into the input buffers, rknn_run executes (blocking, or in flight until rknn_wait or the
// next call that needs the buffers), rknn_outputs_get converts out of the output buffers. Zero copy: rknn_set_io_mem binds memory objects (rknn_mem.h) that
// rknn_run converts from and into in their layouts (rknn_layout.h).
//
// Handles are opaque 64-bit (32-bit on 32-bit ARM) numbers never reused in a process; a
// stale or made-up one is RKNN_ERR_CTX_INVALID. Calls on one context are serialised by its
// mutex; rknn_destroy waits for a call in flight. The runtime core (Runtime) is started on
// the first rknn_init if the process has not started it (svp_acl_init) and is left running.
//
// Every failure returns an RKNN_ERR_* code and logs one line "<function>: <cause>"; the
// last cause on the calling thread is also kept for tests (last_error()).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

#include "rknn/rknn_api.h"

namespace svp::runtime {
class Runtime;
}

namespace svp::runtime::rknn {

using Handle = std::uint64_t;

// The integer a C caller passed for an enum parameter or field. C lets any int through,
// while reading an out-of-range value as the C++ enum type is undefined (UBSan's enum
// check): the bytes are copied instead of loaded as the enum.
template <typename E>
int raw_enum(const E& e) {
  std::underlying_type_t<E> v;
  static_assert(sizeof v == sizeof e);
  std::memcpy(&v, &e, sizeof v);
  return static_cast<int>(v);
}

// Logs "<fn>: <message>" as an error, remembers it as the thread's last error, returns code.
int fail(const char* fn, int code, const std::string& message);
// A function or mode svp-acl does not implement yet: RKNN_ERR_FAIL and a message saying so.
int not_implemented(const char* fn, const std::string& what);

// The handle of the n-th object of a kind named by four letters ("RKNN", "MATM"): the letters
// in the high half (on 32-bit Arm, where the handle types are 32 bits, the first letter in
// the top byte), so handles of different kinds never collide (rknn_context.cpp).
Handle tagged_handle(const char (&tag)[5], std::uint64_t n);
// Whether a platform with `cores` NPU cores accepts rknn_core_mask `mask`: AUTO, ALL, or one
// of the header's combinations of cores it has (rknn_cores.cpp).
bool is_core_mask_of(int mask, std::uint32_t cores);
// The --soc_version a model was compiled with, from its recorded svp_atc command line
// (Program::compiler.command_line; "" when the model records none, e.g. compiled through
// the library). rknn_init and the Python package's predicted board time read it.
std::string compiled_soc(const std::string& command_line);
// The thread's last failure message ("" after a success of init/query/run/...).
const std::string& last_error();
void clear_last_error();
// Logs "<fn>: <message>" as a warning and remembers it as the thread's last warning (tests).
void warn(const char* fn, const std::string& message);
const std::string& last_warning();

// RKNN_SUCC when `ctx` is a live context, else RKNN_ERR_CTX_INVALID (logged).
int check_context(const char* fn, Handle ctx);
// The runtime core every rknn call uses (started on first use); null with *why on failure.
// Started here, it has `soc`'s NPU cores (a matmul context's platform; empty: the defaults).
std::shared_ptr<Runtime> core_runtime(std::string* why, const std::string& soc = "");

// rknn_init: `model` is `size` bytes of model image, or with size == 0 a file path.
int init(Handle* out, const void* model, std::uint32_t size, std::uint32_t flag, rknn_init_extend* extend);
// rknn_dup_context: a second context running the same loaded model (one copy of its
// weights) with its own buffers, stream and bindings.
int dup_context(Handle in, Handle* out);
int destroy(Handle ctx);
// rknn-toolkit2's simulator (the Python rknn.api, init_runtime with target None) runs every
// platform's models through the normal API, RV1106/RV1103's too, whose board runtime lacks
// it: marks `ctx` as the simulator's, so the normal API serves it. Not part of librknnrt's C API.
int mark_simulator(Handle ctx);
// The SoC whose predicted board time `ctx`'s runs take when the software NPU runs on the board
// clock (SVP_ACL_RKNN_CONFIG's softnpu.clock "board"; RKNN_QUERY_PERF_* then report it); ""
// on the host clock or for an unknown context. Not part of librknnrt's C API (rknn.api's
// eval_perf labels its figures with it).
std::string board_clock_soc(Handle ctx);
int query(Handle ctx, int cmd, void* info, std::uint32_t size);
int inputs_set(Handle ctx, std::uint32_t n, const rknn_input* inputs);
// rknn_run: blocking, or with extend->non_block / RKNN_FLAG_ASYNC_MASK submitted only (the
// next call touching the context's buffers, or rknn_wait, ends it); extend->timeout_ms > 0
// limits a blocking run's wait (RKNN_ERR_TIMEOUT, the run goes on).
int run(Handle ctx, rknn_run_extend* extend);
// rknn_wait: ends the context's run in flight, if any (extend->timeout_ms as rknn_run's).
int wait(Handle ctx, rknn_run_extend* extend);
int outputs_get(Handle ctx, std::uint32_t n, rknn_output* outputs, rknn_output_extend* extend);
int outputs_release(Handle ctx, std::uint32_t n, rknn_output* outputs);
// rknn_set_io_mem: binds `mem` (rknn_mem.h) as the input or output attr->name names, in
// the type and layout `attr` describes; rknn_run then reads / writes it.
int set_io_mem(Handle ctx, rknn_tensor_mem* mem, const rknn_tensor_attr* attr);
// rknn_set_internal_mem: `mem` (device memory of at least task_buf + work_buf bytes) holds
// the context's intermediates from the next run on; several contexts may share one.
int set_internal_mem(Handle ctx, rknn_tensor_mem* mem);
// rknn_set_weight_mem: `mem` (at least RKNN_QUERY_MEM_SIZE's total_weight_size) receives
// the model's weights and serves every context sharing them from the next run on; runs
// check it (rknn_weights.cpp).
int set_weight_mem(Handle ctx, rknn_tensor_mem* mem);
// rknn_set_input_shapes (single: rknn_set_input_shape, one input's attr): selects the shape
// set of a dynamic-shape model whose shapes `attr` gives (4-D inputs NHWC); a shape not in
// the model's list is RKNN_ERR_INPUT_INVALID naming the allowed ones, a static model
// RKNN_ERR_MODEL_INVALID.
int set_input_shapes(Handle ctx, std::uint32_t n, const rknn_tensor_attr* attr, bool single);
// rknn_set_core_mask / rknn_set_batch_core_num: checked against the model's platform
// (multi-core RK3588 / RK3576; one-core platforms: RKNN_ERR_FAIL) and recorded.
int set_core_mask(Handle ctx, int core_mask);
int set_batch_core_num(Handle ctx, int core_num);
// Functions not implemented yet: the context is still checked first (a bad handle is
// RKNN_ERR_CTX_INVALID), then not_implemented(fn, what).
int unsupported(const char* fn, Handle ctx, const std::string& what);
// For tests: live contexts in this process.
std::size_t live_contexts();
// For tests: how long a run waits for its input fence before failing (10 s, the board
// driver's job timeout, unless changed). Returns the previous limit.
int set_input_fence_limit_ms(int ms);
// For tests: how many contexts were reported as used by two threads at once (CallScope).
std::size_t shared_context_reports();

}  // namespace svp::runtime::rknn
