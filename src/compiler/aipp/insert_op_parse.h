// Reading an --insert_op_conf file: protobuf text format against insert_op.proto (both
// vendor dialects), with the line and column of every syntax error and of every field, so
// that the semantic checks (insert_op_convert.h) can point at the line to fix too.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "compiler/aipp/insert_op.pb.h"
#include "compiler/text_proto.h"

namespace svp::compiler::aipp_conf {

using compiler::Location;

// One aipp_op (or aapp_op) block as written.
struct AippBlock {
  svp::atc::AippOpParams params;
  std::string file;
  Location at;                              // the block's keyword
  std::map<std::string, Location> fields;   // each written field (its first value)

  // "file:line:column" of `field` when written, else of the block.
  std::string where(const std::string& field = {}) const;
};

struct InsertOpConfig {
  std::string file;
  std::vector<AippBlock> blocks;            // in file order
  std::vector<Location> multi_shape_ops;    // multi_shape_op blocks (not supported)
};

// Larger files are refused before parsing: a real configuration is a few hundred bytes.
inline constexpr std::size_t kMaxConfigBytes = 1 << 20;

// Parses `text`; `file` names it in messages. Syntax errors, unknown fields and unknown
// enum names are err::kParseFile "file:line:column: message".
Result<InsertOpConfig> parse_insert_op_conf(const std::string& text, const std::string& file);

// Reads and parses `path` (err::kInvalidFile when it cannot be read).
Result<InsertOpConfig> read_insert_op_conf(const std::string& path);

}  // namespace svp::compiler::aipp_conf
