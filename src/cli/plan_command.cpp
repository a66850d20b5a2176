// trainbench plan RECIPE: parameters, FLOPs per step per convention, memory
// per GPU, checkpoint size and write time, estimated step time, days and
// GPU-hours; --search ranks TP/PP/micro-batch configurations.
#include "cli/app.hpp"

#include <trainbench/plan.hpp>
#include <trainbench/recipe.hpp>

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

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;
constexpr double k_tib = k_gib * 1024.0;

std::string gib(double bytes) {
    return fmt::format("{:.2f} GiB", bytes / k_gib);
}

std::string opt_fmt(const std::optional<double>& v, const char* spec_fmt) {
    return v ? fmt::format(fmt::runtime(spec_fmt), *v) : std::string("-");
}

void print_plan(const plan::Plan& p, std::ostream& out) {
    out << fmt::format("plan for '{}': model {}, target {} ({}), {} node{} x {} = {} GPUs\n", p.recipe_name, p.model,
                       p.target, p.gpu, p.nodes, p.nodes == 1 ? "" : "s", p.nodes > 0 ? p.gpus / p.nodes : 0, p.gpus);
    out << fmt::format("parallelism: TP {} PP {} DP {}; micro batch {}, global batch {}, sequence {}\n", p.tensor,
                       p.pipeline, p.data_parallel, p.micro, p.global, p.seq_length);
    out << fmt::format("parameters: {:.4g} ({:.3f} B)\n\n", p.parameters, p.parameters / 1e9);

    out << "FLOPs per step (forward + backward, global batch):\n";
    out << fmt::format("  {:<15} {:>14} {:>14}  {}\n", "convention", "per sample", "per step", "note");
    for (const plan::FlopsRow& f : p.flops)
        out << fmt::format("  {:<15} {:>14} {:>14}  {}{}\n", f.convention, opt_fmt(f.per_sample, "{:.4e}"),
                           opt_fmt(f.per_step, "{:.4e}"), f.hardware_flops_like ? "[hardware FLOPs] " : "", f.note);

    const recipe::MemoryEstimate& m = p.memory;
    out << fmt::format("\nmemory per GPU (estimate; {:.4g} parameters on the largest stage):\n", m.parameters_per_gpu);
    out << fmt::format("  weights                 {:>12}\n", gib(m.weights));
    out << fmt::format("  gradients               {:>12}\n", gib(m.gradients));
    out << fmt::format("  optimizer               {:>12}   (distributed optimizer: {}; without: {})\n",
                       gib(m.optimizer), gib(p.optimizer_with_distributed_optimizer),
                       gib(p.optimizer_without_distributed_optimizer));
    out << fmt::format("  activations             {:>12}   (no recompute: {}; selective: {}; full: {})\n",
                       gib(m.activations), gib(m.activations_no_recompute), gib(p.activations_selective),
                       gib(m.activations_full_recompute));
    out << fmt::format("  total                   {:>12}   of {} ({}); with distributed optimizer {}, without {}\n",
                       gib(m.total), gib(m.capacity), m.fits() ? "fits" : "DOES NOT FIT",
                       gib(p.total_with_distributed_optimizer), gib(p.total_without_distributed_optimizer));

    out << fmt::format(
        "\ncheckpoint: {:.3f} TiB ({:.3g} bytes; {:g} bytes/parameter: weights + fp32 master + Adam m, v)\n",
        p.checkpoint_bytes / k_tib, p.checkpoint_bytes, p.parameters > 0 ? p.checkpoint_bytes / p.parameters : 0.0);
    for (const plan::CheckpointTier& t : p.checkpoint_tiers)
        out << fmt::format("  {:<12} {:>7g} GB/s  write {:>7.2f} min\n", t.label, t.bandwidth_gbs,
                           t.write_seconds / 60.0);

    out << fmt::format("\nestimate at MFU {:g} ({} FLOPs, peak {}):\n", p.assume_mfu, p.convention,
                       p.peak_tflops ? fmt::format("{:g} TFLOPS/GPU, {}", *p.peak_tflops, p.peak_source) : "unknown");
    out << fmt::format("  step time               {}\n", opt_fmt(p.step_time_s, "{:.3f} s"));
    out << fmt::format("  tokens per step         {:.0f}\n", p.tokens_per_step);
    out << fmt::format("  days to train {:.3g} tokens  {}\n", p.train_tokens, opt_fmt(p.days_to_train, "{:.2f}"));
    out << fmt::format("  GPU-hours (those tokens) {}\n", opt_fmt(p.gpu_hours_to_train, "{:.0f}"));
    out << fmt::format("  GPU-hours (recipe steps) {}\n", opt_fmt(p.gpu_hours_recipe, "{:.2f}"));
    for (const std::string& n : p.notes) out << "note: " << n << '\n';
}

int run_plan(const PlanOptions& opts, Context& ctx) {
    if (!(opts.assume_mfu > 0 && opts.assume_mfu <= 1))
        throw UsageError(fmt::format("--assume-mfu {} is not in (0, 1]", opts.assume_mfu), "e.g. --assume-mfu 0.4");
    if (!(opts.tokens > 0)) throw UsageError("--tokens must be positive", "e.g. --tokens 300e9");
    for (double bw : opts.fs_bandwidth)
        if (!(bw > 0))
            throw UsageError(fmt::format("--fs-bandwidth {} is not positive", bw), "GB/s, e.g. --fs-bandwidth 19.2");
    recipe::LoadOptions load;
    load.recipe_roots = ctx.data_dirs().recipes;
    for (const std::string& s : opts.overrides) load.overrides.push_back(recipe::parse_override(s));
    recipe::Recipe r = recipe::load_recipe(opts.recipe, ctx.catalog(), load);
    Diagnostics d;
    recipe::validate_recipe(r, d);

    if (opts.search) {
        plan::SearchOptions so;
        so.assume_mfu = opts.assume_mfu;
        so.min_headroom = opts.min_headroom;
        std::vector<plan::Candidate> all = plan::search(r, so);
        std::size_t n = std::min(all.size(), static_cast<std::size_t>(std::max(opts.top, 0)));
        if (ctx.options.json) {
            nlohmann::ordered_json a = nlohmann::ordered_json::array();
            for (std::size_t i = 0; i < n; ++i) {
                const plan::Candidate& c = all[i];
                a.push_back({{"rank", i + 1},
                             {"tensor", c.tensor},
                             {"pipeline", c.pipeline},
                             {"micro", c.micro},
                             {"sequence_parallel", c.sequence_parallel},
                             {"memory_per_gpu_bytes", c.memory_per_gpu},
                             {"capacity_bytes", c.capacity},
                             {"headroom", c.headroom},
                             {"relative_efficiency", c.relative_efficiency},
                             {"step_time_s",
                              c.step_time_s ? nlohmann::ordered_json(*c.step_time_s) : nlohmann::ordered_json(nullptr)},
                             {"tokens_per_s",
                              c.step_time_s ? nlohmann::ordered_json(c.score) : nlohmann::ordered_json(nullptr)}});
            }
            nlohmann::ordered_json out = {{"recipe", r.name},
                                          {"model", r.model_name},
                                          {"target", r.target_name},
                                          {"nodes", r.nodes},
                                          {"gpus", r.total_gpus()},
                                          {"assume_mfu", opts.assume_mfu},
                                          {"valid_configurations", all.size()},
                                          {"candidates", a}};
            print_json(ctx, out.dump(2));
            return 0;
        }
        ctx.out << fmt::format("{} valid TP/PP/micro-batch configurations of {} on {} x {} ({} GPUs); top {}:\n",
                               all.size(), r.model_name, r.nodes, r.target_name, r.total_gpus(), n);
        ctx.out << fmt::format("{:>4} {:>3} {:>3} {:>4} {:>3} {:>11} {:>9} {:>10} {:>11} {:>12}\n", "rank", "tp", "pp",
                               "mbs", "sp", "mem/GPU", "headroom", "rel. eff.", "step time", "tokens/s");
        for (std::size_t i = 0; i < n; ++i) {
            const plan::Candidate& c = all[i];
            ctx.out << fmt::format("{:>4} {:>3} {:>3} {:>4} {:>3} {:>11} {:>8.1f}% {:>10.3f} {:>11} {:>12}\n", i + 1,
                                   c.tensor, c.pipeline, c.micro, c.sequence_parallel ? "on" : "off",
                                   fmt::format("{:.1f} GiB", c.memory_per_gpu / k_gib), c.headroom * 100.0,
                                   c.relative_efficiency, opt_fmt(c.step_time_s, "{:.3f} s"),
                                   c.step_time_s ? fmt::format("{:.0f}", c.score) : std::string("-"));
        }
        if (!ctx.options.quiet)
            ctx.err
                << "ranked by estimated throughput (MFU x pipeline-bubble, tensor-parallel and micro-batch factors), "
                   "then memory headroom; a starting point for a sweep, not a prediction\n";
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
        print_plan(p, ctx.out);
        for (const Diagnostic& x : d.sorted()) ctx.err << x.format() << '\n';
    }
    return 0;
}

}  // namespace

void setup_plan_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<PlanOptions>();
    CLI::App* cmd = root.add_subcommand("plan",
                                        "Estimate a recipe before spending GPU hours: FLOPs, memory, checkpoint, step "
                                        "time, days; --search ranks TP/PP/MBS");
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
                  "Rank valid TP/PP/micro-batch configurations on the recipe's target and nodes");
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
