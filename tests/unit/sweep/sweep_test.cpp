// Sweep files, expansion, exclusion, caps, names, hashes and pruning.
#include "unit/sweep/sweep_test_support.hpp"

#include <trainbench/sweep.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <malloc.h>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace trainbench;
using namespace sweep_test;

TEST(SweepSpec, MatrixIsCartesianWithTheFirstKeySlowestAndNamesFromTheTemplate) {
    TempDir dir;
    auto x = expand_text(dir, fmt::format(R"(base: {}
name: "{{model}}-{{nodes}}n-tp{{parallelism.tensor}}"
matrix:
  nodes: [2, 4]
  parallelism.tensor: [1, 2, 4]
)",
                                          p4d_5b()));
    ASSERT_EQ(x.points.size(), 6u);
    std::vector<std::string> names;
    for (const auto& p : x.points) names.push_back(p.name);
    EXPECT_EQ(names, (std::vector<std::string>{"gpt3-5b-2n-tp1", "gpt3-5b-2n-tp2", "gpt3-5b-2n-tp4", "gpt3-5b-4n-tp1",
                                               "gpt3-5b-4n-tp2", "gpt3-5b-4n-tp4"}));
    EXPECT_EQ(x.points[4].index, 5u);
    ASSERT_EQ(x.points[4].overrides.size(), 2u);
    EXPECT_EQ(x.points[4].overrides[0].text, "sweep point 5: nodes=4");
    EXPECT_EQ(x.points[4].overrides[1].text, "sweep point 5: parallelism.tensor=2");
    ASSERT_TRUE(x.points[4].loaded);
    EXPECT_EQ(x.points[4].nodes, 4);
    EXPECT_EQ(x.points[4].gpus, 32);
    EXPECT_EQ(x.points[4].model, "gpt3-5b");
    recipe::Recipe r = sweep::point_recipe(x, x.points[4], shipped_catalog());
    EXPECT_EQ(r.nodes, 4);
    EXPECT_EQ(r.parallelism.tensor, 2);
    EXPECT_EQ(r.name, "gpt3-5b-4n-tp2");
    EXPECT_EQ(r.resolved["name"], "gpt3-5b-4n-tp2");
    EXPECT_EQ(r.origins.at("nodes").override_text, "sweep point 5: nodes=4");
}

TEST(SweepSpec, ZipStepsThroughListsTogetherAndSetAppliesToEveryPoint) {
    TempDir dir;
    auto x = expand_text(dir, fmt::format(R"(base: {}
name: "p-{{nodes}}-{{batch.micro}}-{{steps}}"
set:
  steps: 7
zip:
  nodes: [2, 4, 8]
  batch.micro: [1, 2, 1]
)",
                                          p4d_5b()));
    ASSERT_EQ(x.points.size(), 3u);
    EXPECT_EQ(x.points[0].name, "p-2-1-7");
    EXPECT_EQ(x.points[1].name, "p-4-2-7");
    EXPECT_EQ(x.points[2].name, "p-8-1-7");
    for (const auto& p : x.points) EXPECT_EQ(sweep::point_recipe(x, p, shipped_catalog()).steps, 7);
    EXPECT_EQ(x.points[1].values.size(), 2u);  // set values are not axis values
}

TEST(SweepSpec, ZipListsOfDifferentLengthsAreALocatedError) {
    TempDir dir;
    fs::path f = dir.write("s.yaml", fmt::format(R"(base: {}
name: "p-{{nodes}}"
zip:
  nodes: [2, 4, 8]
  batch.micro: [1, 2]
)",
                                                 p4d_5b()));
    try {
        (void)sweep::load_sweep(f);
        FAIL() << "expected an error";
    } catch (const InputError& e) {
        ASSERT_EQ(e.diagnostics().error_count(), 1u);
        const Diagnostic& d = e.diagnostics().items().front();
        EXPECT_EQ(d.location.line, 5);
        EXPECT_NE(d.message.find("differ in length"), std::string::npos) << d.message;
    }
}

TEST(SweepSpec, UnknownKeysAreLocatedWithDidYouMean) {
    TempDir dir;
    fs::path f = dir.write("s.yaml", fmt::format(R"(base: {}
name: "p-{{nodes}}"
matrx:
  nodes: [2]
)",
                                                 p4d_5b()));
    try {
        (void)sweep::load_sweep(f);
        FAIL() << "expected an error";
    } catch (const InputError& e) {
        std::string all = all_diagnostics(e);
        EXPECT_NE(all.find("did you mean 'matrix'"), std::string::npos) << all;
        EXPECT_NE(all.find(":3:"), std::string::npos) << all;
    }
}

TEST(SweepSpec, UnknownRecipeKeysInAxesAreLocatedWithDidYouMean) {
    TempDir dir;
    try {
        (void)expand_text(dir, fmt::format(R"(base: {}
name: "p-{{nodes}}"
matrix:
  nodes: [2, 4]
  parallelism.tensr: [1, 2]
)",
                                           p4d_5b()));
        FAIL() << "expected an error";
    } catch (const InputError& e) {
        std::string all = all_diagnostics(e);
        EXPECT_NE(all.find("did you mean 'parallelism.tensor'"), std::string::npos) << all;
        EXPECT_NE(all.find("s.yaml:5:3"), std::string::npos) << all;
    }
}

TEST(SweepSpec, ExcludeDropsPointsByValuesAndByStructuredComparisons) {
    TempDir dir;
    auto x = expand_text(dir, fmt::format(R"(base: {}
name: "p-{{nodes}}n-tp{{parallelism.tensor}}-pp{{parallelism.pipeline}}"
matrix:
  nodes: [2, 4, 8]
  parallelism.tensor: [1, 8]
  parallelism.pipeline: [1, 4]
exclude:
  - {{nodes: 8, parallelism.tensor: 1}}
  - {{key: model_parallel, op: ">", value: 16}}
  - {{key: nodes, op: "<", value: 4, }}
)",
                                          p4d_5b()));
    // 12 raw points; nodes 2 (4 points) go; of nodes 4 and 8, tp8 x pp4 = 32 > 16 goes (2);
    // nodes 8 tp1 goes (2 points: pp1, pp4).
    std::set<std::string> names;
    for (const auto& p : x.points) names.insert(p.name);
    EXPECT_EQ(x.excluded.size(), 8u);
    EXPECT_EQ(names, (std::set<std::string>{"p-4n-tp1-pp1", "p-4n-tp1-pp4", "p-4n-tp8-pp1", "p-8n-tp8-pp1"}));
}

TEST(SweepSpec, ExcludeComparisonsNeedNumbersAndKnownOperators) {
    TempDir dir;
    fs::path f = dir.write("s.yaml", fmt::format(R"(base: {}
name: "p-{{nodes}}"
matrix:
  nodes: [2]
exclude:
  - {{key: nodes, op: "<", value: many}}
  - {{key: nodes, op: "=<", value: 2}}
)",
                                                 p4d_5b()));
    try {
        (void)sweep::load_sweep(f);
        FAIL() << "expected an error";
    } catch (const InputError& e) {
        std::string all = all_diagnostics(e);
        EXPECT_NE(all.find("needs a number"), std::string::npos) << all;
        EXPECT_NE(all.find("'=<'"), std::string::npos) << all;
        EXPECT_EQ(e.diagnostics().error_count(), 2u) << all;
    }
}

TEST(SweepSpec, ThePointCapFailsLoudlyInsteadOfTruncating) {
    TempDir dir;
    try {
        (void)expand_text(dir, fmt::format(R"(base: {}
name: "p-{{nodes}}-{{steps}}"
max_points: 5
matrix:
  nodes: [1, 2, 4]
  steps: [10, 20]
)",
                                           p4d_5b()));
        FAIL() << "expected the cap to fail";
    } catch (const InputError& e) {
        std::string all = all_diagnostics(e);
        EXPECT_NE(all.find("6 points, more than max_points 5"), std::string::npos) << all;
        EXPECT_NE(all.find("s.yaml:3:"), std::string::npos) << all;
    }
    sweep::SweepSpec big;
    big.matrix.resize(2);
    for (auto& a : big.matrix) a.values.resize(200);
    EXPECT_EQ(sweep::raw_point_count(big), 40000u);
    EXPECT_GT(sweep::raw_point_count(big), sweep::k_default_max_points);
}

TEST(SweepSpec, InvalidPointsArePrunedWithTheirReasons) {
    TempDir dir;
    auto x = expand_text(dir, fmt::format(R"(base: {}
name: "p-tp{{parallelism.tensor}}-mbs{{batch.micro}}"
matrix:
  parallelism.tensor: [1, 3]
  batch.micro: [1, 16]
)",
                                          p4d_5b()));
    ASSERT_EQ(x.points.size(), 4u);
    EXPECT_TRUE(x.points[0].valid) << (x.points[0].reasons.empty() ? "" : x.points[0].reasons.front());
    EXPECT_EQ(x.valid_count(), 1u);
    for (const auto& p : x.points) {
        if (p.valid) continue;
        ASSERT_FALSE(p.reasons.empty()) << p.name;
        EXPECT_TRUE(p.hash.empty());
    }
    // tensor 3 does not divide 8 GPUs per node / 32 heads: the reason names the key.
    std::string r = x.points[2].reasons.front();
    EXPECT_NE(r.find("parallelism.tensor"), std::string::npos) << r;
    EXPECT_NE(r.find("sweep point 3: parallelism.tensor=3"), std::string::npos) << r;
    // micro batch 16 on 40 GB: memory or batch divisibility.
    std::string all;
    for (const auto& s : x.points[1].reasons) all += s + "\n";
    EXPECT_TRUE(all.find("memory") != std::string::npos || all.find("batch") != std::string::npos) << all;
}

TEST(SweepSpec, TwoValidPointsWithTheSameNameAreAnError) {
    TempDir dir;
    try {
        (void)expand_text(dir, fmt::format(R"(base: {}
name: "same-{{model}}"
matrix:
  nodes: [2, 4]
)",
                                           p4d_5b()));
        FAIL() << "expected an error";
    } catch (const InputError& e) {
        std::string all = all_diagnostics(e);
        EXPECT_NE(all.find("points 1 and 2 are both named 'same-gpt3-5b'"), std::string::npos) << all;
        EXPECT_NE(all.find("{nodes}"), std::string::npos) << all;
    }
}

TEST(SweepSpec, UnknownTemplateKeysAreErrors) {
    TempDir dir;
    try {
        (void)expand_text(dir, fmt::format(R"(base: {}
name: "p-{{node}}"
matrix:
  nodes: [2, 4]
)",
                                           p4d_5b()));
        FAIL() << "expected an error";
    } catch (const InputError& e) {
        std::string all = all_diagnostics(e);
        EXPECT_NE(all.find("did you mean 'nodes'"), std::string::npos) << all;
    }
}

TEST(SweepHash, FnvVectorsAndStablePointHashes) {
    EXPECT_EQ(sweep::fnv1a_hex(""), "cbf29ce484222325");
    EXPECT_EQ(sweep::fnv1a_hex("a"), "af63dc4c8601ec8c");
    EXPECT_EQ(sweep::fnv1a_hex("foobar"), "85944171f73967e8");
    TempDir dir;
    std::string text = fmt::format(R"(base: {}
name: "p-{{nodes}}"
matrix:
  nodes: [2, 4]
)",
                                   p4d_5b());
    auto a = expand_text(dir, text);
    auto b = expand_text(dir, text);
    ASSERT_EQ(a.points.size(), 2u);
    EXPECT_EQ(a.points[0].hash.size(), 16u);
    EXPECT_EQ(a.points[0].hash, b.points[0].hash);
    EXPECT_EQ(a.points[1].hash, b.points[1].hash);
    EXPECT_NE(a.points[0].hash, a.points[1].hash);
    // The same point from a sweep that orders its axes differently is the same point.
    auto c = expand_text(dir, fmt::format(R"(base: {}
name: "p-{{nodes}}"
zip:
  nodes: [4, 2]
)",
                                          p4d_5b()));
    EXPECT_EQ(c.points[0].hash, a.points[1].hash);
    EXPECT_EQ(c.points[1].hash, a.points[0].hash);
}

TEST(ShippedSweeps, TheGpt3SizeLadderValidatesWithEveryPointExplained) {
    sweep::Expansion x = sweep::expand(sweep::load_sweep(k_source / "sweeps/gpt3-sizes.yaml"), shipped_catalog());
    ASSERT_EQ(x.points.size(), 5u);
    for (const auto& p : x.points) {
        std::string why;
        for (const auto& r : p.reasons) why += r + "\n";
        EXPECT_TRUE(p.valid) << p.name << ": " << why;
    }
    EXPECT_EQ(x.points[0].name, "gpt3-126m-ndm-a100-v4-1n-tp1-pp1");
    EXPECT_EQ(x.points[4].name, "gpt3-175b-ndm-a100-v4-128n-tp8-pp8");
    EXPECT_EQ(x.points[4].gpus, 1024);
    recipe::Recipe r = sweep::point_recipe(x, x.points[4], shipped_catalog());
    EXPECT_EQ(r.total_gpus(), 1024);
    ASSERT_EQ(r.expectations.size(), 1u);
    EXPECT_DOUBLE_EQ(*r.expectations[0].value, 22.8);
}

TEST(ShippedSweeps, EveryShippedSweepExpandsAndEveryPrunedPointHasAReason) {
    for (const auto& e : fs::directory_iterator(k_source / "sweeps")) {
        if (e.path().extension() != ".yaml") continue;
        sweep::Expansion x = sweep::expand(sweep::load_sweep(e.path()), shipped_catalog());
        EXPECT_GT(x.valid_count(), 0u) << e.path();
        for (const auto& p : x.points) {
            if (!p.valid) {
                EXPECT_FALSE(p.reasons.empty()) << e.path() << " point " << p.index;
            }
        }
    }
}

namespace {

// A sweep of 4 x 2 x 5 = 40 points over the 5B p4d recipe, half pruned (tensor 3 divides no node count's GPUs).
std::string forty_points() {
    return fmt::format(R"(base: {}
name: "p-{{nodes}}n-tp{{parallelism.tensor}}-s{{steps}}"
matrix:
  nodes: [2, 4, 8, 16]
  parallelism.tensor: [2, 3]
  steps: [20, 21, 22, 23, 24]
)",
                       p4d_5b());
}

}  // namespace

TEST(SweepExpand, ARecipeDerivedOnDemandIsTheOneExpansionVisitedValidatedAndHashed) {
    TempDir dir;
    const sweep::SweepSpec spec = sweep::load_sweep(dir.write("s.yaml", forty_points()));
    std::map<std::size_t, std::string> visited;  // index -> canonical resolved recipe
    std::mutex m;
    sweep::ExpandOptions o;
    o.threads = 2;
    o.visit = [&](const sweep::Point& p, const recipe::Recipe& r, unsigned worker) {
        EXPECT_LT(worker, 2u);
        std::lock_guard lock(m);
        visited[p.index] = nlohmann::json(r.resolved).dump();
    };
    sweep::Expansion x = sweep::expand(spec, shipped_catalog(), o);
    ASSERT_EQ(x.points.size(), 40u);
    EXPECT_GT(x.pruned_count(), 0u);
    EXPECT_EQ(visited.size(), x.valid_count());
    for (const sweep::Point& p : x.points) {
        if (!p.valid) {
            EXPECT_EQ(visited.count(p.index), 0u) << p.name;
            continue;
        }
        recipe::Recipe r = sweep::point_recipe(x, p, shipped_catalog());
        EXPECT_EQ(nlohmann::json(r.resolved).dump(), visited[p.index]) << p.name;
        EXPECT_EQ(sweep::point_hash(r), p.hash) << p.name;
        EXPECT_EQ(r.name, p.name);
        EXPECT_EQ(r.model_name, p.model);
        EXPECT_EQ(r.nodes, p.nodes);
        EXPECT_EQ(r.total_gpus(), p.gpus);
    }
}

// A point's hash is the FNV-1a of the resolved recipe printed with sorted keys, byte for byte
// what nlohmann::json (sorted objects) prints: hashes of earlier sweeps stay valid.
TEST(SweepHash, IsTheHashOfTheSortedCompactDump) {
    recipe::Recipe r;
    r.resolved = nlohmann::ordered_json::parse(
        R"({"z": 1, "a": {"y": [3, {"b": true, "a": null}], "x": "t\"ab\u00e9\n"}, "m": 1.5e-05,
            "B": -7, "e": {}, "l": [], "u": 18446744073709551615})");
    EXPECT_EQ(sweep::point_hash(r), sweep::fnv1a_hex(nlohmann::json(r.resolved).dump()));
    EXPECT_EQ(nlohmann::json(r.resolved).dump().substr(0, 14), R"({"B":-7,"a":{")");
    recipe::Recipe shipped = recipe::load_recipe(k_source / "recipes/aws-p4d/gpt3-5b.yaml", shipped_catalog());
    EXPECT_EQ(sweep::point_hash(shipped), sweep::fnv1a_hex(nlohmann::json(shipped.resolved).dump()));
    recipe::Recipe empty;
    EXPECT_EQ(sweep::point_hash(empty), sweep::fnv1a_hex("{}"));
}

TEST(SweepExpand, ThreadsChangeNothingInTheResult) {
    TempDir dir;
    const sweep::SweepSpec spec = sweep::load_sweep(dir.write("s.yaml", forty_points()));
    sweep::ExpandOptions one, two;
    two.threads = 2;
    sweep::Expansion a = sweep::expand(spec, shipped_catalog(), one);
    sweep::Expansion b = sweep::expand(spec, shipped_catalog(), two);
    ASSERT_EQ(a.points.size(), b.points.size());
    for (std::size_t i = 0; i < a.points.size(); ++i) {
        EXPECT_EQ(a.points[i].index, b.points[i].index);
        EXPECT_EQ(a.points[i].name, b.points[i].name);
        EXPECT_EQ(a.points[i].valid, b.points[i].valid);
        EXPECT_EQ(a.points[i].reasons, b.points[i].reasons);
        EXPECT_EQ(a.points[i].warnings, b.points[i].warnings);
        EXPECT_EQ(a.points[i].hash, b.points[i].hash);
    }
}

TEST(SweepExpand, AnExpansionHoldsNoRecipeOfItsPoints) {
    // 400 points: each loaded recipe is tens of KiB of heap; what an expansion keeps per
    // point (its table row) is a small fraction of that. One thread: mallinfo2 counts
    // the main arena only (and nothing under AddressSanitizer, whose allocator replaces it).
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "mallinfo2 does not see AddressSanitizer's allocator";
#endif
    TempDir dir;
    const sweep::SweepSpec spec = sweep::load_sweep(dir.write("s.yaml", fmt::format(R"(base: {}
name: "p-{{nodes}}n-s{{steps}}-e{{env.TB_X}}"
matrix:
  nodes: [2, 4, 8, 16]
  steps: [20, 21, 22, 23, 24, 25, 26, 27, 28, 29]
  env.TB_X: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
)",
                                                                                    p4d_5b())));
    std::size_t recipe_bytes = 0;
    sweep::ExpandOptions o;
    o.visit = [&](const sweep::Point&, const recipe::Recipe& r, unsigned) {
        if (recipe_bytes != 0) return;
        const std::size_t start = ::mallinfo2().uordblks;
        auto copy = std::make_unique<recipe::Recipe>(r);  // what keeping the recipe would cost
        recipe_bytes = ::mallinfo2().uordblks - start;
    };
    const std::size_t before = ::mallinfo2().uordblks;
    sweep::Expansion x = sweep::expand(spec, shipped_catalog(), o);
    const std::size_t after = ::mallinfo2().uordblks;
    ASSERT_EQ(x.valid_count(), 400u);
    const std::size_t per_point = (after > before ? after - before : 0) / x.points.size();
    EXPECT_GT(recipe_bytes, 4096u);
    EXPECT_LT(per_point, 4096u) << "bytes held per point";
    EXPECT_LT(per_point, recipe_bytes / 2) << "bytes held per point";
}
