// trainbench regress RUN --baseline B: is the run slower than its baseline, beyond noise?
#include "cli/app.hpp"

#include <trainbench/report.hpp>

#include <fmt/format.h>

namespace trainbench::cli {

namespace {

int run_regress(const pipeline::RegressRequest& request, Context& ctx) {
    const pipeline::Regress r = pipeline::regress(ctx.services(), request);
    ctx.out << report::render(r.document, ctx.options.json ? "json" : "table");
    if (r.failure) throw *r.failure;
    return 0;
}

}  // namespace

void setup_regress_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<pipeline::RegressRequest>();
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
