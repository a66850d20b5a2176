// sweep: many recipes from one. A sweep file names a base recipe and axes
// (matrix: cartesian, zip: lock-step lists), fixed overrides (set), points to
// drop (exclude: by values or structured comparisons) and a name template.
// Expansion reads the base recipe ONCE, applies each point's overrides as
// recipe::Override values ("sweep point N: key=value"), validates each point
// and prunes the invalid ones with their reasons. Every valid point carries a
// content hash of its resolved recipe: the identity a resumed sweep uses to
// never submit the same point twice.
// Planning (`trainbench plan`) is module plan; submitting a sweep and its
// state file are in pipeline.
//
// docs/sweeps.md is the reference of the sweep file; docs/performance.md has
// the dry-run timing.
#pragma once

#include <trainbench/catalog.hpp>
#include <trainbench/core.hpp>
#include <trainbench/recipe.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainbench::sweep {

inline constexpr std::size_t k_default_max_points = 10000;

// ---------------------------------------------------------------- the file
// One value of an axis: the YAML text handed to the recipe loader as an
// override value, and the text shown in names and tables.
struct AxisValue {
    std::string yaml;     // "4", "\"gpt3-5b\"", "{tensor: 2, pipeline: 4}"
    std::string display;  // "4", "gpt3-5b", "{tensor: 2, pipeline: 4}"
    SourceLocation where;
};

struct Axis {
    std::string key;  // dotted recipe key ("parallelism.tensor")
    std::vector<AxisValue> values;
    SourceLocation where;
};

// One test of an exclude rule. op is one of ==, !=, <, <=, >, >=, in, not in.
struct Condition {
    std::string key;  // dotted recipe key, or gpus / model_parallel / data_parallel
    std::string op = "==";
    std::vector<std::string> values;  // one value, or the list of `in` / `not in`
    SourceLocation where;
};

// A point is excluded when every condition of one rule holds.
struct ExcludeRule {
    std::vector<Condition> conditions;
    SourceLocation where;
};

struct SweepSpec {
    std::filesystem::path file;  // the sweep file
    std::string name;            // `sweep:` or the file's stem; names runs/_sweeps/<name>/
    std::string description;
    std::filesystem::path base;  // resolved: relative to the sweep file
    std::string name_template;   // "{model}-{nodes}n-tp{parallelism.tensor}"
    SourceLocation name_where;
    std::vector<std::pair<std::string, AxisValue>> set;  // fixed overrides for every point
    std::vector<Axis> matrix;                            // cartesian, first key slowest
    std::vector<Axis> zip;                               // lock-step (all the same length)
    std::vector<ExcludeRule> exclude;
    std::size_t max_points = k_default_max_points;
    SourceLocation max_points_where;
};

// Reads and checks a sweep file: unknown keys (did-you-mean), types, empty
// axes, zip lengths, keys given twice, malformed exclude rules. Throws
// InputError with every located diagnostic.
[[nodiscard]] SweepSpec load_sweep(const std::filesystem::path& file);
// The same from text (tests); `file` names it in diagnostics and anchors `base`.
[[nodiscard]] SweepSpec parse_sweep(std::string_view text, const std::filesystem::path& file);

// Points before exclusion: the product of the matrix sizes times the zip length.
[[nodiscard]] std::size_t raw_point_count(const SweepSpec& spec);

// ---------------------------------------------------------------- expansion
struct PointValue {
    std::string key;
    std::string display;
};

struct Point {
    std::size_t index = 0;                    // 1-based, in expansion order (stable across runs)
    std::string name;                         // from the template
    std::vector<PointValue> values;           // the axis values of this point, in axis order
    std::vector<recipe::Override> overrides;  // set + axes + name, as given to the loader
    bool valid = false;
    std::vector<std::string> reasons;  // why it was pruned (formatted diagnostics)
    std::vector<std::string> warnings;
    // What the views and reports read of the point's recipe (points that loaded). The
    // recipe itself is not kept: point_recipe() derives it again from the base.
    bool loaded = false;
    std::string model;  // the recipe's model_name
    int nodes = 0;
    int gpus = 0;      // total GPUs
    std::string hash;  // 16 hex digits over the canonical resolved recipe (valid points)
};

struct Expansion {
    SweepSpec spec;
    std::vector<Point> points;    // valid and pruned, in index order
    std::vector<Point> excluded;  // dropped by `exclude` (not loaded unless a rule needed it)
    // The base recipe, read once: point_recipe() loads a point from it.
    std::shared_ptr<const recipe::RecipeSource> base;
    [[nodiscard]] std::size_t valid_count() const;
    [[nodiscard]] std::size_t pruned_count() const;
};

// Called with each valid point and its recipe while the sweep expands, before the
// recipe is dropped: from up to ExpandOptions::threads threads at once (`worker`
// is 0 .. threads-1, one thread each), in no particular order.
using PointVisitor = std::function<void(const Point& point, const recipe::Recipe& recipe, unsigned worker)>;

struct ExpandOptions {
    unsigned threads = 1;  // points are loaded on this many threads; the result is the same
    PointVisitor visit;    // optional
};

// Threads worth using for `points` points on this machine (at most 2; 1 for few points).
[[nodiscard]] unsigned expand_threads(std::size_t points);

// Every point of the sweep. Throws InputError when the cap is exceeded (it
// never truncates), when the base recipe cannot be read, when the name
// template names an unknown key, or when two valid points get the same name.
// Memory grows with the points' table only: each recipe is dropped once its
// point is validated, hashed and visited.
[[nodiscard]] Expansion expand(const SweepSpec& spec, const catalog::Catalog& catalog,
                               const ExpandOptions& options = {});

// The recipe of a point that loaded, derived again from the base and the point's
// overrides: the one expansion validated and hashed (named after the point).
// Throws InputError when the point does not load.
[[nodiscard]] recipe::Recipe point_recipe(const Expansion& expansion, const Point& point,
                                          const catalog::Catalog& catalog);

// ---------------------------------------------------------------- hashing
// 64-bit FNV-1a of `bytes` as 16 lower-case hex digits.
[[nodiscard]] std::string fnv1a_hex(std::string_view bytes);
// The identity of a resolved recipe: FNV-1a over its canonical JSON (keys
// sorted, compact). The recipe file path is not part of it.
[[nodiscard]] std::string point_hash(const recipe::Recipe& recipe);

// A recipe value by dotted key ("model" and "target" give catalog names;
// "gpus", "model_parallel", "data_parallel" are derived). Nothing when absent.
[[nodiscard]] std::optional<std::string> lookup_value(const recipe::Recipe& recipe, std::string_view key);

}  // namespace trainbench::sweep
