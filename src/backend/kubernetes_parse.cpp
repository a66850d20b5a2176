// kubectl's side of the Kubernetes backend, as pure functions (declared in parsers.hpp):
// Job and pod status from `kubectl get -o json`, the Job `kubectl apply` created, files
// and stdout the launch script copied into a container's log, the Helm release of a
// rendered chart, and the stage chain's decisions (which waiting Job to release or cancel).
#include "backend/common.hpp"
#include "backend/parsers.hpp"

#include <trainbench/backend.hpp>
#include <trainbench/yaml.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <set>

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

std::string release_in_values(const yaml::Node& values) {
    const yaml::Node* node = values.find("release");
    if (node == nullptr || !node->is_scalar()) return {};
    const std::string& v = node->scalar;
    bool label = !v.empty() && v.size() <= 53 && std::all_of(v.begin(), v.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    });
    return label ? v : std::string();
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

}  // namespace trainbench::backend
