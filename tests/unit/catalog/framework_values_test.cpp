// FrameworkProfile's value rules: a word as the upstream parser converts it, a config value
// against the type of the upstream default, on the shipped (generated) profiles.
#include <trainbench/catalog.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace trainbench::catalog {
namespace {

std::shared_ptr<const FrameworkProfile> profile(const char* framework, const char* version) {
    static const Catalog cat = Catalog::load({fs::path(TRAINBENCH_SOURCE_DIR) / "recipes"});
    auto p = cat.find_framework(framework, version);
    if (!p) throw std::runtime_error(std::string("no profile ") + framework + " " + version);
    return p;
}

std::string word_problem(const FrameworkProfile& p, const char* key, const char* word) {
    auto bad = p.check_word(key, word);
    return bad ? bad->message : "";
}

}  // namespace

TEST(FrameworkValues, NcclTestsReadsSizesAndIntegersAsItsParserDoes) {
    auto p = profile("nccl-tests", "2.19.6");
    EXPECT_TRUE(p->getopt);
    for (const char* ok : {"8", "8G", "8g", "1.5M", "128K", "8GB", " 8"})
        EXPECT_EQ(word_problem(*p, "-b", ok), "") << ok;
    EXPECT_NE(word_problem(*p, "-b", "8X"), "");
    EXPECT_NE(word_problem(*p, "--maxbytes", "big"), "");
    for (const char* ok : {"1", "0x10", "010", "-1"}) EXPECT_EQ(word_problem(*p, "-g", ok), "") << ok;
    EXPECT_EQ(word_problem(*p, "-g", "notanumber"),
              "'notanumber' is not an integer: -g is read with strtol(), which would not read it whole");
    EXPECT_NE(word_problem(*p, "-n", "20x"), "");
    EXPECT_EQ(word_problem(*p, "-o", "sum"), "");
    auto op = p->check_word("-o", "summ");
    ASSERT_TRUE(op);
    EXPECT_EQ(op->hint, "did you mean 'sum'?");
    EXPECT_EQ(word_problem(*p, "-g", "${GPUS}"), "") << "a shell variable is a run-time value";
}

TEST(FrameworkValues, ArgparseTypesAreThoseOfPythonIntAndFloat) {
    auto p = profile("megatron-lm", "d98e8a64");
    for (const char* ok : {"32", "+4", "1_000", " 7 "}) EXPECT_EQ(word_problem(*p, "--num-layers", ok), "") << ok;
    for (const char* bad : {"banana", "1e3", "4.0", "0x10", ""})
        EXPECT_NE(word_problem(*p, "--num-layers", bad), "") << bad;
    for (const char* ok : {"1e-4", ".001", "6.0e-5", "inf", "3", "1_0.5"})
        EXPECT_EQ(word_problem(*p, "--lr", ok), "") << ok;
    EXPECT_NE(word_problem(*p, "--lr", "fast"), "");
    ASSERT_NE(p->rule("--sequence-parallel"), nullptr);
    EXPECT_FALSE(p->rule("--sequence-parallel")->takes_value());
    const ValueRule* recipe = p->rule("--fp8-recipe");
    ASSERT_NE(recipe, nullptr);
    EXPECT_EQ(recipe->choices, (std::vector<std::string>{"tensorwise", "delayed", "mxfp8", "blockwise", "custom"}));
    EXPECT_EQ(p->check_word("--fp8-recipe", "mxfp4")->hint, "did you mean 'mxfp8'?");
    EXPECT_EQ(word_problem(*p, "--moe-layer-freq", "[0]*3+[1]*58"), "") << "a converter the check does not know";
    EXPECT_EQ(p->rule("--rampup-batch-size")->nargs, "3");
}

TEST(FrameworkValues, NemoConfigValuesAgainstTheUpstreamDefaults) {
    auto p = profile("nemo", "23.07");
    using json = nlohmann::ordered_json;
    EXPECT_FALSE(p->check_config("model.micro_batch_size", 4));
    EXPECT_TRUE(p->check_config("model.micro_batch_size", "banana"));
    EXPECT_TRUE(p->check_config("model.micro_batch_size", 4.5));
    EXPECT_FALSE(p->check_config("model.optim.lr", 3)) << "an int is a number";
    EXPECT_TRUE(p->check_config("model.optim.lr", true));
    EXPECT_FALSE(p->check_config("model.tokenizer.vocab_file", nullptr)) << "its default is null";
    EXPECT_TRUE(p->check_config("model.micro_batch_size", nullptr));
    EXPECT_FALSE(p->check_config("model.micro_batch_size", "${multiply:2,2}")) << "an interpolation";
    for (json ok : {json("bf16"), json(16), json("16-mixed"), json("bf16-mixed")})
        EXPECT_FALSE(p->check_config("trainer.precision", ok)) << ok.dump();
    auto bad = p->check_config("trainer.precision", "bf17");
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->hint, "did you mean 'bf16'?");
    EXPECT_TRUE(p->check_config("model.activation", "silu"));
    EXPECT_FALSE(p->check_config("model.activation", "swiglu"));
    EXPECT_FALSE(profile("nemo", "22.06")->check_config("trainer.precision", 16));
    EXPECT_TRUE(profile("nemo", "22.06")->check_config("trainer.precision", "bf16-mixed")) << "Lightning 1.x";
}

TEST(FrameworkValues, AValuesBlockIsReadWhereverItIsAndABadLineIsLocated) {
    fs::path dir = fs::temp_directory_path() / ("tb-values-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    // last in the file (read without the YAML parser) and in the middle (read by it): the same rules
    std::ofstream(dir / "x-1.yaml") << "framework: x\nversion: \"1\"\nkeys: [--a, --b]\nvalues: |\n"
                                       "  --a int nargs=2\n  --b action=store_true\n";
    std::ofstream(dir / "y-1.yaml") << "framework: y\nversion: \"1\"\nvalues: |\n  --a int nargs=2\n"
                                       "  --b action=store_true\nkeys: [--a, --b]\n";
    std::ofstream(dir / "z-1.yaml") << "framework: z\nversion: \"1\"\nkeys: [--a]\nvalues: |\n  --a\n";
    Catalog cat;
    for (const char* f : {"x-1.yaml", "y-1.yaml", "z-1.yaml"}) cat.add_framework_file(dir / f);
    for (const char* name : {"x", "y"}) {
        auto p = cat.find_framework(name, "1");
        ASSERT_TRUE(p) << name;
        ASSERT_NE(p->rule("--a"), nullptr) << name;
        EXPECT_EQ(p->rule("--a")->nargs, "2");
        EXPECT_FALSE(p->rule("--b")->takes_value());
    }
    try {
        (void)cat.find_framework("z", "1");
        ADD_FAILURE() << "a line without a rule was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(e.diagnostics().format().find("z-1.yaml:5:3: error: 'values': '--a' is not"), std::string::npos)
            << e.diagnostics().format();
    }
    fs::remove_all(dir);
}

}  // namespace trainbench::catalog
