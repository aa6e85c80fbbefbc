#include "compiler/aipp/insert_op_parse.h"

#include <algorithm>
#include <fstream>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

namespace svp::compiler::aipp_conf {
namespace {

namespace pb = google::protobuf;

// Keeps the first error only: after a syntax error the tokenizer's later complaints are
// consequences of the first, and one precise message is what the user acts on.
class FirstError : public pb::io::ErrorCollector {
 public:
  void AddError(int line, pb::io::ColumnNumber column, const std::string& message) override {
    if (!seen_) {
      seen_ = true;
      at_ = Location{line + 1, column + 1};
      message_ = message;
    }
  }
  void AddWarning(int, pb::io::ColumnNumber, const std::string&) override {}

  bool seen() const { return seen_; }
  const Location& at() const { return at_; }
  const std::string& message() const { return message_; }

 private:
  bool seen_ = false;
  Location at_;
  std::string message_;
};

Location location_of(const pb::TextFormat::ParseInfoTree* tree, const pb::FieldDescriptor* field, int index) {
  if (tree == nullptr) return {};
  const pb::TextFormat::ParseLocation l = tree->GetLocation(field, index);
  if (l.line < 0) return {};
  return Location{l.line + 1, l.column + 1};
}

// The locations of every field written in one block.
std::map<std::string, Location> field_locations(const pb::Message& m, const pb::TextFormat::ParseInfoTree* tree) {
  std::map<std::string, Location> out;
  std::vector<const pb::FieldDescriptor*> set;
  m.GetReflection()->ListFields(m, &set);
  for (const pb::FieldDescriptor* f : set) out[f->name()] = location_of(tree, f, f->is_repeated() ? 0 : -1);
  return out;
}

// protobuf reports an unknown field or enum name where its tokenizer stopped, after the
// name; point at the name itself (the last "X" the message quotes, on that line, before
// that position), which is what the user edits.
Location at_quoted_name(const std::string& text, Location at, const std::string& message) {
  const auto close = message.find("\" for field");
  const std::string key = close != std::string::npos ? "value of \"" : "field named \"";
  const auto open = message.find(key);
  if (open == std::string::npos) return at;
  const auto begin = open + key.size();
  const auto end = message.find('"', begin);
  if (end == std::string::npos || end == begin) return at;
  const std::string name = message.substr(begin, end - begin);
  std::size_t line_start = 0;
  for (int l = 1; l < at.line && line_start != std::string::npos; ++l) {
    line_start = text.find('\n', line_start);
    if (line_start != std::string::npos) ++line_start;
  }
  if (line_start == std::string::npos) return at;
  const std::string line = text.substr(line_start, text.find('\n', line_start) - line_start);
  const std::size_t limit = std::min<std::size_t>(line.size(), static_cast<std::size_t>(std::max(at.column - 1, 0)));
  const auto pos = line.rfind(name, limit);
  if (pos == std::string::npos || pos + name.size() > limit) return at;
  return Location{at.line, static_cast<int>(pos) + 1};
}

}  // namespace

std::string AippBlock::where(const std::string& field) const {
  Location l = at;
  if (!field.empty()) {
    auto it = fields.find(field);
    if (it != fields.end() && it->second.line > 0) l = it->second;
  }
  return fmt::format("{}:{}:{}", file, l.line, l.column);
}

Result<InsertOpConfig> parse_insert_op_conf(const std::string& text, const std::string& file) {
  if (text.size() > kMaxConfigBytes) {
    return Error(err::kInvalidFileSize, "{}: {} bytes; an AIPP configuration is at most {} bytes", file, text.size(),
                 kMaxConfigBytes);
  }
  svp::atc::InsertNewOps ops;
  FirstError errors;
  pb::TextFormat::ParseInfoTree tree;
  pb::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  parser.WriteLocationsTo(&tree);
  if (!parser.ParseFromString(text, &ops) || errors.seen()) {
    if (!errors.seen()) return Error(err::kParseFile, "{}: not a valid AIPP configuration", file);
    const Location at = at_quoted_name(text, errors.at(), errors.message());
    return Error(err::kParseFile,
                 "{}:{}:{}: {} (an AIPP configuration is protobuf text: aipp_op {{ field: value ... }}; "
                 "docs/compiler.md lists the fields)",
                 file, at.line, at.column, errors.message());
  }
  InsertOpConfig cfg;
  cfg.file = file;
  const pb::Descriptor* d = ops.GetDescriptor();
  // aipp_op and aapp_op blocks in the order they were written.
  for (const char* name : {"aipp_op", "aapp_op"}) {
    const pb::FieldDescriptor* f = d->FindFieldByName(name);
    const auto& list = std::string(name) == "aipp_op" ? ops.aipp_op() : ops.aapp_op();
    for (int i = 0; i < list.size(); ++i) {
      AippBlock b;
      b.params = list.Get(i);
      b.file = file;
      b.at = location_of(&tree, f, i);
      b.fields = field_locations(b.params, tree.GetTreeForNested(f, i));
      cfg.blocks.push_back(std::move(b));
    }
  }
  std::stable_sort(cfg.blocks.begin(), cfg.blocks.end(), [](const AippBlock& a, const AippBlock& b) {
    return a.at.line != b.at.line ? a.at.line < b.at.line : a.at.column < b.at.column;
  });
  const pb::FieldDescriptor* ms = d->FindFieldByName("multi_shape_op");
  for (int i = 0; i < ops.multi_shape_op_size(); ++i) cfg.multi_shape_ops.push_back(location_of(&tree, ms, i));
  return cfg;
}

Result<InsertOpConfig> read_insert_op_conf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(err::kInvalidFile, "--insert_op_conf={}: cannot open the file", path);
  // Read at most one byte more than allowed so an oversized file is reported, not loaded.
  std::string text(kMaxConfigBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (in.bad()) return Error(err::kInvalidFile, "--insert_op_conf={}: read error", path);
  return parse_insert_op_conf(text, path);
}

}  // namespace svp::compiler::aipp_conf
