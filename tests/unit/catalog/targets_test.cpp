// Today's targets (GKE A3 Ultra and A4 with gIB, AWS p5 with EFA, Azure ND GB200 v6 with NVL72
// block topology) and the target keys of network stacks and NVLink domains.
#include <trainbench/catalog.hpp>

#include <gtest/gtest.h>

#include <fstream>

namespace fs = std::filesystem;

namespace trainbench::catalog {
namespace {

const Catalog& shipped() {
    static const Catalog cat = Catalog::load({fs::path(TRAINBENCH_SOURCE_DIR) / "recipes"});
    return cat;
}

std::string env_of(const EnvList& env, const std::string& name) {
    for (const auto& [k, v] : env)
        if (k == name) return v;
    return "<unset>";
}

TEST(Targets, GkeA3UltraRunsGibOnTheHostNetworkWithItsQueue) {
    const Target* t = shipped().find_target("gcp-a3-ultragpu-8g");
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->scheduler, Scheduler::kubernetes);
    EXPECT_EQ(t->gpu, "h200-sxm-141gb");
    EXPECT_EQ(t->fabric, "roce");
    EXPECT_EQ(t->kubernetes.network_stack, "gib");
    EXPECT_TRUE(t->kubernetes.host_network);
    EXPECT_EQ(t->kubernetes.nccl_plugin_image, "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib:v1.1.0");
    EXPECT_EQ(env_of(t->kubernetes.network_env, "NCCL_TUNER_CONFIG_PATH"),
              "/usr/local/gib/configs/tuner_config_a3u.txtpb");
    EXPECT_EQ(env_of(t->kubernetes.network_env, "NCCL_SOCKET_IFNAME"), "eth0,eth1");
    EXPECT_EQ(env_of(t->env, "NCCL_PLUGIN_PATH"), "/usr/local/gib/lib64");
    EXPECT_EQ(t->kubernetes.queue, "a3ultra");
    EXPECT_EQ(t->kubernetes.topology_request.at("kueue.x-k8s.io/podset-preferred-topology"), "kubernetes.io/hostname");
}

TEST(Targets, AwsP5UsesEfaThroughLibfabric) {
    const Target* t = shipped().find_target("aws-p5-48xlarge");
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->scheduler, Scheduler::slurm);
    EXPECT_EQ(t->gpus_per_node, 8);
    EXPECT_EQ(t->gpu, "h100-sxm-80gb");
    EXPECT_EQ(t->fabric, "efa");
    EXPECT_EQ(env_of(t->env, "FI_PROVIDER"), "efa");
    EXPECT_EQ(env_of(t->env, "FI_EFA_USE_DEVICE_RDMA"), "1");
    EXPECT_EQ(t->default_mounts, std::vector<std::string>{"/fsx:/fsx"});
    EXPECT_EQ(t->nvlink_domain_nodes, 0);
    EXPECT_FALSE(t->slurm.block_topology);
}

TEST(Targets, GkeA4IsA3UltrasStackWithItsOwnPluginTunerAndQueue) {
    const Target* t = shipped().find_target("gcp-a4-highgpu-8g");
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->gpu, "b200-sxm-180gb");
    EXPECT_EQ(t->kubernetes.network_stack, "gib");
    EXPECT_EQ(t->kubernetes.nccl_plugin_image, "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib:v1.1.1");
    EXPECT_EQ(env_of(t->kubernetes.network_env, "NCCL_TUNER_CONFIG_PATH"),
              "/usr/local/gib/configs/tuner_config_a4.txtpb");
    EXPECT_EQ(env_of(t->env, "NCCL_PLUGIN_PATH"), "/usr/local/gib/lib64:/usr/local/nvidia/lib64");
    EXPECT_EQ(t->kubernetes.queue, "a4");
}

TEST(Targets, AzureNdGb200V6IsFourGpuNodesInNvl72RacksUnderBlockTopology) {
    const Target* t = shipped().find_target("azure-nd-gb200-v6");
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->scheduler, Scheduler::slurm);
    EXPECT_EQ(t->gpus_per_node, 4);
    EXPECT_EQ(t->gpu, "gb200-186gb");
    EXPECT_EQ(t->fabric, "infiniband-ndr");
    EXPECT_EQ(t->nvlink_domain_nodes, 18);  // 72 GPUs per rack / 4
    EXPECT_TRUE(t->slurm.block_topology);
    EXPECT_EQ(t->slurm.partition, "gpu");
    EXPECT_EQ(env_of(t->env, "NCCL_MNNVL_ENABLE"), "1");
    EXPECT_EQ(env_of(t->env, "NCCL_NET_GDR_C2C"), "1");
    EXPECT_EQ(env_of(t->env, "LD_LIBRARY_PATH"), "<unset>");  // the host plugin path would replace the image's
}

class TargetDir : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() /
                ("tb-targets-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir / "catalog" / "targets");
        std::ofstream(m_dir / "catalog" / "gpus.yaml")
            << "g1:\n  family: x\n  memory_gib: 10\n  peak_tflops: {bf16: 1}\n";
    }
    void TearDown() override { fs::remove_all(m_dir); }
    void write(const std::string& name, const std::string& text) {
        std::ofstream(m_dir / "catalog" / "targets" / name) << text;
    }
    std::string errors() {
        try {
            (void)Catalog::load({m_dir});
        } catch (const InputError& e) {
            return e.diagnostics().format();
        }
        return {};
    }
    fs::path m_dir;
};

TEST_F(TargetDir, NetworkStackAndNvlinkDomainKeysNeedTheirCompanions) {
    write("k.yaml",
          "scheduler: kubernetes\ngpu: g1\nkubernetes:\n  network_stack: gib\n  nvlink_domain_label: "
          "nvidia.com/gpu.clique\n");
    write("s.yaml", "scheduler: slurm\ngpu: g1\nslurm:\n  block_topology: true\n");
    std::string all = errors();
    EXPECT_NE(all.find("k.yaml:4:18: error: 'kubernetes.nccl_plugin_image': network stack 'gib' names no NCCL plugin "
                       "image"),
              std::string::npos)
        << all;
    EXPECT_NE(all.find("k.yaml:5:24: error: 'kubernetes.nvlink_domain_label': an NVLink domain label without an "
                       "NVLink domain size"),
              std::string::npos)
        << all;
    EXPECT_NE(all.find("s.yaml:4:19: error: 'slurm.block_topology': block topology without an NVLink domain size"),
              std::string::npos)
        << all;
}

TEST_F(TargetDir, ReadsTheNewKeysAndRefusesAnUnknownStack) {
    write("ok.yaml",
          "scheduler: kubernetes\ngpu: g1\nnvlink_domain_nodes: 18\nkubernetes:\n  network_stack: gib\n"
          "  nccl_plugin_image: img:1\n  network_env: {A: \"1\", B: x}\n  queue: q\n"
          "  topology_request: {kueue.x-k8s.io/podset-preferred-topology: kubernetes.io/hostname}\n"
          "  nvlink_domain_label: nvidia.com/gpu.clique\n");
    Catalog cat = Catalog::load({m_dir});
    const Target& t = *cat.find_target("ok");
    EXPECT_EQ(t.nvlink_domain_nodes, 18);
    EXPECT_EQ(t.kubernetes.network_env, (EnvList{{"A", "1"}, {"B", "x"}}));
    EXPECT_EQ(t.kubernetes.queue, "q");
    EXPECT_EQ(t.kubernetes.nvlink_domain_label, "nvidia.com/gpu.clique");
    write("bad.yaml", "scheduler: kubernetes\ngpu: g1\nfabric: rocee\nkubernetes:\n  network_stack: gibb\n");
    std::string all = errors();
    EXPECT_NE(all.find("did you mean 'gib'?"), std::string::npos) << all;
    EXPECT_NE(all.find("did you mean 'roce'?"), std::string::npos) << all;
}

}  // namespace
}  // namespace trainbench::catalog
