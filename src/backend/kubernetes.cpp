// The Kubernetes backend: kubectl apply of the rendered manifests, one
// `kubectl get job,pods -l trainbench.io/run-id in (...) -o json` per status
// poll, kubectl logs into the run directory, kubectl delete. The manifests
// carry the labels trainbench.io/run-id and trainbench.io/stage (render's
// contract, docs/runs.md).
#include "backend/common.hpp"
#include "backend/kubernetes_logs.hpp"
#include "backend/parsers.hpp"

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
            const fs::path values_file = request.stage_dir / request.entrypoint.parent_path() / "values.yaml";
            Diagnostics d;
            const yaml::Node values = yaml::parse_file(values_file, values_file.string(), d);
            d.throw_if_errors("the chart's values");
            SubmitResult installed = install_chart(request, values);
            // Only a chart rendered to wait for another stage ("after: NAME" in its values).
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
    SubmitResult install_chart(const SubmitRequest& request, const yaml::Node& values) {
        const fs::path chart = request.stage_dir / request.entrypoint.parent_path();
        const std::string release = kubernetes::release_in_values(values);
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
