// Step-time statistics over an inclusive step window, warm-up detection,
// and the step-time series of a parsed log as step records.
#include <trainbench/analysis.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

namespace trainbench::analysis {

namespace {

// Linear interpolation between order statistics (NumPy's default).
double percentile(const std::vector<double>& sorted, double p) {
    if (sorted.empty()) return 0;
    const double pos = p * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    const double frac = pos - static_cast<double>(lo);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

std::int64_t parse_int(std::string_view text, std::string_view what) {
    std::int64_t v = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc{} || ptr != end || text.empty())
        throw UsageError(fmt::format("invalid step window '{}': '{}' is not a step number", what, text),
                         "write the window as START:END, e.g. --window 10:30");
    return v;
}

}  // namespace

StepWindow parse_window(std::string_view text) {
    const auto colon = text.find(':');
    if (colon == std::string_view::npos)
        throw UsageError(fmt::format("invalid step window '{}'", text),
                         "write the window as START:END, e.g. --window 10:30");
    StepWindow w{parse_int(text.substr(0, colon), text), parse_int(text.substr(colon + 1), text)};
    if (w.end < w.start)
        throw UsageError(fmt::format("invalid step window '{}': the end is before the start", text),
                         "write the window as START:END with START <= END");
    return w;
}

namespace {

// The median of the second half of the records (the steady state), as percentile() of the
// sorted values gives it, from two order statistics instead of a sort.
double tail_median(const std::vector<StepSample>& records) {
    std::vector<double> tail;
    tail.reserve(records.size() - records.size() / 2);
    for (std::size_t i = records.size() / 2; i < records.size(); ++i) tail.push_back(records[i].seconds);
    if (tail.empty()) return 0;
    const double pos = 0.5 * static_cast<double>(tail.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto nth = tail.begin() + static_cast<std::ptrdiff_t>(lo);
    std::nth_element(tail.begin(), nth, tail.end());
    const double low = *nth;
    const double high = lo + 1 < tail.size() ? *std::min_element(nth + 1, tail.end()) : low;
    return low + (high - low) * (pos - static_cast<double>(lo));
}

std::size_t first_steady(const std::vector<StepSample>& records, double steady, double threshold) {
    if (records.size() < 4) return 0;
    for (std::size_t i = 0; i < records.size(); ++i)
        if (records[i].seconds <= steady * (1 + threshold)) return i;
    return 0;
}

}  // namespace

std::size_t detect_warmup(const std::vector<StepSample>& records, double threshold) {
    if (records.size() < 4) return 0;
    return first_steady(records, tail_median(records), threshold);
}

StepStats step_statistics(const std::vector<StepSample>& records, StepWindow window) {
    StepStats st;
    st.window = window;
    st.total_records = records.size();
    if (records.empty())
        throw InputError("the log has no step times",
                         "check the log format (--format) and that the run got past its first step");
    st.first_step = records.front().step;
    st.last_step = records.front().step;
    for (const auto& r : records) {
        st.first_step = std::min(st.first_step, r.step);
        st.last_step = std::max(st.last_step, r.step);
    }
    std::vector<double> values;
    double sum = 0;
    for (const auto& r : records) {
        if (r.step < window.start || r.step > window.end) continue;
        sum += r.seconds;  // file order, as gpu-recipes accumulates
        values.push_back(r.seconds);
        st.steps_used.push_back(r.step);
    }
    if (values.empty())
        throw InputError(
            fmt::format("no step-time record in the step window {}..{}; the log has steps {}..{}", window.start,
                        window.end, st.first_step, st.last_step),
            fmt::format("choose a window inside the log, e.g. --window {}:{}", st.first_step, st.last_step));
    st.count = values.size();
    st.mean = sum / static_cast<double>(values.size());
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    st.min = *lo;
    st.max = *hi;
    st.median = percentile(sorted, 0.5);
    st.p10 = percentile(sorted, 0.1);
    st.p90 = percentile(sorted, 0.9);
    if (values.size() > 1) {
        double ss = 0;
        for (double v : values) ss += (v - st.mean) * (v - st.mean);
        st.stddev = std::sqrt(ss / static_cast<double>(values.size() - 1));
    }
    st.steady_state_median = tail_median(records);
    const std::size_t steady = first_steady(records, st.steady_state_median, k_warmup_threshold);
    for (std::size_t i = 0; i < steady; ++i) st.warmup_steps.push_back(records[i].step);
    st.steady_state_from = steady < records.size() ? records[steady].step : st.first_step;
    st.window_includes_warmup = std::any_of(st.warmup_steps.begin(), st.warmup_steps.end(),
                                            [&](std::int64_t s) { return s >= window.start && s <= window.end; });
    return st;
}

std::vector<StepSample> step_samples(const metrics::LogData& log) {
    std::vector<StepSample> out;
    auto it = log.series.find(std::string(metrics::names::step_time_s));
    if (it == log.series.end()) return out;
    out.reserve(it->second.points.size());
    for (const metrics::Point& p : it->second.points) out.push_back({p.step, p.value});
    return out;
}

std::vector<StepSample> take_step_samples(metrics::LogData& log) {
    std::vector<StepSample> out = step_samples(log);
    log.series.erase(std::string(metrics::names::step_time_s));
    return out;
}

}  // namespace trainbench::analysis
