// trainbench list targets|models|frameworks|recipes|gpus: the catalog and the shipped recipes.
#include "cli/app.hpp"

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
    const catalog::Catalog& cat = ctx.catalog();
    if (opts.what == "gpus") return emit(opts, ctx, report::gpu_listing(cat));
    if (opts.what == "targets") return emit(opts, ctx, report::target_listing(cat));
    if (opts.what == "models") return emit(opts, ctx, report::model_listing(cat));
    if (opts.what == "frameworks") return emit(opts, ctx, report::framework_listing(cat));
    return emit(opts, ctx, report::recipe_listing(cat, ctx.data_dirs().recipes));
}

}  // namespace

void setup_list_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<ListOptions>();
    CLI::App* cmd =
        root.add_subcommand("list", "List catalog targets, models, GPUs, framework versions, or the shipped recipes");
    cmd->add_option("what", opts->what, "What to list: targets, models, frameworks, recipes or gpus")
        ->required()
        ->check(CLI::IsMember({"targets", "models", "frameworks", "recipes", "gpus"}));
    cmd->add_flag("--names", opts->names, "Only the names, one per line (for scripts and shell completion)");
    cmd->footer(R"TXT(Examples:
  trainbench list targets
  trainbench list models --json
  trainbench list gpus              # memory, dense peak TFLOPS per precision, and each peak's source
  trainbench list frameworks        # framework versions whose launch lines validate checks
  trainbench list recipes --recipes ~/my-recipes)TXT");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_list(*opts, ctx); }; });
}

}  // namespace trainbench::cli
