// `report`: a run's or logs' summary (a run without training figures falls back to its cluster
// validation), the files it writes, the recording in the results database and the verdict, as
// one value (RunReport) the command prints.
#include <trainbench/pipeline.hpp>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace trainbench::pipeline {

results::Result result_of(const Services& services, const analysis::RunSummary& summary, results::ResultLabels labels) {
    std::optional<recipe::Recipe> r;
    if (!summary.provenance.run_dir.empty()) {
        const fs::path file = fs::path(summary.provenance.run_dir) / "recipe.resolved.yaml";
        r = recipe::load_recipe(file, services.catalog());
        labels.recipe = &*r;
        labels.recipe_text = read_file(file);
    }
    return results::make_result(summary, labels);
}

Recorded record_result(results::Store& store, const results::Result& result) {
    Recorded r;
    r.added = store.record(result);
    r.short_id = result.short_id();
    r.recipe_name = result.recipe_name;
    r.store = store.describe();
    return r;
}

namespace {

// The validate stage's result, when the run's recipe has one (docs/stages.md).
std::optional<analysis::ClusterValidation> cluster_validation_of(const Services& services, const fs::path& run_dir) {
    const recipe::Recipe r = recipe::load_recipe(run_dir / "recipe.resolved.yaml", services.catalog());
    for (const recipe::Stage& s : r.stages)
        if (s.kind == "validate")
            return analysis::analyse_cluster_validation(run_dir / "logs" / s.name,
                                                        recipe::validate_options(r, s).nccl.busbw_threshold_gbs);
    return std::nullopt;
}

std::string validation_failure(const analysis::ClusterValidation& v) {
    if (v.empty()) return "has no results";
    return v.bad_nodes.empty() ? std::string("failed") : "failed; bad nodes: " + quoted_list(v.bad_nodes, " and ");
}

// Records the result (after the files are written): a database that cannot be reached fails
// the command (exit 4), not the report. For a run, the hint says where the report is.
void record(const Services& services, const ReportRequest& request, RunReport& out) {
    try {
        std::unique_ptr<results::Store> store = services.results_store(results::Access::write);
        out.recorded = record_result(*store, result_of(services, *out.summary, request.labels));
    } catch (const RuntimeError& e) {
        if (!out.run_dir) {
            out.record_error = std::current_exception();
            return;
        }
        out.record_error = std::make_exception_ptr(
            RuntimeError(e.what(), fmt::format("the run's report is in '{}'; 'trainbench history --import {}' "
                                               "records it once the database answers",
                                               (*out.run_dir / "report").string(), services.runs_root.string())));
    } catch (const Error&) {  // e.g. a result the database refuses (exit 3): also after the report
        out.record_error = std::current_exception();
    }
}

// Warnings, and the failure (exit 5) when an expectation or the cluster validation failed.
void decide(RunReport& out) {
    std::vector<std::string> names;
    if (out.summary) {
        for (const auto& f : out.summary->findings)
            if (f.severity == Severity::warning) out.warnings.push_back(f.message);
        for (const auto& e : out.summary->expectations)
            if (!e.passed) names.push_back(e.figure);
    }
    if (out.validation && !out.validation->passed) {
        const std::string what = "cluster validation " + validation_failure(*out.validation);
        if (names.empty()) {
            out.failure = ExpectationError(what);
            return;
        }
        out.warnings.push_back(what);
    }
    if (!names.empty())
        out.failure = ExpectationError(fmt::format("{} of {} expectations failed: {}", names.size(),
                                                   out.summary->expectations.size(), quoted_list(names, " and ")));
}

// The summary of the run, or nullopt when it has none but its validate stage has results.
std::optional<analysis::RunSummary> summarise_or_validation(const Services& services, const ReportRequest& request,
                                                            RunReport& out) {
    try {
        return summarise_run(services, *out.run_dir, request.options);
    } catch (const InputError& e) {
        out.validation = cluster_validation_of(services, *out.run_dir);
        if (!out.validation || out.validation->empty()) throw;
        out.no_figures = e.what();
        return std::nullopt;
    }
}

}  // namespace

std::string report_text(const RunReport& report, std::string_view format, const report::ReportOptions& options) {
    const report::ReporterInfo& info = report::reporter_info(format);
    report::Document document = report.summary ? report::run_document(*report.summary, options, info.parts)
                                               : report::cluster_validation_document(*report.validation, info.parts);
    if (report.summary && report.validation) report::add_cluster_validation(document, *report.validation, info.parts);
    return info.make(options)->render(document);
}

RunReport report_run(const Services& services, const ReportRequest& request) {
    if (request.targets.empty()) throw UsageError("nothing to report on", "give a run directory or log files");
    RunReport out;
    out.run_dir = find_run_dir(services.runs_root, request.targets.front());
    if (out.run_dir) {
        if (request.targets.size() > 1)
            throw UsageError("report takes one run (or several log files of one run)",
                             "to put runs side by side use 'trainbench compare RUN_A RUN_B'");
        out.summary = summarise_or_validation(services, request, out);
        if (out.summary) out.validation = cluster_validation_of(services, *out.run_dir);
    } else {
        out.summary = summarise_logs(services, request.targets, request.options);
    }
    // One document (the summary, the validation, or both) in every format written. (Not made
    // when nobody reads it: its steps_used lists every step of the window, 1.7 MB for a 100 MiB
    // MLPerf log.)
    if (out.run_dir || request.json) out.json = report_text(out, "json", {false, request.series});
    if (out.run_dir) write_file_atomic(*out.run_dir / "report" / "summary.json", out.json);
    if (!request.html.empty()) write_file_atomic(request.html, report_text(out, "html"));
    if (!request.junit.empty()) write_file_atomic(request.junit, report_text(out, "junit"));
    if (out.summary && (out.run_dir || request.record)) record(services, request, out);
    decide(out);
    return out;
}

}  // namespace trainbench::pipeline
