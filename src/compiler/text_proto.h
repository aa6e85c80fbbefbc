// Reading the compiler's protobuf text files (--insert_op_conf, --gfpq_param_file) with
// the line and column of the first error, pointed at the name the user has to edit.
#pragma once

#include <cstddef>
#include <string>

#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>

#include "common/status.h"

namespace svp::compiler {

// 1-based line and column; 0 = unknown.
struct Location {
  int line = 0;
  int column = 0;
};

// The bytes of `path`, at most `max_bytes` + 1 of them (so that an oversized file is
// reported by the parser's size check, not loaded). err::kInvalidFile "`flag`=path: ..."
// when it cannot be read.
Result<std::string> read_bounded_file(const std::string& path, std::size_t max_bytes, const std::string& flag);

// Where `field` (element `index` of a repeated field, -1 otherwise) was written, as the
// parser recorded it in `tree` (null: unknown).
Location location_of(const google::protobuf::TextFormat::ParseInfoTree* tree,
                     const google::protobuf::FieldDescriptor* field, int index);

// Parses `text` into `message` (cleared first), recording field locations in `tree` when
// given. A syntax error, an unknown field or an unknown enum name is err::kParseFile
// "file:line:column: protobuf's message (`hint`)". Missing required fields are accepted
// (their defaults apply; the caller checks what it needs), as files written by hand omit
// them.
Status parse_text_proto(const std::string& text, const std::string& file, const std::string& hint,
                        google::protobuf::Message* message,
                        google::protobuf::TextFormat::ParseInfoTree* tree = nullptr);

}  // namespace svp::compiler
