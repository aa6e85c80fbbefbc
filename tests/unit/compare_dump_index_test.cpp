// index.jsonl lines as the dumper writes them, and malformed lines naming file:line.
#include "svp_compare/dump_index.h"

#include <gtest/gtest.h>

namespace svp::compare {
namespace {

const char* kLine =
    R"({"model":"m","model_id":1,"execution":0,"batch_item":0,"layer":"conv1","op":"Conv","io":"output",)"
    R"("index":0,"tensor":"t","dtype":"int8","dims":[1,2],"scale":[0.5,0.25],"zero_point":[0,1],"axis":1,)"
    R"("file":"conv1.output.0.npy"})";

TEST(CompareDumpIndex, ParsesADumperLine) {
  const DumpIndexResult r = ParseDumpIndex(std::string(kLine) + "\n\n", "index.jsonl");
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.entries.size(), 1u);
  const DumpEntry& e = r.entries[0];
  EXPECT_EQ(e.layer, "conv1");
  EXPECT_FALSE(e.input);
  EXPECT_EQ(e.dims, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(e.scale, (std::vector<double>{0.5, 0.25}));
  EXPECT_EQ(e.zero_point, (std::vector<double>{0, 1}));
  EXPECT_EQ(e.axis, 1);
  ASSERT_TRUE(e.file.has_value());
  EXPECT_EQ(*e.file, "conv1.output.0.npy");
}

TEST(CompareDumpIndex, MalformedLinesNameFileAndLine) {
  const DumpIndexResult bad_json = ParseDumpIndex(std::string(kLine) + "\n{oops\n", "d/index.jsonl");
  EXPECT_FALSE(bad_json.ok);
  EXPECT_EQ(bad_json.error, "d/index.jsonl:2: not valid JSON");
  const DumpIndexResult no_layer = ParseDumpIndex(R"({"model":"m"})", "x");
  EXPECT_FALSE(no_layer.ok);
  EXPECT_NE(no_layer.error.find("x:1: key 'model_id'"), std::string::npos) << no_layer.error;
}

}  // namespace
}  // namespace svp::compare
