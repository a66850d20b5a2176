// Megatron-LM: pretrain_gpt.py under torchrun, one torchrun per node (seed 002).
#include "render/frameworks/framework.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace trainbench::render {

namespace {

constexpr const char* k_megatron_workdir = "/workspace/Megatron-LM";
constexpr int k_megatron_lr_decay_iters = 430000;  // seed 002

// --save-interval N (or its other name --persistent-save-interval) in launch.extra_args.
bool asks_for_checkpoints(const recipe::Recipe& r) {
    return std::any_of(r.launch.extra_args.begin(), r.launch.extra_args.end(), [](const std::string& w) {
        std::string flag = argument_key(w);
        return flag == "--save-interval" || flag == "--persistent-save-interval";
    });
}

void opt(Args& a, const std::string& flag, const std::string& value) {
    a.push_back({ShellWord(flag), ShellWord(value)});
}

// The model's architecture (megatron_model.cpp).
void add_model_args(Args& a, const catalog::Model& m) {
    for (ModelArgs& g : megatron_model_args(m)) a.push_back(std::move(g.words));
}

// Batch, steps and parallelism.
void add_parallel_args(Args& a, const recipe::Recipe& r) {
    const catalog::Model& m = r.model;
    const recipe::Parallelism& p = r.parallelism;
    opt(a, "--micro-batch-size", std::to_string(r.batch.micro));
    opt(a, "--global-batch-size", std::to_string(r.batch.global));
    opt(a, "--train-iters", std::to_string(r.steps));
    opt(a, "--tensor-model-parallel-size", std::to_string(p.tensor));
    opt(a, "--pipeline-model-parallel-size", std::to_string(p.pipeline));
    // A layout names the virtual stages itself (Megatron-LM refuses it beside the layers per stage).
    if (!p.pipeline_layout.empty())
        opt(a, "--pipeline-model-parallel-layout", p.pipeline_layout);
    else if (p.virtual_pipeline > 0 && p.pipeline > 0 && m.layers % (p.pipeline * p.virtual_pipeline) == 0)
        opt(a, "--num-layers-per-virtual-pipeline-stage", std::to_string(m.layers / (p.pipeline * p.virtual_pipeline)));
    if (p.context > 1) opt(a, "--context-parallel-size", std::to_string(p.context));
    if (p.expert > 1) opt(a, "--expert-model-parallel-size", std::to_string(p.expert));
    if (p.expert_tensor > 0) opt(a, "--expert-tensor-parallel-size", std::to_string(p.expert_tensor));
    if (p.sequence_parallel) a.push_back(group("--sequence-parallel"));
    if (r.distributed_optimizer) a.push_back(group("--use-distributed-optimizer"));
}

// Precision and activation recompute.
void add_precision_args(Args& a, const recipe::Recipe& r) {
    switch (r.precision) {
        case catalog::Precision::bf16:
            a.push_back(group("--bf16"));
            break;
        case catalog::Precision::fp16:
            a.push_back(group("--fp16"));
            break;
        case catalog::Precision::fp8:
            a.push_back(group("--bf16"));
            opt(a, "--fp8-format", "hybrid");
            break;
        case catalog::Precision::mxfp8:  // Blackwell MX blocks: E4M3 everywhere (TE's MXFP8BlockScaling)
            a.push_back(group("--bf16"));
            opt(a, "--fp8-format", "e4m3");
            opt(a, "--fp8-recipe", "mxfp8");
            break;
        case catalog::Precision::nvfp4:  // TransformerConfig fp4 (--fp4-format) with the nvfp4 recipe
            a.push_back(group("--bf16"));
            opt(a, "--fp4-format", "e2m1");
            opt(a, "--fp4-recipe", "nvfp4");
            break;
        case catalog::Precision::tf32:
        case catalog::Precision::fp32:
            break;
    }
    if (r.recompute.granularity == "full") {
        opt(a, "--recompute-granularity", "full");
        opt(a, "--recompute-method", r.recompute.method);
        opt(a, "--recompute-num-layers", std::to_string(std::max(1, r.recompute.num_layers)));
    } else if (r.recompute.granularity == "selective") {
        opt(a, "--recompute-granularity", "selective");
        if (!r.recompute.modules.empty()) {
            std::vector<ShellWord> modules{ShellWord("--recompute-modules")};
            for (const std::string& m : r.recompute.modules) modules.emplace_back(m);
            a.push_back(modules);
        }
    }
}

// The data: mock data, or weighted prefixes with the GPT-2 tokenizer.
void add_data_args(Args& a, const recipe::Recipe& r) {
    const catalog::Model& m = r.model;
    if (r.data.kind == "mock") {
        a.push_back(group("--mock-data"));
        opt(a, "--tokenizer-type", "NullTokenizer");
        opt(a, "--vocab-size", std::to_string(m.vocab_size()));
    } else {
        std::vector<ShellWord> data_path{ShellWord("--data-path")};
        for (const recipe::DataPrefix& d : r.data.prefixes) {
            data_path.emplace_back(number_text(d.weight));
            data_path.emplace_back(d.prefix);
        }
        a.push_back(data_path);
        opt(a, "--tokenizer-type", "GPT2BPETokenizer");
        if (!r.data.vocab_file.empty()) opt(a, "--vocab-file", r.data.vocab_file);
        if (!r.data.merge_file.empty()) opt(a, "--merge-file", r.data.merge_file);
    }
}

Args megatron_args(const Facts& f) {
    const recipe::Recipe& r = f.r;
    Args a;
    add_model_args(a, r.model);
    add_parallel_args(a, r);
    add_precision_args(a, r);
    // Optimiser and schedule as seed 002 passes them.
    opt(a, "--lr", "6.0e-5");
    opt(a, "--lr-decay-style", "cosine");
    opt(a, "--min-lr", "6.0e-6");
    opt(a, "--lr-warmup-fraction", ".001");
    opt(a, "--lr-decay-iters", std::to_string(k_megatron_lr_decay_iters));
    opt(a, "--weight-decay", "0.1");
    opt(a, "--adam-beta1", "0.9");
    opt(a, "--adam-beta2", "0.95");
    opt(a, "--init-method-std", "0.006");
    opt(a, "--clip-grad", "1.0");
    opt(a, "--attention-backend", "auto");
    add_data_args(a, r);
    opt(a, "--log-interval", "1");
    opt(a, "--eval-iters", "0");
    opt(a, "--eval-interval", std::to_string(r.steps));
    // Outputs live in the run directory, so no two runs (or recipes) share them: TensorBoard
    // always, checkpoints when the recipe asks for them with a save interval (Megatron-LM
    // refuses --save without one). Nothing is loaded unless launch.extra_args says --load.
    a.push_back({ShellWord("--tensorboard-dir"), run_path(f.log_dir + "/tensorboard")});
    if (asks_for_checkpoints(r)) a.push_back({ShellWord("--save"), run_path(f.log_dir + "/checkpoints")});
    return a;
}

}  // namespace

// Megatron-LM runs with one CUDA connection whatever the parallelism.
catalog::EnvList megatron_lm_env(const recipe::Recipe&) {
    return {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}};
}

FrameworkLaunch megatron_lm_launch(const Facts& f) {
    refuse_unsupported_model(f.r);
    FrameworkLaunch out;
    out.program.emplace_back(entry_point(f.r, k_megatron_workdir, "pretrain_gpt.py"));
    append_args(out.program, megatron_args(f), f.r.launch.extra_args);
    return out;
}

}  // namespace trainbench::render
