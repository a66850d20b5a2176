// `history` and `regress`: the results database's views of a recipe over time and of one run
// against its baseline (docs/results.md).
#include <trainbench/pipeline.hpp>

#include <fmt/format.h>

namespace trainbench::pipeline {

namespace {

std::vector<double> seconds(const results::Result& r) {
    std::vector<double> out;
    for (const analysis::StepSample& s : r.window_steps) out.push_back(s.seconds);
    return out;
}

}  // namespace

History history(const Services& services, HistoryRequest request) {
    History out;
    std::unique_ptr<results::Store> store =
        services.results_store(request.import_dir.empty() ? results::Access::read : results::Access::write);
    out.store = store->describe();
    if (!request.import_dir.empty()) {
        out.imported = results::import_runs(*store, request.import_dir, [&](const std::filesystem::path& d) {
            return std::optional<results::Result>(result_of(services, summarise_run(services, d, {}), {}));
        });
        return out;
    }
    results::HistoryFilter& filter = request.filter;
    if (!request.recipe.empty()) {
        if (!filter.name.empty() && filter.name != request.recipe)
            throw UsageError(fmt::format("RECIPE '{}' and --name '{}' disagree", request.recipe, filter.name));
        filter.name = request.recipe;
    }
    const std::vector<results::Result> rs = store->history(filter);
    out.results = rs.size();
    out.document = report::history_document(
        results::history_json(rs), fmt::format("trainbench history: {}", filter.name.empty() ? "all" : filter.name));
    if (!request.html.empty()) write_file_atomic(request.html, report::render(out.document, "html"));
    return out;
}

Regress regress(const Services& services, const RegressRequest& request) {
    std::unique_ptr<results::Store> store = services.results_store(results::Access::read);
    Regress out;
    results::Regression& g = out.regression;
    g.run = store->find_run(request.run);
    g.baseline = results::find_baseline(*store, g.run, request.baseline);
    g.comparison =
        results::compare_steps(seconds(g.baseline), seconds(g.run), request.threshold / 100, request.confidence / 100);
    out.document = report::regression_document(results::regression_record(g));
    if (!request.junit.empty()) write_file_atomic(request.junit, report::render(out.document, "junit"));
    if (g.comparison.verdict == results::Verdict::slower)
        out.failure = ExpectationError(
            fmt::format("run {} is {:.2f}% slower than {} (beyond the {:.2f}% threshold and the noise)",
                        terminal_safe(g.run.short_id()), g.comparison.relative * 100,
                        terminal_safe(g.baseline.short_id()), request.threshold),
            "'trainbench history " + terminal_safe(g.run.recipe_name) + "' shows the trend");
    return out;
}

}  // namespace trainbench::pipeline
