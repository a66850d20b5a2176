// The 2026 framework log formats: Megatron-Bridge, TorchTitan and MLPerf :::MLLOG. Fixtures are
// real excerpts where public ones exist (tests/data/logs/real/README.md says where from) and
// lines written from each writer's own format string (fuzz/corpus/<format>/variants.txt).
#include "metrics/common.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace fs = std::filesystem;
using namespace trainbench::metrics;
using namespace trainbench::metrics::testing;

namespace {

std::string corpus_file(const std::string& format, const std::string& name) {
    return read_all(fs::path(TRAINBENCH_SOURCE_DIR) / "fuzz" / "corpus" / format / name);
}

std::string real_log(const std::string& name) {
    return read_all(fs::path(TRAINBENCH_SOURCE_DIR) / "tests" / "data" / "logs" / "real" / name);
}

std::string detect_from_content_for_test(const std::string& text) {
    return trainbench::metrics::detail::detect_from_content("job.log", text).value_or("");
}

}  // namespace

// ---------------------------------------------------------------- Megatron-Bridge
TEST(MegatronBridge, StepTimeLineBelongsToTheNextIterationLine) {
    LogData d = parse_text("megatron-bridge", corpus_file("megatron-bridge", "variants.txt"));
    EXPECT_EQ(steps(d, "step_time_s"), (std::vector<std::int64_t>{1, 2, 3}));
    EXPECT_DOUBLE_EQ(at(d, "step_time_s", 1), 5.3901);
    EXPECT_DOUBLE_EQ(at(d, "step_time_s", 2), 2.2604);
    EXPECT_DOUBLE_EQ(at(d, "step_time_s", 3), 0.5002);
    // The Bridge's own MODEL_TFLOP/s/GPU; the two Step Time lines with no iteration line after
    // them take the steps after the last one.
    EXPECT_EQ(values(d, "tflops_per_gpu"), (std::vector<double>{2347.0, 1156.2, 257.1, 1160.0, 1161.5}));
    EXPECT_EQ(steps(d, "tflops_per_gpu"), (std::vector<std::int64_t>{1, 2, 3, 4, 5}));
    EXPECT_EQ(values(d, "Step Time (s)"), (std::vector<double>{5.39, 2.26, 0.50, 2.25, 2.24}));
    EXPECT_DOUBLE_EQ(at(d, "throughput per GPU (TFLOP/s/GPU)", 1), 2347.0);
    EXPECT_DOUBLE_EQ(at(d, "tokens_per_s_per_gpu", 3), 32680.36);
    EXPECT_DOUBLE_EQ(at(d, "loss", 2), 11.5);
    EXPECT_DOUBLE_EQ(at(d, "energy per GPU (J/iter/GPU)", 2), 1582.3);
    EXPECT_DOUBLE_EQ(at(d, "global_batch_size", 1), 256);
    EXPECT_EQ(d.stats.records, 8u);
    EXPECT_EQ(d.stats.skipped, 1u);  // the NeMo setup line
}

TEST(MegatronBridge, RealExcerptFromCloudaiTests) {
    LogData d = parse_text("megatron-bridge", real_log("megatron_bridge_cloudai_excerpt.log"));
    EXPECT_DOUBLE_EQ(at(d, "step_time_s", 50), 9.089);
    EXPECT_DOUBLE_EQ(at(d, "tflops_per_gpu", 50), 663.5);
    EXPECT_DOUBLE_EQ(at(d, "Step Time (s)", 50), 9.09);
    EXPECT_DOUBLE_EQ(at(d, "loss", 50), 8.114214);
    EXPECT_DOUBLE_EQ(at(d, "load_balancing_loss", 50), 1.0);
    EXPECT_EQ(detect_from_content_for_test(real_log("megatron_bridge_cloudai_excerpt.log")), "megatron-bridge");
}

TEST(MegatronBridge, RankZeroLogAloneTakesItsStepTimeFromStepTimeLines) {
    LogData d = parse_text("megatron-bridge",
                           "Step Time : 3.00s GPU utilization: 500.0MODEL_TFLOP/s/GPU\n"
                           "Step Time : 2.50s GPU utilization: 600.0MODEL_TFLOP/s/GPU\n");
    EXPECT_EQ(steps(d, "step_time_s"), (std::vector<std::int64_t>{1, 2}));
    EXPECT_EQ(values(d, "step_time_s"), (std::vector<double>{3.0, 2.5}));
    EXPECT_EQ(values(d, "tflops_per_gpu"), (std::vector<double>{500.0, 600.0}));
}

TEST(MegatronBridge, IterationLinesWithoutStepTimeKeepTheirThroughputAsTflops) {
    LogData d = parse_text("megatron-bridge",
                           " [2026-08-22 10:00:05] iteration        4/      50 | elapsed time per iteration (ms): "
                           "1000.0 | throughput per GPU (TFLOP/s/GPU): 700.5 | lm loss: 2.0E+00 |\n");
    EXPECT_DOUBLE_EQ(at(d, "tflops_per_gpu", 4), 700.5);
    EXPECT_DOUBLE_EQ(at(d, "step_time_s", 4), 1.0);
}

TEST(MegatronBridge, AHalfWrittenStepTimeLineIsNotCounted) {
    LogData d =
        parse_text("megatron-bridge", "Step Time : 3.00s GPU utilization: 500.0MODEL_TFLOP/s/GPU\nStep Time : 2.");
    EXPECT_TRUE(d.stats.truncated_tail);
    EXPECT_EQ(values(d, "step_time_s"), (std::vector<double>{3.0}));
}

// ---------------------------------------------------------------- TorchTitan
TEST(TorchTitan, ColouredStepLinesOfEveryVersion) {
    LogData d = parse_text("torchtitan", corpus_file("torchtitan", "variants.txt"));
    EXPECT_DOUBLE_EQ(at(d, "loss", 1), 12.25);
    EXPECT_DOUBLE_EQ(at(d, "grad_norm", 1), 3.1416);
    EXPECT_DOUBLE_EQ(at(d, "memory_max_reserved_gib", 1), 45.67);
    EXPECT_DOUBLE_EQ(at(d, "memory_max_reserved_pct", 1), 57.72);
    EXPECT_DOUBLE_EQ(at(d, "tokens_per_s_per_gpu", 1), 1234);
    EXPECT_DOUBLE_EQ(at(d, "tflops_per_gpu", 1), 56.78);
    EXPECT_DOUBLE_EQ(at(d, "mfu_pct", 1), 5.74);
    // b5bcd76c with quantization: "mfu: N/A" -> no point, the parameter says so
    EXPECT_TRUE(std::isnan(at(d, "mfu_pct", 10)));
    EXPECT_DOUBLE_EQ(at(d, "tflops_per_gpu", 10), 414.25);
    ASSERT_TRUE(d.parameters.count("mfu"));
    EXPECT_EQ(d.parameters.at("mfu"), "\"N/A\"");
    // older releases: no grad_norm, "wps", thousands separators in tflops
    EXPECT_DOUBLE_EQ(at(d, "tokens_per_s_per_gpu", 11), 3471);
    EXPECT_DOUBLE_EQ(at(d, "tflops_per_gpu", 11), 1414.25);
    EXPECT_DOUBLE_EQ(at(d, "validate/loss", 11), 2.5);
    EXPECT_DOUBLE_EQ(at(d, "validate/tps", 11), 12345);
    EXPECT_DOUBLE_EQ(at(d, "loss", 11), 9.7);  // the validation loss does not replace it
    // step time from the logger's timestamps: 1.5 s for step 2, 12 s over steps 3..10
    EXPECT_EQ(steps(d, "step_time_s"), (std::vector<std::int64_t>{2, 10, 11}));
    EXPECT_DOUBLE_EQ(at(d, "step_time_s", 2), 1.5);
    EXPECT_DOUBLE_EQ(at(d, "step_time_s", 10), 1.5);
    EXPECT_DOUBLE_EQ(at(d, "step_time_s", 11), 0.5);
    EXPECT_DOUBLE_EQ(at(d, "loss", 12), 9.6);  // a line with no timestamp: values, no step time
    EXPECT_EQ(d.stats.records, 6u);
    EXPECT_EQ(d.stats.skipped, 1u);
}

TEST(TorchTitan, RealLogFromTorchtitanPullRequest3393) {
    const std::string log = real_log("torchtitan_pr3393_steps.log");
    LogData d = parse_text("torchtitan", log);
    EXPECT_EQ(steps(d, "loss").front(), 14);
    EXPECT_EQ(steps(d, "loss").back(), 21);
    EXPECT_DOUBLE_EQ(at(d, "loss", 15), 3.10680);
    EXPECT_DOUBLE_EQ(at(d, "tokens_per_s_per_gpu", 15), 7334);
    EXPECT_DOUBLE_EQ(at(d, "tflops_per_gpu", 15), 0.53);
    EXPECT_DOUBLE_EQ(at(d, "mfu_pct", 21), 0.17);
    // (millisecond timestamps near 1.7e9 s: a double holds them to about 1e-7 s)
    EXPECT_NEAR(at(d, "step_time_s", 15), 1.118, 1e-6);
    EXPECT_NEAR(at(d, "step_time_s", 21), 1.122, 1e-6);
    EXPECT_EQ(d.stats.records, 8u);
    EXPECT_EQ(detect_from_content_for_test(log), "torchtitan");
}

// Every rank logging (torchrun --tee with LOG_RANK=0,1, or trainbench's launch with no rank
// filter): each step line comes once per rank, and each rank prints its own memory, tps, tflops
// and mfu. The first line of a step is read (rank 0's here), the other ranks' copies skipped.
TEST(TorchTitan, EachStepOnceWhenEveryRankLogs) {
    const std::string log =
        "[rank0]:[titan] 2026-08-22 10:00:00,000 - root - INFO - Training starts at step 1\n"
        "[rank1]:[titan] 2026-08-22 10:00:00,004 - root - INFO - Training starts at step 1\n"
        "[rank0]:[titan] 2026-08-22 10:00:10,000 - root - INFO - step:  1  loss: 12.00000  grad_norm: 2.0000  "
        "memory: 40.00GiB(50.00%)  tps: 1,000  tflops: 100.00  mfu: 10.00%\n"
        "[rank1]:[titan] 2026-08-22 10:00:10,250 - root - INFO - step:  1  loss: 12.00000  grad_norm: 2.0000  "
        "memory: 41.00GiB(51.00%)  tps: 1,100  tflops: 110.00  mfu: 11.00%\n"
        "[rank0]:[titan] 2026-08-22 10:00:12,000 - root - INFO - step:  2  loss: 11.00000  grad_norm: 1.5000  "
        "memory: 40.00GiB(50.00%)  tps: 2,000  tflops: 200.00  mfu: 20.00%\n"
        "[rank1]:[titan] 2026-08-22 10:00:12,500 - root - INFO - step:  2  loss: 11.00000  grad_norm: 1.5000  "
        "memory: 41.00GiB(51.00%)  tps: 2,100  tflops: 210.00  mfu: 21.00%\n"
        "[rank1]:[titan] 2026-08-22 10:00:15,100 - root - INFO - validate step:  2  loss:  9.5000  "
        "memory: 41.00GiB(51.00%)  tps: 9,100\n"
        "[rank0]:[titan] 2026-08-22 10:00:15,000 - root - INFO - validate step:  2  loss:  9.0000  "
        "memory: 40.00GiB(50.00%)  tps: 9,000\n"
        "[rank1]:[titan] 2026-08-22 10:00:16,000 - root - INFO - step:  3  loss: 10.00000  grad_norm: 1.0000  "
        "memory: 41.00GiB(51.00%)  tps: 3,100  tflops: 310.00  mfu: 31.00%\n"
        "[rank0]:[titan] 2026-08-22 10:00:16,300 - root - INFO - step:  3  loss: 10.00000  grad_norm: 1.0000  "
        "memory: 40.00GiB(50.00%)  tps: 3,000  tflops: 300.00  mfu: 30.00%\n";
    LogData d = parse_text("torchtitan", log);
    EXPECT_EQ(d.stats.records, 4u);  // steps 1, 2, 3 and the validation of step 2
    EXPECT_EQ(d.stats.skipped, 2u + 4u);
    EXPECT_EQ(values(d, "tflops_per_gpu"), (std::vector<double>{100, 200, 310}));  // the first line of each step
    EXPECT_EQ(values(d, "mfu_pct"), (std::vector<double>{10, 20, 31}));
    EXPECT_EQ(values(d, "tokens_per_s_per_gpu"), (std::vector<double>{1000, 2000, 3100}));
    EXPECT_DOUBLE_EQ(at(d, "validate/loss", 2), 9.5);
    // the step time between the first lines of two steps
    EXPECT_EQ(values(d, "step_time_s"), (std::vector<double>{2.0, 4.0}));
    // a run restarted from step 1's checkpoint logs step 2 again: a later line, not a copy
    LogData restarted = parse_text(
        "torchtitan", log +
                          "[rank0]:[titan] 2026-08-22 10:05:00,000 - root - INFO - step:  2  loss: 10.90000  "
                          "memory: 40.00GiB(50.00%)  tps: 2,500  tflops: 250.00  mfu: 25.00%\n");
    EXPECT_DOUBLE_EQ(at(restarted, "tflops_per_gpu", 2), 250.0);
}

// A report keeps a few series (--tags): the values it leaves out are not converted, but the
// lines, records and the kept series are what a parse of everything gives.
TEST(TorchTitan, TagsLeaveOutValuesWithoutChangingWhatIsKept) {
    const std::string log = corpus_file("torchtitan", "variants.txt") +
                            "[titan] 2026-08-22 10:09:00,000 - root - INFO - step: 40  loss: 1.5  tps: 1,234abc: 7\n"
                            "[titan] 2026-08-22 10:09:02,000 - root - INFO - step: 41  grad_norm: 2e-3\n";
    const LogData all = parse_text("torchtitan", log);
    ParseOptions o;
    o.tags = {"tflops_per_gpu", "mfu_pct", "step_time_s", "abc"};
    const LogData some = parse_text("torchtitan", log, o);
    EXPECT_EQ(some.stats.records, all.stats.records);
    EXPECT_EQ(some.stats.skipped, all.stats.skipped);
    for (const char* name : {"tflops_per_gpu", "mfu_pct", "step_time_s", "abc"}) {
        ASSERT_NE(some.find(name), nullptr) << name;
        EXPECT_EQ(values(some, name), values(all, name)) << name;
        EXPECT_EQ(steps(some, name), steps(all, name)) << name;
    }
    EXPECT_EQ(some.series.size(), 4u);
    EXPECT_EQ(some.parameters, all.parameters);
}

TEST(TorchTitan, OtherStepKeysAreNotStepLines) {
    LogData d = parse_text("torchtitan", "global_step: 5  loss: 1.0\nINFO - Saving checkpoint at step: \n");
    EXPECT_TRUE(d.series.empty());
    EXPECT_EQ(d.stats.skipped, 2u);
}

// ---------------------------------------------------------------- MLPerf
TEST(Mlperf, RealResultLogGivesTimeToTrainAndStatus) {
    const std::string log = real_log("mlperf_v5.1_amd_mi355x_llama31_8b_result_0_excerpt.txt");
    LogData d = parse_text("mlperf", log);
    // run_stop 1759971964686 - run_start 1759966206549 = 5758137 ms; the log's own run_stop
    // metadata says "5758.136603832245 sec -> 95.96894339720409 minutes"
    ASSERT_TRUE(d.summary.count("time_to_train_min"));
    EXPECT_NEAR(d.summary.at("time_to_train_min"), 95.96894339720409, 1e-4);
    EXPECT_DOUBLE_EQ(d.summary.at("run_start_ms"), 1759966206549);
    EXPECT_EQ(d.parameter_text("status"), "success");
    EXPECT_EQ(d.parameter_number("global_batch_size"), 32);
    EXPECT_EQ(d.parameter_text("submission_benchmark"), "llama31_8b");
    EXPECT_DOUBLE_EQ(at(d, "throughput", 12288), 30.15030683672662);
    EXPECT_EQ(d.series.count("throughput"), 1u);  // samples/s here: no TFLOPS series
    EXPECT_EQ(d.series.count("tflops_per_gpu"), 0u);
    EXPECT_DOUBLE_EQ(at(d, "block_time_s", 12288), (1759966614209.0 - 1759966206549.0) / 1000);
    // the samples between each block's start and stop, beside its time (the report's step time)
    EXPECT_DOUBLE_EQ(at(d, "block_samples", 12288), 12288);
    EXPECT_DOUBLE_EQ(at(d, "block_samples", 172032), 172032 - 159744);
    EXPECT_EQ(d.series.at("block_samples").points.size(), 3u);
    EXPECT_DOUBLE_EQ(at(d, "eval_accuracy", 12256), 5.595030307769775);
    EXPECT_DOUBLE_EQ(at(d, "epoch_time_s", 172032), (1759971964685.0 - 1759966206549.0) / 1000);
    EXPECT_EQ(d.stats.corrupt, 0u);
    EXPECT_EQ(d.stats.records, 38u);
    EXPECT_EQ(detect_from_content_for_test(log), "mlperf");
}

TEST(Mlperf, PrefixedInterleavedLinesAndAnAbortedRun) {
    LogData d = parse_text("mlperf", corpus_file("mlperf", "variants.txt"));
    EXPECT_DOUBLE_EQ(d.summary.at("time_to_train_min"), 4.0);
    EXPECT_EQ(d.parameter_text("status"), "aborted");
    EXPECT_EQ(d.parameter_number("global_batch_size"), 1152);
    EXPECT_DOUBLE_EQ(at(d, "step_time_s", 46080), 10.5);
    EXPECT_EQ(d.series.count("step_time_s"), 1u);
    EXPECT_DOUBLE_EQ(at(d, "throughput", 46080), 1.9257918929116467);
    EXPECT_DOUBLE_EQ(at(d, "loss", 46080), 7.25);
    EXPECT_DOUBLE_EQ(at(d, "block_time_s", 46080), 120.0);
    EXPECT_DOUBLE_EQ(at(d, "epoch_time_s", 1), 60.0);
    EXPECT_DOUBLE_EQ(at(d, "throughput", 92160), 2.5);
    EXPECT_DOUBLE_EQ(at(d, "eval_accuracy", 92160), 5.58);
    EXPECT_EQ(d.stats.skipped, 2u);  // the srun echo and the other rank's line
}

TEST(Mlperf, BadRecordsAreCountedAndParametersAreBounded) {
    std::string log =
        ":::MLLOG {\"key\": \"run_start\", \"time_ms\": 1000, \"value\": null}\n"
        ":::MLLOG {\"key\": \"run_stop\", \"time_ms\": 61000, \"value\": nul}\n"
        ":::MLLOG no json here\n";
    for (int i = 0; i < 3000; ++i)
        log += ":::MLLOG {\"key\": \"k" + std::to_string(i) + "\", \"time_ms\": 2000, \"value\": 1}\n";
    LogData d = parse_text("mlperf", log);
    EXPECT_EQ(d.stats.corrupt, 2u);
    EXPECT_FALSE(d.summary.count("time_to_train_min"));  // the run_stop record was invalid
    EXPECT_LE(d.parameters.size(), 1024u);
    EXPECT_GE(d.parameters.size(), 1000u);
}

TEST(NewFormats, ListedAndDetected) {
    std::vector<std::string> names;
    for (const FormatInfo& f : formats()) names.push_back(f.name);
    for (const char* n : {"megatron-bridge", "torchtitan", "mlperf"})
        EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
    // A Megatron-LM log stays Megatron: only the Bridge prints "Step Time :".
    EXPECT_EQ(detect_from_content_for_test(corpus_file("megatron", "variants.txt")), "megatron");
    EXPECT_EQ(detect_from_content_for_test(corpus_file("megatron-bridge", "variants.txt")), "megatron-bridge");
    EXPECT_EQ(detect_from_content_for_test(corpus_file("torchtitan", "variants.txt")), "torchtitan");
    EXPECT_EQ(detect_from_content_for_test(corpus_file("mlperf", "variants.txt")), "mlperf");
}

// ---------------------------------------------------------------- TorchTitan, read in place
// A coloured step line is read with its escape sequences in place; what it gives must be what
// the same line gives without them (strip_ansi), wherever the escapes fall: inside keys,
// numbers, "validate step:", the timestamp, runs of them, unfinished ones.
namespace {

std::string random_titan_log(std::mt19937& rng, std::vector<std::string>& clean) {
    const std::vector<std::string> escapes = {"\x1b[31m",
                                              "\x1b[38;2;180;60;0m",
                                              "\x1b[38:2:54:234:195m",
                                              "\x1b[39m",
                                              "\x1b(",
                                              "\x1b",
                                              "\x1b[",
                                              "\x1b[0",
                                              "\x1b[[m",
                                              "\x1b[1;"};
    const std::vector<std::string> odd = {"N/A", "-1.5", ".5", "+2", "1e5",  "1e",        "1e-",
                                          "1,",  "1,,2", "-",  "+.", "3E+2", "1,234,567", "12.5.6"};
    auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
    auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
    auto number = [&]() -> std::string {
        if (chance(0.2)) return odd[pick(odd.size())];
        return fmt::format("{:.{}f}", std::uniform_real_distribution<double>(0, 500)(rng), pick(6));
    };
    std::string log;
    std::int64_t step = 1;
    for (int i = 0; i < 3000; ++i) {
        if (chance(0.8)) ++step;
        std::string line = fmt::format("[rank{}]:[titan] 2026-08-01 00:{:02}:{:02},{:03} - root - INFO - ", pick(2),
                                       pick(60), pick(60), pick(1000));
        if (chance(0.1)) line += "validate ";
        line += fmt::format("{}step: {:2}", escapes[pick(2)], step);
        std::vector<std::string> keys = {"loss", "grad_norm", "memory", "tps", "wps", "tflops", "mfu"};
        if (chance(0.1)) std::shuffle(keys.begin(), keys.end(), rng);
        for (const std::string& key : keys) {
            std::string value = number();
            if (key == "memory") value += "GiB(" + number() + "%)";
            if (key == "mfu") value += "%";
            line += fmt::format("  {}{}: {}", escapes[pick(4)], key, value);
        }
        line += "\x1b[39m";
        // escapes (and now and then another character) anywhere
        for (std::size_t k = pick(4); k > 0; --k) line.insert(pick(line.size() + 1), escapes[pick(escapes.size())]);
        if (chance(0.1)) line[pick(line.size())] = " :,.(%)x\x1b"[pick(9)];
        std::string stripped;
        trainbench::metrics::detail::strip_ansi(line, stripped);
        log += line + "\n";
        clean.push_back(stripped);
    }
    return log;
}

}  // namespace

TEST(TorchTitan, ColouredLinesReadInPlaceSayWhatTheyWouldSayWithoutColours) {
    for (unsigned seed : {1u, 2u, 3u, 4u}) {
        std::mt19937 rng(seed);
        std::vector<std::string> lines;
        const std::string coloured = random_titan_log(rng, lines);
        std::string plain;
        for (const std::string& l : lines) plain += l + "\n";
        for (const std::vector<std::string>& tags :
             {std::vector<std::string>{}, {"tflops_per_gpu", "step_time_s"}, {"memory_max_reserved_pct"}}) {
            ParseOptions o;
            o.tags = tags;
            const LogData a = parse_text("torchtitan", coloured, o);
            const LogData b = parse_text("torchtitan", plain, o);
            ASSERT_GT(a.stats.records, 1000u);  // most lines are step lines
            EXPECT_EQ(parse_fingerprint(a, false), parse_fingerprint(b, false)) << "seed " << seed;
        }
    }
}
