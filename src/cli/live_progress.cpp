#include "cli/live_progress.hpp"

#include "cli/results_support.hpp"

#include <trainbench/metrics.hpp>
#include <trainbench/recipe.hpp>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <fnmatch.h>

namespace fs = std::filesystem;

namespace trainbench::cli {

LiveProgress::LiveProgress(Context& ctx, const run::RunInfo& run, bool events_to_stdout)
    : m_ctx(ctx), m_run_dir(run.dir), m_events_to_stdout(events_to_stdout) {}

// The recipe's inputs, its steps, and what the step time should be: the recipe's
// step_time_s expectation, else the mean of the latest earlier run tagged good.
void LiveProgress::start() {
    m_started = true;
    const recipe::Recipe r = recipe::load_recipe(m_run_dir / "recipe.resolved.yaml", m_ctx.catalog());
    m_inputs = results::inputs_from_recipe(r);
    m_total_steps = r.steps;
    std::string stage = "train";
    for (const recipe::Stage& s : r.stages)
        if (s.kind == "train") {
            stage = s.name;
            break;
        }
    m_log_dir = m_run_dir / "logs" / stage;
    m_pattern = r.metrics.path;
    m_format = r.metrics.source;
    for (const recipe::Expectation& e : r.expectations)
        if (e.figure == "step_time_s" && e.value) {
            m_expected = e.value;
            m_expected_origin = "recipe expectation";
        }
    if (m_expected) return;
    try {
        std::unique_ptr<results::Store> store = open_results(m_ctx);
        const std::string target = r.target_name.empty() ? r.target.name : r.target_name;
        for (const results::Result& h : store->history({r.name, target, ""}))
            if (std::find(h.tags.begin(), h.tags.end(), "good") != h.tags.end()) {
                m_expected = h.step_time_mean;
                m_expected_origin = "baseline " + h.short_id();
            }
    } catch (const Error& e) {
        spdlog::debug("no baseline for the live progress: {}", e.what());
    }
}

namespace {

// The rank-0 log: metrics.path (glob on the file name), else the first file a parser recognises.
std::optional<fs::path> find_log(const fs::path& dir, const std::string& pattern) {
    std::error_code ec;
    if (!pattern.empty()) {
        const fs::path rel(pattern);
        std::vector<fs::path> hits;
        for (const auto& e : fs::directory_iterator(dir / rel.parent_path(), ec))
            if (::fnmatch(rel.filename().c_str(), e.path().filename().c_str(), 0) == 0) hits.push_back(e.path());
        if (hits.empty()) return std::nullopt;
        return *std::min_element(hits.begin(), hits.end());
    }
    for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator(); ++it)
        if (it->is_regular_file() && metrics::detect_format(it->path())) return it->path();
    return std::nullopt;
}

}  // namespace

std::optional<std::string> LiveProgress::poll() {
    if (m_off) return std::nullopt;
    try {
        if (!m_started) start();
        if (!m_follower) {
            std::optional<fs::path> log = find_log(*m_log_dir, m_pattern);
            if (!log) return std::nullopt;
            m_follower = std::make_unique<results::LogFollower>(*log, m_format);
        }
        if (!m_follower->poll()) return std::nullopt;
        std::optional<results::Progress> p =
            results::progress_of(m_follower->data(), m_inputs, m_total_steps, m_expected, k_drift_threshold);
        if (!p) return std::nullopt;
        p->expected_origin = m_expected_origin;
        show(*p);
        return m_last;
    } catch (const Error& e) {
        m_off = true;
        m_ctx.warn(fmt::format("no live progress: {}", e.what()));
        return std::nullopt;
    }
}

void LiveProgress::show(const results::Progress& p) {
    m_last = results::progress_line(p);
    if (p.drift && !m_drifting)
        m_ctx.warn(fmt::format("the step time drifts {:+.1f}% from the expected {:.3f} s ({}): {:.3f} s over {} steps",
                               p.drift_relative * 100, *p.expected_s, p.expected_origin, p.window_s, p.window_count));
    m_drifting = p.drift;
    if (m_ctx.options.json) {
        (m_events_to_stdout ? m_ctx.out : m_ctx.err) << results::progress_json(p).dump() << '\n' << std::flush;
    } else if (!m_ctx.err_is_tty && !m_ctx.options.quiet) {
        m_ctx.err << "trainbench: progress: " << m_last << '\n';
    }
}

}  // namespace trainbench::cli
