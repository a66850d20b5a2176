// Stage options: each kind's schema (unknown keys located with did-you-mean,
// types, ranges, dataset-specific keys), defaults, and data.kind prepared.
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace trainbench::recipe {
namespace {

std::filesystem::path write_recipe(const std::string& name, const std::string& stages, const std::string& data = "mock",
                                   const std::string& target = "local-slurm") {
    std::filesystem::path dir = std::filesystem::temp_directory_path() / "tb-stages-options-test";
    std::filesystem::create_directories(dir);
    std::filesystem::path file = dir / (name + ".yaml");
    std::ofstream out(file);
    out << "version: 1\nname: " << name << "\ntarget: " << target
        << "\nmodel: tinygpt-tiny\nframework: custom\nnodes: 2\n"
        << "gpus_per_node: 2\nbatch: {micro: 1, global: 4}\nprecision: fp32\nsteps: 30\ndata: " << data << "\n"
        << "launch: {command: [/bin/true], log_format: megatron}\n"
        << stages;
    return file;
}

TEST(StageOptions, AValidateStageWithKnownOptionsIsValid) {
    auto f = write_recipe("ok",
                          "stages:\n  - name: validate\n    kind: validate\n    options:\n"
                          "      nodes: 2\n      dcgm: {level: 2}\n"
                          "      nccl: {tests: [all_reduce_perf], min_bytes: 8, max_bytes: 8G, pairwise: true}\n"
                          "  - {name: train, kind: train}\n");
    EXPECT_EQ(test::problems(f), "");
    Recipe r = test::load(f);
    ValidateOptions v = validate_options(r, r.stages[0]);
    EXPECT_EQ(v.nodes, 2);
    EXPECT_EQ(v.dcgm.level, 2);
    EXPECT_TRUE(v.nccl.all_nodes);
    EXPECT_EQ(v.nccl.max_bytes, "8G");
}

TEST(StageOptions, AnUnknownOptionIsALocatedErrorWithDidYouMean) {
    auto f = write_recipe("typo",
                          "stages:\n  - name: validate\n    kind: validate\n    options:\n"
                          "      nccl: {min_bytez: 8}\n");
    std::string p = test::problems(f);
    EXPECT_NE(p.find("unknown option 'nccl.min_bytez'"), std::string::npos) << p;
    EXPECT_NE(p.find("min_bytes"), std::string::npos) << p;
    EXPECT_NE(p.find("typo.yaml:17:"), std::string::npos) << p;
}

TEST(StageOptions, WrongTypesAndRangesAreRejected) {
    auto f = write_recipe(
        "types",
        "stages:\n  - name: validate\n    kind: validate\n    options:\n"
        "      dcgm: {level: 4, enabled: yes-please}\n      nccl: {max_bytes: lots, tests: [all_reduse_perf]}\n");
    std::string p = test::problems(f);
    EXPECT_NE(p.find("'dcgm.level' is 4, out of range"), std::string::npos) << p;
    EXPECT_NE(p.find("'dcgm.enabled' is 'yes-please', expected true or false"), std::string::npos) << p;
    EXPECT_NE(p.find("'nccl.max_bytes' is 'lots'"), std::string::npos) << p;
    EXPECT_NE(p.find("all_reduce_perf"), std::string::npos) << p;
}

TEST(StageOptions, PrepareDataNeedsADatasetAndRejectsKeysOfAnotherDataset) {
    auto f = write_recipe("prep",
                          "stages:\n  - name: prepare-data\n    kind: prepare-data\n    options:\n"
                          "      dataset: slimpajama\n      data_dir: /data\n      shards: \"0-1\"\n"
                          "  - {name: train, kind: train}\n");
    std::string p = test::problems(f);
    EXPECT_NE(p.find("option 'shards' does not apply to dataset 'slimpajama'"), std::string::npos) << p;
    auto g = write_recipe("nodataset",
                          "stages:\n  - name: prepare-data\n    kind: prepare-data\n    options: {data_dir: /d}\n");
    EXPECT_NE(test::problems(g).find("needs options.dataset"), std::string::npos);
    auto h = write_recipe("shards",
                          "stages:\n  - name: prepare-data\n    kind: prepare-data\n"
                          "    options: {dataset: pile, data_dir: /d, shards: \"3-1\"}\n");
    EXPECT_NE(test::problems(h).find("runs backwards"), std::string::npos) << test::problems(h);
}

TEST(StageOptions, OnKubernetesNcclTestsComeWithTheImageAndMpirunReachesThePodsOverSsh) {
    auto k8s = [](const std::string& name, const std::string& nccl) {
        return write_recipe(name,
                            "container: {image: registry.example/x:1}\n"
                            "stages:\n  - name: validate\n    kind: validate\n    options:\n"
                            "      dcgm: {enabled: false}\n      nccl: " +
                                nccl + "\n  - {name: train, kind: train}\n",
                            "mock", "gcp-a3-megagpu-8g");
    };
    // a path inside the image is how the image's binaries are found (on Slurm: one or the other)
    auto ok = k8s("k8s-ok", "{build: {image: registry.example/nccl:1, path: /opt/nccl-tests/build}}");
    EXPECT_EQ(test::problems(ok), "");
    Recipe r = test::load(ok);
    ValidateOptions v = validate_options(r, r.stages[0]);
    EXPECT_EQ(v.nccl.ssh_port, 222);
    EXPECT_EQ(v.nccl.sshd, (std::vector<std::string>{"service", "ssh", "restart"}));
    EXPECT_TRUE(v.nccl.mpirun_args.empty());
    std::string p = test::problems(k8s("k8s-build", "{build: {image: registry.example/nccl:1, dir: /shared/nccl}}"));
    EXPECT_NE(p.find("on Kubernetes nccl-tests come with the pods' image"), std::string::npos) << p;
    p = test::problems(k8s("k8s-port", "{ssh_port: 70000, sshd: true}"));
    EXPECT_NE(p.find("nccl.ssh_port"), std::string::npos) << p;
    EXPECT_NE(p.find("nccl.sshd"), std::string::npos) << p;
    p = test::problems(write_recipe("slurm-both",
                                    "stages:\n  - name: validate\n    kind: validate\n    options:\n"
                                    "      nccl: {build: {image: registry.example/n:1, path: /p}}\n"));
    EXPECT_NE(p.find("gives both 'path' and 'image'"), std::string::npos) << p;
}

TEST(StageOptions, ATrainStageTakesNoOptions) {
    auto f = write_recipe("train", "stages:\n  - name: train\n    kind: train\n    options: {nodes: 3}\n");
    EXPECT_NE(test::problems(f).find("unknown option 'nodes' for a 'train' stage"), std::string::npos)
        << test::problems(f);
}

TEST(StageOptions, PreparedDataComesFromThePrepareDataStage) {
    auto f = write_recipe("prepared",
                          "stages:\n  - name: prepare-data\n    kind: prepare-data\n"
                          "    options: {dataset: pile, data_dir: /shared/data/NeMo, shards: \"0-1\"}\n"
                          "  - {name: train, kind: train}\n",
                          "{kind: prepared}");
    EXPECT_EQ(test::problems(f), "");
    Recipe r = test::load(f);
    Data d = effective_data(r);
    ASSERT_EQ(d.prefixes.size(), 2u);
    EXPECT_EQ(d.kind, "prefixes");
    EXPECT_EQ(d.prefixes[0].prefix, "/shared/data/NeMo/my-gpt3_00_text_document");
    EXPECT_DOUBLE_EQ(d.prefixes[1].weight, 0.5);
    EXPECT_EQ(d.vocab_file, "/shared/data/NeMo/bpe/vocab.json");
    auto g = write_recipe("prepared-alone", "", "{kind: prepared}");
    EXPECT_NE(test::problems(g).find("needs a prepare-data stage"), std::string::npos) << test::problems(g);
}

TEST(StageOptions, SlimPajamaPrefixesLeaveOutTheValidationAndTestChunks) {
    PrepareDataOptions p;
    p.dataset = "slimpajama";
    p.output_dir = "/data/slimpajama/preprocessed";
    std::vector<DataPrefix> prefixes = prepared_prefixes(Recipe{}, p);
    ASSERT_EQ(prefixes.size(), 42u);  // 72 - 2 x 15
    EXPECT_EQ(prefixes.front().prefix, "/data/slimpajama/preprocessed/train_chunk_0.jsonl_text_document");
    EXPECT_EQ(parse_shards("0-2,5"), (std::vector<int>{0, 1, 2, 5}));
    EXPECT_THROW((void)parse_shards("30"), InputError);
}

TEST(StageOptions, TheSeedRecipesStagesValidate) {
    for (const char* f : {"azure-ndm-a100-v4/gpt3-126m.yaml", "azure-nd-h100-v5/gpt3-175b.yaml"})
        EXPECT_EQ(test::problems(test::source_dir() / "recipes" / f), "") << f;
}

}  // namespace
}  // namespace trainbench::recipe
