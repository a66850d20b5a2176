// trainbench show RECIPE: the fully resolved recipe, optionally with origins.
#include "cli/app.hpp"

#include <trainbench/pipeline.hpp>

namespace trainbench::cli {

namespace {

struct ShowOptions {
    std::string recipe;
    std::vector<std::string> overrides;
    bool origin = false;
};

int run_show(const ShowOptions& opts, Context& ctx) {
    const pipeline::ShownRecipe shown = pipeline::show_recipe(ctx.services(), opts.recipe, opts.overrides, opts.origin);
    if (ctx.options.json)
        print_json(ctx, shown.json.dump(2));
    else
        ctx.out << shown.yaml;
    return 0;
}

}  // namespace

void setup_show_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<ShowOptions>();
    CLI::App* cmd =
        root.add_subcommand("show", "Print the fully resolved recipe (extends, catalog and overrides applied)");
    cmd->add_option("recipe", opts->recipe, "Recipe file")->required();
    cmd->add_option("-s,--set", opts->overrides, "Override a value: -s key=value (repeatable; typed like the key)")
        ->allow_extra_args(false);
    cmd->add_flag("--origin", opts->origin, "Say for every value which file:line:column or override set it");
    cmd->footer(R"TXT(Examples:
  trainbench show recipes/aws-p4d/gpt3-126m.yaml
  trainbench show recipes/aws-p4d/gpt3-126m.yaml -s nodes=4 -s parallelism.tensor=2 --origin
  trainbench show recipes/aws-p4d/gpt3-126m.yaml -s metrics.window=[5,20] -s env.NCCL_DEBUG=WARN --json)TXT");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_show(*opts, ctx); }; });
}

}  // namespace trainbench::cli
