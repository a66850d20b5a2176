// The per-GPU memory estimate (docs/recipes.md "The memory estimate" lists every formula and
// its source). Parameters are counted per pipeline rank from the stages it holds
// (pipeline_stages), split into the parts data parallelism shards (dense: attention, dense and
// shared-expert MLPs, embeddings; over data x context parallel) and the routed experts (over
// expert data parallel = GPUs / (expert x expert_tensor x pipeline)); activations follow
// Korthikanti et al. 2022 with GQA, SwiGLU, MoE and MLA terms.
#include "recipe/schema.hpp"

#include <trainbench/recipe.hpp>

#include <algorithm>
#include <cmath>

namespace trainbench::recipe {

namespace {

bool uses_fused_attention(const Recipe& r) {
    // Transformer Engine / flash attention never store the a*s*s attention scores (the
    // catalog's framework row says which frameworks use them); the 2022 stacks (metaseq),
    // unknown ones and any framework on a CPU do.
    return framework_kind(r).fused_attention && r.gpu.family != "cpu";
}

bool has_arg(const Recipe& r, std::string_view flag) {
    return std::find(r.launch.extra_args.begin(), r.launch.extra_args.end(), flag) != r.launch.extra_args.end();
}

bool recomputes(const Recipe& r, std::string_view module) {
    const auto& m = r.recompute.modules;
    return r.recompute.granularity == "selective" && std::find(m.begin(), m.end(), module) != m.end();
}

// Parameter counts of one layer of each kind, and of its GEMM weights (what FP8 copies cover).
struct LayerParams {
    double attention = 0;       // projections (and biases)
    double attention_gemm = 0;  // projection weights
    double norms = 0;
    double dense_mlp = 0;
    double dense_mlp_gemm = 0;
    double shared = 0;  // shared experts (one MLP of moe_shared_experts x shared FFN)
    double router = 0;
    double expert = 0;  // one routed expert
};

double mlp_params(const catalog::Model& m, double f, bool bias) {
    const double h = m.hidden;
    const bool gated = m.activation == "swiglu";
    return (gated ? 3.0 : 2.0) * h * f + (bias ? (gated ? 2.0 : 1.0) * f + h : 0.0);
}

LayerParams layer_params(const catalog::Model& m) {
    LayerParams p;
    const double h = m.hidden, a = m.heads, kv = m.kv_head_count(), dh = m.head_size();
    if (m.is_mla()) {
        const double qk = m.qk_head_dim + m.qk_rope_head_dim;
        const double q = m.q_lora_rank > 0 ? h * m.q_lora_rank + m.q_lora_rank + m.q_lora_rank * a * qk : h * a * qk;
        const double kv_down = h * (m.kv_lora_rank + m.qk_rope_head_dim) + m.kv_lora_rank;
        const double kv_up = m.kv_lora_rank * a * (m.qk_head_dim + m.v_head_dim);
        p.attention_gemm = q + kv_down + kv_up + a * m.v_head_dim * h;
        p.attention = p.attention_gemm;
    } else {
        p.attention_gemm = h * a * dh + 2 * h * kv * dh + a * dh * h;
        double bias = m.linear_bias ? a * dh + 2 * kv * dh + h : (m.qkv_bias ? a * dh + 2 * kv * dh : 0.0);
        p.attention = p.attention_gemm + bias + (m.qk_norm ? 2 * dh : 0.0);
    }
    p.norms = (m.norm == "rmsnorm" ? 1.0 : 2.0) * h * 2;
    p.dense_mlp = mlp_params(m, m.ffn_size(), m.linear_bias);
    p.dense_mlp_gemm = mlp_params(m, m.ffn_size(), false);
    if (m.is_moe()) {
        p.router = h * m.experts + (m.moe_expert_bias ? m.experts : 0.0);
        p.expert = mlp_params(m, m.expert_ffn_size(), false);
        if (m.moe_shared_experts > 0)
            p.shared = mlp_params(m, 1.0 * m.moe_shared_experts * m.shared_expert_ffn_size(), false);
    }
    return p;
}

// What one pipeline rank holds, in parameters: sharded by data x context parallel (dense)
// or by expert data parallel (routed experts); and the GEMM weights among them.
struct RankParams {
    double dense = 0;
    double experts = 0;
    double gemm = 0;
    int layers = 0;
    int moe_layers = 0;
};

struct Shape {
    double t = 1, e = 1, et = 1;
    double vocab_padded = 0;
};

RankParams rank_params(const Recipe& r, const std::vector<PipelineStage>& stages, int rank, const Shape& s) {
    const catalog::Model& m = r.model;
    const LayerParams lp = layer_params(m);
    const double h = m.hidden, E = m.experts;
    const int p = std::max(1, r.parallelism.pipeline);
    RankParams out;
    auto add_layer = [&](bool moe) {
        out.dense += (lp.attention + (moe ? lp.shared : lp.dense_mlp)) / s.t + lp.norms + (moe ? lp.router : 0.0);
        out.gemm += (lp.attention_gemm + (moe ? lp.shared : lp.dense_mlp_gemm)) / s.t;
        if (moe) {
            double local = (E / s.e) * lp.expert / s.et;
            out.experts += local;
            out.gemm += local;
        }
    };
    for (std::size_t j = static_cast<std::size_t>(rank); j < stages.size(); j += static_cast<std::size_t>(p)) {
        const PipelineStage& st = stages[j];
        for (int i = st.first_layer; i < st.first_layer + st.layers; ++i) {
            add_layer(m.is_moe_layer(i));
            ++out.layers;
            out.moe_layers += m.is_moe_layer(i) ? 1 : 0;
        }
        // An MTP module: its own (MoE when the model's last layer is) layer, two norms and
        // the projection of [embedding; hidden] back to h (Megatron-Core MultiTokenPredictionLayer).
        for (int k = 0; k < st.mtp; ++k) {
            add_layer(m.is_moe_layer(m.layers - 1));
            out.dense += 2 * h * h / s.t + 3 * h;
        }
        const double word = s.vocab_padded * h / s.t;
        // (learned positions split by tensor like the words, as this estimate always counted them)
        if (st.embedding) out.dense += word + (m.position == "learned" ? 1.0 * m.seq_length * h / s.t : 0.0);
        // The loss stage: the output layer's own weights when untied, else (pipeline > 1) its
        // copy of the word embeddings; with MTP there also the embeddings the MTP module reads.
        if (st.loss) {
            if (!m.tied_embeddings || !st.embedding) out.dense += word;
            if (st.mtp > 0 && !st.embedding) out.dense += word;
            out.dense += (m.norm == "rmsnorm" ? 1.0 : 2.0) * h;
        }
    }
    return out;
}

// Bytes of the quantized copies Transformer Engine keeps of each GEMM weight for the micro-batches
// of a step (a row-wise and a column-wise one, with their scales), per parameter.
double quantized_copy_bytes(catalog::Precision p) {
    switch (p) {
        case catalog::Precision::fp8:
            return 2.0;  // FP8 weight and its transpose
        case catalog::Precision::mxfp8:
            return 2.0 * (1.0 + 1.0 / 32.0);  // E4M3 row- and column-wise, one E8M0 scale per 32 values
        case catalog::Precision::nvfp4:
            return 2.0 * (0.5 + 1.0 / 16.0);  // E2M1 row- and column-wise, one E4M3 scale per 16 values
        default:
            return 0.0;
    }
}

}  // namespace

namespace {

// Activation bytes of one layer for one micro-batch (Korthikanti et al. 2022, "Reducing Activation
// Recomputation in Large Transformer Models", section 4, generalised): `s` is the sequence a GPU
// holds (seq_length / context), `b` the micro batch; the tensor-parallel part divides by t, the
// rest only with sequence parallelism. 2 bytes per element (bf16), 1 per dropout mask.
struct LayerActivations {
    double selective = 0;  // no attention scores (fused attention, or selective recompute)
    double scores = 0;     // the a*s^2 score, softmax and dropout terms a non-fused attention adds
    double input = 0;      // what full recompute keeps: the layer's input
};

// Bytes per element of what a GEMM saves of its input for the backward pass: Transformer Engine
// keeps the quantized input in FP8 training (MXFP8 with its E8M0 scale per 32, NVFP4 E2M1 with its
// E4M3 scale per 16), bf16/fp16 otherwise.
double gemm_input_bytes(catalog::Precision p) {
    switch (p) {
        case catalog::Precision::fp8:
            return 1.0;
        case catalog::Precision::mxfp8:
            return 1.0 + 1.0 / 32.0;
        case catalog::Precision::nvfp4:
            return 0.5 + 1.0 / 16.0;
        default:
            return 2.0;
    }
}

LayerActivations layer_activations(const Recipe& r, bool moe) {
    const catalog::Model& m = r.model;
    const double t = std::max(1, r.parallelism.tensor);
    const double c = std::max(1, r.parallelism.context);
    const double et = r.parallelism.expert_tensor > 0 ? r.parallelism.expert_tensor : t;
    const double s = m.seq_length / c, b = std::max(1, r.batch.micro), h = m.hidden, a = m.heads;
    const double sb = s * b;
    const bool sp = r.parallelism.sequence_parallel && t > 1;
    const double rep = sp ? t : 1.0;  // what sequence parallelism splits
    const double q = gemm_input_bytes(r.precision);
    // GPT-3-era layers (LayerNorm) train with dropout; today's (RMSNorm) set it to 0.
    const bool dropout = m.norm != "rmsnorm";
    const bool gated = m.activation == "swiglu";
    LayerActivations out;
    // Replicated across tensor parallel: the two norms' inputs (bf16), the attention and MLP
    // inputs (the norms' outputs, GEMM inputs), the two dropout masks (1 byte).
    double replicated = 2 * 2 * sb * h + 2 * q * sb * h + (dropout ? 2 * sb * h : 0.0);
    // Attention: flash attention keeps Q, K and V (bf16); the output projection keeps its input.
    double attention = 0;
    if (m.is_mla()) {
        const double qk = m.qk_head_dim + m.qk_rope_head_dim;
        // The compressed latents the up-projections read (replicated: the down-projections are not split).
        replicated += q * sb * (m.q_lora_rank + m.kv_lora_rank);
        if (!recomputes(r, "mla_up_proj")) attention += 2 * sb * a * (2 * qk + m.v_head_dim);
        attention += q * sb * a * m.v_head_dim;
    } else {
        const double qd = a * m.head_size(), kv = m.kv_head_count() * m.head_size();
        attention = 2 * sb * (qd + 2 * kv) + q * sb * qd;
    }
    // MLP: fc1's output (2f when gated, bf16, for the activation's backward) and the activation's
    // output (fc2's input).
    auto mlp = [&](double f, double tokens, double split) {
        return (2 * tokens * (gated ? 2 : 1) * f + q * tokens * f) / split;
    };
    double mlp_part = 0;
    if (moe) {
        const double k = m.moe_top_k;
        // Routed tokens (balanced routing): a rank's experts see k copies of the tokens of its
        // sequence-parallel shard, gathered over the expert-tensor group (Megatron-Core's MoE
        // "parallel folding": sb*k*et/t tokens with sequence parallelism, sb*k without), as their
        // permuted input and the fc1/activation outputs split over expert tensor parallel.
        const double tokens = sb * k * (sp ? et / t : 1.0);
        if (!recomputes(r, "moe")) {
            mlp_part += q * tokens * h;
            mlp_part += recomputes(r, "moe_act") ? 2 * tokens * (gated ? 2 : 1) * m.expert_ffn_size() / et
                                                 : mlp(m.expert_ffn_size(), tokens, et);
        }
        mlp_part += 4 * sb * m.experts / rep;  // fp32 router logits
        if (m.moe_shared_experts > 0 && !recomputes(r, "shared_experts"))
            mlp_part += mlp(1.0 * m.moe_shared_experts * m.shared_expert_ffn_size(), sb, t);
    } else if (!recomputes(r, "mlp")) {
        mlp_part = mlp(m.ffn_size(), sb, t);
    }
    if (recomputes(r, "layernorm")) replicated -= 2 * q * sb * h;  // the norms' outputs are recomputed
    out.selective = replicated / rep + attention / t + mlp_part;
    out.scores = 5.0 * a * s * s * b / t;
    out.input = 2 * sb * h / rep;
    return out;
}

// The whole model's parameters (no parallelism), counted the way the ranks count theirs.
double whole_model_parameters(const Recipe& r, double vocab_padded) {
    const catalog::Model& m = r.model;
    Recipe whole = r;
    whole.parallelism = Parallelism{};
    whole.parallelism.pipeline = 1;
    Shape one;
    one.vocab_padded = vocab_padded;
    std::vector<PipelineStage> all(1);
    all[0].layers = m.layers;
    all[0].mtp = m.mtp_layers;
    all[0].embedding = all[0].loss = true;
    RankParams w = rank_params(whole, all, 0, one);
    return w.dense + w.experts;
}

// Weights, gradients and optimizer state of the pipeline rank that holds the most (Megatron
// accounting, mixed-precision Adam), written into e.
void model_state(const Recipe& r, const std::vector<PipelineStage>& stages, const Shape& s, MemoryEstimate& e) {
    const int p = std::max(1, r.parallelism.pipeline);
    const int gpus = r.total_gpus();
    const double dp_cp = std::max(1, r.data_parallel()) * std::max(1, r.parallelism.context);
    const double expert_dp = std::max(1.0, gpus / (s.e * s.et * p));
    const bool full_precision = r.precision == catalog::Precision::fp32 || r.precision == catalog::Precision::tf32;
    const catalog::FrameworkKind& kind = framework_kind(r);
    const bool fsdp = kind.shards_parameters;  // FSDP shards parameters and gradients too
    const double weight_bytes = full_precision ? 4 : 2;
    const double grad_bytes =
        full_precision
            ? 4
            : ((kind.megatron_arguments && has_arg(r, "--grad-reduce-in-bf16")) || kind.bf16_gradients ? 2 : 4);
    const double optimizer_bytes = full_precision ? 8 : 12;  // (fp32 master +) Adam m and v
    const bool shard_optimizer = r.distributed_optimizer || fsdp;
    const double copy = full_precision ? 0.0 : quantized_copy_bytes(r.precision);
    const bool param_gather = kind.megatron_arguments && has_arg(r, "--fp8-param-gather");
    double best = -1;
    for (int rank = 0; rank < p; ++rank) {
        RankParams rp = rank_params(r, stages, rank, s);
        const double P = rp.dense + rp.experts;
        double weights = weight_bytes * P, gradients = grad_bytes * P;
        double optimizer = optimizer_bytes * (shard_optimizer ? rp.dense / dp_cp + rp.experts / expert_dp : P);
        if (fsdp) {
            weights /= dp_cp;
            gradients /= dp_cp;
        }
        // FP8/MXFP8/NVFP4: the quantized copies of the GEMM weights; with --fp8-param-gather the
        // parameter itself is the quantized one and its bf16 copy goes.
        if (copy > 0) weights += param_gather ? (copy - weight_bytes) * rp.gemm : copy * rp.gemm;
        const double total = weights + gradients + optimizer;
        if (total > best) {
            best = total;
            e.parameters_per_gpu = P;
            e.weights = weights;
            e.gradients = gradients;
            e.optimizer = optimizer;
        }
    }
}

// The activations the first rank keeps for its layers under the recipe's recompute setting.
double kept_activations(const Recipe& r, double layers_here, double none_kept, double selective, double full) {
    if (r.recompute.granularity == "selective") return selective;
    if (r.recompute.granularity != "full") return none_kept;
    const double per_layer_none = layers_here > 0 ? none_kept / layers_here : 0;
    const double per_layer_full = layers_here > 0 ? full / layers_here : 0;
    const double n = r.recompute.num_layers;
    if (r.recompute.method == "uniform") {
        const double group = std::max(1.0, n);
        // each group of `group` layers keeps only its input; one group is recomputed at a time
        return std::ceil(layers_here / group) * per_layer_full + group * per_layer_none;
    }
    const double recomputed = n <= 0 ? layers_here : std::min(n, layers_here);
    return recomputed * per_layer_full + (layers_here - recomputed) * per_layer_none;
}

// Activations of the first rank (it holds the most micro-batches in flight, 1F1B), written into e.
void activations(const Recipe& r, const std::vector<PipelineStage>& stages, const Shape& s, MemoryEstimate& e) {
    const catalog::Model& m = r.model;
    const int p = std::max(1, r.parallelism.pipeline);
    const LayerActivations dense_act = layer_activations(r, false), moe_act = layer_activations(r, true);
    RankParams first = rank_params(r, stages, 0, s);
    const double dense_layers = first.layers - first.moe_layers, moe_layers = first.moe_layers;
    auto per_rank = [&](double LayerActivations::*part, double LayerActivations::*extra) {
        double d = dense_act.*part + (extra ? dense_act.*extra : 0.0);
        double x = moe_act.*part + (extra ? moe_act.*extra : 0.0);
        return dense_layers * d + moe_layers * x;
    };
    const double none_kept = uses_fused_attention(r)
                                 ? per_rank(&LayerActivations::selective, nullptr)
                                 : per_rank(&LayerActivations::selective, &LayerActivations::scores);
    const double none_all = per_rank(&LayerActivations::selective, &LayerActivations::scores);
    const double selective = per_rank(&LayerActivations::selective, nullptr);
    const double full = per_rank(&LayerActivations::input, nullptr);
    const double kept = kept_activations(r, first.layers, none_kept, selective, full);
    // The first rank holds the activations of up to `pipeline` micro-batches in flight (1F1B);
    // interleaving adds (p-1)/(p*v) of that.
    const double v = r.parallelism.virtual_pipeline;
    const int dp_int = r.data_parallel();
    double in_flight = 1;
    if (p > 1) {
        const double microbatches = dp_int > 0 ? r.batch.global / (std::max(1, r.batch.micro) * double(dp_int)) : p;
        in_flight = std::max(1.0, std::min(double(p), microbatches));
    }
    const double interleave = v > 0 && p > 1 ? 1.0 + (p - 1.0) / (p * v) : 1.0;
    const double s_local = m.seq_length / double(std::max(1, r.parallelism.context));
    // fp32 logits of the output layer, counted when one rank holds the whole model
    const double logits = p > 1 ? 0.0 : 4.0 * s_local * std::max(1, r.batch.micro) * s.vocab_padded / s.t;
    auto total_acts = [&](double per_rank_layers) { return per_rank_layers * in_flight * interleave + logits; };
    e.activations = total_acts(kept);
    e.activations_no_recompute = total_acts(none_all);
    e.activations_full_recompute = total_acts(full);
}

}  // namespace

MemoryEstimate estimate_memory(const Recipe& r) {
    MemoryEstimate e;
    const catalog::Model& m = r.model;
    if (m.layers <= 0 || m.hidden <= 0 || m.heads <= 0) return e;
    const std::vector<PipelineStage> stages = pipeline_stages(r);
    if (stages.empty()) return e;
    Shape s;
    s.t = std::max(1, r.parallelism.tensor);
    s.e = std::max(1, r.parallelism.expert);
    s.et = r.parallelism.expert_tensor > 0 ? r.parallelism.expert_tensor : s.t;
    // Megatron pads the vocabulary to a multiple of 128 x tensor (--make-vocab-size-divisible-by).
    const double pad = 128.0 * s.t;
    s.vocab_padded = std::ceil(std::max(1, m.vocab) / pad) * pad;
    e.parameters = whole_model_parameters(r, s.vocab_padded);
    model_state(r, stages, s, e);
    activations(r, stages, s, e);
    e.total = e.weights + e.gradients + e.optimizer + e.activations;
    e.capacity = r.gpu.memory_gib * k_gib;
    return e;
}

}  // namespace trainbench::recipe
