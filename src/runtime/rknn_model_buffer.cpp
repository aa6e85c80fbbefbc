// RKNN_FLAG_MODEL_BUFFER_ZERO_COPY: the application loads the model into NPU-visible memory
// of its own (rknn_create_mem2 with RKNN_MEM_FLAG_ALLOC_NO_CONTEXT, or an fd it imported) and
// rknn_init uses it in place, so that a large model is not held twice. On the board the NPU
// then reads the model from that memory for as long as the context lives; the software NPU
// reads the device view once at rknn_init and checks before every run that the memory is
// still there and unchanged, which is what an application that freed or reused the buffer
// would otherwise get silently wrong on the board.
#include <cstring>

#include <fmt/format.h>

#include "runtime/rknn_ctx.h"

namespace svp::runtime::rknn {
namespace {

std::uint64_t fnv1a(const std::uint8_t* p, std::size_t n) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

}  // namespace

int read_model_buffer(const char* fn, Ctx& c, const void* model, std::uint32_t size, const rknn_init_extend* extend) {
  if (extend == nullptr) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                "RKNN_FLAG_MODEL_BUFFER_ZERO_COPY needs an rknn_init_extend: model_buffer_fd (the memory's fd), "
                "real_model_offset and real_model_size");
  }
  if (size == 0) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                "RKNN_FLAG_MODEL_BUFFER_ZERO_COPY: size is 0, but the model must be a buffer (virt_addr of the "
                "memory it was loaded into), not a path");
  }
  MemRef mem = find_mem_holding(model, size);
  if (!mem) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("RKNN_FLAG_MODEL_BUFFER_ZERO_COPY: the model ({} bytes at {}) is not inside memory of "
                            "rknn_create_mem2 (RKNN_MEM_FLAG_ALLOC_NO_CONTEXT) or rknn_create_mem_from_fd; load it into "
                            "such memory, or init without the flag",
                            size, model));
  }
  if (mem->desc->fd >= 0 && extend->model_buffer_fd != mem->desc->fd) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("RKNN_FLAG_MODEL_BUFFER_ZERO_COPY: extend->model_buffer_fd is {}, but the model is in {} "
                            "whose fd is {}",
                            extend->model_buffer_fd, mem->describe(), mem->desc->fd));
  }
  const std::uint64_t offset = static_cast<std::uint64_t>(extend->real_model_offset);
  const std::uint64_t length = extend->real_model_size != 0 ? extend->real_model_size : size - std::min<std::uint64_t>(offset, size);
  if (extend->real_model_offset < 0 || offset + length > size || length == 0) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("RKNN_FLAG_MODEL_BUFFER_ZERO_COPY: real_model_offset {} and real_model_size {} do not lie "
                            "within the {} bytes given",
                            extend->real_model_offset, extend->real_model_size, size));
  }
  const std::uint64_t start = static_cast<std::uint64_t>(static_cast<const std::uint8_t*>(model) - mem->data) + offset;
  std::vector<std::uint8_t> view;
  bool stale = false;
  std::string why;
  // The runtime makes the CPU's writes visible first, as the board's does for its own reads.
  if (!device_read(*mem, start + length, true, &view, &stale, &why)) return fail(fn, RKNN_ERR_PARAM_INVALID, why);
  c.model->image.assign(view.begin() + static_cast<std::ptrdiff_t>(start), view.end());
  c.model->buffer.mem = std::move(mem);
  c.model->buffer.end = start + length;
  c.model->buffer.hash = fnv1a(view.data(), view.size());
  return RKNN_SUCC;
}

int check_model_buffer(const char* fn, const Ctx& c) {
  const ModelBuffer& b = c.model->buffer;
  if (!b.mem) return RKNN_SUCC;
  std::vector<std::uint8_t> view;
  bool stale = false;
  std::string why;
  // The device view without cache maintenance: what the NPU reads.
  if (!device_read(*b.mem, b.end, false, &view, &stale, &why)) {
    return fail(fn, RKNN_ERR_FAIL,
                fmt::format("the model's buffer (RKNN_FLAG_MODEL_BUFFER_ZERO_COPY): {}; the NPU reads the model from "
                            "it while the context lives: destroy the memory only after rknn_destroy",
                            why));
  }
  if (fnv1a(view.data(), view.size()) != b.hash) {
    return fail(fn, RKNN_ERR_FAIL,
                fmt::format("{} no longer holds the model given to rknn_init with RKNN_FLAG_MODEL_BUFFER_ZERO_COPY: "
                            "the NPU would run the changed bytes, so the run is refused; leave the model's buffer "
                            "alone until rknn_destroy",
                            b.mem->describe()));
  }
  return RKNN_SUCC;
}

}  // namespace svp::runtime::rknn
