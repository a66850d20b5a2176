// Every real sample in ../shared/samples decodes to the values its README lists.
#include "test_support.hpp"

#include <cmath>
#include <numeric>

namespace fs = std::filesystem;
using namespace trainbench::metrics;
using namespace trainbench::metrics::testing;

namespace {

fs::path sample(std::string_view name) {
    fs::path dir = shared_samples();
    if (!fs::exists(dir)) return {};
    return dir / name;
}

#define REQUIRE_SAMPLE(var, name)                                                 \
    fs::path var = sample(name);                                                  \
    if (var.empty()) GTEST_SKIP() << "no shared samples at " << shared_samples(); \
    ASSERT_TRUE(fs::exists(var)) << var

double sum(const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0);
}

}  // namespace

TEST(Samples, PytorchEventFileDecodesAllHundredScalarsWithElidedStepZero) {
    REQUIRE_SAMPLE(p, "tensorboard-reducer_events.out.tfevents.1622543341.janoshs-mbp.lan.86862.0");
    EXPECT_EQ(detect_format(p), "tensorboard");
    LogData d = parse_logs({p});
    EXPECT_EQ(d.format, "tensorboard");
    EXPECT_EQ(d.stats.records, 101u);
    EXPECT_EQ(d.stats.corrupt, 0u);
    EXPECT_FALSE(d.stats.truncated_tail);
    const Series* s = d.find("strict/foo");
    ASSERT_NE(s, nullptr);
    ASSERT_EQ(s->points.size(), 100u);
    std::vector<std::int64_t> expected_steps;
    for (int i = 0; i < 100; ++i) expected_steps.push_back(5 * i);
    EXPECT_EQ(steps(d, "strict/foo"), expected_steps);
    auto v = values(d, "strict/foo");
    EXPECT_DOUBLE_EQ(v[0], 1.4962565898895264);
    EXPECT_DOUBLE_EQ(v[1], 1.7682218551635742);
    EXPECT_DOUBLE_EQ(v[2], 1.088477373123169);
    EXPECT_DOUBLE_EQ(v[3], 1.1320304870605469);
    EXPECT_DOUBLE_EQ(v[4], 1.3074228763580322);
    EXPECT_DOUBLE_EQ(v[98], 1.1099579334259033);
    EXPECT_DOUBLE_EQ(v[99], 1.212090253829956);
    EXPECT_NEAR(sum(v), 148.841952920, 1e-8);
    EXPECT_DOUBLE_EQ(*std::min_element(v.begin(), v.end()), 1.0012359619140625);
    EXPECT_DOUBLE_EQ(*std::max_element(v.begin(), v.end()), 1.9970664978027344);
    EXPECT_NEAR(s->points.front().wall_time, 1622543341.758558, 1e-6);
    EXPECT_NEAR(s->points.back().wall_time, 1622543341.7694452, 1e-6);
}

TEST(Samples, Tf2EventFileDecodesTensorContentScalars) {
    REQUIRE_SAMPLE(p, "go-tensorboard_events.out.tfevents.1585499054.Jaakkos-Mac-mini.local.11684.5.v2");
    LogData d = parse_logs({p});
    EXPECT_EQ(d.stats.records, 101u);
    EXPECT_EQ(d.stats.corrupt, 0u);
    const Series* s = d.find("my_metric");
    ASSERT_NE(s, nullptr);
    ASSERT_EQ(s->points.size(), 100u);
    for (std::size_t i = 0; i < 100; ++i) {
        EXPECT_EQ(s->points[i].step, static_cast<std::int64_t>(i));
        EXPECT_EQ(s->points[i].value, 0.5 * static_cast<double>(i));
    }
    EXPECT_DOUBLE_EQ(sum(values(d, "my_metric")), 2475.0);
    EXPECT_NEAR(s->points.front().wall_time, 1585499054.13341, 1e-6);
    EXPECT_NEAR(s->points.back().wall_time, 1585499054.156347, 1e-6);
}

TEST(Samples, DlloggerResnetExampleMapsListStepsSummaryAndParameters) {
    REQUIRE_SAMPLE(p, "dllogger_example_resnet_log.json");
    EXPECT_EQ(detect_format(p), "dllogger");
    LogData d = parse_logs({p});
    EXPECT_EQ(d.stats.records, 52u);  // 39 LOG + 13 METADATA
    EXPECT_EQ(d.stats.skipped, 0u);
    EXPECT_EQ(d.stats.corrupt, 0u);
    // [epoch, iter] -> iter + largest iter of earlier epochs (20 in epoch 0)
    EXPECT_DOUBLE_EQ(at(d, "train.total_ips", 5), 545.2730241953889);
    EXPECT_DOUBLE_EQ(at(d, "train.total_ips", 10), 674.7180797941068);
    EXPECT_DOUBLE_EQ(at(d, "train.total_ips", 40), 675.1843044045183);
    EXPECT_EQ(steps(d, "train.total_ips"), (std::vector<std::int64_t>{5, 10, 15, 20, 25, 30, 35, 40}));
    // the two lines of one step with disjoint keys are merged
    EXPECT_DOUBLE_EQ(at(d, "lr", 5), 0.1);
    EXPECT_DOUBLE_EQ(at(d, "train.loss", 5), 8.56640625);
    // [] summary
    EXPECT_DOUBLE_EQ(d.summary.at("train.total_ips"), 661.9801574510492);
    EXPECT_DOUBLE_EQ(d.summary.at("val.loss"), 907.16);
    // [epoch] summaries
    EXPECT_DOUBLE_EQ(at(d, "epoch/train.total_ips", 0), 648.9330897795348);
    EXPECT_DOUBLE_EQ(at(d, "epoch/val.loss", 1), 7.0034375);
    // [epoch, iter, val_iter]
    EXPECT_DOUBLE_EQ(at(d, "val.loss", 5), 980.1);
    // PARAMETER
    EXPECT_EQ(d.parameter_text("arch"), "resnet50");
    EXPECT_EQ(d.parameters.at("arch"), "\"resnet50\"");
    EXPECT_EQ(d.parameter_number("batch_size"), 128.0);
    EXPECT_EQ(d.parameters.at("seed"), "null");
    EXPECT_EQ(d.parameter_number("amp"), 1.0);
    // wall time from the string timestamp
    const Series* s = d.find("train.total_ips");
    ASSERT_NE(s, nullptr);
    EXPECT_NEAR(s->points.front().wall_time, 1570716921.842053, 1e-6);
}

TEST(Samples, DlloggerStdoutExampleIsNotMistakenForJson) {
    REQUIRE_SAMPLE(p, "dllogger_example_stdout_log.txt");
    LogData d;
    ParseOptions o;
    o.format = "dllogger";
    d = parse_logs({p}, o);
    EXPECT_EQ(d.stats.records, 0u);
    EXPECT_GT(d.stats.skipped, 0u);
    EXPECT_TRUE(d.series.empty());
}

TEST(Samples, MegatronReadmeLinesWithAndWithoutPrefixAndSkippedIterations) {
    REQUIRE_SAMPLE(p, "awsome-distributed-training_megatron-lm-slurm-gpt3-README_iterations.txt");
    EXPECT_EQ(detect_format(p), "megatron");
    LogData d = parse_logs({p});
    EXPECT_EQ(d.stats.records, 6u);
    EXPECT_EQ(steps(d, "step_time_s"), (std::vector<std::int64_t>{1, 2, 3, 25, 26, 27}));
    EXPECT_EQ(values(d, "consumed_samples"), (std::vector<double>{288, 576, 864, 50, 52, 54}));
    EXPECT_DOUBLE_EQ(at(d, "step_time_s", 25), 0.087);
    EXPECT_DOUBLE_EQ(at(d, "step_time_s", 26), 0.0865);
    EXPECT_DOUBLE_EQ(at(d, "step_time_s", 27), 0.0884);
    EXPECT_DOUBLE_EQ(at(d, "step_time_s", 1), 255.9405);
    EXPECT_DOUBLE_EQ(at(d, "step_time_s", 2), 243.4383);
    EXPECT_DOUBLE_EQ(at(d, "step_time_s", 3), 243.3444);
    EXPECT_DOUBLE_EQ(at(d, "lr", 25), 1.638e-08);
    EXPECT_DOUBLE_EQ(at(d, "lr", 1), 0.0);
    EXPECT_EQ(values(d, "global_batch_size"), (std::vector<double>{288, 288, 288, 2, 2, 2}));
    // skipped iterations print no loss
    EXPECT_EQ(steps(d, "loss"), (std::vector<std::int64_t>{25, 26, 27}));
    EXPECT_EQ(values(d, "loss"), (std::vector<double>{10.86954, 10.86217, 10.87129}));
    EXPECT_EQ(d.find("loss")->source_name, "lm loss");
    EXPECT_EQ(values(d, "loss_scale"), (std::vector<double>{2147483648.0 * 2, 2147483648.0, 1073741824.0, 4294967296.0,
                                                            4294967296.0, 4294967296.0}));
    EXPECT_EQ(values(d, "grad_norm"), (std::vector<double>{0, 0, 0}));
    EXPECT_EQ(values(d, "skipped_iterations"), (std::vector<double>{1, 1, 1, 0, 0, 0}));
}

TEST(Samples, Nemo2ProgressLinesUseGlobalStepAndIgnoreNemoLogLines) {
    REQUIRE_SAMPLE(p, "awsome-distributed-training_nemo-kubernetes-README_nemo2-progress.txt");
    EXPECT_EQ(detect_format(p), "nemo");
    LogData d = parse_logs({p});
    EXPECT_EQ(d.stats.records, 5u);
    EXPECT_EQ(steps(d, "step_time_s"), (std::vector<std::int64_t>{19, 29, 45, 46, 48}));
    EXPECT_EQ(values(d, "step_time_s"), (std::vector<double>{46.86, 46.84, 47.12, 47.15, 46.81}));
    EXPECT_EQ(values(d, "consumed_samples"), (std::vector<double>{10240, 15360, 23552, 24064, 25088}));
    EXPECT_EQ(values(d, "lr"), (std::vector<double>{2.999e-06, 4.498e-06, 6.897e-06, 7.046e-06, 7.346e-06}));
    EXPECT_EQ(values(d, "loss"), (std::vector<double>{11.03, 11.03, 11.02, 11.02, 11.02}));
    EXPECT_EQ(values(d, "global_batch_size"), (std::vector<double>{512, 512, 512, 512, 512}));
    EXPECT_EQ(values(d, "epoch"), (std::vector<double>{1, 1, 2, 2, 2}));
    EXPECT_EQ(d.find("step_time_s")->source_name, "train_step_timing in s");
}

TEST(Samples, TqdmBarLineIsReadUpToItsClosingBracket) {
    REQUIRE_SAMPLE(p, "awsome-distributed-training_nemo1.0-EKS-README_tqdm-line.txt");
    EXPECT_EQ(detect_format(p), "nemo");
    LogData d = parse_logs({p});
    EXPECT_EQ(d.stats.records, 1u);
    EXPECT_EQ(steps(d, "step_time_s"), (std::vector<std::int64_t>{2000}));
    EXPECT_EQ(values(d, "step_time_s"), (std::vector<double>{1.9}));
    EXPECT_EQ(values(d, "loss"), (std::vector<double>{2.6}));
    EXPECT_EQ(values(d, "global_step"), (std::vector<double>{2000}));
    EXPECT_EQ(values(d, "consumed_samples"), (std::vector<double>{1.28e6}));
    EXPECT_EQ(values(d, "val_loss"), (std::vector<double>{2.8}));
    EXPECT_EQ(d.find("v_num"), nullptr);
}

TEST(Samples, FairseqJsonTrainInnerLinesAndEpochLines) {
    REQUIRE_SAMPLE(p, "fairseq_examples-fully_sharded_data_parallel-README_13B-8xV100-json.txt");
    EXPECT_EQ(detect_format(p), "metaseq");
    LogData d = parse_logs({p});
    // wps 0 on the first update is dropped
    EXPECT_EQ(steps(d, "tokens_per_s"), (std::vector<std::int64_t>{2, 3, 4, 5, 6, 7, 8, 9, 10}));
    auto wps = values(d, "tokens_per_s");
    EXPECT_NEAR(sum(wps) / 9.0, 3022.8778, 1e-4);
    EXPECT_EQ(d.find("tokens_per_s")->source_name, "wps");
    EXPECT_EQ(values(d, "train_wall"), (std::vector<double>{47, 40, 111, 41, 41, 40, 41, 41, 39, 40}));
    EXPECT_EQ(values(d, "wall"), (std::vector<double>{56, 96, 208, 249, 289, 330, 371, 411, 450, 490}));
    EXPECT_EQ(values(d, "wpb"), std::vector<double>(10, 131072));
    EXPECT_EQ(values(d, "global_batch_size"), std::vector<double>(10, 64));
    // derived: train_wall of the interval / updates in it (from the second line on)
    EXPECT_EQ(values(d, "step_time_s"), (std::vector<double>{40, 111, 41, 41, 40, 41, 41, 39, 40}));
    EXPECT_DOUBLE_EQ(values(d, "epoch/valid_wps").at(0), 10855.9);
    EXPECT_DOUBLE_EQ(values(d, "epoch/train_wps").at(0), 2567.8);
    EXPECT_DOUBLE_EQ(values(d, "epoch/train_train_wall").at(0), 480);
    EXPECT_DOUBLE_EQ(values(d, "epoch/train_wall").at(0), 516);  // the epoch line's total wall
    EXPECT_DOUBLE_EQ(values(d, "train_wall").back(), 40);        // train_inner's own train_wall
    EXPECT_EQ(d.stats.corrupt, 0u);
    EXPECT_GT(d.stats.skipped, 0u);  // fairseq_cli.train, overflow notes, ...
}

TEST(Samples, NcclTestsZtanOldFormattingWithRootColumn) {
    REQUIRE_SAMPLE(p, "create-a3mega-ztan-fork_ztan-NCCL-test-result");
    EXPECT_EQ(detect_format(p), "nccl-tests");
    LogData d = parse_logs({p});
    ASSERT_TRUE(d.nccl);
    const NcclResult& r = *d.nccl;
    EXPECT_EQ(r.header.at("nThread"), "1");
    EXPECT_EQ(r.header.at("maxBytes"), "8589934592");
    EXPECT_EQ(r.header.at("warmup iters"), "5");
    EXPECT_EQ(r.header.at("agg iters"), "1");
    EXPECT_EQ(r.header.at("graph"), "0");
    EXPECT_EQ(r.devices.size(), 16u);
    ASSERT_EQ(r.rows.size(), 31u);
    const NcclRow& first = r.rows.front();
    EXPECT_EQ(first.size_bytes, 8u);
    EXPECT_EQ(first.count, 2u);
    EXPECT_EQ(first.type, "float");
    EXPECT_EQ(first.redop, "sum");
    EXPECT_EQ(first.root, -1);
    EXPECT_DOUBLE_EQ(first.oop_time_us, 135.8);
    EXPECT_DOUBLE_EQ(first.ip_time_us, 123.5);
    EXPECT_EQ(first.oop_wrong, 0);
    EXPECT_EQ(first.ip_wrong, 0);
    const NcclRow& last = r.rows.back();
    EXPECT_EQ(last.size_bytes, 8589934592u);
    EXPECT_EQ(last.count, 2147483648u);
    EXPECT_DOUBLE_EQ(last.oop_time_us, 47535);
    EXPECT_DOUBLE_EQ(last.oop_algbw, 180.71);
    EXPECT_DOUBLE_EQ(last.oop_busbw, 338.82);
    EXPECT_DOUBLE_EQ(last.ip_time_us, 47743);
    EXPECT_DOUBLE_EQ(last.ip_algbw, 179.92);
    EXPECT_DOUBLE_EQ(last.ip_busbw, 337.35);
    ASSERT_TRUE(r.avg_busbw);
    EXPECT_DOUBLE_EQ(*r.avg_busbw, 70.742);
    EXPECT_EQ(r.out_of_bounds, 0);
    double total = 0, max_oop = 0, max_ip = 0, big = 0;
    int nbig = 0;
    for (const NcclRow& row : r.rows) {
        total += row.oop_busbw + row.ip_busbw;
        max_oop = std::max(max_oop, row.oop_busbw);
        max_ip = std::max(max_ip, row.ip_busbw);
        if (row.size_bytes >= (1ull << 30)) {
            big += row.oop_busbw;
            ++nbig;
        }
    }
    EXPECT_NEAR(total / 62.0, *r.avg_busbw, 0.01);
    EXPECT_DOUBLE_EQ(max_oop, 338.82);
    EXPECT_DOUBLE_EQ(max_ip, 337.35);
    EXPECT_EQ(nbig, 4);
    EXPECT_NEAR(big / nbig, 321.415, 1e-9);
    EXPECT_EQ(values(d, "oop_busbw").back(), 338.82);
}

TEST(Samples, NcclTestsAwsBatchWithMpirunTagPrefix) {
    REQUIRE_SAMPLE(p, "awsome-distributed-training_nccl-tests-aws-batch-README_p5-allreduce.txt");
    EXPECT_EQ(detect_format(p), "nccl-tests");
    LogData d = parse_logs({p});
    ASSERT_TRUE(d.nccl);
    const NcclResult& r = *d.nccl;
    ASSERT_EQ(r.rows.size(), 32u);
    EXPECT_EQ(r.rows.front().size_bytes, 8u);
    const NcclRow& last = r.rows.back();
    EXPECT_EQ(last.size_bytes, 17179869184u);
    EXPECT_DOUBLE_EQ(last.oop_time_us, 62239);
    EXPECT_DOUBLE_EQ(last.oop_algbw, 276.03);
    EXPECT_DOUBLE_EQ(last.oop_busbw, 483.05);
    EXPECT_EQ(last.oop_wrong, 0);
    EXPECT_DOUBLE_EQ(last.ip_time_us, 62200);
    EXPECT_DOUBLE_EQ(last.ip_algbw, 276.20);
    EXPECT_DOUBLE_EQ(last.ip_busbw, 483.35);
    ASSERT_TRUE(r.avg_busbw);
    EXPECT_DOUBLE_EQ(*r.avg_busbw, 156.742);
    double total = 0, max_oop = 0, max_ip = 0, big = 0;
    int nbig = 0;
    for (const NcclRow& row : r.rows) {
        total += row.oop_busbw + row.ip_busbw;
        max_oop = std::max(max_oop, row.oop_busbw);
        max_ip = std::max(max_ip, row.ip_busbw);
        if (row.size_bytes >= (1ull << 30)) {
            big += row.oop_busbw;
            ++nbig;
        }
    }
    EXPECT_NEAR(total / 64.0, *r.avg_busbw, 0.01);
    EXPECT_DOUBLE_EQ(max_oop, 483.05);
    EXPECT_DOUBLE_EQ(max_ip, 483.35);
    EXPECT_EQ(nbig, 5);
    EXPECT_NEAR(big / nbig, 465.056, 1e-9);
}

// `kubectl logs --all-containers --prefix` (the Kubernetes backend's kubectl-<job>.log) puts
// "[pod/NAME/CONTAINER] " before every line: each text sample read that way gives the same
// series, records and format as the file itself.
TEST(Samples, KubectlPrefixedLinesReadLikeTheFileForEveryTextFormat) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"dllogger", "dllogger_example_resnet_log.json"},
        {"megatron", "awsome-distributed-training_megatron-lm-slurm-gpt3-README_iterations.txt"},
        {"nemo", "awsome-distributed-training_nemo-kubernetes-README_nemo2-progress.txt"},
        {"metaseq", "fairseq_examples-fully_sharded_data_parallel-README_13B-8xV100-json.txt"},
        {"nccl-tests", "awsome-distributed-training_nccl-tests-aws-batch-README_p5-allreduce.txt"},
    };
    for (const auto& [format, name] : cases) {
        REQUIRE_SAMPLE(path, name);
        const std::string plain = read_all(path);
        std::string prefixed;
        std::size_t pos = 0;
        while (pos < plain.size()) {
            std::size_t nl = plain.find('\n', pos);
            std::size_t end = nl == std::string::npos ? plain.size() : nl + 1;
            prefixed += "[pod/gpt3-175b-fp8-a3mega-16n-smoke-3fa2c1-0-x7k2p/training] " + plain.substr(pos, end - pos);
            pos = end;
        }
        SCOPED_TRACE(name);
        EXPECT_EQ(trainbench::metrics::detail::detect_from_content("kubectl-job.log", prefixed), format);
        LogData a = parse_text(format, plain);
        LogData b = parse_text(format, prefixed);
        EXPECT_GT(b.stats.records, 0u);
        EXPECT_EQ(b.stats.records, a.stats.records);
        EXPECT_EQ(b.stats.skipped, a.stats.skipped);
        ASSERT_EQ(b.series.size(), a.series.size());
        for (const auto& [key, series] : a.series) {
            ASSERT_TRUE(b.series.count(key)) << key;
            EXPECT_EQ(values(b, key), values(a, key)) << key;
        }
        ASSERT_EQ(b.nccl.has_value(), a.nccl.has_value());
        if (a.nccl) {
            EXPECT_EQ(b.nccl->rows.size(), a.nccl->rows.size());
        }
    }
    // Not a kubectl prefix: left alone.
    for (const char* line : {"[pod/a] x", "[pod/a/b]x", "[pod/a b/c] x", "[pod//c] x", "[pod/a/] x"})
        EXPECT_EQ(trainbench::metrics::detail::strip_kubectl_prefix(line), line);
    EXPECT_EQ(trainbench::metrics::detail::strip_kubectl_prefix("[pod/a/b] x"), "x");
}
