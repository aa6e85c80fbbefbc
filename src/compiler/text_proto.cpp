#include "compiler/text_proto.h"

#include <algorithm>
#include <fstream>

#include <google/protobuf/io/tokenizer.h>

namespace svp::compiler {
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

// The text of 1-based line `n` ("" past the end).
std::string line_of(const std::string& text, int n) {
  std::size_t start = 0;
  for (int l = 1; l < n && start != std::string::npos; ++l) {
    start = text.find('\n', start);
    if (start != std::string::npos) ++start;
  }
  if (start == std::string::npos) return {};
  return text.substr(start, text.find('\n', start) - start);
}

// protobuf reports an unknown field or enum name where its tokenizer stopped, after the
// name (on the next line when the name ends one); point at the name itself (the last "X"
// the message quotes, before that position), which is what the user edits.
Location at_quoted_name(const std::string& text, Location at, const std::string& message) {
  const auto close = message.find("\" for field");
  const std::string key = close != std::string::npos ? "value of \"" : "field named \"";
  const auto open = message.find(key);
  if (open == std::string::npos) return at;
  const auto begin = open + key.size();
  const auto end = message.find('"', begin);
  if (end == std::string::npos || end == begin) return at;
  const std::string name = message.substr(begin, end - begin);
  for (int n = at.line; n >= std::max(1, at.line - 1); --n) {
    const std::string line = line_of(text, n);
    const std::size_t limit =
        n == at.line ? std::min<std::size_t>(line.size(), static_cast<std::size_t>(std::max(at.column - 1, 0)))
                     : line.size();
    const auto pos = line.rfind(name, limit);
    if (pos != std::string::npos && pos + name.size() <= limit) return Location{n, static_cast<int>(pos) + 1};
  }
  return at;
}

}  // namespace

Result<std::string> read_bounded_file(const std::string& path, std::size_t max_bytes, const std::string& flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(err::kInvalidFile, "{}={}: cannot open the file", flag, path);
  std::string bytes(max_bytes + 1, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  if (in.bad()) return Error(err::kInvalidFile, "{}={}: read error", flag, path);
  return bytes;
}

Location location_of(const pb::TextFormat::ParseInfoTree* tree, const pb::FieldDescriptor* field, int index) {
  if (tree == nullptr) return {};
  const pb::TextFormat::ParseLocation l = tree->GetLocation(field, index);
  if (l.line < 0) return {};
  return Location{l.line + 1, l.column + 1};
}

Status parse_text_proto(const std::string& text, const std::string& file, const std::string& hint,
                        pb::Message* message, pb::TextFormat::ParseInfoTree* tree) {
  FirstError errors;
  pb::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  parser.AllowPartialMessage(true);
  if (tree != nullptr) parser.WriteLocationsTo(tree);
  message->Clear();
  if (parser.ParseFromString(text, message) && !errors.seen()) return Status::Ok();
  if (!errors.seen()) return Error(err::kParseFile, "{}: not valid protobuf text ({})", file, hint);
  const Location at = at_quoted_name(text, errors.at(), errors.message());
  return Error(err::kParseFile, "{}:{}:{}: {} ({})", file, at.line, at.column, errors.message(), hint);
}

}  // namespace svp::compiler
