// The finite-figure checks of a report (finite_checks.hpp).
#include "analysis/finite_checks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <utility>

namespace trainbench::analysis::detail {

namespace {

std::string logs_of(const Provenance& p) {
    return p.log_files.empty() ? std::string("the log") : fmt::format("{}", fmt::join(p.log_files, ", "));
}

}  // namespace

// Step times are finite positive numbers. One in the window that is not (NaN, an infinity, a
// negative or zero time) refuses the report, located by log and step; outside the window it is
// only a warning (the window's figures do not use it).
void check_step_times(const AnalysisRequest& request, const StepWindow& window, std::vector<Finding>& findings) {
    Diagnostics d;
    std::size_t outside = 0, inside = 0;
    std::int64_t first_outside = 0;
    auto check = [&](const StepSample& r) {
        if (std::isfinite(r.seconds) && r.seconds > 0) return;
        if (r.step < window.start || r.step > window.end) {
            if (outside++ == 0) first_outside = r.step;
        } else if (inside++ < 5) {
            SourceLocation where;
            where.file = logs_of(request.provenance);
            d.error(where, fmt::format("step {}", r.step),
                    fmt::format("step time {} s is not a finite positive number", r.seconds), "seconds > 0");
        }
    };
    if (request.step_series) {
        metrics::PointReader reader(*request.step_series);
        for (metrics::Point p; reader.next(p);) check(StepSample{p.step, p.value});
    } else {
        for (const StepSample& r : request.step_records) check(r);
    }
    d.throw_if_errors(fmt::format("{} step time{} in the window {}..{} cannot be used", inside, inside == 1 ? "" : "s",
                                  window.start, window.end));
    if (outside > 0)
        findings.push_back({Severity::warning, fmt::format("{} step time{} outside the window not a finite positive "
                                                           "number (first at step {}); not used",
                                                           outside, outside == 1 ? " is" : "s are", first_outside)});
}

// What the window's mean gives must be a finite number too: steps of 4e-320 s overflow tokens/s.
void check_derived(const RunSummary& s, const Provenance& p) {
    for (const auto& [name, v] : {std::pair<const char*, double>{"tokens/s", s.derived.tokens_per_s},
                                  {"TFLOPS/GPU", s.derived.tflops_per_gpu},
                                  {"MFU", s.derived.mfu}})
        if (!std::isfinite(v))
            throw InputError(
                fmt::format("{}: the mean step time of the window, {} s, gives {} = {}: not a finite number",
                            logs_of(p), s.stats.mean, name, v),
                "check the log's step times and their unit");
}

}  // namespace trainbench::analysis::detail
