// pipeline: the use cases, each a short list of steps over the modules below
// (load, validate, render, create a run, submit, summarise). The commands of
// cli parse options, make one call here and print what report makes of the
// result. What the use cases need from outside (catalog, run store, process
// runner, data directories) comes in one Services value the CLI builds once.
#pragma once

#include <trainbench/analysis.hpp>
#include <trainbench/core.hpp>
#include <trainbench/recipe.hpp>
#include <trainbench/render.hpp>
#include <trainbench/report.hpp>
#include <trainbench/results.hpp>
#include <trainbench/run.hpp>
#include <trainbench/sweep.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace trainbench::pipeline {

// ---------------------------------------------------------------- services
// What the use cases need from the outside world, built once by the CLI
// (cli/app.cpp) and by tests with a fake process runner.
struct Services {
    std::function<const catalog::Catalog&()> catalog;  // loaded on first use; may throw InputError
    // GPUs and models only, for a report of bare logs (unset: `catalog`); may throw InputError.
    // `model`: the one model the report needs (its file alone is read), or empty for every model.
    std::function<const catalog::Catalog&(std::string_view model)> catalog_without_targets;
    std::filesystem::path runs_root;
    DataDirs dirs;
    // Every process a use case starts (schedulers, kubectl, helm, the job script) goes through
    // it. Required: the CLI sets it in one place (cli/app.cpp), tests set a fake.
    ProcessRunner* runner = nullptr;
    [[nodiscard]] ProcessRunner& processes() const;
    // The results database: --results, else $TRAINBENCH_RESULTS, else <runs_root>/results.sqlite.
    std::string results_location;
    // Opens it (results::open_store): to read, a missing SQLite file is an empty store.
    [[nodiscard]] std::unique_ptr<results::Store> results_store(results::Access access) const;
};

// ---------------------------------------------------------------- load and check
// How far a recipe is checked before it is used: loaded only (render --no-validate), the
// recipe's own rules (validate_recipe), or those and every stage's launch line against its
// framework version's profile (render::check_launch): what validate, render, submit and run do.
enum class RecipeChecks { none, recipe, launch };
// The load options of a recipe file from the data directories and `-s key=value` overrides.
[[nodiscard]] recipe::LoadOptions load_options(const Services& services, const std::vector<std::string>& overrides);
// The one load + validate + check_launch of every caller. Throws InputError with every problem
// ("invalid recipe 'FILE'"); `kept`, when given, receives the warnings and notes of a valid one.
[[nodiscard]] recipe::Recipe load_checked_recipe(const catalog::Catalog& catalog, const std::filesystem::path& file,
                                                 const recipe::LoadOptions& load,
                                                 RecipeChecks checks = RecipeChecks::launch,
                                                 Diagnostics* kept = nullptr);

// ---------------------------------------------------------------- submit
// The one submit path: `submit`, `run` and every point of a sweep.
struct SubmitRequest {
    std::filesystem::path recipe_file;  // recorded in run.json (a sweep point: the sweep file)
    std::string stage;                  // only this stage, without its dependency ("" = every stage)
    std::string kube_context;           // Kubernetes: "" = the current context
    std::string kube_namespace;         // Kubernetes: "" = the recipe's
    run::ReuseFlags reuse;              // --revalidate, --reprepare
    // Called with the fresh run directory before anything is rendered or submitted (a sweep
    // records the run then); an error thrown here discards the run.
    std::function<void(const run::RunInfo&)> on_created;
    std::function<void(const std::string& note)> on_note;                // why a recorded stage is not reused
    std::function<void(const std::string& warning)> on_warning;          // a Slurm run store on a node-local disk
    std::function<void(const std::vector<run::StageReuse>&)> on_reused;  // just before the stages are submitted
};
// Loads a recipe file with -s overrides and validates it, the launch check
// against the framework's profile included: nothing is created for a recipe
// that would be refused.
[[nodiscard]] recipe::Recipe load_for_submit(const Services& services, const std::filesystem::path& file,
                                             const std::vector<std::string>& overrides);
// The ${env:NAME} values of the target's env and the recipe's (less env_unset),
// read from this process's environment; throws InputError naming a missing one.
[[nodiscard]] std::map<std::string, std::string> submit_secrets(const recipe::Recipe& recipe);
// Secrets, stage reuse, a fresh run, render with the run's id and directory
// into it (a failure journaled as "render failed: ..."), submit the stages
// with the secrets in their environment only, record the shared stages.
[[nodiscard]] run::RunInfo submit_recipe(const Services& services, const recipe::Recipe& recipe,
                                         const SubmitRequest& request);

// ---------------------------------------------------------------- sweep submission
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
    std::function<run::RunInfo(const sweep::Point& point, const std::function<void(const run::RunInfo&)>& on_created)>;

// A sweep point through submit_recipe, its recipe derived again from the sweep's base
// (the recipe file recorded: the sweep file).
[[nodiscard]] run::RunInfo submit_point(const Services& services, const sweep::Expansion& expansion,
                                        const sweep::Point& point,
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
    // The process runner of that default (run::refresh asks the schedulers through it).
    ProcessRunner* processes = nullptr;
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
SubmitProgress submit_sweep(const sweep::Expansion& expansion, const std::filesystem::path& runs_root,
                            const SubmitPointFn& submit_point, const SweepSubmitOptions& options);

// ---------------------------------------------------------------- sweep views
// Renders valid points to <output>/<point name>/<stage>/<file> (sweep --dry-run -o)
// as expansion hands them over (sweep::ExpandOptions::visit, with as many workers as
// expansion threads): each template read and compiled once per worker, files written
// without a sync each; commit() then syncs once and renames each point into place (a
// crash leaves a point whole or absent; a point rendered before is replaced whole).
// Points not committed are removed.
class SweepRenderer {
public:
    SweepRenderer(std::vector<std::filesystem::path> template_dirs, const std::filesystem::path& output,
                  unsigned workers);
    ~SweepRenderer();
    SweepRenderer(const SweepRenderer&) = delete;
    SweepRenderer& operator=(const SweepRenderer&) = delete;
    // Called from worker `worker` only (each worker one thread at a time).
    void render(const sweep::Point& point, const recipe::Recipe& recipe, unsigned worker);
    std::size_t commit();  // makes every rendered point visible; returns the number of files written

private:
    struct Impl;
    std::unique_ptr<Impl> m;
};

// The run of every valid point that has one (from the state file), refreshed
// from its scheduler: one status row per valid point.
[[nodiscard]] std::vector<report::SweepStatusRow> sweep_status(const sweep::Expansion& expansion,
                                                               const std::filesystem::path& runs_root,
                                                               ProcessRunner& runner);

// One report row per valid point: what its run measured (`summarise` turns a
// run directory into a summary), "not submitted", or the error that stopped it.
using SummariseRunFn = std::function<analysis::RunSummary(const std::filesystem::path& run_dir)>;
[[nodiscard]] std::vector<report::SweepReportRow> sweep_report_rows(const sweep::Expansion& expansion,
                                                                    const std::filesystem::path& runs_root,
                                                                    const SummariseRunFn& summarise);

// ---------------------------------------------------------------- render
// `trainbench render`: load, validate (with the launch check), render, then
// write to a directory, compare with a committed copy, or ask the scheduler.
struct RenderInput {
    std::filesystem::path file;
    std::filesystem::path relative;  // below -o / --compare when many recipes are rendered
};
// The recipes named on the command line and every recipe under each --all DIR (not catalog/ or
// common/), with its path below DIR. UsageError when a DIR does not exist or there is no recipe
// ("trainbench COMMAND RECIPE... or --all DIR").
[[nodiscard]] std::vector<RenderInput> find_recipes(const std::vector<std::string>& files,
                                                    const std::vector<std::string>& dirs, std::string_view command);
struct RenderRequest {
    std::vector<RenderInput> inputs;
    recipe::LoadOptions load;
    render::RenderOptions render;
    bool validate = true;
    bool many = false;              // files go below output/<relative or name>/
    std::filesystem::path output;   // write the files here ("" = do not write)
    std::filesystem::path compare;  // compare with a committed render here ("" = do not)
    bool check = false;             // sbatch --test-only for every Slurm stage
    bool entrypoints = false;       // keep the main job file of every stage
};
// What became of one recipe.
struct RenderOutcome {
    std::filesystem::path file;
    std::string name;
    std::filesystem::path base;            // below output / compare
    std::vector<std::string> entrypoints;  // contents, when asked for
    std::vector<std::filesystem::path> written;
    std::size_t files = 0;                 // rendered files
    std::vector<std::string> differences;  // unified diffs and "only in" lines
    bool compared = false;
    bool checked = false;
    nlohmann::ordered_json checks = nlohmann::ordered_json::array();  // {stage, accepted, answer}
    std::vector<std::string> notes;
    bool invalid = false, rejected = false;
    std::optional<InputError> error;  // the recipe could not be loaded, validated or rendered
    [[nodiscard]] bool differs() const { return !differences.empty(); }
    [[nodiscard]] bool ok() const { return !invalid && !rejected && !differs(); }
};
// Renders each input in turn and hands its outcome to `each` before the next
// (so a long --all prints as it goes). Stops between recipes on an interrupt.
void render_recipes(const RenderRequest& request, const catalog::Catalog& catalog, ProcessRunner& runner,
                    const std::function<void(const RenderOutcome&)>& each);
// Writes a job's files below `dir` with their modes; returns the paths written.
std::vector<std::filesystem::path> write_job_files(const render::RenderedJob& job, const std::filesystem::path& dir);
// --argv: per stage, the command each framework receives (program, version,
// argv, config file) as the conformance suite reads it.
[[nodiscard]] nlohmann::ordered_json framework_argv(const std::vector<std::string>& files,
                                                    const recipe::LoadOptions& load,
                                                    const render::RenderOptions& options, bool validate,
                                                    const catalog::Catalog& catalog);

// ---------------------------------------------------------------- summarise
// What a bare log lacks (and what may override a recipe): model, GPUs, GPU,
// precision, batch, sequence, window, convention, log format, peak, tokens.
struct SummaryOptions {
    std::string model;  // catalog model name
    int gpus = 0;
    std::string gpu;  // catalog GPU name or family ("h100", "cpu")
    std::string precision;
    int global_batch = 0;
    int seq = 0;
    int tensor_parallel = 0;
    std::string window;           // "A:B"
    std::string flops;            // convention
    std::string format = "auto";  // log format
    double peak = 0;              // TFLOPS; 0 = from the table
    double tokens = 0;            // for days_to_train; 0 = 300e9
    bool conventions = false;     // add the run under every FLOPs convention (report --conventions)
    std::string reference;        // a published row's id: the run as a percentage of it (report --reference)
    // The output shows figures only (no per-step series), so the parse keeps the
    // step times and the final loss, nothing else.
    bool figures_only = false;
};

// A run directory by run::RunStore::resolve's rules (a run directory, or a
// prefix of a short id, run id or recipe/run id under the store); nullopt when
// `ref` is an existing path that is not a run (a log file).
[[nodiscard]] std::optional<std::filesystem::path> find_run_dir(const std::filesystem::path& runs_root,
                                                                const std::string& ref);
// One run directory -> its summary (recipe from recipe.resolved.yaml, logs from logs/<stage>/).
[[nodiscard]] analysis::RunSummary summarise_run(const Services& services, const std::filesystem::path& run_dir,
                                                 const SummaryOptions& options);
// The published rows of the catalog's references (recipes/catalog/references/*.yaml).
[[nodiscard]] std::vector<catalog::Reference> published_references(const Services& services);
// The row `id`; a UsageError naming the known ids (did-you-mean) when there is none.
[[nodiscard]] catalog::Reference find_reference(const std::vector<catalog::Reference>& rows, const std::string& id);

// Bare log files (one run's logs, one format) -> a summary.
[[nodiscard]] analysis::RunSummary summarise_logs(const Services& services, const std::vector<std::string>& files,
                                                  const SummaryOptions& options);

// The training stage's name (the first stage of kind train; "train" when there is none).
[[nodiscard]] std::string train_stage(const recipe::Recipe& recipe);
// The training logs under a stage's log directory: the files metrics.path names (a glob on the
// file name), else every file of the first format detected (the recipe's metrics.source first,
// then dllogger, tensorboard, nemo, megatron, metaseq); `format` is set to theirs. Throws
// InputError when the directory is missing or holds no training log.
[[nodiscard]] std::vector<std::filesystem::path> run_log_files(const std::filesystem::path& log_dir,
                                                               const recipe::Metrics& metrics, std::string& format);

// ---------------------------------------------------------------- validate
struct ValidateRequest {
    std::vector<std::string> files;
    std::vector<std::string> all;        // --all: every recipe under these directories
    std::vector<std::string> overrides;  // -s key=value
};
// What `validate` found out about one recipe.
struct RecipeCheck {
    std::filesystem::path file;
    bool ok = false;
    std::string name;
    int gpus = 0;
    int data_parallel = 0;
    std::string gpu;  // the GPU's catalog name
    recipe::MemoryEstimate memory;
    bool memory_checked = false;  // a GPU whose memory is known (not the cpu family)
    std::string error;            // why it is invalid
    Diagnostics diagnostics;      // every problem of an invalid recipe; warnings and notes of a valid one
};
struct ValidateResult {
    std::vector<RecipeCheck> recipes;
    std::size_t failed = 0;
};
// Loads and checks each recipe (load_checked_recipe) and estimates the memory of a valid one;
// `each` sees every recipe as soon as it is checked. UsageError when there is no recipe or an
// --all directory does not exist; stops between recipes on an interrupt.
[[nodiscard]] ValidateResult validate_recipes(const Services& services, const ValidateRequest& request,
                                              const std::function<void(const RecipeCheck&)>& each = {});

// ---------------------------------------------------------------- plan, show, parse, list
// The values of the commands that look without running anything; each command prints one.
struct PlanRequest {
    std::string recipe;
    std::vector<std::string> overrides;  // -s key=value
    double assume_mfu = 0.4;             // (0, 1]
    double tokens = 300e9;               // to train, for the days and GPU-hours
    std::vector<double> fs_bandwidth;    // GB/s; empty: plan's tiers
    bool search = false;                 // rank configurations instead (plan::search)
    int top = 10;                        // --search: how many the JSON and the table show
    double min_headroom = 0;             // --search: least free memory (fraction)
};
struct PlanResult {
    recipe::Recipe recipe;
    Diagnostics diagnostics;                  // the recipe's own rules: shown, a plan is made all the same
    std::optional<plan::Plan> plan;           // without search
    std::vector<plan::Candidate> candidates;  // with search, best first
    nlohmann::ordered_json json;              // what --json prints (a plan with its "validation")
};
// UsageError for an option out of range; the recipe loaded and checked by its own rules only.
[[nodiscard]] PlanResult plan_recipe(const Services& services, const PlanRequest& request);
// The resolved recipe (loaded, not checked) as `show` prints it, with origins when asked.
struct ShownRecipe {
    std::string yaml;
    nlohmann::ordered_json json;  // the resolved recipe, or {"recipe", "origins"}
};
[[nodiscard]] ShownRecipe show_recipe(const Services& services, const std::string& file,
                                      const std::vector<std::string>& overrides, bool origins);
struct ParseRequest {
    std::vector<std::string> files;
    std::string format = "auto";
    std::vector<std::string> tags;  // each may list several, comma-separated
    unsigned threads = 0;
};
struct ParsedLogs {
    metrics::LogData data;              // long series wait in a temporary file (every point is shown)
    std::vector<std::string> warnings;  // the parsers', and "no metrics found"
};
[[nodiscard]] ParsedLogs parse_logs(const ParseRequest& request);
// `list WHAT` (targets, models, frameworks, recipes, gpus, conventions, references); UsageError
// for another name. Conventions need no catalog.
[[nodiscard]] report::Listing list_catalog(const Services& services, std::string_view what);

// ---------------------------------------------------------------- report
struct ReportRequest {
    std::vector<std::string> targets;  // a run (directory, run id or prefix) or log files of one run
    SummaryOptions options;
    std::string html;              // write the HTML report here ("" = no)
    std::string junit;             // write the expectations as JUnit here ("" = no)
    bool record = false;           // bare logs: record them (a run's report always is)
    bool series = false;           // the JSON carries the per-step series (report --json --series)
    bool json = true;              // fill RunReport::json for bare logs too (a run's is always: it is written)
    results::ResultLabels labels;  // bare logs: the labels to record under
};
// A result recorded in the results database.
struct Recorded {
    bool added = false;  // false: the same result was there already
    std::string short_id;
    std::string recipe_name;
    std::string store;  // results::Store::describe()
};
// Everything `report` does, as one value: the summary (or, for a run without training figures
// whose validate stage has results, only those), the files written, the recording and the verdict.
struct RunReport {
    std::optional<std::filesystem::path> run_dir;           // nullopt: bare logs
    std::optional<analysis::RunSummary> summary;            // nullopt: the cluster validation is the report
    std::string no_figures;                                 // then: why the run has no training figures
    std::optional<analysis::ClusterValidation> validation;  // the run's validate stage, when it has one
    std::string json;  // summary.json's text (written to a run's report/); "" for bare logs unless asked
    std::optional<Recorded> recorded;
    std::exception_ptr record_error;          // the recording failed: thrown after the report (a database away: exit 4)
    std::vector<std::string> warnings;        // the summary's warnings, a failed validation beside failed figures
    std::optional<ExpectationError> failure;  // exit 5: an expectation or the cluster validation failed
};
// Summarises the run or logs (a run whose summary fails with InputError falls back to its
// cluster validation), writes report/summary.json of a run and the --html and --junit files,
// records the result (a run always, logs with `record`) and decides the verdict.
[[nodiscard]] RunReport report_run(const Services& services, const ReportRequest& request);
// The report in one of report::reporter_names()' formats: one document, the summary's with the
// cluster validation's blocks after it (or the validation's alone), rendered once.
[[nodiscard]] std::string report_text(const RunReport& report, std::string_view format,
                                      const report::ReportOptions& options = {});

// ---------------------------------------------------------------- results
// The result of a summary: for a run, with its resolved recipe and its text.
[[nodiscard]] results::Result result_of(const Services& services, const analysis::RunSummary& summary,
                                        results::ResultLabels labels);
// Records it in `store`.
[[nodiscard]] Recorded record_result(results::Store& store, const results::Result& result);
// `history`: the recorded results of a recipe (filter.name; `recipe`, when given, is the same
// and must agree) over time, and the HTML page with trend plots written to `html`; or, with
// `import_dir`, every reportable run under it recorded (once: idempotent) instead.
struct HistoryRequest {
    std::string recipe;
    results::HistoryFilter filter;
    std::string html;
    std::string import_dir;
};
struct History {
    std::string store;                              // results::Store::describe()
    std::optional<results::ImportReport> imported;  // import_dir given: what it recorded
    std::size_t results = 0;                        // else: how many results
    report::Document document;                      // and the history (report::history_document)
};
[[nodiscard]] History history(const Services& services, HistoryRequest request);
// `regress`: a recorded run's step times against its baseline's (last-good, a tag or a run),
// the verdict written as JUnit to `junit`; `failure` (exit 5) when the run is slower.
struct RegressRequest {
    std::string run;
    std::string baseline = "last-good";
    double threshold = 5;  // percent
    double confidence = 95;
    std::string junit;
};
struct Regress {
    results::Regression regression;
    report::Document document;  // report::regression_document
    std::optional<ExpectationError> failure;
};
[[nodiscard]] Regress regress(const Services& services, const RegressRequest& request);

// ---------------------------------------------------------------- flops
// `flops`: a catalog model's FLOPs under every dated convention at `seq` (0: the model's), and
// with a published (tokens/s/GPU, TFLOPS/GPU) pair the conventions that reproduce it.
struct FlopsRequest {
    std::string model;
    int seq = 0;
    int tensor_parallel = 1;
    int vocab_divisible_by = 128;
    double tokens_per_gpu = 0;  // the published pair: both or neither
    double tflops_per_gpu = 0;
    double tolerance_pct = 0.5;
};
struct Flops {
    analysis::FlopsInput input;
    bool pair = false;
    std::vector<std::string> reproducing;  // with the pair: the conventions within the tolerance
    report::Listing listing;               // report::flops_listing
    nlohmann::ordered_json json;           // what --json prints
};
[[nodiscard]] Flops flops(const Services& services, const FlopsRequest& request);

// ---------------------------------------------------------------- runs
// The runs `refs` name (directory, run id or short id prefix), or every run of the store when
// `refs` is empty (one that cannot be read comes back with its `problem`).
[[nodiscard]] std::vector<run::RunInfo> load_runs(const Services& services, const std::vector<std::string>& refs);
// Brings the runs up to date from their schedulers (run::refresh). Throws RuntimeError when
// a scheduler does not answer.
void refresh_runs(const Services& services, std::vector<run::RunInfo>& runs);
// Cancels every run that has not ended (`on_ended` is told of each that had), then asks
// again until the schedulers report them ended (at most 10 s).
void cancel_runs(const Services& services, std::vector<run::RunInfo>& runs,
                 const std::function<void(const run::RunInfo&)>& on_ended);
// A wait for `run` was interrupted: cancels it when its backend's jobs end with the command
// (the backend table's jobs_end_with_run: local); returns whether it did.
bool cancel_if_jobs_end_with_run(const Services& services, run::RunInfo& run);
// A run's logs (one stage's, or every stage's), collected into its directory by its backend
// (fetched first when they live elsewhere). UsageError (did-you-mean) for a stage it lacks.
class RunLogs {
public:
    RunLogs(const Services& services, run::RunInfo run, std::string stage);
    ~RunLogs();
    RunLogs(const RunLogs&) = delete;
    RunLogs& operator=(const RunLogs&) = delete;
    [[nodiscard]] std::vector<std::filesystem::path> collect();  // the log files, oldest first per stage
    void refresh();                                              // the run's state from its scheduler
    [[nodiscard]] const run::RunInfo& run() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m;
};

// ---------------------------------------------------------------- live progress
// The live progress of a run's training (docs/results.md "Live progress"): the rank-0 log of
// the training stage (run_log_files), read only as far as it grew since the last poll, against
// the recipe's step_time_s expectation, else the latest earlier run tagged good.
class ProgressReader {
public:
    ProgressReader(const Services& services, std::filesystem::path run_dir);
    ~ProgressReader();
    ProgressReader(const ProgressReader&) = delete;
    ProgressReader& operator=(const ProgressReader&) = delete;
    // The progress when new steps arrived, else nullopt (also while the run has no log yet).
    // Throws Error when the recipe or the log cannot be read.
    [[nodiscard]] std::optional<results::Progress> poll();

private:
    struct Impl;
    std::unique_ptr<Impl> m;
};
// The drift that warns: 10% from the recipe's expected step time or the baseline's.
inline constexpr double k_drift_threshold = 0.10;

// ---------------------------------------------------------------- wait
struct WaitOptions {
    double timeout_s = 0;  // > 0: give up after this long
    double interval_s = 2;
    // A scheduler that does not answer for a while, live progress turned off.
    std::function<void(const std::string& warning)> on_warning;
};
// What a poll saw.
struct WaitTick {
    const run::RunInfo& run;
    double elapsed_s = 0;
    std::optional<results::Progress> progress;  // new steps of the training's log
};
struct WaitResult {
    run::RunInfo run;
    bool timed_out = false;     // still not final after timeout_s
    std::string collect_error;  // the logs of a backend whose logs go with its jobs could not be collected
};
// Polls the run's scheduler (a scheduler that does not answer for a while keeps the last known
// state, with a warning) until the run is final or timeout_s passes, calling `on_tick` after
// each poll; for a backend whose logs go with its jobs (the backend table says which) it
// streams the running jobs' logs and collects every job's logs at the end. Throws
// InterruptedError on SIGINT/SIGTERM.
[[nodiscard]] WaitResult wait_run(const Services& services, run::RunInfo run, const WaitOptions& options,
                                  const std::function<void(const WaitTick&)>& on_tick);

// ---------------------------------------------------------------- sweep preview
// A sweep file expanded against the catalog (with as many threads as it has points to use).
[[nodiscard]] sweep::Expansion load_expansion(const Services& services, const std::filesystem::path& file);
// `sweep --dry-run`: every point with its estimate; what report::sweep_preview_* show.
struct SweepDryRun {
    sweep::Expansion expansion;
    std::vector<plan::RunEstimate> estimates;  // one per point, in the expansion's order
    double assume_mfu = 0.4;
    std::string output;  // where the valid points were rendered ("" = not rendered)
    std::size_t rendered_files = 0;
    [[nodiscard]] report::SweepPreview view() const {
        return {expansion, estimates, assume_mfu, output, rendered_files};
    }
};
// Each valid point is estimated at `assume_mfu` (and, with `output`, rendered below it through
// SweepRenderer) while it expands: its recipe is not kept.
[[nodiscard]] SweepDryRun preview_sweep(const Services& services, const std::filesystem::path& file, double assume_mfu,
                                        const std::string& output);

}  // namespace trainbench::pipeline
