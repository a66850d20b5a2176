// trainbench regress RUN --baseline B: is the run slower than its baseline, beyond noise?
#include "cli/results_support.hpp"

#include <trainbench/report.hpp>

#include <fmt/format.h>

namespace trainbench::cli {

namespace {

struct RegressOptions {
    std::string run;
    std::string baseline = "last-good";
    double threshold = 5;  // percent
    double confidence = 95;
    std::string junit;
};

std::vector<double> seconds(const results::Result& r) {
    std::vector<double> out;
    for (const analysis::StepSample& s : r.window_steps) out.push_back(s.seconds);
    return out;
}

int run_regress(const RegressOptions& o, Context& ctx) {
    std::unique_ptr<results::Store> store = open_results(ctx);
    results::Regression g;
    g.run = store->find_run(o.run);
    g.baseline = results::find_baseline(*store, g.run, o.baseline);
    g.comparison = results::compare_steps(seconds(g.baseline), seconds(g.run), o.threshold / 100, o.confidence / 100);
    const report::Document doc = report::regression_document(results::regression_record(g));
    if (!o.junit.empty()) write_file_atomic(o.junit, report::render(doc, "junit"));
    ctx.out << report::render(doc, ctx.options.json ? "json" : "table");
    if (g.comparison.verdict == results::Verdict::slower)
        throw ExpectationError(
            fmt::format("run {} is {:.2f}% slower than {} (beyond the {:.2f}% threshold and the noise)",
                        terminal_safe(g.run.short_id()), g.comparison.relative * 100,
                        terminal_safe(g.baseline.short_id()), o.threshold),
            "'trainbench history " + terminal_safe(g.run.recipe_name) + "' shows the trend");
    return 0;
}

}  // namespace

void setup_regress_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<RegressOptions>();
    CLI::App* cmd = root.add_subcommand("regress", "Compare a recorded run's step times with a baseline, beyond noise");
    cmd->add_option("RUN", opts->run, "Run id or short id prefix of a recorded result")->required();
    cmd->add_option("--baseline", opts->baseline,
                    "last-good (default: the latest earlier run of the recipe tagged good), a TAG, or a RUN");
    cmd->add_option("--threshold", opts->threshold, "Percent change that counts (default 5)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--confidence", opts->confidence, "Confidence of the interval in percent (default 95)")
        ->check(CLI::Range(50.0, 99.99));
    cmd->add_option("--junit", opts->junit, "Write the verdict as JUnit XML to FILE");
    cmd->footer(R"TXT(The per-step step times of both windows are compared: the Hodges-Lehmann shift
with its Mann-Whitney confidence interval (docs/results.md). Verdict: slower (exit 5)
when the interval lies above zero and the shift exceeds the threshold; faster the
other way round; otherwise no change beyond noise (exit 0).

Examples:
  trainbench regress 9b0e44
  trainbench regress 9b0e44 --baseline 3fa2c1 --threshold 3 --junit regress.xml)TXT");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_regress(*opts, ctx); }; });
}

}  // namespace trainbench::cli
