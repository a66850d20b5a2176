// build_context: the decisions templates only place.
#include "render_test_support.hpp"

#include <trainbench/render.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

namespace fs = std::filesystem;
using namespace trainbench;
using namespace trainbench::render;
using nlohmann::ordered_json;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

ordered_json context_of(const recipe::Recipe& r) {
    RenderOptions o;
    return build_context(r, o, effective_stages(r).front());
}

std::vector<std::string> argv_of(const recipe::Recipe& r) {
    return context_of(r)["launch_argv"].get<std::vector<std::string>>();
}

bool has(const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

// The value after `flag` in argv.
std::string after(const std::vector<std::string>& v, const std::string& flag) {
    auto it = std::find(v.begin(), v.end(), flag);
    return it == v.end() || it + 1 == v.end() ? std::string("<absent>") : *(it + 1);
}

}  // namespace

TEST(Context, CountsJobNameAndDirectives) {
    recipe::Recipe r = render_test::base_recipe();
    r.slurm.account = "acct";
    ordered_json c = context_of(r);
    EXPECT_EQ(c["nodes"], 2);
    EXPECT_EQ(c["gpus_per_node"], 8);
    EXPECT_EQ(c["total_gpus"], 16);
    EXPECT_EQ(c["tasks_per_node"], 8);  // NeMo: one task per GPU
    EXPECT_EQ(c["job_name"], "trainbench-test-recipe-dryrun");
    EXPECT_EQ(c["slurm"]["partition"], "gpu");  // the target's default
    EXPECT_EQ(c["slurm"]["account"], "acct");
    EXPECT_EQ(c["slurm"]["output"], "logs/train/slurm-%j.out");
    EXPECT_EQ(c["slurm"]["gpus_per_node_directive"], true);
    EXPECT_EQ(c["slurm"]["gres_directive"], false);
    r.slurm.use_gres = true;
    EXPECT_EQ(context_of(r)["slurm"]["gres_directive"], true);
}

TEST(Context, EnvironmentIsTargetThenFrameworkThenRecipeWithReferences) {
    recipe::Recipe r = render_test::base_recipe();
    r.parallelism.tensor = 2;
    r.env = {{"NCCL_DEBUG", "INFO"}, {"HF_TOKEN", "${env:MY_TOKEN}"}, {"EXTRA", "1"}};
    ordered_json env = context_of(r)["env"];
    std::vector<std::string> names;
    for (const auto& e : env) names.push_back(e["name"]);
    EXPECT_EQ(names, (std::vector<std::string>{"NCCL_IB_TIMEOUT", "NCCL_DEBUG", "CUDA_DEVICE_MAX_CONNECTIONS",
                                               "HF_TOKEN", "EXTRA"}));
    EXPECT_EQ(env[1]["value"], "INFO");  // the recipe overrides the target in place
    EXPECT_EQ(env[3]["is_ref"], true);
    EXPECT_EQ(env[3]["ref"], "MY_TOKEN");
    EXPECT_EQ(env[3]["value_sh"], "\"${MY_TOKEN:?MY_TOKEN must be set in the submitting environment}\"");
    EXPECT_EQ(env[3]["value"], "");
}

TEST(Context, RejectsValuesThatCannotBeRenderedSafely) {
    recipe::Recipe r = render_test::base_recipe();
    r.slurm.partition = "gpu\n#SBATCH --wrap=evil";
    EXPECT_THROW((void)context_of(r), InputError);
    r = render_test::base_recipe();
    r.env = {{"BAD NAME", "x"}};
    EXPECT_THROW((void)context_of(r), InputError);
    r = render_test::base_recipe();
    r.metrics.path = "../../etc/passwd";
    EXPECT_THROW((void)context_of(r), InputError);
}

namespace {

// The NeMo config file delivered with the job, as flat "a.b.c" -> YAML node.
std::map<std::string, YAML::Node> delivered_config(const recipe::Recipe& r) {
    ordered_json c = context_of(r);
    std::map<std::string, YAML::Node> flat;
    for (const auto& f : c["delivered_files"]) {
        if (f["path"] != "nemo-config.yaml") continue;
        auto walk = [&flat](const auto& self, const YAML::Node& n, const std::string& prefix) -> void {
            for (const auto& kv : n) {
                std::string key =
                    prefix.empty() ? kv.first.as<std::string>() : prefix + "." + kv.first.as<std::string>();
                if (kv.second.IsMap() && kv.second.size() > 0)
                    self(self, kv.second, key);
                else
                    flat[key] = kv.second;
            }
        };
        walk(walk, YAML::Load(f["content"].get<std::string>()), "");
    }
    return flat;
}

}  // namespace

TEST(Context, NemoDeliversTheSeedConfigWithTheRecipesValuesAndPassesOnlyRunTimePaths) {
    recipe::Recipe r = render_test::base_recipe("nemo");
    r.parallelism = {4, 8, 6, 1, 1, true};
    r.precision = catalog::Precision::fp8;
    r.recompute = {"full", "block", 1};
    std::vector<std::string> a = argv_of(r);
    EXPECT_EQ(a.at(0), "python3");
    EXPECT_EQ(a.at(2), "/opt/NeMo/examples/nlp/language_modeling/megatron_gpt_pretraining.py");
    // The config comes with the job; only values known where it runs are overrides, in the
    // form Hydra takes for that config: `key=` for a key it has, `+key=` for one it lacks.
    EXPECT_EQ(std::vector<std::string>(a.begin() + 3, a.end()),
              (std::vector<std::string>{
                  "--config-path=${TRAINBENCH_RUN_DIR}/rendered/train", "--config-name=nemo-config",
                  "exp_manager.explicit_log_dir=${TRAINBENCH_RUN_DIR}/logs/train/nemo",
                  "+exp_manager.dllogger_logger_kwargs.json_file=${TRAINBENCH_RUN_DIR}/logs/train/dllogger.json"}));
    std::map<std::string, YAML::Node> cfg = delivered_config(r);
    auto value = [&cfg](const std::string& key) {
        return cfg.count(key) ? YAML::Dump(cfg.at(key)) : std::string("<absent>");
    };
    // trainbench's values
    EXPECT_EQ(value("trainer.num_nodes"), "2");
    EXPECT_EQ(value("trainer.devices"), "8");
    EXPECT_EQ(value("trainer.max_steps"), "40");
    EXPECT_EQ(value("trainer.precision"), "bf16");
    EXPECT_EQ(value("model.num_layers"), "12");
    EXPECT_EQ(value("model.hidden_size"), "768");
    EXPECT_EQ(value("model.ffn_hidden_size"), "3072");
    EXPECT_EQ(value("model.micro_batch_size"), "4");
    EXPECT_EQ(value("model.global_batch_size"), "256");
    EXPECT_EQ(value("model.tensor_model_parallel_size"), "4");
    EXPECT_EQ(value("model.pipeline_model_parallel_size"), "8");
    EXPECT_EQ(value("model.virtual_pipeline_model_parallel_size"), "6");
    EXPECT_EQ(value("model.sequence_parallel"), "true");
    EXPECT_EQ(value("model.fp8"), "true");
    EXPECT_EQ(value("model.data.data_impl"), "mock");
    EXPECT_EQ(value("model.activations_checkpoint_granularity"), "full");
    EXPECT_EQ(value("model.activations_checkpoint_num_layers"), "1");
    EXPECT_EQ(value("model.optim.name"), "distributed_fused_adam");
    EXPECT_EQ(value("exp_manager.create_checkpoint_callback"), "false");
    EXPECT_EQ(value("exp_manager.checkpoint_callback_params.model_parallel_size"), "32");
    // the seed's configuration for the version (gpu-recipes' 175B FP8 config for 24.07), kept
    EXPECT_EQ(value("model.fp8_hybrid"), "true");
    EXPECT_EQ(value("model.fp8_amax_history_len"), "1024");
    EXPECT_EQ(value("model.optim.bucket_cap_mb"), "220");
    EXPECT_EQ(value("model.overlap_p2p_comm"), "true");
    EXPECT_EQ(value("exp_manager.create_dllogger_logger"), "true");
    // a key the version does not have is never invented
    EXPECT_EQ(value("model.no_such_key"), "<absent>");
}

TEST(Context, NemoNeedsTheDlloggerPackageCheckedBeforeTheJobStarts) {
    recipe::Recipe r = render_test::base_recipe("nemo");
    ordered_json c = context_of(r);
    ASSERT_EQ(c["preflight"].size(), 1u);
    std::string check = c["preflight"][0]["check_sh"];
    EXPECT_THAT(check, HasSubstr("srun --nodes=1 --ntasks=1"));
    EXPECT_THAT(check, HasSubstr("python3 -c 'import dllogger'"));
    EXPECT_THAT(check, HasSubstr("exit 3"));
    r.metrics.source = "tensorboard";
    EXPECT_EQ(context_of(r)["preflight"].size(), 0u);
}

TEST(Context, NemoRefusesASettingItsVersionLacks) {
    recipe::Recipe r = render_test::base_recipe("nemo");
    r.framework_version = "22.06";
    r.profile = render_test::shipped_catalog().find_framework("nemo", "22.06");
    r.metrics.source = "tensorboard";
    r.parallelism = {1, 2, 2, 1, 1, false};
    try {
        (void)context_of(r);
        FAIL() << "an interleaved pipeline on NeMo 1.11 was rendered";
    } catch (const InputError& e) {
        EXPECT_THAT(e.what(), HasSubstr("NeMo 1.11's megatron_gpt_config (container bignlp-training:22.06) has no "
                                        "'model.virtual_pipeline_model_parallel_size'"));
    }
    r.parallelism = {1, 2, 0, 1, 1, false};
    std::map<std::string, YAML::Node> cfg = delivered_config(r);
    EXPECT_EQ(cfg.count("model.virtual_pipeline_model_parallel_size"), 0u) << "not in 22.06's config";
    EXPECT_EQ(cfg.count("model.context_parallel_size"), 0u) << "not in 22.06's config";
    EXPECT_EQ(cfg.count("model.fp8"), 0u) << "not in 22.06's config";
}

TEST(Context, ExtraArgumentsReplaceGeneratedOnesWithTheSameKey) {
    recipe::Recipe r = render_test::base_recipe("nemo");
    r.launch.extra_args = {"exp_manager.explicit_log_dir=/elsewhere", "+model.gc_interval=100"};
    std::vector<std::string> a = argv_of(r);
    EXPECT_FALSE(has(a, "exp_manager.explicit_log_dir=${TRAINBENCH_RUN_DIR}/logs/train/nemo"));
    EXPECT_TRUE(has(a, "exp_manager.explicit_log_dir=/elsewhere"));
    EXPECT_EQ(a.back(), "+model.gc_interval=100");
    recipe::Recipe m = render_test::base_recipe("megatron-lm");
    m.launch.extra_args = {"--lr", "1e-4"};
    std::vector<std::string> b = argv_of(m);
    EXPECT_EQ(std::count(b.begin(), b.end(), "--lr"), 1);
    EXPECT_EQ(after(b, "--lr"), "1e-4");
}

TEST(Context, MegatronRunsTorchrunOncePerNodeWithSeed002Arguments) {
    recipe::Recipe r = render_test::base_recipe("megatron-lm");
    r.parallelism = {8, 16, 0, 1, 1, true};
    r.precision = catalog::Precision::fp16;
    r.launch.workdir = "/opt/Megatron-LM";
    r.launch.entrypoint = "pretrain_gpt.py";
    ordered_json c = context_of(r);
    EXPECT_EQ(c["tasks_per_node"], 1);
    std::vector<std::string> a = c["launch_argv"].get<std::vector<std::string>>();
    EXPECT_EQ(a.at(0), "torchrun");
    EXPECT_EQ(after(a, "--nproc_per_node"), "8");
    EXPECT_EQ(after(a, "--nnodes"), "2");
    EXPECT_EQ(after(a, "--rdzv_endpoint"), "${MASTER_ADDR}:${MASTER_PORT}");
    EXPECT_TRUE(has(a, "/opt/Megatron-LM/pretrain_gpt.py"));
    EXPECT_EQ(after(a, "--num-layers"), "12");
    EXPECT_EQ(after(a, "--hidden-size"), "768");
    EXPECT_EQ(after(a, "--num-attention-heads"), "12");
    EXPECT_EQ(after(a, "--seq-length"), "2048");
    EXPECT_EQ(after(a, "--max-position-embeddings"), "2048");
    EXPECT_EQ(after(a, "--micro-batch-size"), "4");
    EXPECT_EQ(after(a, "--global-batch-size"), "256");
    EXPECT_EQ(after(a, "--train-iters"), "40");
    EXPECT_EQ(after(a, "--tensor-model-parallel-size"), "8");
    EXPECT_EQ(after(a, "--pipeline-model-parallel-size"), "16");
    EXPECT_TRUE(has(a, "--sequence-parallel"));
    EXPECT_TRUE(has(a, "--use-distributed-optimizer"));
    EXPECT_TRUE(has(a, "--fp16"));
    EXPECT_TRUE(has(a, "--mock-data"));
    // CUDA_DEVICE_MAX_CONNECTIONS=1 always for Megatron-LM (seed 002).
    bool found = false;
    for (const auto& e : c["env"]) found |= e["name"] == "CUDA_DEVICE_MAX_CONNECTIONS" && e["value"] == "1";
    EXPECT_TRUE(found);
}

TEST(Context, MetaseqRunsOneTaskPerGpuWithFirstClassArguments) {
    recipe::Recipe r = render_test::base_recipe("metaseq");
    r.parallelism.tensor = 2;
    r.precision = catalog::Precision::fp16;
    r.launch.workdir = "/shared/metaseq";
    r.launch.entrypoint = "metaseq/cli/train.py";
    r.batch = {8, 64};
    ordered_json c = context_of(r);
    EXPECT_EQ(c["tasks_per_node"], 8);
    std::vector<std::string> a = c["launch_argv"].get<std::vector<std::string>>();
    EXPECT_TRUE(has(a, "/shared/metaseq/metaseq/cli/train.py"));
    EXPECT_EQ(after(a, "--distributed-world-size"), "16");
    EXPECT_EQ(after(a, "--model-parallel-size"), "2");
    EXPECT_EQ(after(a, "--batch-size"), "8");
    EXPECT_EQ(after(a, "--update-freq"), "1");  // 64 / (8 * 16/2)
    EXPECT_EQ(after(a, "--max-update"), "40");
    EXPECT_EQ(after(a, "--decoder-layers"), "12");
    EXPECT_TRUE(has(a, "--memory-efficient-fp16"));
    EXPECT_EQ(after(a, "--task"), "dummy_lm");
}

TEST(Context, TinygptUsesTheWorkloadFlags) {
    recipe::Recipe r = render_test::base_recipe("tinygpt");
    r.gpu.name = r.gpu.family = "cpu";  // the CPU workload, Debian's python3-torch
    r.metrics.path = "dllogger/rank-0/dllogger.json";
    ordered_json c = context_of(r);
    std::vector<std::string> a = c["launch_argv"].get<std::vector<std::string>>();
    EXPECT_EQ(a.at(0), "/usr/bin/python3");
    EXPECT_FALSE(has(a, "--device"));
    EXPECT_EQ(a.at(2), "${TRAINBENCH_WORKLOADS}/tinygpt/train.py");
    for (const char* flag : {"--layers", "--hidden", "--heads", "--ffn", "--seq-len", "--vocab", "--micro-batch",
                             "--global-batch", "--steps", "--lr", "--seed"})
        EXPECT_TRUE(has(a, flag)) << flag;
    EXPECT_EQ(after(a, "--ffn"), "3072");
    EXPECT_EQ(after(a, "--dllogger-file"), "${TRAINBENCH_RUN_DIR}/logs/train/dllogger/rank-0/dllogger.json");
    EXPECT_EQ(c["metrics_dir"], "logs/train/dllogger/rank-0");
    EXPECT_EQ(c["needs_workloads"], true);
}

// On a target with real GPUs the workload runs on CUDA with the python3 of PATH (a GPU node's
// CUDA PyTorch): srun starts one task per GPU on Slurm; locally torchrun starts the ranks.
TEST(Context, TinygptOnGpusRunsOnCuda) {
    recipe::Recipe r = render_test::base_recipe("tinygpt");
    r.precision = catalog::Precision::bf16;
    ordered_json c = context_of(r);
    std::vector<std::string> a = c["launch_argv"].get<std::vector<std::string>>();
    EXPECT_EQ(a.at(0), "python3");
    EXPECT_EQ(a.at(2), "${TRAINBENCH_WORKLOADS}/tinygpt/train.py");
    EXPECT_EQ(after(a, "--device"), "cuda");
    EXPECT_EQ(after(a, "--precision"), "bf16");
    EXPECT_EQ(after(a, "--attention"), "sdpa");
    EXPECT_EQ(after(a, "--pad-vocab-to"), "128");
    r.target.scheduler = catalog::Scheduler::local;
    r.container.runtime = "none";
    r.gpus_per_node = 4;
    c = context_of(r);
    a = c["launch_argv"].get<std::vector<std::string>>();
    EXPECT_EQ(std::vector<std::string>(a.begin(), a.begin() + 7),
              (std::vector<std::string>{"python3", "-u", "-m", "torch.distributed.run", "--standalone", "--nnodes=1",
                                        "--nproc-per-node=4"}));
    EXPECT_EQ(c["local"]["spawn_ranks"], false);
}

TEST(Context, CustomIsTheCommandWordForWord) {
    recipe::Recipe r = render_test::base_recipe("custom");
    r.launch.command = {"my-trainer", "--flag", "a b"};
    EXPECT_EQ(argv_of(r), (std::vector<std::string>{"my-trainer", "--flag", "a b"}));
    r.launch.command.clear();
    EXPECT_THROW((void)argv_of(r), InputError);
}

TEST(Context, KubernetesNamesAreUniquePerRunAndValidLabels) {
    recipe::Recipe r = render_test::base_recipe();
    r.target.scheduler = catalog::Scheduler::kubernetes;
    r.target.kubernetes.network_stack = "tcpxo";
    RenderOptions a, b;
    a.run_id = "20261122T021823Z-abc123";
    b.run_id = "20261122T021824Z-def456";
    ordered_json ca = build_context(r, a, effective_stages(r).front());
    ordered_json cb = build_context(r, b, effective_stages(r).front());
    EXPECT_NE(ca["kubernetes"]["name"], cb["kubernetes"]["name"]);
    EXPECT_EQ(ca["kubernetes"]["name"], "test-recipe-abc123") << "the recipe name, then the short id";
    EXPECT_EQ(ca["kubernetes"]["master_addr"], "test-recipe-abc123-0.test-recipe-abc123");
    // A long name keeps its start (`kubectl get pods | grep gpt3` finds it) and the short id.
    r.name = "gpt3-175b-fp8-a3mega-16n-smoke-with-a-much-longer-name-than-fits";
    std::string longname = build_context(r, a, effective_stages(r).front())["kubernetes"]["name"];
    EXPECT_EQ(longname, "gpt3-175b-fp8-a3mega-16n-smoke-with-a-much-lo-abc123");
    EXPECT_LE(longname.size(), 52u);
    EXPECT_EQ(ca["kubernetes"]["tcpxo"], true);
    std::vector<std::string> argv = ca["launch_argv"].get<std::vector<std::string>>();
    EXPECT_EQ(argv.at(0), "torchrun");
    EXPECT_TRUE(has(argv, "--node-rank=${NODE_RANK}"));
    EXPECT_TRUE(has(argv, "trainer.num_nodes=${NNODES}"));
}

TEST(Context, PyxisContainerEnvAndSlurmNetworkAreRenderedWhereTheSeedHasThem) {
    recipe::Recipe r = render_test::base_recipe("megatron-lm");
    ordered_json c = context_of(r);
    auto lines = [](const ordered_json& ctx) {
        std::string out;
        for (const auto& l : ctx["launch_lines"]) out += l["line_sh"].get<std::string>() + "\n";
        return out;
    };
    EXPECT_THAT(lines(c), Not(HasSubstr("--container-env")));
    EXPECT_EQ(c["slurm"]["has_network"], false);
    // seed 002: srun --container-env=CUDA_DEVICE_MAX_CONNECTIONS,NCCL_TOPO_FILE,LOGLEVEL; 77e7526: --network=sharp
    r.container.env = {"CUDA_DEVICE_MAX_CONNECTIONS", "NCCL_TOPO_FILE", "LOGLEVEL"};
    r.slurm.network = "sharp";
    c = context_of(r);
    EXPECT_THAT(lines(c), HasSubstr("  --container-env=CUDA_DEVICE_MAX_CONNECTIONS,NCCL_TOPO_FILE,LOGLEVEL \\\n"));
    EXPECT_EQ(c["slurm"]["network"], "sharp");
    EXPECT_EQ(c["slurm"]["has_network"], true);
    r.slurm.network = "sharp\n#SBATCH --exclusive";
    EXPECT_THROW((void)context_of(r), InputError);
}
