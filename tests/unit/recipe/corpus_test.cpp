// The broken-recipe corpus: tests/data/recipes/invalid/<what_is_wrong>.yaml, each with
// <what_is_wrong>.expected holding lines that must all appear in the formatted diagnostics
// (of the recipe's validation and, as `trainbench validate` does, of its launch lines).
// A first line "# -s key=value" in a recipe is an override to apply.
#include "test_support.hpp"

#include <trainbench/render.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace trainbench::recipe {
namespace {

using test::data_dir;

std::vector<std::string> overrides_of(const fs::path& file) {
    std::vector<std::string> out;
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line) && line.rfind("# -s ", 0) == 0) out.push_back(line.substr(5));
    return out;
}

std::vector<std::string> expected_lines(const fs::path& file) {
    std::vector<std::string> out;
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line))
        if (!line.empty()) out.push_back(line);
    return out;
}

std::vector<fs::path> corpus() {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(data_dir() / "invalid"))
        if (e.path().extension() == ".yaml") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

// $TRAINBENCH_BINARY, else the trainbench next to this test's build directory (build/tests/..).
std::string cli_binary() {
    if (const char* env = std::getenv("TRAINBENCH_BINARY"); env && *env && fs::exists(env)) return env;
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        fs::path candidate = self.parent_path().parent_path() / "trainbench";
        if (fs::exists(candidate, ec)) return candidate.string();
    }
    return {};
}

TEST(InvalidCorpus, HasAtLeastFortyCasesEachWithItsExpectedMessage) {
    std::vector<fs::path> files = corpus();
    EXPECT_GE(files.size(), 40u);
    for (const fs::path& f : files) {
        fs::path expected = fs::path(f).replace_extension(".expected");
        EXPECT_TRUE(fs::exists(expected)) << expected;
        EXPECT_FALSE(expected_lines(expected).empty()) << expected;
    }
}

TEST(InvalidCorpus, EveryBrokenRecipeIsRejectedWithItsExpectedMessage) {
    for (const fs::path& f : corpus()) {
        SCOPED_TRACE(f.filename().string());
        std::string all;
        bool rejected = false;
        try {
            LoadOptions o;
            for (const std::string& s : overrides_of(f)) o.overrides.push_back(parse_override(s));
            Recipe r = load_recipe(f, test::shipped_catalog(), o);
            Diagnostics d;
            validate_recipe(r, d);
            // as `trainbench validate`: then every launch line against its framework version
            if (!d.has_errors()) render::check_launch(r, test::shipped_catalog(), d);
            rejected = d.has_errors();
            all = d.format();
        } catch (const InputError& e) {
            rejected = true;
            all = e.diagnostics().format() + e.what();
            EXPECT_TRUE(e.diagnostics().has_errors()) << "an InputError without diagnostics: " << e.what();
        }
        EXPECT_TRUE(rejected) << all;
        for (const std::string& line : expected_lines(fs::path(f).replace_extension(".expected")))
            EXPECT_NE(all.find(line), std::string::npos) << "missing: " << line << "\nin:\n" << all;
        // every diagnostic is located (a file position or an override)
        EXPECT_EQ(all.find("\nerror:"), std::string::npos) << all;
    }
}

TEST(InvalidCorpus, TheCliRejectsEachWithExitCode3AndNeverCrashes) {
    const std::string binary = cli_binary();
    if (binary.empty()) GTEST_SKIP() << "no trainbench binary (set TRAINBENCH_BINARY)";
    for (const fs::path& f : corpus()) {
        SCOPED_TRACE(f.filename().string());
        ProcessRequest req;
        req.argv = {binary, "--recipes", (test::source_dir() / "recipes").string(), "validate", f.string()};
        for (const std::string& s : overrides_of(f)) {
            req.argv.push_back("-s");
            req.argv.push_back(s);
        }
        req.timeout = std::chrono::milliseconds(20000);
        ProcessResult res = system_process_runner().run(req);
        EXPECT_EQ(res.exit_code, 3) << res.err;
        EXPECT_NE(res.out.find("FAIL  "), std::string::npos) << res.out;
        EXPECT_NE(res.out.find("1 recipe: 0 ok, 1 invalid"), std::string::npos) << res.out;
        std::string first = expected_lines(fs::path(f).replace_extension(".expected")).front();
        EXPECT_NE(res.err.find(first), std::string::npos) << res.err;
    }
}

TEST(InvalidCorpus, TheCliAcceptsTheValidCorpusAndShowsOverridesAndOrigins) {
    const std::string binary = cli_binary();
    if (binary.empty()) GTEST_SKIP() << "no trainbench binary (set TRAINBENCH_BINARY)";
    ProcessRequest req;
    req.argv = {binary, "validate", "--all", (data_dir() / "valid").string()};
    ProcessResult res = system_process_runner().run(req);
    EXPECT_EQ(res.exit_code, 0) << res.out << res.err;
    EXPECT_NE(res.out.find("ok    "), std::string::npos) << res.out;
    EXPECT_NE(res.out.find("GiB/GPU of 80.0)"), std::string::npos) << res.out;

    req.argv = {binary, "show", (data_dir() / "valid" / "minimal.yaml").string(), "-s", "nodes=4", "--json"};
    res = system_process_runner().run(req);
    ASSERT_EQ(res.exit_code, 0) << res.err;
    nlohmann::json j = nlohmann::json::parse(res.out);
    EXPECT_EQ(j["nodes"], 4);
    EXPECT_EQ(j["target"]["name"], "azure-ndm-a100-v4");

    req.argv = {binary, "show", (data_dir() / "valid" / "minimal.yaml").string(), "-s", "nodes=4", "--origin"};
    res = system_process_runner().run(req);
    ASSERT_EQ(res.exit_code, 0) << res.err;
    EXPECT_NE(res.out.find("nodes: 4"), std::string::npos) << res.out;
    EXPECT_NE(res.out.find("# -s nodes=4"), std::string::npos) << res.out;
    EXPECT_NE(res.out.find("minimal.yaml:4:9"), std::string::npos) << res.out;

    req.argv = {binary, "show", (data_dir() / "valid" / "minimal.yaml").string(), "-s", "nodes"};
    res = system_process_runner().run(req);
    EXPECT_EQ(res.exit_code, 2) << res.err;  // a malformed override is a usage error
}

}  // namespace
}  // namespace trainbench::recipe
