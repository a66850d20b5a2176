// GPUs: the shipped Blackwell entries, every peak with its source, the tool tables, and the
// located errors of a GPU file.
#include <trainbench/catalog.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace trainbench::catalog {
namespace {

const Catalog& shipped() {
    static const Catalog cat = Catalog::load({fs::path(TRAINBENCH_SOURCE_DIR) / "recipes"});
    return cat;
}

const Gpu& gpu(const char* name) {
    const Gpu* g = shipped().find_gpu(name);
    if (!g) throw std::logic_error(std::string("no GPU ") + name);
    return *g;
}

TEST(Gpus, BlackwellHasDensePeaksPerPrecisionIncludingMxfp8AndNvfp4) {
    const Gpu& b200 = gpu("b200-sxm-180gb");
    EXPECT_EQ(b200.family, "b200");
    EXPECT_DOUBLE_EQ(b200.memory_gib, 180);
    EXPECT_DOUBLE_EQ(b200.peak_tflops_dense.at(Precision::bf16), 2250);
    EXPECT_DOUBLE_EQ(b200.peak_tflops_dense.at(Precision::fp8), 4500);
    EXPECT_DOUBLE_EQ(b200.peak_tflops_dense.at(Precision::mxfp8), 4500);
    EXPECT_DOUBLE_EQ(b200.peak_tflops_dense.at(Precision::nvfp4), 9000);
    EXPECT_DOUBLE_EQ(b200.peak_tflops_dense.at(Precision::tf32), 1100);
    const Gpu& gb200 = gpu("gb200-186gb");
    EXPECT_DOUBLE_EQ(gb200.peak_tflops_dense.at(Precision::bf16), 2500);
    EXPECT_DOUBLE_EQ(gb200.peak_tflops_dense.at(Precision::nvfp4), 10000);
    EXPECT_DOUBLE_EQ(*gb200.tool_peak("dgxc-benchmarking", Precision::bf16), 2450)
        << "NVIDIA's benchmarking divides by less";
    const Gpu& gb300 = gpu("gb300-279gb");
    EXPECT_DOUBLE_EQ(gb300.peak_tflops_dense.at(Precision::nvfp4), 15000);
    EXPECT_DOUBLE_EQ(*gb300.tool_peak("dgxc-benchmarking", Precision::nvfp4), 14700);
    const Gpu& b300 = gpu("b300-sxm-270gb");
    EXPECT_DOUBLE_EQ(b300.peak_tflops_dense.at(Precision::nvfp4), 13500);
    EXPECT_FALSE(b300.supports(Precision::tf32)) << "left out: the published dense figures disagree";
    // Hopper and Ampere have neither block-scaled format; Ampere has no FP8 at all
    EXPECT_FALSE(gpu("h100-sxm-80gb").supports(Precision::nvfp4));
    EXPECT_FALSE(gpu("h100-sxm-80gb").supports(Precision::mxfp8));
    EXPECT_EQ(gpu("a100-sxm-80gb").precision_names(), (std::vector<std::string>{"bf16", "fp16", "tf32", "fp32"}));
}

TEST(Gpus, EveryShippedPeakHasASourceAndEveryToolTableOne) {
    for (const auto& [name, g] : shipped().gpus()) {
        for (const auto& [p, v] : g.peak_tflops_dense) {
            ASSERT_TRUE(g.peak_notes.count(p)) << name << " " << to_string(p);
            EXPECT_FALSE(g.peak_notes.at(p).source.empty()) << name << " " << to_string(p);
            EXPECT_FALSE(g.peak_notes.at(p).clock.empty()) << name << " " << to_string(p);
        }
        for (const auto& [tool, t] : g.tool_peaks) {
            EXPECT_FALSE(t.source.empty()) << name << " " << tool;
            for (const auto& [p, v] : t.tflops)
                EXPECT_TRUE(g.supports(p)) << name << " " << tool << " " << to_string(p);
        }
    }
}

TEST(Gpus, TheToolTablesAreTheToolsOwnNumbers) {
    // gpu-recipes data_defs.py MAX_TFLOPS (2e1fd5ef): h100/h200 989/1978, b200 2250/4500, a100 312
    EXPECT_DOUBLE_EQ(*gpu("h100-sxm-80gb").tool_peak("gpu-recipes", Precision::fp8), 1978);
    EXPECT_DOUBLE_EQ(*gpu("h200-sxm-141gb").tool_peak("gpu-recipes", Precision::bf16), 989);
    EXPECT_DOUBLE_EQ(*gpu("b200-sxm-180gb").tool_peak("gpu-recipes", Precision::fp8), 4500);
    EXPECT_DOUBLE_EQ(*gpu("a100-sxm-40gb").tool_peak("gpu-recipes", Precision::bf16), 312);
    EXPECT_EQ(gpu("a100-sxm-40gb").tool_peak("gpu-recipes", Precision::fp16), nullptr);
    // NVIDIA's published rounding (what every convention but gpu-recipes divides by)
    EXPECT_DOUBLE_EQ(*gpu("h100-sxm-80gb").tool_peak("nvidia", Precision::fp8), 1979);
    EXPECT_DOUBLE_EQ(*gpu("h100-sxm-80gb").tool_peak("nvidia", Precision::bf16), 989);
    // TorchTitan get_peak_flops (BF16 only): GB200/GB300 2.5e15, B200/B300 2.25e15
    EXPECT_DOUBLE_EQ(*gpu("gb300-279gb").tool_peak("torchtitan", Precision::bf16), 2500);
    EXPECT_DOUBLE_EQ(*gpu("b300-sxm-270gb").tool_peak("torchtitan", Precision::bf16), 2250);
    EXPECT_EQ(gpu("b300-sxm-270gb").tool_peak("torchtitan", Precision::fp8), nullptr);
    EXPECT_EQ(gpu("b300-sxm-270gb").tool_peak("no-such-tool", Precision::bf16), nullptr);
}

class GpuFile : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() /
                ("tb-gpus-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir / "catalog");
    }
    void TearDown() override { fs::remove_all(m_dir); }
    std::string errors(const std::string& text) {
        std::ofstream(m_dir / "catalog" / "gpus.yaml") << text;
        try {
            (void)Catalog::load({m_dir}, CatalogParts::without_targets);
        } catch (const InputError& e) {
            return e.diagnostics().format();
        }
        return "";
    }
    fs::path m_dir;
};

TEST_F(GpuFile, PeaksNotesAndToolTablesAreReadAndChecked) {
    EXPECT_EQ(errors("g:\n  family: x\n  peak_tflops: {bf16: 100, nvfp4: 400}\n  peak_source: datasheet\n"
                     "  peak_clock: 1 GHz\n  peak_notes:\n    nvfp4: {source: other page}\n"
                     "  tool_peaks:\n    t: {source: t.py, tflops: {bf16: 99}}\n"),
              "");
    const Catalog cat = Catalog::load({m_dir}, CatalogParts::without_targets);
    const Gpu& g = *cat.find_gpu("g");
    EXPECT_EQ(g.peak_notes.at(Precision::bf16).source, "datasheet");
    EXPECT_EQ(g.peak_notes.at(Precision::nvfp4).source, "other page");
    EXPECT_EQ(g.peak_notes.at(Precision::nvfp4).clock, "1 GHz") << "a note inherits the GPU's clock";
    EXPECT_DOUBLE_EQ(*g.tool_peak("t", Precision::bf16), 99);
    EXPECT_EQ(g.tool_peaks.at("t").source, "t.py");
}

TEST_F(GpuFile, AToolPeakForAPrecisionTheGpuLacksIsAnErrorNamingItsPrecisions) {
    std::string out = errors(
        "g:\n  family: x\n  peak_tflops: {bf16: 100, fp16: 100}\n"
        "  tool_peaks:\n    t: {source: t.py, tflops: {fp8: 200}}\n");
    EXPECT_THAT(out, HasSubstr("gpus.yaml:5:8: error: 'g.tool_peaks.t.tflops': a fp8 peak for a GPU that has no fp8 "
                               "(its precisions: 'bf16' and 'fp16')"));
}

TEST_F(GpuFile, UnknownPrecisionsAndMissingSourcesAreLocated) {
    std::string out = errors(
        "g:\n  family: x\n  peak_tflops: {bf16: 100, nvfp5: 3}\n"
        "  peak_notes:\n    fp8: {source: s}\n  tool_peaks:\n    t: {tflops: {bf16: 1}}\n");
    EXPECT_THAT(out, HasSubstr("'g.peak_tflops.nvfp5': unknown key"));
    EXPECT_THAT(out, HasSubstr("did you mean 'nvfp4'?"));
    EXPECT_THAT(out, HasSubstr("gpus.yaml:5:10: error: 'g.peak_notes.fp8': a note for fp8, which has no peak"));
    EXPECT_THAT(out, HasSubstr("'g.tool_peaks.t.source': required key is missing"));
}

}  // namespace
}  // namespace trainbench::catalog
