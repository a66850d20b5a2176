#include <trainbench/yaml.hpp>

#include <gtest/gtest.h>

namespace trainbench::yaml {
namespace {

TEST(YamlReader, LocatesEveryNodeWithOneBasedLineAndColumn) {
    Diagnostics d;
    Node root = parse("version: 1\nparallelism:\n  tensor: 4\nlist: [a, b]\n", "r.yaml", d);
    ASSERT_FALSE(d.has_errors()) << d.format();
    ASSERT_TRUE(root.is_map());
    const Node* tensor = root.find("parallelism")->find("tensor");
    ASSERT_NE(tensor, nullptr);
    EXPECT_EQ(tensor->where.to_string(), "r.yaml:3:11");
    EXPECT_EQ(root.find_entry("parallelism")->key_where.to_string(), "r.yaml:2:1");
    EXPECT_EQ(root.find("list")->items.at(1).where.to_string(), "r.yaml:4:11");
}

TEST(YamlReader, RemembersWhetherAScalarWasQuoted) {
    Diagnostics d;
    Node root = parse("a: 2\nb: \"2\"\nc: '2'\n", "q.yaml", d);
    EXPECT_FALSE(root.find("a")->quoted);
    EXPECT_TRUE(root.find("b")->quoted);
    EXPECT_TRUE(root.find("c")->quoted);
    EXPECT_EQ(as_int(*root.find("a"), "a", d), 2);
    EXPECT_FALSE(as_int(*root.find("b"), "b", d).has_value());
    ASSERT_EQ(d.error_count(), 1u);
    EXPECT_NE(d.items()[0].format().find("q.yaml:2:4: error: 'b': wrong type: got '2' (expected an integer)"),
              std::string::npos)
        << d.items()[0].format();
}

TEST(YamlReader, ReportsASyntaxErrorAtItsPosition) {
    Diagnostics d;
    Node root = parse("a: 1\nb: [1, 2\n", "bad.yaml", d);
    EXPECT_TRUE(root.is_null());
    ASSERT_EQ(d.error_count(), 1u);
    const Diagnostic& x = d.items()[0];
    EXPECT_EQ(x.location.file, "bad.yaml");
    EXPECT_GE(x.location.line, 2);
    EXPECT_NE(x.message.find("invalid YAML"), std::string::npos);
}

TEST(YamlReader, RejectsTabsInIndentationWithTheirColumn) {
    Diagnostics d;
    Node root = parse("a:\n  b: 1\n \tc: 2\n", "tab.yaml", d);
    EXPECT_TRUE(root.is_null());
    ASSERT_EQ(d.error_count(), 1u);
    EXPECT_EQ(d.items()[0].location.to_string(), "tab.yaml:3:2");
    EXPECT_EQ(d.items()[0].message, "tab character in indentation");
}

TEST(YamlReader, RejectsDuplicateKeysNamingTheFirst) {
    Diagnostics d;
    (void)parse("nodes: 1\nsteps: 2\nnodes: 3\n", "dup.yaml", d);
    ASSERT_EQ(d.error_count(), 1u);
    EXPECT_EQ(d.items()[0].format().rfind("dup.yaml:3:1: error: 'nodes': duplicate key (first defined at line 1)", 0),
              0u)
        << d.items()[0].format();
}

TEST(YamlReader, MapReaderReportsUnknownKeysWithDidYouMean) {
    Diagnostics d;
    Node root = parse("tensor_paralel: 2\npipeline: 2\n", "p.yaml", d);
    MapReader r(root, "parallelism", d);
    int tensor = 1, pipeline = 1;
    r.read("tensor", tensor);
    r.read("pipeline", pipeline);
    r.finish();
    EXPECT_EQ(pipeline, 2);
    EXPECT_EQ(tensor, 1);
    ASSERT_EQ(d.error_count(), 1u);
    EXPECT_EQ(d.items()[0].key, "parallelism.tensor_paralel");
    EXPECT_EQ(d.items()[0].hint, "did you mean 'tensor'?");
    EXPECT_EQ(d.items()[0].location.to_string(), "p.yaml:1:1");
}

TEST(YamlReader, MapReaderChecksRangesAndTypes) {
    Diagnostics d;
    Node root = parse("nodes: 0\nsp: maybe\nratio: x\nitems: [1, two]\nname: [a]\n", "t.yaml", d);
    MapReader r(root, {}, d);
    int nodes = 5;
    bool sp = false;
    double ratio = 0;
    std::vector<int> items;
    std::string name;
    EXPECT_FALSE(r.read("nodes", nodes, 1));
    EXPECT_FALSE(r.read("sp", sp));
    EXPECT_FALSE(r.read("ratio", ratio));
    EXPECT_FALSE(r.read("items", items));
    EXPECT_FALSE(r.read("name", name));
    r.finish();
    EXPECT_EQ(nodes, 5);
    std::string all = d.format();
    EXPECT_NE(all.find("'nodes': value 0 is out of range (expected an integer >= 1)"), std::string::npos) << all;
    EXPECT_NE(all.find("'sp': wrong type: got 'maybe' (expected true or false)"), std::string::npos) << all;
    EXPECT_NE(all.find("'ratio': wrong type: got 'x' (expected a number)"), std::string::npos) << all;
    EXPECT_NE(all.find("'items[1]': wrong type: got 'two' (expected an integer)"), std::string::npos) << all;
    EXPECT_NE(all.find("'name': wrong type: got a list (expected a string)"), std::string::npos) << all;
}

TEST(YamlReader, MapReaderSuggestsEnumValues) {
    Diagnostics d;
    Node root = parse("precision: bf-16\n", "e.yaml", d);
    MapReader r(root, {}, d);
    std::string p = "bf16";
    EXPECT_FALSE(r.read_enum("precision", p, {"bf16", "fp16", "fp8"}));
    ASSERT_EQ(d.error_count(), 1u);
    EXPECT_EQ(d.items()[0].hint, "did you mean 'bf16'?");
    EXPECT_EQ(d.items()[0].expected, "one of 'bf16', 'fp16' or 'fp8'");
}

TEST(YamlReader, SuggestFallsBackToASharedPrefix) {
    EXPECT_EQ(suggest("profile", {"profiling", "metrics"}), "did you mean 'profiling'?");
    EXPECT_EQ(suggest("zzz", {"profiling", "metrics"}), "");
}

TEST(YamlReader, MergeIsDeepForMapsAndReplacesLists) {
    Diagnostics d;
    Node base = parse("a: {x: 1, y: 2}\nl: [1, 2, 3]\nkeep: k\n", "base.yaml", d);
    Node over = parse("a: {y: 20, z: 30}\nl: [9]\n", "over.yaml", d);
    merge(base, over);
    EXPECT_EQ(base.find("a")->find("x")->scalar, "1");
    EXPECT_EQ(base.find("a")->find("y")->scalar, "20");
    EXPECT_EQ(base.find("a")->find("y")->where.file, "over.yaml");
    EXPECT_EQ(base.find("a")->find("x")->where.file, "base.yaml");
    EXPECT_EQ(base.find("a")->find("z")->scalar, "30");
    ASSERT_EQ(base.find("l")->items.size(), 1u);
    EXPECT_EQ(base.find("keep")->scalar, "k");
}

TEST(YamlReader, ParsesOverrideValuesLocatedAtTheOverride) {
    Diagnostics d;
    SourceLocation where;
    where.override_text = "metrics.window=[5,20]";
    Node v = parse_value("[5,20]", where, d);
    ASSERT_TRUE(v.is_sequence());
    EXPECT_EQ(v.items.size(), 2u);
    EXPECT_EQ(v.items[1].where.to_string(), "-s metrics.window=[5,20]");
    Node empty = parse_value("", where, d);
    EXPECT_TRUE(empty.is_scalar());
    EXPECT_EQ(empty.scalar, "");
    Node bad = parse_value("[5,20", where, d);
    EXPECT_TRUE(bad.is_null());
    EXPECT_EQ(d.error_count(), 1u);
}

// Plain words skip the YAML parser: each must read exactly as the parser reads it (the same
// text padded with blanks goes through the parser, which trims them).
TEST(YamlReader, PlainWordOverridesReadAsTheYamlParserReadsThem) {
    SourceLocation where;
    where.override_text = "k=v";
    for (const char* text :
         {"8",    "-3", "0.5",  "1e-05", ".inf", "true", "no", "gpt3-5b", "a.b_c", "v1.2.3", "null",
          "Null", "~",  "NULL", "nullx", "0x1F", "_x",   "-",  "--x",     "12:30", "#c",     "a b"}) {
        Diagnostics d1, d2;
        Node fast = parse_value(text, where, d1);
        Node slow = parse_value(std::string(" ") + text + " ", where, d2);
        SCOPED_TRACE(text);
        EXPECT_EQ(fast.kind, slow.kind);
        EXPECT_EQ(fast.scalar, slow.scalar);
        EXPECT_EQ(fast.quoted, slow.quoted);
        EXPECT_EQ(fast.where.to_string(), slow.where.to_string());
        EXPECT_EQ(d1.error_count(), d2.error_count());
    }
    Diagnostics d;
    EXPECT_TRUE(parse_value("null", where, d).is_null());
    EXPECT_FALSE(parse_value("8", where, d).quoted);
}

TEST(YamlReader, ConvertsToTypedJson) {
    Diagnostics d;
    Node root = parse("i: 3\nf: 1.5\nb: true\ns: \"3\"\nn: null\nl: [a, 1]\n", "j.yaml", d);
    nlohmann::ordered_json j = to_json(root);
    EXPECT_EQ(j["i"], 3);
    EXPECT_EQ(j["f"], 1.5);
    EXPECT_EQ(j["b"], true);
    EXPECT_EQ(j["s"], "3");
    EXPECT_TRUE(j["n"].is_null());
    EXPECT_EQ(j["l"][1], 1);
    EXPECT_EQ(j.begin().key(), "i");
}

TEST(YamlReader, ReportsAMissingFileAtTheReferringPosition) {
    Diagnostics d;
    SourceLocation from{"r.yaml", 3, 5, {}};
    Node n = parse_file("/nonexistent/x.yaml", "x.yaml", d, from);
    EXPECT_TRUE(n.is_null());
    ASSERT_EQ(d.error_count(), 1u);
    EXPECT_EQ(d.items()[0].location.to_string(), "r.yaml:3:5");
}

}  // namespace
}  // namespace trainbench::yaml

TEST(YamlReader, AnAliasBombIsRefusedBeforeItIsExpanded) {
    // 6 levels of 10 aliases: a million values from a few hundred bytes.
    std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (int i = 1; i <= 6; ++i) {
        text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
        for (int j = 0; j < 10; ++j) text += (j ? ", *a" : "*a") + std::to_string(i - 1);
        text += "]\n";
    }
    trainbench::Diagnostics d;
    trainbench::yaml::Node n = trainbench::yaml::parse(text, "bomb.yaml", d);
    EXPECT_TRUE(n.is_null());
    ASSERT_TRUE(d.has_errors());
    EXPECT_NE(d.format().find("bomb.yaml:1:1: error: the document expands to more than 100000 values"),
              std::string::npos)
        << d.format();
    // The same aliases a few times over are fine.
    trainbench::Diagnostics ok;
    n = trainbench::yaml::parse("a: &a [1, 2]\nb: *a\nc: *a\n", "ok.yaml", ok);
    EXPECT_FALSE(ok.has_errors()) << ok.format();
    EXPECT_EQ(n.find("c")->items.size(), 2u);
}

TEST(YamlReader, ADocumentLargerThanTheLimitIsNotParsed) {
    std::string text(trainbench::yaml::k_max_document_bytes + 1, '#');
    trainbench::Diagnostics d;
    (void)trainbench::yaml::parse(text, "big.yaml", d);
    EXPECT_NE(d.format().find("big.yaml:1:1: error: the document is 4194305 bytes"), std::string::npos) << d.format();
}
