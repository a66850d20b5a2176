// TorchTitan main at b5bcd76c (2026-08-21), after TOML configs were removed (2026-02-23): a run is
// `torchrun ... -m torchtitan.train --module <module> --config <function>`, the function (of the
// module's config_registry.py) returning a whole Trainer.Config, then `--section.option` flags,
// which "still work and take precedence" (torchtitan/config/README.md at b5bcd76c: frozen, not
// removed). ConfigManager._load_config takes --module/--config off the command line and tyro
// parses the rest over the function's config (manager.py): flags spelled as tyro's help spells
// them (hyphens; it reads underscores alike), a bool `--a.b` / `--a.no-b`, a list[str] one
// comma-separated word (manager.py's list_str_rule).
//
// The function is picked from the recipe's model and precision (the registry table below). What
// the function holds and no CLI flag can change (Trainer.Config.model_spec is tyro.conf.Suppress:
// the flavour, the float8 / MX / NVFP4 converters; the activation checkpointing class, the
// dataloader and the checkpoint, profiler and optimizer sections, whose dataclasses are not in the
// reference, so no flag of theirs can be checked) must be what the recipe asks, or validate says
// which function would do. Then flags for what the recipe sets: the tokens of a microbatch and of
// a step (batch x sequence), the context length, the steps, the parameter dtype, the parallelism
// degrees (FSDP over the data-parallel ranks), every step logged without colour or TensorBoard,
// the tokenizer folder of the checkout and the run's own dump folder; then framework_config's keys
// as flags, then launch.extra_args.
#include "render/frameworks/framework.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>

namespace trainbench::render {

namespace {

using catalog::Precision;

constexpr const char* k_workdir = "/workspace/torchtitan";  // a checkout of torchtitan at b5bcd76c
constexpr const char* k_module = "llama3";                  // the one config registry of the reference

// A function of torchtitan/models/llama3/config_registry.py at b5bcd76c: the model flavour it
// builds, the precision its converters give, its activation checkpointing class.
struct RegistryFunction {
    const char* function;
    const char* model;  // the catalog model of its flavour
    Precision precision;
    const char* recompute;  // SelectiveAC -> "selective", FullAC -> "full"
};

constexpr std::array k_registry{
    RegistryFunction{"llama3_8b", "llama3.1-8b", Precision::bf16, "selective"},
    RegistryFunction{"llama3_8b_mxfp8", "llama3.1-8b", Precision::mxfp8, "selective"},
    RegistryFunction{"llama3_8b_first_85_pct_layers_nvfp4", "llama3.1-8b", Precision::nvfp4, "selective"},
    RegistryFunction{"llama3_70b", "llama3.1-70b", Precision::bf16, "full"},
    RegistryFunction{"llama3_405b", "llama3.1-405b", Precision::fp8, "full"},
};

// The flags trainbench sets from first-class recipe keys (framework_config and launch.extra_args
// may not set them: the report, the memory check and validate read those).
constexpr std::array<std::pair<const char*, const char*>, 17> k_owned{{
    {"module", "the model (the config registry)"},
    {"config", "the model and precision (the registry function)"},
    {"hf_assets_path", "launch.workdir (<workdir>/assets/hf/<model>)"},
    {"dump_folder", "the run directory (logs/<stage>/torchtitan)"},
    {"metrics.log_freq", "1: the report reads every step"},
    {"training.num_tokens_per_microbatch_per_dp_rank", "batch.micro x model.seq_length"},
    {"training.num_tokens_per_train_step", "batch.global x model.seq_length"},
    {"training.max_context_length", "model.seq_length"},
    {"training.steps", "steps"},
    {"training.mixed_precision_param", "precision"},
    {"parallelism.data_parallel_replicate_degree", "1 (the data-parallel ranks shard: FSDP)"},
    {"parallelism.data_parallel_shard_degree", "the GPUs over tensor x pipeline x context"},
    {"parallelism.tensor_parallel_degree", "parallelism.tensor"},
    {"parallelism.enable_sequence_parallel", "parallelism.sequence_parallel"},
    {"parallelism.pipeline_parallel_degree", "parallelism.pipeline"},
    {"parallelism.context_parallel_degree", "parallelism.context"},
    {"parallelism.num_pp_microbatches", "batch.global over data parallel x batch.micro"},
}};

std::string workdir(const recipe::Recipe& r) {
    return r.launch.workdir.empty() ? std::string(k_workdir) : r.launch.workdir;
}

bool bf16_family(Precision p) {
    return p == Precision::bf16 || p == Precision::fp32 || p == Precision::tf32;
}

// fp32 and tf32 train with a bf16 function and float32 parameters (training.mixed_precision_param)
bool same_precision(Precision function, Precision recipe) {
    return function == recipe || (bf16_family(function) && bf16_family(recipe));
}

const RegistryFunction* registry_function(const recipe::Recipe& r) {
    for (const RegistryFunction& f : k_registry)
        if (r.model.name == f.model && same_precision(f.precision, r.precision)) return &f;
    return nullptr;
}

std::string title(const recipe::Recipe& r) {
    return fmt::format("TorchTitan {}", r.framework_version);
}

// No function for the model, or none at the recipe's precision: at the key to change.
void function_problem(const recipe::Recipe& r, std::vector<ModelProblem>& out) {
    std::vector<std::string> models, listed, precisions;
    for (const RegistryFunction& f : k_registry) {
        listed.push_back(fmt::format("{} ({} {})", f.function, f.model, catalog::to_string(f.precision)));
        if (std::find(models.begin(), models.end(), f.model) == models.end()) models.emplace_back(f.model);
        if (r.model.name == f.model) precisions.emplace_back(catalog::to_string(f.precision));
    }
    if (precisions.empty()) {
        std::string hint = did_you_mean(r.model.name, models);
        out.push_back({"model",
                       fmt::format("{}'s config registry (--module {}) has no function for model '{}'{}", title(r),
                                   k_module, r.model.name, hint.empty() ? "" : "; " + hint),
                       fmt::format("one of {}", fmt::join(listed, ", "))});
        return;
    }
    out.push_back({"precision",
                   fmt::format("{}'s config registry has no {} function for model '{}' (its converters are part of "
                               "the function's model_spec, which no flag sets); did you mean {}?",
                               title(r), catalog::to_string(r.precision), r.model.name, fmt::join(precisions, " or ")),
                   fmt::format("one of {}", fmt::join(listed, ", "))});
}

void owned_problems(const recipe::Recipe& r, std::vector<ModelProblem>& out) {
    for (const auto& [key, from] : k_owned) {
        if (r.framework_config.contains(key))
            out.push_back({"framework_config." + std::string(key),
                           fmt::format("'{}' comes from the recipe: {}", key, from), "the recipe key instead"});
        for (std::size_t i = 0; i < r.launch.extra_args.size(); ++i) {
            std::string flag = r.launch.extra_args[i].substr(0, r.launch.extra_args[i].find('='));
            std::replace(flag.begin(), flag.end(), '-', '_');
            if (flag == "__" + std::string(key))
                out.push_back({fmt::format("launch.extra_args[{}]", i),
                               fmt::format("'{}' comes from the recipe: {}", r.launch.extra_args[i], from),
                               "the recipe key instead"});
        }
    }
}

// ---------------------------------------------------------------- flags

// "--section.option" as tyro's help spells it (hyphens).
std::string flag(std::string key) {
    std::replace(key.begin(), key.end(), '_', '-');
    return "--" + key;
}

void add(Args& args, const std::string& key, const std::string& value) {
    args.push_back({ShellWord(flag(key)), ShellWord(value)});
}

// A bool: `--a.b` or `--a.no-b`.
void add_bool(Args& args, const std::string& key, bool value) {
    std::string f = flag(key);
    if (!value) f.insert(f.rfind('.') == std::string::npos ? 2 : f.rfind('.') + 1, "no-");
    args.push_back({ShellWord(f)});
}

// A framework_config value as tyro reads it (validate has checked it against the profile's type).
void add_config(Args& args, const std::string& key, const nlohmann::ordered_json& v) {
    if (v.is_boolean()) return add_bool(args, key, v.get<bool>());
    if (v.is_string()) return add(args, key, v.get<std::string>());
    if (v.is_number_integer()) return add(args, key, v.dump());
    if (v.is_number_float()) return add(args, key, number_text(v.get<double>()));
    if (v.is_null()) return add(args, key, "None");
    if (v.is_array() && std::all_of(v.begin(), v.end(), [](const auto& e) { return e.is_string(); })) {
        std::vector<std::string> items;
        for (const auto& e : v) items.push_back(e.get<std::string>());
        return add(args, key, fmt::format("{}", fmt::join(items, ",")));  // list_str_rule: one A,B,C word
    }
    throw InputError(fmt::format("framework_config '{}': TorchTitan's flags take a string, number, boolean, null "
                                 "or a list of strings, not {}",
                                 key, v.dump()),
                     "a value the flag takes");
}

void add_parallelism(Args& args, const recipe::Recipe& r, int dp) {
    const recipe::Parallelism& p = r.parallelism;
    add(args, "parallelism.data_parallel_replicate_degree", "1");
    add(args, "parallelism.data_parallel_shard_degree", std::to_string(dp));
    add(args, "parallelism.tensor_parallel_degree", std::to_string(std::max(1, p.tensor)));
    if (p.tensor > 1) add_bool(args, "parallelism.enable_sequence_parallel", p.sequence_parallel);
    add(args, "parallelism.pipeline_parallel_degree", std::to_string(std::max(1, p.pipeline)));
    if (p.pipeline > 1) {
        const bool interleaved = p.virtual_pipeline > 1;
        add(args, "parallelism.pipeline_parallel_schedule", interleaved ? "Interleaved1F1B" : "1F1B");
        add(args, "parallelism.num_pp_microbatches", std::to_string(r.batch.global / (dp * r.batch.micro)));
        if (interleaved && r.model.layers % (p.pipeline * p.virtual_pipeline) == 0)
            add(args, "parallelism.pipeline_parallel_layers_per_stage",
                std::to_string(r.model.layers / (p.pipeline * p.virtual_pipeline)));
    }
    add(args, "parallelism.context_parallel_degree", std::to_string(std::max(1, p.context)));
}

}  // namespace

void torchtitan_main_problems(const recipe::Recipe& r, std::vector<ModelProblem>& out) {
    torchtitan_shape_problems(r, out);
    const RegistryFunction* fn = registry_function(r);
    if (!fn) {
        function_problem(r, out);
    } else if (r.recompute.granularity != fn->recompute) {
        out.push_back({"recompute.granularity",
                       fmt::format("{}'s {} checkpoints activations '{}' (its activation_checkpoint config, which "
                                   "no flag sets); the recipe asks '{}'",
                                   title(r), fn->function, fn->recompute, r.recompute.granularity),
                       fn->recompute});
    }
    if (r.parallelism.expert_tensor > 1)
        out.push_back(
            {"parallelism.expert_tensor", fmt::format("{} has no expert_tensor_parallel_degree", title(r)), "1"});
    if (r.data.kind != "mock")
        out.push_back({"data",
                       fmt::format("{} reads the dataset of its config function (a dataloader config no flag "
                                   "sets), not Megatron .bin/.idx prefixes (data '{}')",
                                   title(r), r.data.kind),
                       "data: mock"});
    owned_problems(r, out);
}

catalog::EnvList torchtitan_main_env(const recipe::Recipe& r) {
    // the checkout is the package (run_train.sh runs from it); run_train.sh at b5bcd76c sets
    // expandable segments under PyTorch's newer name
    return {{"PYTHONPATH", workdir(r)}, {"PYTORCH_ALLOC_CONF", "expandable_segments:True"}};
}

FrameworkLaunch torchtitan_main_launch(const Facts& f) {
    const recipe::Recipe& r = f.r;
    refuse_unsupported_model(r);
    const RegistryFunction* fn = registry_function(r);
    const TorchtitanFlavor* fl = torchtitan_flavor(r);
    if (!fn || !fl) throw InputError(fmt::format("TorchTitan has no config function for model '{}'", r.model.name));
    const int dp = data_parallel_size(r, f.world_size);
    const long long seq = r.model.seq_length;
    const bool pipelined = r.parallelism.pipeline > 1;
    const bool fp32 = r.precision == Precision::fp32 || r.precision == Precision::tf32;

    Args args;
    add(args, "hf_assets_path", fmt::format("{}/assets/hf/{}", workdir(r), fl->hf_assets));
    args.push_back({ShellWord(flag("dump_folder")), run_path(f.log_dir + "/torchtitan")});
    add(args, "metrics.log_freq", "1");
    add_bool(args, "metrics.disable_color_printing", true);
    add_bool(args, "metrics.enable_tensorboard", false);
    // a microbatch of batch.micro sequences per data-parallel rank; with pipeline parallelism the
    // step's microbatches are the pipeline's, else TorchTitan accumulates gradients over them
    add(args, "training.num_tokens_per_microbatch_per_dp_rank", std::to_string(r.batch.micro * seq));
    if (!pipelined) add(args, "training.num_tokens_per_train_step", std::to_string(r.batch.global * seq));
    add(args, "training.max_context_length", std::to_string(seq));
    add(args, "training.steps", std::to_string(r.steps));
    add(args, "training.mixed_precision_param", fp32 ? "float32" : "bfloat16");
    add_parallelism(args, r, dp);
    for (const auto& [key, value] : r.framework_config.items()) add_config(args, key, value);

    FrameworkLaunch out;
    for (const char* w : {"-m", "torchtitan.train", "--module", k_module, "--config"}) out.program.emplace_back(w);
    out.program.emplace_back(fn->function);
    append_args(out.program, args, r.launch.extra_args);
    return out;
}

}  // namespace trainbench::render
