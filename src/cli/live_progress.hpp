// Private to the CLI: how run, wait and watch show the live progress of a running run's
// training that pipeline::wait_run reads (docs/results.md "Live progress").
#pragma once

#include "cli/app.hpp"

#include <trainbench/pipeline.hpp>

#include <string>

namespace trainbench::cli {

class ProgressDisplay {
public:
    // events_to_stdout: --json progress events go to stdout (watch) instead of stderr (run, wait).
    ProgressDisplay(Context& ctx, bool events_to_stdout) : m_ctx(ctx), m_events_to_stdout(events_to_stdout) {}
    // New steps: a plain line (not a TTY), a JSON event (--json), a warning when the step time
    // starts to drift.
    void show(const results::Progress& p);
    // The last progress text ("" before the first step).
    [[nodiscard]] const std::string& last() const { return m_last; }

private:
    Context& m_ctx;
    bool m_events_to_stdout = false;
    bool m_drifting = false;
    std::string m_last;
};

}  // namespace trainbench::cli
