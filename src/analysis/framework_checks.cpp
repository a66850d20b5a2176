// The framework's own TFLOPS/GPU and MFU beside trainbench's (framework_checks.hpp).
#include "analysis/framework_checks.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <optional>

namespace trainbench::analysis {

namespace {

// The frameworks that print their own TFLOPS/GPU (and MFU): one row each, by log format.
struct Framework {
    std::string_view format;
    std::string_view name;
    std::string_view family;                  // a report convention of this prefix is the framework's own
    std::string_view convention;              // else this one (the current release's)
    std::string_view tflops_series = {};      // the series of its printed TFLOPS/GPU; empty: it prints none
    std::string_view mfu_series = {};         // the series of its printed MFU in percent; empty: it prints none
    std::string_view throughput_series = {};  // its printed samples/s (or tokens/s); empty: it prints none
};

const std::vector<Framework>& frameworks() {
    static const std::vector<Framework> table = {
        {.format = "megatron-bridge",
         .name = "Megatron-Bridge",
         .family = "megatron-bridge",
         .convention = "megatron-bridge-2026",
         .tflops_series = metrics::names::tflops_per_gpu},
        {.format = "torchtitan",
         .name = "TorchTitan",
         .family = "torchtitan",
         .convention = "torchtitan-2026-08",
         .tflops_series = metrics::names::tflops_per_gpu,
         .mfu_series = "mfu_pct"},
        // MLPerf's tracked_stats throughput: samples/s in most benchmarks, tokens/s in some
        {.format = "mlperf", .name = "MLPerf", .family = {}, .convention = {}, .throughput_series = "throughput"},
    };
    return table;
}

const Framework* framework_of(std::string_view format) {
    for (const Framework& f : frameworks())
        if (f.format == format) return &f;
    return nullptr;
}

}  // namespace

const std::vector<std::string>& framework_figure_series(std::string_view format) {
    static const std::map<std::string_view, std::vector<std::string>> series = [] {
        std::map<std::string_view, std::vector<std::string>> out;
        for (const Framework& f : frameworks())
            for (std::string_view name : {f.tflops_series, f.mfu_series, f.throughput_series})
                if (!name.empty()) out[f.format].emplace_back(name);
        return out;
    }();
    static const std::vector<std::string> none;
    auto it = series.find(format);
    return it == series.end() ? none : it->second;
}

namespace detail {

namespace {

// The mean of a series' points in the window, or nullopt when none falls in it.
std::optional<double> window_mean(const metrics::LogData& log, std::string_view name, const StepWindow& w) {
    auto it = log.series.find(std::string(name));
    if (it == log.series.end()) return std::nullopt;
    double sum = 0;
    std::size_t n = 0;
    metrics::PointReader reader(it->second);
    metrics::Point p;
    // (points come in step order: none past the window's end is read, so a long log's spilled
    // series is not read to its end)
    while (reader.next(p) && p.step <= w.end)
        if (p.step >= w.start && std::isfinite(p.value)) {
            sum += p.value;
            ++n;
        }
    if (n == 0) return std::nullopt;
    return sum / static_cast<double>(n);
}

// One row: the framework's figure (logged) against trainbench's (given).
void add_row(RunSummary& s, std::string key, std::string log_key, double logged, double ours, std::string origin,
             std::string_view what, std::string_view fw) {
    const double diff = ours != 0 ? std::fabs(logged - ours) / std::fabs(ours) : std::fabs(logged);
    CrossCheck c{
        std::move(key),    std::move(log_key),           fmt::format("{:.6g}", logged), fmt::format("{:.6g}", ours),
        std::move(origin), diff <= k_framework_tolerance};
    if (!c.match)
        s.findings.push_back(
            {Severity::warning,
             fmt::format("{}'s own {} ({}, the window mean of '{}') and trainbench's ({}, {}) differ by {:.2f}% "
                         "(tolerance {:g}%)",
                         fw, what, c.logged, c.log_key, c.given, c.origin, diff * 100, k_framework_tolerance * 100)});
    s.cross_checks.push_back(std::move(c));
}

// The framework's printed throughput against trainbench's samples/s (the global batch over the
// window's mean step time); a throughput seq_len times as large is the tokens/s the framework
// printed, compared as that.
void throughput_row(const metrics::LogData& log, const Framework& fw, const Inputs& in, RunSummary& s,
                    const std::string& window) {
    const std::optional<double> logged = window_mean(log, fw.throughput_series, s.stats.window);
    if (!logged) {
        s.findings.push_back({Severity::note, fmt::format("{} printed no throughput in the {}: nothing to cross-check",
                                                          fw.name, window)});
        return;
    }
    const double samples = s.derived.samples_per_s;
    const bool tokens = in.seq_len > 0 && samples > 0 &&
                        std::fabs(*logged / (samples * in.seq_len) - 1) < std::fabs(*logged / samples - 1);
    add_row(s, tokens ? "framework_tokens_per_s" : "framework_samples_per_s", std::string(fw.throughput_series),
            *logged, tokens ? s.derived.tokens_per_s : samples,
            fmt::format("trainbench, global batch {} over the mean step time, {}", in.global_batch, window),
            tokens ? "throughput (tokens/s)" : "throughput (samples/s)", fw.name);
}

}  // namespace

void framework_cross_checks(const AnalysisRequest& request, const Inputs& in, RunSummary& s) {
    if (!request.log) return;
    const metrics::LogData& log = *request.log;
    const Framework* fw = framework_of(log.format);
    if (!fw) return;
    if (!fw->throughput_series.empty())
        throughput_row(log, *fw, in, s, fmt::format("window {}..{}", s.stats.window.start, s.stats.window.end));
    // MLPerf's own result, as it scores it: run_start to run_stop.
    if (auto ttt = log.summary.find("time_to_train_min"); ttt != log.summary.end())
        s.findings.push_back(
            {Severity::note, fmt::format("{} result: time to train {:.3f} min (run_start to run_stop), "
                                         "status {}",
                                         fw->name, ttt->second, log.parameter_text("status").value_or("not logged"))});
    if (fw->tflops_series.empty()) return;
    const std::string conv_name = s.convention.rfind(fw->family, 0) == 0 ? s.convention : std::string(fw->convention);
    const FlopsConvention& conv = find_flops_convention(conv_name);
    FlopsInput fi;
    fi.model = in.model;
    fi.seq_length = in.seq_len;
    fi.tensor_parallel = std::max(in.tensor_parallel, 1);
    const double ours = conv.per_sample(fi).per_sample * in.global_batch / s.stats.mean / in.gpus / 1e12;
    const std::string window = fmt::format("window {}..{}", s.stats.window.start, s.stats.window.end);
    const metrics::Series* printed = log.find(fw->tflops_series);
    if (auto tf = window_mean(log, fw->tflops_series, s.stats.window)) {
        add_row(s, "framework_tflops_per_gpu", printed ? printed->source_name : "tflops_per_gpu", *tf, ours,
                fmt::format("trainbench, {}, {}", conv.name, window), "TFLOPS/GPU", fw->name);
    } else {
        s.findings.push_back({Severity::note, fmt::format("{} printed no TFLOPS/GPU in the {}: nothing to cross-check",
                                                          fw->name, window)});
    }
    if (fw->mfu_series.empty()) return;
    auto mfu = window_mean(log, fw->mfu_series, s.stats.window);
    if (!mfu) {
        const bool na = log.parameters.count("mfu") != 0;
        s.findings.push_back(
            {Severity::note,
             na ? fmt::format("{} printed 'mfu: N/A' (quantization on: it divides by its BF16 peak only, so it "
                              "prints none): no MFU cross-check",
                              fw->name)
                : fmt::format("{} printed no MFU in the {}: nothing to cross-check", fw->name, window)});
        return;
    }
    if (!in.catalog_gpu) {
        s.findings.push_back(
            {Severity::note, fmt::format("the GPU is not a catalog GPU: {}'s MFU (its own BF16 peak table) is not "
                                         "cross-checked",
                                         fw->name)});
        return;
    }
    PeakRequest pr;
    pr.gpu_family = in.gpu_family;
    pr.precision = catalog::Precision::bf16;  // get_peak_flops is a BF16 table
    pr.gpu = &*in.catalog_gpu;
    pr.tool = "torchtitan";
    Peak peak;
    try {
        peak = resolve_peak(pr);
    } catch (const Error& e) {
        s.findings.push_back({Severity::note, fmt::format("no TorchTitan peak for this GPU: {}", e.what())});
        return;
    }
    add_row(s, "framework_mfu", "mfu (%)", *mfu / 100.0, ours / peak.tflops,
            fmt::format("trainbench, {}, peak {:g} ({}), {}", conv.name, peak.tflops, peak.source, window), "MFU",
            fw->name);
}

}  // namespace detail

}  // namespace trainbench::analysis
