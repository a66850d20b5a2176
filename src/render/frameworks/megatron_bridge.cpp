// Megatron-Bridge: the pre-training run of its performance scripts, as the job runs it.
// setup_experiment.py (NeMo-Run) writes one sbatch whose tasks run
// `python scripts/performance/run_script.py` with the flags it was given (less the launcher's
// own); gpu-recipes' GKE charts run the same script under one torchrun per pod, which is how
// trainbench starts it everywhere (torchrun per node). trainbench renders that in-job command:
// the performance flags (-m/-mr/-g/-c/-ng/-gn, the parallelism, batch and steps), then
// Hydra-style config overrides (key=value), which run_script.py takes as the words its
// parse_known_args() leaves (docs/frameworks.md).
#include "render/frameworks/framework.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace trainbench::render {

namespace {

// Where the NeMo containers keep Megatron-Bridge (executors.py runs
// /opt/Megatron-Bridge/docker/common/print_sha.sh); dgxc mounts its own checkout instead
// (launch.workdir).
constexpr const char* k_bridge_workdir = "/opt/Megatron-Bridge";
constexpr const char* k_bridge_entry = "scripts/performance/run_script.py";

// The catalog model -> the performance scripts' model family (-m, configs/<family>/) and
// recipe (-mr): the workloads of scripts/performance/configs at 06f25c22. Llama 3.1 8B and 70B
// run Bridge's Llama 3 recipes (same shapes; dgxc's llama3.1 workload does the same).
struct BridgeModel {
    std::string_view model, family, recipe;
};
constexpr std::array<BridgeModel, 6> k_models{{
    {"llama3.1-8b", "llama", "llama3_8b"},
    {"llama3.1-70b", "llama", "llama3_70b"},
    {"llama3.1-405b", "llama", "llama31_405b"},
    {"deepseek-v3", "deepseek", "deepseek_v3"},
    {"qwen3-30b-a3b", "qwen", "qwen3_30b_a3b"},
    {"qwen3-235b-a22b", "qwen", "qwen3_235b_a22b"},
}};

// -g: the GPU names of argument_parser.py (NUM_GPUS_PER_NODE_MAP); there is no h200.
constexpr std::array<std::string_view, 5> k_gpus{{"h100", "b200", "b300", "gb200", "gb300"}};

bool extra_sets(const recipe::Recipe& r, std::initializer_list<std::string_view> flags) {
    return std::any_of(r.launch.extra_args.begin(), r.launch.extra_args.end(), [&](const std::string& w) {
        std::string key = argument_key(w);
        return std::find(flags.begin(), flags.end(), key) != flags.end();
    });
}

const BridgeModel* bridge_model(const recipe::Recipe& r) {
    const std::string& name = r.model.name.empty() ? r.model_name : r.model.name;
    for (const BridgeModel& m : k_models)
        if (m.model == name) return &m;
    return nullptr;
}

bool bridge_gpu_known(const recipe::Recipe& r) {
    return std::find(k_gpus.begin(), k_gpus.end(), r.gpu.family) != k_gpus.end();
}

// -c: the compute dtype of a recipe precision ("" = none expresses it).
std::string compute_dtype(catalog::Precision p) {
    switch (p) {
        case catalog::Precision::bf16:
            return "bf16";
        case catalog::Precision::fp8:
            return "fp8_cs";  // FP8 with current scaling, the FP8 the dgxc workloads run
        case catalog::Precision::mxfp8:
            return "fp8_mx";
        case catalog::Precision::nvfp4:
            return "nvfp4";
        default:
            return "";
    }
}

void opt(Args& a, const std::string& flag, const std::string& value) {
    a.push_back({ShellWord(flag), ShellWord(value)});
}

// The workload: which per-GPU configuration run_script.py starts from.
void add_workload_args(Args& a, const Facts& f) {
    const recipe::Recipe& r = f.r;
    const BridgeModel* m = bridge_model(r);
    opt(a, "--model_family_name", m ? std::string(m->family) : std::string());
    opt(a, "--model_recipe_name", m ? std::string(m->recipe) : std::string());
    opt(a, "--task", "pretrain");
    opt(a, "--gpu", r.gpu.family);
    opt(a, "--compute_dtype", compute_dtype(r.precision));
    opt(a, "--config_variant", "v2");  // the parser's default and dgxc's (v1 where no v2 exists)
    opt(a, "--num_gpus", std::to_string(f.nodes * f.gpus_per_node));
    opt(a, "--gpus_per_node", std::to_string(f.gpus_per_node));
    opt(a, "--data", "mock");
    a.push_back(group("--offline"));  // as dgxc passes it: no Hugging Face Hub calls
}

// The recipe's parallelism, batch and steps, each stated (the per-GPU configuration's values
// are replaced, never assumed).
void add_shape_args(Args& a, const recipe::Recipe& r) {
    const recipe::Parallelism& p = r.parallelism;
    opt(a, "--tensor_model_parallel_size", std::to_string(p.tensor));
    opt(a, "--pipeline_model_parallel_size", std::to_string(p.pipeline));
    opt(a, "--context_parallel_size", std::to_string(p.context));
    opt(a, "--virtual_pipeline_model_parallel_size",
        p.virtual_pipeline > 1 ? std::to_string(p.virtual_pipeline) : "None");
    opt(a, "--expert_model_parallel_size", std::to_string(p.expert));
    if (p.expert_tensor > 0) opt(a, "--expert_tensor_parallel_size", std::to_string(p.expert_tensor));
    opt(a, "--global_batch_size", std::to_string(r.batch.global));
    opt(a, "--micro_batch_size", std::to_string(r.batch.micro));
    opt(a, "--seq_length", std::to_string(r.model.seq_length));
    opt(a, "--max_steps", std::to_string(r.steps));
    if (r.recompute.granularity == "full")
        opt(a, "--recompute_num_layers", std::to_string(std::max(1, r.recompute.num_layers)));
    if (r.recompute.granularity == "selective" && !r.recompute.modules.empty()) {
        std::string modules;
        for (const std::string& m : r.recompute.modules) modules += (modules.empty() ? "" : ",") + m;
        opt(a, "--recompute_modules", modules);
    }
}

// Config overrides (run_script.py: set_cli_overrides): what no flag sets. The model's sequence
// length (--seq_length sizes only the mock dataset), every step logged, no evaluation.
void add_overrides(Args& a, const recipe::Recipe& r) {
    a.push_back(group(fmt::format("model.seq_length={}", r.model.seq_length)));
    a.push_back(group("logger.log_interval=1"));
    a.push_back(group("train.eval_iters=0"));
}

}  // namespace

namespace {

// Settings run_script.py's flags cannot state: set_user_overrides() makes sequence parallelism
// follow -tp and full recompute the block method; the scripts train on mock data here.
void shape_problems(const recipe::Recipe& r, const std::string& title, std::vector<ModelProblem>& out) {
    const recipe::Parallelism& p = r.parallelism;
    if (p.sequence_parallel != (p.tensor > 1))
        out.push_back({"parallelism.sequence_parallel",
                       fmt::format("{}: --tensor_model_parallel_size {} sets sequence parallelism {} (run_script.py: "
                                   "sequence_parallel = tensor parallel size > 1)",
                                   title, p.tensor, p.tensor > 1 ? "on" : "off"),
                       fmt::format("sequence_parallel: {}", p.tensor > 1 ? "true" : "false")});
    if (r.recompute.granularity == "full" && r.recompute.method != "block")
        out.push_back({"recompute.method",
                       fmt::format("{}: --recompute_num_layers recomputes with the block method, not '{}'", title,
                                   r.recompute.method),
                       "method: block"});
    if (r.data.kind != "mock")
        out.push_back(
            {"data",
             fmt::format("{}: trainbench renders its mock data only (--data mock), not '{}'", title, r.data.kind),
             "data: mock"});
}

}  // namespace

void megatron_bridge_problems(const recipe::Recipe& r, std::vector<ModelProblem>& out) {
    const std::string title = r.profile ? r.profile->title : "Megatron-Bridge";
    shape_problems(r, title, out);
    if (!bridge_model(r) && !extra_sets(r, {"--model_recipe_name", "-mr"})) {
        std::string names;
        for (const BridgeModel& m : k_models) names += fmt::format("{}{}", names.empty() ? "" : ", ", m.model);
        out.push_back({"model",
                       fmt::format("{} has no performance recipe (scripts/performance/configs) for model '{}'", title,
                                   r.model.name.empty() ? r.model_name : r.model.name),
                       fmt::format("one of {}", names)});
    }
    if (!bridge_gpu_known(r) && !extra_sets(r, {"--gpu", "-g"}))
        out.push_back(
            {"target",
             fmt::format("{}: --gpu takes h100, b200, b300, gb200, gb300 (and vr200, r100), not the {} GPU '{}'{}",
                         title, r.target.name, r.gpu.family,
                         r.gpu.family == "h200" ? "; the published A3 Ultra (H200) recipe of gpu-recipes passes "
                                                  "--gpu h100 (its H100 configuration)"
                                                : ""),
             "a target whose GPU the release names, or launch.extra_args [--gpu, h100] to run another GPU's "
             "configuration"});
    if (compute_dtype(r.precision).empty() && !extra_sets(r, {"--compute_dtype", "-c"}))
        out.push_back({"precision",
                       fmt::format("{}: --compute_dtype takes bf16, fp8_cs, fp8_mx, fp8_sc, nvfp4, not precision '{}'",
                                   title, catalog::to_string(r.precision)),
                       "bf16, fp8 (fp8_cs), mxfp8 (fp8_mx) or nvfp4"});
}

// The performance environment of NeMo-Run's executor (scripts/performance/utils/executors.py
// PERF_ENV_VARS at 06f25c22, with --offline's HF_HUB_OFFLINE=1); the recipe's env comes after.
catalog::EnvList megatron_bridge_env(const recipe::Recipe&) {
    return {{"TORCH_NCCL_AVOID_RECORD_STREAMS", "1"}, {"TRANSFORMERS_OFFLINE", "1"},
            {"TOKENIZERS_PARALLELISM", "False"},      {"NCCL_NVLS_ENABLE", "0"},
            {"NVTE_NORM_FWD_USE_CUDNN", "1"},         {"NVTE_NORM_BWD_USE_CUDNN", "1"},
            {"TORCH_NCCL_HIGH_PRIORITY", "1"},        {"HF_HUB_OFFLINE", "1"}};
}

FrameworkLaunch megatron_bridge_launch(const Facts& f) {
    std::vector<ModelProblem> problems;
    megatron_bridge_problems(f.r, problems);
    if (!problems.empty()) throw InputError(problems.front().message, problems.front().expected);
    Args a;
    add_workload_args(a, f);
    add_shape_args(a, f.r);
    add_overrides(a, f.r);
    FrameworkLaunch out;
    out.program.emplace_back(entry_point(f.r, k_bridge_workdir, k_bridge_entry));
    append_args(out.program, a, f.r.launch.extra_args);
    return out;
}

}  // namespace trainbench::render
