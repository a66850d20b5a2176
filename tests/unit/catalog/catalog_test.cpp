#include <trainbench/catalog.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace trainbench::catalog {
namespace {

const Catalog& shipped() {
    static const Catalog cat = Catalog::load({fs::path(TRAINBENCH_SOURCE_DIR) / "recipes"});
    return cat;
}

std::string env_value(const Target& t, const std::string& name) {
    for (const auto& [k, v] : t.env)
        if (k == name) return v;
    return "<unset>";
}

TEST(Catalog, ShipsTheGpusWithDensePeaks) {
    const Catalog& cat = shipped();
    const Gpu* h100 = cat.find_gpu("h100-sxm-80gb");
    ASSERT_NE(h100, nullptr);
    EXPECT_DOUBLE_EQ(h100->peak_tflops_dense.at(Precision::bf16), 989.4);
    EXPECT_DOUBLE_EQ(h100->peak_tflops_dense.at(Precision::fp8), 1978.9);
    EXPECT_DOUBLE_EQ(h100->peak_tflops_dense.at(Precision::tf32), 494.7);
    EXPECT_DOUBLE_EQ(h100->peak_tflops_dense.at(Precision::fp32), 66.9);
    EXPECT_EQ(h100->family, "h100");
    for (const char* a100 : {"a100-sxm-40gb", "a100-sxm-80gb"}) {
        const Gpu* g = cat.find_gpu(a100);
        ASSERT_NE(g, nullptr) << a100;
        EXPECT_DOUBLE_EQ(g->peak_tflops_dense.at(Precision::bf16), 312);
        EXPECT_DOUBLE_EQ(g->peak_tflops_dense.at(Precision::fp16), 312);
        EXPECT_DOUBLE_EQ(g->peak_tflops_dense.at(Precision::tf32), 156);
        EXPECT_DOUBLE_EQ(g->peak_tflops_dense.at(Precision::fp32), 19.5);
        EXPECT_FALSE(g->supports(Precision::fp8));
    }
    EXPECT_DOUBLE_EQ(cat.find_gpu("a100-sxm-40gb")->memory_gib, 40);
    EXPECT_DOUBLE_EQ(cat.find_gpu("h200-sxm-141gb")->memory_gib, 141);
    EXPECT_DOUBLE_EQ(cat.find_gpu("h200-sxm-141gb")->peak_tflops_dense.at(Precision::fp8), 1978.9);
    const Gpu* cpu = cat.find_gpu("cpu");
    ASSERT_NE(cpu, nullptr);
    EXPECT_TRUE(cpu->peak_tflops_dense.empty());
}

TEST(Catalog, ShipsTheSeedTargetsWithTheirTuningEnvironment) {
    const Catalog& cat = shipped();
    for (const char* name : {"azure-ndm-a100-v4", "aws-p4d-24xlarge", "gcp-a3-megagpu-8g", "azure-nd-h100-v5",
                             "azure-nd-h200-v5", "local", "local-slurm"})
        EXPECT_NE(cat.find_target(name), nullptr) << name;

    const Target& ndm = *cat.find_target("azure-ndm-a100-v4");
    EXPECT_EQ(ndm.gpu, "a100-sxm-80gb");
    EXPECT_EQ(ndm.scheduler, Scheduler::slurm);
    EXPECT_EQ(ndm.slurm.partition, "ndmv4");
    ASSERT_FALSE(ndm.env.empty());
    EXPECT_EQ(ndm.env.front().first, "NCCL_TOPO_FILE");  // order kept as written
    EXPECT_EQ(env_value(ndm, "NCCL_IB_TIMEOUT"), "22");
    EXPECT_EQ(env_value(ndm, "NCCL_IB_PCI_RELAXED_ORDERING"), "2");
    EXPECT_EQ(ndm.topology_file, "/opt/microsoft/ndv4-topo.xml");
    EXPECT_DOUBLE_EQ(ndm.nccl_busbw_threshold_gbs, 180);

    const Target& p4d = *cat.find_target("aws-p4d-24xlarge");
    EXPECT_EQ(p4d.gpu, "a100-sxm-40gb");
    EXPECT_EQ(p4d.fabric, "efa");
    EXPECT_EQ(env_value(p4d, "FI_PROVIDER"), "efa");
    EXPECT_EQ(env_value(p4d, "NCCL_PROTO"), "simple");
    EXPECT_TRUE(p4d.slurm.use_gres);
    EXPECT_DOUBLE_EQ(p4d.nccl_busbw_threshold_gbs, 35);

    const Target& a3 = *cat.find_target("gcp-a3-megagpu-8g");
    EXPECT_EQ(a3.scheduler, Scheduler::kubernetes);
    EXPECT_EQ(a3.kubernetes.network_stack, "tcpxo");
    EXPECT_TRUE(a3.kubernetes.host_network);
    EXPECT_EQ(env_value(a3, "NCCL_FASTRAK_IFNAME"), "eth1,eth2,eth3,eth4,eth5,eth6,eth7,eth8");

    EXPECT_EQ(cat.find_target("azure-nd-h100-v5")->gpu, "h100-sxm-80gb");
    EXPECT_EQ(cat.find_target("azure-nd-h200-v5")->gpu, "h200-sxm-141gb");
    // Seed 002 (2d36da6) exports no tuning: NCCL_TOPO_FILE comes from the topology file, and the
    // June 2025 NCCL/UCX/SHARP tuning is the SHARP recipe's own env.
    for (const char* nd : {"azure-nd-h100-v5", "azure-nd-h200-v5"}) {
        EXPECT_EQ(cat.find_target(nd)->topology_file, "/opt/microsoft/ndv5-topo.xml") << nd;
        EXPECT_TRUE(cat.find_target(nd)->env.empty()) << nd;
    }

    const Target& local = *cat.find_target("local");
    EXPECT_EQ(local.scheduler, Scheduler::local);
    EXPECT_EQ(local.gpus_per_node, 1);
    EXPECT_EQ(local.gpu, "cpu");
    EXPECT_EQ(local.container_runtime, "none");
    const Target& ls = *cat.find_target("local-slurm");
    EXPECT_EQ(ls.scheduler, Scheduler::slurm);
    EXPECT_EQ(ls.gpus_per_node, 2);
    EXPECT_EQ(ls.slurm.partition, "debug");
    EXPECT_TRUE(ls.env.empty());
}

TEST(Catalog, ShipsTheFrameworkProfilesOfTheSeedVersions) {
    const Catalog& cat = shipped();
    EXPECT_EQ(cat.framework_versions("megatron-lm"), (std::vector<std::string>{"878d65f", "d98e8a64", "e958b2ca"}));
    EXPECT_EQ(cat.framework_versions("metaseq"), std::vector<std::string>{"f7ffa5f"});
    EXPECT_EQ(cat.framework_versions("nccl-tests"), std::vector<std::string>{"2.19.6"});
    auto e958 = cat.find_framework("megatron-lm", "e958b2ca");
    auto m878 = cat.find_framework("megatron-lm", "878d65f");
    ASSERT_TRUE(e958 && m878);
    EXPECT_EQ(e958->schema, "Megatron-LM e958b2ca's pretrain_gpt.py");
    // seed 002's arguments exist in both; --use-sharp (the SHARP update) only in 878d65f
    for (const char* a : {"--save", "--save-interval", "--tensorboard-dir", "--ckpt-assume-constant-structure",
                          "--data-cache-path", "--attention-backend", "--use-distributed-optimizer"}) {
        EXPECT_TRUE(e958->knows(a)) << a;
        EXPECT_TRUE(m878->knows(a)) << a;
    }
    EXPECT_FALSE(e958->knows("--use-sharp"));
    EXPECT_TRUE(m878->knows("--use-sharp"));
    EXPECT_FALSE(e958->knows("--save-dir")) << "metaseq's, not Megatron-LM's";
    // Megatron-Core 2026: flags generated from config dataclasses (ArgumentGroupFactory), renamed ones
    auto d98 = cat.find_framework("megatron-lm", "d98e8a64");
    ASSERT_TRUE(d98);
    for (const char* a :
         {"--num-experts", "--moe-router-topk", "--expert-tensor-parallel-size", "--multi-latent-attention",
          "--mtp-num-layers", "--fp8-recipe", "--norm-epsilon", "--disable-bias-linear"})
        EXPECT_TRUE(d98->knows(a)) << a;
    EXPECT_FALSE(d98->knows("--layernorm-epsilon")) << "renamed to --norm-epsilon by argparse_meta";
    // (e958b2ca already has --mtp-num-layers: its arguments.py:1235; FP4 came later)
    EXPECT_FALSE(e958->knows("--fp4-format"));
    EXPECT_TRUE(d98->knows("--fp4-format"));
    EXPECT_FALSE(e958->knows("--moe-flex-dispatcher-backend"));
    EXPECT_TRUE(d98->knows("--moe-flex-dispatcher-backend"));
    auto metaseq = cat.find_framework("metaseq", "f7ffa5f");
    ASSERT_TRUE(metaseq);
    EXPECT_EQ(metaseq->choice_defaults.at("--task"), "translation");
    EXPECT_EQ(metaseq->choice_defaults.count("--optimizer"), 0u) << "required in metaseq: no default";
    EXPECT_TRUE(metaseq->choices.at("--criterion").at("vocab_parallel_cross_entropy").empty());
}

TEST(Catalog, ShipsTheModelSizesOfTheNemoLauncher) {
    const Catalog& cat = shipped();
    struct Size {
        const char* name;
        int layers, hidden, heads, vocab, seq;
    };
    for (const Size& s : {Size{"gpt3-126m", 12, 768, 12, 50257, 2048}, Size{"gpt3-400m", 24, 1024, 16, 50257, 2048},
                          Size{"gpt3-1.3b", 24, 2048, 16, 50257, 2048}, Size{"gpt3-5b", 24, 4096, 32, 50257, 2048},
                          Size{"gpt3-20b", 44, 6144, 48, 50257, 2048}, Size{"gpt3-40b", 48, 8192, 64, 50257, 2048},
                          Size{"gpt3-175b", 96, 12288, 96, 50257, 2048}, Size{"opt-125m", 12, 768, 12, 50272, 2048},
                          Size{"opt-175b", 96, 12288, 96, 50272, 2048}, Size{"tinygpt-tiny", 2, 128, 4, 4096, 128},
                          Size{"tinygpt-small", 4, 256, 4, 8192, 256}}) {
        const Model* m = cat.find_model(s.name);
        ASSERT_NE(m, nullptr) << s.name;
        EXPECT_EQ(m->layers, s.layers) << s.name;
        EXPECT_EQ(m->hidden, s.hidden) << s.name;
        EXPECT_EQ(m->heads, s.heads) << s.name;
        EXPECT_EQ(m->vocab, s.vocab) << s.name;
        EXPECT_EQ(m->seq_length, s.seq) << s.name;
    }
    EXPECT_EQ(cat.find_model("gpt3-175b")->ffn_size(), 4 * 12288);
    EXPECT_EQ(cat.find_model("gpt3-400m")->ffn_size(), 2688);
    EXPECT_EQ(cat.find_model("tinygpt-tiny")->ffn_size(), 512);
    EXPECT_EQ(cat.find_model("tinygpt-tiny")->family, "tinygpt");
}

class CatalogDir : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() /
                ("tb-catalog-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir / "catalog" / "targets");
        fs::create_directories(m_dir / "catalog" / "models");
        write("catalog/gpus.yaml", "g1:\n  family: x\n  memory_gib: 10\n  peak_tflops: {bf16: 100}\n");
    }
    void TearDown() override { fs::remove_all(m_dir); }
    void write(const std::string& rel, const std::string& text) { std::ofstream(m_dir / rel) << text; }
    fs::path m_dir;
};

TEST_F(CatalogDir, ReportsEveryProblemLocatedAndThrowsOnce) {
    write("catalog/targets/t1.yaml", "name: t1\nscheduler: slurm\ngpu: g2\ngpus_per_nod: 8\n");
    write("catalog/models/m1.yaml", "name: other\nlayers: two\nhidden: 64\nheads: 3\nvocab: 100\n");
    try {
        (void)Catalog::load({m_dir});
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        std::string all = e.diagnostics().format();
        EXPECT_NE(all.find("t1.yaml:3:6: error: 'gpu': unknown GPU 'g2'"), std::string::npos) << all;
        EXPECT_NE(all.find("did you mean 'g1'?"), std::string::npos) << all;
        EXPECT_NE(all.find("t1.yaml:4:1: error: 'gpus_per_nod': unknown key"), std::string::npos) << all;
        EXPECT_NE(all.find("did you mean 'gpus_per_node'?"), std::string::npos) << all;
        EXPECT_NE(all.find("m1.yaml:1:7: error: 'name': name 'other' does not match the file name 'm1.yaml'"),
                  std::string::npos)
            << all;
        EXPECT_NE(all.find("m1.yaml:2:9: error: 'layers': wrong type: got 'two' (expected an integer)"),
                  std::string::npos)
            << all;
        EXPECT_NE(all.find("hidden size 64 is not divisible by 3 heads"), std::string::npos) << all;
    }
}

TEST_F(CatalogDir, WithoutTargetsNeitherReadsNorChecksTheTargetFiles) {
    write("catalog/targets/t1.yaml", "name: t1\nscheduler: slurm\ngpu: g2\n");
    write("catalog/models/m1.yaml", "layers: 2\nhidden: 64\nheads: 4\nvocab: 100\nseq_length: 128\n");
    const Catalog cat = Catalog::load({m_dir}, CatalogParts::without_targets);
    EXPECT_NE(cat.find_gpu("g1"), nullptr);
    EXPECT_NE(cat.find_model("m1"), nullptr);
    EXPECT_FALSE(cat.has_targets());
    // asking it for a target is a programming error, not an unknown target
    EXPECT_THROW((void)cat.find_target("t1"), std::logic_error);
    EXPECT_THROW((void)cat.target_names(), std::logic_error);
    // the whole catalog reads the target file and refuses it
    EXPECT_THROW((void)Catalog::load({m_dir}), InputError);
    // and problems in what it does read are still every one reported
    write("catalog/models/m2.yaml", "layers: two\n");
    try {
        (void)Catalog::load({m_dir}, CatalogParts::without_targets);
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        const std::string all = e.diagnostics().format();
        EXPECT_NE(all.find("m2.yaml:1:9"), std::string::npos) << all;
        EXPECT_EQ(all.find("t1.yaml"), std::string::npos) << all;
    }
}

TEST_F(CatalogDir, WithOnlyOneModelTheOtherModelFilesAreListedNotRead) {
    write("catalog/models/m1.yaml", "layers: 2\nhidden: 64\nheads: 4\nvocab: 100\nseq_length: 128\n");
    write("catalog/models/m2.yaml", "layers: two\n");
    const Catalog cat = Catalog::load({m_dir}, CatalogParts::without_targets, "m1");
    ASSERT_NE(cat.find_model("m1"), nullptr);
    EXPECT_EQ(cat.find_model("m1")->layers, 2);
    EXPECT_NE(cat.find_gpu("g1"), nullptr);
    // every name is known (for a did-you-mean), a name of no file is unknown
    EXPECT_EQ(cat.model_names(), (std::vector<std::string>{"m1", "m2"}));
    EXPECT_EQ(cat.find_model("m3"), nullptr);
    // asking it for a model it did not read is a programming error, not an unknown model
    EXPECT_THROW((void)cat.find_model("m2"), std::logic_error);
    EXPECT_THROW((void)cat.models(), std::logic_error);
    // a name of no file reads no model at all
    EXPECT_EQ(Catalog::load({m_dir}, CatalogParts::without_targets, "m3").find_model("m3"), nullptr);
    // the model named is read and checked; every model is when none is named
    EXPECT_THROW((void)Catalog::load({m_dir}, CatalogParts::without_targets, "m2"), InputError);
    EXPECT_THROW((void)Catalog::load({m_dir}, CatalogParts::without_targets), InputError);
}

TEST_F(CatalogDir, LaterDirectoriesOverrideEarlierOnesByName) {
    write("catalog/targets/aws-p4d-24xlarge.yaml", "scheduler: slurm\ngpu: h100-sxm-80gb\ngpus_per_node: 4\n");
    // the second directory has no gpus.yaml of its own: targets may refer to the GPUs of the first
    fs::remove(m_dir / "catalog" / "gpus.yaml");
    Catalog cat = Catalog::load({fs::path(TRAINBENCH_SOURCE_DIR) / "recipes", m_dir});
    ASSERT_NE(cat.find_target("aws-p4d-24xlarge"), nullptr);
    EXPECT_EQ(cat.find_target("aws-p4d-24xlarge")->gpus_per_node, 4);
    EXPECT_EQ(cat.find_target("aws-p4d-24xlarge")->gpu, "h100-sxm-80gb");
    EXPECT_NE(cat.find_target("local"), nullptr);
}

TEST_F(CatalogDir, ReportsYamlSyntaxErrorsInCatalogFiles) {
    write("catalog/models/broken.yaml", "layers: [1, 2\n");
    try {
        (void)Catalog::load({m_dir});
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_NE(e.diagnostics().format().find("broken.yaml:"), std::string::npos);
        EXPECT_NE(e.diagnostics().format().find("invalid YAML"), std::string::npos);
    }
}

TEST(Catalog, ShipsAFrameworkProfilePerNemoContainerWithTheSeedsConfig) {
    const Catalog& cat = shipped();
    EXPECT_EQ(cat.framework_versions("nemo"), (std::vector<std::string>{"22.06", "23.07", "24.07"}));
    auto v1 = cat.find_framework("nemo", "22.06");
    ASSERT_TRUE(v1);
    EXPECT_EQ(v1->schema, "NeMo 1.11's megatron_gpt_config (container bignlp-training:22.06)");
    // the seed's 126m.yaml (launcher eec62ab4) is the config a job starts from
    EXPECT_EQ(v1->config.at("model.optim.lr"), 6e-4);
    EXPECT_EQ(v1->config.at("model.optim.name"), "fused_adam");
    EXPECT_EQ(v1->config.at("model.megatron_amp_O2"), true);
    EXPECT_TRUE(v1->knows("exp_manager.step_timing_kwargs.buffer_size"));
    EXPECT_TRUE(v1->knows("exp_manager.wandb_logger_kwargs.anything")) << "a Dict field takes any key";
    EXPECT_FALSE(v1->knows("model.context_parallel_size")) << "NeMo 1.11 has no context parallelism";
    EXPECT_FALSE(v1->knows("exp_manager.create_dllogger_logger")) << "1.11's ExpManagerConfig has no DLLogger";
    EXPECT_EQ(v1->writes, (std::vector<std::string>{"tensorboard", "nemo"}));
    auto v3 = cat.find_framework("nemo", "24.07");
    ASSERT_TRUE(v3);
    EXPECT_TRUE(v3->knows("model.fp8_wgrad"));
    EXPECT_EQ(v3->format_modules.at("dllogger"), "dllogger");
    EXPECT_FALSE(cat.find_framework("nemo", "99.99"));
}

TEST_F(CatalogDir, AFrameworkProfileIsNamedAfterItsFrameworkAndVersionAndKnowsItsChoices) {
    fs::create_directories(m_dir / "catalog" / "frameworks");
    write("catalog/frameworks/tool-1.yaml",
          "framework: tool\nversion: \"1\"\nkeys: [--a, --task]\nchoices:\n  --task:\n    default: x\n"
          "    x: [--only-x]\n    y: [--only-y]\n");
    Catalog cat = Catalog::load({m_dir});
    auto p = cat.find_framework("tool", "1");
    ASSERT_TRUE(p);
    EXPECT_TRUE(p->knows("--a"));
    EXPECT_TRUE(p->knows("--only-x")) << "the default choice";
    EXPECT_FALSE(p->knows("--only-y"));
    EXPECT_TRUE(p->knows("--only-y", {{"--task", "y"}}));
    EXPECT_FALSE(p->knows("--only-x", {{"--task", "y"}}));
    EXPECT_EQ(p->all_keys(), (std::vector<std::string>{"--a", "--only-x", "--only-y", "--task"}));
    write("catalog/frameworks/tool-2.yaml", "framework: tool\nversion: \"3\"\nkeyz: []\n");
    try {
        // Profiles are read on first use, not at start-up.
        Catalog lazy = Catalog::load({m_dir});
        EXPECT_EQ(lazy.framework_versions("tool"), (std::vector<std::string>{"1", "2"}));
        (void)lazy.find_framework("tool", "2");
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        std::string all = e.diagnostics().format();
        EXPECT_NE(all.find("a framework profile is named <framework>-<version>.yaml: 'tool-2.yaml' describes 'tool-3'"),
                  std::string::npos)
            << all;
        EXPECT_NE(all.find("'keyz': unknown key"), std::string::npos) << all;
    }
}

TEST(CatalogNames, PrecisionAndSchedulerNamesRoundTrip) {
    for (const std::string& n : precision_names()) {
        auto p = parse_precision(n);
        ASSERT_TRUE(p.has_value()) << n;
        EXPECT_EQ(to_string(*p), n);
    }
    EXPECT_FALSE(parse_precision("bf17").has_value());
    for (const char* n : {"slurm", "kubernetes", "local"}) EXPECT_EQ(to_string(*parse_scheduler(n)), n);
    EXPECT_FALSE(parse_scheduler("pbs").has_value());
}

}  // namespace
}  // namespace trainbench::catalog
