// trainbench plan RECIPE: parameters, FLOPs per step per convention, memory
// per GPU, checkpoint size and write time, estimated step time, days and
// GPU-hours; --search ranks TP/PP/VP/CP/EP/micro-batch configurations.
#include "cli/app.hpp"

#include <trainbench/pipeline.hpp>
#include <trainbench/report.hpp>

#include <algorithm>

namespace trainbench::cli {

namespace {

int run_plan(const pipeline::PlanRequest& request, Context& ctx) {
    const pipeline::PlanResult result = pipeline::plan_recipe(ctx.services(), request);
    if (ctx.options.json) {
        print_json(ctx, result.json.dump(2));
        return 0;
    }
    if (request.search) {
        ctx.out << report::search_text(result.recipe, result.candidates,
                                       static_cast<std::size_t>(std::max(request.top, 0)));
        if (!ctx.options.quiet)
            ctx.err << "ranked by estimated throughput (MFU x pipeline-bubble, tensor/context/expert-parallel, "
                       "tokens-per-expert and micro-batch factors), then memory headroom; a starting point for a "
                       "sweep, not a prediction\n";
        return result.candidates.empty() ? static_cast<int>(ExitCode::invalid_input) : 0;
    }
    ctx.out << report::plan_text(*result.plan);
    for (const Diagnostic& x : result.diagnostics.sorted()) ctx.err << x.format() << '\n';
    return 0;
}

}  // namespace

void setup_plan_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<pipeline::PlanRequest>();
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
