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

void record_report(Context& ctx, const analysis::RunSummary& summary, const results::ResultLabels& labels,
                   const std::optional<fs::path>& run_dir) {
    try {
        std::unique_ptr<results::Store> store = open_results(ctx, results::Access::write);
        record_result(ctx, *store, result_of(ctx, summary, labels));
    } catch (const RuntimeError& e) {
        if (!run_dir) throw;
        throw RuntimeError(e.what(), fmt::format("the run's report is in '{}'; 'trainbench history --import {}' "
                                                 "records it once the database answers",
                                                 (*run_dir / "report").string(), ctx.runs_root().string()));
    }
}

void add_record_labels(CLI::App* cmd, results::ResultLabels& labels) {
    // Checked as they are parsed (exit 2 before any report): what is recorded is shown later by
    // history as a table, CSV and HTML, so a label is a plain word (results::label_problem).
    auto label = [](const char* kind) {
        return CLI::Validator([kind](const std::string& v) { return results::label_problem(kind, v); }, "", kind);
    };
    cmd->add_option("--name", labels.name, "With --record: the recipe name to record bare logs under")
        ->check(label("name"));
    cmd->add_option("--target", labels.target, "With --record: the target the logs ran on")->check(label("target"));
    cmd->add_option("--container", labels.container, "With --record: the container image or version")
        ->check(label("container"));
    cmd->add_option("--ran-at", labels.ran_at,
                    "With --record: when the logs ran (RFC 3339, e.g. 2026-03-01T10:00:00Z or +05:00; stored as "
                    "UTC; default: mtime)")
        ->check(CLI::Validator(
            [](const std::string& v) {
                return parse_utc(v) ? std::string()
                                    : fmt::format(
                                          "'{}' is not a date and time: write YYYY-MM-DD or "
                                          "YYYY-MM-DDTHH:MM:SS with Z or an offset",
                                          terminal_safe(v));
            },
            "", "time"));
}

}  // namespace trainbench::cli
