// Megatron-LM, NeMo / Lightning and fairseq / metaseq stdout variants.
#include "test_support.hpp"

#include <cmath>

using namespace trainbench::metrics;
using namespace trainbench::metrics::testing;

// ---------------------------------------------------------------- Megatron-LM

TEST(Megatron, EveryDatedVariantOfTheIterationLine) {
    const char* text =
        // 2019-2020: no consumed samples, lr %.3E
        " iteration       10/     100 | elapsed time per iteration (ms): 350.5 | learning rate: 1.500E-04 | lm loss: "
        "7.123456E+00 | loss scale: 65536.0 |\n"
        // 2020-12 .. 2023-11
        " iteration       20/     100 | consumed samples:          640 | elapsed time per iteration (ms): 340.1 | "
        "learning rate: 1.638E-08 | global batch size:    32 | lm loss: 6.900000E+00 | loss scale: 1.0 | grad norm: "
        "1.234 | num zeros: 0.0 | params norm: 250.125 | number of skipped iterations:   0 | number of nan iterations: "
        "  0 |\n"
        // 2024: timestamp, TFLOP/s/GPU, lr %.6E
        " [2024-04-06 02:58:23] iteration       30/     100 | consumed samples:          960 | elapsed time per "
        "iteration (ms): 5571.1 | throughput per GPU (TFLOP/s/GPU): 234.4 | learning rate: 6.000000E-06 | global batch "
        "size:    32 | lm loss: 1.924535E+00 | load_balancing_loss: 1.025294E+00 | loss scale: 1.0 | grad norm: 1.572 "
        "| number of skipped iterations:   0 | number of nan iterations:   0 |\n"
        // 2026: microseconds, skipped samples
        " [2026-09-11 12:06:52.987995] iteration       40/     100 | consumed samples:         1280 | skipped samples: "
        "           4 | elapsed time per iteration (ms): 5000.0 | learning rate: 6.000000E-06 | global batch size:    "
        "32 | lm loss: 1.800000E+00 | mtp_1 loss: 2.000000E+00 | loss scale: 1.0 | number of skipped iterations:   0 | "
        "number of nan iterations:   0 |\n";
    LogData d = parse_text("megatron", text);
    EXPECT_EQ(d.stats.records, 4u);
    EXPECT_EQ(steps(d, "step_time_s"), (std::vector<std::int64_t>{10, 20, 30, 40}));
    EXPECT_EQ(values(d, "step_time_s"), (std::vector<double>{0.3505, 0.3401, 5.5711, 5.0}));
    EXPECT_EQ(values(d, "loss"), (std::vector<double>{7.123456, 6.9, 1.924535, 1.8}));
    EXPECT_EQ(values(d, "lr"), (std::vector<double>{1.5e-4, 1.638e-08, 6e-6, 6e-6}));
    EXPECT_EQ(steps(d, "consumed_samples"), (std::vector<std::int64_t>{20, 30, 40}));
    EXPECT_EQ(values(d, "tflops_per_gpu"), (std::vector<double>{234.4}));
    EXPECT_EQ(values(d, "params norm"), (std::vector<double>{250.125}));
    EXPECT_EQ(values(d, "load_balancing_loss"), (std::vector<double>{1.025294}));
    EXPECT_EQ(values(d, "mtp_1 loss"), (std::vector<double>{2.0}));
    EXPECT_EQ(values(d, "skipped samples"), (std::vector<double>{4}));
    const Series* s = d.find("step_time_s");
    EXPECT_TRUE(std::isnan(s->points[0].wall_time));
    EXPECT_DOUBLE_EQ(s->points[2].wall_time, 1712372303.0);  // 2024-04-06 02:58:23 (UTC assumed)
    EXPECT_NEAR(s->points[3].wall_time, 1789128412.987995, 1e-5);
}

TEST(Megatron, LauncherPrefixesAndSkippedIterationsWithoutLoss) {
    const char* text =
        "[default7]: [2024-01-30 10:00:00] iteration        1/     100 | consumed samples:          288 | elapsed time "
        "per iteration (ms): 255940.5 | learning rate: 0.000000E+00 | global batch size:   288 | loss scale: "
        "4294967296.0 | number of skipped iterations:   1 | number of nan iterations:   0 |\n"
        "[1,15]<stdout>: iteration        2/     100 | consumed samples:          576 | elapsed time per iteration "
        "(ms): 243438.3 | learning rate: 1.000000E-06 | global batch size:   288 | lm loss: 1.1E+01 | loss scale: "
        "2147483648.0 | number of skipped iterations:   0 | number of nan iterations:   0 |\n"
        "[lrdn3321:3]: iteration        3/     100 | elapsed time per iteration (ms): 100.0/120.0 | TFLOPs: 150.5 | "
        "samples per second: 12.5 |\n"
        "[Rank 0] (after 1 iterations) memory (MB) | allocated: 1024.0 | max allocated: 2048.0 | reserved: 4096.0 | "
        "max reserved: 4096.0\n"
        "    forward-backward ...........: (1000.00, 1001.00)\n"
        "training ...\n";
    LogData d = parse_text("megatron", text);
    EXPECT_EQ(d.stats.records, 3u);
    EXPECT_EQ(d.stats.skipped, 3u);
    EXPECT_EQ(steps(d, "loss"), (std::vector<std::int64_t>{2}));
    EXPECT_EQ(values(d, "skipped_iterations"), (std::vector<double>{1, 0}));
    EXPECT_EQ(values(d, "step_time_s"), (std::vector<double>{255.9405, 243.4383, 0.1}));
    EXPECT_EQ(values(d, "TFLOPs"), (std::vector<double>{150.5}));
    EXPECT_EQ(values(d, "samples_per_s"), (std::vector<double>{12.5}));
}

TEST(Megatron, RestartRepeatsStepsAndTheLaterRunWins) {
    const char* text =
        " iteration        1/      10 | elapsed time per iteration (ms): 100.0 | lm loss: 3.0E+00 |\n"
        " iteration        2/      10 | elapsed time per iteration (ms): 100.0 | lm loss: 2.9E+00 |\n"
        " iteration        2/      10 | elapsed time per iteration (ms): 110.0 | lm loss: 2.8E+00 |\n"
        " iteration        3/      10 | elapsed time per iteration (ms): 110.0 | lm loss: 2.7E+00 |\n";
    LogData d = parse_text("megatron", text);
    EXPECT_EQ(values(d, "loss"), (std::vector<double>{3.0, 2.8, 2.7}));
}

TEST(Megatron, TruncatedLastLineKeepsOnlyCompleteSegments) {
    const char* text =
        " iteration        1/      10 | elapsed time per iteration (ms): 100.0 | lm loss: 3.0E+00 |\n"
        " iteration        2/      10 | elapsed time per iteration (ms): 90.0 | lm loss: 2.9";
    LogData d = parse_text("megatron", text);
    EXPECT_TRUE(d.stats.truncated_tail);
    EXPECT_EQ(steps(d, "loss"), (std::vector<std::int64_t>{1}));  // "2.9" may be cut from "2.95E+00"
    EXPECT_EQ(values(d, "step_time_s"), (std::vector<double>{0.1, 0.09}));
}

// ---------------------------------------------------------------- NeMo / Lightning

TEST(Nemo, Nemo2ProgressLinesWithPrefixesAndExtraMetrics) {
    const char* text =
        "0: Training epoch 0, iteration 0/99 | lr: 1.5e-07 | global_batch_size: 128 | global_step: 0 | "
        "reduced_train_loss: 11.03 | train_step_timing in s: 12.64\n"
        "[default0]: Training epoch 0, iteration 1/99 | lr: 3e-07 | global_batch_size: 128 | global_step: 1 | "
        "reduced_train_loss: 11.02 | train_step_timing in s: 12.6 | consumed_samples: 256 | TFLOPS_per_GPU: 401.2 | "
        "tokens_per_sec_per_gpu: 1.249e+03\n"
        "[2025-11-20T14:55:23+08:00] retraining/0 Training epoch 1, iteration 0/99 | reduced_train_loss: 10.9 | "
        "train_step_timing in s: 12.5\n"
        "Validation: iteration 1/10\n"
        "[NeMo I 2025-05-22 20:09:41 model_checkpoint:522] Async checkpoint save for step 19 finalized successfully.\n";
    LogData d = parse_text("nemo", text);
    EXPECT_EQ(d.stats.records, 3u);
    EXPECT_EQ(d.stats.skipped, 2u);
    // global_step is the step; the third line has none: its iteration number is used
    EXPECT_EQ(steps(d, "step_time_s"), (std::vector<std::int64_t>{0, 1}));
    EXPECT_EQ(values(d, "step_time_s"), (std::vector<double>{12.5, 12.6}));  // step 0 twice: later wins
    EXPECT_EQ(values(d, "tflops_per_gpu"), (std::vector<double>{401.2}));
    EXPECT_EQ(values(d, "tokens_per_sec_per_gpu"), (std::vector<double>{1249}));
    EXPECT_EQ(values(d, "global_batch_size"), (std::vector<double>{128, 128}));
}

TEST(Nemo, TqdmUpdatesSeparatedByCarriageReturnsWithAnsiAndValidationBars) {
    std::string text =
        "Epoch 0: :   0%|          | 1/15 [00:49<11:30, reduced_train_loss=11.50, global_step=0.000, "
        "consumed_samples=2048.0, train_step_timing in s=49.50]"
        "\rEpoch 0: :  13%|\xe2\x96\x88\xe2\x96\x8e        | 2/15 [01:38<10:41, reduced_train_loss=11.40, "
        "global_step=1.000, consumed_samples=4096.0, train_step_timing in s=49.40]"
        "\r\x1b[A\x1b[2KValidation DataLoader 0:  50%|#####     | 1/2 [00:01<00:01, 1.00it/s]"
        "\rEpoch 0:  20%|##        | 3/15 [02:27<09:48, 1.23it/s, v_num=0, reduced_train_loss=11.30, "
        "global_step=2.000, train_step_timing in s=49.30]\n"
        "Epoch 1:   7%|7         | 1/15 [317:00:58<1:00:00, reduced_train_loss=2e+3, train_step_timing in s=49.20]\n";
    LogData d = parse_text("nemo", text);
    EXPECT_EQ(d.stats.records, 4u);
    EXPECT_EQ(steps(d, "step_time_s"), (std::vector<std::int64_t>{1, 2, 3, 4}));  // epoch 1 continues after 3
    EXPECT_EQ(values(d, "step_time_s"), (std::vector<double>{49.5, 49.4, 49.3, 49.2}));
    EXPECT_EQ(values(d, "loss"), (std::vector<double>{11.5, 11.4, 11.3, 2000}));
    EXPECT_EQ(values(d, "global_step"), (std::vector<double>{0, 1, 2}));
    EXPECT_EQ(values(d, "epoch"), (std::vector<double>{0, 0, 0, 1}));
    EXPECT_EQ(d.find("v_num"), nullptr);
}

TEST(Nemo, BarCutWithoutItsClosingBracketIsIgnored) {
    LogData d =
        parse_text("nemo", "Epoch 0: :   0%|          | 1/15 [00:49<11:30, reduced_train_loss=11.50, train_step_ti");
    EXPECT_TRUE(d.series.empty());
    LogData e = parse_text("nemo", "Training epoch 0, iteration 5/99 | global_step: 5 | reduced_train_loss: 11.0");
    EXPECT_TRUE(e.stats.truncated_tail);
    EXPECT_TRUE(e.series.empty());
}

// ---------------------------------------------------------------- fairseq / metaseq

TEST(Metaseq, JsonTrainInnerWithSlurmPrefixAndDerivedStepTime) {
    const char* text =
        "slurm_procid 0 : 2022-05-03 10:00:00 | INFO | train_inner | {\"epoch\": 1, \"actv_norm\": \"1.2\", \"wps\": "
        "\"0\", \"ups\": \"0\", \"wpb\": \"2.09715e+06\", \"bsz\": \"1024\", \"num_updates\": \"10\", \"lr\": "
        "\"1e-05\", \"gnorm\": \"0.5\", \"loss_scale\": \"8\", \"train_wall\": \"300\", \"cuda_gb_free\": \"20.5\", "
        "\"wall\": \"400\"}\n"
        "slurm_procid 0 : 2022-05-03 10:05:00 | INFO | train_inner | {\"epoch\": 1, \"wps\": \"69905\", \"ups\": "
        "\"0.03\", \"wpb\": \"2.09715e+06\", \"bsz\": \"1024\", \"num_updates\": \"20\", \"train_wall\": \"300\", "
        "\"wall\": \"700\"}\n"
        "2022-05-03 10:05:01 | INFO | metaseq.trainer | NOTE: gradient overflow detected\n"
        "2022-05-03 10:06:00 | INFO | train_inner | {\"epoch\": 1, \"wps\": \"broken\n"
        "2022-05-03 10:10:00 | INFO | train_inner | {\"epoch\": 1, \"wps\": \"70000\", \"num_updates\": \"30\", "
        "\"train_wall\": \"250\", \"wall\": \"1000\"}\n";
    LogData d = parse_text("metaseq", text);
    EXPECT_EQ(d.stats.records, 3u);
    EXPECT_EQ(d.stats.corrupt, 1u);
    EXPECT_EQ(steps(d, "tokens_per_s"), (std::vector<std::int64_t>{20, 30}));  // wps 0 dropped
    EXPECT_EQ(values(d, "global_batch_size"), (std::vector<double>{1024, 1024}));
    EXPECT_EQ(values(d, "wpb"), (std::vector<double>{2.09715e+06, 2.09715e+06}));
    EXPECT_EQ(values(d, "loss_scale"), (std::vector<double>{8}));
    EXPECT_EQ(values(d, "grad_norm"), (std::vector<double>{0.5}));
    // train_wall of an interval / updates in it: 300/10, 250/10
    EXPECT_EQ(steps(d, "step_time_s"), (std::vector<std::int64_t>{20, 30}));
    EXPECT_EQ(values(d, "step_time_s"), (std::vector<double>{30, 25}));
    EXPECT_DOUBLE_EQ(d.find("wall")->points[0].wall_time, 1651572000.0);
}

TEST(Metaseq, SimpleFormatInnerAndEpochLines) {
    const char* text =
        "2020-01-01 00:00:00 | INFO | train_inner | epoch 001:    100 / 1563 loss=9.5, nll_loss=9.1, ppl=550.2, "
        "wps=12000, ups=3.1, wpb=3870, bsz=128, num_updates=100, lr=0.0005, gnorm=1.2, train_wall=32, gb_free=10.1, "
        "wall=35\n"
        "2020-01-01 00:00:32 | INFO | train_inner | epoch 001:    200 / 1563 loss=8.5, wps=12100, ups=3.1, "
        "num_updates=200, train_wall=33, wall=68\n"
        "2020-01-01 01:00:00 | INFO | valid | epoch 001 | valid on 'valid' subset | loss 7.5 | ppl 181 | wps 40000 | "
        "num_updates 1563\n"
        "2020-01-01 01:00:00 | INFO | train | epoch 001 | loss 8.0 | wps 12050 | train_wall 500 | wall 520 | "
        "num_updates 1563\n";
    LogData d = parse_text("metaseq", text);
    EXPECT_EQ(d.stats.records, 4u);
    EXPECT_EQ(values(d, "loss"), (std::vector<double>{9.5, 8.5}));
    EXPECT_EQ(values(d, "tokens_per_s"), (std::vector<double>{12000, 12100}));
    EXPECT_EQ(values(d, "step_time_s"), (std::vector<double>{0.33}));
    EXPECT_EQ(values(d, "epoch/valid_loss"), (std::vector<double>{7.5}));
    EXPECT_EQ(steps(d, "epoch/valid_loss"), (std::vector<std::int64_t>{1563}));
    // same names as the JSON format: train_train_wall is the epoch's, train_wall the total wall
    EXPECT_EQ(values(d, "epoch/train_train_wall"), (std::vector<double>{500}));
    EXPECT_EQ(values(d, "epoch/train_wall"), (std::vector<double>{520}));
    EXPECT_EQ(values(d, "epoch/train_wps"), (std::vector<double>{12050}));
}

TEST(Metaseq, LegacyFairseqLinesWithCumulativeTrainWallAndWithoutNumUpdates) {
    const char* v09 =
        "| epoch 001:    100 / 1000 loss=9.0, wps=5000, ups=2, wpb=2500, bsz=64, num_updates=100, lr=0.001, gnorm=1.0, "
        "train_wall=50, wall=55\n"
        "| epoch 001:    200 / 1000 loss=8.0, wps=5100, ups=2, wpb=2500, bsz=64, num_updates=200, lr=0.001, gnorm=1.0, "
        "train_wall=100, wall=110\n"
        "| epoch 001 | loss 8.5 | wps 5050\n";
    LogData d = parse_text("metaseq", v09);
    EXPECT_EQ(values(d, "step_time_s"), (std::vector<double>{0.5}));  // (100 - 50) / 100
    EXPECT_EQ(d.stats.skipped, 1u);
    const char* y2018 =
        "| epoch 010  2000 / 8223 loss=1.27 (1.50), wps=962, wpb=908, bsz=32, lr=0.001, clip=100%, gnorm=2.1427\n";
    LogData e = parse_text("metaseq", y2018);
    EXPECT_EQ(steps(e, "loss"), (std::vector<std::int64_t>{9 * 8223 + 2000}));
    EXPECT_EQ(values(e, "loss"), (std::vector<double>{1.27}));
    EXPECT_EQ(values(e, "clip"), (std::vector<double>{100}));
    EXPECT_EQ(values(e, "tokens_per_s"), (std::vector<double>{962}));
}
