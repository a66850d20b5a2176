// sweep: many recipes from one. A sweep file names a base recipe and axes
// (matrix: cartesian, zip: lock-step lists), fixed overrides (set), points to
// drop (exclude: by values or structured comparisons) and a name template.
// Expansion reads the base recipe ONCE, applies each point's overrides as
// recipe::Override values ("sweep point N: key=value"), validates each point
// and prunes the invalid ones with their reasons. Every valid point carries a
// content hash of its resolved recipe: the identity a resumed sweep uses to
// never submit the same point twice.
//
// The module also holds the planning arithmetic behind `trainbench plan`
// (FLOPs per step per convention, memory breakdown, checkpoint size and write
// time, estimated step time at an assumed MFU, days and GPU-hours) and the
// TP/PP/micro-batch search, plus the sweep state file and submission loop.
//
// docs/sweeps.md is the reference of the sweep file; docs/performance.md has
// the dry-run timing.
#pragma once

#include <trainbench/catalog.hpp>
#include <trainbench/core.hpp>
#include <trainbench/recipe.hpp>
#include <trainbench/run.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
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
    std::optional<recipe::Recipe> recipe;  // loaded (valid points, and invalid ones that loaded)
    std::string hash;                      // 16 hex digits over the canonical resolved recipe (valid points)
};

struct Expansion {
    SweepSpec spec;
    std::vector<Point> points;    // valid and pruned, in index order
    std::vector<Point> excluded;  // dropped by `exclude` (not loaded unless a rule needed it)
    [[nodiscard]] std::size_t valid_count() const;
    [[nodiscard]] std::size_t pruned_count() const;
};

// Every point of the sweep. Throws InputError when the cap is exceeded (it
// never truncates), when the base recipe cannot be read, when the name
// template names an unknown key, or when two valid points get the same name.
[[nodiscard]] Expansion expand(const SweepSpec& spec, const catalog::Catalog& catalog);

// ---------------------------------------------------------------- hashing
// 64-bit FNV-1a of `bytes` as 16 lower-case hex digits.
[[nodiscard]] std::string fnv1a_hex(std::string_view bytes);
// The identity of a resolved recipe: FNV-1a over its canonical JSON (keys
// sorted, compact). The recipe file path is not part of it.
[[nodiscard]] std::string point_hash(const recipe::Recipe& recipe);

// A recipe value by dotted key ("model" and "target" give catalog names;
// "gpus", "model_parallel", "data_parallel" are derived). Nothing when absent.
[[nodiscard]] std::optional<std::string> lookup_value(const recipe::Recipe& recipe, std::string_view key);

// ---------------------------------------------------------------- planning
struct FlopsRow {
    std::string convention;
    std::optional<double> per_sample;
    std::optional<double> per_step;  // per_sample * global batch
    std::string note;                // the formula's note or why it does not apply
    bool hardware_flops_like = false;
};

struct CheckpointTier {
    std::string label;         // "AMLFS 40" or "--fs-bandwidth"
    double bandwidth_gbs = 0;  // GB/s (1e9 bytes/s)
    double write_seconds = 0;
};

struct PlanOptions {
    double assume_mfu = 0.4;
    double train_tokens = 300e9;
    std::vector<double> fs_bandwidth_gbs;  // empty: the seed 002 tiers (19.2, 64, 128, 256 GB/s)
};

struct Plan {
    std::string recipe_name;
    std::string model;
    std::string target;
    std::string gpu;
    int nodes = 0;
    int gpus = 0;
    int tensor = 1, pipeline = 1, data_parallel = 0, micro = 1, global = 1;
    int seq_length = 0;
    double parameters = 0;
    std::vector<FlopsRow> flops;       // every convention
    std::string convention;            // the recipe's (metrics.flops), used for the estimate
    recipe::MemoryEstimate memory;     // the recipe as written
    double activations_selective = 0;  // bytes per GPU with selective recompute
    double total_without_distributed_optimizer = 0;
    double total_with_distributed_optimizer = 0;
    double optimizer_without_distributed_optimizer = 0;
    double optimizer_with_distributed_optimizer = 0;
    double checkpoint_bytes = 0;  // parameters * 14 (see checkpoint_bytes_per_parameter)
    std::vector<CheckpointTier> checkpoint_tiers;
    std::optional<double> peak_tflops;  // dense peak per GPU at the recipe's precision
    std::string peak_source;
    double assume_mfu = 0.4;
    std::optional<double> step_time_s;  // flops per step / (gpus * peak * mfu)
    double tokens_per_step = 0;
    double train_tokens = 0;
    std::optional<double> days_to_train;
    std::optional<double> gpu_hours_to_train;
    std::optional<double> gpu_hours_recipe;  // the recipe's own steps
    std::vector<std::string> notes;
};

// Bytes one checkpoint holds per parameter with mixed-precision Adam:
// 2 (bf16/fp16 weights) + 4 (fp32 master weights) + 4 + 4 (Adam moments) = 14;
// gradients are not saved. GPT-3 175B: 2.2 TiB (seed 002: "about 2.3 TiB").
[[nodiscard]] double checkpoint_bytes_per_parameter(catalog::Precision precision);

// The seed 002 AMLFS tiers: 19.2, 64, 128 and 256 GB/s.
[[nodiscard]] const std::vector<CheckpointTier>& default_fs_tiers();

[[nodiscard]] Plan make_plan(const recipe::Recipe& recipe, const PlanOptions& options = {});
[[nodiscard]] nlohmann::ordered_json to_json(const Plan& plan);

// Estimated seconds per step at `mfu` under the recipe's FLOPs convention;
// nothing when the convention or the peak does not apply.
[[nodiscard]] std::optional<double> estimate_step_time(const recipe::Recipe& recipe, double mfu);

// One candidate configuration of `plan --search`.
struct Candidate {
    int tensor = 1, pipeline = 1, micro = 1;
    bool sequence_parallel = false;
    double memory_per_gpu = 0;  // bytes
    double capacity = 0;
    double headroom = 0;                // 1 - memory / capacity
    double relative_efficiency = 1;     // pipeline bubble x tensor-parallel x micro-batch factors
    std::optional<double> step_time_s;  // at assume_mfu * relative_efficiency
    double score = 0;                   // tokens/s estimate (or the efficiency when no peak)
};

struct SearchOptions {
    double assume_mfu = 0.4;
    double min_headroom = 0.0;  // drop candidates with less free memory than this fraction
};

// Valid TP/PP/micro-batch configurations of the recipe's model on its target
// at its node count (everything else as the recipe says), best first:
// highest estimated throughput, then most memory headroom.
[[nodiscard]] std::vector<Candidate> search(const recipe::Recipe& recipe, const SearchOptions& options = {});

// ---------------------------------------------------------------- state and submission
// runs/_sweeps/<sweep name>/state.jsonl: one JSON object per line
// {"hash", "point", "name", "run_id", "run_dir", "time"}, appended atomically.
struct StateEntry {
    std::string hash;
    std::size_t point = 0;
    std::string name;
    std::string run_id;
    std::string run_dir;
    std::string event;  // "created" (run directory made, submitting) or "submitted" or "failed"
};

[[nodiscard]] std::filesystem::path state_file(const std::filesystem::path& runs_root, const std::string& sweep_name);
// runs/_sweeps/<sweep name>/state.lock: held (flock) by the one invocation submitting the sweep.
[[nodiscard]] std::filesystem::path state_lock_file(const std::filesystem::path& runs_root,
                                                    const std::string& sweep_name);
// Reads the state (a torn last line is ignored). Later entries win per hash.
[[nodiscard]] std::map<std::string, StateEntry> read_state(const std::filesystem::path& file);
void append_state(const std::filesystem::path& file, const StateEntry& entry);

// Creates a run for one point and submits it. `on_created` is called with
// the fresh run directory before anything is submitted (the state file
// records it then, so a crash mid-submission never leads to a second run).
using SubmitPointFn =
    std::function<run::RunInfo(const Point& point, const std::function<void(const run::RunInfo&)>& on_created)>;

// What the default submission needs besides the point.
struct RunContext {
    std::filesystem::path runs_root;
    std::vector<std::filesystem::path> template_dirs;
    std::filesystem::path workloads;
    std::filesystem::path sweep_file;
    ProcessRunner* runner = nullptr;  // default: system_process_runner()
};
// render::render + run::RunStore::create + write_rendered + submit_stages.
[[nodiscard]] run::RunInfo submit_point_default(const Point& point, const RunContext& context,
                                                const std::function<void(const run::RunInfo&)>& on_created);

struct SubmitProgress {
    std::size_t submitted = 0;  // by this invocation
    std::size_t skipped = 0;    // already had a run
    std::size_t failed = 0;
    std::size_t total = 0;   // valid points
    std::size_t active = 0;  // runs not final
};

struct SweepSubmitOptions {
    std::size_t max_active = 0;  // 0 = no limit
    std::chrono::milliseconds poll_interval{5000};
    // Asks which of the sweep's runs are still active (not final); default: run::refresh.
    std::function<std::size_t(const std::vector<std::string>& run_dirs)> count_active;
    std::function<void(const SubmitProgress&, const std::string& message)> on_progress;
    std::function<void(std::chrono::milliseconds)> sleep;
    // Another invocation holds the sweep's lock: with no_wait, BusyError at once; otherwise
    // wait for it, telling on_lock_wait once (the message names the holder's pid and host).
    bool no_wait = false;
    std::function<void(const std::string& message)> on_lock_wait;
};

// True when the state says the point already has a run worth keeping: any
// entry except a run whose every stage failed to reach the scheduler.
[[nodiscard]] bool has_run(const StateEntry& entry);

// Submits every valid point that has no run in the state file, at most
// max_active at a time, recording each run in the state file right after
// its submission. Stops with InterruptedError on SIGINT/SIGTERM between
// submissions (check_interrupted), so a second call resumes.
SubmitProgress submit_sweep(const Expansion& expansion, const std::filesystem::path& runs_root,
                            const SubmitPointFn& submit_point, const SweepSubmitOptions& options);

}  // namespace trainbench::sweep
