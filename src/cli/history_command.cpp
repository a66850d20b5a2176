// trainbench history [RECIPE]: every recorded result over time, as a table,
// JSON, CSV or an HTML page with trend plots; --import records a run store.
#include "cli/app.hpp"

#include <trainbench/report.hpp>

#include <fmt/format.h>

namespace trainbench::cli {

namespace {

struct HistoryOptions {
    pipeline::HistoryRequest request;
    bool csv = false;
};

void print_import(const pipeline::History& h, const std::string& dir, Context& ctx) {
    const results::ImportReport& rep = *h.imported;
    for (const std::string& s : rep.skipped) ctx.warn("skipped " + s);
    if (ctx.options.json)
        print_json(ctx,
                   nlohmann::ordered_json{
                       {"recorded", rep.recorded}, {"already_recorded", rep.already}, {"skipped", rep.skipped}}
                       .dump(2));
    else
        ctx.out << fmt::format("imported {} results from '{}' ({} already recorded, {} skipped) into {}\n",
                               rep.recorded, dir, rep.already, rep.skipped.size(), terminal_safe(h.store));
}

int run_history(const HistoryOptions& o, Context& ctx) {
    const pipeline::History h = pipeline::history(ctx.services(), o.request);
    if (h.imported)
        print_import(h, o.request.import_dir, ctx);
    else if (ctx.options.json)
        ctx.out << report::render(h.document, "json");
    else if (o.csv)
        ctx.out << report::render(h.document, "csv");
    else if (h.results == 0)
        ctx.err << fmt::format("no results in {}\n", terminal_safe(h.store));
    else
        ctx.out << report::render(h.document, "table");
    return 0;
}

}  // namespace

void setup_history_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<HistoryOptions>();
    CLI::App* cmd = root.add_subcommand("history", "Recorded results over time: table, JSON, CSV, HTML trend plots");
    cmd->add_option("RECIPE", opts->request.recipe, "Recipe name (as in the run store), the same as --name");
    cmd->add_option("--name", opts->request.filter.name, "Only results of this recipe name");
    cmd->add_option("--target", opts->request.filter.target, "Only results on this target");
    cmd->add_option("--model", opts->request.filter.model, "Only results of this model");
    cmd->add_flag("--csv", opts->csv, "CSV on stdout");
    cmd->add_option("--html", opts->request.html, "Write a self-contained HTML page with trend plots to FILE");
    cmd->add_option("--import", opts->request.import_dir,
                    "Record every reportable run under RUNS_DIR (once; idempotent)");
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
