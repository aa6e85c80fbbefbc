#include "compiler/aipp/insert_op_parse.h"

#include <algorithm>

#include <google/protobuf/text_format.h>

namespace svp::compiler::aipp_conf {
namespace {

namespace pb = google::protobuf;

// The locations of every field written in one block.
std::map<std::string, Location> field_locations(const pb::Message& m, const pb::TextFormat::ParseInfoTree* tree) {
  std::map<std::string, Location> out;
  std::vector<const pb::FieldDescriptor*> set;
  m.GetReflection()->ListFields(m, &set);
  for (const pb::FieldDescriptor* f : set) out[f->name()] = location_of(tree, f, f->is_repeated() ? 0 : -1);
  return out;
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
  pb::TextFormat::ParseInfoTree tree;
  SVP_RETURN_IF_ERROR(parse_text_proto(
      text, file,
      "an AIPP configuration is protobuf text: aipp_op { field: value ... }; docs/compiler.md lists the fields",
      &ops, &tree));
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
  auto text = read_bounded_file(path, kMaxConfigBytes, "--insert_op_conf");
  if (!text.ok()) return text.status();
  return parse_insert_op_conf(*text, path);
}

}  // namespace svp::compiler::aipp_conf
