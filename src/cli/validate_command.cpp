// trainbench validate RECIPE...: schema and semantic checks, with the memory estimate.
#include "cli/app.hpp"

#include <trainbench/recipe.hpp>
#include <trainbench/render.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace trainbench::cli {

namespace {

struct ValidateOptions {
    std::vector<std::string> recipes;
    std::vector<std::string> overrides;
    std::vector<std::string> all;
};

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

nlohmann::ordered_json diagnostics_json(const Diagnostics& d) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const Diagnostic& x : d.sorted()) {
        a.push_back({{"severity", x.severity == Severity::error     ? "error"
                                  : x.severity == Severity::warning ? "warning"
                                                                    : "note"},
                     {"location", x.location.to_string()},
                     {"key", x.key},
                     {"message", x.message},
                     {"expected", x.expected},
                     {"hint", x.hint}});
    }
    return a;
}

int run_validate(const ValidateOptions& opts, Context& ctx) {
    recipe::LoadOptions load;
    load.recipe_roots = ctx.data_dirs().recipes;
    for (const std::string& s : opts.overrides) load.overrides.push_back(recipe::parse_override(s));
    std::vector<fs::path> files;
    for (const std::string& r : opts.recipes) files.emplace_back(r);
    for (const std::string& dir : opts.all) {
        std::error_code ec;
        if (!fs::exists(dir, ec)) throw UsageError(fmt::format("--all: '{}' does not exist", dir));
        for (const fs::path& f : recipe::find_recipe_files(dir)) files.push_back(f);
    }
    if (files.empty()) throw UsageError("no recipe given", "trainbench validate RECIPE... or --all DIR");
    const catalog::Catalog& cat = ctx.catalog();

    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    int failed = 0;
    for (const fs::path& file : files) {
        check_interrupted();
        nlohmann::ordered_json j = {{"path", file.string()}};
        try {
            recipe::Recipe r = recipe::load_recipe(file, cat, load);
            Diagnostics d;
            recipe::validate_recipe(r, d);
            // The launch line of every stage against the framework version's profile.
            if (!d.has_errors()) render::check_launch(r, cat, d);
            d.throw_if_errors(fmt::format("invalid recipe '{}'", file.string()));
            recipe::MemoryEstimate e = recipe::estimate_memory(r);
            bool checked = r.gpu.family != "cpu" && e.capacity > 0;
            std::string memory =
                checked ? fmt::format("est. {:.1f} GiB/GPU of {:.1f}", e.total / k_gib, e.capacity / k_gib)
                        : fmt::format("est. {:.1f} GiB/GPU, memory not checked on '{}'", e.total / k_gib, r.gpu.name);
            if (!ctx.options.json)
                ctx.out << fmt::format("ok    {} ({} GPU{}, {})\n", file.string(), r.total_gpus(),
                                       r.total_gpus() == 1 ? "" : "s", memory);
            j["ok"] = true;
            j["name"] = r.name;
            j["gpus"] = r.total_gpus();
            j["data_parallel"] = r.data_parallel();
            j["memory"] = {{"checked", checked},
                           {"parameters", e.parameters},
                           {"parameters_per_gpu", e.parameters_per_gpu},
                           {"weights_gib", e.weights / k_gib},
                           {"gradients_gib", e.gradients / k_gib},
                           {"optimizer_gib", e.optimizer / k_gib},
                           {"activations_gib", e.activations / k_gib},
                           {"activations_no_recompute_gib", e.activations_no_recompute / k_gib},
                           {"activations_full_recompute_gib", e.activations_full_recompute / k_gib},
                           {"total_gib", e.total / k_gib},
                           {"capacity_gib", e.capacity / k_gib}};
            j["diagnostics"] = diagnostics_json(d);
        } catch (const InputError& e) {
            ++failed;
            const Diagnostics& d = e.diagnostics();
            if (!ctx.options.json) {
                for (const Diagnostic& x : d.sorted()) ctx.err << x.format() << '\n';
                std::size_t n = d.error_count();
                ctx.out << fmt::format("FAIL  {} ({})\n", file.string(),
                                       n > 0 ? fmt::format("{} error{}", n, n == 1 ? "" : "s") : std::string(e.what()));
            }
            j["ok"] = false;
            j["error"] = e.what();
            j["diagnostics"] = diagnostics_json(d);
        }
        results.push_back(j);
    }
    if (ctx.options.json) {
        nlohmann::ordered_json out = {{"recipes", results},
                                      {"total", files.size()},
                                      {"ok", files.size() - static_cast<std::size_t>(failed)},
                                      {"failed", failed}};
        print_json(ctx, out.dump(2));
    } else {
        ctx.out << fmt::format("{} recipe{}: {} ok, {} invalid\n", files.size(), files.size() == 1 ? "" : "s",
                               files.size() - static_cast<std::size_t>(failed), failed);
    }
    return failed > 0 ? static_cast<int>(ExitCode::invalid_input) : 0;
}

}  // namespace

void setup_validate_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<ValidateOptions>();
    CLI::App* cmd = root.add_subcommand("validate", "Check recipes: schema, parallelism, batch, precision, memory fit");
    cmd->add_option("recipes", opts->recipes, "Recipe files");
    cmd->add_option("-s,--set", opts->overrides, "Override a value in every recipe: -s key=value (repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("--all", opts->all, "Validate every recipe under DIR (skips catalog/ and common/ folders)")
        ->allow_extra_args(false);
    cmd->footer(R"TXT(Examples:
  trainbench validate recipes/aws-p4d/gpt3-126m.yaml
  trainbench validate --all recipes/
  trainbench validate recipes/gcp-a3-mega/gpt3-175b-fp8.yaml -s nodes=16 -s batch.global=1024 --json
Prints "ok  PATH (N GPUs, est. X GiB/GPU of Y)" per valid recipe, every problem of an invalid one
(file:line:column, key, what was expected, a hint), then a summary. Exits 3 if any recipe is invalid.)TXT");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_validate(*opts, ctx); }; });
}

}  // namespace trainbench::cli
