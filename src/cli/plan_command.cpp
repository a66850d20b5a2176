// trainbench plan RECIPE: parameters, FLOPs per step per convention, memory
// per GPU, checkpoint size and write time, estimated step time, days and
// GPU-hours; --search ranks TP/PP/VP/CP/EP/micro-batch configurations.
#include "cli/app.hpp"

#include <trainbench/pipeline.hpp>
#include <trainbench/report.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace trainbench::cli {

namespace {

struct PlanOptions {
    std::string recipe;
    std::vector<std::string> overrides;
    double assume_mfu = 0.4;
    double tokens = 300e9;
    std::vector<double> fs_bandwidth;
    bool search = false;
    int top = 10;
    double min_headroom = 0.0;
};

int run_plan(const PlanOptions& opts, Context& ctx) {
    if (!(opts.assume_mfu > 0 && opts.assume_mfu <= 1))
        throw UsageError(fmt::format("--assume-mfu {} is not in (0, 1]", opts.assume_mfu), "e.g. --assume-mfu 0.4");
    if (!(opts.tokens > 0)) throw UsageError("--tokens must be positive", "e.g. --tokens 300e9");
    for (double bw : opts.fs_bandwidth)
        if (!(bw > 0))
            throw UsageError(fmt::format("--fs-bandwidth {} is not positive", bw), "GB/s, e.g. --fs-bandwidth 19.2");
    recipe::LoadOptions load = pipeline::load_options(ctx.services(), opts.overrides);
    recipe::Recipe r = recipe::load_recipe(opts.recipe, ctx.catalog(), load);
    Diagnostics d;
    recipe::validate_recipe(r, d);

    if (opts.search) {
        plan::SearchOptions so;
        so.assume_mfu = opts.assume_mfu;
        so.min_headroom = opts.min_headroom;
        std::vector<plan::Candidate> all = plan::search(r, so);
        const auto top = static_cast<std::size_t>(std::max(opts.top, 0));
        if (ctx.options.json) {
            print_json(ctx, report::search_json(r, all, top, opts.assume_mfu).dump(2));
            return 0;
        }
        ctx.out << report::search_text(r, all, top);
        if (!ctx.options.quiet)
            ctx.err << "ranked by estimated throughput (MFU x pipeline-bubble, tensor/context/expert-parallel, "
                       "tokens-per-expert and micro-batch factors), then memory headroom; a starting point for a "
                       "sweep, not a prediction\n";
        return all.empty() ? static_cast<int>(ExitCode::invalid_input) : 0;
    }

    plan::PlanOptions po;
    po.assume_mfu = opts.assume_mfu;
    po.train_tokens = opts.tokens;
    po.fs_bandwidth_gbs = opts.fs_bandwidth;
    plan::Plan p = plan::make_plan(r, po);
    if (ctx.options.json) {
        nlohmann::ordered_json j = plan::to_json(p);
        nlohmann::ordered_json diags = nlohmann::ordered_json::array();
        for (const Diagnostic& x : d.sorted()) diags.push_back(x.format());
        j["validation"] = diags;
        print_json(ctx, j.dump(2));
    } else {
        ctx.out << report::plan_text(p);
        for (const Diagnostic& x : d.sorted()) ctx.err << x.format() << '\n';
    }
    return 0;
}

}  // namespace

void setup_plan_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<PlanOptions>();
    CLI::App* cmd = root.add_subcommand("plan",
                                        "Estimate a recipe before spending GPU hours: FLOPs, memory, checkpoint, step "
                                        "time, days; --search ranks TP/PP/VP/CP/EP/MBS");
    cmd->add_option("recipe", opts->recipe, "Recipe file")->required();
    cmd->add_option("-s,--set", opts->overrides, "Override a value: -s key=value (repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("--assume-mfu", opts->assume_mfu,
                    "Model FLOPs utilisation assumed for the estimates (default 0.4)");
    cmd->add_option("--tokens", opts->tokens, "Tokens to train for the days/GPU-hours estimate (default 300e9)");
    cmd->add_option(
           "--fs-bandwidth", opts->fs_bandwidth,
           "File-system write bandwidth in GB/s for the checkpoint time (repeatable; default: 19.2, 64, 128, 256)")
        ->allow_extra_args(false);
    cmd->add_flag("--search", opts->search,
                  "Rank valid TP/PP/VP/CP/EP/micro-batch configurations on the recipe's target and nodes");
    cmd->add_option("--top", opts->top, "How many configurations --search prints (default 10)");
    cmd->add_option("--min-headroom", opts->min_headroom,
                    "--search: drop configurations with less free GPU memory (fraction, e.g. 0.1)");
    cmd->footer(
        "Examples:\n"
        "  trainbench plan recipes/azure-nd-h100-v5/gpt3-175b.yaml\n"
        "  trainbench plan recipes/aws-p4d/gpt3-5b.yaml -s nodes=4 --assume-mfu 0.5 --tokens 1e12\n"
        "  trainbench plan recipes/aws-p4d/gpt3-5b.yaml --search --top 5");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_plan(*opts, ctx); }; });
}

}  // namespace trainbench::cli
