// Private to analysis: the raw FLOPs formulas, exposed for unit tests. Each one
// counts what one upstream function counts, term by term, in the same order of
// operations where the upstream code computes in exact integers first (Python
// ints) and rounds once (see exact() in flops_formulas.cpp). Sources and dates:
// the conventions table in flops.cpp and docs/metrics.md.
#pragma once

#include <trainbench/analysis.hpp>

namespace trainbench::analysis::detail {

// NeMo's FLOPSConfig subset (nemo/utils/flops_formulas.py). Doubles so the
// products cannot overflow; every formula returns FLOPs of one global batch.
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
    // qwen3 / deepseekv3
    double moe_ffn = 0;            // moe_ffn_hidden_size
    double shared_ffn = 0;         // moe_shared_expert_intermediate_size
    std::vector<int> moe_pattern;  // moe_layer_freq as a list
    double mtp_layers = 0;         // mtp_num_layers (0 = None)
    double q_lora_rank = 0, kv_lora_rank = 0, qk_head_dim = 0, qk_pos_emb_head_dim = 0, v_head_dim = 0;
};

// `attention` is 0.5 for the causal discount (NeMo since 2025-08-09), 1 before.
double nemo_gpt3(const NemoConfig& c, double attention, double vocab = 51200);
double nemo_llama(const NemoConfig& c, double attention, double vocab);  // llama2 32000, llama3 128256
double nemo_nemotron(const NemoConfig& c, double attention, double vocab = 256000);
double nemo_mixtral(const NemoConfig& c, double attention, double vocab = 32000);
double nemo_bert(const NemoConfig& c, double vocab = 29000);
double nemo_transformer(const NemoConfig& c, bool causal);
double nemo_qwen3(const NemoConfig& c);       // causal at both dates
double nemo_deepseekv3(const NemoConfig& c);  // causal at both dates

// Megatron-LM num_floating_point_operations for ONE sample of `seq` tokens,
// `padded_vocab` the vocabulary it pads: fdfcef87 (2024 form, non-causal,
// every layer MoE when there are experts) and d98e8a64 (since 2025-03-06:
// causal, moe_layer_freq, MLA, MTP).
double megatron_2024(const FlopsShape& m, double seq, double padded_vocab);
double megatron_2025(const FlopsShape& m, double seq, double padded_vocab);

// TorchTitan's parameter counts (what its modules hold, from torchtitan's model.py
// files), and 6 N_matmul + 6 L H (d_qk + d_v) S per token.
struct ParamCounts {
    double total = 0;               // every parameter
    double active = 0;              // total minus the routed experts a token does not use
    double token_embedding = 0;     // the input embedding table
    double position_embedding = 0;  // learned positions (GPT-3, OPT)
    double head_dims = 0;           // d_qk + d_v per head
};
ParamCounts torchtitan_params(const FlopsShape& m, double max_positions);
// `tied_counts_output`: b5bcd76c counts a tied embedding once as the output matmul; v0.2.2 drops it.
double torchtitan_per_token(const FlopsShape& m, double seq, bool tied_counts_output);
// PaLM (Chowdhery et al. 2022, Appendix B): 6N + 12 L H Q T per token.
double palm_per_token(const FlopsShape& m, double seq);

// Narayanan et al. 2021, Eq. 3: 96 B s l h^2 (1 + s/6h + V/16lh), with full recompute.
double narayanan2021(double gbs, double seq, double layers, double hidden, double vocab);

}  // namespace trainbench::analysis::detail
