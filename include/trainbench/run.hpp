// run: the run store and the life of one submission. Every submission gets
// a fresh directory runs/<recipe>/<UTC time>-<short id>/ (never reused),
// holding the resolved recipe, the rendered files, every external command
// with its output, a state journal, and later the logs and the report.
// Writes are atomic; a crash at any point leaves a directory `status` reads.
//
// docs/runs.md describes the directory, the journal and the states.
#pragma once

#include <trainbench/backend.hpp>
#include <trainbench/catalog.hpp>
#include <trainbench/core.hpp>
#include <trainbench/render.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace trainbench::run {

inline constexpr int k_run_format_version = 1;  // run.json
inline constexpr int k_journal_version = 1;     // journal.jsonl
inline constexpr const char* k_journal_format = "trainbench-journal";

// ---------------------------------------------------------------- run state
// One stage as the journal tells it.
struct StageState {
    std::string name;
    std::string job_name;     // the scheduler job name (contains the short id)
    std::string job_id;       // empty until submitted
    bool submitting = false;  // "submitting" journaled but no "submitted": interrupted (or in flight)
    long submitter_pid = 0;   // the process that was submitting, and its host
    std::string submitter_host;
    bool abandoned = false;     // an interrupted submission that never reached the scheduler
    std::string submit_error;   // the scheduler refused it
    bool stopped = false;       // not submitted because of Ctrl-C/SIGTERM (submit_error says so)
    backend::JobStatus status;  // last known state
};

struct RunInfo {
    std::filesystem::path dir;
    std::string run_id;    // "<UTC YYYYmmddTHHMMSSZ>-<6 hex>" (the directory name)
    std::string short_id;  // the 6 hex digits
    std::string recipe_name;
    std::string recipe_file;
    std::string target;
    std::string backend;  // "slurm", "kubernetes", "local"
    std::string kube_context;
    std::string kube_namespace;
    std::string created;  // UTC ISO time
    std::vector<StageState> stages;
    bool cancel_requested = false;
    std::string finished_state;  // set by the "finished" event
    std::string finished_detail;
    std::string problem;  // why the directory could not be read fully

    // "SUBMITTING", "PENDING", "RUNNING", "COMPLETED", "FAILED", "CANCELLED",
    // "TIMEOUT", ..., "UNKNOWN" (with detail() saying why) or "INTERRUPTED".
    [[nodiscard]] std::string state() const;
    // A short human explanation ("submission interrupted", "exit code 3",
    // the scheduler's refusal, ...); may be empty.
    [[nodiscard]] std::string detail() const;
    // True when no stage will change any more.
    [[nodiscard]] bool is_final() const;
    // The stage's job as a backend query.
    [[nodiscard]] backend::JobQuery query(const StageState& stage) const;
    [[nodiscard]] nlohmann::ordered_json to_json() const;
};

// ---------------------------------------------------------------- commands
// A ProcessRunner that times every command and keeps a record of it (argv,
// cwd, exit code, stdout, stderr, duration). Values of environment variables
// are kept only for TRAINBENCH_* names; other passed variables (secrets) are
// listed by name only.
class CommandRecorder final : public ProcessRunner {
public:
    explicit CommandRecorder(ProcessRunner& inner, std::optional<std::filesystem::path> commands_dir = {});
    ProcessResult run(const ProcessRequest& request) override;
    // A detached process (a local job): recorded with its pid and output files.
    long start(const ProcessRequest& request, const DetachedOutput& output) override;
    // Records kept in memory (when no directory was given).
    [[nodiscard]] const std::vector<nlohmann::ordered_json>& records() const { return m_records; }
    void clear() { m_records.clear(); }
    // Called with every record before it is kept (e.g. to journal failed attempts).
    void on_record(std::function<void(const nlohmann::ordered_json&)> observer) { m_on_record = std::move(observer); }
    // Writes a record as commands/NNN.json (the next free number; safe
    // against concurrent writers).
    static void write_record(const std::filesystem::path& commands_dir, const nlohmann::ordered_json& record);

private:
    void keep(const nlohmann::ordered_json& record);
    ProcessRunner& m_inner;
    std::optional<std::filesystem::path> m_dir;
    std::vector<nlohmann::ordered_json> m_records;
    std::function<void(const nlohmann::ordered_json&)> m_on_record;
};

// ---------------------------------------------------------------- the store
struct RunMetadata {
    std::string recipe_name;
    std::filesystem::path recipe_file;
    std::string target;
    std::string backend;
    std::string kube_context;
    std::string kube_namespace;
    std::string resolved_yaml;  // recipe.resolved.yaml
};

class RunStore {
public:
    explicit RunStore(std::filesystem::path root);
    [[nodiscard]] const std::filesystem::path& root() const { return m_root; }

    // Reserves a fresh run directory (mkdir is the lock: an existing name is
    // never reused), then writes the journal signature, run.json (with the
    // tool version and the git commit of the recipe's repository, asked with
    // `runner`) and recipe.resolved.yaml.
    [[nodiscard]] RunInfo create(const RunMetadata& meta, ProcessRunner& runner);

    // Every run directory under the root, oldest first.
    [[nodiscard]] std::vector<std::filesystem::path> list() const;
    // The one run lookup (every command that takes a run uses it). `ref` names
    // a run by
    //   - a directory that is a run (is_run_dir), anywhere: returned made absolute;
    //   - otherwise a prefix of a run's short id (the last 6 characters of the
    //     run id), of its run id ("20261123T185526Z-6d3652"), or of
    //     "<recipe>/<run id>", among the runs under the root (list()).
    // Throws UsageError when nothing matches (with did-you-mean over the short
    // ids) or when more than one run matches (listing them).
    [[nodiscard]] std::filesystem::path resolve(const std::string& ref) const;
    // A directory holding a run (its journal.jsonl or run.json).
    [[nodiscard]] static bool is_run_dir(const std::filesystem::path& dir);

private:
    std::filesystem::path m_root;
};

// Reads a run directory: run.json, then replays the journal. Tolerates a
// crash at any point (a missing run.json, a torn last journal line). Throws
// RuntimeError for a journal written by a newer trainbench.
[[nodiscard]] RunInfo load_run(const std::filesystem::path& dir);

// Appends one event (an object; "time" is added) to the run's journal.
void append_event(const std::filesystem::path& run_dir, nlohmann::ordered_json event);

// Writes rendered/<stage>/<files> of every job (executable bits kept). When that fails (a
// full or read-only store) the run is discarded (discard_run) and RuntimeError says why.
void write_rendered(const RunInfo& run, const std::vector<render::RenderedJob>& jobs);

// The run's lock (<run>/.lock). Every writer of the journal or run.json holds it: a
// submission for its whole length, a refresh while it journals what it saw, a cancel while
// it journals the request. Never taken twice by one process (flock would wait for itself).
[[nodiscard]] FileLock lock_run(const std::filesystem::path& run_dir);
[[nodiscard]] std::optional<FileLock> lock_run_within(const std::filesystem::path& run_dir,
                                                      std::chrono::milliseconds limit);
// Changes run.json under the run's lock, reading it there, so a writer never replaces a newer
// run.json with a change made to an older copy.
void update_run_json(const std::filesystem::path& run_dir, const std::function<void(nlohmann::ordered_json&)>& change);
// A run whose creation failed before anything reached the scheduler: removed, or, when it
// cannot be removed, journaled FINISHED/FAILED with the reason (never UNKNOWN forever).
void discard_run(const std::filesystem::path& run_dir, const std::string& reason);

// ---------------------------------------------------------------- operations
// Values of recipe env entries written "${env:NAME}", read from this
// process's environment. Throws UsageError naming every unset variable.
[[nodiscard]] std::map<std::string, std::string> secret_environment(const catalog::EnvList& env);

using BackendProvider = std::function<std::unique_ptr<backend::Backend>(const RunInfo& run, ProcessRunner& runner)>;
// The default: backend::make_backend(run.backend) with the run's kube context/namespace.
[[nodiscard]] BackendProvider default_backend_provider(backend::BackendOptions base = {});

struct SubmitOptions {
    std::string job_name_prefix = "trainbench-";
    std::filesystem::path workloads;             // TRAINBENCH_WORKLOADS
    std::map<std::string, std::string> secrets;  // passed to the job, never written
    // Stage -> job ids ("12:13") it waits for (afterok) besides the previous stage: reused
    // stages of an earlier run that are still pending or running (apply_reuse fills it).
    std::map<std::string, std::string> also_after;
};

// Submits the stages in order, chaining each after the previous with its
// dependency, journaling "submitting" before and "submitted" after each.
// Every command lands in commands/. Throws RuntimeError (after journaling
// the failure) when the scheduler refuses a stage. `runner` starts every command.
void submit_stages(RunInfo& run, const std::vector<render::RenderedJob>& jobs, const BackendProvider& provider,
                   ProcessRunner& runner, const SubmitOptions& options = {});

// Brings every run up to date: resolves interrupted submissions, asks each
// backend ONCE for all non-final jobs of all runs that use it, journals every
// change and "finished" when a run ends. Commands behind a change are kept
// in that run's commands/.
void refresh(std::vector<RunInfo>& runs, const BackendProvider& provider, ProcessRunner& runner);

// The file system under a run store (src/run/store_fs.cpp). `shared` is false for the
// node-local kinds (tmpfs, ext4, xfs, btrfs, overlayfs, zfs, ...), which other nodes of a
// Slurm job cannot see; unknown kinds count as shared.
struct StoreFilesystem {
    std::string type;  // "nfs", "lustre", "tmpfs", "ext2/3/4", ..., "unknown"
    bool shared = true;
    bool known = false;
};
[[nodiscard]] StoreFilesystem store_filesystem(const std::filesystem::path& path);

// ---------------------------------------------------------------- prepared once, reused
// (src/run/reuse.cpp; docs/stages.md) Slurm validate and prepare-data stages are recorded
// in the store under a key of their inputs; a later submission with the same key reuses
// the earlier job instead of submitting the stage again.
struct ReuseFlags {
    bool revalidate = false;  // submit validate stages even when a fresh validation exists
    bool reprepare = false;   // submit prepare-data stages even when the data was prepared
};
struct StageReuse {
    std::string stage;     // this run's stage
    std::string kind;      // "validate", "prepare-data"
    std::string from_run;  // the run that ran it
    std::filesystem::path from_dir;
    std::string from_stage;
    std::string job_id;
    std::string state;   // "COMPLETED", or "PENDING"/"RUNNING" (then this run waits for it)
    std::string detail;  // "validated 2.0 h ago on gpu-1 gpu-2"
};
// The stages of `r` an earlier run already did (asks the backend for their jobs' states).
// `notes` gets why a recorded stage is not reused (failed, too old, data gone).
[[nodiscard]] std::vector<StageReuse> plan_reuse(const std::filesystem::path& store_root, const recipe::Recipe& r,
                                                 const ReuseFlags& flags, const BackendProvider& provider,
                                                 ProcessRunner& runner, std::vector<std::string>& notes);
// Journals a "reused" event per reused stage (and writes reused.json), returns the jobs
// still to submit, and sets options.also_after for the stage after a reused unfinished one.
[[nodiscard]] std::vector<render::RenderedJob> apply_reuse(const RunInfo& run,
                                                           const std::vector<render::RenderedJob>& jobs,
                                                           const std::vector<StageReuse>& reused,
                                                           SubmitOptions& options);
// Records the run's submitted validate / prepare-data stages for later submissions.
void record_shared_stages(const std::filesystem::path& store_root, const recipe::Recipe& r, const RunInfo& run);

// Cancels every unfinished job of the run and journals the request.
void cancel(RunInfo& run, const BackendProvider& provider, ProcessRunner& runner);

}  // namespace trainbench::run
