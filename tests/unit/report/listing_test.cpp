// `trainbench list gpus|models`: every peak with its source, every model with its source.
#include "unit/shipped_gpus.hpp"

#include <trainbench/report.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace trainbench::report {
namespace {

using ::testing::HasSubstr;

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const std::string& l : lines) out += l + "\n";
    return out;
}

TEST(Listing, GpusShowEachPeakWithItsSourceAndClockAndEveryToolTable) {
    const Listing l = gpu_listing(testing::shipped_gpu_catalog());
    EXPECT_EQ(l.header, (std::vector<std::string>{"GPU", "FAMILY", "MEMORY_GIB", "BF16", "FP16", "FP8", "MXFP8",
                                                  "NVFP4", "TF32", "FP32", "DESCRIPTION"}));
    const std::string notes = joined(l.notes);
    EXPECT_THAT(notes, HasSubstr("b200-sxm-180gb nvfp4 9000: NVIDIA Blackwell datasheet, HGX B200 FP4 Tensor Core 18 "
                                 "PFLOPS with sparsity / 2"));
    EXPECT_THAT(notes, HasSubstr("[HGX B200, TDP configurable up to 1,000 W]"));
    EXPECT_THAT(notes, HasSubstr("h100-sxm-80gb gpu-recipes table: bf16 989, fp8 1978 (gpu-recipes data_defs.py "
                                 "MAX_TFLOPS)"));
    EXPECT_THAT(notes, HasSubstr("gb200-186gb dgxc-benchmarking table: bf16 2450, fp8 4900, nvfp4 9800"));
    // every peak of every GPU has its line
    std::size_t peaks = 0;
    for (const auto& [name, g] : testing::shipped_gpu_catalog().gpus()) peaks += g.peak_tflops_dense.size();
    std::size_t peak_lines = 0;
    for (const std::string& line : l.notes) {
        // "<gpu> <precision> <tflops>: <source>"
        const std::size_t a = line.find(' '), b = line.find(' ', a + 1);
        if (a != std::string::npos && b != std::string::npos &&
            catalog::parse_precision(std::string_view(line).substr(a + 1, b - a - 1)))
            ++peak_lines;
    }
    EXPECT_EQ(peak_lines, peaks);
    EXPECT_EQ(l.json.at(0).at("peak_sources").at("bf16").at("source").get<std::string>().empty(), false);
}

TEST(Listing, ModelsShowTheirSource) {
    const Listing l = model_listing(testing::shipped_gpu_catalog());
    EXPECT_EQ(l.header.back(), "SOURCE");
    bool found = false;
    for (const auto& row : l.rows) {
        if (row.front() != "deepseek-v3") continue;
        found = true;
        EXPECT_EQ(row.back(), "https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json");
        EXPECT_EQ(row.at(7), "8/256");
    }
    EXPECT_TRUE(found);
}

}  // namespace
}  // namespace trainbench::report
