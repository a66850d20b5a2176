// Step statistics, gpu-recipes record semantics and warm-up detection.
#include "unit/analysis/test_models.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

namespace trainbench::analysis {
namespace {

using testing::k_seed_step;

// The step times of tests/golden/report/make_dllogger.sh (steps 0..49).
const std::vector<double> k_times = {
    96.40625, 41.53125, 31.0078125, 25.094, 25.123, 25.152, 25.011, 25.04,  25.076,      25.105, 25.134, 25.163, 25.022,
    25.051,   25.08,    25.116,     25.145, 25.004, 25.033, 25.062, 25.091, 25.12,       25.156, 25.015, 25.044, 25.073,
    25.102,   25.131,   25.16,      25.026, 25.055, 25.084, 25.113, 25.142, 25.001,      25.03,  25.066, 25.095, 25.124,
    25.153,   25.012,   25.041,     25.07,  25.106, 25.135, 25.164, 25.023, k_seed_step, 25.081, 25.11};

// As the fixture file: one record per step plus a second record for step 20.
std::vector<StepSample> fixture_records() {
    std::vector<StepSample> r;
    for (std::size_t i = 0; i < k_times.size(); ++i) {
        r.push_back({static_cast<std::int64_t>(i), k_times[i]});
        if (i == 20) r.push_back({20, 25.5});
    }
    return r;
}

// The figures gpu-recipes' process_training_results.py prints for the fixture
// (--batch_size 2048 --num_accelerators 256 --accelerator_type h100 --model_type gpt3-175b).
struct ToolRun {
    StepWindow window;
    double peak;
    double step, tflops, mfu;
};
const ToolRun k_tool_runs[] = {
    {{10, 30}, 1978, 25.10377273, 701.08983981, 0.35444380},  // default window, --precision fp8
    {{10, 30}, 989, 25.10377273, 701.08983981, 0.70888760},   // --precision bf16
    {{47, 47}, 1978, 25.11555099, 700.76105452, 0.35427758},  // the seed step (metrics.md G9)
    {{47, 47}, 989, 25.11555099, 700.76105452, 0.70855516},   // G10
    {{3, 49}, 1978, 25.09478231, 701.34101109, 0.35457078},
};

TEST(GpuRecipesReproduction, MatchesTheToolTo8DecimalsOnEveryWindow) {
    for (const ToolRun& run : k_tool_runs) {
        const StepStats st = step_statistics(fixture_records(), run.window);
        const Derived d = derive(st.mean, 2.2e15, 2048, 2048, 256, run.peak, 300e9);
        EXPECT_NEAR(st.mean, run.step, 5e-9) << run.window.start;
        EXPECT_NEAR(d.tflops_per_gpu, run.tflops, 5e-9) << run.window.start;
        EXPECT_NEAR(d.mfu, run.mfu, 5e-9) << run.window.start;
    }
}

TEST(GpuRecipesReproduction, DefaultWindowAveragesTwentyTwoRecordsForTwentyOneSteps) {
    const StepStats st = step_statistics(fixture_records(), {10, 30});
    EXPECT_EQ(st.count, 22U);
    EXPECT_EQ(st.steps_used.front(), 10);
    EXPECT_EQ(st.steps_used.back(), 30);
    EXPECT_EQ(std::count(st.steps_used.begin(), st.steps_used.end(), 20), 2);
}

TEST(GpuRecipesReproduction, ALogWithOnlyStep47FailsWithTheDefaultWindow) {
    // metrics.md G11: the tool raises ValueError; we raise an InputError that names the log's steps.
    const std::vector<StepSample> only47 = {{47, k_seed_step}};
    try {
        (void)step_statistics(only47, {10, 30});
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("10..30"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("47..47"), std::string::npos);
        EXPECT_NE(e.hint().find("--window 47:47"), std::string::npos);
    }
}

TEST(GpuRecipesReproduction, PeakOf1979ChangesMfuInTheFourthDigit) {
    const Derived d = derive(k_seed_step, 2.2e15, 2048, 2048, 256, 1979, 300e9);
    EXPECT_NEAR(d.mfu, 0.35409856, 5e-9);
}

TEST(SeedStep, GivesTheConventionFreeThroughput) {
    const Derived d = derive(k_seed_step, 2.2e15, 2048, 2048, 256, 1978, 300e9);
    EXPECT_DOUBLE_EQ(d.tokens_per_step, 4194304.0);
    EXPECT_NEAR(d.tokens_per_s, 167000.28, 0.005);
    EXPECT_NEAR(d.tokens_per_s_per_gpu, 652.34, 0.005);
    EXPECT_NEAR(d.samples_per_s, 81.543, 0.0005);
    EXPECT_DOUBLE_EQ(d.flops_per_step, 4.5056e18);
    EXPECT_NEAR(d.flops_per_step / k_seed_step, 1.793948e17, 0.0000005e17);
    EXPECT_NEAR(d.tflops_per_gpu, 700.76105452, 5e-9);
}

TEST(DaysToTrain, ReproducesNarayanan2021TimeToTrainEstimate) {
    // 8*T*P/(n*X): GPT-3 175B, 300B tokens, 1024 GPUs at 140 TFLOP/s -> 33.9 days.
    // With 8*P FLOPs per token and a step time giving 140 TFLOPS per GPU:
    const double per_sample = 8 * 175e9 * 2048;
    const double step = per_sample * 1536 / (1024 * 140e12);
    const Derived d = derive(step, per_sample, 1536, 2048, 1024, 312, 300e9);
    EXPECT_NEAR(d.tflops_per_gpu, 140, 1e-9);
    EXPECT_NEAR(d.days_to_train, 33.9, 0.05);
}

TEST(StepStatistics, UsesAnInclusiveWindowAndInterpolatedPercentiles) {
    std::vector<StepSample> r;
    for (int s = 0; s < 10; ++s) r.push_back({s, static_cast<double>(s + 1)});  // 1..10
    const StepStats st = step_statistics(r, {2, 6});                            // 3,4,5,6,7
    EXPECT_EQ(st.count, 5U);
    EXPECT_DOUBLE_EQ(st.mean, 5);
    EXPECT_DOUBLE_EQ(st.median, 5);
    EXPECT_DOUBLE_EQ(st.min, 3);
    EXPECT_DOUBLE_EQ(st.max, 7);
    EXPECT_DOUBLE_EQ(st.p10, 3.4);
    EXPECT_DOUBLE_EQ(st.p90, 6.6);
    EXPECT_DOUBLE_EQ(st.stddev, std::sqrt(2.5));
    EXPECT_EQ(st.steps_used, (std::vector<std::int64_t>{2, 3, 4, 5, 6}));
    EXPECT_EQ(st.first_step, 0);
    EXPECT_EQ(st.last_step, 9);
    const StepStats one = step_statistics(r, {4, 4});
    EXPECT_EQ(one.count, 1U);
    EXPECT_DOUBLE_EQ(one.stddev, 0);
    EXPECT_DOUBLE_EQ(one.p10, 5);
}

TEST(StepStatistics, DetectsWarmUpAndFlagsAWindowThatIncludesIt) {
    const StepStats st = step_statistics(fixture_records(), {0, 30});
    EXPECT_EQ(st.warmup_steps, (std::vector<std::int64_t>{0, 1, 2}));
    EXPECT_EQ(st.steady_state_from, 3);
    EXPECT_TRUE(st.window_includes_warmup);
    EXPECT_FALSE(step_statistics(fixture_records(), {10, 30}).window_includes_warmup);
    EXPECT_EQ(detect_warmup({{0, 5}, {1, 5}, {2, 5}, {3, 5}}), 0U);
}

// The steady-state median is the interpolated median of the second half of the records, as
// sorting that half gives it: for ties, negatives, infinities, a lone value, and values that
// share all but their lowest bits (step times of one run).
TEST(StepStatistics, SteadyStateMedianIsTheSortedSecondHalfsMedian) {
    auto sorted_median = [](const std::vector<StepSample>& r) {
        std::vector<double> tail;
        for (std::size_t i = r.size() / 2; i < r.size(); ++i) tail.push_back(r[i].seconds);
        std::sort(tail.begin(), tail.end());
        const double pos = 0.5 * static_cast<double>(tail.size() - 1);
        const auto lo = static_cast<std::size_t>(std::floor(pos));
        const std::size_t hi = std::min(lo + 1, tail.size() - 1);
        return tail[lo] + (tail[hi] - tail[lo]) * (pos - static_cast<double>(lo));
    };
    std::mt19937_64 rng(17);
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<std::vector<double>> pools = {{1, 2, 3},
                                                    {5, 5, 5, 5, 7},
                                                    {-3.5, -1, 0, 2.25, 1e300, -1e-300},
                                                    {inf, -inf, 1, -1, 0},
                                                    {15.1, 15.2},
                                                    {0.5},
                                                    {1e-310, 2e-310, 3e-310},
                                                    {-0.0, 0.0, 1}};
    for (const auto& pool : pools) {
        for (std::size_t n : {1U, 2U, 3U, 4U, 7U, 10U, 33U, 200U}) {
            std::vector<StepSample> r;
            for (std::size_t i = 0; i < n; ++i) r.push_back({static_cast<std::int64_t>(i), pool[rng() % pool.size()]});
            const double got = step_statistics(r, {0, static_cast<std::int64_t>(n)}).steady_state_median;
            const double want = sorted_median(r);  // (NaN where infinities of both signs meet)
            EXPECT_TRUE(got == want || (std::isnan(got) && std::isnan(want)))
                << got << " != " << want << ": pool of " << pool.size() << ", n " << n;
        }
    }
    // many values within a few ULPs of each other, and many spread out
    for (double spread : {0.0, 1e-13, 0.05, 1e6}) {
        std::normal_distribution<double> normal(15.2, spread > 0 ? spread : 1);
        for (std::size_t n : {1000U, 4097U, 100001U}) {
            std::vector<StepSample> r;
            for (std::size_t i = 0; i < n; ++i)
                r.push_back({static_cast<std::int64_t>(i), spread > 0 ? normal(rng) : 15.2});
            EXPECT_EQ(step_statistics(r, {0, static_cast<std::int64_t>(n)}).steady_state_median, sorted_median(r))
                << "spread " << spread << ", n " << n;
        }
    }
}

TEST(StepStatistics, NoStepTimesAtAllIsAClearError) {
    EXPECT_THROW((void)step_statistics({}, {10, 30}), InputError);
}

TEST(StepWindow, ParsesStartColonEnd) {
    const StepWindow w = parse_window("10:30");
    EXPECT_EQ(w.start, 10);
    EXPECT_EQ(w.end, 30);
    EXPECT_THROW((void)parse_window("30:10"), UsageError);
    EXPECT_THROW((void)parse_window("10-30"), UsageError);
    EXPECT_THROW((void)parse_window("a:3"), UsageError);
}

TEST(StepWindow, DgxcIsANamedWindowOfIterations35To44) {
    const StepWindow w = parse_window("dgxc");
    EXPECT_EQ(w.start, 35);
    EXPECT_EQ(w.end, 44);
    EXPECT_EQ(w.name, "dgxc");
    EXPECT_EQ(parse_window("35:44").name, "");
    try {
        (void)parse_window("dgx");
        FAIL() << "expected UsageError";
    } catch (const UsageError& e) {
        EXPECT_NE(e.hint().find("dgxc"), std::string::npos) << e.hint();
    }
}

TEST(StepSamples, TakeReleasesTheSeries) {
    metrics::LogData log;
    log.add_point("step_time_s", "train_step_timing in s", {2, 1.5});
    log.add_point("step_time_s", "train_step_timing in s", {1, 2.5});
    const auto r = take_step_samples(log);
    ASSERT_EQ(r.size(), 2U);
    EXPECT_EQ(r[0].step, 1);
    EXPECT_DOUBLE_EQ(r[1].seconds, 1.5);
    EXPECT_EQ(log.find("step_time_s"), nullptr);
}

}  // namespace
}  // namespace trainbench::analysis

namespace trainbench::analysis {

// MLPerf blocks: each block's time over its samples / the global batch, paired in order; a
// block timed without a samples count (its step is another index) is left out.
TEST(BlockStepSamples, EachBlockIsItsMeanStepTime) {
    metrics::LogData log;
    log.format = "mlperf";
    log.series["block_time_s"].points = {{12288, 400.0, 0}, {7, 50.0, 0}, {24576, 384.0, 0}};
    log.series["block_samples"].points = {{12288, 12288, 0}, {24576, 12288, 0}};
    const std::vector<StepSample> r = block_step_samples(log, 32);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].step, 12288);
    EXPECT_DOUBLE_EQ(r[0].seconds, 400.0 * 32 / 12288);
    EXPECT_EQ(r[1].step, 24576);
    EXPECT_DOUBLE_EQ(r[1].seconds, 1.0);
    EXPECT_TRUE(block_step_samples(log, 0).empty());
    log.series.erase("block_samples");
    EXPECT_TRUE(block_step_samples(log, 32).empty());
}

}  // namespace trainbench::analysis
