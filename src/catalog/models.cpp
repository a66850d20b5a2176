// Models: reading the fields of a model (a catalog file or a recipe's inline edit) and the
// shape checks that make a model one a framework can build (docs/recipes.md "models").
#include "catalog/catalog_yaml.hpp"

#include <trainbench/catalog.hpp>

#include <fmt/format.h>

#include <cmath>

namespace trainbench::catalog {

namespace detail {

const std::vector<std::string>& norm_names() {
    static const std::vector<std::string> v = {"layernorm", "rmsnorm"};
    return v;
}
const std::vector<std::string>& rope_scaling_names() {
    static const std::vector<std::string> v = {"none", "llama3", "yarn"};
    return v;
}
const std::vector<std::string>& score_function_names() {
    static const std::vector<std::string> v = {"softmax", "sigmoid"};
    return v;
}
const std::vector<std::string>& attention_names() {
    static const std::vector<std::string> v = {"mha", "mla"};
    return v;
}

}  // namespace detail

int Model::moe_layer_count() const {
    int n = 0;
    for (int i = 0; i < layers; ++i)
        if (is_moe_layer(i)) ++n;
    return n;
}

namespace {

// The keys of a model, in documentation order (what read_model_fields reads).
const std::vector<std::string>& model_keys() {
    static const std::vector<std::string> v = {"family",
                                               "description",
                                               "source",
                                               "layers",
                                               "hidden",
                                               "heads",
                                               "kv_heads",
                                               "ffn",
                                               "seq_length",
                                               "vocab",
                                               "activation",
                                               "position",
                                               "tied_embeddings",
                                               "experts",
                                               "moe_top_k",
                                               "norm",
                                               "norm_epsilon",
                                               "max_position_embeddings",
                                               "head_dim",
                                               "qk_norm",
                                               "linear_bias",
                                               "qkv_bias",
                                               "rope_theta",
                                               "rope_scaling",
                                               "rope_scaling_factor",
                                               "rope_low_freq_factor",
                                               "rope_high_freq_factor",
                                               "rope_original_max_positions",
                                               "rope_beta_fast",
                                               "rope_beta_slow",
                                               "rope_mscale",
                                               "rope_mscale_all_dim",
                                               "moe_ffn",
                                               "moe_shared_experts",
                                               "moe_shared_ffn",
                                               "moe_dense_layers",
                                               "moe_layer_freq",
                                               "moe_score_function",
                                               "moe_top_k_scaling",
                                               "moe_groups",
                                               "moe_group_top_k",
                                               "moe_expert_bias",
                                               "attention",
                                               "q_lora_rank",
                                               "kv_lora_rank",
                                               "qk_head_dim",
                                               "qk_rope_head_dim",
                                               "v_head_dim",
                                               "mtp_layers"};
    return v;
}

void read_rope_fields(yaml::MapReader& r, Model& m) {
    r.read("rope_theta", m.rope_theta, 1.0);
    r.read_enum("rope_scaling", m.rope_scaling, detail::rope_scaling_names());
    r.read("rope_scaling_factor", m.rope_scaling_factor, 0.0);
    r.read("rope_low_freq_factor", m.rope_low_freq_factor, 0.0);
    r.read("rope_high_freq_factor", m.rope_high_freq_factor, 0.0);
    r.read("rope_original_max_positions", m.rope_original_max_positions, 0);
    r.read("rope_beta_fast", m.rope_beta_fast, 0.0);
    r.read("rope_beta_slow", m.rope_beta_slow, 0.0);
    r.read("rope_mscale", m.rope_mscale, 0.0);
    r.read("rope_mscale_all_dim", m.rope_mscale_all_dim, 0.0);
}

void read_moe_fields(yaml::MapReader& r, Model& m) {
    r.read("experts", m.experts, 0);
    r.read("moe_top_k", m.moe_top_k, 0);
    r.read("moe_ffn", m.moe_ffn, 0);
    r.read("moe_shared_experts", m.moe_shared_experts, 0);
    r.read("moe_shared_ffn", m.moe_shared_ffn, 0);
    r.read("moe_dense_layers", m.moe_dense_layers, 0);
    r.read("moe_layer_freq", m.moe_layer_freq, 1);
    r.read_enum("moe_score_function", m.moe_score_function, detail::score_function_names());
    r.read("moe_top_k_scaling", m.moe_top_k_scaling, 0.0);
    r.read("moe_groups", m.moe_groups, 0);
    r.read("moe_group_top_k", m.moe_group_top_k, 0);
    r.read("moe_expert_bias", m.moe_expert_bias);
}

void read_attention_fields(yaml::MapReader& r, Model& m) {
    r.read("head_dim", m.head_dim, 0);
    r.read("qk_norm", m.qk_norm);
    r.read_enum("attention", m.attention, detail::attention_names());
    r.read("q_lora_rank", m.q_lora_rank, 0);
    r.read("kv_lora_rank", m.kv_lora_rank, 0);
    r.read("qk_head_dim", m.qk_head_dim, 0);
    r.read("qk_rope_head_dim", m.qk_rope_head_dim, 0);
    r.read("v_head_dim", m.v_head_dim, 0);
}

}  // namespace

void read_model_fields(yaml::MapReader& r, Model& m) {
    r.read("family", m.family);
    r.read("description", m.description);
    r.read("source", m.source);
    r.read("layers", m.layers, 1);
    r.read("hidden", m.hidden, 1);
    r.read("heads", m.heads, 1);
    r.read("kv_heads", m.kv_heads, 0);
    r.read("ffn", m.ffn, 0);
    r.read("seq_length", m.seq_length, 1);
    r.read("vocab", m.vocab, 1);
    r.read_enum("activation", m.activation, detail::activation_names());
    r.read_enum("position", m.position, detail::position_names());
    r.read("tied_embeddings", m.tied_embeddings);
    r.read_enum("norm", m.norm, detail::norm_names());
    r.read("norm_epsilon", m.norm_epsilon, 0.0);
    r.read("max_position_embeddings", m.max_position_embeddings, 0);
    r.read("linear_bias", m.linear_bias);
    r.read("qkv_bias", m.qkv_bias);
    r.read("mtp_layers", m.mtp_layers, 0);
    read_rope_fields(r, m);
    read_moe_fields(r, m);
    read_attention_fields(r, m);
    for (const std::string& key : model_keys())
        if (const yaml::Node* n = r.node().is_map() ? r.node().find(key) : nullptr) m.key_where[key] = n->where;
}

// ---------------------------------------------------------------- shape checks

namespace {

// Reports the problems of one model at the keys they concern.
class ModelChecks {
public:
    ModelChecks(const Model& m, const SourceLocation& where, const std::string& key, Diagnostics& d)
        : m_m(m), m_where(where), m_key(key), m_d(d) {}

    void error(const std::string& field, const std::string& message, const std::string& expected,
               const std::string& hint = {}) {
        auto it = m_m.key_where.find(field);
        m_d.error(it == m_m.key_where.end() ? m_where : it->second, yaml::join_key(m_key, field), message, expected,
                  hint);
    }
    // A field that only means something with `what` on, set on a model without it.
    void only_with(bool set, const std::string& field, const std::string& what, const std::string& expected) {
        if (set) error(field, fmt::format("'{}' is set on a model without {}", field, what), expected);
    }
    [[nodiscard]] const Model& model() const { return m_m; }

private:
    const Model& m_m;
    const SourceLocation& m_where;
    const std::string& m_key;
    Diagnostics& m_d;
};

void check_sizes(ModelChecks& c) {
    const Model& m = c.model();
    for (const auto& [value, field] : {std::pair{m.layers, "layers"}, std::pair{m.hidden, "hidden"},
                                       std::pair{m.heads, "heads"}, std::pair{m.vocab, "vocab"}})
        if (value <= 0) c.error(field, "model size is missing", "an integer >= 1", fmt::format("set '{}'", field));
    if (m.hidden > 0 && m.heads > 0 && m.head_dim == 0 && !m.is_mla() && m.hidden % m.heads != 0)
        c.error("heads", fmt::format("hidden size {} is not divisible by {} heads", m.hidden, m.heads),
                "heads that divide hidden", "or give the head size with head_dim");
    if (m.kv_heads > 0 && m.heads > 0 && m.heads % m.kv_heads != 0)
        c.error("kv_heads", fmt::format("{} heads are not divisible by {} kv_heads", m.heads, m.kv_heads),
                "kv_heads that divide heads");
    if (m.max_position_embeddings > 0 && m.max_position_embeddings < m.seq_length)
        c.error(
            "max_position_embeddings",
            fmt::format("max_position_embeddings {} is below seq_length {}", m.max_position_embeddings, m.seq_length),
            fmt::format("at least seq_length ({})", m.seq_length));
    if (m.norm_epsilon >= 1)
        c.error("norm_epsilon", fmt::format("norm_epsilon {} is not a small positive number", m.norm_epsilon),
                "a number in (0, 1), e.g. 1.0e-5");
    if (m.qkv_bias && m.linear_bias)
        c.error("qkv_bias", "qkv_bias on a model whose linear layers all have biases (linear_bias: true)",
                "qkv_bias with linear_bias: false (Qwen2-style QKV-only bias)");
    if (m.mtp_layers >= m.layers && m.layers > 0)
        c.error("mtp_layers", fmt::format("{} MTP modules for {} layers", m.mtp_layers, m.layers),
                "fewer MTP modules than layers (DeepSeek-V3: 1)");
}

void check_rope(ModelChecks& c) {
    const Model& m = c.model();
    const bool rope = m.position == "rope";
    c.only_with(!rope && m.rope_theta > 0, "rope_theta", "rotary positions (position: rope)", "position: rope");
    c.only_with(!rope && m.rope_scaling != "none", "rope_scaling", "rotary positions (position: rope)",
                "position: rope");
    const bool llama3 = m.rope_scaling == "llama3", yarn = m.rope_scaling == "yarn";
    const std::string scaled = "RoPE scaling (rope_scaling: llama3 or yarn)";
    c.only_with(!llama3 && !yarn && m.rope_scaling_factor > 0, "rope_scaling_factor", scaled, "rope_scaling");
    c.only_with(!llama3 && !yarn && m.rope_original_max_positions > 0, "rope_original_max_positions", scaled,
                "rope_scaling");
    const std::string l3 = "Llama 3 RoPE scaling (rope_scaling: llama3)";
    c.only_with(!llama3 && m.rope_low_freq_factor > 0, "rope_low_freq_factor", l3, "rope_scaling: llama3");
    c.only_with(!llama3 && m.rope_high_freq_factor > 0, "rope_high_freq_factor", l3, "rope_scaling: llama3");
    const std::string y = "YaRN (rope_scaling: yarn)";
    c.only_with(!yarn && m.rope_beta_fast > 0, "rope_beta_fast", y, "rope_scaling: yarn");
    c.only_with(!yarn && m.rope_beta_slow > 0, "rope_beta_slow", y, "rope_scaling: yarn");
    c.only_with(!yarn && m.rope_mscale > 0, "rope_mscale", y, "rope_scaling: yarn");
    c.only_with(!yarn && m.rope_mscale_all_dim > 0, "rope_mscale_all_dim", y, "rope_scaling: yarn");
    if (!llama3 && !yarn) return;
    auto need = [&](bool ok, const char* field, const char* expected) {
        if (!ok)
            c.error(field, fmt::format("rope_scaling '{}' needs '{}'", m.rope_scaling, field), expected,
                    "take it from the model's published config (rope_scaling)");
    };
    need(m.rope_scaling_factor > 0, "rope_scaling_factor", "a number > 0 (Llama 3.1: 8)");
    need(m.rope_original_max_positions > 0, "rope_original_max_positions", "an integer >= 1 (Llama 3.1: 8192)");
    if (llama3) {
        need(m.rope_low_freq_factor > 0, "rope_low_freq_factor", "a number > 0 (Llama 3.1: 1)");
        need(m.rope_high_freq_factor > m.rope_low_freq_factor, "rope_high_freq_factor",
             "a number above rope_low_freq_factor (Llama 3.1: 4)");
    }
    if (yarn && m.rope_beta_fast > 0 && m.rope_beta_fast <= m.rope_beta_slow)
        c.error("rope_beta_fast",
                fmt::format("rope_beta_fast {} is not above rope_beta_slow {}", m.rope_beta_fast, m.rope_beta_slow),
                "beta_fast > beta_slow (DeepSeek-V3: 32 and 1)");
}

void check_dense_has_no_moe(ModelChecks& c) {
    const Model& m = c.model();
    const std::string dense = "experts (experts: 0, a dense model)";
    c.only_with(m.moe_top_k > 0, "moe_top_k", dense, "experts >= 1, or no moe_top_k");
    c.only_with(m.moe_ffn > 0, "moe_ffn", dense, "experts >= 1");
    c.only_with(m.moe_shared_experts > 0, "moe_shared_experts", dense, "experts >= 1");
    c.only_with(m.moe_shared_ffn > 0, "moe_shared_ffn", dense, "experts >= 1");
    c.only_with(m.moe_dense_layers > 0, "moe_dense_layers", dense, "experts >= 1");
    c.only_with(m.moe_layer_freq != 1, "moe_layer_freq", dense, "experts >= 1");
    c.only_with(m.moe_score_function != "softmax", "moe_score_function", dense, "experts >= 1");
    c.only_with(m.moe_top_k_scaling > 0, "moe_top_k_scaling", dense, "experts >= 1");
    c.only_with(m.moe_groups > 0, "moe_groups", dense, "experts >= 1");
    c.only_with(m.moe_group_top_k > 0, "moe_group_top_k", dense, "experts >= 1");
    c.only_with(m.moe_expert_bias, "moe_expert_bias", dense, "experts >= 1");
}

void check_moe(ModelChecks& c) {
    const Model& m = c.model();
    if (m.experts == 0) return check_dense_has_no_moe(c);
    if (m.moe_top_k < 1 || m.moe_top_k > m.experts)
        c.error("moe_top_k", fmt::format("moe_top_k {} with {} experts", m.moe_top_k, m.experts),
                "1 <= moe_top_k <= experts");
    c.only_with(m.moe_shared_experts == 0 && m.moe_shared_ffn > 0, "moe_shared_ffn",
                "shared experts (moe_shared_experts: 0)", "moe_shared_experts >= 1");
    if (m.layers > 0 && m.moe_dense_layers >= m.layers)
        c.error("moe_dense_layers",
                fmt::format("{} dense layers leave none of the {} layers with experts", m.moe_dense_layers, m.layers),
                fmt::format("fewer than {} dense layers", m.layers));
    if ((m.moe_groups > 0) != (m.moe_group_top_k > 0))
        c.error(m.moe_groups > 0 ? "moe_group_top_k" : "moe_groups",
                "group-limited routing needs both moe_groups and moe_group_top_k", "both set, or neither");
    if (m.moe_groups > 0 && m.moe_group_top_k > 0) {
        if (m.experts % m.moe_groups != 0)
            c.error("moe_groups", fmt::format("{} experts are not divisible into {} groups", m.experts, m.moe_groups),
                    "groups that divide the experts");
        if (m.moe_group_top_k > m.moe_groups)
            c.error("moe_group_top_k",
                    fmt::format("moe_group_top_k {} is above the {} groups", m.moe_group_top_k, m.moe_groups),
                    "1 <= moe_group_top_k <= moe_groups");
        else if (m.experts % m.moe_groups == 0 && m.moe_top_k > m.moe_group_top_k * (m.experts / m.moe_groups))
            c.error("moe_top_k",
                    fmt::format("moe_top_k {} is more than the {} experts of {} groups", m.moe_top_k,
                                m.moe_group_top_k * (m.experts / m.moe_groups), m.moe_group_top_k),
                    "moe_top_k <= moe_group_top_k x experts / moe_groups");
    }
    if (m.moe_expert_bias && m.moe_score_function != "sigmoid")
        c.error("moe_expert_bias", "the aux-loss-free expert bias needs sigmoid router scores",
                "moe_score_function: sigmoid (DeepSeek-V3)");
}

void check_mla(ModelChecks& c) {
    const Model& m = c.model();
    const std::string mla = "multi-latent attention (attention: mla)";
    if (!m.is_mla()) {
        c.only_with(m.q_lora_rank > 0, "q_lora_rank", mla, "attention: mla");
        c.only_with(m.kv_lora_rank > 0, "kv_lora_rank", mla, "attention: mla");
        c.only_with(m.qk_head_dim > 0, "qk_head_dim", mla, "attention: mla");
        c.only_with(m.qk_rope_head_dim > 0, "qk_rope_head_dim", mla, "attention: mla");
        c.only_with(m.v_head_dim > 0, "v_head_dim", mla, "attention: mla");
        return;
    }
    for (const auto& [value, field] :
         {std::pair{m.kv_lora_rank, "kv_lora_rank"}, std::pair{m.qk_head_dim, "qk_head_dim"},
          std::pair{m.qk_rope_head_dim, "qk_rope_head_dim"}, std::pair{m.v_head_dim, "v_head_dim"}})
        if (value <= 0)
            c.error(field, fmt::format("multi-latent attention needs '{}'", field), "an integer >= 1",
                    "take it from the model's published config");
    if (m.position != "rope")
        c.error("attention", "multi-latent attention carries its positions in RoPE dimensions",
                "position: rope with attention: mla");
    if (m.kv_heads > 0 && m.kv_heads != m.heads)
        c.error("kv_heads", "multi-latent attention has no key/value groups", "no kv_heads (or kv_heads = heads)");
}

}  // namespace

void check_model(const Model& m, const SourceLocation& where, const std::string& key, Diagnostics& d) {
    ModelChecks c(m, where, key, d);
    check_sizes(c);
    check_rope(c);
    check_moe(c);
    check_mla(c);
}

}  // namespace trainbench::catalog
