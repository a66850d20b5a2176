// probe_local_gpus: this machine's NVIDIA GPUs from /dev and the driver's /proc files.
#include <trainbench/backend.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <unistd.h>

namespace fs = std::filesystem;

namespace trainbench::backend {
namespace {

class LocalGpusTest : public ::testing::Test {
protected:
    void SetUp() override {
        m_root = fs::temp_directory_path() / ("tb-local-gpus-" + std::to_string(::getpid()));
        fs::remove_all(m_root);
        fs::create_directories(m_root / "dev");
        fs::create_directories(m_root / "gpus");
        if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) m_saved = v;
        ::unsetenv("CUDA_VISIBLE_DEVICES");
    }
    void TearDown() override {
        if (m_saved)
            ::setenv("CUDA_VISIBLE_DEVICES", m_saved->c_str(), 1);
        else
            ::unsetenv("CUDA_VISIBLE_DEVICES");
        fs::remove_all(m_root);
    }
    void touch(const fs::path& p, const std::string& text = {}) {
        fs::create_directories(p.parent_path());
        std::ofstream(p) << text;
    }
    LocalGpus probe() { return probe_local_gpus(m_root / "dev", m_root / "gpus"); }
    fs::path m_root;
    std::optional<std::string> m_saved;
};

TEST_F(LocalGpusTest, CountsTheGpuDeviceNodesAndNamesThemFromTheDriver) {
    for (const char* node :
         {"nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset", "null", "nvidiax"})
        touch(m_root / "dev" / node);
    touch(m_root / "gpus" / "0000:19:00.0" / "information",
          "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t 123\nGPU UUID: \t GPU-1\n");
    touch(m_root / "gpus" / "0000:3b:00.0" / "information", "Model: \t\t NVIDIA H100 80GB HBM3 \nIRQ: 1\n");
    const LocalGpus g = probe();
    EXPECT_EQ(g.device_nodes, 2);
    EXPECT_EQ(g.count, 2);
    EXPECT_EQ(g.names, (std::vector<std::string>{"NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"}));
    EXPECT_FALSE(g.visible_devices_set);
}

TEST_F(LocalGpusTest, CudaVisibleDevicesLimitsTheCount) {
    for (const char* node : {"nvidia0", "nvidia1", "nvidia2"}) touch(m_root / "dev" / node);
    ::setenv("CUDA_VISIBLE_DEVICES", "2", 1);
    EXPECT_EQ(probe().count, 1);
    ::setenv("CUDA_VISIBLE_DEVICES", "0,1,2,3", 1);
    EXPECT_EQ(probe().count, 3);  // no more than the device nodes
    ::setenv("CUDA_VISIBLE_DEVICES", "", 1);
    EXPECT_EQ(probe().count, 0);
    EXPECT_NE(probe().evidence.find("CUDA_VISIBLE_DEVICES=''"), std::string::npos) << probe().evidence;
    ::setenv("CUDA_VISIBLE_DEVICES", "-1", 1);
    EXPECT_EQ(probe().count, 0);
}

TEST_F(LocalGpusTest, NoDeviceNodesNoGpus) {
    touch(m_root / "dev" / "nvidiactl");
    EXPECT_EQ(probe().count, 0);
    const LocalGpus missing = probe_local_gpus(m_root / "no-such-dev", m_root / "no-such-proc");
    EXPECT_EQ(missing.count, 0);
    EXPECT_TRUE(missing.names.empty());
    EXPECT_NE(missing.evidence.find("0 "), std::string::npos) << missing.evidence;
}

}  // namespace
}  // namespace trainbench::backend
