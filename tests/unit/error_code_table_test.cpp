// The one table of status codes (include/svp/acl/error_codes.def) against every copy that
// cannot be generated from it: the vendor's literal #defines in acl/svp_acl_base.h, the C99
// header check (tests/c99/all_headers.c) and, when present, the specification's table.
// And the lookups generated from the table (svp::err, svp::acl::errc/code_name/
// code_message) against the table itself.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "acl/svp_acl_base.h"
#include "capi/guard.h"
#include "common/status.h"
#include "svp/acl/error.hpp"

namespace svp {
namespace {

struct Row {
  std::string macro;  // SVP_ACL_ERROR_...
  std::string snake;
  std::string camel;
  int value = 0;
  std::string message;
  int err_constant = 0;  // svp::err::k<Camel>
  int errc_value = 0;    // svp::acl::errc::<snake>
};

std::vector<Row> table() {
  return {
#define SVP_ACL_ERROR_CODE(MACRO, snake, Camel, value, message) \
  Row{"SVP_ACL_ERROR_" #MACRO, #snake, #Camel, value, message, err::k##Camel, static_cast<int>(acl::errc::snake)},
#include "svp/acl/error_codes.def"
  };
}

std::map<std::string, int> table_values() {
  std::map<std::string, int> out;
  for (const Row& r : table()) out[r.macro] = r.value;
  return out;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every `pattern` match in `text`: group 1 = macro name, group 2 = value.
std::map<std::string, int> codes_in(const std::string& text, const std::regex& pattern) {
  std::map<std::string, int> out;
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) {
    out[(*it)[1].str()] = std::stoi((*it)[2].str());
  }
  return out;
}

TEST(ErrorCodeTable, ThePublicHeaderDefinesExactlyTheTablesCodes) {
  const std::string header = read(std::string(SVP_SOURCE_DIR) + "/include/acl/svp_acl_base.h");
  ASSERT_FALSE(header.empty());
  auto defined = codes_in(header, std::regex(R"(#define\s+(SVP_ACL_ERROR_\w+)\s+(\d+))"));
  ASSERT_EQ(defined.erase("SVP_ACL_ERROR_NONE"), 1u) << "SVP_ACL_ERROR_NONE (success) is no longer defined";
  EXPECT_EQ(defined, table_values()) << "acl/svp_acl_base.h and svp/acl/error_codes.def disagree: add the code to "
                                        "both, with the vendor's name and value";
}

TEST(ErrorCodeTable, TheC99HeaderCheckCoversEveryCode) {
  const std::string check = read(std::string(SVP_SOURCE_DIR) + "/tests/c99/all_headers.c");
  ASSERT_FALSE(check.empty());
  const auto checked = codes_in(check, std::regex(R"(SVP_T_CHECK\((SVP_ACL_ERROR_\w+)\s*==\s*(\d+)\))"));
  std::map<std::string, int> expected = table_values();
  expected["SVP_ACL_ERROR_NONE"] = 0;
  EXPECT_EQ(checked, expected);
}

TEST(ErrorCodeTable, TheSpecificationListsTheSameCodes) {
  const std::string spec = read(std::string(SVP_SOURCE_DIR) + "/../shared/spec/svp_acl_api.md");
  if (spec.empty()) GTEST_SKIP() << "the specification (../shared/spec/svp_acl_api.md) is not next to the sources";
  auto listed = codes_in(spec, std::regex(R"(\|\s*(SVP_ACL_ERROR_\w+)\s*\|\s*(\d+)\s*\|)"));
  listed.erase("SVP_ACL_ERROR_NONE");  // "SVP_ACL_ERROR_NONE / SVP_ACL_SUCCESS | 0" does not match anyway
  EXPECT_EQ(listed, table_values());
}

TEST(ErrorCodeTable, ValuesAndNamesAreUnique) {
  std::set<int> values;
  std::set<std::string> names;
  for (const Row& r : table()) {
    EXPECT_TRUE(values.insert(r.value).second) << r.macro;
    EXPECT_TRUE(names.insert(r.snake).second) << r.snake;
    EXPECT_NE(r.value, 0) << r.macro << ": 0 is success, not an error";
    EXPECT_FALSE(r.message.empty()) << r.macro;
  }
}

TEST(ErrorCodeTable, CoreConstantsAndCppEnumCarryTheTablesValues) {
  for (const Row& r : table()) {
    EXPECT_EQ(r.err_constant, r.value) << "svp::err::k" << r.camel;
    EXPECT_EQ(r.errc_value, r.value) << "svp::acl::errc::" << r.snake;
  }
  EXPECT_EQ(err::kNone, SVP_ACL_SUCCESS);
}

TEST(ErrorCodeTable, NameAndMessageLookupsComeFromTheTable) {
  for (const Row& r : table()) {
    ASSERT_NE(err::name(r.value), nullptr) << r.macro;
    EXPECT_EQ(err::name(r.value), r.macro);
    ASSERT_NE(err::message(r.value), nullptr) << r.macro;
    EXPECT_EQ(err::message(r.value), r.message);
    EXPECT_EQ(acl::code_name(r.value), r.macro + " (" + std::to_string(r.value) + ")");
    EXPECT_EQ(acl::code_message(r.value), r.message);
    EXPECT_EQ(acl::category().message(r.value), acl::code_name(r.value));
  }
  EXPECT_STREQ(err::name(0), "SVP_ACL_SUCCESS");
  EXPECT_EQ(err::name(42), nullptr);
  EXPECT_EQ(err::message(42), nullptr);
  EXPECT_EQ(acl::code_name(42), "svp_acl error 42");
  EXPECT_STREQ(acl::code_message(42), "unknown svp_acl error");
}

TEST(ErrorCodeTable, AnErrcConvertsToAnErrorCodeOfTheSvpAclCategory) {
  const std::error_code ec = acl::errc::rt_report_timeout;
  EXPECT_EQ(ec.value(), SVP_ACL_ERROR_RT_REPORT_TIMEOUT);
  EXPECT_EQ(&ec.category(), &acl::category());
}

TEST(ErrorCodeTable, AFailureWithoutTextReportsTheTablesMeaning) {
  EXPECT_EQ(capi::guard("svp_acl_test_fn", [] { return Status(err::kStorageOverLimit, ""); }),
            SVP_ACL_ERROR_STORAGE_OVER_LIMIT);
  EXPECT_STREQ(svp_acl_get_recent_err_msg(), "svp_acl_test_fn: resource count limit exceeded (error 300000)");
  EXPECT_EQ(capi::guard("svp_acl_test_fn", [] { return Status(err::kStorageOverLimit, "42 streams"); }),
            SVP_ACL_ERROR_STORAGE_OVER_LIMIT);
  EXPECT_STREQ(svp_acl_get_recent_err_msg(), "svp_acl_test_fn: 42 streams (error 300000)");
}

}  // namespace
}  // namespace svp
