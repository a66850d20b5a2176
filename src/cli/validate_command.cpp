// trainbench validate RECIPE...: schema and semantic checks, with the memory estimate.
#include "cli/app.hpp"

#include <trainbench/pipeline.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace trainbench::cli {

namespace {

struct ValidateOptions {
    std::vector<std::string> recipes;
    std::vector<std::string> overrides;
    std::vector<std::string> all;
};

nlohmann::ordered_json diagnostics_json(const Diagnostics& d) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const Diagnostic& x : d.sorted())
        a.push_back({{"severity", severity_name(x.severity)},
                     {"location", x.location.to_string()},
                     {"key", x.key},
                     {"message", x.message},
                     {"expected", x.expected},
                     {"hint", x.hint}});
    return a;
}

nlohmann::ordered_json check_json(const pipeline::RecipeCheck& c) {
    nlohmann::ordered_json j = {{"path", c.file.string()}, {"ok", c.ok}};
    if (!c.ok) {
        j["error"] = c.error;
        j["diagnostics"] = diagnostics_json(c.diagnostics);
        return j;
    }
    const auto& e = c.memory;
    j["name"] = c.name;
    j["gpus"] = c.gpus;
    j["data_parallel"] = c.data_parallel;
    j["memory"] = {{"checked", c.memory_checked},
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
    j["diagnostics"] = diagnostics_json(c.diagnostics);
    return j;
}

// "ok    PATH (N GPUs, est. X GiB/GPU of Y)", or every problem on stderr and "FAIL  PATH (N errors)".
void print_check(Context& ctx, const pipeline::RecipeCheck& c) {
    if (!c.ok) {
        for (const Diagnostic& x : c.diagnostics.sorted()) ctx.err << x.format() << '\n';
        std::size_t n = c.diagnostics.error_count();
        ctx.out << fmt::format("FAIL  {} ({})\n", c.file.string(),
                               n > 0 ? fmt::format("{} error{}", n, n == 1 ? "" : "s") : c.error);
        return;
    }
    const auto& e = c.memory;
    std::string memory = c.memory_checked
                             ? fmt::format("est. {:.1f} GiB/GPU of {:.1f}", e.total / k_gib, e.capacity / k_gib)
                             : fmt::format("est. {:.1f} GiB/GPU, memory not checked on '{}'", e.total / k_gib, c.gpu);
    ctx.out << fmt::format("ok    {} ({} GPU{}, {})\n", c.file.string(), c.gpus, c.gpus == 1 ? "" : "s", memory);
}

int run_validate(const ValidateOptions& opts, Context& ctx) {
    pipeline::ValidateRequest request;
    request.files = opts.recipes;
    request.all = opts.all;
    request.overrides = opts.overrides;
    const pipeline::ValidateResult result =
        pipeline::validate_recipes(ctx.services(), request, [&ctx](const pipeline::RecipeCheck& c) {
            if (!ctx.options.json) print_check(ctx, c);
        });
    const std::size_t total = result.recipes.size();
    if (ctx.options.json) {
        nlohmann::ordered_json recipes = nlohmann::ordered_json::array();
        for (const pipeline::RecipeCheck& c : result.recipes) recipes.push_back(check_json(c));
        nlohmann::ordered_json out = {
            {"recipes", recipes}, {"total", total}, {"ok", total - result.failed}, {"failed", result.failed}};
        print_json(ctx, out.dump(2));
    } else {
        ctx.out << fmt::format("{} recipe{}: {} ok, {} invalid\n", total, total == 1 ? "" : "s", total - result.failed,
                               result.failed);
    }
    return result.failed > 0 ? static_cast<int>(ExitCode::invalid_input) : 0;
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
