// The table of dated FLOPs conventions: each one a formula as one framework (or
// paper) counted it between two dates, with the upstream function it comes
// from, the framework versions that print it, and the undated aliases kept for
// recipes written before the dates. docs/metrics.md prints the same table.
#include <trainbench/analysis.hpp>

#include <fmt/format.h>

#include <cmath>

namespace trainbench::analysis {

namespace conventions {
// flops.cpp
FlopsResult gpu_recipes_2025(const FlopsInput& in);
FlopsResult gpu_recipes_2024(const FlopsInput& in);
FlopsResult megatron_2025(const FlopsInput& in);
FlopsResult megatron_2024(const FlopsInput& in);
FlopsResult megatron_bridge(const FlopsInput& in);
FlopsResult nemo_2024(const FlopsInput& in);
FlopsResult nemo_2025(const FlopsInput& in);
FlopsResult torchtitan_2026_02(const FlopsInput& in);
FlopsResult torchtitan_2026_08(const FlopsInput& in);
FlopsResult palm(const FlopsInput& in);
FlopsResult narayanan(const FlopsInput& in);
}  // namespace conventions

std::string FlopsConvention::date_range() const {
    if (until.empty()) return fmt::format("since {}", from);
    if (from.empty()) return fmt::format("until {}", until);
    return fmt::format("{} .. {}", from, until);
}

namespace {

constexpr std::string_view k_megatron = "NVIDIA/Megatron-LM";
constexpr std::string_view k_training_py = "megatron/training/training.py";
constexpr std::string_view k_nemo = "NVIDIA/NeMo";
constexpr std::string_view k_nemo_file = "nemo/utils/flops_formulas.py";
constexpr std::string_view k_bridge = "NVIDIA-NeMo/Megatron-Bridge";
constexpr std::string_view k_bridge_file = "src/megatron/bridge/training/utils/flop_utils.py";
constexpr std::string_view k_gpu_recipes = "AI-Hypercomputer/gpu-recipes";
constexpr std::string_view k_data_defs = "src/utils/training_metrics/src/data_defs.py";
constexpr std::string_view k_titan = "pytorch/torchtitan";
constexpr std::string_view k_titan_file = "torchtitan/models/utils.py";

std::vector<FlopsConvention> make_table() {
    using namespace conventions;
    std::vector<FlopsConvention> t;
    t.push_back({"megatron-2025-03",
                 "Megatron-LM since 2025-03-06: causal attention, padded vocabulary, GQA, gated MLP, MoE by "
                 "--moe-layer-freq (dense-first layers, shared experts), MLA, MTP",
                 megatron_2025,
                 false,
                 "Megatron-LM",
                 "2025-03-06",
                 "",
                 "Megatron-LM 8873b55d and later (core_v0.12.0rc2+): e958b2ca, 878d65f, d98e8a64; Megatron-Core "
                 "containers NeMo 25.04+",
                 "GQA, gated MLP, MoE (routed top-k, shared experts, moe_layer_freq), MLA, MTP; MoE latent, output "
                 "gate and packed (THD) batches not modelled",
                 {{k_megatron, k_training_py, "num_floating_point_operations",
                   "d98e8a64ddf34856e74b24714e3bedb2f5a39553", "2026-08-22"}},
                 true});
    t.push_back({"megatron-2024",
                 "Megatron-LM 2024: non-causal attention, padded vocabulary; with experts every layer is MoE "
                 "(moe_ffn * top-k plus shared experts); no MLA or MTP terms",
                 megatron_2024,
                 false,
                 "Megatron-LM",
                 "2024-04-03",
                 "2025-03-05",
                 "Megatron-LM e116d81e/2bfe9bea (2024-03/04) up to fdfcef87, the parent of 8873b55d; core_v0.11.0 "
                 "and earlier; shared experts since 1fa9464e (2024-09-11)",
                 "GQA, gated MLP, MoE (top-k, shared experts, every layer)",
                 {{k_megatron, k_training_py, "num_floating_point_operations",
                   "fdfcef87004205eca69ea462b375578185ea01f6", "2025-03-03"}},
                 false});
    t.push_back({"megatron-bridge-2026",
                 "Megatron-Bridge flop_utils.py: Megatron-LM's causal formula as the Bridge computes it (the NeMo "
                 "26.x containers' TFLOP/s/GPU)",
                 megatron_bridge,
                 false,
                 "Megatron-Bridge",
                 "2026-06-12",
                 "",
                 "Megatron-Bridge 06f25c22 (llmb-r0.4.1, NeMo 26.04.01, dgxc-benchmarking 26.06) and 067f987d (0.7.0, "
                 "main); the same value for every catalog model",
                 "GQA, gated MLP, MoE (routed top-k, shared experts, moe_layer_freq), MLA, MTP",
                 {{k_bridge, k_bridge_file, "num_floating_point_operations", "067f987df03b8355b03192d88d70f1709fedf51a",
                   "2026-08-22"},
                  {k_bridge, k_bridge_file, "num_floating_point_operations", "06f25c227ef9d3d9b22e5561fb9f46e1cbdab7e2",
                   "2026-06-12"}},
                 true});
    return t;
}

void add_framework_conventions(std::vector<FlopsConvention>& t) {
    using namespace conventions;
    t.push_back({"nemo-2025-08",
                 "NeMo flops_formulas.py since 2025-08-09: per-family formulas with the causal 1/2 (gpt3, llama2/3, "
                 "mixtral, nemotron too), fixed per-family vocabularies",
                 nemo_2025,
                 false,
                 "NeMo",
                 "2025-08-09",
                 "",
                 "NeMo 6251117f (#14424) and later: main after v2.5.0rc0; not in v2.4.0 or v2.5.0rc0",
                 "per family: gpt3 (MHA, f = 4h), llama2/llama3 (GQA, SwiGLU), mixtral (top-k), qwen3 (MoE), "
                 "deepseekv3 (MLA, dense-first, shared experts, MTP), nemotron, bert",
                 {{k_nemo, k_nemo_file, "gpt3, llama2, llama3, mixtral, qwen3, deepseekv3, ...",
                   "8cfedd7203462cb251a914e700e5605444277561", "2025-09-20"}},
                 true});
    t.push_back(
        {"nemo-2024",
         "NeMo flops_formulas.py before 2025-08-09: gpt3, llama2/3, mixtral and nemotron count full "
         "(non-causal) attention; qwen3 and deepseekv3 were causal from the start",
         nemo_2024,
         false,
         "NeMo",
         "",
         "2025-08-08",
         "NeMo 2.x up to 539b81ec (the parent of 6251117f): containers nemo:24.07 .. 25.07 (v2.4.0, v2.5.0rc0); "
         "NVIDIA's NeMo 24.07 performance tables",
         "per family as nemo-2025-08",
         {{k_nemo, k_nemo_file, "gpt3, llama2, llama3, mixtral, qwen3, deepseekv3, ...",
           "539b81ecf5d15ada8eee46f78ad324115ee60fda", "2025-08-08"}},
         false});
    t.push_back({"gpu-recipes-2025-05",
                 "gpu-recipes training_metrics: per-sample constants from its table (llama3.1 and mixtral-8x7b "
                 "included), its peaks (H100 FP8 1978), step window 10..30 inclusive, mean over records",
                 gpu_recipes_2025,
                 false,
                 "gpu-recipes",
                 "2025-05",
                 "",
                 "gpu-recipes 534ed01 (2025-05) .. 2e1fd5ef (2026-08-12): the A3 Mega/A3 Ultra/A4 recipes' "
                 "process_training_results.py",
                 "per-model constants (NeMo's non-causal formulas at each model's standard length, some with "
                 "another vocabulary)",
                 {{k_gpu_recipes, k_data_defs, "MODEL_FLOPS_PER_SAMPLE", "2e1fd5efbf1af9c08f8ac50b9d7fef2cfa675b68",
                   "2026-08-12"}},
                 false});
    t.push_back({"gpu-recipes-2024-10",
                 "gpu-recipes training_metrics as first published: the same constants for fewer models (no llama3.1, "
                 "no mixtral-8x7b key)",
                 gpu_recipes_2024,
                 false,
                 "gpu-recipes",
                 "2024-10-09",
                 "2025-05",
                 "gpu-recipes 916aa8e/24ba6df (2024-10) until the table grew: seed 004's A3 Mega GPT-3 175B recipe",
                 "per-model constants",
                 {{k_gpu_recipes, k_data_defs, "MODEL_FLOPS_PER_SAMPLE", "24ba6df9c0ba83d31db09446eb5560da0829ec89",
                   "2024-10-21"}},
                 false});
}

void add_count_conventions(std::vector<FlopsConvention>& t) {
    using namespace conventions;
    t.push_back({"torchtitan-2026-08",
                 "TorchTitan: 6 x active parameters (embedding excluded) + 6 L H (d_qk + d_v) S per token, no causal "
                 "discount; tied embeddings count once",
                 torchtitan_2026_08,
                 false,
                 "TorchTitan",
                 "2026-02-21",
                 "",
                 "TorchTitan main after v0.2.2 .. b5bcd76c (2026-08-21)",
                 "any architecture through its parameter count: GQA, gated MLP, MoE (active = router + shared + "
                 "routed * k/E), MLA head dims",
                 {{k_titan, k_titan_file, "get_dense_model_nparams_and_flops, get_moe_model_nparams_and_flops",
                   "b5bcd76c66d0acb1a08b176d9639425bc55e0b2a", "2026-08-21"}},
                 false});
    t.push_back({"torchtitan-2026-02",
                 "TorchTitan v0.2.2: as torchtitan-2026-08, but a tied embedding is subtracted from the matmul "
                 "parameters",
                 torchtitan_2026_02,
                 false,
                 "TorchTitan",
                 "",
                 "2026-02-20",
                 "TorchTitan v0.2.2 and earlier (the TOML-config releases)",
                 "as torchtitan-2026-08",
                 {{k_titan, k_titan_file, "get_dense_model_nparams_and_flops, get_moe_model_nparams_and_flops",
                   "73a0e6979dd10b6b1904098eb3c8f62c18ab87ce", "2026-02-20"}},
                 false});
    t.push_back({"palm-2022",
                 "PaLM (Chowdhery et al. 2022, Appendix B): 6N + 12 L H Q T per token, N the parameters a token "
                 "multiplies with, no causal discount",
                 palm,
                 false,
                 "PaLM paper",
                 "2022-04-05",
                 "",
                 "MaxText before 2025-07-27 and most JAX/TPU reports cite it",
                 "dense; MoE through active parameters",
                 {{"arXiv 2204.02311", "Appendix B (Model FLOPs utilization)", "6N + 12LHQT", "", "2022-04-05"}},
                 false});
    t.push_back({"narayanan2021",
                 "Narayanan et al. 2021 Eq. 3 with full activation recompute: hardware-FLOPs-like, overstates model "
                 "FLOPs",
                 narayanan,
                 true,
                 "Megatron-LM paper",
                 "2021-04-09",
                 "",
                 "the Megatron-LM 2021 paper's tables (GPT-3 shapes: MHA, f = 4h)",
                 "GPT-3 shapes only",
                 {{"arXiv 2104.04473", "Eq. 3 and Appendix", "96 B s l h^2 (1 + s/6h + V/16lh)", "", "2021-04-09"}},
                 false});
}

}  // namespace

const std::vector<FlopsConvention>& flops_conventions() {
    static const std::vector<FlopsConvention> table = [] {
        std::vector<FlopsConvention> t = make_table();
        add_framework_conventions(t);
        add_count_conventions(t);
        return t;
    }();
    return table;
}

const std::vector<ConventionAlias>& flops_convention_aliases() {
    static const std::vector<ConventionAlias> aliases = {
        {"megatron", "megatron-2025-03",
         "the formula of the Megatron-LM versions trainbench ships (e958b2ca, 878d65f, d98e8a64: all after "
         "2025-03-06)"},
        {"nemo", "nemo-2024",
         "the formula of the NeMo versions trainbench ships (22.06, 23.07, 24.07: all before 2025-08-09); NVIDIA's "
         "NeMo 24.07 tables use it"},
        {"gpu-recipes", "gpu-recipes-2025-05", "gpu-recipes' table today (a superset of the 2024 one, same values)"},
        {"megatron-bridge", "megatron-bridge-2026", "the Megatron-Bridge formula"},
        {"torchtitan", "torchtitan-2026-08", "TorchTitan today"},
        {"palm", "palm-2022", "the PaLM paper"},
    };
    return aliases;
}

std::vector<std::string> flops_convention_names() {
    std::vector<std::string> names;
    for (const auto& c : flops_conventions()) names.emplace_back(c.name);
    for (const auto& a : flops_convention_aliases()) names.emplace_back(a.name);
    return names;
}

const ConventionAlias* find_flops_alias(std::string_view name) {
    for (const auto& a : flops_convention_aliases())
        if (a.name == name) return &a;
    return nullptr;
}

const FlopsConvention& find_flops_convention(std::string_view name) {
    if (const ConventionAlias* a = find_flops_alias(name)) name = a->target;
    for (const auto& c : flops_conventions())
        if (c.name == name) return c;
    std::string hint = did_you_mean(name, flops_convention_names());
    throw InputError(
        fmt::format("unknown FLOPs convention '{}'; known: {}", name, quoted_list(flops_convention_names(), " and ")),
        hint);
}

bool is_gpu_recipes_convention(std::string_view name) {
    return name.rfind("gpu-recipes", 0) == 0;
}

std::string peak_convention(std::string_view convention) {
    const FlopsConvention* c = nullptr;
    try {
        c = &find_flops_convention(convention);
    } catch (const InputError&) {
        return std::string(convention);
    }
    return is_gpu_recipes_convention(c->name) ? "gpu-recipes" : std::string(c->name);
}

std::vector<ConventionValue> flops_under_every_convention(const FlopsInput& input) {
    std::vector<ConventionValue> out;
    for (const FlopsConvention& c : flops_conventions()) {
        ConventionValue v;
        v.convention = &c;
        try {
            v.flops = c.per_sample(input);
        } catch (const InputError& e) {
            v.problem = e.what();
        }
        out.push_back(std::move(v));
    }
    return out;
}

std::vector<ConventionMatch> match_conventions(const FlopsInput& input, double tokens_per_s_per_gpu,
                                               double tflops_per_gpu, double tolerance) {
    if (!(tokens_per_s_per_gpu > 0) || !(tflops_per_gpu > 0))
        throw UsageError("a published pair needs positive tokens/s/GPU and TFLOPS/GPU");
    std::vector<ConventionMatch> out;
    const double seq = input.seq();
    for (const ConventionValue& v : flops_under_every_convention(input)) {
        if (!v.flops) continue;
        ConventionMatch m;
        m.convention = v.convention;
        m.tflops_per_gpu = v.flops->per_sample / seq * tokens_per_s_per_gpu / 1e12;
        m.difference = (m.tflops_per_gpu - tflops_per_gpu) / tflops_per_gpu;
        m.within = std::fabs(m.difference) <= tolerance;
        out.push_back(m);
    }
    return out;
}

}  // namespace trainbench::analysis
