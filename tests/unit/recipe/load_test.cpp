#include "test_support.hpp"

#include <trainbench/yaml.hpp>

#include <gtest/gtest.h>

namespace trainbench::recipe {
namespace {

using test::data_dir;
using test::load;

std::string origin(const Recipe& r, const std::string& key) {
    auto it = r.origins.find(key);
    return it == r.origins.end() ? "<none>" : it->second.to_string();
}

std::string env_value(const catalog::EnvList& env, const std::string& name) {
    for (const auto& [k, v] : env)
        if (k == name) return v;
    return "<unset>";
}

TEST(LoadRecipe, ResolvesCatalogReferencesAndDefaults) {
    Recipe r = load(data_dir() / "valid" / "minimal.yaml");
    EXPECT_EQ(r.name, "minimal");
    EXPECT_EQ(r.target_name, "azure-ndm-a100-v4");
    EXPECT_EQ(r.target.gpus_per_node, 8);
    EXPECT_EQ(r.gpu.name, "a100-sxm-80gb");
    EXPECT_EQ(r.model.layers, 12);
    EXPECT_EQ(r.framework, "nemo");
    EXPECT_EQ(r.nodes, 1);
    EXPECT_EQ(r.total_gpus(), 8);
    EXPECT_EQ(r.data_parallel(), 8);
    EXPECT_EQ(r.container.runtime, "pyxis");  // the target's
    ASSERT_FALSE(r.container.mounts.empty());
    EXPECT_EQ(r.container.mounts.front(), "/opt/microsoft:/opt/microsoft");  // the target's default mount
    EXPECT_EQ(r.slurm.partition, "ndmv4");  // the target's Slurm defaults fill what the recipe leaves unset
    EXPECT_EQ(r.data.kind, "mock");
    EXPECT_EQ(origin(r, "target"), (data_dir() / "valid" / "minimal.yaml").string() + ":4:9");
}

TEST(LoadRecipe, WithoutMetricsFlopsTheFrameworkVersionsDatedConventionIsTheDefault) {
    // NeMo 24.07 (the container's version) printed NeMo's FLOPs before the causal half of 2025-08-09.
    Recipe r = load(data_dir() / "valid" / "minimal.yaml");
    EXPECT_EQ(r.framework_version, "24.07");
    EXPECT_EQ(r.metrics.flops, "nemo-2024");
    // A recipe that names one keeps it.
    EXPECT_EQ(load(data_dir() / "valid" / "every_key.yaml").metrics.flops, "nemo");
}

TEST(LoadRecipe, ExtendsLaterWinsFileWinsMapsMergeListsReplace) {
    Recipe r = load(data_dir() / "valid" / "extends_chain.yaml");
    EXPECT_EQ(r.nodes, 2);                 // base_a
    EXPECT_EQ(r.parallelism.tensor, 2);    // base_a
    EXPECT_EQ(r.parallelism.pipeline, 1);  // base_b wins over base_a
    EXPECT_EQ(r.steps, 77);                // base_c, extended by base_b
    EXPECT_EQ(r.description, "from-c");
    EXPECT_EQ(env_value(r.env, "A"), "from-a");
    EXPECT_EQ(env_value(r.env, "B"), "from-b");
    EXPECT_EQ(env_value(r.env, "C"), "from-file");  // the file itself wins over all it extends
    EXPECT_EQ(r.container.image, "image-from-a");
    // lists replace: base_b's mounts replace base_a's (the target's default mounts come first)
    EXPECT_EQ(r.container.mounts,
              (std::vector<std::string>{"/opt/microsoft:/opt/microsoft", "/var/tmp:/var/tmp", "/b:/b"}));
    EXPECT_EQ(r.metrics.window_start, 5);
    // origins name the file that set each value
    EXPECT_NE(origin(r, "parallelism.pipeline").find("base_b.yaml:4:13"), std::string::npos)
        << origin(r, "parallelism.pipeline");
    EXPECT_NE(origin(r, "parallelism.tensor").find("base_a.yaml:6:11"), std::string::npos)
        << origin(r, "parallelism.tensor");
    EXPECT_NE(origin(r, "steps").find("base_c.yaml:2:8"), std::string::npos) << origin(r, "steps");
    EXPECT_NE(origin(r, "env.C").find("extends_chain.yaml:9:6"), std::string::npos) << origin(r, "env.C");
}

TEST(LoadRecipe, OverridesAreTypedLikeTheFieldTheySet) {
    Recipe r = load(data_dir() / "valid" / "minimal.yaml",
                    {"nodes=4", "parallelism.tensor=2", "metrics.window=[5,20]", "env.NCCL_DEBUG=WARN",
                     "parallelism.sequence_parallel=true", "description=a b c"});
    EXPECT_EQ(r.nodes, 4);
    EXPECT_EQ(r.parallelism.tensor, 2);
    EXPECT_TRUE(r.parallelism.sequence_parallel);
    EXPECT_EQ(r.metrics.window_start, 5);
    EXPECT_EQ(r.metrics.window_end, 20);
    EXPECT_EQ(env_value(r.env, "NCCL_DEBUG"), "WARN");
    EXPECT_EQ(r.description, "a b c");
    EXPECT_EQ(origin(r, "nodes"), "-s nodes=4");
    EXPECT_EQ(origin(r, "metrics.window"), "-s metrics.window=[5,20]");
    EXPECT_EQ(origin(r, "env.NCCL_DEBUG"), "-s env.NCCL_DEBUG=WARN");
    EXPECT_EQ(r.resolved["nodes"], 4);
    EXPECT_EQ(r.resolved["metrics"]["window"], nlohmann::ordered_json({5, 20}));
}

TEST(LoadRecipe, MetricsWindowMayBeANamedWindow) {
    Recipe r = load(data_dir() / "valid" / "minimal.yaml", {"metrics.window=dgxc"});
    EXPECT_EQ(r.metrics.window_start, 35);
    EXPECT_EQ(r.metrics.window_end, 44);
    EXPECT_EQ(r.metrics.window_name, "dgxc");
    EXPECT_EQ(r.resolved["metrics"]["window"], "dgxc");  // the resolved recipe keeps the name
    try {
        (void)load(data_dir() / "valid" / "minimal.yaml", {"metrics.window=dgcx"});
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        ASSERT_EQ(e.diagnostics().error_count(), 1u);
        const std::string text = e.diagnostics().items()[0].format();
        EXPECT_NE(text.find("unknown window 'dgcx'"), std::string::npos) << text;
        EXPECT_NE(text.find("did you mean 'dgxc'"), std::string::npos) << text;
    }
}

TEST(LoadRecipe, AnOverrideOfTheWrongTypeIsALocatedError) {
    try {
        (void)load(data_dir() / "valid" / "minimal.yaml", {"nodes=abc"});
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        ASSERT_EQ(e.diagnostics().error_count(), 1u);
        EXPECT_EQ(e.diagnostics().items()[0].format(),
                  "-s nodes=abc: error: 'nodes': wrong type: got 'abc' (expected an integer)");
    }
}

TEST(LoadRecipe, AnOverrideInsideACatalogReferenceBecomesAnInlineEdit) {
    Recipe r = load(data_dir() / "valid" / "minimal.yaml", {"target.gpus_per_node=4", "model.layers=24"});
    EXPECT_EQ(r.target_name, "azure-ndm-a100-v4");
    EXPECT_EQ(r.target.gpus_per_node, 4);
    EXPECT_EQ(r.total_gpus(), 4);
    EXPECT_EQ(r.model.layers, 24);
    EXPECT_EQ(r.model.hidden, 768);
}

TEST(LoadRecipe, InlineEditsOfTargetAndModel) {
    Recipe r = load(data_dir() / "valid" / "inline_edits.yaml");
    EXPECT_EQ(r.target.gpus_per_node, 4);
    EXPECT_EQ(r.target.gpu, "h200-sxm-141gb");
    EXPECT_EQ(r.gpu.memory_gib, 141);
    // an inline env edits the catalog's tuning env: same name overrides, the rest stays
    // (the ND v5 targets have none of their own: seed 002 sets only what the framework and the
    // topology file give)
    EXPECT_EQ(env_value(r.target.env, "NCCL_DEBUG"), "WARN");
    Recipe a = load(data_dir() / "valid" / "minimal.yaml", {"target.env.NCCL_IB_TIMEOUT=23"});
    EXPECT_EQ(env_value(a.target.env, "NCCL_IB_TIMEOUT"), "23");
    EXPECT_EQ(env_value(a.target.env, "NCCL_TOPO_FILE"), "/opt/microsoft/ndv4-topo.xml");
    EXPECT_EQ(r.model.name, "my-gpt");
    EXPECT_EQ(r.model.kv_head_count(), 4);
    EXPECT_FALSE(r.model.tied_embeddings);
    EXPECT_EQ(r.precision, catalog::Precision::fp8);
}

TEST(LoadRecipe, ParseOverrideRejectsMalformedText) {
    EXPECT_THROW((void)parse_override("nodes"), UsageError);
    EXPECT_THROW((void)parse_override("=4"), UsageError);
    EXPECT_THROW((void)parse_override("a..b=4"), UsageError);
    Override o = parse_override("env.X=a=b");
    EXPECT_EQ(o.key, "env.X");
    EXPECT_EQ(o.value, "a=b");
    EXPECT_EQ(o.text, "env.X=a=b");
}

TEST(LoadRecipe, ReportsEveryProblemAtOnce) {
    std::string all = test::problems(data_dir() / "invalid" / "several_errors_at_once.yaml");
    EXPECT_NE(all.find("'nodes': wrong type"), std::string::npos) << all;
    EXPECT_NE(all.find("'framework': unknown value 'nemo2'"), std::string::npos) << all;
    EXPECT_NE(all.find("'paralelism': unknown key"), std::string::npos) << all;
    EXPECT_NE(all.find("3 errors"), std::string::npos) << all;
}

TEST(LoadRecipe, DetectsExtendsCycles) {
    std::string all = test::problems(data_dir() / "invalid" / "extends_cycle.yaml");
    EXPECT_NE(all.find("extends cycle: "), std::string::npos) << all;
    EXPECT_NE(all.find("cycle_b.yaml -> "), std::string::npos) << all;
}

TEST(LoadRecipe, ExtendsReadsNothingOutsideTheRecipeTreesAndShowsNoneOfIt) {
    for (const char* name : {"extends_etc_passwd.yaml", "extends_traversal.yaml"}) {
        std::string all = test::problems(data_dir() / "hostile" / name);
        EXPECT_NE(all.find("is outside the recipe's directory tree and the recipe directories"), std::string::npos)
            << all;
        EXPECT_EQ(all.find("root:"), std::string::npos) << "the content of /etc/passwd was shown: " << all;
    }
    // Inside the tree (a base next to the recipe's folder, in the tree with common/ or catalog/): read.
    std::string ok = test::problems(data_dir() / "valid" / "extends_chain.yaml");
    EXPECT_EQ(ok.find("outside"), std::string::npos) << ok;
}

TEST(LoadRecipe, AMissingRecipeFileIsAnInputError) {
    EXPECT_THROW((void)load(data_dir() / "valid" / "does-not-exist.yaml"), InputError);
}

TEST(LoadRecipe, ResolvedJsonFollowsTheSchemaOrder) {
    Recipe r = load(data_dir() / "valid" / "every_key.yaml");
    std::vector<std::string> keys;
    for (const auto& [k, v] : r.resolved.items()) keys.push_back(k);
    std::vector<std::string> expected = {"version",
                                         "name",
                                         "description",
                                         "target",
                                         "model",
                                         "framework",
                                         "framework_version",
                                         "framework_config",
                                         "nodes",
                                         "gpus_per_node",
                                         "parallelism",
                                         "batch",
                                         "precision",
                                         "steps",
                                         "recompute",
                                         "distributed_optimizer",
                                         "data",
                                         "container",
                                         "env",
                                         "profiling",
                                         "metrics",
                                         "expect",
                                         "slurm",
                                         "kubernetes",
                                         "launch",
                                         "stages"};
    EXPECT_EQ(keys, expected);
    // framework_config: dotted and nested keys alike, flat, checked against the 23.07 profile
    EXPECT_EQ(r.framework_version, "23.07");
    ASSERT_TRUE(r.profile);
    EXPECT_EQ(r.framework_config["model.optim.lr"], 1.0e-4);
    EXPECT_EQ(r.framework_config["model.optim.sched.warmup_steps"], 10);
    EXPECT_EQ(r.resolved["expect"]["step_time_s"]["tolerance"], "5%");
    EXPECT_EQ(r.expectations.at(0).tolerance_is_relative, true);
    EXPECT_DOUBLE_EQ(*r.expectations.at(0).tolerance, 0.05);
    EXPECT_DOUBLE_EQ(*r.expectations.at(2).tolerance, 10.0);
    EXPECT_EQ(r.data.prefixes.size(), 2u);
    EXPECT_EQ(r.stages.size(), 2u);
    EXPECT_EQ(r.stages[1].kind, "train");  // kind defaults to a name that is a kind
    EXPECT_EQ(r.stages[0].options["nodes"], 35);
    EXPECT_EQ(env_value(r.env, "HF_TOKEN"), "${env:HF_TOKEN}");
    EXPECT_EQ(r.slurm.cpus_per_task, 12);
    EXPECT_EQ(r.kubernetes.node_selector.at("pool"), "a100");
}

TEST(ToYaml, PrintsTheResolvedRecipeWithOrigins) {
    Recipe r = load(data_dir() / "valid" / "minimal.yaml", {"nodes=4"});
    std::string plain = to_yaml(r);
    EXPECT_NE(plain.find("\nnodes: 4\n"), std::string::npos) << plain;
    EXPECT_NE(plain.find("\nparallelism:\n  tensor: 1\n"), std::string::npos) << plain;
    EXPECT_EQ(plain.find('#'), std::string::npos);
    std::string with = to_yaml(r, true);
    EXPECT_NE(with.find("# -s nodes=4"), std::string::npos) << with;
    EXPECT_NE(with.find("minimal.yaml:5:8"), std::string::npos) << with;  // model
    EXPECT_NE(with.find("# default"), std::string::npos) << with;
    EXPECT_NE(with.find("azure-ndm-a100-v4.yaml"), std::string::npos) << with;  // values from the catalog entry
}

TEST(ToYaml, RoundTripsThroughTheYamlReader) {
    for (const char* name : {"every_key.yaml", "inline_edits.yaml", "extends_chain.yaml", "custom_command.yaml"}) {
        Recipe r = load(data_dir() / "valid" / name);
        std::string text = to_yaml(r);
        Diagnostics d;
        yaml::Node parsed = yaml::parse(text, "resolved.yaml", d);
        ASSERT_FALSE(d.has_errors()) << d.format() << text;
        EXPECT_EQ(yaml::to_json(parsed), r.resolved) << name << "\n" << text;
    }
    Recipe r = load(data_dir() / "valid" / "every_key.yaml");
    std::string text = to_yaml(r);
    EXPECT_NE(text.find("  - name: validate\n    kind: validate\n"), std::string::npos) << text;
    EXPECT_NE(text.find("HF_TOKEN: \"${env:HF_TOKEN}\""), std::string::npos) << text;
}

}  // namespace
}  // namespace trainbench::recipe
