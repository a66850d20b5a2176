// The whole analysis of one run: gaps filled from the log and cross-checked,
// FLOPs and peak, statistics, derived figures, expectations.
#include "analysis/finite_checks.hpp"
#include "analysis/framework_checks.hpp"
#include "analysis/stats_detail.hpp"

#include <trainbench/analysis.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <utility>

namespace trainbench::analysis {

// ---------------------------------------------------------------- declared config
namespace {

struct DeclaredKey {
    const char* key;
    std::vector<const char*> log_keys;
};

const std::vector<DeclaredKey>& declared_keys() {
    static const std::vector<DeclaredKey> keys = {
        {"global_batch", {"cfg/global_batch_size", "model/global_batch_size", "global_batch_size"}},
        {"micro_batch", {"cfg/micro_batch_size", "model/micro_batch_size", "micro_batch_size"}},
        {"tensor_parallel", {"cfg/tensor_model_parallel_size", "tensor_model_parallel_size"}},
        {"pipeline_parallel", {"cfg/pipeline_model_parallel_size", "pipeline_model_parallel_size"}},
        {"virtual_pipeline", {"cfg/virtual_pipeline_model_parallel_size", "virtual_pipeline_model_parallel_size"}},
        {"seq_len",
         {"cfg/encoder_seq_length", "cfg/data/seq_length", "encoder_seq_length", "seq_length", "seq_len",
          "max_sequence_length"}},
        {"layers", {"cfg/num_layers", "num_layers", "n_layer"}},
        {"hidden", {"cfg/hidden_size", "hidden_size", "n_embd"}},
        {"ffn", {"cfg/ffn_hidden_size", "ffn_hidden_size"}},
        {"heads", {"cfg/num_attention_heads", "num_attention_heads", "n_head"}},
        {"kv_heads", {"cfg/num_query_groups", "num_query_groups"}},
        {"vocab", {"vocab_size", "padded_vocab_size"}},
        {"vocab_divisible_by", {"cfg/make_vocab_size_divisible_by", "make_vocab_size_divisible_by"}},
        {"nodes", {"trainer/num_nodes", "num_nodes", "nodes"}},
        {"gpus_per_node", {"trainer/devices", "devices", "gpus_per_node"}},
        {"gpus", {"world_size", "num_gpus"}},
        {"fp8", {"cfg/fp8", "fp8"}},
        {"precision", {"peak_precision", "cfg/precision", "trainer/precision", "precision"}},
        {"peak_tflops_measured", {"peak_tflops_measured"}},
        {"model", {"model", "model_name"}},
    };
    return keys;
}

// The value of a JSON text as plain text: "\"bf16\"" -> bf16, "2048" -> 2048.
std::string plain(const std::string& json_text) {
    auto j = nlohmann::json::parse(json_text, nullptr, false);
    if (j.is_discarded()) return json_text;
    if (j.is_string()) return j.get<std::string>();
    if (j.is_null()) return "";
    if (j.is_number_float()) {
        const double v = j.get<double>();
        if (std::floor(v) == v && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<long long>(v));
        return fmt::format("{}", v);
    }
    return j.dump();
}

std::optional<double> to_number(const std::string& text) {
    try {
        std::size_t used = 0;
        double v = std::stod(text, &used);
        if (used == text.size()) return v;
    } catch (const std::exception&) {
    }
    return std::nullopt;
}

// "bf16-mixed", "16", "bf16", "fp8" -> our precision.
std::optional<catalog::Precision> precision_from_log(const std::string& text) {
    using catalog::Precision;
    if (text.rfind("bf16", 0) == 0) return Precision::bf16;
    if (text == "16" || text == "16-mixed" || text.rfind("fp16", 0) == 0) return Precision::fp16;
    if (text.rfind("fp8", 0) == 0) return Precision::fp8;
    if (text == "32" || text == "fp32" || text == "32-true") return Precision::fp32;
    if (text == "tf32") return Precision::tf32;
    return std::nullopt;
}

// A GPU run's own matmul calibration (the log's peak_tflops_measured) beside the datasheet peak,
// when it was measured in the report's precision. (A CPU run's peak is that calibration.)
void attach_measured_peak(const DeclaredConfig& declared, Peak& peak, std::vector<Finding>& findings) {
    if (peak.gpu == "cpu") return;
    const std::optional<double> measured = declared.number("peak_tflops_measured");
    if (!measured || !(*measured > 0)) return;
    if (declared.values.count("precision")) {
        const auto p = precision_from_log(declared.values.at("precision"));
        if (p && catalog::to_string(*p) != peak.precision) {
            findings.push_back({Severity::note, fmt::format("the log's measured peak ({:g} TFLOPS) is for {}, the "
                                                            "report's precision is {}: it is not shown",
                                                            *measured, catalog::to_string(*p), peak.precision)});
            return;
        }
    }
    peak.measured_tflops = *measured;
    peak.measured_source = "measured on this GPU by the workload's matmul calibration, log peak_tflops_measured";
}

}  // namespace

std::optional<double> DeclaredConfig::number(const std::string& key) const {
    auto it = values.find(key);
    if (it == values.end()) return std::nullopt;
    return to_number(it->second);
}

DeclaredConfig declared_config(const metrics::LogData& log) {
    DeclaredConfig out;
    for (const DeclaredKey& k : declared_keys()) {
        for (const char* log_key : k.log_keys) {
            auto it = log.parameters.find(log_key);
            if (it == log.parameters.end()) continue;
            std::string v = plain(it->second);
            if (v.empty()) continue;
            out.values[k.key] = v;
            out.log_keys[k.key] = log_key;
            break;
        }
    }
    return out;
}

// ---------------------------------------------------------------- cross-check
namespace {

// One declared integer against trainbench's own value. When trainbench has one (`has_own`) the
// two are compared (exactly); when it has none the log's fills `fill` (with its origin in
// `fill_origin` where the inputs record one); a row that can be neither is left out.
struct Comparison {
    const char* key;         // the declared key (declared_keys())
    int own;                 // trainbench's value
    bool has_own;            // given by flags, the recipe or the model
    std::string own_origin;  // where `own` came from
    int* fill = nullptr;     // nullptr: compared only (the model's shape)
    std::string* fill_origin = nullptr;
};

// The rows, in the order a report lists them: sizes (given > 0 is given), parallelism (the
// recipe's is given, a default is filled), then the model's shape (compared when a model is known).
std::vector<Comparison> comparisons(Inputs& in) {
    const bool recipe_parallel = in.convention_origin == "recipe" || in.model_origin == "recipe";
    const catalog::Model& m = in.model;
    const std::string model_origin = in.model_origin.empty() ? "model" : in.model_origin;
    auto size = [](const char* key, int& value, std::string* origin) {
        return Comparison{key, value, value > 0, origin && !origin->empty() ? *origin : "given", &value, origin};
    };
    auto shape = [&](const char* key, int value) { return Comparison{key, value, value > 0, model_origin}; };
    return {
        size("global_batch", in.global_batch, &in.global_batch_origin),
        size("seq_len", in.seq_len, &in.seq_len_origin),
        size("gpus", in.gpus, &in.gpus_origin),
        size("micro_batch", in.micro_batch, nullptr),
        {"tensor_parallel", in.tensor_parallel, recipe_parallel, "recipe", &in.tensor_parallel},
        {"pipeline_parallel", in.pipeline_parallel, recipe_parallel, "recipe", &in.pipeline_parallel},
        shape("layers", m.layers),
        shape("hidden", m.hidden),
        shape("heads", m.heads),
        shape("ffn", m.layers > 0 ? m.ffn_size() : 0),
        shape("kv_heads", m.heads > 0 ? m.kv_head_count() : 0),
    };
}

// The declared values with the total GPUs added when the log gives only nodes x GPUs per node.
DeclaredConfig with_total_gpus(const DeclaredConfig& declared) {
    DeclaredConfig d = declared;
    if (!d.values.count("gpus") && d.number("nodes") && d.number("gpus_per_node")) {
        d.values["gpus"] = fmt::format("{}", static_cast<long long>(*d.number("nodes") * *d.number("gpus_per_node")));
        d.log_keys["gpus"] = declared.log_keys.at("nodes") + " x " + declared.log_keys.at("gpus_per_node");
    }
    return d;
}

// The precision: cfg/fp8 true means FP8 whatever cfg/precision says. A precision given by flags
// or the recipe is compared, a default one is replaced by the log's.
std::optional<CrossCheck> precision_check(Inputs& in, const DeclaredConfig& d) {
    const std::string key = d.values.count("fp8") && d.values.at("fp8") == "true" ? "fp8" : "precision";
    if (!d.values.count(key)) return std::nullopt;
    const std::optional<catalog::Precision> logged =
        key == "fp8" ? catalog::Precision::fp8 : precision_from_log(d.values.at(key));
    if (!logged) return std::nullopt;
    CrossCheck c{"precision",         d.log_keys.at(key),
                 d.values.at(key),    std::string(catalog::to_string(in.precision)),
                 in.precision_origin, true};
    if (in.precision_origin.empty() || in.precision_origin == "default") {
        in.precision = *logged;
        in.precision_origin = "log " + d.log_keys.at(key);
        c.given = std::string(catalog::to_string(in.precision));
        c.origin = in.precision_origin;
    } else {
        c.match = in.precision == *logged;
    }
    return c;
}

}  // namespace

std::vector<CrossCheck> cross_check(Inputs& inputs, const DeclaredConfig& declared) {
    const DeclaredConfig d = with_total_gpus(declared);
    std::vector<CrossCheck> checks;
    for (const Comparison& row : comparisons(inputs)) {
        const std::optional<double> logged = d.number(row.key);
        if (!logged || (!row.has_own && !row.fill)) continue;
        CrossCheck c{row.key,
                     d.log_keys.at(row.key),
                     d.values.at(row.key),
                     fmt::format("{}", row.own),
                     row.own_origin,
                     static_cast<double>(row.own) == *logged};
        if (!row.has_own) {  // filled from the log
            *row.fill = static_cast<int>(*logged);
            c.given = c.logged;
            c.origin = "log " + d.log_keys.at(row.key);
            c.match = true;
            if (row.fill_origin) *row.fill_origin = c.origin;
        }
        checks.push_back(std::move(c));
    }
    if (auto c = precision_check(inputs, d)) checks.push_back(std::move(*c));
    return checks;
}

// ---------------------------------------------------------------- derive & analyse
Derived derive(double step_time_s, double flops_per_sample, int global_batch, int seq_len, int gpus, double peak_tflops,
               double train_tokens) {
    Derived d;
    const double b = global_batch;
    const double n = gpus;
    d.tokens_per_step = b * seq_len;
    d.tokens_per_s = d.tokens_per_step / step_time_s;
    d.tokens_per_s_per_gpu = d.tokens_per_s / n;
    d.samples_per_s = b / step_time_s;
    d.flops_per_sample = flops_per_sample;
    d.flops_per_step = flops_per_sample * b;
    d.tflops_per_gpu = flops_per_sample * b / step_time_s / n / 1e12;  // gpu-recipes' order of operations
    d.mfu = peak_tflops > 0 ? d.tflops_per_gpu / peak_tflops : 0;
    d.train_tokens = train_tokens;
    d.days_to_train = train_tokens / d.tokens_per_s / 86400.0;
    return d;
}

namespace {

// The model, when none was given: built from the architecture the log declares.
void model_from_log(const DeclaredConfig& declared, Inputs& in, std::vector<Finding>& findings) {
    if (!in.model.name.empty() || in.model.layers > 0 || !declared.number("layers") || !declared.number("hidden") ||
        !declared.number("heads"))
        return;
    in.model.name = "log-declared";
    in.model.family = "gpt3";
    in.model.layers = static_cast<int>(*declared.number("layers"));
    in.model.hidden = static_cast<int>(*declared.number("hidden"));
    in.model.heads = static_cast<int>(*declared.number("heads"));
    if (auto f = declared.number("ffn")) in.model.ffn = static_cast<int>(*f);
    if (auto g = declared.number("kv_heads")) in.model.kv_heads = static_cast<int>(*g);
    if (auto v = declared.number("vocab"))
        in.model.vocab = static_cast<int>(*v);
    else
        in.model.vocab = catalog::k_gpt2_vocab;
    in.model_origin = "log";
    findings.push_back({Severity::note, "model shape taken from the log's parameters (vocabulary " +
                                            std::to_string(in.model.vocab) + ")"});
}

// The peak the figures use: the convention's, the GPU's (catalog or override), and for a CPU
// run the measured peak the log declares.
Peak peak_of(const Inputs& in, const DeclaredConfig& declared, const std::string& convention,
             std::vector<Finding>& findings) {
    PeakRequest pr;
    pr.convention = peak_convention(convention);
    pr.gpu_family = in.gpu_family;
    pr.precision = in.precision;
    pr.override_tflops = in.peak_override;
    if (in.gpu_family == "cpu") {
        pr.measured_tflops = declared.number("peak_tflops_measured");
        if (declared.values.count("precision"))
            if (auto p = precision_from_log(declared.values.at("precision"))) pr.precision = *p;
    }
    if (in.catalog_gpu) pr.gpu = &*in.catalog_gpu;
    Peak peak = resolve_peak(pr);
    attach_measured_peak(declared, peak, findings);
    return peak;
}

// ---------------------------------------------------------------- the steps of analyse, in order
// 1. The log's declared values against the inputs: the model from the log when none was given,
//    then the cross-checks, a warning for each that does not match.
void check_against_log(const DeclaredConfig& declared, Inputs& in, RunSummary& s) {
    model_from_log(declared, in, s.findings);
    s.cross_checks = cross_check(in, declared);
    for (const CrossCheck& c : s.cross_checks)
        if (!c.match)
            s.findings.push_back({Severity::warning, fmt::format("the log declares {} = {} ('{}') but {} says {}",
                                                                 c.key, c.logged, c.log_key, c.origin, c.given)});
}

// 2. The inputs every figure needs, known by now (the sequence length falls back to the
//    model's); a usage error naming the flag that gives the first one missing.
void require_inputs(Inputs& in) {
    if (in.model.name.empty() && in.model.layers <= 0)
        throw UsageError("the model is unknown: the log does not declare it",
                         "give it with --model NAME (a catalog model)");
    if (in.gpus <= 0)
        throw UsageError("the number of GPUs is unknown: the log does not declare it", "give it with --gpus N");
    if (in.global_batch <= 0)
        throw UsageError("the global batch size is unknown: the log does not declare it",
                         "give it with --global-batch N");
    if (in.seq_len <= 0) {
        in.seq_len = in.model.seq_length;
        in.seq_len_origin = "model " + in.model.name;
    }
    if (in.seq_len <= 0) throw UsageError("the sequence length is unknown", "give it with --seq N");
    if (in.gpu_family.empty()) throw UsageError("the GPU is unknown", "give it with --gpu NAME (e.g. h100, a100, cpu)");
}

// 3. The FLOPs convention (its name, alias, description, dates) and the FLOPs per sample under
//    it, with the convention's caveats for this run as findings.
void count_flops(const Inputs& in, const DeclaredConfig& declared, RunSummary& s) {
    const FlopsConvention& conv = find_flops_convention(in.convention);
    if (find_flops_alias(in.convention)) s.convention_alias = in.convention;
    s.convention = std::string(conv.name);
    s.convention_description = std::string(conv.description);
    s.convention_dates = conv.date_range();
    s.hardware_flops_like = conv.hardware_flops_like;

    FlopsInput fi;
    fi.model = in.model;
    fi.seq_length = in.seq_len;
    fi.tensor_parallel = std::max(in.tensor_parallel, 1);
    if (auto div = declared.number("vocab_divisible_by")) fi.vocab_divisible_by = static_cast<int>(*div);
    s.flops = conv.per_sample(fi);
    if (is_gpu_recipes_convention(conv.name) && in.model.seq_length > 0 && in.seq_len != in.model.seq_length)
        s.findings.push_back(
            {Severity::warning,
             fmt::format("gpu-recipes' constant assumes the model's sequence length {}, the run used {}",
                         in.model.seq_length, in.seq_len)});
    if (conv.hardware_flops_like)
        s.findings.push_back({Severity::note,
                              "narayanan2021 counts activation recomputation: TFLOPS and MFU are "
                              "hardware-FLOPs-like and overstate model FLOPs utilisation"});
}

// 5. The step-time statistics in the window, after the step times' own checks, with findings
//    on a window that includes warm-up or runs past the log.
void measure_steps(const AnalysisRequest& request, RunSummary& s) {
    const StepWindow& window = request.inputs.window;
    detail::check_step_times(request, window, s.findings);
    s.stats = request.step_series ? step_statistics_streamed(*request.step_series, window)
                                  : step_statistics(request.step_records, window);
    if (s.stats.window_includes_warmup)
        s.findings.push_back(
            {Severity::warning, fmt::format("the step window {}..{} includes warm-up steps (steady state from step {})",
                                            window.start, window.end, s.stats.steady_state_from)});
    if (s.stats.last_step < window.end)
        s.findings.push_back({Severity::note, fmt::format("the log ends at step {}, before the window's end {}",
                                                          s.stats.last_step, window.end)});
}

// 6. The derived figures (throughput, TFLOPS/GPU, MFU, days to train), their checks, and the
//    framework's own printed figures beside them as cross-checks.
void derive_figures(const AnalysisRequest& request, RunSummary& s) {
    const Inputs& in = request.inputs;
    s.derived =
        derive(s.stats.mean, s.flops.per_sample, in.global_batch, in.seq_len, in.gpus, s.peak.tflops, in.train_tokens);
    if (s.peak.measured_tflops) s.derived.mfu_measured = s.derived.tflops_per_gpu / *s.peak.measured_tflops;
    detail::check_derived(s, request.provenance);
    detail::framework_cross_checks(request, in, s);
}

// 7. The per-step series: step times when a plot was asked for, the loss when the log has one
//    (a warning when its last value is not finite: the run diverged).
void attach_series(const AnalysisRequest& request, RunSummary& s) {
    if (request.plot_series)
        s.step_times =
            request.step_series ? detail::all_points(*request.step_series) : detail::step_series(request.step_records);
    if (!request.log) return;
    auto it = request.log->series.find(std::string(metrics::names::loss));
    if (it != request.log->series.end()) s.loss = detail::all_points(it->second);
    if (!s.loss.empty() && !std::isfinite(s.loss.back().value))
        s.findings.push_back({Severity::warning, fmt::format("the final loss (step {}) is {}: the run diverged",
                                                             s.loss.back().step, s.loss.back().value)});
}

// 8. The inputs as the figures used them, the provenance and resolved recipe, and the verdict
//    of each expectation.
void conclude(AnalysisRequest& request, RunSummary& s) {
    s.inputs = request.inputs;
    s.provenance = std::move(request.provenance);
    s.resolved_recipe = std::move(request.resolved_recipe);
    s.expectations = check_expectations(s, request.expectations);
}

}  // namespace

RunSummary analyse(AnalysisRequest request) {
    RunSummary s;
    Inputs& in = request.inputs;
    const DeclaredConfig declared = request.log ? declared_config(*request.log) : DeclaredConfig{};
    check_against_log(declared, in, s);                        // 1. cross_checks (+ model, batch, GPUs from the log)
    require_inputs(in);                                        // 2. nothing; an error when an input is unknown
    count_flops(in, declared, s);                              // 3. convention, flops
    s.peak = peak_of(in, declared, s.convention, s.findings);  // 4. peak (datasheet, override, measured)
    measure_steps(request, s);                                 // 5. stats
    derive_figures(request, s);                                // 6. derived, the framework's cross_checks
    attach_series(request, s);                                 // 7. step_times, loss
    conclude(request, s);                                      // 8. inputs, provenance, expectations
    return s;
}

}  // namespace trainbench::analysis
