// The FLOPs formulas of each upstream function (flops_detail.hpp), term by
// term. Upstream computes in Python: integer products are exact there and are
// rounded once when they meet a float. Here those products are taken in long
// double (exact below 2^64) and rounded once to double, so each formula gives
// the upstream value to the last bit (checked against the upstream code run on
// the same shapes: tests/integration/flops_oracle.test.sh).
#include "analysis/flops_detail.hpp"

#include <cmath>
#include <numeric>

namespace trainbench::analysis::detail {

namespace {

using Exact = long double;  // an integer-valued product, exact as a Python int

double rounded(Exact v) {
    return static_cast<double>(v);
}

Exact ex(double v) {
    return static_cast<Exact>(v);
}

}  // namespace

// ---------------------------------------------------------------- NeMo flops_formulas.py
double nemo_gpt3(const NemoConfig& c, double attention, double vocab) {
    const Exact linear = 24 * ex(c.gbs) * ex(c.seq) * ex(c.hidden) * ex(c.hidden);
    const Exact core = 4 * ex(c.gbs) * ex(c.seq) * ex(c.seq) * ex(c.hidden);
    const Exact logits = 6 * ex(c.gbs) * ex(c.seq) * ex(c.hidden) * ex(vocab);
    if (attention == 1) return rounded((linear + core) * (3 * ex(c.layers)) + logits);  // all integers before 2025-08
    return (rounded(linear) + rounded(core) * attention) * rounded(3 * ex(c.layers)) + rounded(logits);
}

namespace {
// The llama/nemotron/mixtral family shape: gbs*s*L*h*h * [12 + 12g/n + mlp + 12s/h*a + 6V/(Lh)].
double nemo_llama_like(const NemoConfig& c, double attention, double vocab, double mlp_term) {
    const double h = c.hidden;
    const double bracket =
        12 + (12 * c.groups / c.heads) + mlp_term + (12 * c.seq / h) * attention + (6 * vocab / (c.layers * h));
    return rounded(ex(c.gbs) * ex(c.seq) * ex(c.layers) * ex(h) * ex(h)) * bracket;
}
}  // namespace

double nemo_llama(const NemoConfig& c, double attention, double vocab) {
    return nemo_llama_like(c, attention, vocab, 18 * c.ffn / c.hidden);
}
double nemo_nemotron(const NemoConfig& c, double attention, double vocab) {
    return nemo_llama_like(c, attention, vocab, 12 * c.ffn / c.hidden);
}
double nemo_mixtral(const NemoConfig& c, double attention, double vocab) {
    return nemo_llama_like(c, attention, vocab, 18 * c.topk * c.ffn / c.hidden);
}
double nemo_bert(const NemoConfig& c, double vocab) {
    const double h = c.hidden;
    return rounded(72 * ex(c.gbs) * ex(c.layers) * ex(c.seq) * ex(h) * ex(h)) *
           (1 + (c.seq / (6 * h)) + (vocab / (12 * h * c.layers)));
}
double nemo_transformer(const NemoConfig& c, bool causal) {
    const double h = c.hidden;
    const double moe_layers = c.topk > 0 ? std::floor(c.layers / 2) : 0;  // NeMo's placeholder: half the layers
    const double dense_layers = c.layers - moe_layers;
    const double q_over_h = 1.0;  // kv_channels * heads == hidden
    return 12 * c.gbs * c.seq * c.layers * h * h *
           ((1 + c.groups / c.heads + c.seq / h * (causal ? 0.5 : 1.0)) * q_over_h +
            c.ffn * (dense_layers + c.topk * moe_layers) / (c.layers * h) + c.vocab / (2 * c.layers * h));
}

double nemo_qwen3(const NemoConfig& c) {
    const double h = c.hidden, s = c.seq;
    const double bracket = (c.groups / c.heads * 2 + 1) + (s / h * 2 * 0.5) + 1;
    const double attention = rounded(3 * 2 * ex(c.gbs) * ex(c.layers) * ex(s) * ex(h) * ex(h)) * bracket;
    const Exact mlp = 3 * 2 * ex(c.gbs) * ex(c.layers) * ex(s) * ex(h) * (1 + 2) * (ex(c.moe_ffn) * ex(c.topk));
    const Exact vocab = 3 * 2 * ex(c.gbs) * ex(s) * ex(h) * ex(c.vocab);
    return attention + rounded(mlp) + rounded(vocab);
}

double nemo_deepseekv3(const NemoConfig& c) {
    const double s = c.seq, n = c.heads;
    const double bmm1 = 0.5 * (c.qk_head_dim + c.qk_pos_emb_head_dim) * n * (s * s);
    const double bmm2 = 0.5 * c.v_head_dim * n * (s * s);
    double attention = 6 * (bmm1 + bmm2) * c.layers;
    if (c.mtp_layers > 0) attention += 6 * (bmm1 + bmm2) * c.mtp_layers;

    const Exact h = ex(c.hidden), qk = ex(c.qk_head_dim), pe = ex(c.qk_pos_emb_head_dim), v = ex(c.v_head_dim);
    Exact mla = h * ex(c.q_lora_rank) + ex(c.q_lora_rank) * ((qk + pe) * ex(n));  // Q
    mla += h * pe;                                                                // K^R
    mla += h * ex(c.kv_lora_rank) + ex(c.kv_lora_rank) * ((qk + v) * ex(n));      // K^C and V^C
    mla += v * ex(n) * h;                                                         // output projection
    const Exact mla_params = mla * ex(c.layers) + mla * ex(c.mtp_layers);
    const Exact dense = h * ex(c.ffn) * 3, shared = h * ex(c.shared_ffn) * 3, routed = h * ex(c.moe_ffn) * 3;
    Exact ffn = 0;
    for (int moe : c.moe_pattern) ffn += moe == 0 ? dense : shared + routed * ex(c.topk);
    ffn += ex(c.mtp_layers) * (shared + routed * ex(c.topk));
    const Exact linear = 6 * (mla_params + ffn) * ex(s);
    Exact vocab = 6 * ex(c.vocab) * h * ex(s);
    vocab += ex(c.mtp_layers) * (6 * ex(c.vocab) * h * ex(s) + 6 * h * 2 * h * ex(s));
    return (attention + rounded(linear) + rounded(vocab)) * c.gbs;
}

// ---------------------------------------------------------------- Megatron-LM training.py
double megatron_2024(const FlopsShape& m, double seq, double padded_vocab) {
    const double h = m.hidden, n = m.heads;
    const double ratio = static_cast<double>(m.kv_channels()) * n / h;
    const double k = m.experts > 0 ? m.top_k : 1;
    const double glu = m.gated_mlp ? 1.5 : 1;
    const double ffn = m.experts > 0 ? m.expert_ffn() : m.ffn_size();
    const double bracket = ((1 + (m.groups() / n) + (seq / h)) * ratio) + ((ffn / h) * k * glu) +
                           ((m.shared_ffn / h) * glu) + (padded_vocab / (2 * m.layers * h));
    return rounded(12 * ex(seq) * ex(m.layers) * ex(h) * ex(h)) * bracket;
}

namespace {

struct LayerCounts {
    Exact dense = 0, moe = 0, routed_to = 0, all = 0, mtp = 0;
};

// Dense and MoE MLPs, MTP layers counted as the last layer's kind (training.py transformer_flops).
LayerCounts megatron_layers(const FlopsShape& m) {
    LayerCounts c;
    c.dense = m.layers;
    if (m.experts > 0) {
        const std::vector<int> pattern = m.moe_pattern();
        c.moe = std::accumulate(pattern.begin(), pattern.end(), 0);
        c.dense = m.layers - c.moe;
        c.routed_to = m.top_k;
        const Exact last_is_moe = pattern.empty() ? 0 : pattern.back();
        c.moe += last_is_moe * m.mtp_layers;
        c.dense += (1 - last_is_moe) * m.mtp_layers;
    } else {
        c.dense += m.mtp_layers;
    }
    c.mtp = m.mtp_layers;
    c.all = ex(m.layers) + c.mtp;
    return c;
}

}  // namespace

double megatron_2025(const FlopsShape& m, double seq, double padded_vocab) {
    const LayerCounts layers = megatron_layers(m);
    const Exact h = m.hidden, n = m.heads, phi = m.gated_mlp ? 3 : 2;
    Exact self_attn = 0;  // token-linear attention per layer
    double core = 0;      // per layer and unit of s^2
    if (m.mla()) {
        const Exact qk = m.qk_head_dim, pe = m.qk_rope_head_dim, v = m.v_head_dim, kv = m.kv_lora_rank;
        const Exact q_term = m.q_lora_rank == 0 ? h * n * (qk + pe) : ex(m.q_lora_rank) * (h + n * (qk + pe) + 1);
        self_attn = 3 * 2 * (q_term + kv * (h + n * (qk + v) + 1) + h * pe + (n * v) * h);
        core = 3 * 2 * (rounded(n * (qk + pe)) / 2 + rounded(n * v) / 2);
    } else {
        const Exact q = ex(m.kv_channels()) * n, kv = ex(m.kv_channels()) * m.groups();
        self_attn = 3 * 2 * (h * (q + kv + kv) + q * h);
        core = rounded(3 * 2 * q) / 2 * 2;  // causal mask (1/2) times QK^T and (QK^T)V (2)
    }
    const Exact mlp =
        3 * 2 * h *
        ((ex(m.ffn_size()) * phi) * layers.dense + (ex(m.expert_ffn()) * layers.routed_to * phi) * layers.moe +
         (ex(m.shared_ffn) * phi) * layers.moe);
    const Exact mtp = 3 * 2 * layers.mtp * (3 * h + 2 * h * h);
    const Exact logits = 3 * 2 * h * ex(padded_vocab) * (layers.mtp + 1);
    const Exact token_linear = ex(seq) * (mlp + self_attn * layers.all + mtp + logits);
    return rounded(token_linear) + rounded(ex(seq) * ex(seq)) * (core * rounded(layers.all));
}

// ---------------------------------------------------------------- TorchTitan and PaLM
namespace {

Exact attention_params(const FlopsShape& m) {
    const Exact h = m.hidden, n = m.heads;
    if (m.mla()) {
        const Exact qk = m.qk_head_dim, pe = m.qk_rope_head_dim, v = m.v_head_dim, kv = m.kv_lora_rank;
        const Exact ql = m.q_lora_rank;
        const Exact q =
            m.q_lora_rank == 0 ? h * n * (qk + pe) : h * ql + ql + ql * n * (qk + pe);  // wq_a, q_norm, wq_b
        return q + h * (kv + pe) + kv + kv * n * (qk + v) + n * v * h;                  // wkv_a, kv_norm, wkv_b, wo
    }
    const Exact d = m.kv_channels(), g = m.groups();
    Exact p = h * n * d + 2 * h * g * d + n * d * h;  // wq, wk, wv, wo
    if (m.qk_norm) p += 2 * d;
    if (m.linear_bias) p += n * d + 2 * g * d + h;
    if (m.qkv_bias) p += n * d + 2 * g * d;
    return p;
}

Exact norm_params(const FlopsShape& m) {
    return m.rms_norm ? ex(m.hidden) : 2 * ex(m.hidden);
}

Exact mlp_params(const FlopsShape& m, double width) {
    const Exact gemms = m.gated_mlp ? 3 : 2;
    return gemms * ex(m.hidden) * ex(width) + (m.linear_bias ? ex(width) + m.hidden : 0);
}

}  // namespace

ParamCounts torchtitan_params(const FlopsShape& m, double max_positions) {
    ParamCounts p;
    const Exact h = m.hidden;
    Exact layers = 0, experts = 0;  // the routed experts of every layer, apart
    const std::vector<int> pattern =
        m.experts > 0 ? m.moe_pattern() : std::vector<int>(static_cast<std::size_t>(m.layers), 0);
    for (int moe : pattern) {
        layers += attention_params(m) + 2 * norm_params(m);
        if (moe == 0) {
            layers += mlp_params(m, m.ffn_size());
            continue;
        }
        layers += h * ex(m.experts);  // router
        if (m.shared_ffn > 0) layers += mlp_params(m, m.shared_ffn);
        experts += ex(m.experts) * mlp_params(m, m.expert_ffn());
    }
    const Exact tail = norm_params(m) + (m.tied_embeddings ? 0 : h * ex(m.vocab));  // final norm, output
    p.token_embedding = rounded(ex(m.vocab) * h);
    p.position_embedding = m.learned_positions ? rounded(ex(max_positions) * h) : 0;
    const Exact embedding = ex(p.token_embedding) + ex(p.position_embedding);
    p.total = rounded(layers + experts + embedding + tail);
    // torchtitan: nparams_experts * top_k // num_experts, over all layers at once
    const Exact active_experts = m.experts > 0 ? std::floor(experts * ex(m.top_k) / ex(m.experts)) : 0;
    p.active = rounded(layers + active_experts + embedding + tail);
    p.head_dims = m.mla() ? m.qk_head_dim + m.qk_rope_head_dim + m.v_head_dim : 2.0 * m.kv_channels();
    return p;
}

double torchtitan_per_token(const FlopsShape& m, double seq, bool tied_counts_output) {
    const ParamCounts p = torchtitan_params(m, m.max_positions);
    const Exact embedding = ex(p.token_embedding) + ex(p.position_embedding);
    // b5bcd76c: with tied embeddings every parameter counts (the table is the output matmul);
    // v0.2.2 subtracts the embedding tables whatever the tying.
    const Exact matmul = m.tied_embeddings && tied_counts_output ? ex(p.active) : ex(p.active) - embedding;
    return rounded(6 * matmul + 6 * ex(m.layers) * ex(m.heads) * ex(p.head_dims) * ex(seq));
}

double palm_per_token(const FlopsShape& m, double seq) {
    // N: the parameters a token's forward pass multiplies with: the output layer included
    // (the embedding table when tied), the input lookup tables not. Q: the head dimension
    // (MLA: the mean of d_qk and d_v, so that 12 L H Q T = 6 L H (d_qk + d_v) T).
    const ParamCounts p = torchtitan_params(m, m.max_positions);
    Exact n = ex(p.active) - ex(p.position_embedding) - (m.tied_embeddings ? 0 : ex(p.token_embedding));
    return rounded(6 * n + 6 * ex(m.layers) * ex(m.heads) * ex(p.head_dims) * ex(seq));
}

double narayanan2021(double gbs, double seq, double layers, double hidden, double vocab) {
    return 96 * gbs * seq * layers * hidden * hidden * (1 + seq / (6 * hidden) + vocab / (16 * layers * hidden));
}

}  // namespace trainbench::analysis::detail
