// FLOPs per sample under named conventions. Formulas and their sources:
// docs/metrics.md (and ../shared/facts/metrics.md §1-§3).
#include "analysis/flops_detail.hpp"

#include <trainbench/analysis.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace trainbench::analysis {

namespace detail {

double nemo_gpt3(const NemoConfig& c, double attention, double vocab) {
    return 3 * c.layers *
               (24 * c.gbs * c.seq * c.hidden * c.hidden + 4 * c.gbs * c.seq * c.seq * c.hidden * attention) +
           6 * c.gbs * c.seq * c.hidden * vocab;
}

namespace {
// The llama/nemotron/mixtral family shape with a configurable MLP coefficient.
double nemo_llama_like(const NemoConfig& c, double attention, double vocab, double mlp_coefficient) {
    const double h = c.hidden;
    return c.gbs * c.seq * c.layers * h * h *
           (12 + 12 * c.groups / c.heads + mlp_coefficient * c.ffn / h + 12 * attention * c.seq / h +
            6 * vocab / (c.layers * h));
}
}  // namespace

double nemo_llama(const NemoConfig& c, double attention, double vocab) {
    return nemo_llama_like(c, attention, vocab, 18);
}
double nemo_nemotron(const NemoConfig& c, double attention, double vocab) {
    return nemo_llama_like(c, attention, vocab, 12);
}
double nemo_mixtral(const NemoConfig& c, double attention, double vocab) {
    return nemo_llama_like(c, attention, vocab, 18 * c.topk);
}
double nemo_bert(const NemoConfig& c, double vocab) {
    const double h = c.hidden;
    return 72 * c.gbs * c.layers * c.seq * h * h * (1 + c.seq / (6 * h) + vocab / (12 * h * c.layers));
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

double megatron_current(const MegatronConfig& c) {
    const double h = c.hidden;
    const double d = c.kv_channels > 0 ? c.kv_channels : h / c.heads;
    const double q = d * c.heads;
    const double phi = c.swiglu ? 3 : 2;
    const double dense_layers = c.layers - c.moe_layers;
    const double tokens = c.gbs * c.seq;
    const double s2 = c.gbs * c.seq * c.seq;
    const double mlp = 6 * h * c.ffn * phi * dense_layers + 6 * h * phi * (c.ffn * c.topk) * c.moe_layers;
    const double attention_linear = c.layers * 6 * (h * (q + 2 * d * c.groups) + q * h);
    const double logits = 6 * h * c.padded_vocab;
    return tokens * (mlp + attention_linear + logits) + s2 * 6 * q * c.layers;  // core attention: causal 1/2 included
}

double megatron_2024(const MegatronConfig& c) {
    const double h = c.hidden;
    const double d = c.kv_channels > 0 ? c.kv_channels : h / c.heads;
    const double q = d * c.heads;
    const double k_or_1 = c.moe_layers > 0 ? c.topk : 1;
    const double glu = c.swiglu ? 1.5 : 1.0;
    return 12 * c.gbs * c.seq * c.layers * h * h *
           ((1 + c.groups / c.heads + c.seq / h) * (q / h) + (c.ffn / h) * k_or_1 * glu +
            c.padded_vocab / (2 * c.layers * h));
}

double narayanan2021(double gbs, double seq, double layers, double hidden, double vocab) {
    return 96 * gbs * seq * layers * hidden * hidden * (1 + seq / (6 * hidden) + vocab / (16 * layers * hidden));
}

}  // namespace detail

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

namespace {

std::vector<std::string> table_keys(const std::map<std::string, double>& table) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : table) keys.push_back(k);
    return keys;
}

// The shape fields a formula needs must be set.
void require_shape(const FlopsInput& in, std::string_view convention, bool need_vocab) {
    std::vector<std::string> missing;
    if (in.model.layers <= 0) missing.emplace_back("layers");
    if (in.model.hidden <= 0) missing.emplace_back("hidden");
    if (in.model.heads <= 0) missing.emplace_back("heads");
    if (in.seq() <= 0) missing.emplace_back("seq_length");
    if (need_vocab && in.model.vocab <= 0) missing.emplace_back("vocab");
    if (!missing.empty())
        throw InputError(fmt::format("the '{}' FLOPs formula needs the model's {} (model '{}')", convention,
                                     quoted_list(missing, " and "), in.model.name),
                         "give a catalog model with --model, or set them in the recipe's model map");
}

bool is_gpt_style(std::string_view family) {
    return family == "gpt3" || family == "gpt" || family == "opt" || family == "tinygpt" || family == "gpt2";
}

FlopsResult gpu_recipes_flops(const FlopsInput& in) {
    const auto& table = gpu_recipes_model_flops();
    auto it = table.find(in.model.name);
    if (it == table.end()) {
        std::string hint = did_you_mean(in.model.name, table_keys(table));
        if (hint.empty()) hint = "use another FLOPs convention (--flops megatron or nemo) for this model";
        throw InputError(fmt::format("gpu-recipes has no FLOPs constant for model '{}'; its table has {}",
                                     in.model.name, quoted_list(table_keys(table), " and ")),
                         hint);
    }
    FlopsResult r;
    r.per_sample = it->second;
    r.formula = fmt::format("MODEL_FLOPS_PER_SAMPLE['{}'] = {:g}", it->first, it->second);
    r.note = "constant from gpu-recipes data_defs.py; it does not depend on sequence length, vocabulary or recompute";
    return r;
}

// One sample's transformer shape, as both formula families read it.
void fill_shape(const FlopsInput& in, detail::ShapeConfig& c) {
    c.gbs = 1;
    c.seq = in.seq();
    c.hidden = in.model.hidden;
    c.layers = in.model.layers;
    c.ffn = in.model.ffn_size();
    c.heads = in.model.heads;
    c.groups = in.model.kv_head_count();
}

detail::MegatronConfig megatron_config(const FlopsInput& in, int vocab) {
    detail::MegatronConfig c;
    fill_shape(in, c);
    c.padded_vocab = vocab;
    c.swiglu = in.model.activation == "swiglu";
    c.moe_layers = in.model.experts > 0 ? in.model.layers : 0;
    c.topk = in.model.experts > 0 ? std::max(in.model.moe_top_k, 1) : 0;
    return c;
}

std::string padding_note(const FlopsInput& in, int vp) {
    return fmt::format("padded vocabulary V_p = {} ({} padded to a multiple of {} x TP {})", vp, in.model.vocab,
                       in.vocab_divisible_by, in.tensor_parallel);
}

FlopsResult megatron_flops(const FlopsInput& in) {
    require_shape(in, "megatron", true);
    const int vp = padded_vocab(in.model.vocab, in.vocab_divisible_by, in.tensor_parallel);
    FlopsResult r;
    r.per_sample = detail::megatron_current(megatron_config(in, vp));
    r.vocab_used = vp;
    r.formula = "s*[6h*f*phi*L + 6L*(h(q+2dg)+qh) + 6h*V_p] + s^2*6q*L  (causal, Megatron-LM HEAD)";
    r.note = padding_note(in, vp);
    return r;
}

FlopsResult megatron_2024_flops(const FlopsInput& in) {
    require_shape(in, "megatron-2024", true);
    const int vp = padded_vocab(in.model.vocab, in.vocab_divisible_by, in.tensor_parallel);
    FlopsResult r;
    r.per_sample = detail::megatron_2024(megatron_config(in, vp));
    r.vocab_used = vp;
    r.formula =
        "12*s*L*h^2*[(1 + g/n + s/h)*(q/h) + (f/h)*k*(3/2 if SwiGLU) + V_p/(2Lh)]  (non-causal, Megatron-LM 2024)";
    r.note = padding_note(in, vp);
    return r;
}

detail::NemoConfig nemo_config(const FlopsInput& in) {
    detail::NemoConfig c;
    fill_shape(in, c);
    c.topk = in.model.moe_top_k;
    c.vocab = in.model.vocab;
    return c;
}

FlopsResult nemo_flops(const FlopsInput& in) {
    const std::string& family = in.model.family;
    const std::string& name = in.model.name;
    const auto cfg = nemo_config(in);
    FlopsResult r;
    if (family == "gpt3") {
        require_shape(in, "nemo", false);
        r.per_sample = detail::nemo_gpt3(cfg, 0.5);
        r.vocab_used = 51200;
        r.formula = "3L*(24*s*h^2 + 4*s^2*h*(1/2)) + 6*s*h*V, V = 51200  (NeMo gpt3, causal since 2025-08)";
        r.note = "NeMo's gpt3 formula assumes f = 4h, multi-head attention and a fixed vocabulary of 51200";
        return r;
    }
    if (is_gpt_style(family)) {
        require_shape(in, "nemo", true);
        r.per_sample = detail::nemo_gpt3(cfg, 0.5, in.model.vocab);
        r.vocab_used = in.model.vocab;
        r.formula = "3L*(24*s*h^2 + 4*s^2*h*(1/2)) + 6*s*h*V  (NeMo gpt3 formula)";
        r.note = fmt::format("NeMo has no '{}' formula: its gpt3 formula with the model's own vocabulary {}", family,
                             in.model.vocab);
        return r;
    }
    const bool llama = family.rfind("llama", 0) == 0;
    if (llama || family == "mixtral" || family == "nemotron") {
        require_shape(in, "nemo", false);
        double vocab = 0;
        if (family == "mixtral")
            vocab = 32000;
        else if (family == "nemotron")
            vocab = 256000;
        else if (family == "llama2" || name.find("llama2") != std::string::npos)
            vocab = 32000;
        else if (family == "llama3" || name.find("llama3") != std::string::npos)
            vocab = 128256;
        else
            vocab = in.model.vocab;
        if (vocab <= 0) require_shape(in, "nemo", true);
        if (family == "mixtral")
            r.per_sample = detail::nemo_mixtral(cfg, 0.5, vocab);
        else if (family == "nemotron")
            r.per_sample = detail::nemo_nemotron(cfg, 0.5, vocab);
        else
            r.per_sample = detail::nemo_llama(cfg, 0.5, vocab);
        r.vocab_used = static_cast<int>(vocab);
        r.formula = "s*L*h^2*[12 + 12g/n + c*f/h + 12*(1/2)*s/h + 6V/(Lh)]  (NeMo llama/nemotron/mixtral)";
        r.note = fmt::format("NeMo family '{}' with its fixed vocabulary {}", family, r.vocab_used);
        return r;
    }
    if (family == "bert") {
        require_shape(in, "nemo", false);
        r.per_sample = detail::nemo_bert(cfg);
        r.vocab_used = 29000;
        r.formula = "72*L*s*h^2*[1 + s/(6h) + V/(12hL)], V = 29000  (NeMo bert)";
        return r;
    }
    throw InputError(fmt::format("the 'nemo' FLOPs convention has no formula for model family '{}'", family),
                     "nemo knows the families gpt3, opt, tinygpt, llama2, llama3, mixtral, nemotron and bert; "
                     "use --flops megatron for other architectures");
}

FlopsResult narayanan_flops(const FlopsInput& in) {
    require_shape(in, "narayanan2021", true);
    const int v = padded_vocab(in.model.vocab, 1024, 1);
    FlopsResult r;
    r.per_sample = detail::narayanan2021(1, in.seq(), in.model.layers, in.model.hidden, v);
    r.vocab_used = v;
    r.formula = "96*s*l*h^2*(1 + s/(6h) + V/(16lh))  (Narayanan et al. 2021, Eq. 3)";
    r.note = fmt::format(
        "counts full activation recomputation (4 forward passes per layer): hardware-FLOPs-like, not model FLOPs; "
        "V = {} ({} padded to a multiple of 1024, as the paper's 51200)",
        v, in.model.vocab);
    return r;
}

}  // namespace

const std::vector<FlopsConvention>& flops_conventions() {
    static const std::vector<FlopsConvention> table = {
        {"gpu-recipes",
         "gpu-recipes training_metrics: per-sample constants from its table, its peaks (H100 FP8 1978), "
         "step window 10..30 inclusive, mean over records",
         gpu_recipes_flops, false},
        {"megatron", "Megatron-LM today: causal attention, padded vocabulary, GQA, SwiGLU and MoE from the model",
         megatron_flops, false},
        {"megatron-2024",
         "Megatron-LM 2024 (non-causal attention, padded vocabulary); equals NeMo's gpt3 formula before 2025-08 "
         "when V_p = 51200",
         megatron_2024_flops, false},
        {"nemo", "NeMo flops_formulas.py today: per-family formulas (causal), fixed per-family vocabularies",
         nemo_flops, false},
        {"narayanan2021",
         "Narayanan et al. 2021 Eq. 3 with full activation recompute: hardware-FLOPs-like, overstates model FLOPs",
         narayanan_flops, true},
    };
    return table;
}

std::vector<std::string> flops_convention_names() {
    std::vector<std::string> names;
    for (const auto& c : flops_conventions()) names.emplace_back(c.name);
    return names;
}

const FlopsConvention& find_flops_convention(std::string_view name) {
    for (const auto& c : flops_conventions())
        if (c.name == name) return c;
    std::string hint = did_you_mean(name, flops_convention_names());
    throw InputError(
        fmt::format("unknown FLOPs convention '{}'; known: {}", name, quoted_list(flops_convention_names(), " and ")),
        hint);
}

}  // namespace trainbench::analysis
