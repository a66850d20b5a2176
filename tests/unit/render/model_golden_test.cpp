// Golden renders of today's models through Megatron-LM (tests/data/recipes/models/*.yaml ->
// tests/golden/models/<recipe>/<stage>/<file>): each recipe conforms to its framework version,
// renders the same bytes twice and the committed bytes. TRAINBENCH_UPDATE_GOLDEN=1 rewrites them.
#include "render_test_support.hpp"

#include <trainbench/render.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

namespace fs = std::filesystem;
using namespace trainbench;

namespace {

bool update_golden() {
    const char* v = std::getenv("TRAINBENCH_UPDATE_GOLDEN");
    return v && std::string(v) == "1";
}

std::vector<render::RenderedJob> render_once(const recipe::Recipe& r) {
    render::RenderOptions options;
    options.template_dirs = {render_test::shipped_templates()};
    return render::render(r, options);
}

}  // namespace

TEST(ModelGolden, TodaysModelsRenderToTheCommittedFiles) {
    const fs::path data = render_test::source_dir() / "tests" / "data" / "recipes" / "models";
    const fs::path golden_root = render_test::source_dir() / "tests" / "golden" / "models";
    std::vector<fs::path> files = recipe::find_recipe_files(data);
    ASSERT_GE(files.size(), 2u);
    std::set<std::string> expected;
    for (const fs::path& file : files) {
        SCOPED_TRACE(file.string());
        const recipe::Recipe r = recipe::load_recipe(file, render_test::shipped_catalog());
        Diagnostics d;
        render::check_launch(r, render_test::shipped_catalog(), d);
        EXPECT_FALSE(d.has_errors()) << d.format();
        const std::vector<render::RenderedJob> jobs = render_once(r);
        const std::vector<render::RenderedJob> again = render_once(r);
        ASSERT_EQ(jobs.size(), again.size());
        for (std::size_t j = 0; j < jobs.size(); ++j) {
            ASSERT_EQ(jobs[j].files.size(), again[j].files.size());
            for (std::size_t i = 0; i < jobs[j].files.size(); ++i) {
                const render::RenderedFile& f = jobs[j].files[i];
                EXPECT_EQ(f.content, again[j].files[i].content) << "not byte-stable: " << f.path;
                const fs::path golden = golden_root / file.stem() / jobs[j].stage / f.path;
                expected.insert(golden.string());
                if (update_golden()) {
                    fs::create_directories(golden.parent_path());
                    write_file_atomic(golden, f.content);
                    continue;
                }
                ASSERT_TRUE(fs::exists(golden)) << "missing " << golden << " (TRAINBENCH_UPDATE_GOLDEN=1 writes it)";
                const std::string want = read_file(golden);
                EXPECT_EQ(f.content, want) << render::unified_diff(want, f.content, golden.string(), "rendered");
            }
        }
    }
    for (const auto& e : fs::recursive_directory_iterator(golden_root)) {
        if (e.is_regular_file()) {
            EXPECT_TRUE(expected.count(e.path().string())) << "stale golden file " << e.path();
        }
    }
}
