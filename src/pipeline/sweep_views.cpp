// What the sweep views need from the runs: the status of each point's run, what each point's run measured.
#include <trainbench/pipeline.hpp>
#include <trainbench/render.hpp>

#include <algorithm>

namespace fs = std::filesystem;

namespace trainbench::pipeline {

namespace {

// The run directory the state file records for a point, when it still exists.
std::optional<StateEntry> point_run(const std::map<std::string, StateEntry>& state, const sweep::Point& p) {
    auto it = state.find(p.hash);
    std::error_code ec;
    if (it == state.end() || it->second.run_dir.empty() || !fs::is_directory(it->second.run_dir, ec))
        return std::nullopt;
    return it->second;
}

}  // namespace

std::vector<report::SweepStatusRow> sweep_status(const sweep::Expansion& x, const fs::path& runs_root,
                                                 ProcessRunner& runner) {
    const std::map<std::string, StateEntry> state = read_state(state_file(runs_root, x.spec.name));
    std::vector<run::RunInfo> runs;
    std::map<std::string, std::size_t> by_hash;
    for (const sweep::Point& p : x.points) {
        if (!p.valid) continue;
        if (auto entry = point_run(state, p)) {
            by_hash[p.hash] = runs.size();
            runs.push_back(run::load_run(entry->run_dir));
        }
    }
    if (!runs.empty()) run::refresh(runs, run::default_backend_provider(), runner);
    std::vector<report::SweepStatusRow> rows;
    for (const sweep::Point& p : x.points) {
        if (!p.valid) continue;
        report::SweepStatusRow row;
        row.index = p.index;
        row.name = p.name;
        row.hash = p.hash;
        if (auto it = by_hash.find(p.hash); it != by_hash.end()) {
            row.run_id = runs[it->second].run_id;
            row.state = runs[it->second].state();
            row.detail = runs[it->second].detail();
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

std::vector<report::SweepReportRow> sweep_report_rows(const sweep::Expansion& x, const fs::path& runs_root,
                                                      const SummariseRunFn& summarise) {
    const std::map<std::string, StateEntry> state = read_state(state_file(runs_root, x.spec.name));
    std::vector<report::SweepReportRow> rows;
    for (const sweep::Point& p : x.points) {
        if (!p.valid) continue;
        report::SweepReportRow row;
        row.index = p.index;
        row.name = p.name;
        row.model = p.model;
        row.nodes = p.nodes;
        row.gpus = p.gpus;
        if (auto entry = point_run(state, p)) {
            row.run_id = entry->run_id;
            try {
                analysis::RunSummary s = summarise(entry->run_dir);
                row.step_time_s = s.stats.mean;
                row.tokens_per_s = s.derived.tokens_per_s;
                row.tflops_per_gpu = s.derived.tflops_per_gpu;
                row.mfu = s.derived.mfu;
            } catch (const Error& e) {
                row.note = e.what();
            }
        } else {
            row.note = "not submitted";
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

sweep::Expansion load_expansion(const Services& services, const fs::path& file) {
    const sweep::SweepSpec spec = sweep::load_sweep(file);
    sweep::ExpandOptions eo;
    eo.threads = sweep::expand_threads(std::min(sweep::raw_point_count(spec), spec.max_points));
    return sweep::expand(spec, services.catalog(), eo);
}

SweepDryRun preview_sweep(const Services& services, const fs::path& file, double assume_mfu,
                          const std::string& output) {
    const sweep::SweepSpec spec = sweep::load_sweep(file);
    const std::size_t total = std::min(sweep::raw_point_count(spec), spec.max_points);
    std::vector<plan::RunEstimate> by_index(total + 1);
    std::optional<SweepRenderer> renderer;
    sweep::ExpandOptions eo;
    eo.threads = sweep::expand_threads(total);
    if (!output.empty()) renderer.emplace(services.dirs.templates, output, eo.threads);
    eo.visit = [&](const sweep::Point& p, const recipe::Recipe& r, unsigned worker) {
        by_index[p.index] = plan::estimate_run(r, assume_mfu);
        if (renderer) renderer->render(p, r, worker);
    };
    SweepDryRun out{sweep::expand(spec, services.catalog(), eo), {}, assume_mfu, output, 0};
    out.estimates.reserve(out.expansion.points.size());
    for (const sweep::Point& p : out.expansion.points) out.estimates.push_back(by_index[p.index]);
    if (renderer) out.rendered_files = renderer->commit();
    return out;
}

}  // namespace trainbench::pipeline
