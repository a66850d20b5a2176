// Private to backend: pure functions over scheduler output (Slurm's sbatch/squeue/scontrol/
// sacct, kubectl's JSON and logs) and the Kubernetes stage chain's decisions. The backends
// call them; tests/unit/backend tests them directly. No process is run here.
#pragma once

#include <trainbench/backend.hpp>
#include <trainbench/yaml.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainbench::backend {

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
// The top-level `release: NAME` of a rendered chart's values.yaml, read with the YAML reader
// (the release `submit` installs when the recipe sets kubernetes.install: helm); empty when
// absent, not a scalar, or not a DNS label of at most 53 characters (Helm's limit).
[[nodiscard]] std::string release_in_values(const yaml::Node& values);
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

}  // namespace trainbench::backend
