// trainbench list targets|models|frameworks|recipes|gpus|conventions|references: the catalog,
// the shipped recipes, the FLOPs conventions and the published references.
#include "cli/app.hpp"

#include <trainbench/pipeline.hpp>
#include <trainbench/report.hpp>

namespace trainbench::cli {

namespace {

struct ListOptions {
    std::string what;
    bool names = false;  // one name per line (for scripts and shell completion)
};

// JSON with --json, bare names with --names, else an aligned table.
int emit(const ListOptions& opts, Context& ctx, const report::Listing& listing) {
    if (ctx.options.json) {
        print_json(ctx, listing.json.dump(2));
    } else if (opts.names) {
        for (const auto& r : listing.rows) ctx.out << r.front() << '\n';
    } else {
        ctx.out << report::fitted_table(listing.header, listing.rows);
        for (const std::string& line : listing.notes) ctx.out << line << '\n';
    }
    return 0;
}

int run_list(const ListOptions& opts, Context& ctx) {
    return emit(opts, ctx, pipeline::list_catalog(ctx.services(), opts.what));
}

}  // namespace

void setup_list_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<ListOptions>();
    CLI::App* cmd = root.add_subcommand("list",
                                        "List catalog targets, models, GPUs, framework versions, FLOPs conventions, "
                                        "published references, or the shipped recipes");
    cmd->add_option("what", opts->what,
                    "What to list: targets, models, frameworks, recipes, gpus, conventions (FLOPs) or references "
                    "(published rows)")
        ->required()
        ->check(CLI::IsMember({"targets", "models", "frameworks", "recipes", "gpus", "conventions", "references"}));
    cmd->add_flag("--names", opts->names, "Only the names, one per line (for scripts and shell completion)");
    cmd->footer(R"TXT(Examples:
  trainbench list targets
  trainbench list models --json
  trainbench list gpus              # memory, dense peak TFLOPS per precision, and each peak's source
  trainbench list frameworks        # framework versions whose launch lines validate checks
  trainbench list conventions       # dated FLOPs conventions, their aliases and upstream sources
  trainbench list references        # published rows, each reproduced under its own convention
  trainbench list recipes --recipes ~/my-recipes)TXT");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_list(*opts, ctx); }; });
}

}  // namespace trainbench::cli
