// Functions of svp_acl_mdl.h whose capability is not built yet. Each is exported (so vendor
// applications link), fails with SVP_ACL_ERROR_FEATURE_UNSUPPORTED and leaves a message
// naming the missing feature. tests/unit/unsupported_api_test.cpp lists them; delete an
// entry here when its feature lands.
#include "acl/svp_acl_mdl.h"
#include "capi/not_built.h"

using namespace svp::capi;  // NOLINT(google-build-using-namespace)

svp_acl_error svp_acl_mdl_set_total_t(uint32_t, svp_acl_mdl_dataset *, uint64_t) {
  return not_built(__func__, kRecurrent);
}

svp_acl_error svp_acl_mdl_init_dump(void) {
  return not_built(__func__, kDump);
}

svp_acl_error svp_acl_mdl_set_dump(const char *) {
  return not_built(__func__, kDump);
}

svp_acl_error svp_acl_mdl_finalize_dump(void) {
  return not_built(__func__, kDump);
}

svp_acl_mdl_aipp * svp_acl_mdl_create_aipp(uint64_t) {
  return not_built_value<svp_acl_mdl_aipp *>(__func__, kAipp, nullptr);
}

svp_acl_error svp_acl_mdl_destroy_aipp(svp_acl_mdl_aipp *) {
  return not_built(__func__, kAipp);
}

svp_acl_error svp_acl_mdl_set_aipp_input_format(svp_acl_mdl_aipp *, svp_acl_aipp_input_format) {
  return not_built(__func__, kAipp);
}

svp_acl_error svp_acl_mdl_set_aipp_csc_params(svp_acl_mdl_aipp *, int8_t, int16_t, int16_t, int16_t, int16_t, int16_t, int16_t, int16_t, int16_t, int16_t, uint8_t, uint8_t, uint8_t, uint8_t, uint8_t, uint8_t) {
  return not_built(__func__, kAipp);
}

svp_acl_error svp_acl_mdl_set_aipp_rbuv_swap_switch(svp_acl_mdl_aipp *, int8_t) {
  return not_built(__func__, kAipp);
}

svp_acl_error svp_acl_mdl_set_aipp_ax_swap_switch(svp_acl_mdl_aipp *, int8_t) {
  return not_built(__func__, kAipp);
}

svp_acl_error svp_acl_mdl_set_aipp_src_image_size(svp_acl_mdl_aipp *, int32_t, int32_t) {
  return not_built(__func__, kAipp);
}

svp_acl_error svp_acl_mdl_set_aipp_scf_params(svp_acl_mdl_aipp *, int8_t, int32_t, int32_t, int32_t, int32_t, uint64_t) {
  return not_built(__func__, kAipp);
}

svp_acl_error svp_acl_mdl_set_aipp_crop_params(svp_acl_mdl_aipp *, int8_t, int32_t, int32_t, int32_t, int32_t, uint64_t) {
  return not_built(__func__, kAipp);
}

svp_acl_error svp_acl_mdl_set_aipp_padding_params(svp_acl_mdl_aipp *, int8_t, int32_t, int32_t, int32_t, int32_t, uint64_t) {
  return not_built(__func__, kAipp);
}

svp_acl_error svp_acl_mdl_set_aipp_dtc_pixel_mean(svp_acl_mdl_aipp *, float, float, float, float, uint64_t) {
  return not_built(__func__, kAipp);
}

svp_acl_error svp_acl_mdl_set_aipp_dtc_pixel_min(svp_acl_mdl_aipp *, float, float, float, float, uint64_t) {
  return not_built(__func__, kAipp);
}

svp_acl_error svp_acl_mdl_set_aipp_pixel_var_reci(svp_acl_mdl_aipp *, float, float, float, float, uint64_t) {
  return not_built(__func__, kAipp);
}

svp_acl_error svp_acl_mdl_set_input_aipp(uint32_t, svp_acl_mdl_dataset *, size_t, const svp_acl_mdl_aipp *) {
  return not_built(__func__, kAipp);
}

svp_acl_error svp_acl_mdl_set_output_aipp(uint32_t, svp_acl_mdl_dataset *, size_t, const svp_acl_mdl_aipp *) {
  return not_built(__func__, kAipp);
}

svp_acl_error svp_acl_mdl_set_aipp_by_input_index(uint32_t, svp_acl_mdl_dataset *, size_t, const svp_acl_mdl_aipp *) {
  return not_built(__func__, kAipp);
}

svp_acl_error svp_acl_mdl_get_input_aipp_type(uint32_t, size_t, svp_acl_mdl_aipp_type *, size_t *) {
  return not_built(__func__, kAipp);
}

svp_acl_error svp_acl_mdl_get_output_aipp_type(uint32_t, size_t, svp_acl_mdl_aipp_type *, size_t *) {
  return not_built(__func__, kAipp);
}

svp_acl_error svp_acl_mdl_get_first_aipp_info(uint32_t, size_t, svp_acl_aipp_info *) {
  return not_built(__func__, kAipp);
}

svp_acl_error svp_acl_mdl_get_last_aipp_info(uint32_t, size_t, svp_acl_aipp_info *) {
  return not_built(__func__, kAipp);
}
