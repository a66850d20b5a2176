// Private to analysis: the pieces of the step statistics that the in-memory records
// (stats.cpp) and a parsed series read in passes (stats_streamed.cpp) share, so that both
// give the same figures bit for bit.
#pragma once

#include <trainbench/analysis.hpp>

#include <bit>
#include <cstdint>
#include <vector>

namespace trainbench::analysis::detail {

// A double as an unsigned key of the same order: -0.0 as 0.0, a NaN above infinity (or, with
// its sign bit set, below minus infinity).
inline constexpr std::uint64_t k_sign = std::uint64_t{1} << 63;
[[nodiscard]] inline std::uint64_t order_key(double d) {
    const auto u = std::bit_cast<std::uint64_t>(d + 0.0);  // (+ 0.0 turns -0.0 into 0.0)
    return (u & k_sign) != 0 ? ~u : u | k_sign;
}
[[nodiscard]] inline double from_order_key(std::uint64_t k) {
    return std::bit_cast<double>((k & k_sign) != 0 ? k & ~k_sign : ~k);
}

// The window's values in record order, and their sum in that order.
struct WindowValues {
    std::vector<double> values;
    double sum = 0;
};

// One record (in order) into the counts, the first and last step and the window's values.
void add_record(StepStats& st, WindowValues& w, const StepSample& r);
// The window's figures (count, mean, median, min, max, p10, p90, stddev) once every record
// was added; throws InputError when there was none, or none in the window.
void window_figures(StepStats& st, const WindowValues& w);
// window_includes_warmup, from warmup_steps.
void warmup_figures(StepStats& st);

// Series for plots: one point per step (the later record wins), in step order.
[[nodiscard]] std::vector<SeriesPoint> step_series(const std::vector<StepSample>& records);
// Every point of a parsed series (spilled ones too), in step order.
[[nodiscard]] std::vector<SeriesPoint> all_points(const metrics::Series& series);

}  // namespace trainbench::analysis::detail
