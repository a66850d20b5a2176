// nccl-tests layouts, format detection and parse_logs errors.
#include "test_support.hpp"

#include <trainbench/core.hpp>

using namespace trainbench;
using namespace trainbench::metrics;
using namespace trainbench::metrics::testing;

TEST(NcclTests, OldLayoutWithoutRootAndErrorColumn) {
    const char* text =
        "# nThread 1 nGpus 8 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 validation: 1 \n"
        "#\n"
        "# Using devices\n"
        "#   Rank  0 Pid  12345 on   node1 device  0 [0x1b] Tesla V100-SXM2-32GB\n"
        "#\n"
        "#                                                     out-of-place                       in-place          \n"
        "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
        "#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n"
        "           8             2   float     sum    38.07    0.00    0.00  0e+00    37.71    0.00    0.00  0e+00\n"
        "     1048576        262144   float     sum    120.5    8.70   15.23  2e-07    119.9    8.75   15.31    N/A\n"
        "# Out of bounds values : 0 OK\n"
        "# Avg bus bandwidth    : 7.635 \n";
    LogData d = parse_text("nccl-tests", text);
    ASSERT_TRUE(d.nccl);
    ASSERT_EQ(d.nccl->rows.size(), 2u);
    const NcclRow& r = d.nccl->rows[1];
    EXPECT_EQ(r.size_bytes, 1048576u);
    EXPECT_EQ(r.root, -1);
    EXPECT_EQ(r.oop_time_us, 120.5);
    EXPECT_EQ(r.oop_busbw, 15.23);
    EXPECT_EQ(r.oop_wrong, -1);  // "error" is a deviation, not a count
    EXPECT_EQ(r.ip_busbw, 15.31);
    EXPECT_EQ(d.nccl->devices.size(), 1u);
    EXPECT_EQ(d.nccl->header.at("validation"), "1");
    EXPECT_EQ(*d.nccl->avg_busbw, 7.635);
    EXPECT_EQ(steps(d, "ip_busbw"), (std::vector<std::int64_t>{8, 1048576}));
}

TEST(NcclTests, CurrentLayoutWithPrefixesInterleavedInfoLinesAndNoValidation) {
    const char* text =
        "0: # nccl-tests version 2.17.0 nccl-headers=22602 nccl-library=22602\n"
        "0: # Collective test starting: all_gather_perf\n"
        "0: # nThread 1 nGpus 1 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 "
        "validation: 0 graph: 0\n"
        "node1:1234:1234 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
        "0: #  Rank  0 Group  0 Pid   1234 on      node1 device  0 [0000:1b:00] NVIDIA H100 80GB HBM3\n"
        "0:         1024           256     float    none      -1    20.50    0.05    0.04     N/A    20.10    0.05    "
        "0.04     N/A\n"
        "node2:99:99 [3] NCCL INFO Channel 00/0 : 3[3] -> 4[0] [send] via NET/IB/0\n"
        "0:         2048           512     float    none      -1    21.00    0.10    0.09     N/A    20.90    0.10    "
        "0.09     N/A\n"
        "0: # Out of bounds values : 0 OK\n"
        "0: # Avg bus bandwidth    : 0.065 \n"
        "0: #\n"
        "0: # Collective test concluded: all_gather_perf\n";
    LogData d = parse_text("nccl-tests", text);
    ASSERT_TRUE(d.nccl);
    EXPECT_EQ(d.nccl->operation, "all_gather_perf");
    EXPECT_EQ(d.nccl->header.at("version"), "2.17.0 nccl-headers=22602 nccl-library=22602");
    EXPECT_EQ(d.nccl->header.at("validation"), "0");
    ASSERT_EQ(d.nccl->rows.size(), 2u);
    EXPECT_EQ(d.nccl->rows[0].redop, "none");
    EXPECT_EQ(d.nccl->rows[0].oop_wrong, -1);
    EXPECT_EQ(d.nccl->rows[1].ip_busbw, 0.09);
    EXPECT_EQ(*d.nccl->avg_busbw, 0.065);
    EXPECT_EQ(d.nccl->devices.size(), 1u);
}

TEST(NcclTests, PerIterationAndTimestampColumns) {
    const char* text =
        "        1024           256     float     sum      -1    20.50    0.05    0.09       0   19.0   22.0   21.5   "
        "3.2    20.10    0.05    0.09       0   18.0   21.0   20.5   2.1\n"
        "        2048           512     float     sum      -1    21.00    0.10    0.18       0    20.90    0.10    "
        "0.18       0  2025-11-01 10:00:00\n";
    LogData d = parse_text("nccl-tests", text);
    ASSERT_EQ(d.nccl->rows.size(), 2u);
    EXPECT_EQ(d.nccl->rows[0].ip_time_us, 20.10);
    EXPECT_EQ(d.nccl->rows[0].ip_busbw, 0.09);
    EXPECT_EQ(d.nccl->rows[1].ip_time_us, 20.90);
    EXPECT_EQ(d.nccl->rows[1].ip_wrong, 0);
}

TEST(NcclTests, TruncatedRowAndGarbageAreNotRows) {
    const char* text =
        "        1024           256     float     sum      -1    20.50    0.05    0.09       0    20.10    0.05    "
        "0.09       0\n"
        "Test NCCL failure common.cu:1005 'unhandled system error'\n"
        "        2048           512     float     sum      -1    21.00    0.10";
    LogData d = parse_text("nccl-tests", text);
    EXPECT_EQ(d.nccl->rows.size(), 1u);
    EXPECT_TRUE(d.stats.truncated_tail);
    EXPECT_FALSE(d.nccl->avg_busbw);
}

// ---------------------------------------------------------------- detection

TEST(Formats, DetectionFromContent) {
    using detail::detect_from_content;
    EXPECT_EQ(detect_from_content("x.log", "DLLL {\"type\": \"LOG\"}\n"), "dllogger");
    EXPECT_EQ(detect_from_content("x.log", "{\"type\": \"LOG\", \"step\": 1, \"data\": {}}\n"), "dllogger");
    EXPECT_EQ(detect_from_content("x.log", "# nThread 1 nGpus 8 minBytes 8\n"), "nccl-tests");
    EXPECT_EQ(detect_from_content("x.log", "2021-03-08 18:05:45 | INFO | train_inner | {\"epoch\": 1}\n"), "metaseq");
    EXPECT_EQ(detect_from_content("x.log", "| epoch 010:   2000 / 8223 loss=1.2, wps=9\n"), "metaseq");
    EXPECT_EQ(detect_from_content("x.log", "Training epoch 0, iteration 1/9 | lr: 1\n"), "nemo");
    EXPECT_EQ(detect_from_content("x.log", "Epoch 0: :  47%|##  | 7/15 [06:19<07:13, reduced_train_loss=11.5]\r"),
              "nemo");
    EXPECT_EQ(detect_from_content("x.log",
                                  " iteration 1/ 9 | consumed samples: 8 | elapsed time per iteration (ms): 1.0 |\n"),
              "megatron");
    EXPECT_EQ(detect_from_content("events.out.tfevents.1.host", ""), "tensorboard");
    EXPECT_EQ(detect_from_content("dllogger.json", "nothing useful\n"), "dllogger");
    EXPECT_EQ(detect_from_content("all_reduce_perf.out", "nothing useful\n"), "nccl-tests");
    EXPECT_EQ(detect_from_content("x.log", "hello\nworld\n"), std::nullopt);
    // a NeMo log with NCCL INFO lines is still NeMo
    EXPECT_EQ(detect_from_content("x.log",
                                  "n1:1:1 [0] NCCL INFO Using network IB\nTraining epoch 0, iteration 1/9 | lr: 1\n"),
              "nemo");
}

// The first 64 KiB decide alone only when they hold evidence of one format, from two lines at
// least; otherwise the first MiB is scored as a whole.
TEST(Formats, DetectionReadsPastTheFirst64KiBOnlyWhenTheyDoNotSettleIt) {
    const std::string dllogger = "DLLL {\"type\": \"LOG\", \"step\": 1, \"data\": {\"loss\": 1.0}}\n";
    const std::string megatron = " iteration 1/ 9 | consumed samples: 8 | elapsed time per iteration (ms): 1.0 |\n";
    const std::string nemo = "Training epoch 0, iteration 1/9 | lr: 1\n";
    const std::string noise = "[NeMo I] building the model, nothing to score here\n";
    auto repeat = [](const std::string& line, std::size_t bytes) {
        std::string out;
        while (out.size() < bytes) out += line;
        return out;
    };
    TempDir dir;
    auto detect = [&](const std::string& text) {
        write_all(dir.path() / "run.log", text);
        return detect_format(dir.path() / "run.log");
    };
    // DLLogger lines fill the first 64 KiB: they decide, though more Megatron lines follow.
    EXPECT_EQ(detect(repeat(dllogger, 70 << 10) + repeat(megatron, 600 << 10)), "dllogger");
    // One stray Megatron line in a long preamble: the NeMo lines after 64 KiB outweigh it.
    EXPECT_EQ(detect(megatron + repeat(noise, 70 << 10) + repeat(nemo, 100 << 10)), "nemo");
    // Two formats in the first 64 KiB: the first MiB is scored as a whole.
    EXPECT_EQ(
        detect(repeat(megatron + megatron + dllogger, 2 << 10) + repeat(noise, 64 << 10) + repeat(dllogger, 100 << 10)),
        "dllogger");
    // No evidence in the first MiB: the next MiBs are looked at, as before.
    EXPECT_EQ(detect(repeat(noise, 1100 << 10) + repeat(nemo, 10 << 10)), "nemo");
}

TEST(Formats, TableListsEveryFormatAndAliasesWork) {
    std::vector<std::string> names;
    for (const FormatInfo& f : formats()) names.push_back(f.name);
    EXPECT_EQ(names, (std::vector<std::string>{"dllogger", "tensorboard", "megatron", "nemo", "metaseq", "nccl-tests",
                                               "megatron-bridge", "torchtitan", "mlperf"}));
    EXPECT_NE(make_parser("fairseq"), nullptr);
    EXPECT_NE(make_parser("tfevents"), nullptr);
    EXPECT_EQ(make_parser("csv"), nullptr);
}

TEST(Formats, ParseLogsErrorsAreInputOrRuntimeErrorsWithHints) {
    TempDir dir;
    write_all(dir.path() / "a.txt", "hello\n");
    write_all(dir.path() / "b.json", "DLLL {\"type\": \"LOG\", \"step\": 1, \"data\": {\"x\": 1}}\n");
    write_all(dir.path() / "c.log", "Training epoch 0, iteration 1/9 | global_step: 1 | lr: 1\n");
    try {
        (void)parse_logs({dir.path() / "a.txt"});
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("cannot tell the log format"), std::string::npos);
        EXPECT_NE(e.hint().find("--format"), std::string::npos);
    }
    try {
        ParseOptions o;
        o.format = "dlloger";
        (void)parse_logs({dir.path() / "b.json"}, o);
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(e.hint(), "did you mean 'dllogger'?");
    }
    EXPECT_THROW((void)parse_logs({dir.path() / "b.json", dir.path() / "c.log"}), InputError);
    EXPECT_THROW((void)parse_logs({dir.path() / "missing.log"}), RuntimeError);
    EXPECT_THROW((void)parse_logs({}), UsageError);
    ParseOptions o;
    o.format = "tensorboard";
    EXPECT_THROW((void)parse_logs({dir.path()}, o), RuntimeError);  // no event files there
    // two files of one format go into one LogData, later files winning
    write_all(dir.path() / "d.json", "DLLL {\"type\": \"LOG\", \"step\": 1, \"data\": {\"x\": 5}}\n");
    LogData d = parse_logs({dir.path() / "b.json", dir.path() / "d.json"});
    EXPECT_EQ(values(d, "x"), (std::vector<double>{5}));
    EXPECT_EQ(d.files.size(), 2u);
}
