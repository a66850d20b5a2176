// FLOPs per sample under each dated convention: the catalog model mapped to the
// shape the formulas read, and one function per convention that picks the
// upstream formula (flops_formulas.cpp), the vocabulary it uses and what the
// report says about it. The table of conventions: flops_conventions.cpp.
#include "analysis/flops_detail.hpp"

#include <trainbench/analysis.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

namespace trainbench::analysis {

std::vector<int> FlopsShape::moe_pattern() const {
    std::vector<int> pattern(static_cast<std::size_t>(std::max(layers, 0)), 0);
    if (experts <= 0) return pattern;
    const int every = std::max(moe_every, 1);
    for (int i = dense_first; i < layers; ++i) pattern[static_cast<std::size_t>(i)] = i % every == 0 ? 1 : 0;
    return pattern;
}

// The one mapping from the catalog's model to what the formulas read.
FlopsShape flops_shape(const catalog::Model& model) {
    FlopsShape s;
    s.name = model.name;
    s.family = model.family;
    s.layers = model.layers;
    s.hidden = model.hidden;
    s.heads = model.heads;
    s.kv_heads = model.is_mla() ? 0 : model.kv_heads;
    s.head_dim = model.head_dim;
    s.ffn = model.layers > 0 ? model.ffn_size() : model.ffn;
    s.vocab = model.vocab;
    s.gated_mlp = model.activation == "swiglu";
    s.tied_embeddings = model.tied_embeddings;
    s.rms_norm = model.norm == "rmsnorm";
    s.linear_bias = model.linear_bias;
    s.qkv_bias = !model.linear_bias && model.qkv_bias;
    s.learned_positions = model.position == "learned";
    s.max_positions = model.max_positions();
    s.qk_norm = model.qk_norm && !model.is_mla();  // MLA's latent norms are part of its own count
    if (model.is_moe()) {
        s.experts = model.experts;
        s.top_k = std::max(model.moe_top_k, 1);
        s.moe_ffn = model.expert_ffn_size();
        s.shared_ffn = model.moe_shared_experts * model.shared_expert_ffn_size();
        s.dense_first = model.moe_dense_layers;
        s.moe_every = model.moe_layer_freq;
    }
    if (model.is_mla()) {
        s.q_lora_rank = model.q_lora_rank;
        s.kv_lora_rank = model.kv_lora_rank;
        s.qk_head_dim = model.qk_head_dim;
        s.qk_rope_head_dim = model.qk_rope_head_dim;
        s.v_head_dim = model.v_head_dim;
    }
    s.mtp_layers = model.mtp_layers;
    return s;
}

int padded_vocab(int vocab, int divisible_by, int tensor_parallel) {
    const long multiple = static_cast<long>(std::max(divisible_by, 1)) * std::max(tensor_parallel, 1);
    const long padded = (static_cast<long>(vocab) + multiple - 1) / multiple * multiple;
    return static_cast<int>(padded);
}

const std::map<std::string, double>& gpu_recipes_model_flops() {
    static const std::map<std::string, double> table = {
        {"gpt3-5b", 6.69e13},    {"gpt3-175b", 2.2e15},    {"llama2-7b", 1.89e14},      {"llama2-70b", 1.82e15},
        {"llama3-70b", 3.94e15}, {"llama3.1-8b", 4.74e14}, {"llama3.1-70b", 3.9129e15}, {"llama3.1-405b", 2.16533e16},
        {"mixtral-7b", 3.4e14},  {"mixtral-8x7b", 3.4e14},
    };
    return table;
}

const std::map<std::string, double>& gpu_recipes_model_flops_2024() {
    static const std::map<std::string, double> table = {
        {"gpt3-5b", 6.69e13},    {"gpt3-175b", 2.2e15},   {"llama2-7b", 1.89e14},
        {"llama2-70b", 1.82e15}, {"llama3-70b", 3.94e15}, {"mixtral-7b", 3.4e14},
    };
    return table;
}

namespace conventions {

namespace {

std::vector<std::string> table_keys(const std::map<std::string, double>& table) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : table) keys.push_back(k);
    return keys;
}

// The shape fields a formula needs must be set.
void require_shape(const FlopsInput& in, const FlopsShape& m, std::string_view convention, bool need_vocab) {
    std::vector<std::string> missing;
    if (m.layers <= 0) missing.emplace_back("layers");
    if (m.hidden <= 0) missing.emplace_back("hidden");
    if (m.heads <= 0) missing.emplace_back("heads");
    if (in.seq() <= 0) missing.emplace_back("seq_length");
    if (need_vocab && m.vocab <= 0) missing.emplace_back("vocab");
    if (!missing.empty())
        throw InputError(fmt::format("the '{}' FLOPs formula needs the model's {} (model '{}')", convention,
                                     quoted_list(missing, " and "), m.name),
                         "give a catalog model with --model, or set them in the recipe's model map");
}

FlopsResult table_flops(const FlopsInput& in, const std::map<std::string, double>& table, std::string_view name,
                        std::string_view commit) {
    const FlopsShape m = in.architecture();
    auto it = table.find(m.name);
    if (it == table.end()) {
        std::string hint = did_you_mean(m.name, table_keys(table));
        if (hint.empty()) hint = "use another FLOPs convention (--flops megatron or nemo) for this model";
        throw InputError(fmt::format("{} has no FLOPs constant for model '{}'; its table has {}", name, m.name,
                                     quoted_list(table_keys(table), " and ")),
                         hint);
    }
    FlopsResult r;
    r.per_sample = it->second;
    r.formula = fmt::format("MODEL_FLOPS_PER_SAMPLE['{}'] = {:g}", it->first, it->second);
    r.note = fmt::format(
        "constant from gpu-recipes data_defs.py at {}; it does not depend on sequence length, vocabulary or recompute",
        commit);
    return r;
}

std::string padding_note(const FlopsInput& in, int vp) {
    return fmt::format("padded vocabulary V_p = {} ({} padded to a multiple of {} x TP {})", vp,
                       in.architecture().vocab, in.vocab_divisible_by, in.tensor_parallel);
}

// A lower-case name without separators, as NeMo's callback matches model names ("llama3.1-70b" -> "llama3170b").
std::string compact(std::string_view text) {
    std::string out;
    for (char c : text)
        if (std::isalnum(static_cast<unsigned char>(c)))
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace

FlopsResult gpu_recipes_2025(const FlopsInput& in) {
    return table_flops(in, gpu_recipes_model_flops(), "gpu-recipes", "2e1fd5ef");
}
FlopsResult gpu_recipes_2024(const FlopsInput& in) {
    return table_flops(in, gpu_recipes_model_flops_2024(), "gpu-recipes at 24ba6df", "24ba6df");
}

FlopsResult megatron_2025(const FlopsInput& in) {
    const FlopsShape m = in.architecture();
    require_shape(in, m, "megatron-2025-03", true);
    const int vp = padded_vocab(m.vocab, in.vocab_divisible_by, in.tensor_parallel);
    FlopsResult r;
    r.per_sample = detail::megatron_2025(m, in.seq(), vp);
    r.vocab_used = vp;
    r.formula = m.mla()
                    ? "s*[6h*(f*phi*L_dense + (f_moe*k + f_shared)*phi*L_moe) + 6L*MLA projections + MTP + "
                      "6h*V_p*(1+mtp)] + s^2*6L*(n(d_qk+d_rope)/2 + n*d_v/2)  (causal, Megatron-LM since 2025-03-06)"
                    : "s*[6h*(f*phi*L_dense + (f_moe*k + f_shared)*phi*L_moe) + 6L*(h(q+2dg)+qh) + 6h*V_p] + "
                      "s^2*6q*L  (causal, Megatron-LM since 2025-03-06)";
    r.note = padding_note(in, vp);
    return r;
}

FlopsResult megatron_bridge(const FlopsInput& in) {
    FlopsResult r = megatron_2025(in);
    r.formula = "Megatron-Bridge flop_utils.py transformer_flops: " + r.formula.substr(0, r.formula.find("  ("));
    r.note += "; the Bridge counts a gated MLP as Megatron-LM does (06f25c22: only with SiLU)";
    return r;
}

FlopsResult megatron_2024(const FlopsInput& in) {
    const FlopsShape m = in.architecture();
    require_shape(in, m, "megatron-2024", true);
    const int vp = padded_vocab(m.vocab, in.vocab_divisible_by, in.tensor_parallel);
    FlopsResult r;
    r.per_sample = detail::megatron_2024(m, in.seq(), vp);
    r.vocab_used = vp;
    r.formula =
        "12*s*L*h^2*[(1 + g/n + s/h)*(q/h) + (f/h)*k*(3/2 if SwiGLU) + (f_shared/h)*(3/2 if SwiGLU) + "
        "V_p/(2Lh)]  (non-causal, Megatron-LM 2024)";
    r.note = padding_note(in, vp);
    if (m.experts > 0 && m.moe_pattern() != std::vector<int>(static_cast<std::size_t>(m.layers), 1))
        r.note += "; this form counts every layer as MoE (it predates --moe-layer-freq in the FLOPs count)";
    if (m.mla()) r.note += "; it has no MLA term: attention is counted as multi-head with kv_channels = h/n";
    if (m.mtp_layers > 0) r.note += "; it has no MTP term";
    return r;
}

namespace {

detail::NemoConfig nemo_config(const FlopsInput& in, const FlopsShape& m) {
    detail::NemoConfig c;
    c.gbs = 1;
    c.seq = in.seq();
    c.hidden = m.hidden;
    c.layers = m.layers;
    c.ffn = m.ffn_size();
    c.heads = m.heads;
    c.groups = m.groups();
    c.topk = m.top_k;
    c.vocab = m.vocab;
    c.moe_ffn = m.expert_ffn();
    c.shared_ffn = m.shared_ffn;
    c.moe_pattern = m.moe_pattern();
    c.mtp_layers = m.mtp_layers;
    c.q_lora_rank = m.q_lora_rank;
    c.kv_lora_rank = m.kv_lora_rank;
    c.qk_head_dim = m.qk_head_dim;
    c.qk_pos_emb_head_dim = m.qk_rope_head_dim;
    c.v_head_dim = m.v_head_dim;
    return c;
}

// NeMo's callback picks the formula whose key is in the model's name.
std::string nemo_family(const FlopsShape& m) {
    const std::string name = compact(m.name) + " " + compact(m.family);
    for (const char* key : {"gpt3", "llama2", "llama3", "llama4", "nemotron", "mixtral", "bert", "deepseekv3", "qwen3"})
        if (name.find(key) != std::string::npos) return key == std::string("llama4") ? "llama3" : key;
    if (m.family == "opt" || m.family == "tinygpt" || m.family == "gpt" || m.family == "gpt2") return "gpt-style";
    if (m.family.rfind("llama", 0) == 0) return "llama";
    return "";
}

FlopsResult nemo_family_flops(const FlopsInput& in, const FlopsShape& m, const std::string& family, double a,
                              std::string_view name) {
    const detail::NemoConfig cfg = nemo_config(in, m);
    FlopsResult r;
    const std::string causal = a == 1 ? "non-causal" : "causal";
    if (family == "gpt3" || family == "gpt-style") {
        const double vocab = family == "gpt3" ? 51200 : m.vocab;
        r.per_sample = detail::nemo_gpt3(cfg, a, vocab);
        r.vocab_used = static_cast<int>(vocab);
        r.formula = fmt::format("3L*(24*s*h^2 + 4*s^2*h*{}) + 6*s*h*V, V = {}  (NeMo gpt3, {})", a, vocab, causal);
        r.note = family == "gpt3" ? "NeMo's gpt3 formula assumes f = 4h, multi-head attention and a fixed vocabulary "
                                    "of 51200"
                                  : fmt::format(
                                        "NeMo has no '{}' formula: its gpt3 formula with the model's own "
                                        "vocabulary {}",
                                        m.family, m.vocab);
        return r;
    }
    if (family == "qwen3" || family == "deepseekv3") {
        if (m.experts <= 0 || (family == "deepseekv3" && (!m.mla() || m.q_lora_rank <= 0)))
            throw InputError(fmt::format("NeMo's {} formula needs {} (model '{}')", family,
                                         family == "qwen3" ? "an MoE model" : "MoE with MLA and a q LoRA rank", m.name),
                             "use --flops megatron for this model");
        r.per_sample = family == "qwen3" ? detail::nemo_qwen3(cfg) : detail::nemo_deepseekv3(cfg);
        r.vocab_used = m.vocab;
        r.formula = family == "qwen3"
                        ? "6*L*s*h^2*[(2g/n + 1) + s/h + 1] + 6*L*s*h*3*(f_moe*k) + 6*s*h*V  (NeMo qwen3, causal)"
                        : "6*s*(MLA + dense/shared/routed MLP params) + 6*(bmm1 + bmm2)*L + 6*s*h*V*(1 + mtp) + "
                          "MTP projections  (NeMo deepseekv3, causal)";
        r.note = family == "qwen3" ? "NeMo's qwen3 formula assumes q = h and every layer MoE"
                                   : "NeMo's deepseekv3 formula counts MLA, dense-first layers, shared experts and MTP";
        return r;
    }
    double vocab = m.vocab;
    if (family == "mixtral" || family == "llama2") vocab = 32000;
    if (family == "llama3") vocab = 128256;
    if (family == "nemotron") vocab = 256000;
    detail::NemoConfig c = cfg;
    if (family == "mixtral") {
        c.ffn = m.expert_ffn();
        r.per_sample = detail::nemo_mixtral(c, a, vocab);
    } else if (family == "nemotron") {
        r.per_sample = detail::nemo_nemotron(c, a, vocab);
    } else if (family == "bert") {
        r.per_sample = detail::nemo_bert(c);
        vocab = 29000;
    } else {
        r.per_sample = detail::nemo_llama(c, a, vocab);
    }
    r.vocab_used = static_cast<int>(vocab);
    r.formula = fmt::format("s*L*h^2*[12 + 12g/n + c*f/h + 12*s/h*{} + 6V/(Lh)]  (NeMo {}, {})", a, family, causal);
    r.note = fmt::format("NeMo family '{}' with its fixed vocabulary {}; '{}'", family, r.vocab_used, name);
    return r;
}

FlopsResult nemo_flops(const FlopsInput& in, double attention, std::string_view name) {
    const FlopsShape m = in.architecture();
    const std::string family = nemo_family(m);
    if (family.empty())
        throw InputError(fmt::format("the '{}' FLOPs convention has no formula for model family '{}'", name, m.family),
                         "NeMo knows gpt3, llama2, llama3, mixtral, nemotron, qwen3, deepseekv3 and bert (opt and "
                         "tinygpt take its gpt3 formula); use --flops megatron for other architectures");
    require_shape(in, m, name,
                  family == "gpt-style" || family == "llama" || family == "qwen3" || family == "deepseekv3");
    return nemo_family_flops(in, m, family, attention, name);
}

}  // namespace

FlopsResult nemo_2024(const FlopsInput& in) {
    return nemo_flops(in, 1, "nemo-2024");
}
FlopsResult nemo_2025(const FlopsInput& in) {
    return nemo_flops(in, 0.5, "nemo-2025-08");
}

namespace {
FlopsResult torchtitan_flops(const FlopsInput& in, bool tied_counts_output, std::string_view name) {
    const FlopsShape m = in.architecture();
    require_shape(in, m, name, true);
    FlopsResult r;
    r.per_sample = detail::torchtitan_per_token(m, in.seq(), tied_counts_output) * in.seq();
    r.vocab_used = m.vocab;
    r.formula = "s*[6*N_active(excluding the embedding) + 6*L*H*(d_qk + d_v)*s]  (TorchTitan, non-causal)";
    r.note =
        "N from trainbench's count of TorchTitan's parameters (norms included, routed experts scaled by k/E); "
        "multi-token prediction modules are not counted";
    if (m.tied_embeddings)
        r.note += tied_counts_output ? "; tied embeddings: the table counts once, as the output layer"
                                     : "; tied embeddings: the table is subtracted (v0.2.2)";
    return r;
}
}  // namespace

FlopsResult torchtitan_2026_02(const FlopsInput& in) {
    return torchtitan_flops(in, false, "torchtitan-2026-02");
}
FlopsResult torchtitan_2026_08(const FlopsInput& in) {
    return torchtitan_flops(in, true, "torchtitan-2026-08");
}

FlopsResult palm(const FlopsInput& in) {
    const FlopsShape m = in.architecture();
    require_shape(in, m, "palm-2022", true);
    FlopsResult r;
    r.per_sample = detail::palm_per_token(m, in.seq()) * in.seq();
    r.vocab_used = m.vocab;
    r.formula = "s*[6N + 12*L*H*Q*s]  (PaLM, Chowdhery et al. 2022, Appendix B; non-causal)";
    r.note =
        "N: the parameters a token multiplies with (active experts only; the output layer included, an untied "
        "input embedding not)";
    return r;
}

FlopsResult narayanan(const FlopsInput& in) {
    const FlopsShape m = in.architecture();
    require_shape(in, m, "narayanan2021", true);
    // The paper's Eq. 3 is derived for GPT layers: multi-head attention and a 4h, ungated MLP.
    std::vector<std::string> beyond;
    if (m.experts > 0) beyond.emplace_back("experts");
    if (m.mla()) beyond.emplace_back("multi-latent attention");
    if (m.groups() != m.heads) beyond.emplace_back("grouped-query attention");
    if (m.gated_mlp) beyond.emplace_back("a gated MLP");
    if (m.ffn_size() != 4 * m.hidden) beyond.emplace_back(fmt::format("an FFN of {} (not 4h)", m.ffn_size()));
    if (m.kv_channels() * m.heads != m.hidden) beyond.emplace_back("heads of kv_channels * heads != hidden");
    if (!beyond.empty())
        throw InputError(fmt::format("narayanan2021 is the paper's formula for GPT layers; model '{}' has {}", m.name,
                                     fmt::join(beyond, ", ")),
                         "count it with a framework's convention (megatron-2025-03, nemo-2024, ...)");
    const int v = padded_vocab(m.vocab, 1024, 1);
    FlopsResult r;
    r.per_sample = detail::narayanan2021(1, in.seq(), m.layers, m.hidden, v);
    r.vocab_used = v;
    r.formula = "96*s*l*h^2*(1 + s/(6h) + V/(16lh))  (Narayanan et al. 2021, Eq. 3)";
    r.note = fmt::format(
        "counts full activation recomputation (4 forward passes per layer): hardware-FLOPs-like, not model FLOPs; "
        "V = {} ({} padded to a multiple of 1024, as the paper's 51200)",
        v, m.vocab);
    return r;
}

}  // namespace conventions

}  // namespace trainbench::analysis
