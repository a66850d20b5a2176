// trainbench report RUN|LOGFILE...: step time, throughput, TFLOPS/GPU and MFU
// under a named FLOPs convention, checked against the recipe's expectations.
#include "cli/app.hpp"
#include "cli/report_support.hpp"
#include "cli/results_support.hpp"

#include <trainbench/report.hpp>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace trainbench::cli {

namespace {

struct ReportOptions {
    std::vector<std::string> targets;
    ReportFlags flags;
    std::string junit;
    bool record = false;           // bare logs: record the result (a run's report always is)
    bool series = false;           // --json: the per-step series too
    results::ResultLabels labels;  // bare logs: name, target, container to record under
};

// The validate stage's result, when the run's recipe has one (docs/stages.md).
std::optional<analysis::ClusterValidation> cluster_validation_of(Context& ctx, const fs::path& run_dir) {
    const recipe::Recipe r = recipe::load_recipe(run_dir / "recipe.resolved.yaml", ctx.catalog());
    for (const recipe::Stage& s : r.stages)
        if (s.kind == "validate")
            return analysis::analyse_cluster_validation(run_dir / "logs" / s.name,
                                                        recipe::validate_options(r, s).nccl.busbw_threshold_gbs);
    return std::nullopt;
}

// A run with no training figures (e.g. training was cancelled after a failed validation):
// the validation stage's result is the report.
int report_validation_only(const ReportOptions& o, Context& ctx, const fs::path& run_dir,
                           const analysis::ClusterValidation& v) {
    nlohmann::ordered_json j = {{"validation", report::cluster_validation_json(v)}};
    write_file_atomic(run_dir / "report" / "summary.json", j.dump(2) + "\n");
    if (!o.flags.html.empty())
        write_file_atomic(o.flags.html, report::with_cluster_validation(
                                            "html",
                                            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
                                            "<title>Cluster validation</title></head><body>\n</body></html>\n",
                                            v));
    if (!o.junit.empty()) write_file_atomic(o.junit, report::with_cluster_validation("junit", "", v));
    if (ctx.options.json)
        ctx.out << j.dump(2) << "\n";
    else if (o.flags.markdown)
        ctx.out << report::cluster_validation_markdown(v);
    else
        ctx.out << report::render_cluster_validation(v);
    if (!v.passed)
        throw ExpectationError(
            "cluster validation failed" +
            (v.bad_nodes.empty() ? std::string() : "; bad nodes: " + quoted_list(v.bad_nodes, " and ")));
    return 0;
}

// Writes summary.json (of a run), --html and --junit, and prints the summary in the chosen format.
void write_and_print(const ReportOptions& o, Context& ctx, const analysis::RunSummary& summary,
                     const std::optional<fs::path>& run_dir,
                     const std::optional<analysis::ClusterValidation>& validation) {
    nlohmann::ordered_json summary_json = report::to_json(summary, o.series);
    if (validation) summary_json["validation"] = report::cluster_validation_json(*validation);
    const std::string json_text = summary_json.dump(2) + "\n";
    if (run_dir) write_file_atomic(*run_dir / "report" / "summary.json", json_text);
    // HTML, JUnit and Markdown carry the validation section too (bad nodes by name).
    auto rendered = [&](std::string_view format) {
        std::string text = report::make_reporter(format)->render(summary);
        return validation ? report::with_cluster_validation(format, std::move(text), *validation) : text;
    };
    if (!o.flags.html.empty()) write_file_atomic(o.flags.html, rendered("html"));
    if (!o.junit.empty()) write_file_atomic(o.junit, rendered("junit"));

    if (ctx.options.json)
        ctx.out << json_text;
    else if (o.flags.csv)
        ctx.out << report::make_reporter("csv")->render(summary);
    else if (o.flags.markdown)
        ctx.out << rendered("markdown");
    else
        ctx.out << report::make_reporter("table", {ctx.out_colour()})->render(summary);
    if (validation && !ctx.options.json) ctx.out << "\n" << report::render_cluster_validation(*validation);
}

// Warnings, then exit 5 when an expectation or the cluster validation failed.
int verdict(Context& ctx, const analysis::RunSummary& summary,
            const std::optional<analysis::ClusterValidation>& validation) {
    for (const auto& f : summary.findings)
        if (f.severity == Severity::warning) ctx.warn(f.message);
    std::size_t failed = 0;
    std::vector<std::string> names;
    for (const auto& e : summary.expectations)
        if (!e.passed) {
            ++failed;
            names.push_back(e.figure);
        }
    if (validation && !validation->passed) {
        std::string what =
            validation->empty()
                ? std::string("has no results")
                : (validation->bad_nodes.empty() ? std::string("failed")
                                                 : "failed; bad nodes: " + quoted_list(validation->bad_nodes, " and "));
        if (failed == 0) throw ExpectationError("cluster validation " + what);
        ctx.warn("cluster validation " + what);
    }
    if (failed > 0)
        throw ExpectationError(fmt::format("{} of {} expectations failed: {}", failed, summary.expectations.size(),
                                           quoted_list(names, " and ")));
    return 0;
}

int run_report(ReportOptions o, Context& ctx) {
    if (o.targets.empty()) throw UsageError("nothing to report on", "give a run directory or log files");
    // (--record keeps the window's per-step times with the result: the series are needed)
    o.flags.figures_only = !(ctx.options.json && o.series) && o.flags.html.empty() && !o.record;
    analysis::RunSummary summary;
    std::optional<fs::path> run_dir = pipeline::find_run_dir(ctx.runs_root(), o.targets.front());
    if (run_dir) {
        if (o.targets.size() > 1)
            throw UsageError("report takes one run (or several log files of one run)",
                             "to put runs side by side use 'trainbench compare RUN_A RUN_B'");
        try {
            summary = pipeline::summarise_run(ctx.services(), *run_dir, o.flags);
        } catch (const InputError& e) {
            std::optional<analysis::ClusterValidation> v = cluster_validation_of(ctx, *run_dir);
            if (!v || v->empty()) throw;
            ctx.warn(std::string("no training figures: ") + e.what());
            return report_validation_only(o, ctx, *run_dir, *v);
        }
    } else {
        summary = pipeline::summarise_logs(ctx.services(), o.targets, o.flags);
    }
    std::optional<analysis::ClusterValidation> validation;
    if (run_dir) validation = cluster_validation_of(ctx, *run_dir);
    write_and_print(o, ctx, summary, run_dir, validation);
    // Recorded after printing: a database that cannot be reached fails the command (exit 4), not the report.
    if (run_dir || o.record) record_report(ctx, summary, o.labels, run_dir);
    return verdict(ctx, summary, validation);
}

}  // namespace

void setup_report_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<ReportOptions>();
    CLI::App* cmd = root.add_subcommand("report", "Step time, throughput, TFLOPS/GPU and MFU of a run or of log files");
    cmd->add_option("RUN|LOGFILE", opts->targets, "A run directory (or run id), or log files of one run")->required();
    add_report_flags(cmd, opts->flags);
    cmd->add_flag("--conventions", opts->flags.conventions,
                  "Also show the run under every FLOPs convention (TFLOPS/GPU and MFU of each)");
    cmd->add_option("--reference", opts->flags.reference,
                    "Show the run as a percentage of a published row (step time, tokens/s/GPU, TFLOPS under the "
                    "row's convention) and the configuration differences; 'trainbench list references' lists them");
    cmd->add_option("--junit", opts->junit, "Write the expectations as JUnit XML to FILE");
    cmd->add_flag("--series", opts->series, "With --json: add every step's time and loss (the per-step series)");
    cmd->add_flag("--record", opts->record, "Record the result of bare logs in the results database");
    add_record_labels(cmd, opts->labels);
    cmd->footer(R"(Output: a table (default), --json, --csv, --markdown on stdout; --html FILE and --junit FILE
write files. Every format names the FLOPs convention (dated: the formula as one framework
counted it between two dates; a run's default is the one its framework version prints) and
the peak it used. For a run, the
inputs come from its recipe, report/summary.json is written and the result is recorded in
the results database (docs/results.md); for bare logs, flags give what the log does not
declare, and --record records them. Exit 5 when an expectation fails.

Examples:
  trainbench report runs/gpt3-126m-p4d-2n/20261122T020000Z-a1b2c3
  trainbench report dllogger.json --model gpt3-175b --gpus 256 --gpu h100 --precision fp8 \
      --global-batch 2048 --flops gpu-recipes
  trainbench report a1b2c3 --flops megatron --window 20:40 --html report.html --junit expect.xml
  trainbench report a1b2c3 --conventions --reference nemo-24.07-gpt3-175b-h100x512-fp8)");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_report(*opts, ctx); }; });
}

}  // namespace trainbench::cli
