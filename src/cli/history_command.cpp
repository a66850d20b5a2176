// trainbench history [RECIPE]: every recorded result over time, as a table,
// JSON, CSV or an HTML page with trend plots; --import records a run store.
#include "cli/report_support.hpp"
#include "cli/results_support.hpp"

#include <trainbench/report.hpp>

#include <fmt/format.h>

namespace trainbench::cli {

namespace {

struct HistoryOptions {
    std::string recipe;
    results::HistoryFilter filter;
    bool csv = false;
    std::string html;
    std::string import_dir;
};

int import_history(const HistoryOptions& o, Context& ctx, results::Store& store) {
    const pipeline::Services services = ctx.services();
    const results::ImportReport rep = results::import_runs(store, o.import_dir, [&](const std::filesystem::path& d) {
        return std::optional<results::Result>(
            pipeline::result_of(services, pipeline::summarise_run(services, d, {}), {}));
    });
    for (const std::string& s : rep.skipped) ctx.warn("skipped " + s);
    if (ctx.options.json)
        print_json(ctx,
                   nlohmann::ordered_json{
                       {"recorded", rep.recorded}, {"already_recorded", rep.already}, {"skipped", rep.skipped}}
                       .dump(2));
    else
        ctx.out << fmt::format("imported {} results from '{}' ({} already recorded, {} skipped) into {}\n",
                               rep.recorded, o.import_dir, rep.already, rep.skipped.size(),
                               terminal_safe(store.describe()));
    return 0;
}

int run_history(HistoryOptions o, Context& ctx) {
    std::unique_ptr<results::Store> store =
        open_results(ctx, o.import_dir.empty() ? results::Access::read : results::Access::write);
    if (!o.import_dir.empty()) return import_history(o, ctx, *store);
    if (!o.recipe.empty()) {
        if (!o.filter.name.empty() && o.filter.name != o.recipe)
            throw UsageError(fmt::format("RECIPE '{}' and --name '{}' disagree", o.recipe, o.filter.name));
        o.filter.name = o.recipe;
    }
    const std::vector<results::Result> rs = store->history(o.filter);
    const report::Document doc =
        report::history_document(results::history_json(rs),
                                 fmt::format("trainbench history: {}", o.filter.name.empty() ? "all" : o.filter.name));
    if (!o.html.empty()) write_file_atomic(o.html, report::render(doc, "html"));
    if (ctx.options.json)
        ctx.out << report::render(doc, "json");
    else if (o.csv)
        ctx.out << report::render(doc, "csv");
    else if (rs.empty())
        ctx.err << fmt::format("no results in {}\n", terminal_safe(store->describe()));
    else
        ctx.out << report::render(doc, "table");
    return 0;
}

}  // namespace

void setup_history_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<HistoryOptions>();
    CLI::App* cmd = root.add_subcommand("history", "Recorded results over time: table, JSON, CSV, HTML trend plots");
    cmd->add_option("RECIPE", opts->recipe, "Recipe name (as in the run store), the same as --name");
    cmd->add_option("--name", opts->filter.name, "Only results of this recipe name");
    cmd->add_option("--target", opts->filter.target, "Only results on this target");
    cmd->add_option("--model", opts->filter.model, "Only results of this model");
    cmd->add_flag("--csv", opts->csv, "CSV on stdout");
    cmd->add_option("--html", opts->html, "Write a self-contained HTML page with trend plots to FILE");
    cmd->add_option("--import", opts->import_dir, "Record every reportable run under RUNS_DIR (once; idempotent)");
    cmd->footer(R"TXT(Results are recorded by every report of a run and by 'report LOGS --record'; the
database is --results, $TRAINBENCH_RESULTS, or RUNS/results.sqlite (docs/results.md).

Examples:
  trainbench history tinygpt-local
  trainbench history --name gpt3-175b-fp8 --target gcp-a3-mega --html trend.html
  trainbench --json history tinygpt-local
  trainbench history --import runs/)TXT");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_history(*opts, ctx); }; });
}

}  // namespace trainbench::cli
