// The reporters (one per format, each renders any Document), the JSON model of a report and
// shared formatting.
#include "report/format_util.hpp"

#include <fmt/format.h>

#include <cmath>

namespace trainbench::report {

using analysis::RunSummary;

namespace {

// The reporters: each renders any document in its format (the parts it shows).
class TableReporter final : public Reporter {
public:
    explicit TableReporter(const ReportOptions& o) : m_colour(o.color) {}
    std::string render(const Document& d) const override { return detail::document_terminal(d, m_colour); }

private:
    bool m_colour = false;
};
// Every other format: one function of the document.
template <std::string (*Render)(const Document&)>
class DocumentReporter final : public Reporter {
public:
    std::string render(const Document& d) const override { return Render(d); }
};
std::string document_junit(const Document& d) {
    return junit_xml(d.tests_name, d.tests);
}

template <std::string (*Render)(const Document&)>
std::unique_ptr<Reporter> make(const ReportOptions&) {
    return std::make_unique<DocumentReporter<Render>>();
}
std::unique_ptr<Reporter> make_table(const ReportOptions& o) {
    return std::make_unique<TableReporter>(o);
}

constexpr Parts k_blocks{true, false, false, false, false};
constexpr Parts k_data{false, false, true, false, false};
constexpr Parts k_records{false, false, false, true, false};
constexpr Parts k_tests{false, false, false, false, true};
constexpr Parts k_page{true, true, false, false, false};

}  // namespace

const std::vector<ReporterInfo>& reporters() {
    static const std::vector<ReporterInfo> table = {
        {"table", "aligned text for a terminal (colour only on a TTY, never with NO_COLOR)", make_table, k_blocks},
        {"json", "the full report as JSON (also written to the run's report/summary.json)", make<detail::document_json>,
         k_data},
        {"csv", "one row per run with every figure, one per check for a validation alone (RFC 4180)",
         make<detail::document_csv>, k_records},
        {"markdown", "tables for a pull request or a wiki page", make<detail::document_markdown>, k_blocks},
        {"html", "one self-contained page: summary, step-time and loss plots (SVG), recipe, provenance",
         make<detail::document_html>, k_page},
        {"junit", "expectations as JUnit test cases, for CI", make<document_junit>, k_tests},
    };
    return table;
}

const ReporterInfo& reporter_info(std::string_view name) {
    for (const auto& r : reporters())
        if (r.name == name) return r;
    throw UsageError(fmt::format("unknown report format '{}'; known: {}", name, quoted_list(reporter_names(), " and ")),
                     did_you_mean(name, reporter_names()));
}

std::vector<std::string> reporter_names() {
    std::vector<std::string> names;
    for (const auto& r : reporters()) names.emplace_back(r.name);
    return names;
}

std::unique_ptr<Reporter> make_reporter(std::string_view name, const ReportOptions& options) {
    return reporter_info(name).make(options);
}

std::string render(const Document& document, std::string_view format, const ReportOptions& options) {
    return make_reporter(format, options)->render(document);
}

const std::vector<FigureInfo>& summary_figures() {
    static const std::vector<FigureInfo> figures = {
        {"step_time_s", "step time (window mean)", "s"},      {"step_time_median_s", "step time (median)", "s"},
        {"step_time_min_s", "step time (min)", "s"},          {"step_time_max_s", "step time (max)", "s"},
        {"step_time_p10_s", "step time (p10)", "s"},          {"step_time_p90_s", "step time (p90)", "s"},
        {"step_time_stddev_s", "step time (stddev)", "s"},    {"tokens_per_s", "tokens/s", "tokens/s"},
        {"tokens_per_s_per_gpu", "tokens/s/GPU", "tokens/s"}, {"samples_per_s", "samples/s", "samples/s"},
        {"tflops_per_gpu", "TFLOPS/GPU", "TFLOPS"},           {"mfu", "MFU", ""},
        {"days_to_train", "days to train", "days"},           {"final_loss", "final loss", ""},
    };
    return figures;
}

std::string format_figure(std::string_view key, std::optional<double> value) {
    if (!value || !std::isfinite(*value)) return "-";
    const double v = *value;
    if (key == "step_time_s" || key == "tflops_per_gpu" || key == "mfu" || key == "mfu_measured")
        return fmt::format("{:.8f}", v);
    if (key.substr(0, 9) == "step_time") return fmt::format("{:.4f}", v);
    if (key == "tokens_per_s" || key == "tokens_per_s_per_gpu") return fmt::format("{:.2f}", v);
    if (key == "samples_per_s") return fmt::format("{:.3f}", v);
    if (key == "days_to_train") return fmt::format("{:.2f}", v);
    return fmt::format("{:.4f}", v);
}

std::string relative_difference(std::optional<double> a, std::optional<double> b) {
    if (!a || !b || *a == 0 || !std::isfinite(*a) || !std::isfinite(*b)) return "-";
    return fmt::format("{:+.2f}%", (*b - *a) / *a * 100);
}

std::string describe_peak(const analysis::Peak& peak) {
    return fmt::format("{} {} {:g} TFLOPS ({})", peak.gpu, peak.precision, peak.tflops, peak.source);
}

namespace {

nlohmann::ordered_json origins_json(const analysis::Inputs& in) {
    nlohmann::ordered_json o;
    o["model"] = in.model_origin;
    o["gpus"] = in.gpus_origin;
    o["precision"] = in.precision_origin;
    o["global_batch"] = in.global_batch_origin;
    o["seq_len"] = in.seq_len_origin;
    o["window"] = in.window_origin;
    o["flops_convention"] = in.convention_origin;
    if (!in.gpu_origin.empty()) o["gpu"] = in.gpu_origin;
    return o;
}

nlohmann::ordered_json series_json(const std::vector<analysis::SeriesPoint>& points) {
    auto a = nlohmann::ordered_json::array();
    for (const auto& p : points) a.push_back({p.step, p.value});
    return a;
}

nlohmann::ordered_json number_or_null(std::optional<double> v) {
    if (!v || !std::isfinite(*v)) return nullptr;
    return *v;
}

// The cross-checks, findings and expectations of a report, each as an array.
void add_checks_json(const RunSummary& s, nlohmann::ordered_json& j) {
    auto checks = nlohmann::ordered_json::array();
    for (const auto& c : s.cross_checks)
        checks.push_back({{"key", c.key},
                          {"log_key", c.log_key},
                          {"logged", c.logged},
                          {"given", c.given},
                          {"origin", c.origin},
                          {"match", c.match}});
    j["cross_checks"] = checks;
    auto findings = nlohmann::ordered_json::array();
    for (const auto& f : s.findings)
        findings.push_back({{"severity", std::string(severity_name(f.severity))}, {"message", f.message}});
    j["findings"] = findings;
    auto expectations = nlohmann::ordered_json::array();
    for (const auto& e : s.expectations)
        expectations.push_back({{"figure", e.figure},
                                {"actual", number_or_null(e.actual)},
                                {"passed", e.passed},
                                {"rule", e.rule},
                                {"message", e.message},
                                {"where", e.where.to_string()}});
    j["expectations"] = expectations;
}

}  // namespace

nlohmann::ordered_json to_json(const RunSummary& s, bool series) {
    const analysis::Inputs& in = s.inputs;
    nlohmann::ordered_json j;
    j["format"] = "trainbench-report";
    j["version"] = 1;
    j["label"] = in.label;
    j["model"] = in.model.name;
    j["model_family"] = in.model.family;
    j["gpus"] = in.gpus;
    j["gpu"] = in.gpu_name.empty() ? in.gpu_family : in.gpu_name;
    j["gpu_family"] = in.gpu_family;
    j["precision"] = s.peak.precision;
    j["global_batch"] = in.global_batch;
    j["micro_batch"] = in.micro_batch;
    j["seq_len"] = in.seq_len;
    j["tensor_parallel"] = in.tensor_parallel;
    j["pipeline_parallel"] = in.pipeline_parallel;
    j["flops_convention"] = s.convention;
    j["flops_convention_given"] = s.convention_alias.empty() ? s.convention : s.convention_alias;
    j["flops_convention_dates"] = s.convention_dates;
    j["flops_convention_description"] = s.convention_description;
    j["hardware_flops_like"] = s.hardware_flops_like;
    j["flops_formula"] = s.flops.formula;
    j["flops_note"] = s.flops.note;
    j["vocab_used"] = s.flops.vocab_used;
    j["flops_per_sample"] = s.derived.flops_per_sample;
    j["flops_per_step"] = s.derived.flops_per_step;
    j["peak_tflops"] = s.peak.tflops;
    j["peak"] = {
        {"gpu", s.peak.gpu}, {"precision", s.peak.precision}, {"tflops", s.peak.tflops}, {"source", s.peak.source}};
    j["window"] = {{"start", s.stats.window.start}, {"end", s.stats.window.end}};
    if (!s.stats.window.name.empty()) j["window"]["name"] = s.stats.window.name;
    j["steps_used"] = s.stats.steps_used;
    j["steps_used_count"] = s.stats.count;
    j["warmup_steps"] = s.stats.warmup_steps;
    j["steady_state_from"] = s.stats.steady_state_from;
    j["window_includes_warmup"] = s.stats.window_includes_warmup;
    j["step_time_s"] = s.stats.mean;
    j["step_time_median_s"] = s.stats.median;
    j["step_time_min_s"] = s.stats.min;
    j["step_time_max_s"] = s.stats.max;
    j["step_time_p10_s"] = s.stats.p10;
    j["step_time_p90_s"] = s.stats.p90;
    j["step_time_stddev_s"] = s.stats.stddev;
    j["tokens_per_step"] = s.derived.tokens_per_step;
    j["tokens_per_s"] = s.derived.tokens_per_s;
    j["tokens_per_s_per_gpu"] = s.derived.tokens_per_s_per_gpu;
    j["samples_per_s"] = s.derived.samples_per_s;
    j["tflops_per_gpu"] = s.derived.tflops_per_gpu;
    j["mfu"] = s.derived.mfu;
    if (s.peak.measured_tflops) {  // a GPU run's calibration beside the datasheet peak
        j["mfu_measured"] = number_or_null(s.derived.mfu_measured);
        j["peak_measured_tflops"] = *s.peak.measured_tflops;
        j["peak_measured_source"] = s.peak.measured_source;
    }
    j["train_tokens"] = s.derived.train_tokens;
    j["days_to_train"] = s.derived.days_to_train;
    j["final_loss"] = number_or_null(s.figure("final_loss"));
    j["origins"] = origins_json(in);
    add_checks_json(s, j);
    j["expectations_passed"] = s.expectations_passed();
    const analysis::Provenance& p = s.provenance;
    j["provenance"] = {{"tool_version", p.tool_version}, {"log_format", p.log_format},   {"log_files", p.log_files},
                       {"records", p.records},           {"skipped", p.skipped},         {"corrupt", p.corrupt},
                       {"step_source", p.step_source},   {"run_dir", p.run_dir},         {"run_id", p.run_id},
                       {"recipe_name", p.recipe_name},   {"recipe_file", p.recipe_file}, {"created", p.created},
                       {"git_commit", p.git_commit}};
    if (!s.conventions.empty()) j["conventions"] = detail::conventions_json(s);
    if (s.reference) j["reference"] = detail::reference_json(*s.reference);
    if (series) j["series"] = {{"step_time_s", series_json(s.step_times)}, {"loss", series_json(s.loss)}};
    return j;
}

nlohmann::ordered_json compare_json(const std::vector<RunSummary>& runs) {
    nlohmann::ordered_json j;
    j["format"] = "trainbench-compare";
    j["version"] = 1;
    auto arr = nlohmann::ordered_json::array();
    for (const auto& r : runs) arr.push_back(to_json(r));
    j["runs"] = arr;
    auto diffs = nlohmann::ordered_json::array();
    for (std::size_t i = 1; i < runs.size(); ++i) {
        nlohmann::ordered_json d;
        d["label"] = runs[i].inputs.label;
        d["baseline"] = runs[0].inputs.label;
        for (const auto& f : summary_figures()) {
            auto a = runs[0].figure(f.key);
            auto b = runs[i].figure(f.key);
            d[std::string(f.key)] = (a && b && *a != 0) ? nlohmann::ordered_json((*b - *a) / *a) : nullptr;
        }
        diffs.push_back(d);
    }
    j["relative_differences"] = diffs;
    return j;
}

namespace detail {

std::vector<InputRow> input_rows(const RunSummary& s) {
    const analysis::Inputs& in = s.inputs;
    std::vector<InputRow> rows;
    std::string shape = in.model.layers > 0
                            ? fmt::format("{} ({}: {} layers, hidden {}, {} heads)", in.model.name, in.model.family,
                                          in.model.layers, in.model.hidden, in.model.heads)
                            : in.model.name;
    rows.push_back({"model", shape, in.model_origin});
    rows.push_back({"GPUs", fmt::format("{} x {}", in.gpus, in.gpu_name.empty() ? in.gpu_family : in.gpu_name),
                    in.gpu_origin.empty() ? in.gpus_origin : in.gpus_origin + "; " + in.gpu_origin});
    rows.push_back({"precision", s.peak.precision, in.precision_origin});
    rows.push_back({"global batch", std::to_string(in.global_batch), in.global_batch_origin});
    rows.push_back({"sequence length", std::to_string(in.seq_len), in.seq_len_origin});
    rows.push_back({"parallelism", fmt::format("TP {} PP {}", in.tensor_parallel, in.pipeline_parallel), ""});
    std::string convention = fmt::format("{} ({})", s.convention, s.convention_dates);
    if (!s.convention_alias.empty()) convention += fmt::format(", given as '{}'", s.convention_alias);
    if (s.hardware_flops_like) convention += " (hardware-FLOPs-like)";
    rows.push_back({"FLOPs convention", convention, in.convention_origin});
    rows.push_back({"FLOPs per sample", fmt::format("{:.6e}  {}", s.flops.per_sample, s.flops.formula), ""});
    rows.push_back({"peak", describe_peak(s.peak), ""});
    if (s.peak.measured_tflops)
        rows.push_back(
            {"measured peak", fmt::format("{:g} TFLOPS ({})", *s.peak.measured_tflops, s.peak.measured_source), ""});
    std::string window =
        fmt::format("{}..{} inclusive: {} records", s.stats.window.start, s.stats.window.end, s.stats.count);
    if (!s.stats.window.name.empty()) window = s.stats.window.name + " (" + window + ")";
    rows.push_back({"step window", window, in.window_origin});
    rows.push_back({"warm-up",
                    s.stats.warmup_steps.empty()
                        ? std::string("none detected")
                        : fmt::format("steps {} (steady state from step {})", steps_text(s.stats.warmup_steps),
                                      s.stats.steady_state_from),
                    ""});
    return rows;
}

std::string steps_text(const std::vector<std::int64_t>& steps) {
    std::string out;
    for (std::size_t i = 0; i < steps.size();) {
        std::size_t j = i;
        while (j + 1 < steps.size() && steps[j + 1] == steps[j] + 1) ++j;
        if (!out.empty()) out += ", ";
        out += j > i ? fmt::format("{}-{}", steps[i], steps[j]) : fmt::format("{}", steps[i]);
        i = j + 1;
    }
    return out;
}

std::vector<FigureInfo> report_figures(const RunSummary& s) {
    std::vector<FigureInfo> out;
    for (const FigureInfo& f : summary_figures()) {
        out.push_back(f);
        if (f.key == "mfu" && s.derived.mfu_measured) out.push_back({"mfu_measured", "MFU (measured peak)", ""});
    }
    return out;
}

std::string figure_label(const RunSummary& s, const FigureInfo& f) {
    if (f.key == "days_to_train") return fmt::format("days to train {:g}B tokens", s.derived.train_tokens / 1e9);
    return std::string(f.label);
}

}  // namespace detail
}  // namespace trainbench::report
