// trainbench render RECIPE...: the job files of each recipe (dry run: no
// scheduler, no network), written to a directory, printed, compared with a
// committed copy, or checked by the real scheduler (sbatch --test-only).
#include "cli/app.hpp"

#include <trainbench/pipeline.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace trainbench::cli {

namespace {

struct RenderCliOptions {
    std::vector<std::string> recipes;
    std::vector<std::string> overrides;
    std::string output;
    bool to_stdout = false;
    std::vector<std::string> all;
    std::string compare;
    bool check = false;
    std::string stage;
    bool no_validate = false;
    bool argv = false;
};

// --argv: what each framework receives, per stage, as JSON (the conformance suite reads it).
int run_argv(const RenderCliOptions& opts, Context& ctx) {
    recipe::LoadOptions load = pipeline::load_options(ctx.services(), opts.overrides);
    render::RenderOptions options;
    options.template_dirs = ctx.data_dirs().templates;
    options.stage = opts.stage;
    ctx.out << pipeline::framework_argv(opts.recipes, load, options, !opts.no_validate, ctx.catalog()).dump(2) << "\n";
    return 0;
}

ordered_json outcome_json(const pipeline::RenderOutcome& o) {
    ordered_json j = {{"path", o.file.string()}};
    if (o.error) return j.update({{"ok", false}, {"error", o.error->what()}}), j;
    j["name"] = o.name;
    if (o.compared) j["differences"] = o.differences.size();
    if (o.checked) j["check"] = o.checks;
    ordered_json files = ordered_json::array();
    for (const fs::path& p : o.written) files.push_back(p.string());
    j["files"] = files;
    j["ok"] = o.ok();
    return j;
}

// What the text output shows of one recipe, in the order it happened.
void print_outcome(const pipeline::RenderOutcome& o, const RenderCliOptions& opts, bool many, Context& ctx) {
    if (o.error) {
        for (const Diagnostic& x : o.error->diagnostics().sorted()) ctx.err << x.format() << '\n';
        ctx.err << "trainbench: error: " << o.error->what() << '\n';
        if (!o.error->hint().empty()) ctx.err << "  hint: " << o.error->hint() << '\n';
        ctx.out << fmt::format("FAIL  {} ({})\n", o.file.string(), o.error->what());
        return;
    }
    for (const std::string& text : o.entrypoints) ctx.out << text;
    if (!many)
        for (const fs::path& p : o.written) ctx.out << "wrote " << p.string() << '\n';
    for (const std::string& d : o.differences) ctx.out << d;
    if (many || opts.check || !opts.compare.empty()) {
        std::string where = opts.output.empty() ? std::string() : " -> " + (fs::path(opts.output) / o.base).string();
        ctx.out << fmt::format("{}  {} ({} file{}{}){}\n",
                               o.rejected    ? "FAIL"
                               : o.differs() ? "DIFF"
                                             : "ok  ",
                               o.file.string(), o.files, o.files == 1 ? "" : "s", where,
                               o.notes.empty() ? "" : ": " + fmt::format("{}", fmt::join(o.notes, "; ")));
    }
}

int run_render(const RenderCliOptions& opts, Context& ctx) {
    if (opts.argv) return run_argv(opts, ctx);
    pipeline::RenderRequest rq;
    rq.load = pipeline::load_options(ctx.services(), opts.overrides);
    rq.inputs = pipeline::find_recipes(opts.recipes, opts.all, "render");
    rq.many = rq.inputs.size() > 1 || !opts.all.empty();
    if (opts.to_stdout && rq.many && (!opts.output.empty() || !opts.compare.empty()))
        throw UsageError("--stdout prints one recipe's job file; it does not combine with -o or --compare for many");
    rq.entrypoints = opts.to_stdout || (!rq.many && opts.output.empty() && opts.compare.empty() && !opts.check);
    rq.render.template_dirs = ctx.data_dirs().templates;
    rq.render.stage = opts.stage;
    rq.validate = !opts.no_validate;
    rq.output = opts.output;
    rq.compare = opts.compare;
    rq.check = opts.check;

    bool invalid = false, rejected = false, differs = false;
    std::size_t n_ok = 0, n_failed = 0;
    ordered_json results = ordered_json::array();
    pipeline::render_recipes(rq, ctx.catalog(), ctx.processes(), [&](const pipeline::RenderOutcome& o) {
        if (ctx.options.json)
            results.push_back(outcome_json(o));
        else
            print_outcome(o, opts, rq.many, ctx);
        o.ok() ? ++n_ok : ++n_failed;
        invalid |= o.invalid;
        rejected |= o.rejected;
        differs |= o.differs();
    });
    const std::size_t total = rq.inputs.size();
    if (ctx.options.json)
        print_json(ctx,
                   ordered_json{{"recipes", results}, {"total", total}, {"ok", n_ok}, {"failed", n_failed}}.dump(2));
    else if (rq.many)
        ctx.out << fmt::format("{} recipe{}: {} ok, {} failed\n", total, total == 1 ? "" : "s", n_ok, n_failed);
    if (invalid) return static_cast<int>(ExitCode::invalid_input);
    if (rejected) return static_cast<int>(ExitCode::runtime);
    if (differs) return static_cast<int>(ExitCode::expectation_failed);
    return 0;
}

}  // namespace

void setup_render_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<RenderCliOptions>();
    CLI::App* cmd =
        root.add_subcommand("render", "Render the job files of recipes (dry run: no scheduler, no network)");
    cmd->add_option("recipes", opts->recipes, "Recipe files");
    cmd->add_option("-s,--set", opts->overrides, "Override a value in every recipe: -s key=value (repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("-o,--output", opts->output,
                    "Write the files to DIR/<stage>/ (many recipes: DIR/<recipe path>/<stage>/)");
    cmd->add_flag("--stdout", opts->to_stdout, "Print the main job file (sbatch script, manifests, run.sh)");
    cmd->add_option("--all", opts->all, "Render every recipe under DIR (skips catalog/ and common/ folders)")
        ->allow_extra_args(false);
    cmd->add_option(
        "--compare", opts->compare,
        "Compare with a committed render in DIR (same layout as -o); print a unified diff, exit 5 on a difference");
    cmd->add_flag("--check", opts->check,
                  "Ask the real Slurm scheduler to validate each batch script (sbatch --test-only; nothing runs)");
    cmd->add_option("--stage", opts->stage, "Render only this stage");
    cmd->add_flag("--argv", opts->argv,
                  "Print, as JSON, the command each stage hands its framework (program, version, argv, config file)");
    cmd->add_flag("--no-validate", opts->no_validate,
                  "Skip the semantic checks (parallelism, memory fit); the schema is still checked");
    cmd->footer(R"(Examples:
  trainbench render recipes/aws-p4d/gpt3-126m.yaml --stdout
  trainbench render recipes/gcp-a3-mega/gpt3-175b-fp8.yaml -s nodes=16 -o out/
  trainbench render --all recipes/ -o out/
  trainbench render --all recipes/ --compare tests/golden/render
  trainbench render recipes/local-slurm/tinygpt-2n.yaml --check
  trainbench render recipes/aws-p4d/gpt3-126m.yaml --argv
Output is deterministic: the same recipe renders to the same bytes. Exit codes: 0 ok, 3 a recipe
or template is invalid, 4 sbatch --test-only rejected a script, 5 --compare found a difference.
Templates: --templates DIR overrides any shipped template (docs/templates.md).)");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_render(*opts, ctx); }; });
}

}  // namespace trainbench::cli
