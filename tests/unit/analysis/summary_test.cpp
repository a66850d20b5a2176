// analyse(): gaps filled from the log, cross-check, peaks, expectations.
#include "unit/analysis/test_models.hpp"
#include "unit/shipped_gpus.hpp"

#include <gtest/gtest.h>

namespace trainbench::analysis {
namespace {

using testing::gpt3_175b;
using testing::k_seed_step;

metrics::LogData seed_log() {
    metrics::LogData log;
    log.format = "dllogger";
    log.parameters = {{"cfg/global_batch_size", "2048"},
                      {"cfg/micro_batch_size", "1"},
                      {"cfg/tensor_model_parallel_size", "4"},
                      {"cfg/pipeline_model_parallel_size", "8"},
                      {"cfg/encoder_seq_length", "2048"},
                      {"cfg/num_layers", "96"},
                      {"cfg/hidden_size", "12288"},
                      {"cfg/ffn_hidden_size", "49152"},
                      {"cfg/num_attention_heads", "96"},
                      {"cfg/num_query_groups", "null"},
                      {"cfg/fp8", "true"},
                      {"cfg/precision", "\"bf16-mixed\""},
                      {"trainer/num_nodes", "32"},
                      {"trainer/devices", "8"}};
    for (int s = 0; s < 50; ++s) {
        metrics::Series& st = log.series["step_time_s"];
        st.name = "step_time_s";
        st.points.push_back({s, s == 0 ? 90.0 : (s == 47 ? k_seed_step : 25.1), 0});
        metrics::Series& loss = log.series["loss"];
        loss.name = "loss";
        loss.points.push_back({s, 11.0 - 0.01 * s, 0});
    }
    return log;
}

AnalysisRequest bare_request(const metrics::LogData& log) {
    AnalysisRequest r;
    r.inputs.model = gpt3_175b();
    r.inputs.model_origin = "--model";
    r.inputs.gpu_family = "h100";
    r.inputs.gpu_name = "h100";
    r.inputs.catalog_gpu = trainbench::testing::shipped_gpu("h100-sxm-80gb");
    r.inputs.convention = "gpu-recipes";
    r.inputs.convention_origin = "--flops";
    r.inputs.window = {47, 47};
    r.inputs.precision_origin = "default";
    r.log = &log;
    r.step_records = step_samples(log);
    return r;
}

TEST(Analyse, FillsGapsFromTheLogAndReproducesTheSeedFigures) {
    const auto log = seed_log();
    const RunSummary s = analyse(bare_request(log));
    EXPECT_EQ(s.inputs.gpus, 256);
    EXPECT_EQ(s.inputs.gpus_origin, "log trainer/num_nodes x trainer/devices");
    EXPECT_EQ(s.inputs.global_batch, 2048);
    EXPECT_EQ(s.inputs.global_batch_origin, "log cfg/global_batch_size");
    EXPECT_EQ(s.inputs.precision, catalog::Precision::fp8);
    EXPECT_EQ(s.inputs.tensor_parallel, 4);
    EXPECT_EQ(s.peak.tflops, 1978);
    EXPECT_NEAR(s.derived.tflops_per_gpu, 700.76105452, 5e-9);
    EXPECT_NEAR(s.derived.mfu, 0.35427758, 5e-9);
    EXPECT_EQ(s.convention, "gpu-recipes-2025-05");
    EXPECT_EQ(s.convention_alias, "gpu-recipes");
    EXPECT_EQ(s.loss.size(), 50U);
    EXPECT_EQ(s.step_times.size(), 50U);
    for (const CrossCheck& c : s.cross_checks) EXPECT_TRUE(c.match) << c.key;
}

TEST(Analyse, ReportsEveryMismatchBetweenFlagsAndTheLog) {
    const auto log = seed_log();
    auto req = bare_request(log);
    req.inputs.global_batch = 1024;
    req.inputs.global_batch_origin = "--global-batch";
    req.inputs.gpus = 256;
    req.inputs.gpus_origin = "--gpus";
    req.inputs.precision = catalog::Precision::bf16;
    req.inputs.precision_origin = "--precision";
    req.inputs.model.layers = 80;
    const RunSummary s = analyse(req);
    std::vector<std::string> mismatched;
    for (const CrossCheck& c : s.cross_checks)
        if (!c.match) mismatched.push_back(c.key);
    EXPECT_EQ(mismatched, (std::vector<std::string>{"global_batch", "layers", "precision"}));
    EXPECT_EQ(s.inputs.global_batch, 1024);  // the flag wins, the mismatch is reported
    ASSERT_FALSE(s.findings.empty());
    bool found = false;
    for (const Finding& f : s.findings)
        found = found || f.message ==
                             "the log declares global_batch = 2048 ('cfg/global_batch_size') but "
                             "--global-batch says 1024";
    EXPECT_TRUE(found);
}

TEST(Analyse, MissingFlagsNameTheFlag) {
    metrics::LogData log;
    log.series["step_time_s"].points = {{1, 2.0, 0}};
    AnalysisRequest r;
    r.log = &log;
    r.step_records = step_samples(log);
    r.inputs.window = {1, 1};
    r.inputs.model = gpt3_175b();
    r.inputs.gpu_family = "h100";
    try {
        (void)analyse(r);
        FAIL();
    } catch (const UsageError& e) {
        EXPECT_NE(e.hint().find("--gpus"), std::string::npos);
    }
    r.inputs.gpus = 8;
    try {
        (void)analyse(r);
        FAIL();
    } catch (const UsageError& e) {
        EXPECT_NE(e.hint().find("--global-batch"), std::string::npos);
    }
}

TEST(Analyse, CpuUsesThePeakTheWorkloadMeasured) {
    metrics::LogData log;
    log.parameters = {{"peak_tflops_measured", "0.125"}, {"peak_precision", "\"fp32\""}};
    for (int s = 0; s < 10; ++s) log.series["step_time_s"].points.push_back({s, 0.5, 0});
    AnalysisRequest r;
    r.log = &log;
    r.step_records = step_samples(log);
    r.inputs.window = {2, 9};
    r.inputs.model = testing::gpt_model("tinygpt-small", 4, 256, 4, 256, "tinygpt");
    r.inputs.model.vocab = 512;
    r.inputs.gpus = 2;
    r.inputs.global_batch = 8;
    r.inputs.gpu_family = "cpu";
    r.inputs.convention = "megatron";
    const RunSummary s = analyse(r);
    EXPECT_DOUBLE_EQ(s.peak.tflops, 0.125);
    EXPECT_EQ(s.peak.precision, "fp32");
    EXPECT_EQ(s.peak.source, "measured on this machine by the workload's matmul calibration");
    EXPECT_NEAR(s.derived.mfu, s.derived.tflops_per_gpu / 0.125, 1e-15);
    EXPECT_FALSE(s.peak.measured_tflops);  // the CPU's peak is the measurement: not shown twice
    EXPECT_FALSE(s.derived.mfu_measured);
    log.parameters.clear();
    EXPECT_THROW((void)analyse(r), InputError);
}

TEST(Analyse, AGpuRunShowsItsMeasuredPeakBesideTheDatasheetPeak) {
    metrics::LogData log;
    log.parameters = {{"peak_tflops_measured", "700.5"}, {"peak_precision", "\"bf16\""}};
    for (int s = 0; s < 10; ++s) log.series["step_time_s"].points.push_back({s, 0.25, 0});
    AnalysisRequest r;
    r.log = &log;
    r.step_records = step_samples(log);
    r.inputs.window = {2, 9};
    r.inputs.model = testing::gpt_model("gpt2-medium", 24, 1024, 16, 1024, "gpt2");
    r.inputs.model.vocab = 50257;
    r.inputs.gpus = 1;
    r.inputs.global_batch = 32;
    r.inputs.gpu_family = "h100";
    r.inputs.catalog_gpu = trainbench::testing::shipped_gpu("h100-sxm-80gb");
    r.inputs.precision = catalog::Precision::bf16;
    r.inputs.precision_origin = "--precision";
    r.inputs.convention = "megatron";
    RunSummary s = analyse(r);
    EXPECT_DOUBLE_EQ(s.peak.tflops, 989);  // the datasheet's dense peak stays the MFU denominator
    ASSERT_TRUE(s.peak.measured_tflops);
    EXPECT_DOUBLE_EQ(*s.peak.measured_tflops, 700.5);
    EXPECT_NE(s.peak.measured_source.find("peak_tflops_measured"), std::string::npos);
    EXPECT_NEAR(s.derived.mfu, s.derived.tflops_per_gpu / 989, 1e-15);
    ASSERT_TRUE(s.derived.mfu_measured);
    EXPECT_NEAR(*s.derived.mfu_measured, s.derived.tflops_per_gpu / 700.5, 1e-15);
    EXPECT_EQ(s.figure("mfu_measured"), s.derived.mfu_measured);
    // A calibration in another precision than the report's is not set beside it.
    log.parameters["peak_precision"] = "\"fp32\"";
    s = analyse(r);
    EXPECT_FALSE(s.peak.measured_tflops);
    EXPECT_FALSE(s.derived.mfu_measured);
}

PeakRequest peak_request(std::string convention, const char* gpu, catalog::Precision p) {
    PeakRequest r;
    r.convention = std::move(convention);
    r.gpu = &trainbench::testing::shipped_gpu(gpu);
    r.gpu_family = r.gpu->family;
    r.precision = p;
    return r;
}

std::string error_of(const PeakRequest& p) {
    try {
        (void)resolve_peak(p);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(Peaks, DifferPerConventionWhereTheToolsDiffer) {
    PeakRequest p = peak_request("gpu-recipes", "h100-sxm-80gb", catalog::Precision::fp8);
    EXPECT_EQ(resolve_peak(p).tflops, 1978);
    EXPECT_EQ(resolve_peak(p).source, "gpu-recipes data_defs.py MAX_TFLOPS");
    p.convention = "megatron";
    EXPECT_EQ(resolve_peak(p).tflops, 1979);
    EXPECT_EQ(resolve_peak(p).source, "NVIDIA dense peak (datasheet sparse value / 2, as NVIDIA publishes it)");
    p.precision = catalog::Precision::bf16;
    EXPECT_EQ(resolve_peak(p).tflops, 989);
    p = peak_request("megatron", "a100-sxm-80gb", catalog::Precision::bf16);
    EXPECT_EQ(resolve_peak(p).tflops, 312);
    p.override_tflops = 300;
    EXPECT_EQ(resolve_peak(p).tflops, 300);
    EXPECT_EQ(resolve_peak(p).source, "given on the command line (--peak)");
    // A tool table asked for by name: dgxc-benchmarking's GB200 figure, not the datasheet's
    p = peak_request("megatron", "gb200-186gb", catalog::Precision::bf16);
    p.tool = "dgxc-benchmarking";
    EXPECT_EQ(resolve_peak(p).tflops, 2450);
    EXPECT_EQ(resolve_peak(p).source, "dgxc-benchmarking README.md Peak Theoretical Throughput (841f5466)");
}

TEST(Peaks, AGpuWithoutATableEntryUsesItsOwnDatasheetPeakWithItsSourceAndClock) {
    // GB200 has no NVIDIA-rounded table: the datasheet's dense figure, with where it comes from
    PeakRequest p = peak_request("megatron", "gb200-186gb", catalog::Precision::bf16);
    const Peak peak = resolve_peak(p);
    EXPECT_EQ(peak.tflops, 2500);
    EXPECT_EQ(peak.gpu, "gb200");
    EXPECT_NE(peak.source.find("NVIDIA Blackwell datasheet, GB200 NVL72 per GPU"), std::string::npos) << peak.source;
    EXPECT_NE(peak.source.find("up to 1,200 W"), std::string::npos) << peak.source;
    p.precision = catalog::Precision::nvfp4;
    EXPECT_EQ(resolve_peak(p).tflops, 10000);
    p = peak_request("megatron", "b200-sxm-180gb", catalog::Precision::mxfp8);
    EXPECT_EQ(resolve_peak(p).tflops, 4500);
    p.convention = "gpu-recipes";  // gpu-recipes has B200 bf16/fp8 only: never another table's figure
    EXPECT_NE(error_of(p).find("gpu-recipes has no peak for GPU 'b200' at precision 'mxfp8'; for this GPU it has "
                               "'bf16' and 'fp8'"),
              std::string::npos)
        << error_of(p);
}

TEST(Peaks, AnUnknownCombinationIsAClearErrorNeverACrash) {
    PeakRequest p = peak_request("gpu-recipes", "a100-sxm-80gb", catalog::Precision::fp8);
    EXPECT_NE(error_of(p).find("gpu-recipes has no peak for GPU 'a100' at precision 'fp8'; for this GPU it has 'bf16'"),
              std::string::npos)
        << error_of(p);
    p.convention = "megatron";  // A100 has no FP8: an error naming its precisions
    EXPECT_NE(error_of(p).find("GPU 'a100-sxm-80gb' has no fp8 peak; its precisions are 'bf16', 'fp16', 'tf32' "
                               "and 'fp32'"),
              std::string::npos)
        << error_of(p);
    p = peak_request("megatron", "h100-sxm-80gb", catalog::Precision::nvfp4);
    EXPECT_NE(error_of(p).find("GPU 'h100-sxm-80gb' has no nvfp4 peak"), std::string::npos) << error_of(p);
    // No catalog GPU: never another GPU's figure, whatever the family is called
    p.gpu = nullptr;
    p.gpu_family = "v100";
    p.precision = catalog::Precision::fp16;
    EXPECT_NE(error_of(p).find("no peak TFLOPS known for GPU 'v100': it is not a GPU of the catalog"),
              std::string::npos)
        << error_of(p);
    p.gpu_family = "h100";
    EXPECT_THROW((void)resolve_peak(p), InputError) << "a family name alone is no catalog GPU";
}

RunSummary summary_with(double step, double mfu) {
    RunSummary s;
    s.stats.mean = step;
    s.derived.mfu = mfu;
    return s;
}

recipe::Expectation expect(std::string figure) {
    recipe::Expectation e;
    e.figure = std::move(figure);
    return e;
}

TEST(Expectations, CheckValueWithRelativeOrAbsoluteToleranceAndBounds) {
    auto rel = expect("step_time_s");
    rel.value = 25.1;
    rel.tolerance = 0.05;  // the recipe's "5%"
    rel.tolerance_is_relative = true;
    auto abs = expect("step_time_s");
    abs.value = 25.0;
    abs.tolerance = 0.1;
    auto min = expect("mfu");
    min.min = 0.35;
    const auto r = check_expectations(summary_with(26.0, 0.36), {rel, abs, min});
    ASSERT_EQ(r.size(), 3U);
    EXPECT_TRUE(r[0].passed);
    EXPECT_EQ(r[0].rule, "25.1 ± 5% [23.845, 26.355]");
    EXPECT_FALSE(r[1].passed);
    EXPECT_EQ(r[1].message, "26 is above 25.1");
    EXPECT_TRUE(r[2].passed);
    EXPECT_EQ(r[2].rule, ">= 0.35");
    const auto low = check_expectations(summary_with(26.0, 0.30), {min});
    EXPECT_FALSE(low[0].passed);
    EXPECT_EQ(low[0].message, "0.3 is below 0.35");
}

TEST(Expectations, UnknownFigureIsAnInputErrorWithASuggestion) {
    try {
        (void)check_expectations(summary_with(1, 1), {expect("step_time")});
        FAIL();
    } catch (const InputError& e) {
        ASSERT_EQ(e.diagnostics().items().size(), 1U);
        EXPECT_EQ(e.diagnostics().items()[0].hint, "did you mean 'step_time_s'?");
    }
}

}  // namespace
}  // namespace trainbench::analysis
