// Step statistics of a parsed step-time series read in passes (PointReader), for a series
// whose earlier points were spilled to a temporary file: memory stays bounded by the window
// and a fixed buffer, whatever the log's length. Same figures as step_statistics() of the
// series' records in memory (stats.cpp), bit for bit.
#include "analysis/stats_detail.hpp"

#include <trainbench/analysis.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace trainbench::analysis {

namespace {

// Calls f(record, index) for the series' records in step order until f returns false.
template <typename F>
void each_record(const metrics::Series& series, F&& f) {
    metrics::PointReader reader(series);
    metrics::Point p;
    for (std::size_t i = 0; reader.next(p); ++i)
        if (!f(StepSample{p.step, p.value}, i)) return;
}

// The k-th and (k+1)-th smallest (0-based) order keys of records [first, first + n).
struct OrderPair {
    std::uint64_t low = 0, high = 0;
    bool high_known = false;  // false: the (k+1)-th is past the keys selected among (another pass)
};

// The smallest and largest order key of every record (from the pass that adds them): the bits
// they share lead every key of the series, so the radix passes need not count them.
struct KeyRange {
    std::uint64_t low = ~std::uint64_t{0}, high = 0;
    void add(double seconds) {
        const std::uint64_t x = detail::order_key(seconds);
        low = std::min(low, x);
        high = std::max(high, x);
    }
};

// Radix passes, each counting the next 11 bits of the keys that share the bits found so far
// (from the start: those that every key in `range` shares), until at most k_collect keys are
// left to select among in memory; the (k+1)-th comes with the k-th when it is among them.
OrderPair select_keys_streamed(const metrics::Series& series, std::size_t first, std::size_t n, std::size_t k,
                               KeyRange range) {
    constexpr int k_bits = 11;
    constexpr std::size_t k_collect = std::size_t{1} << 16;
    // leading bits found: those the smallest and largest key share (step times of one run share
    // their sign, exponent and leading mantissa bits, which a first pass would only confirm)
    int known = range.low <= range.high ? std::countl_zero(range.low ^ range.high) : 0;
    std::uint64_t prefix = known == 0 ? 0 : range.low >> (64 - known);
    auto matches = [&](std::uint64_t x) { return known == 0 || (x >> (64 - known)) == prefix; };
    while (n > k_collect && known < 64) {
        const int width = std::min(k_bits, 64 - known);
        const int shift = 64 - known - width;
        const std::uint64_t mask = (std::uint64_t{1} << width) - 1;
        std::array<std::size_t, std::size_t{1} << k_bits> count{};
        each_record(series, [&](const StepSample& r, std::size_t i) {
            if (const std::uint64_t x = detail::order_key(r.seconds); i >= first && matches(x))
                ++count[(x >> shift) & mask];
            return true;
        });
        std::size_t bucket = 0;
        for (; k >= count[bucket]; ++bucket) k -= count[bucket];
        prefix = (prefix << width) | bucket;
        known += width;
        n = count[bucket];
    }
    if (known == 64) return {prefix, prefix, k + 1 < n};  // every key left is this one
    std::vector<std::uint64_t> keys;
    keys.reserve(n);
    each_record(series, [&](const StepSample& r, std::size_t i) {
        if (const std::uint64_t x = detail::order_key(r.seconds); i >= first && matches(x)) keys.push_back(x);
        return true;
    });
    const auto nth = keys.begin() + static_cast<std::ptrdiff_t>(k);
    std::nth_element(keys.begin(), nth, keys.end());
    if (nth + 1 == keys.end()) return {*nth, *nth, false};
    return {*nth, *std::min_element(nth + 1, keys.end()), true};
}

// The median of the second half of the records, as stats.cpp's tail_median gives it.
double tail_median_streamed(const metrics::Series& series, std::size_t total, KeyRange range) {
    const std::size_t first = total / 2, n = total - first;
    if (n == 0) return 0;
    const double pos = 0.5 * static_cast<double>(n - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    OrderPair keys = select_keys_streamed(series, first, n, lo, range);
    if (lo + 1 >= n) {
        keys.high = keys.low;
    } else if (!keys.high_known) {
        // the next order statistic: `low` again when it occurs past position lo, else the
        // smallest key above it
        const std::uint64_t low = keys.low;
        std::size_t at_most_low = 0;
        std::uint64_t above = ~std::uint64_t{0};
        each_record(series, [&](const StepSample& r, std::size_t i) {
            if (i < first) return true;
            const std::uint64_t x = detail::order_key(r.seconds);
            at_most_low += x <= low ? 1 : 0;
            above = std::min(above, x > low ? x : above);
            return true;
        });
        keys.high = at_most_low > lo + 1 ? low : above;
    }
    const double l = detail::from_order_key(keys.low), h = detail::from_order_key(keys.high);
    return l + (h - l) * (pos - static_cast<double>(lo));
}

// The warm-up steps (the leading records slower than the steady state) and the first steady
// step, as stats.cpp's first_steady gives them: one pass to find it, one to list the steps
// before it.
void warmup_streamed(const metrics::Series& series, StepStats& st) {
    if (st.total_records < 4) {
        st.steady_state_from = st.first_step;
        each_record(series, [&](const StepSample& r, std::size_t) {
            st.steady_state_from = r.step;
            return false;
        });
        return;
    }
    const double limit = st.steady_state_median * (1 + k_warmup_threshold);
    std::size_t steady = 0;
    std::int64_t steady_step = st.first_step;
    bool found = false;
    each_record(series, [&](const StepSample& r, std::size_t i) {
        if (!(r.seconds <= limit)) return true;  // (a NaN is not steady)
        steady = i;
        steady_step = r.step;
        found = true;
        return false;
    });
    if (!found) {  // (no record is: the first one counts as steady)
        steady = 0;
        each_record(series, [&](const StepSample& r, std::size_t) {
            steady_step = r.step;
            return false;
        });
    }
    st.steady_state_from = steady_step;
    if (steady == 0) return;
    st.warmup_steps.reserve(steady);
    each_record(series, [&](const StepSample& r, std::size_t i) {
        if (i >= steady) return false;
        st.warmup_steps.push_back(r.step);
        return true;
    });
}

}  // namespace

std::vector<SeriesPoint> detail::all_points(const metrics::Series& series) {
    std::vector<SeriesPoint> out;
    metrics::PointReader reader(series);
    for (metrics::Point p; reader.next(p);) out.push_back({p.step, p.value});
    return out;
}

StepStats step_statistics_streamed(const metrics::Series& series, StepWindow window) {
    StepStats st;
    st.window = window;
    detail::WindowValues w;
    KeyRange range;
    each_record(series, [&](const StepSample& r, std::size_t) {
        detail::add_record(st, w, r);
        range.add(r.seconds);
        return true;
    });
    detail::window_figures(st, w);
    st.steady_state_median = tail_median_streamed(series, st.total_records, range);
    warmup_streamed(series, st);
    detail::warmup_figures(st);
    return st;
}

}  // namespace trainbench::analysis
