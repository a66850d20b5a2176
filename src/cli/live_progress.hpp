// Private to the CLI: the live progress of a running run's training, shown by
// run, wait and watch while they poll (docs/results.md "Live progress").
#pragma once

#include "cli/app.hpp"

#include <trainbench/results.hpp>
#include <trainbench/run.hpp>

#include <memory>
#include <optional>
#include <string>

namespace trainbench::cli {

class LiveProgress {
public:
    // events_to_stdout: --json progress events go to stdout (watch) instead of stderr (run, wait).
    LiveProgress(Context& ctx, const run::RunInfo& run, bool events_to_stdout);
    // Reads what the rank-0 log gained since the last call. When new steps arrived: prints a
    // plain line (not a TTY), a JSON event (--json), a warning when the step time drifts, and
    // returns the progress text; otherwise nullopt. Never throws: a problem turns it off.
    std::optional<std::string> poll();
    // The last progress text ("" before the first step).
    [[nodiscard]] const std::string& last() const { return m_last; }

private:
    void start();
    void show(const results::Progress& p);

    Context& m_ctx;
    std::filesystem::path m_run_dir;
    bool m_events_to_stdout = false;
    bool m_started = false;
    bool m_off = false;
    std::optional<std::filesystem::path> m_log_dir;
    std::string m_pattern;  // metrics.path (a glob on the file name allowed); empty = any detected log
    std::string m_format;
    std::unique_ptr<results::LogFollower> m_follower;
    analysis::Inputs m_inputs;
    std::int64_t m_total_steps = 0;
    std::optional<double> m_expected;
    std::string m_expected_origin;
    bool m_drifting = false;
    std::string m_last;
};

// The drift that warns: 10% from the recipe's expected step time or the baseline's.
inline constexpr double k_drift_threshold = 0.10;

}  // namespace trainbench::cli
