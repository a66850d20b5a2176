// Semantic checks of a loaded recipe (the per-GPU memory estimate is memory.cpp).
#include "recipe/schema.hpp"

#include <trainbench/recipe.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace trainbench::recipe {

namespace {

// The framework's version: framework_config keys exist in it (NeMo), and it writes the log
// the recipe reads.
void validate_framework_profile(const Recipe& r, Diagnostics& d) {
    auto at = [&](const std::string& key) { return origin_of(r, key); };
    const catalog::FrameworkProfile* p = r.profile.get();
    const catalog::FrameworkKind& kind = framework_kind(r);
    if (!r.framework_config.empty() && !kind.config_keys)
        d.error(at("framework_config"), "framework_config",
                fmt::format("framework_config sets NeMo configuration keys; framework '{}' takes command-line "
                            "arguments",
                            r.framework),
                "launch.extra_args", "move these settings to launch.extra_args");
    if (!p) return;
    std::vector<std::string> known;
    for (const auto& [key, value] : r.framework_config.items()) {
        if (p->knows(key)) {
            // the value against the type of the upstream default and the version's enumeration
            if (auto bad = p->check_config(key, value))
                d.error(at("framework_config." + key), "framework_config." + key,
                        fmt::format("{}: {} ({})", key, bad->message, p->schema), bad->expected, bad->hint);
            continue;
        }
        if (known.empty()) known = p->all_keys();
        d.error(at("framework_config." + key), "framework_config." + key,
                fmt::format("'{}' is not a key of {}", key, p->schema), "a key this version reads",
                did_you_mean(key, known));
    }
    // a log format the version does not write (its profile lists what it writes)
    const std::string& source = r.metrics.source;
    if (catalog::find_log_format(source) && !p->writes.empty() &&
        std::find(p->writes.begin(), p->writes.end(), source) == p->writes.end())
        d.error(at("metrics.source"), "metrics.source", fmt::format("{} writes no '{}' log", p->title, source),
                fmt::format("one of {}", quoted_list(p->writes)),
                "read what this version writes, or use a framework_version that writes it");
}

// What the catalog's row of the framework says a recipe of it may ask (catalog::FrameworkKind):
// its own command, the precisions it trains in, the parallelism and GPUs its launcher takes.
void validate_framework_rules(const Recipe& r, Diagnostics& d) {
    auto at = [&](const std::string& key) { return origin_of(r, key); };
    const catalog::FrameworkKind& kind = framework_kind(r);
    const std::string& name = r.framework;
    if (kind.own_command) {
        if (r.launch.command.empty())
            d.error(at("launch"), "launch.command", fmt::format("framework '{}' needs the training command", name),
                    "launch.command: [argv...]");
        if (r.launch.log_format.empty())
            d.error(at("launch"), "launch.log_format", fmt::format("framework '{}' needs the format of its log", name),
                    fmt::format("one of {}", quoted_list(log_format_names())));
    } else if (!r.launch.command.empty()) {
        d.error(
            at("launch.command"), "launch.command",
            fmt::format(
                "launch.command replaces the whole training command and is only for framework 'custom' (this is '{}')",
                name),
            "launch.extra_args to add arguments", "use launch.extra_args, or framework: custom");
    }
    const auto& allowed = kind.gpu_precisions;
    if (!allowed.empty() && r.gpu.family != "cpu" &&
        std::find(allowed.begin(), allowed.end(), r.precision) == allowed.end()) {
        std::vector<std::string> names;
        for (catalog::Precision p : allowed) names.emplace_back(catalog::to_string(p));
        d.error(at("precision"), "precision",
                fmt::format("the {} workload trains in {}, not {}", name, fmt::join(names, " or "),
                            catalog::to_string(r.precision)),
                fmt::format("one of {}", quoted_list(names)));
    }
    if (!kind.pipeline_parallel && r.parallelism.pipeline != 1)
        d.error(at("parallelism.pipeline"), "parallelism.pipeline", fmt::format("{} has no pipeline parallelism", name),
                "1");
    if (!kind.context_parallel && r.parallelism.context != 1)
        d.error(at("parallelism.context"), "parallelism.context", fmt::format("{} has no context parallelism", name),
                "1");
    if (r.gpus_per_node_effective() < kind.min_gpus_per_node)
        d.error(at("gpus_per_node"), "gpus_per_node",
                fmt::format("{}'s launcher needs at least {} GPUs per node", name, kind.min_gpus_per_node),
                fmt::format(">= {}", kind.min_gpus_per_node));
}

// Checkpoints and TensorBoard logs go to the run directory (logs/<stage>/...), which the
// framework's launch builder names, so no two runs or recipes share them. Words of
// launch.extra_args are literal text that cannot name the run directory: they may not move them.
void validate_run_outputs(const Recipe& r, Diagnostics& d) {
    const catalog::FrameworkKind& kind = framework_kind(r);
    for (const std::string& word : r.launch.extra_args) {
        std::string flag = word.substr(0, word.find('='));
        for (const catalog::OwnedOutput& o : kind.owned_outputs) {
            if (flag != o.flag) continue;
            d.error(origin_of(r, "launch.extra_args"), "launch.extra_args",
                    fmt::format("'{}' would make runs share a directory: trainbench writes {}", flag, o.where), "",
                    fmt::format("remove '{}' and its value", flag));
        }
    }
}

// The expert layers' own layout: expert x expert_tensor x pipeline ranks hold one copy of the
// experts (Megatron's expert data parallel is what is left of the world).
void validate_expert_layout(const Recipe& r, Diagnostics& d) {
    const Parallelism& par = r.parallelism;
    const int total = r.total_gpus();
    auto at = [&](const std::string& key) { return origin_of(r, key); };
    if (par.expert_tensor > 0 && r.model.experts == 0)
        d.error(at("parallelism.expert_tensor"), "parallelism.expert_tensor",
                fmt::format("expert tensor parallel {} on a dense model", par.expert_tensor),
                "no expert_tensor for a model without experts");
    if (r.model.experts == 0 || total <= 0) return;
    const int etp = par.expert_tensor > 0 ? par.expert_tensor : par.tensor;
    const long long layout = static_cast<long long>(par.expert) * etp * par.pipeline;
    if (total % layout != 0)
        d.error(at(par.expert_tensor > 0 ? "parallelism.expert_tensor" : "parallelism.expert"),
                par.expert_tensor > 0 ? "parallelism.expert_tensor" : "parallelism.expert",
                fmt::format("expert {} x expert_tensor {} x pipeline {} = {} does not divide the {} GPUs", par.expert,
                            etp, par.pipeline, layout, total),
                "expert x expert_tensor x pipeline dividing nodes x gpus_per_node",
                "change the node count or the expert parallelism");
    const int expert_ffn = r.model.expert_ffn_size();
    if (expert_ffn > 0 && expert_ffn % etp != 0)
        d.error(at(par.expert_tensor > 0 ? "parallelism.expert_tensor" : "parallelism.tensor"),
                par.expert_tensor > 0 ? "parallelism.expert_tensor" : "parallelism.tensor",
                fmt::format("the expert FFN size {} is not divisible by expert tensor parallel {}", expert_ffn, etp),
                "an expert tensor size that divides the expert FFN");
}

// The container runtime against the scheduler, its image and the env names Pyxis passes.
void validate_container(const Recipe& r, Diagnostics& d) {
    auto at = [&](const std::string& key) { return origin_of(r, key); };
    // container runtime against the scheduler
    const std::string& rt = r.container.runtime;
    const catalog::Scheduler sched = r.target.scheduler;
    if ((rt == "pyxis" || rt == "enroot") && sched != catalog::Scheduler::slurm)
        d.error(at("container.runtime"), "container.runtime",
                fmt::format("runtime '{}' needs a Slurm target; '{}' uses {}", rt, r.target.name,
                            catalog::to_string(sched)),
                sched == catalog::Scheduler::kubernetes ? "'containerd'" : "'none'");
    if (rt == "containerd" && sched != catalog::Scheduler::kubernetes)
        d.error(at("container.runtime"), "container.runtime",
                fmt::format("runtime 'containerd' is for Kubernetes targets; '{}' uses {}", r.target.name,
                            catalog::to_string(sched)),
                "'pyxis', 'enroot' or 'none'");
    if (rt != "none" && r.container.image.empty())
        d.error(at("container"), "container.image", fmt::format("container runtime '{}' needs an image", rt),
                "a registry image or a .sqsh path", "set container.image, or container.runtime: none");
    // container.env: names for Pyxis's srun --container-env (their host values win over the image's)
    if (!r.container.env.empty() && rt != "pyxis" && rt != "enroot")
        d.error(at("container.env"), "container.env",
                fmt::format("container.env names variables for Pyxis (srun --container-env); runtime '{}' has no "
                            "such option",
                            rt),
                "runtime 'pyxis'", "remove container.env (the job's env reaches the program as it is)");
    std::vector<std::string> seen;
    for (const std::string& name : r.container.env) {
        bool valid =
            !name.empty() && !(name[0] >= '0' && name[0] <= '9') && std::all_of(name.begin(), name.end(), [](char c) {
                return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
            });
        if (!valid)
            d.error(at("container.env"), "container.env", fmt::format("'{}' is not an environment variable name", name),
                    "letters, digits and '_', not starting with a digit");
        else if (std::find(seen.begin(), seen.end(), name) != seen.end())
            d.error(at("container.env"), "container.env", fmt::format("'{}' is named twice", name), "each name once");
        seen.push_back(name);
    }
}

// ---------------------------------------------------------------- the rules of validate_recipe

// The target has the GPUs per node the recipe asks for; at least one node.
void check_gpus_and_nodes(const Recipe& r, Diagnostics& d) {
    if (r.gpus_per_node > r.target.gpus_per_node)
        d.error(origin_of(r, "gpus_per_node"), "gpus_per_node",
                fmt::format("{} GPUs per node, but target '{}' has {}", r.gpus_per_node, r.target.name,
                            r.target.gpus_per_node),
                fmt::format("at most {}", r.target.gpus_per_node));
    if (r.nodes < 1) d.error(origin_of(r, "nodes"), "nodes", fmt::format("{} nodes", r.nodes), "an integer >= 1");
}

// tensor x pipeline x context divides the GPUs.
void check_model_parallel_divides(const Recipe& r, Diagnostics& d) {
    const Parallelism& par = r.parallelism;
    const int total = r.total_gpus();
    const int model_parallel = par.tensor * par.pipeline * par.context;
    if (model_parallel > 0 && total % model_parallel == 0) return;
    std::string key =
        par.pipeline > 1 && !find_origin(r, "parallelism.tensor") ? "parallelism.pipeline" : "parallelism.tensor";
    d.error(origin_of(r, key), key,
            fmt::format("tensor {} x pipeline {} x context {} = {} does not divide the {} GPUs ({} node{} x {})",
                        par.tensor, par.pipeline, par.context, model_parallel, total, r.nodes, r.nodes == 1 ? "" : "s",
                        r.gpus_per_node_effective()),
            "tensor x pipeline x context dividing nodes x gpus_per_node",
            "change the node count or the model parallelism");
}

// Tensor parallelism splits the attention heads and the kv heads.
void check_heads_divide(const Recipe& r, Diagnostics& d) {
    const int tensor = r.parallelism.tensor;
    const catalog::Model& m = r.model;
    if (m.heads > 0 && m.heads % tensor != 0)
        d.error(origin_of(r, "parallelism.tensor"), "parallelism.tensor",
                fmt::format("{} attention heads are not divisible by tensor parallel {}", m.heads, tensor),
                "a tensor size that divides the heads");
    if (m.kv_heads > 0 && m.kv_heads % tensor != 0)
        d.error(origin_of(r, "parallelism.tensor"), "parallelism.tensor",
                fmt::format("{} kv heads are not divisible by tensor parallel {}", m.kv_heads, tensor),
                "a tensor size that divides the kv heads");
}

// The (virtual) pipeline stages split the layers evenly (a pipeline_layout places the layers
// itself: validate_pipeline_layout).
void check_layers_divide(const Recipe& r, Diagnostics& d) {
    auto at = [&](const std::string& key) { return origin_of(r, key); };
    const Parallelism& par = r.parallelism;
    const catalog::Model& m = r.model;
    const bool even = par.pipeline_layout.empty();
    if (even && m.layers > 0 && m.layers % par.pipeline != 0)
        d.error(at("parallelism.pipeline"), "parallelism.pipeline",
                fmt::format("{} layers are not divisible by pipeline parallel {}", m.layers, par.pipeline),
                "a pipeline size that divides the layers", "or give parallelism.pipeline_layout");
    if (par.virtual_pipeline <= 0) return;
    if (par.pipeline < 2)
        d.error(at("parallelism.virtual_pipeline"), "parallelism.virtual_pipeline",
                "an interleaved (virtual) pipeline needs pipeline > 1", "pipeline >= 2 or virtual_pipeline 0");
    else if (even && m.layers > 0 && m.layers % (par.pipeline * par.virtual_pipeline) != 0)
        d.error(at("parallelism.virtual_pipeline"), "parallelism.virtual_pipeline",
                fmt::format("{} layers are not divisible by pipeline {} x virtual_pipeline {} = {} model chunks",
                            m.layers, par.pipeline, par.virtual_pipeline, par.pipeline * par.virtual_pipeline),
                "pipeline x virtual_pipeline dividing the layers");
}

// Sequence parallelism needs tensor parallelism; context parallelism splits the sequence in 2 x context.
void check_sequence_and_context(const Recipe& r, Diagnostics& d) {
    const Parallelism& par = r.parallelism;
    const int seq_length = r.model.seq_length;
    if (par.sequence_parallel && par.tensor < 2)
        d.error(origin_of(r, "parallelism.sequence_parallel"), "parallelism.sequence_parallel",
                "sequence parallelism needs tensor parallel > 1", "tensor >= 2, or sequence_parallel: false");
    if (par.context > 1 && seq_length % (2 * par.context) != 0)
        d.error(origin_of(r, "parallelism.context"), "parallelism.context",
                fmt::format("sequence length {} is not divisible by 2 x context parallel {}", seq_length, par.context),
                "a context size with seq_length % (2 x context) == 0");
}

// Expert parallelism needs experts and divides them.
void check_expert_parallel(const Recipe& r, Diagnostics& d) {
    const int expert = r.parallelism.expert;
    const int experts = r.model.experts;
    if (expert <= 1) return;
    if (experts == 0)
        d.error(origin_of(r, "parallelism.expert"), "parallelism.expert",
                fmt::format("expert parallel {} on a dense model", expert), "1 for a model without experts");
    else if (experts % expert != 0)
        d.error(origin_of(r, "parallelism.expert"), "parallelism.expert",
                fmt::format("{} experts are not divisible by expert parallel {}", experts, expert),
                "an expert size that divides the experts");
}

// The global batch is a multiple of micro batch x data parallel.
void check_batch_divides(const Recipe& r, Diagnostics& d) {
    const int dp = r.data_parallel();
    if (dp <= 0) return;
    long long unit = static_cast<long long>(r.batch.micro) * dp;
    if (r.batch.global % unit != 0)
        d.error(origin_of(r, "batch.global"), "batch.global",
                fmt::format("global batch {} is not divisible by micro batch {} x data parallel {} = {}",
                            r.batch.global, r.batch.micro, dp, unit),
                fmt::format("a multiple of {}", unit),
                fmt::format("e.g. batch.global: {}", std::max(unit, (r.batch.global / unit + 1) * unit)));
}

// The target's GPU computes in the recipe's precision (the CPU 'GPU' of local targets: any).
void check_gpu_precision(const Recipe& r, Diagnostics& d) {
    if (r.gpu.family == "cpu" || r.gpu.name.empty() || r.gpu.supports(r.precision)) return;
    d.error(origin_of(r, "precision"), "precision",
            fmt::format("GPU '{}' of target '{}' has no {} support", r.gpu.name, r.target.name,
                        catalog::to_string(r.precision)),
            fmt::format("one of the GPU's precisions: {}", quoted_list(r.gpu.precision_names())),
            r.precision == catalog::Precision::fp8 ? "fp8 needs Hopper or Blackwell (H100, H200, B200, ...)"
            : r.precision == catalog::Precision::mxfp8 || r.precision == catalog::Precision::nvfp4
                ? "MXFP8 and NVFP4 need Blackwell (B200, GB200, B300, GB300)"
                : "");
}

// The measurement window lies within the steps.
void check_metrics_window(const Recipe& r, Diagnostics& d) {
    if (r.metrics.window_start > r.metrics.window_end)
        d.error(origin_of(r, "metrics.window"), "metrics.window",
                fmt::format("window [{}, {}] starts after it ends", r.metrics.window_start, r.metrics.window_end),
                "[first_step, last_step] with first <= last");
    else if (r.metrics.window_end > r.steps)
        d.error(origin_of(r, "metrics.window"), "metrics.window",
                fmt::format("window [{}, {}] goes beyond the {} steps", r.metrics.window_start, r.metrics.window_end,
                            r.steps),
                fmt::format("a last step <= steps ({})", r.steps), "raise steps or end the window earlier");
}

// The nsys range lies within the steps, on ranks that exist.
void check_profiling(const Recipe& r, Diagnostics& d) {
    auto at = [&](const std::string& key) { return origin_of(r, key); };
    const Profiling& p = r.profiling;
    const int total = r.total_gpus();
    if (!p.nsys) return;
    if (p.start_step >= p.end_step)
        d.error(at("profiling.start_step"), "profiling.start_step",
                fmt::format("profiling starts at step {} but ends at {}", p.start_step, p.end_step),
                "start_step < end_step");
    else if (p.end_step > r.steps)
        d.error(at("profiling.end_step"), "profiling.end_step",
                fmt::format("profiling ends at step {}, after the last step {}", p.end_step, r.steps),
                fmt::format("end_step <= steps ({})", r.steps));
    for (int rank : p.ranks)
        if (rank >= total && total > 0)
            d.error(at("profiling.ranks"), "profiling.ranks",
                    fmt::format("rank {} does not exist ({} ranks)", rank, total),
                    fmt::format("ranks below {}", total));
}

// Full recompute of at most the layers one pipeline stage holds.
void check_recompute_layers(const Recipe& r, Diagnostics& d) {
    const int pipeline = r.parallelism.pipeline;
    const int layers = r.model.layers;
    const Recompute& rc = r.recompute;
    if (rc.granularity == "full" && rc.num_layers > 0 && pipeline > 0 && layers > 0 &&
        rc.num_layers > layers / pipeline)
        d.error(origin_of(r, "recompute.num_layers"), "recompute.num_layers",
                fmt::format("{} layers to recompute, but a pipeline stage has {}", rc.num_layers, layers / pipeline),
                fmt::format("at most {}", layers / pipeline));
}

// The estimate per GPU fits in its memory (skipped on the CPU 'GPU' of the local targets, whose
// memory is unknown).
void check_memory_fit(const Recipe& r, Diagnostics& d) {
    const bool known = r.gpu.family != "cpu" && r.gpu.memory_gib > 0 && r.model.layers > 0;
    if (!known) return;
    MemoryEstimate e = estimate_memory(r);
    if (e.fits()) return;
    std::string key = find_origin(r, "parallelism") ? "parallelism" : "model";
    d.error(origin_of(r, key), "memory",
            fmt::format("estimated {:.1f} GiB per GPU does not fit in the {:.1f} GiB of '{}' (weights {:.1f}, "
                        "gradients {:.1f}, optimizer {:.1f}, activations {:.1f} GiB with recompute '{}'; "
                        "{:.2f}B parameters, {:.2f}B per GPU)",
                        e.total / k_gib, e.capacity / k_gib, r.gpu.name, e.weights / k_gib, e.gradients / k_gib,
                        e.optimizer / k_gib, e.activations / k_gib, r.recompute.granularity, e.parameters / 1e9,
                        e.parameters_per_gpu / 1e9),
            "a configuration that fits in GPU memory",
            fmt::format("raise parallelism.tensor/pipeline or nodes, {}{}lower batch.micro",
                        r.distributed_optimizer ? "" : "set distributed_optimizer: true, ",
                        r.recompute.granularity == "full" ? "" : "use recompute: {granularity: full}, "));
}

// A rule of validate_recipe: its name and the check that reports its problems.
struct Rule {
    std::string_view name;
    void (*check)(const Recipe&, Diagnostics&);
};

// Every cross-field rule of a recipe, in the order their problems are reported.
constexpr Rule k_rules[] = {
    {"gpus and nodes fit the target", check_gpus_and_nodes},
    {"model parallelism divides the GPUs", check_model_parallel_divides},
    {"tensor parallelism divides the heads", check_heads_divide},
    {"pipeline stages divide the layers", check_layers_divide},
    {"sequence and context parallelism", check_sequence_and_context},
    {"expert parallelism divides the experts", check_expert_parallel},
    {"expert layout divides the GPUs", validate_expert_layout},
    {"global batch divides", check_batch_divides},
    {"GPU supports the precision", check_gpu_precision},
    {"metrics window within the steps", check_metrics_window},
    {"profiling range and ranks", check_profiling},
    {"recompute layers per stage", check_recompute_layers},
    {"framework rules (catalog row)", validate_framework_rules},
    {"framework profile (config keys, log)", validate_framework_profile},
    {"run outputs stay in the run directory", validate_run_outputs},
    {"container runtime, image and env", validate_container},
    {"memory fits the GPU", check_memory_fit},
    {"job values render would refuse", validate_job_values},  // job_values.cpp
    {"stage options", validate_stage_options},                // stages.cpp
    {"placement segments", validate_placement},               // placement.cpp
    {"pipeline layout", validate_pipeline_layout},            // pipeline_layout.cpp
    {"recompute modules", validate_recompute_modules},        // placement.cpp
};

}  // namespace

void validate_recipe(const Recipe& r, Diagnostics& d) {
    for (const Rule& rule : k_rules) rule.check(r, d);
}

}  // namespace trainbench::recipe
