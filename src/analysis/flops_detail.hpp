// Private to analysis: the raw FLOPs formulas, exposed for unit tests.
#pragma once

namespace trainbench::analysis::detail {

// NeMo's FLOPSConfig subset (nemo/utils/flops_formulas.py). Doubles so the
// products cannot overflow; every formula returns FLOPs of one global batch.
// The transformer shape both formula families read (NeMo's names in the comments).
struct ShapeConfig {
    double gbs = 1;
    double seq = 0;     // enc_seq_len
    double hidden = 0;  // hs
    double layers = 0;
    double ffn = 0;     // ffn_hs
    double heads = 0;   // attention_heads
    double groups = 0;  // query_groups; = heads for MHA
};

struct NemoConfig : ShapeConfig {
    double topk = 0;   // moe_router_topk
    double vocab = 0;  // only the families that read vocab_size use it
};

// `attention` is 0.5 for the causal discount (NeMo since 2025-08-09), 1 before.
double nemo_gpt3(const NemoConfig& c, double attention, double vocab = 51200);
double nemo_llama(const NemoConfig& c, double attention, double vocab);  // llama2 32000, llama3 128256
double nemo_nemotron(const NemoConfig& c, double attention, double vocab = 256000);
double nemo_mixtral(const NemoConfig& c, double attention, double vocab = 32000);
double nemo_bert(const NemoConfig& c, double vocab = 29000);
double nemo_transformer(const NemoConfig& c, bool causal);

// Megatron-LM num_floating_point_operations for one global batch of `gbs`
// sequences: current (causal) and the 2024 (non-causal) form.
struct MegatronConfig : ShapeConfig {
    double kv_channels = 0;  // head dim; 0 = hidden / heads
    double padded_vocab = 0;
    bool swiglu = false;
    double moe_layers = 0;  // layers whose MLP is routed
    double topk = 0;
};
double megatron_current(const MegatronConfig& c);
double megatron_2024(const MegatronConfig& c);

// Narayanan et al. 2021, Eq. 3: 96 B s l h^2 (1 + s/6h + V/16lh), with full recompute.
double narayanan2021(double gbs, double seq, double layers, double hidden, double vocab);

}  // namespace trainbench::analysis::detail
