// gpus.yaml's device_names: the catalog GPU of a device name as the CUDA driver reports it.
#include <trainbench/catalog.hpp>

#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace trainbench::catalog {
namespace {

const Catalog& shipped() {
    static const Catalog cat = Catalog::load({fs::path(TRAINBENCH_SOURCE_DIR) / "recipes"});
    return cat;
}

TEST(DeviceNames, MatchIgnoringCaseAndBlanksWithStars) {
    EXPECT_TRUE(device_name_matches("NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"));
    EXPECT_TRUE(device_name_matches("NVIDIA H100 80GB HBM3", "  nvidia  h100 80gb\tHBM3 "));
    EXPECT_FALSE(device_name_matches("NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3 MIG 1g.10gb"));
    EXPECT_FALSE(device_name_matches("NVIDIA H200", "NVIDIA H200 NVL"));
    EXPECT_TRUE(device_name_matches("NVIDIA H100*", "NVIDIA H100 NVL"));
    EXPECT_TRUE(device_name_matches("*A100*80GB*", "NVIDIA A100 80GB PCIe"));
    EXPECT_FALSE(device_name_matches("*A100*80GB*", "NVIDIA A100-SXM4-40GB"));
    EXPECT_TRUE(device_name_matches("*", ""));
    EXPECT_FALSE(device_name_matches("", "NVIDIA H100"));
}

// The names NVIDIA's drivers give these GPUs (nvidia-smi --query-gpu=name, torch.cuda.get_device_name).
TEST(DeviceNames, TheShippedCatalogNamesTheDataCentreGpus) {
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"NVIDIA H100 80GB HBM3", "h100-sxm-80gb"},  {"NVIDIA H100 PCIe", "h100-pcie-80gb"},
        {"NVIDIA H100 NVL", "h100-nvl-pcie-94gb"},   {"NVIDIA H200", "h200-sxm-141gb"},
        {"NVIDIA H200 NVL", "h200-nvl-pcie-141gb"},  {"NVIDIA A100-SXM4-40GB", "a100-sxm-40gb"},
        {"NVIDIA A100-SXM4-80GB", "a100-sxm-80gb"},  {"NVIDIA A100-PCIE-40GB", "a100-pcie-40gb"},
        {"NVIDIA A100 80GB PCIe", "a100-pcie-80gb"},
    };
    for (const auto& [device, gpu] : expected) EXPECT_EQ(shipped().gpu_for_device(device, "test").name, gpu) << device;
    // Each GPU's own names map back to it alone (no two GPUs share a name).
    for (const auto& [name, gpu] : shipped().gpus()) {
        for (const std::string& pattern : gpu.device_names) {
            if (pattern.find('*') == std::string::npos) {
                EXPECT_EQ(shipped().gpu_for_device(pattern, "test").name, name);
            }
        }
    }
    // The PCIe and NVL H100/H200 have peaks of their own, not the SXM's.
    EXPECT_DOUBLE_EQ(shipped().find_gpu("h100-pcie-80gb")->peak_tflops_dense.at(Precision::bf16), 756.5);
    EXPECT_DOUBLE_EQ(shipped().find_gpu("h100-nvl-pcie-94gb")->peak_tflops_dense.at(Precision::bf16), 835.5);
    EXPECT_NE(shipped().find_gpu("h100-pcie-80gb")->family, "h100");
}

TEST(DeviceNames, AnUnknownGpuIsAnErrorNamingWhatWasSeen) {
    try {
        (void)shipped().gpu_for_device("NVIDIA GeForce RTX 4090", "the log's gpu_device_name");
        FAIL() << "no error";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("'NVIDIA GeForce RTX 4090' (the log's gpu_device_name) is not in the catalog"),
                  std::string::npos)
            << what;
        EXPECT_NE(what.find("'NVIDIA H100 80GB HBM3' (h100-sxm-80gb)"), std::string::npos) << what;
        EXPECT_NE(e.hint().find("device_names"), std::string::npos) << e.hint();
    }
    try {
        (void)shipped().gpu_for_device("NVIDIA H100 80GB HBM3 MIG 3g.40gb", "test");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(e.hint().find("MIG instance"), std::string::npos) << e.hint();
    }
}

TEST(DeviceNames, TwoGpusListingOneNameIsAnError) {
    Catalog cat;
    Gpu a;
    a.name = "a";
    a.family = "a";
    a.device_names = {"NVIDIA X*"};
    Gpu b = a;
    b.name = "b";
    b.device_names = {"NVIDIA X 80GB"};
    cat.add_gpu(a);
    cat.add_gpu(b);
    EXPECT_EQ(cat.gpu_for_device("NVIDIA X 40GB", "test").name, "a");
    EXPECT_THROW((void)cat.gpu_for_device("NVIDIA X 80GB", "test"), InputError);
}

}  // namespace
}  // namespace trainbench::catalog
