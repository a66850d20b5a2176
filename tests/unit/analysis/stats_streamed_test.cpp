// The step statistics of a spilled step-time series, read in passes (stats_streamed.cpp), are
// the in-memory statistics of the same records, bit for bit: the window figures, the
// steady-state median (radix passes over more than 65,536 records too) and the warm-up.
#include <trainbench/analysis.hpp>
#include <trainbench/metrics.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <unistd.h>

namespace fs = std::filesystem;

namespace trainbench::analysis {
namespace {

// A Megatron log of these step times (milliseconds, written to round-trip), parsed with its
// points spilled past 100 per series.
metrics::LogData spilled_log(const std::vector<double>& ms) {
    const fs::path file = fs::temp_directory_path() / fmt::format("tb-stats-streamed-{}.log", ::getpid());
    {
        std::ofstream out(file);
        for (std::size_t i = 0; i < ms.size(); ++i)
            out << fmt::format(" iteration {}/{} | elapsed time per iteration (ms): {} |\n", i + 1, ms.size(), ms[i]);
    }
    metrics::ParseOptions po;
    po.format = "megatron";
    po.spill_after = 100;
    po.threads = 1;
    metrics::LogData log = metrics::parse_logs({file}, po);
    fs::remove(file);
    return log;
}

bool same(double a, double b) {
    return a == b || (std::isnan(a) && std::isnan(b));
}

void expect_same_statistics(const metrics::Series& series, const std::vector<StepSample>& records, StepWindow window,
                            const std::string& w_what) {
    const std::string what = fmt::format("{}, window {}:{}", w_what, window.start, window.end);
    const StepStats want = step_statistics(records, window);
    const StepStats got = step_statistics_streamed(series, window);
    EXPECT_EQ(got.count, want.count) << what;
    EXPECT_EQ(got.total_records, want.total_records) << what;
    EXPECT_EQ(got.first_step, want.first_step) << what;
    EXPECT_EQ(got.last_step, want.last_step) << what;
    EXPECT_EQ(got.steps_used, want.steps_used) << what;
    for (auto [g, w, name] : {std::tuple{got.mean, want.mean, "mean"}, std::tuple{got.median, want.median, "median"},
                              std::tuple{got.min, want.min, "min"}, std::tuple{got.max, want.max, "max"},
                              std::tuple{got.p10, want.p10, "p10"}, std::tuple{got.p90, want.p90, "p90"},
                              std::tuple{got.stddev, want.stddev, "stddev"},
                              std::tuple{got.steady_state_median, want.steady_state_median, "steady_state_median"}})
        EXPECT_TRUE(same(g, w)) << what << ": " << name << " " << g << " != " << w;
    EXPECT_EQ(got.warmup_steps, want.warmup_steps) << what;
    EXPECT_EQ(got.steady_state_from, want.steady_state_from) << what;
    EXPECT_EQ(got.window_includes_warmup, want.window_includes_warmup) << what;
}

void expect_same_statistics(const std::vector<double>& ms, const std::vector<StepWindow>& windows,
                            const std::string& what) {
    const metrics::LogData log = spilled_log(ms);
    const metrics::Series* series = log.find(metrics::names::step_time_s);
    ASSERT_NE(series, nullptr) << what;
    ASSERT_TRUE(series->spill) << what;
    std::vector<StepSample> records;
    metrics::PointReader reader(*series);
    for (metrics::Point p; reader.next(p);) records.push_back({p.step, p.value});
    ASSERT_EQ(records.size(), ms.size()) << what;
    for (const StepWindow& window : windows) expect_same_statistics(*series, records, window, what);
}

TEST(StepStatisticsStreamed, SameAsInMemoryForSmallLogs) {
    std::mt19937_64 rng(7);
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<std::vector<double>> pools = {{5000},          {5000, 5001, 5002}, {-0.0, 0.0, 1},
                                                    {inf, 5000, -1}, {nan, 5000, 4000},  {1e-300, 3e-300, 2e-300}};
    for (std::size_t p = 0; p < pools.size(); ++p)
        for (std::size_t n : {1U, 2U, 3U, 4U, 5U, 40U, 333U}) {
            std::vector<double> ms;
            for (std::size_t i = 0; i < n; ++i) ms.push_back(pools[p][rng() % pools[p].size()]);
            expect_same_statistics(ms, {{1, static_cast<std::int64_t>(n)}, {1, 1}}, fmt::format("pool {}, n {}", p, n));
        }
}

TEST(StepStatisticsStreamed, NotANumberIsNeverTheSteadyState) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    expect_same_statistics({nan, 9000, 5000, 5000, 5000, nan, 5000, 5000}, {{1, 8}}, "NaN first");
}

TEST(StepStatisticsStreamed, SameAsInMemoryWithWarmUpAndRadixPasses) {
    // the median's order statistic the first one past a bucket: 34,999 records of 5 s and
    // 35,001 of 6 s in the second half (70,000 records)
    std::vector<double> two(70'000, 5000);
    for (std::size_t i = 0; i < 70'000; ++i) two.push_back(i % 2 == 0 || i >= 69'998 ? 6000 : 5000);
    std::mt19937_64 shuffle(3);
    std::shuffle(two.begin() + 70'000, two.end(), shuffle);
    expect_same_statistics(two, {{10, 30}}, "two values");
    std::mt19937_64 rng(11);
    // (more than 2 x 65,536 records: the second half is selected in radix passes)
    for (double spread : {0.0, 1e-9, 3.0}) {
        std::normal_distribution<double> normal(5400, spread > 0 ? spread : 1);
        std::vector<double> ms;
        for (std::size_t i = 0; i < 140'000; ++i)
            ms.push_back(i < 6 ? 30000.0 - 1000.0 * static_cast<double>(i) : spread > 0 ? normal(rng) : 5400);
        expect_same_statistics(ms, {{10, 30}, {1, 140'000}}, fmt::format("spread {}", spread));
    }
}

}  // namespace
}  // namespace trainbench::analysis
