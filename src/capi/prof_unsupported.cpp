// Functions of svp_acl_prof.h whose capability is not built yet. Each is exported (so vendor
// applications link), fails with SVP_ACL_ERROR_FEATURE_UNSUPPORTED and leaves a message
// naming the missing feature. tests/unit/unsupported_api_test.cpp lists them; delete an
// entry here when its feature lands.
#include "acl/svp_acl_prof.h"
#include "capi/not_built.h"

using namespace svp::capi;  // NOLINT(google-build-using-namespace)

svp_acl_error svp_acl_prof_init(const char *, size_t) {
  return not_built(__func__, kProfiling);
}

svp_acl_error svp_acl_prof_finalize(void) {
  return not_built(__func__, kProfiling);
}

svp_acl_error svp_acl_prof_start(const svp_acl_prof_config *) {
  return not_built(__func__, kProfiling);
}

svp_acl_prof_config * svp_acl_prof_create_config(const uint32_t *, uint32_t, svp_acl_prof_aicore_metrics, const svp_acl_prof_aicore_events *, uint64_t) {
  return not_built_value<svp_acl_prof_config *>(__func__, kProfiling, nullptr);
}

svp_acl_error svp_acl_prof_destroy_config(const svp_acl_prof_config *) {
  return not_built(__func__, kProfiling);
}

svp_acl_error svp_acl_prof_stop(const svp_acl_prof_config *) {
  return not_built(__func__, kProfiling);
}

svp_acl_error svp_acl_prof_model_subscribe(uint32_t, const svp_acl_prof_subscribe_config *) {
  return not_built(__func__, kProfiling);
}

svp_acl_error svp_acl_prof_model_unsubscribe(uint32_t) {
  return not_built(__func__, kProfiling);
}

svp_acl_prof_subscribe_config * svp_acl_prof_create_subscribe_config(int8_t, svp_acl_prof_aicore_metrics, const void *) {
  return not_built_value<svp_acl_prof_subscribe_config *>(__func__, kProfiling, nullptr);
}

svp_acl_error svp_acl_prof_destroy_subscribe_config(const svp_acl_prof_subscribe_config *) {
  return not_built(__func__, kProfiling);
}

svp_acl_error svp_acl_prof_get_op_desc_size(size_t *) {
  return not_built(__func__, kProfiling);
}

svp_acl_error svp_acl_prof_get_op_num(const void *, size_t, uint32_t *) {
  return not_built(__func__, kProfiling);
}

svp_acl_error svp_acl_prof_get_op_type_len(const void *, size_t, uint32_t, size_t *) {
  return not_built(__func__, kProfiling);
}

svp_acl_error svp_acl_prof_get_op_type(const void *, size_t, uint32_t, char *, size_t) {
  return not_built(__func__, kProfiling);
}

svp_acl_error svp_acl_prof_get_op_name_len(const void *, size_t, uint32_t, size_t *) {
  return not_built(__func__, kProfiling);
}

svp_acl_error svp_acl_prof_get_op_name(const void *, size_t, uint32_t, char *, size_t) {
  return not_built(__func__, kProfiling);
}

uint64_t svp_acl_prof_get_op_start(const void *, size_t, uint32_t) {
  return not_built_value<uint64_t>(__func__, kProfiling, 0);
}

uint64_t svp_acl_prof_get_op_end(const void *, size_t, uint32_t) {
  return not_built_value<uint64_t>(__func__, kProfiling, 0);
}

uint64_t svp_acl_prof_get_op_duration(const void *, size_t, uint32_t) {
  return not_built_value<uint64_t>(__func__, kProfiling, 0);
}

size_t svp_acl_prof_get_model_id(const void *, size_t, uint32_t) {
  return not_built_value<size_t>(__func__, kProfiling, 0);
}
