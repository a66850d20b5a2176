#include "cli/results_support.hpp"

#include <trainbench/recipe.hpp>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace trainbench::cli {

std::unique_ptr<results::Store> open_results(Context& ctx, results::Access access) {
    return results::open_store(results::default_location(ctx.options.results, ctx.runs_root()), access);
}

results::Result result_of(Context& ctx, const analysis::RunSummary& summary, results::ResultLabels labels) {
    std::optional<recipe::Recipe> r;
    if (!summary.provenance.run_dir.empty()) {
        const fs::path file = fs::path(summary.provenance.run_dir) / "recipe.resolved.yaml";
        r = recipe::load_recipe(file, ctx.catalog());
        labels.recipe = &*r;
        labels.recipe_text = read_file(file);
    }
    return results::make_result(summary, labels);
}

void record_result(Context& ctx, results::Store& store, const results::Result& result) {
    const bool added = store.record(result);
    if (ctx.options.quiet) return;
    ctx.err << fmt::format("trainbench: {} result of {} ({}) in {}\n",
                           added ? "recorded" : "already recorded:", terminal_safe(result.short_id()),
                           terminal_safe(result.recipe_name), terminal_safe(store.describe()));
}

}  // namespace trainbench::cli
