// results: every analysed report kept in a real database, so that runs can be
// followed over time and a run compared with its baseline beyond noise. One
// schema and one code path for SQLite (the embedded default: a file in the
// run store, WAL mode) and PostgreSQL (a team's shared database, through
// libpq). The schema is versioned and migrated forward; every write is one
// transaction, so a killed trainbench never leaves half a result.
//
// It also follows a running job's rank-0 log (only the bytes appended since
// the last look) for the live progress line of run/wait/watch.
//
// docs/results.md describes what is stored, the schema and the verdict.
#pragma once

#include <trainbench/analysis.hpp>
#include <trainbench/recipe.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainbench::results {

inline constexpr int k_schema_version = 1;

// ---------------------------------------------------------------- one result
struct Result {
    std::string result_id;    // content-derived: recording the same report twice keeps one row
    std::string run_id;       // the run's id, or "<UTC time>-<hash>" for bare logs
    std::string recorded_at;  // UTC ISO time with microseconds
    std::string ran_at;       // when it ran: the run's creation time (bare logs: the log's mtime)
    std::string host;         // where it was recorded
    std::string run_dir;      // empty for bare logs
    std::string source;       // "run" or "logs"
    std::string recipe_name;
    std::string recipe_hash;  // of the resolved recipe text; empty for bare logs
    std::string target;
    std::string model;
    std::string gpu;
    int nodes = 0;
    int gpus = 0;
    int tensor_parallel = 1;
    int pipeline_parallel = 1;
    int global_batch = 0;
    int seq_len = 0;
    std::string precision;
    std::string framework;
    std::string framework_version;
    std::string container;
    std::string convention;
    double peak_tflops = 0;
    std::string peak_source;
    std::int64_t window_start = 0;
    std::int64_t window_end = 0;
    double step_time_mean = 0;
    double step_time_median = 0;
    double step_time_p10 = 0;
    double step_time_p90 = 0;
    double step_time_stddev = 0;
    double tokens_per_s = 0;
    double tflops_per_gpu = 0;
    double mfu = 0;
    std::optional<double> final_loss;
    std::string log_format;
    std::string tool_version;
    std::vector<analysis::StepSample> window_steps;  // the per-step times the mean was taken over
    std::vector<std::string> tags;                   // filled when read back

    [[nodiscard]] std::string short_id() const;  // the last 6 characters of run_id
    [[nodiscard]] nlohmann::ordered_json to_json() const;
};

// What a summary does not hold: the recipe (for runs) or labels given on the command line.
struct ResultLabels {
    const recipe::Recipe* recipe = nullptr;  // the run's resolved recipe; nullptr for bare logs
    std::string recipe_text;                 // recipe.resolved.yaml (hashed)
    std::string name;                        // bare logs: the name to record under
    std::string target;                      // bare logs: the target
    std::string container;                   // bare logs: the container image/version
    std::string ran_at;                      // bare logs: when it ran, RFC 3339 (default: the first log's mtime)
};

// The analysis inputs a run's recipe gives (model, GPUs, batch, precision,
// parallelism, window, convention): what a report of the run starts from.
[[nodiscard]] analysis::Inputs inputs_from_recipe(const recipe::Recipe& r);

// A Result from an analysed report. Throws UsageError for a label that label_problem refuses
// or a ran_at that is not an RFC 3339 time (stored as UTC: "2026-03-01T05:00:00Z").
[[nodiscard]] Result make_result(const analysis::RunSummary& summary, const ResultLabels& labels);

// What is wrong with a label given on the command line, or "" when nothing is: `kind` "name"
// and "target" follow the recipe-name rule (lower-case letters, digits, '.', '_', '-', first a
// letter or digit, at most 100), "container" an image reference (letters, digits and
// . _ - : / @ +, first a letter or digit, at most 255), "tag" one word of letters, digits and
// . _ - : / + (at most 64). So no label starts a spreadsheet formula or holds a control character.
[[nodiscard]] std::string label_problem(std::string_view kind, std::string_view value);

// ---------------------------------------------------------------- the store
struct HistoryFilter {
    std::string name;  // recipe name; empty = any
    std::string target;
    std::string model;
};

class Store {
public:
    virtual ~Store() = default;
    // Where it is, for messages ("sqlite:runs/results.sqlite", "postgresql://host:5432/db"; never a password).
    [[nodiscard]] virtual std::string describe() const = 0;
    // The schema version of the opened database (after migration).
    [[nodiscard]] virtual int schema_version() = 0;
    // Records one result in one transaction; false when an identical one is already there.
    virtual bool record(const Result& result) = 0;
    // Results oldest first (by ran_at, then recorded_at), with their tags; window_steps filled.
    [[nodiscard]] virtual std::vector<Result> history(const HistoryFilter& filter) = 0;
    // The latest result of a run named by run id, a prefix of it, or a prefix of its short id.
    // Throws UsageError when nothing or more than one run matches.
    [[nodiscard]] virtual Result find_run(const std::string& ref) = 0;
    // Tags a run (idempotent). Throws UsageError for a run the store does not hold.
    virtual void tag(const std::string& run_id, const std::string& tag) = 0;
};

// What the caller will do: `read` never creates a SQLite file (a missing one is an empty
// store) and opens one it may not write read-only; `write` creates the file and its directory.
enum class Access { read, write };

// "sqlite:PATH", a plain file path (SQLite), or PostgreSQL: "postgresql://..." /
// "postgres://..." (the scheme in any case) or a libpq conninfo string ("host=... dbname=...").
// Opens and migrates the schema forward. Throws UsageError for a URI of another scheme,
// RuntimeError when the database cannot be opened or was written by a newer trainbench.
// Messages show the location with any password as ***.
[[nodiscard]] std::unique_ptr<Store> open_store(const std::string& location, Access access = Access::write);

// The location to use: the flag, else $TRAINBENCH_RESULTS, else <runs_root>/results.sqlite.
[[nodiscard]] std::string default_location(const std::string& flag, const std::filesystem::path& runs_root);

// ---------------------------------------------------------------- regression
enum class Verdict { faster, slower, no_change };
[[nodiscard]] std::string_view to_string(Verdict v);

struct Comparison {
    std::size_t baseline_count = 0;
    std::size_t run_count = 0;
    double baseline_median = 0;
    double run_median = 0;
    double shift_s = 0;  // Hodges-Lehmann estimate of run - baseline, seconds per step
    double ci_low_s = 0;
    double ci_high_s = 0;
    double relative = 0;  // shift / baseline median
    double relative_low = 0;
    double relative_high = 0;
    double confidence = 0.95;
    double threshold = 0.05;
    Verdict verdict = Verdict::no_change;
};

// Compares per-step step times: Hodges-Lehmann shift with its distribution-free
// Mann-Whitney confidence interval. Slower (faster) when the interval lies wholly
// above (below) zero AND the estimate exceeds the threshold (relative to the
// baseline median). Throws InputError when either side has fewer than 3 steps.
[[nodiscard]] Comparison compare_steps(const std::vector<double>& baseline, const std::vector<double>& run,
                                       double threshold = 0.05, double confidence = 0.95);

// The baseline of `run`: "last-good" (the latest result of the same recipe
// and target tagged good before it), a tag (the same, with that tag), or a run reference.
[[nodiscard]] Result find_baseline(Store& store, const Result& run, const std::string& baseline);

struct Regression {
    Result run;
    Result baseline;
    Comparison comparison;
};
// The verdict as JSON: run, baseline, method, the steps and medians, the shift and its
// interval (seconds and relative), confidence, threshold, verdict ("slower", "faster", "no-change").
[[nodiscard]] nlohmann::ordered_json regression_json(const Regression& r);
// What the regression view shows (report::regression_document): {"run": .., "baseline": ..
// (each Result::to_json without its window steps), "comparison": regression_json,
// "verdict_text": to_string(verdict)}.
[[nodiscard]] nlohmann::ordered_json regression_record(const Regression& r);

// ---------------------------------------------------------------- history
// Results as JSON ({"format": "trainbench-history", "results": [Result::to_json...]}): what
// `history --json` prints and what report::history_document shows.
[[nodiscard]] nlohmann::ordered_json history_json(const std::vector<Result>& results);

// ---------------------------------------------------------------- import
struct ImportReport {
    std::size_t recorded = 0;
    std::size_t already = 0;
    std::vector<std::string> skipped;  // "run dir: why"
};
// Records every run directory under `runs_root` that `summarise` can turn into a result
// (nullopt or an Error skips it, with the reason).
using Summariser = std::function<std::optional<Result>(const std::filesystem::path& run_dir)>;
[[nodiscard]] ImportReport import_runs(Store& store, const std::filesystem::path& runs_root,
                                       const Summariser& summarise);

// ---------------------------------------------------------------- live progress
// Follows a growing log: each poll reads only the bytes appended since the
// last one (up to the last complete record) and parses them with the format's
// own parser, accumulating the series.
class LogFollower {
public:
    LogFollower(std::filesystem::path path, std::string format);
    // Reads what was appended; returns true when new records arrived.
    bool poll();
    [[nodiscard]] const metrics::LogData& data() const { return m_data; }
    [[nodiscard]] std::uint64_t offset() const { return m_offset; }
    [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

private:
    std::filesystem::path m_path;
    std::string m_format;
    std::uint64_t m_offset = 0;
    metrics::LogData m_data;
};

struct Progress {
    std::int64_t step = 0;         // last step seen
    std::int64_t total_steps = 0;  // the recipe's steps (0 = unknown)
    double current_s = 0;          // the last step's time
    double window_s = 0;           // mean over the window so far (or all steps before the window starts)
    std::size_t window_count = 0;
    double tokens_per_s = 0;
    double mfu = 0;
    double eta_s = 0;
    std::optional<double> expected_s;  // the recipe's expectation or the baseline's mean
    std::string expected_origin;
    bool drift = false;  // window_s beyond the threshold from expected_s
    double drift_relative = 0;
};

// The progress from the records so far: `inputs` as for a report (model, GPUs,
// batch, precision, convention, window). nullopt until a step time arrived.
[[nodiscard]] std::optional<Progress> progress_of(const metrics::LogData& log, const analysis::Inputs& inputs,
                                                  std::int64_t total_steps, std::optional<double> expected_s,
                                                  double drift_threshold);
[[nodiscard]] std::string progress_line(const Progress& p);
[[nodiscard]] nlohmann::ordered_json progress_json(const Progress& p);

}  // namespace trainbench::results
