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
    // The name it was submitted under: a scheduler that names the id's job otherwise (an id
    // reused after the controller lost its state, an edited journal) is not asked about it
    // again, and never told to cancel it. Empty: not checked. (An initializer, so a query
    // written {id, dir, stage} needs none.)
    std::string job_name = {};
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
    // Every scheduler command goes through it; make_backend sets it from its required argument
    // (a backend built with none refuses: there is no fallback to the system's runner).
    ProcessRunner* runner = nullptr;
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
    // The jobs' logs live with the jobs (Kubernetes pods the cluster deletes later): a wait
    // streams them while the jobs run (Backend::follow) and collects them when they end.
    bool logs_go_with_jobs = false;
    // The jobs run as children of this machine (local): `run` interrupted cancels them, where
    // a cluster's jobs keep running.
    bool jobs_end_with_run = false;
};

// The one list of backends ("slurm", "kubernetes", "local").
[[nodiscard]] const std::vector<BackendInfo>& backend_table();
// Throws UsageError (with did-you-mean) for an unknown name.
// `runner` starts every command of the backend (the CLI's one runner, or a test's fake).
[[nodiscard]] std::unique_ptr<Backend> make_backend(std::string_view name, ProcessRunner& runner,
                                                    BackendOptions options = {});

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

}  // namespace trainbench::backend
