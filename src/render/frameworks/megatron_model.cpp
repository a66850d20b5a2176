// Megatron-LM: the model's architecture as pretrain_gpt.py arguments. Flag names and value
// syntax as Megatron-LM d98e8a64 defines them (megatron/training/arguments.py, and the
// TransformerConfig / ModelParallelConfig fields that argument_utils.py turns into flags:
// `--field-name`, renamed by argparse_meta: layernorm_epsilon -> --norm-epsilon,
// add_bias_linear -> --disable-bias-linear). Each group is tagged with the model key it
// expresses, so a version that lacks a flag refuses that key (model_support.cpp).
#include "render/frameworks/framework.hpp"

#include <fmt/format.h>

namespace trainbench::render {

namespace {

class Builder {
public:
    explicit Builder(std::vector<ModelArgs>& out) : m_out(out) {}
    void base(const std::string& flag, const std::string& value) { add({}, {}, {flag, value}); }
    void add(const std::string& field, const std::string& what, std::vector<ShellWord> words) {
        m_out.push_back({field, what, std::move(words)});
    }

private:
    std::vector<ModelArgs>& m_out;
};

// The pattern of --moe-layer-freq: an integer N (every Nth layer has experts) or, with dense
// first layers, a Python list expression as upstream writes DeepSeek-V3's ("[0]*3+[1]*58",
// examples/megatron_fsdp/sbatch_mfsdp_deepseek_v3.sh); "" when every layer has experts.
std::string moe_layer_freq(const catalog::Model& m) {
    if (m.moe_dense_layers == 0) return m.moe_layer_freq > 1 ? std::to_string(m.moe_layer_freq) : std::string();
    if (m.moe_layer_freq <= 1) return fmt::format("[0]*{}+[1]*{}", m.moe_dense_layers, m.layers - m.moe_dense_layers);
    std::string list;
    for (int i = 0; i < m.layers; ++i) list += fmt::format("{}{}", i == 0 ? "" : ",", m.is_moe_layer(i) ? 1 : 0);
    return "[" + list + "]";
}

void add_rope(Builder& b, const catalog::Model& m) {
    if (m.position != "rope") return;
    b.add("position", "rotary positions", {"--position-embedding-type", "rope"});
    if (m.rope_theta > 0)
        b.add("rope_theta", fmt::format("the rotary base {}", number_text(m.rope_theta)),
              {"--rotary-base", number_text(m.rope_theta)});
    if (m.rope_scaling == "llama3") {
        std::string what = fmt::format("Llama 3 RoPE scaling (factor {})", number_text(m.rope_scaling_factor));
        b.add("rope_scaling", what, {"--use-rope-scaling"});
        b.add("rope_scaling", what, {"--rope-scaling-factor", number_text(m.rope_scaling_factor)});
    } else if (m.rope_scaling == "yarn" && m.is_mla()) {
        // MLA's YaRN (the mla argument group), as the upstream DeepSeek-V3 example passes it.
        std::string what = fmt::format("YaRN RoPE scaling (factor {})", number_text(m.rope_scaling_factor));
        b.add("rope_scaling", what, {"--rotary-scaling-factor", number_text(m.rope_scaling_factor)});
        if (m.rope_mscale > 0) b.add("rope_mscale", what, {"--mscale", number_text(m.rope_mscale)});
        if (m.rope_mscale_all_dim > 0)
            b.add("rope_mscale_all_dim", what, {"--mscale-all-dim", number_text(m.rope_mscale_all_dim)});
    }
}

void add_moe(Builder& b, const catalog::Model& m) {
    if (!m.is_moe()) return;
    const std::string moe = fmt::format("mixture of experts ({} experts, top {})", m.experts, m.moe_top_k);
    b.add("experts", moe, {"--num-experts", std::to_string(m.experts)});
    b.add("moe_top_k", moe, {"--moe-router-topk", std::to_string(m.moe_top_k)});
    b.add("moe_ffn", moe, {"--moe-ffn-hidden-size", std::to_string(m.expert_ffn_size())});
    if (m.moe_shared_experts > 0)
        b.add("moe_shared_experts",
              fmt::format("{} shared expert(s) of FFN {}", m.moe_shared_experts, m.shared_expert_ffn_size()),
              {"--moe-shared-expert-intermediate-size",
               std::to_string(m.moe_shared_experts * m.shared_expert_ffn_size())});
    if (std::string freq = moe_layer_freq(m); !freq.empty())
        b.add(m.moe_dense_layers > 0 ? "moe_dense_layers" : "moe_layer_freq",
              fmt::format("the layers with experts ({})", freq), {"--moe-layer-freq", freq});
    if (m.moe_score_function != "softmax")
        b.add("moe_score_function", fmt::format("{} router scores", m.moe_score_function),
              {"--moe-router-score-function", m.moe_score_function});
    if (m.moe_top_k_scaling > 0)
        b.add("moe_top_k_scaling", fmt::format("routed outputs scaled by {}", number_text(m.moe_top_k_scaling)),
              {"--moe-router-topk-scaling-factor", number_text(m.moe_top_k_scaling)});
    if (m.moe_groups > 0) {
        std::string what = fmt::format("group-limited routing ({} of {} groups)", m.moe_group_top_k, m.moe_groups);
        b.add("moe_groups", what, {"--moe-router-num-groups", std::to_string(m.moe_groups)});
        b.add("moe_group_top_k", what, {"--moe-router-group-topk", std::to_string(m.moe_group_top_k)});
    }
    if (m.moe_expert_bias)
        b.add("moe_expert_bias", "the aux-loss-free expert bias", {"--moe-router-enable-expert-bias"});
}

void add_mla(Builder& b, const catalog::Model& m) {
    if (!m.is_mla()) return;
    const std::string mla = "multi-latent attention";
    b.add("attention", mla, {"--multi-latent-attention"});
    if (m.q_lora_rank > 0) b.add("q_lora_rank", mla, {"--q-lora-rank", std::to_string(m.q_lora_rank)});
    b.add("kv_lora_rank", mla, {"--kv-lora-rank", std::to_string(m.kv_lora_rank)});
    b.add("qk_head_dim", mla, {"--qk-head-dim", std::to_string(m.qk_head_dim)});
    b.add("qk_rope_head_dim", mla, {"--qk-pos-emb-head-dim", std::to_string(m.qk_rope_head_dim)});
    b.add("v_head_dim", mla, {"--v-head-dim", std::to_string(m.v_head_dim)});
}

}  // namespace

std::vector<ModelArgs> megatron_model_args(const catalog::Model& m) {
    std::vector<ModelArgs> out;
    Builder b(out);
    b.base("--num-layers", std::to_string(m.layers));
    b.base("--hidden-size", std::to_string(m.hidden));
    b.base("--ffn-hidden-size", std::to_string(m.ffn_size()));
    b.base("--num-attention-heads", std::to_string(m.heads));
    if (m.head_dim > 0)
        b.add("head_dim", fmt::format("head size {}", m.head_dim), {"--kv-channels", std::to_string(m.head_dim)});
    if (m.kv_heads > 0 && m.kv_heads != m.heads) {
        std::string what = fmt::format("grouped-query attention ({} groups)", m.kv_heads);
        b.add("kv_heads", what, {"--group-query-attention"});
        b.add("kv_heads", what, {"--num-query-groups", std::to_string(m.kv_heads)});
    }
    b.base("--seq-length", std::to_string(m.seq_length));
    b.base("--max-position-embeddings", std::to_string(m.max_positions()));
    add_rope(b, m);
    if (m.activation == "swiglu") b.add("activation", "SwiGLU", {"--swiglu"});
    if (m.norm == "rmsnorm") b.add("norm", "RMSNorm", {"--normalization", "RMSNorm"});
    if (m.norm_epsilon > 0)
        b.add("norm_epsilon", fmt::format("norm epsilon {}", number_text(m.norm_epsilon)),
              {"--norm-epsilon", number_text(m.norm_epsilon)});
    if (!m.linear_bias) b.add("linear_bias", "linear layers without biases", {"--disable-bias-linear"});
    if (m.qkv_bias) b.add("qkv_bias", "a QKV bias", {"--add-qkv-bias"});
    if (m.qk_norm) b.add("qk_norm", "query/key normalization", {"--qk-layernorm"});
    if (!m.tied_embeddings)
        b.add("tied_embeddings", "untied input and output embeddings", {"--untie-embeddings-and-output-weights"});
    add_moe(b, m);
    add_mla(b, m);
    if (m.mtp_layers > 0)
        b.add("mtp_layers", fmt::format("multi-token prediction ({} module(s))", m.mtp_layers),
              {"--mtp-num-layers", std::to_string(m.mtp_layers)});
    return out;
}

}  // namespace trainbench::render
