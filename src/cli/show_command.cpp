// trainbench show RECIPE: the fully resolved recipe, optionally with origins.
#include "cli/app.hpp"

#include <trainbench/pipeline.hpp>

#include <nlohmann/json.hpp>

namespace trainbench::cli {

namespace {

struct ShowOptions {
    std::string recipe;
    std::vector<std::string> overrides;
    bool origin = false;
};

int run_show(const ShowOptions& opts, Context& ctx) {
    recipe::LoadOptions load = pipeline::load_options(ctx.services(), opts.overrides);
    recipe::Recipe r = recipe::load_recipe(opts.recipe, ctx.catalog(), load);
    if (ctx.options.json) {
        if (!opts.origin) {
            print_json(ctx, r.resolved.dump(2));
        } else {
            nlohmann::ordered_json origins = nlohmann::ordered_json::object();
            for (const auto& [k, where] : r.origins) origins[k] = where.to_string();
            nlohmann::ordered_json j = {{"recipe", r.resolved}, {"origins", origins}};
            print_json(ctx, j.dump(2));
        }
        return 0;
    }
    ctx.out << recipe::to_yaml(r, opts.origin);
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
