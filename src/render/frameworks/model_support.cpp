// Which model keys a framework version can express. A key it cannot express is refused (a
// located error of `validate`, through check_launch; render stops before writing anything),
// never dropped: a job that silently trains another architecture would benchmark the wrong model.
//   megatron-lm  every key, where the version's profile has the flag that expresses it
//                (megatron_model.cpp); Llama 3 RoPE scaling only with Megatron's built-in
//                frequency factors; YaRN only with multi-latent attention (as upstream runs it)
//   nemo         NeMo 1.x (22.06, 23.07, 24.07): the keys its megatron_gpt_config has; no
//                mixture of experts, multi-latent attention or multi-token prediction
//   metaseq, tinygpt   GPT-style models only (none of today's keys)
//   torchtitan   the flavours TorchTitan defines, shape checked key by key (torchtitan_model.cpp)
//   custom       anything (the recipe's own command builds the model)
//   megatron-bridge  the models of its performance recipes (the recipe builds the model):
//                megatron_bridge.cpp
#include "render/frameworks/framework.hpp"

#include <fmt/format.h>

#include <cmath>

namespace trainbench::render {

namespace {

std::string version_title(const recipe::Recipe& r) {
    if (r.profile) return r.profile->title;
    return r.framework_version.empty() ? r.framework : fmt::format("{} {}", r.framework, r.framework_version);
}

// A key of today's architectures that the model sets, with what it means.
struct Feature {
    bool present;
    const char* field;
    std::string what;
    const char* nemo_key;  // the NeMo config key that expresses it; nullptr = none in NeMo 1.x
};

std::vector<Feature> features(const catalog::Model& m) {
    return {
        {m.norm == "rmsnorm", "norm", "RMSNorm", "model.normalization"},
        {m.norm_epsilon > 0, "norm_epsilon", fmt::format("norm epsilon {}", number_text(m.norm_epsilon)),
         "model.layernorm_epsilon"},
        {!m.linear_bias, "linear_bias", "linear layers without biases", "model.bias"},
        {m.qkv_bias, "qkv_bias", "a QKV-only bias", nullptr},
        {!m.tied_embeddings, "tied_embeddings", "untied input and output embeddings",
         "model.share_embeddings_and_output_weights"},
        {m.head_dim > 0, "head_dim", fmt::format("head size {}", m.head_dim), "model.kv_channels"},
        {m.qk_norm, "qk_norm", "query/key normalization", nullptr},
        {m.rope_theta > 0, "rope_theta", fmt::format("the rotary base {}", number_text(m.rope_theta)),
         "model.rotary_base"},
        {m.rope_scaling != "none", "rope_scaling", fmt::format("RoPE scaling '{}'", m.rope_scaling), nullptr},
        {m.max_position_embeddings > 0, "max_position_embeddings",
         fmt::format("{} position embeddings", m.max_position_embeddings), "model.max_position_embeddings"},
        {m.is_moe(), "experts", fmt::format("mixture of experts ({} experts)", m.experts), nullptr},
        {m.is_mla(), "attention", "multi-latent attention", nullptr},
        {m.mtp_layers > 0, "mtp_layers", fmt::format("multi-token prediction ({})", m.mtp_layers), nullptr},
    };
}

}  // namespace

void megatron_model_problems(const recipe::Recipe& r, std::vector<ModelProblem>& out) {
    const catalog::Model& m = r.model;
    const std::string title = version_title(r);
    if (m.rope_scaling == "llama3" &&
        (m.rope_low_freq_factor != 1 || m.rope_high_freq_factor != 4 || m.rope_original_max_positions != 8192))
        out.push_back({"model.rope_scaling",
                       fmt::format("{} applies Llama 3 RoPE scaling with low_freq_factor 1, high_freq_factor 4 and "
                                   "an original context of 8192 only (--use-rope-scaling takes a factor alone); "
                                   "model '{}' has {}, {} and {}",
                                   title, m.name, number_text(m.rope_low_freq_factor),
                                   number_text(m.rope_high_freq_factor), m.rope_original_max_positions),
                       "Llama 3.1's factors, or another framework"});
    if (m.rope_scaling == "yarn" && !m.is_mla())
        out.push_back({"model.rope_scaling",
                       fmt::format("trainbench renders YaRN RoPE scaling for {} with multi-latent attention only "
                                   "(model '{}' has attention '{}')",
                                   title, m.name, m.attention),
                       "attention: mla, or no rope_scaling"});
    if (m.rope_theta > 0 && std::floor(m.rope_theta) != m.rope_theta)
        out.push_back({"model.rope_theta",
                       fmt::format("{} takes an integer --rotary-base; model '{}' has {}", title, m.name,
                                   number_text(m.rope_theta)),
                       "an integer rope_theta"});
    if (!r.profile) return;
    const char* precision_flag = r.precision == catalog::Precision::nvfp4   ? "--fp4-format"
                                 : r.precision == catalog::Precision::mxfp8 ? "--fp8-recipe"
                                                                            : nullptr;
    if (precision_flag && !r.profile->knows(precision_flag))
        out.push_back({"precision",
                       fmt::format("{} has no {} training recipe: it has no '{}'", title,
                                   catalog::to_string(r.precision), precision_flag),
                       "a framework_version that has it (e.g. megatron-lm d98e8a64), or bf16/fp8"});
    for (const ModelArgs& g : megatron_model_args(m)) {
        if (g.field.empty() || g.words.empty()) continue;
        const std::string flag = g.words.front().plain();
        if (r.profile->knows(flag)) continue;
        out.push_back({"model." + g.field,
                       fmt::format("{} cannot express {} of model '{}': it has no '{}'", title, g.what, m.name, flag),
                       "a framework_version that has it (e.g. megatron-lm d98e8a64), or a model without it"});
    }
}

void nemo_model_problems(const recipe::Recipe& r, std::vector<ModelProblem>& out) {
    const std::string title = version_title(r);
    for (const Feature& f : features(r.model)) {
        if (!f.present) continue;
        if (!f.nemo_key) {
            out.push_back({std::string("model.") + f.field,
                           fmt::format("{} cannot express {} of model '{}': NeMo 1.x's megatron_gpt_config has no key "
                                       "for it",
                                       title, f.what, r.model.name),
                           "framework: megatron-lm (a version that has it), or a model without it"});
        } else if (r.profile && !r.profile->knows(f.nemo_key)) {
            out.push_back({std::string("model.") + f.field,
                           fmt::format("{} cannot express {} of model '{}': it has no '{}'", title, f.what,
                                       r.model.name, f.nemo_key),
                           "a NeMo version that has it (framework_version), or framework: megatron-lm"});
        }
    }
}

void gpt_only_model_problems(const recipe::Recipe& r, std::vector<ModelProblem>& out) {
    for (const Feature& f : features(r.model))
        if (f.present)
            out.push_back({std::string("model.") + f.field,
                           fmt::format("{} builds GPT-style models only and cannot express {} of model '{}'",
                                       version_title(r), f.what, r.model.name),
                           "framework: megatron-lm, or a GPT-style model"});
}

std::vector<ModelProblem> model_support_problems(const recipe::Recipe& r) {
    std::vector<ModelProblem> out;
    const Framework* f = find_framework(r.framework, r.framework_version);
    if (!f) return out;
    const bool block_scaled = r.precision == catalog::Precision::mxfp8 || r.precision == catalog::Precision::nvfp4;
    if (block_scaled && !f->block_scaled)
        out.push_back({"precision",
                       fmt::format("{} has no {} training recipe", version_title(r), catalog::to_string(r.precision)),
                       "framework: megatron-lm (d98e8a64 has --fp8-recipe mxfp8 and --fp4-format), or bf16/fp8"});
    if (f->model_problems) f->model_problems(r, out);
    return out;
}

void refuse_unsupported_model(const recipe::Recipe& r) {
    std::vector<ModelProblem> problems = model_support_problems(r);
    if (problems.empty()) return;
    throw InputError(fmt::format("{}: {}", problems.front().key, problems.front().message), problems.front().expected);
}

}  // namespace trainbench::render
