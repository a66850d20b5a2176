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
#include <trainbench/run.hpp>
#include <trainbench/sweep.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
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
    ProcessRunner* runner = nullptr;  // nullptr: system_process_runner()
    [[nodiscard]] ProcessRunner& processes() const { return runner ? *runner : system_process_runner(); }
};

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

}  // namespace trainbench::pipeline
