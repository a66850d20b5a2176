// backend: how rendered jobs reach a scheduler and how their state comes
// back. One interface (submit, status, cancel, logs) with three
// implementations: Slurm (sbatch/squeue/scontrol/sacct/scancel), Kubernetes
// (kubectl apply/get/logs/delete) and local (a child process group on this
// machine). Every external command goes through a ProcessRunner with an argv
// vector; nothing runs through a shell string built from recipe values.
//
// Backends know nothing about run directories beyond the paths they are
// given; the run module owns the journal and decides what a state means for
// a run. docs/runs.md describes the states.
#pragma once

#include <trainbench/core.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainbench::backend {

// ---------------------------------------------------------------- job states
// A scheduler-neutral job state (names follow Slurm's).
enum class JobState {
    unknown,        // no scheduler record and no status file (yet)
    pending,        // queued, waiting for resources or a dependency
    running,        // running, or completing
    completed,      // ended with exit code 0
    failed,         // ended with a non-zero exit code (or could not start)
    cancelled,      // cancelled by a user or because a dependency can never be met
    timeout,        // killed at its time limit
    node_fail,      // a node failed under it
    out_of_memory,  // killed for exceeding its memory
    preempted,      // preempted by the scheduler
};

// "PENDING", "RUNNING", "COMPLETED", ... and "UNKNOWN".
[[nodiscard]] std::string_view to_string(JobState state);
// Parses trainbench's own names (case-insensitive) and the scheduler words
// they stand for ("COMPLETING", "CONFIGURING", "BOOT_FAIL", "CANCELLED by 0",
// "DEADLINE", "OOM", ...). Nothing for an unknown word.
[[nodiscard]] std::optional<JobState> parse_job_state(std::string_view text);
// True for states a job never leaves.
[[nodiscard]] bool is_final(JobState state);

// What a scheduler says about one job.
struct JobStatus {
    std::string job_id;
    JobState state = JobState::unknown;
    std::optional<int> exit_code;  // of the batch script / training command when known
    std::string reason;            // the scheduler's reason ("Resources", "NonZeroExitCode", ...)
    std::string nodes;             // node list ("gpu-[1-2]") when known
    std::string started;           // ISO time, when known
    std::string ended;
    std::string source;  // where it came from: "squeue", "scontrol", "sacct", "status-file", "kubectl", "process"
};

// ---------------------------------------------------------------- requests
// One stage to submit. Paths are absolute.
struct SubmitRequest {
    std::filesystem::path run_dir;             // the job's working directory and TRAINBENCH_RUN_DIR
    std::string run_id;                        // "<UTC time>-<short id>"
    std::string stage;                         // "train", ...
    std::filesystem::path stage_dir;           // run_dir/rendered/<stage>
    std::filesystem::path entrypoint;          // the main job file, relative to stage_dir
    std::vector<std::filesystem::path> files;  // every rendered file of the stage, relative to stage_dir
    std::string job_name;                      // contains the short run id, so a lost submission can be found again
    std::optional<std::string> depends_on;     // job id of the previous stage
    std::string previous_stage;                // that stage's name (the local backend waits for its status file)
    std::string dependency = "afterok";        // "afterok", "afterany", "afternotok"
    // Exported to the job: TRAINBENCH_RUN_DIR, TRAINBENCH_WORKLOADS and the
    // variables a recipe names with "${env:NAME}" (their values never touch disk).
    std::map<std::string, std::string> env;
};

struct SubmitResult {
    std::string job_id;
    std::string detail;  // e.g. "job.batch/gpt3-126m-abc123-train created"
};

// A job to ask about: its id plus what the status-file fallback needs.
struct JobQuery {
    std::string job_id;
    std::filesystem::path run_dir;
    std::string stage;
};

// A job found by name (resolving an interrupted submission).
struct FoundJob {
    std::string job_id;
    std::string job_name;
};

// ---------------------------------------------------------------- backend
class Backend {
public:
    virtual ~Backend() = default;
    [[nodiscard]] virtual std::string_view name() const = 0;

    // Submits one stage; chained after `depends_on` when set. Throws
    // RuntimeError with the scheduler's message when the scheduler refuses.
    virtual SubmitResult submit(const SubmitRequest& request) = 0;

    // The state of every job, in the order given, with ONE scheduler query for
    // all of them (plus at most one detail query per job that just ended).
    // Jobs the scheduler no longer knows fall back to accounting (when
    // enabled) and then to the status files the job script writes.
    [[nodiscard]] virtual std::vector<JobStatus> status(const std::vector<JobQuery>& jobs) = 0;

    // Cancels the jobs; jobs that already ended are not an error.
    virtual void cancel(const std::vector<JobQuery>& jobs) = 0;

    // Makes the job's logs available under run_dir/logs/<stage>/ (fetching
    // them when they live elsewhere) and returns the log files, oldest first.
    [[nodiscard]] virtual std::vector<std::filesystem::path> logs(const JobQuery& job) = 0;

    // Jobs whose name is `job_name` (the scheduler's record of a submission
    // whose result was never journaled). `job` names the run directory and
    // stage; its job_id is empty.
    [[nodiscard]] virtual std::vector<FoundJob> find_jobs(const std::string& job_name, const JobQuery& job) = 0;

    // Copies what a running job printed since the last call into run_dir/logs/<stage>/, for
    // backends whose logs vanish with the job (Kubernetes: rank 0's training container).
    // Never throws for a log that cannot be read yet. Default: nothing to do.
    virtual void follow(const JobQuery& job) { (void)job; }
};

// Bounded exponential backoff for transient scheduler errors.
struct RetryPolicy {
    int attempts = 5;                               // total tries
    std::chrono::milliseconds initial_delay{1000};  // doubled after every failure
    std::chrono::milliseconds max_delay{16000};
};

struct BackendOptions {
    ProcessRunner* runner = nullptr;  // default: system_process_runner()
    RetryPolicy retry;
    // How backends wait between retries and while cancelling (tests record instead of sleeping).
    std::function<void(std::chrono::milliseconds)> sleep;
    // Kubernetes.
    std::string kube_context;
    std::string kube_namespace;
    // Time limit for one scheduler command.
    std::chrono::milliseconds command_timeout{60000};
};

// ---------------------------------------------------------------- the table
struct BackendInfo {
    const char* name;
    const char* description;
    std::unique_ptr<Backend> (*factory)(const BackendOptions& options);
};

// The one list of backends ("slurm", "kubernetes", "local").
[[nodiscard]] const std::vector<BackendInfo>& backend_table();
// Throws UsageError (with did-you-mean) for an unknown name.
[[nodiscard]] std::unique_ptr<Backend> make_backend(std::string_view name, const BackendOptions& options = {});

// ---------------------------------------------------------------- this machine's GPUs
// The NVIDIA GPUs a local job can use (src/backend/local_gpus.cpp): one per device node
// <dev>/nvidia<N> (CUDA cannot reach a GPU without it), no more than CUDA_VISIBLE_DEVICES
// lists when it is set, named from the driver's <driver_gpus>/<bus id>/information files
// where they are readable (the names are for messages only).
struct LocalGpus {
    int count = 0;         // usable GPUs
    int device_nodes = 0;  // <dev>/nvidia<N> entries
    std::vector<std::string> names;
    bool visible_devices_set = false;
    std::string visible_devices;
    std::string evidence;  // what was seen, for a message
};
[[nodiscard]] LocalGpus probe_local_gpus(const std::filesystem::path& dev = "/dev",
                                         const std::filesystem::path& driver_gpus = "/proc/driver/nvidia/gpus");

// ---------------------------------------------------------------- parsers
// Pure functions over scheduler output, exposed for tests.
namespace slurm {
// `sbatch --parsable` output: "123" or "123;cluster". Nothing when not a job id.
[[nodiscard]] std::optional<std::string> parse_sbatch_output(std::string_view out);
// `squeue -h -o "%i|%T|%r|%N|%S|%e|%j"` lines.
[[nodiscard]] std::vector<JobStatus> parse_squeue(std::string_view out);
// `scontrol -o show job ID` (one line of Key=Value) or the multi-line form.
[[nodiscard]] std::map<std::string, std::string> parse_scontrol_fields(std::string_view out);
[[nodiscard]] std::optional<JobStatus> parse_scontrol_job(std::string_view out);
// `sacct -n -P -X -o JobID,State,ExitCode,NodeList,Start,End` lines.
[[nodiscard]] std::vector<JobStatus> parse_sacct(std::string_view out);
// "2:0" -> 2; "0:15" (signal 15) -> 128+15.
[[nodiscard]] std::optional<int> parse_exit_code(std::string_view text);
// True for errors worth retrying ("Socket timed out", "Slurm temporarily
// unable to accept job", "Unable to contact slurm controller", ...).
[[nodiscard]] bool is_transient_error(std::string_view stderr_text);
}  // namespace slurm

namespace kubernetes {
// `kubectl get job,pods -l ... -o json`: one status per Job in the list
// (job_id = the Job's name), pods matched through their job-name label or owner.
[[nodiscard]] std::vector<JobStatus> parse_get_json(std::string_view json_text);
// `kubectl apply -o json` output (one object or a List): the name of the
// first Job (or JobSet) it created; nothing when there is none.
[[nodiscard]] std::optional<std::string> parse_apply_json(std::string_view json_text);
// True when YAML text holds a Kubernetes object (top-level `apiVersion:` and `kind:` keys),
// as opposed to another rendered YAML file such as a framework config (nemo-config.yaml),
// which kubectl apply rejects.
[[nodiscard]] bool is_manifest_yaml(std::string_view yaml_text);
// True when kubectl's message means no cluster can be reached (connection
// refused, no configuration, unknown context, ...).
[[nodiscard]] bool is_unreachable_error(std::string_view stderr_text);
// Files the launch script's exit trap copied into the training container's log, between
// "==> trainbench file: logs/<stage>/<path> <==" and "<== trainbench file end" lines:
// (path relative to the run directory, content). Paths outside logs/ are ignored.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> files_in_log(std::string_view log);
// Where the launch script says rank 0's standard output belongs (metrics.path of a Megatron,
// NeMo or Metaseq log): "==> trainbench stdout: logs/<stage>/<path> <==" on a line of its own.
[[nodiscard]] std::optional<std::string> stdout_file_in_log(std::string_view log);
// How far a streamed log was written: the last line's timestamp and how many lines carried it.
struct LogCursor {
    std::string timestamp;
    long same = 0;
};
// `kubectl logs --timestamps` output -> the lines after `cursor`, without their timestamps
// (a last line without '\n' waits for the next call); moves the cursor past them.
[[nodiscard]] std::string new_log_text(std::string_view timestamped, LogCursor& cursor);
// The `release: NAME` line of a rendered chart's values.yaml (the release `submit` installs
// when the recipe sets kubernetes.install: helm); empty when absent or not a DNS label.
[[nodiscard]] std::string release_in_values(std::string_view values_yaml);
// Stages chained on Kubernetes (docs/stages.md): a later stage's Job is created suspended with
// the annotations trainbench.io/after (the Job it waits for) and trainbench.io/dependency.
struct ChainStep {
    enum class Action { wait, release, cancel };
    std::string job;         // the waiting Job
    std::string after;       // the Job it waits for
    std::string dependency;  // "afterok", "afterany", "afternotok"
    std::string queue;       // its Kueue queue (annotation trainbench.io/queue): released by adding the label
    Action action = Action::wait;
    std::string reason;  // "waiting for Job X (afterok, now RUNNING)", "dependency never satisfied: ..."
};
// `kubectl get job,pods -o json` -> what to do with every waiting Job (sorted by name): release
// it when the Job it waits for ended as its dependency asks, cancel it when that can no longer
// happen (and every Job after it, in the same pass), else wait.
[[nodiscard]] std::vector<ChainStep> chain_steps(std::string_view json_text);
// The first Job of `kubectl apply/get -o json` output that waits for another (suspended, with
// trainbench.io/after), as a release step; nothing when none waits.
[[nodiscard]] std::optional<ChainStep> waiting_in(std::string_view json_text);
// `kubectl get job -o json`: the Helm releases the Jobs belong to (label
// app.kubernetes.io/managed-by=Helm, annotation meta.helm.sh/release-name), sorted, once each.
[[nodiscard]] std::vector<std::string> helm_releases(std::string_view json_text);
}  // namespace kubernetes

// The status files a job script writes (docs/runs.md): a status for a job the
// scheduler has forgotten. `job_id` is copied into the result.
[[nodiscard]] JobStatus status_from_files(const std::filesystem::path& run_dir, const std::string& stage,
                                          const std::string& job_id);

}  // namespace trainbench::backend
