// Golden files: every shipped recipe renders to exactly the committed bytes
// (tests/golden/render/<recipe path>/<stage>/<file>). Regenerate with
// TRAINBENCH_UPDATE_GOLDEN=1 and review the diff.
#include "render_test_support.hpp"

#include <trainbench/render.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

namespace fs = std::filesystem;
using namespace trainbench;

namespace {

fs::path golden_root() {
    return render_test::source_dir() / "tests" / "golden" / "render";
}

bool update_golden() {
    const char* v = std::getenv("TRAINBENCH_UPDATE_GOLDEN");
    return v && std::string(v) == "1";
}

}  // namespace

TEST(Golden, EveryShippedRecipeRendersToTheCommittedFiles) {
    fs::path recipes = render_test::source_dir() / "recipes";
    catalog::Catalog cat = catalog::Catalog::load({recipes});
    std::vector<fs::path> files = recipe::find_recipe_files(recipes);
    ASSERT_FALSE(files.empty());
    render::RenderOptions options;
    options.template_dirs = {render_test::shipped_templates()};
    std::set<std::string> expected_files;
    for (const fs::path& file : files) {
        SCOPED_TRACE(file.string());
        recipe::Recipe r = recipe::load_recipe(file, cat);
        std::vector<render::RenderedJob> jobs = render::render(r, options);
        fs::path dir = golden_root() / fs::relative(file, recipes).replace_extension();
        for (const render::RenderedJob& job : jobs) {
            for (const render::RenderedFile& f : job.files) {
                fs::path golden = dir / job.stage / f.path;
                expected_files.insert(golden.string());
                if (update_golden()) {
                    fs::create_directories(golden.parent_path());
                    write_file_atomic(golden, f.content);
                    continue;
                }
                ASSERT_TRUE(fs::exists(golden))
                    << "missing golden file " << golden << " (regenerate with TRAINBENCH_UPDATE_GOLDEN=1)";
                std::string want = read_file(golden);
                EXPECT_EQ(f.content, want) << render::unified_diff(want, f.content, golden.string(), "rendered");
            }
        }
    }
    // No stale golden files of recipes or files that no longer exist.
    if (fs::exists(golden_root())) {
        for (const auto& e : fs::recursive_directory_iterator(golden_root())) {
            if (!e.is_regular_file()) continue;
            if (update_golden() && !expected_files.count(e.path().string())) {
                fs::remove(e.path());
                continue;
            }
            EXPECT_TRUE(expected_files.count(e.path().string())) << "stale golden file " << e.path();
        }
    }
}
