// A model's weights as the RKNN API lets applications place them: rknn_set_weight_mem (with
// RKNN_FLAG_MEM_ALLOC_OUTSIDE the context has no weight memory until it is called) and
// weight sharing between contexts (rknn_dup_context, RKNN_FLAG_SHARE_WEIGHT_MEM with
// rknn_init_extend.ctx). Rockchip's runtime copies the weights into the application's
// memory and the NPU reads them there. The software NPU computes with the weights its
// registry prepared from the image (kernels reorder them at load), so the memory receives
// the same bytes and every run checks, before it starts, that the memory is still live and
// still holds them: a run on destroyed or overwritten weight memory fails with the reason
// instead of computing with what a board would read.
#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "runtime/rknn_ctx.h"

namespace svp::runtime::rknn {

bool owns_weight_allocation(const Ctx& c) { return !c.shares_weights && !c.weights->outside; }

int check_weights(const char* fn, Ctx& c) {
  Weights& w = *c.weights;
  MemRef mem;
  {
    std::lock_guard<std::mutex> lock(w.mu);
    mem = w.mem;
  }
  if (!mem) {
    if (!w.outside) return RKNN_SUCC;
    return fail(fn, RKNN_ERR_FAIL,
                fmt::format("the model's weights have no memory: context 0x{:x} was created with "
                            "RKNN_FLAG_MEM_ALLOC_OUTSIDE; give it RKNN_QUERY_MEM_SIZE's total_weight_size ({} bytes) "
                            "with rknn_set_weight_mem before rknn_run",
                            w.owner, w.size));
  }
  std::vector<std::uint8_t> view;
  bool stale = false;
  std::string why;
  // The device view, without cache maintenance: what the NPU would read (CPU writes not
  // flushed do not reach it, as on a board).
  if (!device_read(*mem, w.size, false, &view, &stale, &why)) {
    return fail(fn, RKNN_ERR_FAIL, fmt::format("the weight memory: {}; give the context another with "
                                               "rknn_set_weight_mem", why));
  }
  if (w.size != 0 && std::memcmp(view.data(), w.bytes, w.size) != 0) {
    const auto at = std::mismatch(view.begin(), view.end(), w.bytes).first - view.begin();
    return fail(fn, RKNN_ERR_FAIL,
                fmt::format("{} no longer holds the model's weights (byte {} of {} differs from what "
                            "rknn_set_weight_mem wrote): the NPU would compute with the changed weights, so the run "
                            "is refused; leave weight memory alone while it is set, or set it again with "
                            "rknn_set_weight_mem",
                            mem->describe(), at, w.size));
  }
  return RKNN_SUCC;
}

int set_weight_mem(Handle h, rknn_tensor_mem* mem) {
  static constexpr char fn[] = "rknn_set_weight_mem";
  clear_last_error();
  Lookup l = find(fn, h);
  if (!l.ctx) return l.code;
  MemRef m;
  if (const int r = memory_of(fn, h, mem, &m); r != RKNN_SUCC) return r;
  Ctx& c = *l.ctx;
  CallScope call(fn, c);
  if (const int r = refuse_info_only(fn, c); r != RKNN_SUCC) return r;
  if (const int r = settle(fn, c); r != RKNN_SUCC) return r;  // a run in flight reads the weights
  Weights& w = *c.weights;
  if (m->size < w.size) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                fmt::format("{} is smaller than the model's {} bytes of weights (RKNN_QUERY_MEM_SIZE's "
                            "total_weight_size)",
                            m->describe(), w.size));
  }
  {
    // As the board's runtime fills it: the CPU writes the weights, then cleans its cache so
    // the NPU's view holds them.
    std::lock_guard<std::mutex> mem_lock(m->mu);
    if (m->destroyed) return fail(fn, RKNN_ERR_PARAM_INVALID, m->describe() + " was destroyed (rknn_destroy_mem)");
    if (w.size != 0) std::memcpy(m->data, w.bytes, w.size);
    if (m->kind == MemObj::Kind::kDevice && m->cacheable && w.size != 0) {
      if (Status s = m->rt->mem_flush(m->data, w.size); !s.ok()) return fail(fn, RKNN_ERR_FAIL, s.message());
    }
  }
  std::lock_guard<std::mutex> lock(w.mu);
  w.mem = std::move(m);
  return RKNN_SUCC;
}

int share_weights(const char* fn, Ctx& c, const rknn_init_extend* extend, std::shared_ptr<Ctx>* source) {
  if (extend == nullptr || extend->ctx == 0) {
    return fail(fn, RKNN_ERR_PARAM_INVALID,
                "RKNN_FLAG_SHARE_WEIGHT_MEM needs rknn_init_extend with ctx = the context whose weights to share");
  }
  Lookup l = find(fn, extend->ctx);
  if (!l.ctx) return l.code;
  *source = l.ctx;
  // Waits for a call in flight on the source without reporting it as shared use: this is
  // another context's rknn_init reading the source's model, not a second thread on it.
  std::lock_guard<std::mutex> lock(l.ctx->mu);
  if (!l.ctx->model) return find(fn, extend->ctx).code;  // destroyed meanwhile
  // The same model image: the loaded model itself is shared (one copy of everything).
  if (l.ctx->model->image == c.model->image) c.model = l.ctx->model;
  return RKNN_SUCC;
}

int adopt_weights(const char* fn, Ctx& c, Ctx& source) {
  // source.weights is set once, before the source was published, and never replaced.
  const Weights& mine = *c.weights;
  const Weights& theirs = *source.weights;
  if (mine.size != theirs.size || (mine.size != 0 && std::memcmp(mine.bytes, theirs.bytes, mine.size) != 0)) {
    return fail(fn, RKNN_ERR_MODEL_INVALID,
                fmt::format("RKNN_FLAG_SHARE_WEIGHT_MEM: the model's weights ({} bytes) are not those of context "
                            "0x{:x} ({} bytes{}); contexts share weights only when their models were converted from "
                            "the same weights",
                            mine.size, source.handle, theirs.size, mine.size == theirs.size ? ", different values" : ""));
  }
  c.weights = source.weights;
  c.shares_weights = true;
  return RKNN_SUCC;
}

}  // namespace svp::runtime::rknn
