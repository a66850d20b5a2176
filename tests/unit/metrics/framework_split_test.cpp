// Megatron-Bridge, TorchTitan and MLPerf logs parsed by several threads give exactly the
// sequential result: no Step Time line is cut from its iteration line (the Bridge's cuts follow
// an iteration line), the step time TorchTitan's timestamps give across a cut is added back,
// and an MLPerf part that needs the lines before it makes the file read sequentially.
#include "metrics/split.hpp"
#include "test_support.hpp"

#include <fmt/format.h>

namespace fs = std::filesystem;
using namespace trainbench::metrics;
using namespace trainbench::metrics::testing;

namespace {

std::string bridge_log(int n) {
    std::string s = "[NeMo I 2026-08-22 10:00:00 setup:312] Setting up\n";
    for (int it = 1; it <= n; ++it) {
        const double t = 2.0 + (it % 13) * 0.01;
        s += fmt::format("Step Time : {:.2f}s GPU utilization: {:.1f}MODEL_TFLOP/s/GPU\n", t, 1000.0 / t);
        if (it % 50 == 0) s += "some other rank's output\n";
        s += fmt::format(
            " [2026-08-22 10:00:05] iteration {:8d}/{:8d} | consumed samples: {:12d} | elapsed time per iteration "
            "(ms): {:.1f} | learning rate: 1.000000E-05 | global batch size:   256 | lm loss: {:.6E} | loss scale: "
            "1.0 |\n",
            it, n, it * 256, t * 1000, 9.0 - it * 1e-3);
    }
    return s;
}

// `ranks` > 1: every rank prints each step line (rank r's 7·r ms after rank 0's).
std::string titan_log(int n, int ranks = 1) {
    std::string s;
    for (int step = 1; step <= n; ++step) {
        for (int rank = 0; rank < ranks; ++rank) {
            const long ms = step * 1500L + (step % 7) * 3 + rank * 7;
            s += fmt::format(
                "[rank{}]:[titan] 2026-08-22 {:02}:{:02}:{:02},{:03} - root - INFO - \x1b[31mstep: {:2}  \x1b[32mloss: "
                "{:8.5f}  memory: 66.91GiB(37.51%)  \x1b[34mtps: 10,{:03}  \x1b[36mtflops: 314.70  \x1b[35mmfu: "
                "31.82%\x1b[39m\n",
                rank, 10 + ms / 3600000, ms / 60000 % 60, ms / 1000 % 60, ms % 1000, step, 9.0 - step * 1e-3,
                (step + rank) % 1000);
        }
        if (step % 40 == 0) s += "[rank0]:[titan] 2026-08-22 10:00:00,000 - root - INFO - Saving a checkpoint\n";
    }
    return s;
}

// `srun -l`-prefixed MLLOG blocks (samples_count in the metadata), a run start and stop, and
// with `epochs` an epoch interval around every 50 blocks (so across the cuts).
std::string mlperf_log(int blocks, bool epochs = false) {
    const auto event = [](long ms, std::string_view type, std::string_view key, std::string_view value,
                          std::string_view meta) {
        return fmt::format(
            "0: :::MLLOG {{\"namespace\": \"\", \"time_ms\": {}, \"event_type\": \"{}\", \"key\": \"{}\", "
            "\"value\": {}, \"metadata\": {{\"file\": \"callbacks.py\", \"lineno\": 7{}}}}}\n",
            ms, type, key, value, meta);
    };
    std::string s = event(1000, "POINT_IN_TIME", "global_batch_size", "32", "");
    s += event(1001, "INTERVAL_START", "run_start", "null", "");
    long t = 2000;
    for (int b = 1; b <= blocks; ++b) {
        const long samples = b * 512L;
        if (epochs && b % 50 == 1)
            s += event(t, "INTERVAL_START", "epoch_start", "null", fmt::format(", \"epoch_num\": {}", b / 50));
        s += event(t, "INTERVAL_START", "block_start", "null", fmt::format(", \"samples_count\": {}", samples - 512));
        t += 400 + b % 7;
        s += event(t, "POINT_IN_TIME", "tracked_stats",
                   fmt::format("{{\"throughput\": {}, \"train_step_time\": 0.{}}}", 30 + b % 5, 400 + b % 7),
                   fmt::format(", \"step\": {}", samples));
        s += event(t, "INTERVAL_END", "block_stop", "null", fmt::format(", \"samples_count\": {}", samples));
        s += event(t + 10, "POINT_IN_TIME", "eval_accuracy", fmt::format("{}", 3.0 - b * 1e-4),
                   fmt::format(", \"samples_count\": {}", samples));
        if (epochs && b % 50 == 0)
            s += event(t + 11, "INTERVAL_END", "epoch_stop", "null", fmt::format(", \"epoch_num\": {}", b / 50 - 1));
        t += 20;
    }
    s += event(t, "INTERVAL_END", "run_stop", "null", ", \"status\": \"success\"");
    return s;
}

using SplitFn = bool (*)(const fs::path&, std::string_view, const ParseOptions&, LogData&, const detail::SplitPolicy&);
using FileFn = void (*)(const fs::path&, std::string_view, const ParseOptions&, LogData&, const detail::SplitPolicy&);

void expect_split_equals_sequential(const std::string& text, SplitFn split, FileFn file_fn) {
    TempDir dir;
    const fs::path file = dir.path() / "train.log";
    write_all(file, text);
    LogData seq;
    ParseOptions one;
    one.threads = 1;
    file_fn(file, "log", one, seq, {});
    ASSERT_GT(seq.stats.records, 1000u);
    for (unsigned threads : {2u, 3u, 4u}) {
        for (std::uint64_t part : {std::uint64_t{4096}, std::uint64_t{50000}}) {
            LogData par;
            ParseOptions o;
            o.threads = threads;
            ASSERT_TRUE(split(file, "log", o, par, detail::SplitPolicy{part, part})) << threads << " threads";
            EXPECT_EQ(parse_fingerprint(par), parse_fingerprint(seq))
                << threads << " threads, parts of " << part << " bytes";
        }
    }
}

}  // namespace

TEST(FrameworkSplit, MegatronBridgeGivesTheSequentialResult) {
    expect_split_equals_sequential(bridge_log(3000), detail::parse_megatron_bridge_split,
                                   detail::parse_megatron_bridge_file);
}

TEST(FrameworkSplit, TorchTitanGivesTheSequentialResultStepTimesAcrossCutsIncluded) {
    expect_split_equals_sequential(titan_log(4000), detail::parse_torchtitan_split, detail::parse_torchtitan_file);
}

TEST(FrameworkSplit, TorchTitanEveryRankLoggingGivesTheSequentialResult) {
    // (cuts fall between two steps' lines, never among the ranks' copies of one)
    expect_split_equals_sequential(titan_log(2000, 4), detail::parse_torchtitan_split, detail::parse_torchtitan_file);
}

TEST(FrameworkSplit, MlperfGivesTheSequentialResultTimeToTrainIncluded) {
    expect_split_equals_sequential(mlperf_log(1500), detail::parse_mlperf_split, detail::parse_mlperf_file);
}

TEST(FrameworkSplit, MlperfEpochsAcrossTheCutsAreReadSequentially) {
    // An epoch_stop whose epoch_start is in an earlier part: no split, the sequential result.
    TempDir dir;
    const fs::path file = dir.path() / "result_0.txt";
    write_all(file, mlperf_log(1500, true));
    LogData seq, par, whole;
    ParseOptions one, two;
    one.threads = 1;
    two.threads = 2;
    detail::parse_mlperf_file(file, "log", one, seq, {});
    ASSERT_NE(seq.find("epoch_time_s"), nullptr);
    EXPECT_EQ(seq.find("epoch_time_s")->points.size(), 30u);
    EXPECT_FALSE(detail::parse_mlperf_split(file, "log", two, par, detail::SplitPolicy{4096, 4096}));
    EXPECT_TRUE(par.series.empty());
    detail::parse_mlperf_file(file, "log", two, whole, detail::SplitPolicy{4096, 4096});
    EXPECT_EQ(parse_fingerprint(whole), parse_fingerprint(seq));
}
