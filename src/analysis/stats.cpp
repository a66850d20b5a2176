// Step-time statistics over an inclusive step window, warm-up detection,
// and the step-time series of a parsed log as step records.
#include "analysis/stats_detail.hpp"

#include <trainbench/analysis.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>

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
    if (const recipe::NamedWindow* named = recipe::find_named_window(text))
        return {named->start, named->end, std::string(named->name)};
    const auto colon = text.find(':');
    if (colon == std::string_view::npos) {
        std::string hint = did_you_mean(text, recipe::named_window_names());
        throw UsageError(fmt::format("invalid step window '{}'", text),
                         hint.empty() ? "write the window as START:END, e.g. --window 10:30, or a named window: " +
                                            quoted_list(recipe::named_window_names())
                                      : hint);
    }
    StepWindow w{parse_int(text.substr(0, colon), text), parse_int(text.substr(colon + 1), text)};
    if (w.end < w.start)
        throw UsageError(fmt::format("invalid step window '{}': the end is before the start", text),
                         "write the window as START:END with START <= END");
    return w;
}

namespace {

// The k-th smallest (0-based) of key(0) .. key(n - 1), for k < n, and the next one when it is
// in the same bucket (else `next` is left as it is). A histogram of the 11 bits below the ones
// all keys share finds the bucket that holds it, and only that bucket's keys are selected among:
// a few passes without a data-dependent branch instead of nth_element's partitions, which
// mispredict on every other comparison.
template <typename Key>
std::uint64_t select_key(std::size_t n, std::size_t k, Key key, std::optional<std::uint64_t>& next) {
    std::uint64_t lowest = ~std::uint64_t{0}, highest = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t x = key(i);
        lowest = std::min(lowest, x);
        highest = std::max(highest, x);
    }
    if (lowest == highest) {
        if (k + 1 < n) next = lowest;
        return lowest;
    }
    constexpr int k_bits = 11;
    constexpr std::uint64_t k_mask = (std::uint64_t{1} << k_bits) - 1;
    const int shift = std::max(0, 64 - std::countl_zero(lowest ^ highest) - k_bits);
    std::array<std::uint32_t, std::size_t{1} << k_bits> count{};
    for (std::size_t i = 0; i < n; ++i) ++count[(key(i) >> shift) & k_mask];
    std::size_t bucket = 0;
    for (; k >= count[bucket]; ++bucket) k -= count[bucket];
    std::vector<std::uint64_t> in_bucket;
    in_bucket.reserve(count[bucket]);
    for (std::size_t i = 0; i < n; ++i)
        if (const std::uint64_t x = key(i); ((x >> shift) & k_mask) == bucket) in_bucket.push_back(x);
    const auto nth = in_bucket.begin() + static_cast<std::ptrdiff_t>(k);
    std::nth_element(in_bucket.begin(), nth, in_bucket.end());
    // (every key after nth is at least *nth, and every key of a later bucket is larger)
    if (nth + 1 != in_bucket.end()) next = *std::min_element(nth + 1, in_bucket.end());
    return *nth;
}

// The median of the second half of the records (the steady state), as percentile() of the
// sorted values gives it: from the two order statistics around the middle, without a copy.
double tail_median(const std::vector<StepSample>& records) {
    const std::size_t first = records.size() / 2, n = records.size() - first;
    if (n == 0) return 0;
    auto key = [&](std::size_t i) { return detail::order_key(records[first + i].seconds); };
    const double pos = 0.5 * static_cast<double>(n - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    std::optional<std::uint64_t> next;
    const std::uint64_t low = select_key(n, lo, key, next);
    std::uint64_t high = low;
    if (next) {
        high = *next;
    } else if (lo + 1 < n) {
        // the next order statistic: `low` again when it occurs past position lo, else the
        // smallest key above it
        std::size_t at_most_low = 0;
        std::uint64_t above = ~std::uint64_t{0};
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t x = key(i);
            at_most_low += x <= low ? 1 : 0;
            above = std::min(above, x > low ? x : above);
        }
        high = at_most_low > lo + 1 ? low : above;
    }
    const double l = detail::from_order_key(low), h = detail::from_order_key(high);
    return l + (h - l) * (pos - static_cast<double>(lo));
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

namespace detail {

void add_record(StepStats& st, WindowValues& w, const StepSample& r) {
    if (st.total_records++ == 0) st.first_step = st.last_step = r.step;
    st.first_step = std::min(st.first_step, r.step);
    st.last_step = std::max(st.last_step, r.step);
    if (r.step < st.window.start || r.step > st.window.end) return;
    w.sum += r.seconds;  // file order, as gpu-recipes accumulates
    w.values.push_back(r.seconds);
    st.steps_used.push_back(r.step);
}

void window_figures(StepStats& st, const WindowValues& w) {
    const StepWindow& window = st.window;
    if (st.total_records == 0)
        throw InputError("the log has no step times",
                         "check the log format (--format) and that the run got past its first step");
    const std::vector<double>& values = w.values;
    if (values.empty())
        throw InputError(
            fmt::format("no step-time record in the step window {}..{}; the log has steps {}..{}", window.start,
                        window.end, st.first_step, st.last_step),
            fmt::format("choose a window inside the log, e.g. --window {}:{}", st.first_step, st.last_step));
    st.count = values.size();
    st.mean = w.sum / static_cast<double>(values.size());
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
}

std::vector<SeriesPoint> step_series(const std::vector<StepSample>& records) {
    std::vector<SeriesPoint> out;
    out.reserve(records.size());
    for (const StepSample& r : records) {
        if (!out.empty() && out.back().step == r.step)
            out.back().value = r.seconds;
        else
            out.push_back({r.step, r.seconds});
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const SeriesPoint& a, const SeriesPoint& b) { return a.step < b.step; });
    return out;
}

void warmup_figures(StepStats& st) {
    st.window_includes_warmup = std::any_of(st.warmup_steps.begin(), st.warmup_steps.end(),
                                            [&](std::int64_t s) { return s >= st.window.start && s <= st.window.end; });
}

}  // namespace detail

StepStats step_statistics(const std::vector<StepSample>& records, StepWindow window) {
    StepStats st;
    st.window = window;
    detail::WindowValues w;
    for (const auto& r : records) detail::add_record(st, w, r);
    detail::window_figures(st, w);
    st.steady_state_median = tail_median(records);
    const std::size_t steady = first_steady(records, st.steady_state_median, k_warmup_threshold);
    for (std::size_t i = 0; i < steady; ++i) st.warmup_steps.push_back(records[i].step);
    st.steady_state_from = steady < records.size() ? records[steady].step : st.first_step;
    detail::warmup_figures(st);
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

std::vector<StepSample> block_step_samples(const metrics::LogData& log, int global_batch) {
    std::vector<StepSample> out;
    const metrics::Series* times = log.find("block_time_s");
    const metrics::Series* samples = log.find("block_samples");
    if (!times || !samples || global_batch <= 0) return out;
    // The parser adds a block's samples right after its time, and only to a block it timed: the
    // two series pair up in order, a time with no samples (no samples_count) left out.
    metrics::PointReader read_times(*times);
    metrics::PointReader read_samples(*samples);
    metrics::Point n;
    bool have_n = read_samples.next(n);
    for (metrics::Point t; have_n && read_times.next(t);) {
        if (t.step != n.step) continue;
        if (n.value > 0 && std::isfinite(t.value)) out.push_back({t.step, t.value * global_batch / n.value});
        have_n = read_samples.next(n);
    }
    return out;
}

}  // namespace trainbench::analysis
