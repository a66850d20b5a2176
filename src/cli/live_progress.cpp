#include "cli/live_progress.hpp"

#include <fmt/format.h>

namespace trainbench::cli {

void ProgressDisplay::show(const results::Progress& p) {
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
