// svp::acl dynamic AIPP parameter sets (svp_acl_mdl_create_aipp / svp_acl_mdl_destroy_aipp)
// and their application to a model's input dataset.
//
// Ownership: an aipp_set owns its C object and holds the runtime. The parameters are
// copied into the dataset's parameter buffer by apply_to_input(), so the set may be
// changed or destroyed afterwards. Threading: one thread at a time per object.
// Errors: svp/acl/error.hpp; setters report the C function that rejected a value.
#pragma once

#include <cstdint>
#include <memory>

#include "acl/svp_acl_mdl.h"
#include "svp/acl/error.hpp"
#include "svp/acl/model.hpp"
#include "svp/acl/runtime.hpp"

namespace svp::acl {

namespace detail {
struct aipp_state {
  runtime_token runtime;
  svp_acl_mdl_aipp* handle = nullptr;
  ~aipp_state() { (void)svp_acl_mdl_destroy_aipp(handle); }
};
}  // namespace detail

class aipp_set {
 public:
  aipp_set() = default;
  aipp_set(const runtime& rt, std::uint64_t batch_size) { detail::raise_if(open(rt, batch_size)); }
  aipp_set(const runtime& rt, std::uint64_t batch_size, std::error_code& ec) { detail::assign(open(rt, batch_size), ec); }
  aipp_set(aipp_set&&) noexcept = default;
  aipp_set& operator=(aipp_set&&) noexcept = default;

  explicit operator bool() const noexcept { return state_ != nullptr; }
  svp_acl_mdl_aipp* native_handle() const noexcept { return state_ ? state_->handle : nullptr; }

  // Setters return *this so a configuration reads as one expression.
  aipp_set& input_format(svp_acl_aipp_input_format f) {
    return check(svp_acl_mdl_set_aipp_input_format(native_handle(), f), "svp_acl_mdl_set_aipp_input_format");
  }
  aipp_set& src_image_size(std::int32_t width, std::int32_t height) {
    return check(svp_acl_mdl_set_aipp_src_image_size(native_handle(), width, height),
                 "svp_acl_mdl_set_aipp_src_image_size");
  }
  aipp_set& rbuv_swap(bool on) {
    return check(svp_acl_mdl_set_aipp_rbuv_swap_switch(native_handle(), on ? 1 : 0),
                 "svp_acl_mdl_set_aipp_rbuv_swap_switch");
  }
  aipp_set& ax_swap(bool on) {
    return check(svp_acl_mdl_set_aipp_ax_swap_switch(native_handle(), on ? 1 : 0), "svp_acl_mdl_set_aipp_ax_swap_switch");
  }
  aipp_set& crop(std::int32_t x, std::int32_t y, std::int32_t width, std::int32_t height, std::uint64_t batch = 0) {
    return check(svp_acl_mdl_set_aipp_crop_params(native_handle(), 1, x, y, width, height, batch),
                 "svp_acl_mdl_set_aipp_crop_params");
  }
  aipp_set& resize(svp_acl_aipp_resize_switch mode, std::int32_t in_w, std::int32_t in_h, std::int32_t out_w,
                   std::int32_t out_h, std::uint64_t batch = 0) {
    return check(svp_acl_mdl_set_aipp_scf_params(native_handle(), static_cast<std::int8_t>(mode), in_w, in_h, out_w,
                                                 out_h, batch),
                 "svp_acl_mdl_set_aipp_scf_params");
  }
  aipp_set& padding(svp_acl_aipp_padding_switch mode, std::int32_t top, std::int32_t bottom, std::int32_t left,
                    std::int32_t right, std::uint64_t batch = 0) {
    return check(svp_acl_mdl_set_aipp_padding_params(native_handle(), static_cast<std::int8_t>(mode), top, bottom,
                                                     left, right, batch),
                 "svp_acl_mdl_set_aipp_padding_params");
  }
  aipp_set& mean(float c0, float c1, float c2, float c3, std::uint64_t batch = 0) {
    return check(svp_acl_mdl_set_aipp_dtc_pixel_mean(native_handle(), c0, c1, c2, c3, batch),
                 "svp_acl_mdl_set_aipp_dtc_pixel_mean");
  }
  aipp_set& min(float c0, float c1, float c2, float c3, std::uint64_t batch = 0) {
    return check(svp_acl_mdl_set_aipp_dtc_pixel_min(native_handle(), c0, c1, c2, c3, batch),
                 "svp_acl_mdl_set_aipp_dtc_pixel_min");
  }
  aipp_set& var_reci(float c0, float c1, float c2, float c3, std::uint64_t batch = 0) {
    return check(svp_acl_mdl_set_aipp_pixel_var_reci(native_handle(), c0, c1, c2, c3, batch),
                 "svp_acl_mdl_set_aipp_pixel_var_reci");
  }

  // Writes the parameters for DATA input `index` of `m` into `io`'s parameter buffer
  // (svp_acl_mdl_set_aipp_by_input_index).
  void apply_to_input(const model& m, const model_io& io, std::size_t index) const {
    detail::raise_if(apply(m, io, index));
  }
  void apply_to_input(const model& m, const model_io& io, std::size_t index, std::error_code& ec) const {
    detail::assign(apply(m, io, index), ec);
  }

 private:
  detail::status open(const runtime& rt, std::uint64_t batch_size) {
    if (!rt) return detail::moved_from("svp::acl::aipp_set");
    svp_acl_mdl_aipp* h = svp_acl_mdl_create_aipp(batch_size);
    if (h == nullptr) {
      return detail::fail(SVP_ACL_ERROR_INVALID_PARAM, "svp_acl_mdl_create_aipp", svp_acl_get_recent_err_msg());
    }
    state_ = std::make_shared<detail::aipp_state>();
    state_->runtime = rt.token();
    state_->handle = h;
    return {};
  }
  aipp_set& check(svp_acl_error rc, const char* fn) {
    if (!state_) detail::raise_if(detail::moved_from(fn));
    detail::raise_if(detail::call(rc, fn));
    return *this;
  }
  detail::status apply(const model& m, const model_io& io, std::size_t index) const {
    if (!state_ || !m || !io) return detail::moved_from("svp::acl::aipp_set::apply_to_input");
    return detail::call(svp_acl_mdl_set_aipp_by_input_index(m.id(), io.inputs().native_handle(), index, state_->handle),
                        "svp_acl_mdl_set_aipp_by_input_index");
  }

  std::shared_ptr<detail::aipp_state> state_;
};

}  // namespace svp::acl
