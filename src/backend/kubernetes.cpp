// The Kubernetes backend: kubectl apply of the rendered manifests, one
// `kubectl get job,pods -l trainbench.io/run-id in (...) -o json` per status
// poll, kubectl logs into the run directory, kubectl delete. The manifests
// carry the labels trainbench.io/run-id and trainbench.io/stage (render's
// contract, docs/runs.md).
#include "backend/common.hpp"
#include "backend/kubernetes_logs.hpp"

#include <trainbench/backend.hpp>
#include <trainbench/core.hpp>
#include <trainbench/yaml.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <set>

namespace fs = std::filesystem;
using nlohmann::json;

namespace trainbench::backend {

namespace kubernetes {

namespace {

std::string str(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

long num(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_number_integer() ? it->get<long>() : 0;
}

const json& path(const json& j, std::initializer_list<const char*> keys) {
    static const json null_value;
    const json* cur = &j;
    for (const char* k : keys) {
        if (!cur->is_object()) return null_value;
        auto it = cur->find(k);
        if (it == cur->end()) return null_value;
        cur = &*it;
    }
    return *cur;
}

std::vector<const json*> items_of(const json& doc) {
    std::vector<const json*> items;
    if (doc.contains("items") && doc["items"].is_array()) {
        for (const json& item : doc["items"]) items.push_back(&item);
    } else if (doc.is_object() && doc.contains("kind")) {
        items.push_back(&doc);
    }
    return items;
}

// The Job a pod belongs to: its job-name label, else its owner reference.
std::string job_of_pod(const json& pod) {
    const json& labels = path(pod, {"metadata", "labels"});
    if (labels.is_object()) {
        for (const char* key : {"batch.kubernetes.io/job-name", "job-name"}) {
            std::string v = str(labels, key);
            if (!v.empty()) return v;
        }
    }
    const json& owners = path(pod, {"metadata", "ownerReferences"});
    if (owners.is_array())
        for (const json& o : owners)
            if (str(o, "kind") == "Job") return str(o, "name");
    return {};
}

bool condition_true(const json& status, const char* type, std::string* reason, std::string* message,
                    std::string* since = nullptr) {
    const json& conds = path(status, {"conditions"});
    if (!conds.is_array()) return false;
    for (const json& c : conds) {
        if (str(c, "type") == type && str(c, "status") == "True") {
            if (reason) *reason = str(c, "reason");
            if (message) *message = str(c, "message");
            if (since) *since = str(c, "lastTransitionTime");
            return true;
        }
    }
    return false;
}

// Why a failed pod failed, as the kubelet said it: "pod NAME: container C exited with code N
// (Reason: message)", or the pod's own reason (Evicted, DeadlineExceeded, ...).
std::string pod_failure_text(const json& pod) {
    const std::string name = str(path(pod, {"metadata"}), "name");
    const json& pstatus = path(pod, {"status"});
    std::string what;
    for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
        const json& containers = path(pstatus, {list});
        if (!containers.is_array() || !what.empty()) continue;
        for (const json& c : containers) {
            const json& term = path(c, {"state", "terminated"});
            if (!term.is_object() || !term.contains("exitCode") || !term["exitCode"].is_number_integer() ||
                term["exitCode"].get<int>() == 0)
                continue;
            std::string why = str(term, "reason");
            std::string msg = str(term, "message");
            if (!msg.empty()) why += (why.empty() ? "" : ": ") + msg;
            what = fmt::format("container {} exited with code {}{}", str(c, "name"), term["exitCode"].get<int>(),
                               why.empty() ? "" : " (" + why + ")");
            break;
        }
    }
    if (what.empty()) {
        std::string reason = str(pstatus, "reason");
        std::string msg = str(pstatus, "message");
        what = reason.empty() ? msg : (msg.empty() ? reason : reason + ": " + msg);
    }
    if (what.empty()) return {};
    return fmt::format("pod {}: {}", name, what);
}

// What the pods of one Job say: their nodes, the first non-zero container exit code, why
// one waits, the first failed pod (which container ended how), whether one runs.
struct PodSummary {
    std::set<std::string> nodes;
    std::optional<int> exit_code;
    std::string waiting_reason;
    std::string pod_failure;
    bool any_running = false;
};

PodSummary summarise_pods(const std::vector<const json*>& mine) {
    PodSummary p;
    for (const json* pod : mine) {
        std::string node = str(path(*pod, {"spec"}), "nodeName");
        if (!node.empty()) p.nodes.insert(node);
        const json& pstatus = path(*pod, {"status"});
        if (str(pstatus, "phase") == "Running") p.any_running = true;
        if (str(pstatus, "phase") == "Failed" && p.pod_failure.empty()) p.pod_failure = pod_failure_text(*pod);
        const json& containers = path(pstatus, {"containerStatuses"});
        if (containers.is_array()) {
            for (const json& c : containers) {
                const json& term = path(c, {"state", "terminated"});
                if (term.is_object() && term.contains("exitCode")) {
                    int code = term["exitCode"].get<int>();
                    if (!p.exit_code || (*p.exit_code == 0 && code != 0)) p.exit_code = code;
                    if (code == 137 && str(term, "reason") == "OOMKilled") p.waiting_reason = "OOMKilled";
                }
                std::string w = str(path(c, {"state", "waiting"}), "reason");
                if (!w.empty() && p.waiting_reason.empty()) p.waiting_reason = w;
            }
        }
        if (p.waiting_reason.empty() && str(pstatus, "phase") == "Pending") {
            const json& conds = path(pstatus, {"conditions"});
            if (conds.is_array())
                for (const json& c : conds)
                    if (str(c, "type") == "PodScheduled" && str(c, "status") == "False")
                        p.waiting_reason = str(c, "reason");
        }
    }
    return p;
}

}  // namespace

std::vector<JobStatus> parse_get_json(std::string_view json_text) {
    json doc = json::parse(json_text, nullptr, false);
    if (doc.is_discarded()) throw RuntimeError("kubectl printed invalid JSON");
    std::vector<const json*> jobs;
    std::map<std::string, std::vector<const json*>> pods;
    for (const json* item : items_of(doc)) {
        std::string kind = str(*item, "kind");
        if (kind == "Job") jobs.push_back(item);
        if (kind == "Pod") pods[job_of_pod(*item)].push_back(item);
    }
    std::vector<JobStatus> result;
    for (const json* job : jobs) {
        JobStatus s;
        s.source = "kubectl";
        s.job_id = str(path(*job, {"metadata"}), "name");
        const json& status = path(*job, {"status"});
        s.started = str(status, "startTime");
        s.ended = str(status, "completionTime");
        const PodSummary p = summarise_pods(pods[s.job_id]);
        for (const std::string& n : p.nodes) s.nodes += (s.nodes.empty() ? "" : ",") + n;
        std::string reason, message, since;
        if (condition_true(status, "Complete", &reason, &message, &since) ||
            condition_true(status, "SuccessCriteriaMet", &reason, &message, &since)) {
            s.state = JobState::completed;
            s.exit_code = 0;
            // (Kubernetes 1.31+ says SuccessCriteriaMet before Complete and its completionTime)
            if (s.ended.empty()) s.ended = since;
        } else if (condition_true(status, "Failed", &reason, &message) ||
                   condition_true(status, "FailureTarget", &reason, &message)) {
            s.state = reason == "DeadlineExceeded" ? JobState::timeout : JobState::failed;
            if (p.waiting_reason == "OOMKilled") s.state = JobState::out_of_memory;
            s.exit_code = p.exit_code;
            s.reason = message.empty() ? reason : fmt::format("{}: {}", reason, message);
            if (!p.pod_failure.empty()) s.reason += (s.reason.empty() ? "" : "; ") + p.pod_failure;
        } else if (condition_true(status, "Suspended", &reason, &message)) {
            s.state = JobState::pending;
            s.reason = reason.empty() ? "Suspended" : reason;
        } else if (p.any_running) {
            s.state = JobState::running;
        } else {
            s.state = JobState::pending;
            s.reason = p.waiting_reason;
            if (num(status, "failed") > 0 && p.waiting_reason.empty()) s.reason = "retrying after a failed pod";
        }
        result.push_back(std::move(s));
    }
    return result;
}

std::optional<std::string> parse_apply_json(std::string_view json_text) {
    json doc = json::parse(json_text, nullptr, false);
    if (doc.is_discarded()) return std::nullopt;
    for (const json* item : items_of(doc)) {
        std::string kind = str(*item, "kind");
        if (kind == "Job" || kind == "JobSet") return str(path(*item, {"metadata"}), "name");
    }
    return std::nullopt;
}

bool is_manifest_yaml(std::string_view yaml_text) {
    bool api_version = false, kind = false;
    while (!yaml_text.empty()) {
        std::size_t eol = yaml_text.find('\n');
        std::string_view line = yaml_text.substr(0, eol);
        if (line.rfind("apiVersion:", 0) == 0) api_version = true;
        if (line.rfind("kind:", 0) == 0) kind = true;
        if (api_version && kind) return true;
        if (eol == std::string_view::npos) break;
        yaml_text.remove_prefix(eol + 1);
    }
    return false;
}

bool is_unreachable_error(std::string_view stderr_text) {
    std::string text(stderr_text);
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    static const char* const patterns[] = {
        "connection refused",
        "unable to connect to the server",
        "no configuration has been provided",
        "context was not found",
        "current-context is not set",
        "dial tcp",
        "i/o timeout",
        "no such host",
        "connection reset by peer",
        "tls handshake timeout",
        "did you specify the right host or port",
    };
    return std::any_of(std::begin(patterns), std::end(patterns),
                       [&](const char* p) { return text.find(p) != std::string::npos; });
}

std::vector<std::pair<std::string, std::string>> files_in_log(std::string_view log) {
    static constexpr std::string_view begin = "==> trainbench file: ";
    static constexpr std::string_view begin_end = " <==";
    static constexpr std::string_view end = "<== trainbench file end";
    std::vector<std::pair<std::string, std::string>> files;
    std::string* current = nullptr;
    std::size_t pos = 0;
    while (pos < log.size()) {
        std::size_t nl = log.find('\n', pos);
        std::string_view line = log.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
        pos = nl == std::string_view::npos ? log.size() : nl + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (current == nullptr) {
            if (line.substr(0, begin.size()) == begin && line.size() > begin.size() + begin_end.size() &&
                line.substr(line.size() - begin_end.size()) == begin_end) {
                std::string rel(line.substr(begin.size(), line.size() - begin.size() - begin_end.size()));
                bool safe = rel.rfind("logs/", 0) == 0 && rel.find("..") == std::string::npos &&
                            rel.find('\\') == std::string::npos && rel.back() != '/';
                if (safe) {
                    files.emplace_back(rel, std::string());
                    current = &files.back().second;
                }
            }
        } else if (line == end) {
            current = nullptr;
        } else {
            current->append(line);
            current->push_back('\n');
        }
    }
    return files;
}

std::string release_in_values(std::string_view values_yaml) {
    std::size_t pos = 0;
    while (pos < values_yaml.size()) {
        std::size_t nl = values_yaml.find('\n', pos);
        std::string_view line =
            values_yaml.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
        pos = nl == std::string_view::npos ? values_yaml.size() : nl + 1;
        if (line.rfind("release:", 0) != 0) continue;
        std::string v = trim(line.substr(8));
        if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
            v = v.substr(1, v.size() - 2);
        bool label = !v.empty() && v.size() <= 53 && std::all_of(v.begin(), v.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
        });
        return label ? v : std::string();
    }
    return {};
}

std::vector<std::string> helm_releases(std::string_view json_text) {
    json doc = json::parse(json_text, nullptr, false);
    std::set<std::string> releases;
    if (doc.is_discarded()) return {};
    for (const json* item : items_of(doc)) {
        const json& labels = path(*item, {"metadata", "labels"});
        const json& notes = path(*item, {"metadata", "annotations"});
        if (labels.is_object() && str(labels, "app.kubernetes.io/managed-by") == "Helm" && notes.is_object()) {
            std::string r = str(notes, "meta.helm.sh/release-name");
            if (!r.empty()) releases.insert(r);
        }
    }
    return {releases.begin(), releases.end()};
}

namespace {

// A Job that waits for another stage's Job (annotation trainbench.io/after), while suspended.
struct Waiting {
    std::string job, after, dependency, queue;
};

std::optional<Waiting> waiting_job(const json& job) {
    const json& notes = path(job, {"metadata", "annotations"});
    const json& suspend = path(job, {"spec", "suspend"});
    if (!notes.is_object() || str(notes, "trainbench.io/after").empty() || !suspend.is_boolean() ||
        !suspend.get<bool>())
        return std::nullopt;
    const json& labels = path(job, {"metadata", "labels"});
    std::string queue = str(notes, "trainbench.io/queue");
    // Released to Kueue already: the queue label is on, Kueue owns `suspend` from now on.
    if (!queue.empty() && labels.is_object() && !str(labels, "kueue.x-k8s.io/queue-name").empty()) return std::nullopt;
    std::string dependency = str(notes, "trainbench.io/dependency");
    return Waiting{str(path(job, {"metadata"}), "name"), str(notes, "trainbench.io/after"),
                   dependency.empty() ? std::string("afterok") : dependency, queue};
}

// What a dependency makes of the state of the Job it names: release, cancel, or keep waiting.
ChainStep::Action decide(const std::string& dependency, JobState after) {
    const bool done = is_final(after), ok = after == JobState::completed;
    if (!done) return ChainStep::Action::wait;
    if (dependency == "afterany") return ChainStep::Action::release;
    if (dependency == "afternotok") return ok ? ChainStep::Action::cancel : ChainStep::Action::release;
    return ok ? ChainStep::Action::release : ChainStep::Action::cancel;
}

}  // namespace

std::optional<ChainStep> waiting_in(std::string_view json_text) {
    json doc = json::parse(json_text, nullptr, false);
    if (doc.is_discarded()) return std::nullopt;
    for (const json* item : items_of(doc))
        if (str(*item, "kind") == "Job")
            if (std::optional<Waiting> w = waiting_job(*item))
                return ChainStep{w->job, w->after, w->dependency, w->queue, ChainStep::Action::release, {}};
    return std::nullopt;
}

std::vector<ChainStep> chain_steps(std::string_view json_text) {
    json doc = json::parse(json_text, nullptr, false);
    if (doc.is_discarded()) return {};
    std::map<std::string, JobState> states;
    for (const JobStatus& s : parse_get_json(json_text)) states[s.job_id] = s.state;
    std::vector<Waiting> waiting;
    for (const json* item : items_of(doc))
        if (str(*item, "kind") == "Job")
            if (std::optional<Waiting> w = waiting_job(*item)) waiting.push_back(*w);
    // A cancelled stage cancels the stages after it in the same pass (validate -> prepare -> train).
    std::map<std::string, ChainStep> steps;
    for (bool changed = true; changed;) {
        changed = false;
        for (const Waiting& w : waiting) {
            if (steps.count(w.job) && steps[w.job].action != ChainStep::Action::wait) continue;
            ChainStep step{w.job, w.after, w.dependency, w.queue, ChainStep::Action::wait, {}};
            auto it = states.find(w.after);
            if (it == states.end()) {
                step.reason =
                    fmt::format("waiting for Job {} ({}), which the cluster does not have", w.after, w.dependency);
            } else {
                step.action = decide(w.dependency, it->second);
                step.reason =
                    step.action == ChainStep::Action::cancel
                        ? fmt::format("dependency never satisfied: Job {} ended {} ({})", w.after,
                                      to_string(it->second), w.dependency)
                        : fmt::format("waiting for Job {} ({}, now {})", w.after, w.dependency, to_string(it->second));
            }
            if (step.action == ChainStep::Action::cancel) {
                states[w.job] = JobState::cancelled;
                changed = true;
            }
            steps[w.job] = step;
        }
    }
    std::vector<ChainStep> out;
    for (auto& [name, step] : steps) out.push_back(std::move(step));
    return out;
}

}  // namespace kubernetes

namespace {

// kubectl's one useful line: "The connection to the server ... was refused",
// "error: ..." or "Error from server ...", not klog's "E1122 ..." noise.
std::string kubectl_message(const ProcessResult& r) {
    std::vector<std::string> ls = lines_of(r.err);
    for (auto it = ls.rbegin(); it != ls.rend(); ++it) {
        const std::string& l = *it;
        bool klog = l.size() > 5 && (l[0] == 'E' || l[0] == 'W' || l[0] == 'I') &&
                    std::isdigit(static_cast<unsigned char>(l[1]));
        if (!klog) return l;
    }
    return first_error_line(r);
}

std::string run_id_of(const fs::path& run_dir) {
    return run_dir.filename().string();
}

std::string run_selector(const std::set<std::string>& run_ids) {
    std::string selector = "trainbench.io/run-id in (";
    bool first = true;
    for (const std::string& id : run_ids) {
        selector += (first ? "" : ",") + id;
        first = false;
    }
    return selector + ")";
}

class KubernetesBackend final : public Backend {
public:
    explicit KubernetesBackend(const BackendOptions& options)
        : m_run(options), m_context(options.kube_context), m_namespace(options.kube_namespace) {}

    std::string_view name() const override { return "kubernetes"; }

    SubmitResult submit(const SubmitRequest& request) override {
        // A stage after another is rendered suspended, naming the Job it waits for; status()
        // releases it. Submitted without its predecessor (`--stage`, or a reused stage), it
        // starts at once.
        if (request.entrypoint.filename() == "Chart.yaml") {
            SubmitResult installed = install_chart(request);
            // Only a chart rendered to wait for another stage ("after: NAME" in its values).
            const fs::path values_file = request.stage_dir / request.entrypoint.parent_path() / "values.yaml";
            Diagnostics d;
            const yaml::Node values = yaml::parse_file(values_file, values_file.string(), d);
            d.throw_if_errors("the chart's values");
            const std::string after = top_value(values, "after");
            if (!after.empty()) chain_to(request, installed.job_id, after, top_value(values, "queue"));
            return installed;
        }
        std::vector<std::string> argv = base();
        argv.insert(argv.end(), {"apply", "-o", "json"});
        std::vector<fs::path> manifests{request.entrypoint};
        for (const fs::path& f : request.files) {
            std::string ext = f.extension().string();
            // Top-level manifests only: a Helm chart in a sub-directory is not applied raw, and
            // a framework's YAML config (NeMo's, shipped in the ConfigMap) is no Kubernetes object.
            if ((ext == ".yaml" || ext == ".yml") && !f.has_parent_path() && f != request.entrypoint &&
                kubernetes::is_manifest_yaml(read_file(request.stage_dir / f)))
                manifests.push_back(f);
        }
        for (const fs::path& m : manifests) {
            argv.emplace_back("-f");
            argv.push_back((request.stage_dir / m).string());
        }
        ProcessResult r = checked(argv, "apply");
        std::optional<std::string> job = kubernetes::parse_apply_json(r.out);
        if (!job)
            throw RuntimeError("kubectl apply created no Job", "the rendered manifests must contain a batch/v1 Job");
        if (std::optional<kubernetes::ChainStep> waiting = kubernetes::waiting_in(r.out))
            chain_to(request, *job, waiting->after, waiting->queue);
        return {*job, fmt::format("job.batch/{} applied", *job)};
    }

    std::vector<JobStatus> status(const std::vector<JobQuery>& jobs) override {
        std::set<std::string> run_ids;
        for (const JobQuery& q : jobs) run_ids.insert(run_id_of(q.run_dir));
        std::map<std::string, JobStatus> known;
        if (!run_ids.empty()) {
            std::vector<std::string> argv = base();
            argv.insert(argv.end(), {"get", "job,pods", "-l", run_selector(run_ids), "-o", "json"});
            ProcessResult r = checked(argv, "get");
            for (JobStatus& s : kubernetes::parse_get_json(r.out)) known[s.job_id] = std::move(s);
            for (const kubernetes::ChainStep& step : kubernetes::chain_steps(r.out)) drive(step, known[step.job]);
        }
        std::vector<JobStatus> result;
        for (const JobQuery& q : jobs) {
            auto it = known.find(q.job_id);
            if (it != known.end()) {
                result.push_back(it->second);
            } else {
                JobStatus s = status_from_files(q.run_dir, q.stage, q.job_id);
                if (s.state == JobState::unknown) s.reason = "no such Job in the cluster";
                result.push_back(std::move(s));
            }
        }
        return result;
    }

    // Deletes every object of the runs (the Job, its headless Service and ConfigMap), found
    // by the run-id label; the Job's pods go with it (garbage collection). A run installed
    // as a Helm release is uninstalled, so no release is left behind.
    void cancel(const std::vector<JobQuery>& jobs) override {
        std::set<std::string> run_ids;
        for (const JobQuery& q : jobs)
            if (!q.job_id.empty()) run_ids.insert(run_id_of(q.run_dir));
        if (run_ids.empty()) return;
        uninstall_releases(run_selector(run_ids));
        std::vector<std::string> argv = base();
        argv.insert(argv.end(), {"delete", "job,service,configmap", "-l", run_selector(run_ids), "--ignore-not-found",
                                 "--wait=false"});
        (void)checked(argv, "delete");
    }

    std::vector<fs::path> logs(const JobQuery& job) override {
        std::vector<std::string> argv = base();
        argv.insert(argv.end(), {"logs", "-l", "job-name=" + job.job_id, "--all-containers", "--prefix", "--tail=-1",
                                 "--max-log-requests=64"});
        ProcessResult r = checked(argv, "logs");
        const fs::path dir = job.run_dir / "logs" / job.stage;
        std::error_code ec;
        fs::create_directories(dir, ec);
        // No pods left (the Job's TTL passed): keep what an earlier call collected.
        if (!r.out.empty()) write_file_atomic(dir / fmt::format("kubectl-{}.log", job.job_id), r.out);
        // Rank 0's training container without kubectl's "[pod/NAME/CONTAINER] " prefix (what
        // `wait` has not streamed yet), and the files the launch script's exit trap copied into
        // it (its DLLogger log), written back under the run directory where metrics.path finds them.
        (void)follow_training_log(m_run, base(), job);
        export_log_files(job);
        std::vector<fs::path> files;
        for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator(); ++it)
            if (it->is_regular_file() && it->path().filename().string().front() != '.') files.push_back(it->path());
        std::sort(files.begin(), files.end());
        return files;
    }

    void follow(const JobQuery& job) override {
        if (follow_training_log(m_run, base(), job)) export_log_files(job);
    }

    std::vector<FoundJob> find_jobs(const std::string& job_name, const JobQuery& job) override {
        const std::string run_id = run_id_of(job.run_dir);
        std::vector<std::string> argv = base();
        argv.insert(argv.end(), {"get", "job", "-l", "trainbench.io/run-id=" + run_id, "-o", "json"});
        ProcessResult r = checked(argv, "get");
        std::vector<FoundJob> all, named;
        for (const JobStatus& s : kubernetes::parse_get_json(r.out)) {
            all.push_back({s.job_id, s.job_id});
            if (s.job_id == job_name) named.push_back({s.job_id, s.job_id});
        }
        return named.empty() ? all : named;
    }

private:
    // Plays Slurm's part in a dependency: starts a waiting stage whose predecessor ended as
    // its dependency asks, deletes one whose predecessor never can (CANCELLED, as Slurm does
    // with DependencyNeverSatisfied). A failed kubectl call is retried at the next poll.
    void drive(const kubernetes::ChainStep& step, JobStatus& status) {
        using Action = kubernetes::ChainStep::Action;
        status.reason = step.reason;
        if (step.action == Action::wait) return;
        std::vector<std::string> argv = base();
        if (step.action == Action::release) {
            argv.insert(argv.end(), {"patch", "job", step.job, "--type=merge", "-p", release_patch(step.queue)});
        } else {
            argv.insert(argv.end(), {"delete", "job/" + step.job, "service/" + step.job, "configmap/" + step.job,
                                     "--ignore-not-found", "--wait=false"});
        }
        ProcessResult r = m_run.run(command(argv));
        if (!r.ok()) {
            status.reason =
                fmt::format("{}; kubectl {} failed: {}", step.reason, argv[base().size()], kubectl_message(r));
            return;
        }
        if (step.action == Action::cancel) {
            status.state = JobState::cancelled;
        } else {
            status.reason = fmt::format("started: Job {} ended as {} asks", step.after, step.dependency);
        }
    }

    // Unsuspends the Job, or hands it to its Kueue queue (Kueue then owns `suspend`).
    static std::string release_patch(const std::string& queue) {
        json patch = queue.empty() ? json{{"spec", {{"suspend", false}}}}
                                   : json{{"metadata", {{"labels", {{"kueue.x-k8s.io/queue-name", queue}}}}}};
        return patch.dump();
    }

    // A stage rendered to wait for the stage before it, submitted without that stage (`--stage`,
    // or its predecessor reused): it starts at once, or waits for the Job actually submitted
    // before it (the predecessor's predecessor, when the one between was reused).
    void chain_to(const SubmitRequest& request, const std::string& job, const std::string& after,
                  const std::string& queue) {
        std::vector<std::string> argv = base();
        if (!request.depends_on) {
            argv.insert(argv.end(), {"patch", "job", job, "--type=merge", "-p", release_patch(queue)});
            (void)checked(argv, "patch");
        } else if (*request.depends_on != after) {
            argv.insert(argv.end(),
                        {"annotate", "job", job, "--overwrite", "trainbench.io/after=" + *request.depends_on});
            (void)checked(argv, "annotate");
        }
    }

    // A top-level scalar of a rendered chart's values.yaml ("" when absent or not a scalar).
    static std::string top_value(const yaml::Node& values, std::string_view key) {
        const yaml::Node* v = values.find(key);
        return v && v->is_scalar() ? v->scalar : std::string();
    }

    // `helm install RELEASE CHART` of the chart render made for the stage (kubernetes.install:
    // helm); the chart names its objects after the release, which is the Job's name.
    SubmitResult install_chart(const SubmitRequest& request) {
        const fs::path chart = request.stage_dir / request.entrypoint.parent_path();
        const std::string release = kubernetes::release_in_values(read_file(chart / "values.yaml"));
        if (release.empty())
            throw RuntimeError(fmt::format("'{}' names no release", (chart / "values.yaml").string()),
                               "the chart's values.yaml needs 'release: NAME' (templates/helm/values.yaml)");
        std::vector<std::string> argv = helm_base();
        argv.insert(argv.end(), {"install", release, chart.string(), "-o", "json"});
        (void)checked(argv, "install");
        return {release, fmt::format("helm release {} installed", release)};
    }

    void uninstall_releases(const std::string& selector) {
        std::vector<std::string> argv = base();
        argv.insert(argv.end(), {"get", "job", "-l", selector, "-o", "json"});
        ProcessResult r;
        try {
            r = m_run.run(command(argv));
        } catch (const RuntimeError&) {
            return;  // no kubectl: the delete that follows says what to do
        }
        if (!r.ok()) return;  // the delete that follows says what is wrong
        for (const std::string& release : kubernetes::helm_releases(r.out)) {
            argv = helm_base();
            argv.insert(argv.end(), {"uninstall", release});
            (void)checked(argv, "uninstall");
        }
    }

    std::vector<std::string> helm_base() const {
        std::vector<std::string> argv = {"helm"};
        if (!m_context.empty()) argv.insert(argv.end(), {"--kube-context", m_context});
        if (!m_namespace.empty()) argv.insert(argv.end(), {"--namespace", m_namespace});
        return argv;
    }

    std::vector<std::string> base() const {
        std::vector<std::string> argv = {"kubectl"};
        if (!m_context.empty()) argv.insert(argv.end(), {"--context", m_context});
        if (!m_namespace.empty()) argv.insert(argv.end(), {"--namespace", m_namespace});
        return argv;
    }

    ProcessResult checked(const std::vector<std::string>& argv, const char* verb) {
        ProcessResult r;
        try {
            r = m_run.run(command(argv));
        } catch (const RuntimeError& e) {
            throw RuntimeError(e.what(),
                               argv.front() == "helm"
                                   ? "install helm (scripts/install-tools.sh), or set kubernetes.install: kubectl"
                                   : "install kubectl, or use a target whose scheduler is slurm or local");
        }
        if (r.ok()) return r;
        std::string message = kubectl_message(r);
        if (kubernetes::is_unreachable_error(r.err))
            throw RuntimeError(fmt::format("no Kubernetes cluster is reachable: {}", message),
                               m_context.empty()
                                   ? "check 'kubectl config current-context', or pass --context NAME"
                                   : fmt::format("check that context '{}' exists and its API server is up", m_context));
        throw RuntimeError(fmt::format("{} {} failed: {}", argv.front(), verb, message));
    }

    Runner m_run;
    std::string m_context;
    std::string m_namespace;
};

}  // namespace

std::unique_ptr<Backend> make_kubernetes_backend(const BackendOptions& options) {
    return std::make_unique<KubernetesBackend>(options);
}

}  // namespace trainbench::backend
