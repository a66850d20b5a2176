// Summarise a run or logs: a RunSummary from a run directory (its resolved
// recipe, its logs) or from bare log files, with the options that give what a
// bare log lacks. `report`, `compare` and `sweep report` share it.
#include "pipeline/mlperf_steps.hpp"
#include "pipeline/points_in_memory.hpp"

#include <trainbench/metrics.hpp>
#include <trainbench/pipeline.hpp>
#include <trainbench/recipe.hpp>
#include <trainbench/results.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <exception>
#include <fnmatch.h>
#include <thread>

namespace fs = std::filesystem;

namespace trainbench::pipeline {

std::optional<fs::path> find_run_dir(const fs::path& root, const std::string& ref) {
    std::error_code ec;
    const fs::path p(ref);
    // An existing path that is not a run: a log file (or a directory of logs).
    if (fs::exists(p, ec) && !run::RunStore::is_run_dir(p)) return std::nullopt;
    fs::path dir = run::RunStore(root).resolve(ref);
    // A directory given as such is used as given (it names the run in what is printed).
    return run::RunStore::is_run_dir(p) ? p : dir;
}

namespace {

// What the FLOPs convention decides about reading a log, decided once per report from the
// convention's name (an unknown name fails there, with did-you-mean): gpu-recipes' tool
// averages every DLLogger record (duplicates too), and names models the catalog may lack.
struct LogReading {
    bool gpu_recipes = false;
};

LogReading log_reading(const std::string& convention) {
    return LogReading{analysis::is_gpu_recipes_convention(analysis::find_flops_convention(convention).name)};
}

// The catalog of what a report reads (GPUs, models): its targets are not needed.
// `model`: the model the report is for (only its file is read), or empty.
const catalog::Catalog& figures_catalog(const Services& services, std::string_view model) {
    return services.catalog_without_targets ? services.catalog_without_targets(model) : services.catalog();
}

// The catalog GPU a family name stands for ("h100" -> h100-sxm-80gb): the GPUs of the family must
// agree on every peak (A100 40GB and 80GB do), else the name is ambiguous. nullptr: none.
const catalog::Gpu* family_gpu(const catalog::Catalog& cat, const std::string& family) {
    const catalog::Gpu* first = nullptr;
    std::vector<std::string> names;
    bool same = true;
    for (const auto& [n, g] : cat.gpus()) {
        if (g.family != family) continue;
        names.push_back(n);
        if (!first) {
            first = &g;
            continue;
        }
        same = same && g.peak_tflops_dense == first->peak_tflops_dense &&
               g.tool_peaks.size() == first->tool_peaks.size() &&
               std::equal(g.tool_peaks.begin(), g.tool_peaks.end(), first->tool_peaks.begin(),
                          [](const auto& a, const auto& b) {
                              return a.first == b.first && a.second.tflops == b.second.tflops;
                          });
    }
    if (!same)
        throw UsageError(fmt::format("GPU family '{}' has GPUs with different peaks: {}", family, quoted_list(names)),
                         "name one of them with --gpu");
    return first;
}

// The GPU named by a flag: a catalog GPU, or a family of the catalog's GPUs. The catalog is the
// one source of GPUs and peaks: when it cannot be loaded, its own error says why.
void apply_gpu(const Services& services, const std::string& name, analysis::Inputs& in, const std::string& origin) {
    const catalog::Catalog& cat = figures_catalog(services, in.model.name);
    if (const catalog::Gpu* g = cat.find_gpu(name)) {
        in.gpu_name = g->name;
        in.gpu_family = g->family;
        return;
    }
    if (family_gpu(cat, name)) {
        in.gpu_name = name;
        in.gpu_family = name;
        return;
    }
    std::vector<std::string> known;
    for (const auto& [n, g] : cat.gpus()) {
        known.push_back(n);
        known.push_back(g.family);
    }
    std::sort(known.begin(), known.end());
    known.erase(std::unique(known.begin(), known.end()), known.end());
    throw UsageError(fmt::format("unknown GPU '{}' ({})", name, origin), did_you_mean(name, known));
}

// The catalog's GPU of the inputs (by name, else by family): where the peak comes from.
std::optional<catalog::Gpu> catalog_gpu(const Services& services, const analysis::Inputs& in) {
    try {
        const catalog::Catalog& cat = figures_catalog(services, in.model.name);
        if (const catalog::Gpu* g = cat.find_gpu(in.gpu_name)) return *g;
        if (const catalog::Gpu* g = family_gpu(cat, in.gpu_family)) return *g;
    } catch (const Error&) {
    }
    return std::nullopt;
}

// A log that names its GPU (the tinygpt workload on CUDA: gpu_device_name) was measured on that
// GPU: the catalog GPU whose device_names has the name, unless --gpu names one. A name the
// catalog does not know is an error naming it (gpu_for_device), never another GPU's peak.
void apply_log_device(const Services& services, const metrics::LogData& log, const SummaryOptions& flags,
                      analysis::Inputs& in) {
    const std::optional<std::string> device = log.parameter_text("gpu_device_name");
    if (!flags.gpu.empty() || !device || device->empty()) return;
    const catalog::Gpu& g =
        figures_catalog(services, in.model.name).gpu_for_device(*device, "the log's gpu_device_name");
    const std::string before = in.gpu_name;
    in.gpu_name = g.name;
    in.gpu_family = g.family;
    in.gpu_origin = fmt::format("GPU from the log's gpu_device_name '{}'", *device);
    if (!before.empty() && before != g.name) in.gpu_origin += fmt::format(", not the recipe's '{}'", before);
    in.catalog_gpu = g;
}

// An MLPerf log's benchmark, when it is a catalog model and nothing else named one.
void apply_log_benchmark(const Services& services, const metrics::LogData& log, analysis::Inputs& in) {
    if (!in.model.name.empty()) return;
    const std::optional<std::string> name = detail::mlperf_model(log);
    if (!name) return;
    if (const catalog::Model* m = figures_catalog(services, *name).find_model(*name)) {
        in.model = *m;
        in.model_origin =
            fmt::format("the log's submission_benchmark '{}'", log.parameter_text("submission_benchmark").value_or(""));
    }
}

catalog::Precision parse_precision_flag(const std::string& text) {
    if (auto p = catalog::parse_precision(text)) return *p;
    throw UsageError(fmt::format("unknown precision '{}'", text), did_you_mean(text, catalog::precision_names()));
}

// Flags override whatever the recipe said. `reading`: of the report's convention (--flops, when given).
void apply_flags(const Services& services, const SummaryOptions& f, const LogReading& reading, analysis::Inputs& in) {
    if (!f.model.empty()) {
        const catalog::Model* m = nullptr;
        std::exception_ptr catalog_error;  // (as for a GPU: said when no table knows the model)
        try {
            m = figures_catalog(services, f.model).find_model(f.model);
        } catch (const Error&) {
            catalog_error = std::current_exception();
        }
        if (m) {
            in.model = *m;
        } else if (!f.flops.empty() && reading.gpu_recipes && analysis::gpu_recipes_model_flops().count(f.model)) {
            in.model = catalog::Model{};
            in.model.name = f.model;
            in.model.family = f.model.substr(0, f.model.find('-'));
            in.model.seq_length = 0;
        } else {
            if (catalog_error) std::rethrow_exception(catalog_error);
            const std::vector<std::string> names = figures_catalog(services, f.model).model_names();
            throw UsageError(fmt::format("unknown model '{}'", f.model), did_you_mean(f.model, names));
        }
        in.model_origin = "--model";
    }
    if (f.gpus > 0) {
        in.gpus = f.gpus;
        in.gpus_origin = "--gpus";
    }
    if (!f.gpu.empty()) apply_gpu(services, f.gpu, in, "--gpu");
    if (!f.precision.empty()) {
        in.precision = parse_precision_flag(f.precision);
        in.precision_origin = "--precision";
    }
    if (f.global_batch > 0) {
        in.global_batch = f.global_batch;
        in.global_batch_origin = "--global-batch";
    }
    if (f.seq > 0) {
        in.seq_len = f.seq;
        in.seq_len_origin = "--seq";
    }
    if (f.tensor_parallel > 0) in.tensor_parallel = f.tensor_parallel;
    if (!f.window.empty()) {
        in.window = analysis::parse_window(f.window);
        in.window_origin = "--window";
    }
    if (!f.flops.empty()) {  // (its name checked by log_reading)
        in.convention = f.flops;
        in.convention_origin = "--flops";
    }
    if (f.peak > 0) in.peak_override = f.peak;
    if (f.tokens > 0) in.train_tokens = f.tokens;
}

// What a report reads of a log, in one pass: the step-time series (gpu-recipes on
// DLLogger: the records its tool averages, collected by the parser), the loss (only
// its last point when the output shows no plots), the framework's own figures in the step
// `window`, and the parameters.
metrics::ParseOptions report_parse_options(const std::string& format, const LogReading& reading, bool figures_only,
                                           const analysis::StepWindow& window) {
    metrics::ParseOptions po;
    po.format = format;
    po.step_records = reading.gpu_recipes;
    po.wall_times = false;
    po.tags = {std::string(metrics::names::loss)};
    if (!(po.step_records && format == "dllogger")) po.tags.emplace_back(metrics::names::step_time_s);
    if (figures_only) po.last_only = {std::string(metrics::names::loss)};
    // The framework's own TFLOPS/GPU and MFU, for the report's cross-check rows: only their
    // points in the step window, the only ones the rows read (a TorchTitan log has millions),
    // except MLPerf's throughput, whose window is every block, known once the log is read.
    for (const std::string& s : analysis::framework_figure_series(format)) {
        po.tags.push_back(s);
        if (format != "mlperf") po.window_only.push_back(s);
    }
    po.window_from = window.start;
    po.window_to = window.end;
    // The frameworks' logs hold a point per step and little else (a GiB of Megatron-Bridge log is
    // 2.6 M steps): their series wait in temporary files past this many points, and the step
    // statistics read them in passes (analysis::step_statistics_streamed), so the report's
    // memory does not grow with the log.
    if (format == "megatron-bridge" || format == "torchtitan") po.spill_after = detail::k_points_in_memory;
    // MLPerf's step time comes from its blocks (take_steps).
    if (format == "mlperf")
        for (const char* s : {"block_time_s", "block_samples"}) po.tags.emplace_back(s);
    return po;
}

// Step records: gpu-recipes averages DLLogger records as its tool does; everything else the parsed
// series (read where it lies when it was spilled: `log` must outlive the analysis).
void take_steps(metrics::LogData& log, const LogReading& reading, analysis::AnalysisRequest& req) {
    std::string& source = req.provenance.step_source;
    if (reading.gpu_recipes && log.format == "dllogger") {
        source = "DLLogger records (gpu-recipes: every record counts, duplicates too)";
        req.step_records = std::move(log.step_records);
        return;
    }
    auto it = log.series.find(std::string(metrics::names::step_time_s));
    if (it == log.series.end() && detail::take_mlperf_steps(log, req)) return;
    source = "parsed series step_time_s (one value per step)";
    if (it != log.series.end() && it->second.spill)
        req.step_series = &it->second;
    else
        req.step_records = analysis::take_step_samples(log);
}

analysis::Provenance log_provenance(const metrics::LogData& log) {
    analysis::Provenance p;
    p.tool_version = std::string(version());
    p.log_format = log.format;
    for (const auto& f : log.files) p.log_files.push_back(f.string());
    p.records = log.stats.records;
    p.skipped = log.stats.skipped;
    p.corrupt = log.stats.corrupt;
    return p;
}

// The log files of a run's stage: the recipe's metrics.path (a glob on the
// file name allowed), else every file the parsers recognise, best format first.
// A log still being written (or cut) ends in an incomplete line, which no parser reads: the
// report says so, since its figures then cover what was complete.
void note_incomplete_tail(const metrics::LogData& log, analysis::RunSummary& s) {
    if (!log.stats.truncated_tail) return;
    s.findings.push_back(
        {Severity::note,
         fmt::format("the last line of {} is incomplete (still being written?): it was not read",
                     log.files.size() == 1 ? log.files.front().filename().string() : std::string("a log"))});
}

// --conventions and --reference: the run under every convention, and against a published row.
void add_comparisons(const Services& services, const SummaryOptions& f, analysis::RunSummary& s) {
    if (f.conventions) s.conventions = analysis::figures_under_every_convention(s);
    if (f.reference.empty()) return;
    const catalog::Reference row = find_reference(published_references(services), f.reference);
    const catalog::Model* m = figures_catalog(services, row.model).find_model(row.model);
    if (!m)
        throw InputError(fmt::format("reference '{}' names model '{}', which the catalog lacks", row.id, row.model));
    s.reference = analysis::compare_with_reference(s, row, *m);
}

}  // namespace

std::vector<fs::path> run_log_files(const fs::path& log_dir, const recipe::Metrics& m, std::string& format) {
    std::error_code ec;
    std::vector<fs::path> files;
    if (!fs::is_directory(log_dir, ec))
        throw InputError(fmt::format("the run has no logs yet: '{}' does not exist", log_dir.string()),
                         "run 'trainbench status' to see whether the job started");
    if (!m.path.empty()) {
        const fs::path rel(m.path);
        const fs::path dir = log_dir / rel.parent_path();
        const std::string pattern = rel.filename().string();
        if (fs::is_directory(dir, ec))
            for (const auto& e : fs::directory_iterator(dir, ec))
                if (::fnmatch(pattern.c_str(), e.path().filename().c_str(), 0) == 0) files.push_back(e.path());
        std::sort(files.begin(), files.end());
        if (files.empty())
            throw InputError(fmt::format("no log matches metrics.path '{}' under '{}'", m.path, log_dir.string()),
                             "check the recipe's metrics.path");
        format = m.source;
        return files;
    }
    static const std::vector<std::string> preference = {"dllogger", "tensorboard",     "nemo",       "megatron",
                                                        "metaseq",  "megatron-bridge", "torchtitan", "mlperf"};
    std::map<std::string, std::vector<fs::path>> by_format;
    for (auto it = fs::recursive_directory_iterator(log_dir, ec); it != fs::recursive_directory_iterator(); ++it) {
        if (!it->is_regular_file()) continue;
        if (auto f = metrics::detect_format(it->path())) by_format[*f].push_back(it->path());
    }
    std::vector<std::string> order = preference;
    if (m.source != "auto" && !m.source.empty()) order.insert(order.begin(), m.source);
    for (const std::string& f : order) {
        auto it = by_format.find(f);
        if (it == by_format.end()) continue;
        files = it->second;
        std::sort(files.begin(), files.end());
        format = f;
        return files;
    }
    throw InputError(fmt::format("no training log found under '{}'", log_dir.string()),
                     "set metrics.path in the recipe, or report on a log file with --format");
}

std::string train_stage(const recipe::Recipe& r) {
    for (const auto& s : r.stages)
        if (s.kind == "train") return s.name;
    return "train";
}

std::vector<catalog::Reference> published_references(const Services& services) {
    return catalog::load_references(services.dirs.recipes, figures_catalog(services, {}));
}

catalog::Reference find_reference(const std::vector<catalog::Reference>& rows, const std::string& id) {
    std::vector<std::string> ids;
    for (const catalog::Reference& r : rows) {
        if (r.id == id) return r;
        ids.push_back(r.id);
    }
    std::string hint = did_you_mean(id, ids);
    if (hint.empty()) hint = "'trainbench list references' lists them";
    throw UsageError(fmt::format("no published reference '{}'", id), hint);
}

analysis::RunSummary summarise_run(const Services& services, const fs::path& run_dir, const SummaryOptions& flags) {
    const fs::path recipe_file = run_dir / "recipe.resolved.yaml";
    std::error_code ec;
    if (!fs::exists(recipe_file, ec))
        throw InputError(fmt::format("'{}' has no recipe.resolved.yaml", run_dir.string()),
                         "is it a trainbench run directory?");
    nlohmann::json run_json = nlohmann::json::parse(read_file(run_dir / "run.json"), nullptr, false);
    if (run_json.is_discarded() || !run_json.is_object()) run_json = nlohmann::json::object();
    const recipe::Recipe r = recipe::load_recipe(recipe_file, services.catalog());

    analysis::AnalysisRequest req;
    analysis::Inputs& in = req.inputs;
    in = results::inputs_from_recipe(r);
    in.label = run_json.value("run_id", run_dir.filename().string());
    const LogReading reading = log_reading(flags.flops.empty() ? in.convention : flags.flops);
    apply_flags(services, flags, reading, in);
    in.catalog_gpu = catalog_gpu(services, in);

    std::string format;
    const fs::path log_dir = run_dir / "logs" / train_stage(r);
    auto files = run_log_files(log_dir, r.metrics, format);
    metrics::LogData log = metrics::parse_logs(
        files, report_parse_options(flags.format != "auto" ? flags.format : (format.empty() ? "auto" : format), reading,
                                    false, in.window));

    apply_log_device(services, log, flags, in);
    req.log = &log;
    req.provenance = log_provenance(log);
    take_steps(log, reading, req);
    req.expectations = r.expectations;
    req.provenance.run_dir = run_dir.string();
    req.provenance.run_id = run_json.value("run_id", "");
    req.provenance.recipe_name = r.name;
    req.provenance.recipe_file = run_json.value("recipe_file", "");
    req.provenance.created = run_json.value("created", "");
    if (run_json.contains("git_commit") && run_json["git_commit"].is_string())
        req.provenance.git_commit = run_json["git_commit"].get<std::string>();
    req.resolved_recipe = read_file(recipe_file);
    analysis::RunSummary summary = analysis::analyse(std::move(req));
    note_incomplete_tail(log, summary);
    add_comparisons(services, flags, summary);
    return summary;
}

namespace {

// The parse of a report's bare logs. A large log (64 MiB and more in all, where the parse
// takes both cores anyway) is parsed on its own thread from the start, while the flags are
// checked against the catalog: loading the catalog is milliseconds of one core, before the
// parse could start. What it does, and the order of its errors, are as sequential: the
// flags' errors first (a parse not yet taken is waited for and its result dropped), then
// format detection's, then the parse's. A small log is parsed when taken, on this thread.
class LogsParse {
public:
    LogsParse(const std::vector<fs::path>& paths, const SummaryOptions& flags, const LogReading& reading)
        : m_paths(paths), m_flags(flags), m_reading(reading) {
        constexpr std::uintmax_t k_large = 64u << 20;
        std::uintmax_t bytes = 0;
        for (const fs::path& p : paths) {
            std::error_code ec;
            const std::uintmax_t n = fs::file_size(p, ec);
            if (!ec) bytes += n;
        }
        if (bytes >= k_large && std::thread::hardware_concurrency() > 1) m_thread = std::thread([this] { run(); });
    }
    ~LogsParse() {
        if (m_thread.joinable()) m_thread.join();
    }
    LogsParse(const LogsParse&) = delete;
    LogsParse& operator=(const LogsParse&) = delete;

    // The parsed logs (read as the convention decided: log_reading has checked its name).
    metrics::LogData take() {
        if (m_thread.joinable())
            m_thread.join();
        else
            run();
        if (m_error) std::rethrow_exception(m_error);
        return std::move(m_log);
    }

private:
    void run() {
        try {
            // (every file's format detected once, here; they must agree)
            const std::string format = m_flags.format == "auto" ? metrics::logs_format(m_paths) : m_flags.format;
            // (the window as apply_flags() sets it, which reports a bad --window)
            const analysis::StepWindow window =
                m_flags.window.empty() ? analysis::StepWindow{} : analysis::parse_window(m_flags.window);
            m_log = metrics::parse_logs(m_paths, report_parse_options(format, m_reading, m_flags.figures_only, window));
        } catch (...) {
            m_error = std::current_exception();
        }
    }

    const std::vector<fs::path>& m_paths;
    const SummaryOptions& m_flags;
    const LogReading m_reading;
    metrics::LogData m_log;
    std::exception_ptr m_error;
    std::thread m_thread;
};

}  // namespace

analysis::RunSummary summarise_logs(const Services& services, const std::vector<std::string>& files,
                                    const SummaryOptions& flags) {
    std::vector<fs::path> paths(files.begin(), files.end());
    analysis::AnalysisRequest req;
    analysis::Inputs& in = req.inputs;
    in.label = paths.size() == 1 ? paths.front().filename().string()
                                 : fmt::format("{} (+{} files)", paths.front().filename().string(), paths.size() - 1);
    in.precision_origin = "default";
    in.window_origin = "default";
    in.convention_origin = "default";
    const LogReading reading = log_reading(flags.flops.empty() ? in.convention : flags.flops);
    LogsParse parse(paths, flags, reading);
    apply_flags(services, flags, reading, in);
    metrics::LogData log = parse.take();
    req.plot_series = !flags.figures_only;
    apply_log_device(services, log, flags, in);
    apply_log_benchmark(services, log, in);
    if (in.gpu_family.empty()) {
        // A log from the local workload declares its measured peak: that is a CPU run.
        if (log.parameters.count("peak_tflops_measured")) apply_gpu(services, "cpu", in, "log peak_tflops_measured");
    }
    if (!in.catalog_gpu) in.catalog_gpu = catalog_gpu(services, in);

    req.log = &log;
    req.provenance = log_provenance(log);
    take_steps(log, reading, req);
    analysis::RunSummary summary = analysis::analyse(std::move(req));
    note_incomplete_tail(log, summary);
    add_comparisons(services, flags, summary);
    return summary;
}

}  // namespace trainbench::pipeline
