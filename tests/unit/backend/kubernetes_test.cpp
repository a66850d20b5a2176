// The Kubernetes backend against a FAKE kubectl (a recorded command-line fake:
// canned JSON in tests/unit/backend/data/fake_kubectl_*.json; no live API
// server was used). The "no cluster" messages are the real kubectl client's.
#include "backend/parsers.hpp"
#include "support/fake_process_runner.hpp"

#include <trainbench/backend.hpp>
#include <trainbench/core.hpp>
#include <trainbench/yaml.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <tuple>

namespace fs = std::filesystem;
using namespace trainbench;
using namespace trainbench::backend;
using trainbench::testing::fail;
using trainbench::testing::FakeProcessRunner;
using trainbench::testing::ok;

namespace {

std::string data(const std::string& name) {
    return read_file(fs::path(TRAINBENCH_SOURCE_DIR) / "tests/unit/backend/data" / name);
}

std::unique_ptr<Backend> make(FakeProcessRunner& fake, std::string context = "", std::string ns = "") {
    BackendOptions o;
    o.kube_context = std::move(context);
    o.kube_namespace = std::move(ns);
    o.sleep = [](std::chrono::milliseconds) {};
    return make_backend("kubernetes", fake, o);
}

// kubectl logs --timestamps: every line after kubelet's fixed-width RFC 3339 time.
std::string stamped(const std::string& text) {
    std::string out;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t nl = text.find('\n', pos);
        out += "2025-01-01T00:00:00.000000000Z " + text.substr(pos, nl + 1 - pos);
        pos = nl + 1;
    }
    return out;
}

fs::path run_dir(const std::string& id) {
    return fs::temp_directory_path() / "tb-k8s-test" / id;
}

}  // namespace

TEST(KubernetesParsers, JobAndPodStatesFromKubectlGetJson) {
    std::vector<JobStatus> s = kubernetes::parse_get_json(data("fake_kubectl_get_jobs_pods.json"));
    ASSERT_EQ(s.size(), 5u);
    EXPECT_EQ(s[0].job_id, "gpt3-done-aaaaaa-train");
    EXPECT_EQ(s[0].state, JobState::completed);
    EXPECT_EQ(s[0].exit_code, 0);
    EXPECT_EQ(s[0].nodes, "gke-a3-pool-1,gke-a3-pool-2");
    EXPECT_EQ(s[0].ended, "2026-11-22T02:40:10Z");
    EXPECT_EQ(s[1].state, JobState::failed);
    EXPECT_EQ(s[1].exit_code, 3) << "from the pod matched through its owner reference";
    EXPECT_EQ(s[1].reason,
              "BackoffLimitExceeded: Job has reached the specified backoff limit; pod gpt3-fail-bbbbbb-train-0-abcde: "
              "container trainer exited with code 3 (Error)")
        << "the Job's reason, then the failed pod's own";
    EXPECT_EQ(s[2].state, JobState::running);
    EXPECT_EQ(s[3].state, JobState::pending);
    EXPECT_EQ(s[3].reason, "ImagePullBackOff");
    EXPECT_EQ(s[4].state, JobState::timeout) << "DeadlineExceeded";
}

// Kubernetes 1.31+ marks a Job SuccessCriteriaMet while its pods finish, and only then
// Complete with a completionTime: the success is its end (reuse measures age from it).
TEST(KubernetesParsers, AJobMetItsSuccessCriteriaEndsWhenTheConditionWasSet) {
    const char* json = R"({"kind": "List", "items": [{"kind": "Job", "metadata": {"name": "v-validate"},
        "status": {"startTime": "2026-11-26T01:00:00Z", "succeeded": 2, "conditions": [
          {"type": "SuccessCriteriaMet", "status": "True", "reason": "CompletionsReached",
           "lastTransitionTime": "2026-11-26T01:05:07Z"}]}}]})";
    std::vector<JobStatus> s = kubernetes::parse_get_json(json);
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].state, JobState::completed);
    EXPECT_EQ(s[0].ended, "2026-11-26T01:05:07Z");
}

TEST(KubernetesParsers, ApplyOutputNamesTheJob) {
    EXPECT_EQ(kubernetes::parse_apply_json(data("fake_kubectl_apply.json")), "gpt3-a3mega-aaaaaa-train");
    EXPECT_EQ(kubernetes::parse_apply_json(R"({"kind":"ConfigMap","metadata":{"name":"x"}})"), std::nullopt);
    EXPECT_EQ(kubernetes::parse_apply_json("not json"), std::nullopt);
}

TEST(KubernetesParsers, OnlyKubernetesObjectsCountAsManifests) {
    EXPECT_TRUE(kubernetes::is_manifest_yaml("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"));
    EXPECT_TRUE(kubernetes::is_manifest_yaml("# c\n---\nkind: Service\napiVersion: v1"));
    EXPECT_FALSE(kubernetes::is_manifest_yaml("run:\n  name: gpt3\ntrainer:\n  num_nodes: 16\n"));
    EXPECT_FALSE(kubernetes::is_manifest_yaml("model:\n  kind: gpt\n  apiVersion: 2\n"));
    EXPECT_FALSE(kubernetes::is_manifest_yaml(""));
}

// The release comes from the chart's values read as YAML: a top-level key only, quoting and
// comments as YAML has them, and nothing Helm would refuse as a release name.
TEST(KubernetesParsers, TheReleaseIsTheTopLevelReleaseKeyOfTheValues) {
    auto release = [](std::string_view text) {
        Diagnostics d;
        const yaml::Node values = yaml::parse(text, "values.yaml", d);
        EXPECT_FALSE(d.has_errors()) << text;
        return kubernetes::release_in_values(values);
    };
    EXPECT_EQ(release("release: gpt3-126m-ab12cd-train\nafter: x\n"), "gpt3-126m-ab12cd-train");
    EXPECT_EQ(release("image: x\nrelease: \"quoted-1\"  # a comment\n"), "quoted-1");
    // Not at the top level, not a scalar, absent, not a DNS label, longer than Helm's 53.
    EXPECT_EQ(release("job:\n  release: nested\n"), "");
    EXPECT_EQ(release("release: [a, b]\n"), "");
    EXPECT_EQ(release("image: x\n"), "");
    EXPECT_EQ(release("release: Upper_Case\n"), "");
    EXPECT_EQ(release("release: $(touch /tmp/x)\n"), "");
    EXPECT_EQ(release("release: " + std::string(54, 'a') + "\n"), "");
    EXPECT_EQ(release("release: " + std::string(53, 'a') + "\n"), std::string(53, 'a'));
}

TEST(KubernetesParsers, RealKubectlMessagesWithoutAClusterAreRecognised) {
    EXPECT_TRUE(kubernetes::is_unreachable_error(data("kubectl_connection_refused.txt")));
    EXPECT_TRUE(kubernetes::is_unreachable_error(data("kubectl_no_context.txt")));
    EXPECT_FALSE(kubernetes::is_unreachable_error("Error from server (Forbidden): jobs.batch is forbidden"));
}

TEST(KubernetesBackend, SubmitAppliesTheTopLevelManifestsWithContextAndNamespace) {
    FakeProcessRunner fake;
    fake.on({"kubectl"}, ok(data("fake_kubectl_apply.json")));
    auto b = make(fake, "gke-a3", "llm");
    SubmitRequest r;
    r.run_dir = run_dir("20261122T023000Z-submit");  // its own: the cancel test removes -aaaaaa
    r.stage = "train";
    r.stage_dir = r.run_dir / "rendered/train";
    r.entrypoint = "manifests.yaml";
    r.files = {"manifests.yaml", "launch.sh", "extra.yaml", "nemo-config.yaml", "chart/templates/job.yaml"};
    fs::create_directories(r.stage_dir);
    write_file_atomic(r.stage_dir / "extra.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\n");
    // A framework config beside the manifests is no Kubernetes object: kubectl apply would reject it.
    write_file_atomic(r.stage_dir / "nemo-config.yaml", "trainer:\n  num_nodes: 16\n");
    SubmitResult res = b->submit(r);
    EXPECT_EQ(res.job_id, "gpt3-a3mega-aaaaaa-train");
    ASSERT_EQ(fake.requests.size(), 1u);
    EXPECT_EQ(fake.requests[0].argv,
              (std::vector<std::string>{"kubectl", "--context", "gke-a3", "--namespace", "llm", "apply", "-o", "json",
                                        "-f", (r.stage_dir / "manifests.yaml").string(), "-f",
                                        (r.stage_dir / "extra.yaml").string()}));
}

TEST(KubernetesBackend, StatusIsOneKubectlGetForEveryRun) {
    FakeProcessRunner fake;
    fake.on({"kubectl"}, ok(data("fake_kubectl_get_jobs_pods.json")));
    auto b = make(fake);
    std::vector<JobQuery> q = {{"gpt3-done-aaaaaa-train", run_dir("20261122T023000Z-aaaaaa"), "train"},
                               {"gpt3-fail-bbbbbb-train", run_dir("20261122T023100Z-bbbbbb"), "train"},
                               {"gpt3-gone-ffffff-train", run_dir("20261122T023500Z-ffffff"), "train"}};
    std::vector<JobStatus> s = b->status(q);
    ASSERT_EQ(fake.requests.size(), 1u);
    EXPECT_EQ(fake.requests[0].argv,
              (std::vector<std::string>{"kubectl", "get", "job,pods", "-l",
                                        "trainbench.io/run-id in (20261122T023000Z-aaaaaa,20261122T023100Z-bbbbbb,"
                                        "20261122T023500Z-ffffff)",
                                        "-o", "json"}));
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0].state, JobState::completed);
    EXPECT_EQ(s[1].state, JobState::failed);
    EXPECT_EQ(s[2].state, JobState::unknown);
    EXPECT_EQ(s[2].reason, "no such Job in the cluster");
}

TEST(KubernetesBackend, NoReachableClusterIsAClearError) {
    FakeProcessRunner fake;
    fake.on({"kubectl"}, fail(1, data("kubectl_connection_refused.txt")));
    auto b = make(fake);
    try {
        (void)b->status({{"x", run_dir("20261122T023000Z-aaaaaa"), "train"}});
        FAIL();
    } catch (const RuntimeError& e) {
        EXPECT_EQ(
            std::string(e.what()),
            "no Kubernetes cluster is reachable: The connection to the server localhost:8080 was refused - did you "
            "specify the right host or port?");
        EXPECT_EQ(e.hint(), "check 'kubectl config current-context', or pass --context NAME");
    }
}

TEST(KubernetesBackend, AnUnknownContextNamesTheContext) {
    FakeProcessRunner fake;
    fake.on({"kubectl"}, fail(1, data("kubectl_no_context.txt")));
    auto b = make(fake, "nosuch");
    try {
        (void)b->status({{"x", run_dir("20261122T023000Z-aaaaaa"), "train"}});
        FAIL();
    } catch (const RuntimeError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "no Kubernetes cluster is reachable: Error in configuration: context was not found for specified "
                  "context: nosuch");
        EXPECT_EQ(e.hint(), "check that context 'nosuch' exists and its API server is up");
    }
}

TEST(KubernetesBackend, MissingKubectlSaysWhatToDo) {
    FakeProcessRunner fake;
    fake.missing_program = true;
    auto b = make(fake);
    try {
        b->cancel({{"job-a", run_dir("20261122T023000Z-aaaaaa"), "train"}});
        FAIL();
    } catch (const RuntimeError& e) {
        EXPECT_NE(e.hint().find("install kubectl"), std::string::npos);
    }
}

TEST(KubernetesBackend, CancelDeletesTheRunsObjectsAndLogsAreFetchedIntoTheRunDirectory) {
    FakeProcessRunner fake;
    fake.on({"kubectl", "--namespace", "llm", "delete"}, ok("job.batch \"job-a\" deleted\n"));
    fake.on({"kubectl", "--namespace", "llm", "logs", "-l", "job-name=job-a"},
            ok("[pod/job-a-0-xyz/training] step 1 loss 10.5\n"));
    fake.on(
        {"kubectl", "--namespace", "llm", "logs", "-l", "job-name=job-a,batch.kubernetes.io/job-completion-index=0"},
        ok(stamped("step 1 loss 10.5\n==> trainbench file: logs/train/dllogger/rank-0/dllogger.json <==\n"
                   "DLLL {\"step\": 1}\n<== trainbench file end\nafter\n==> trainbench file: ../escape <==\nx\n"
                   "<== trainbench file end\n")));
    auto b = make(fake, "", "llm");
    fs::path dir = run_dir("20261122T023000Z-aaaaaa");
    fs::remove_all(dir);
    b->cancel({{"job-a", dir, "train"}});
    EXPECT_EQ(fake.requests[0].argv[3], "get") << "first the Helm releases among the run's Jobs (none here)";
    fake.requests.erase(fake.requests.begin());
    EXPECT_EQ(fake.requests[0].argv,
              (std::vector<std::string>{"kubectl", "--namespace", "llm", "delete", "job,service,configmap", "-l",
                                        "trainbench.io/run-id in (20261122T023000Z-aaaaaa)", "--ignore-not-found",
                                        "--wait=false"}));
    std::vector<fs::path> files = b->logs({"job-a", dir, "train"});
    ASSERT_EQ(fake.requests.size(), 3u);
    EXPECT_EQ(fake.requests[1].argv,
              (std::vector<std::string>{"kubectl", "--namespace", "llm", "logs", "-l", "job-name=job-a",
                                        "--all-containers", "--prefix", "--tail=-1", "--max-log-requests=64"}));
    EXPECT_EQ(fake.requests[2].argv,
              (std::vector<std::string>{"kubectl", "--namespace", "llm", "logs", "-l",
                                        "job-name=job-a,batch.kubernetes.io/job-completion-index=0", "-c", "training",
                                        "--tail=-1", "--timestamps"}));
    ASSERT_EQ(files.size(), 3u);
    EXPECT_EQ(files[0], dir / "logs/train/dllogger/rank-0/dllogger.json");
    EXPECT_EQ(read_file(files[0]), "DLLL {\"step\": 1}\n") << "the file the exit trap copied into the log";
    EXPECT_EQ(read_file(dir / "logs/train/kubectl-job-a.log"), "[pod/job-a-0-xyz/training] step 1 loss 10.5\n");
    EXPECT_EQ(read_file(dir / "logs/train/training-0.log").substr(0, 17), "step 1 loss 10.5\n");
    EXPECT_FALSE(fs::exists(dir / "logs/escape")) << "a path outside logs/ is ignored";
    fs::remove_all(dir);
}

TEST(KubernetesBackend, FollowAppendsOnlyTheLinesNotWrittenYet) {
    FakeProcessRunner fake;
    const std::vector<std::string> rank0 = {"kubectl", "logs", "-l",
                                            "job-name=job-f,batch.kubernetes.io/job-completion-index=0"};
    // Three answers, as the pod prints more: the API's --since-time has whole seconds, so the
    // second answer repeats the line of second :01 that the first already had.
    fake.on(rank0, ok("2025-01-01T00:00:01.000000100Z a\n2025-01-01T00:00:01.000000100Z b\n"));
    fake.on(rank0, ok("2025-01-01T00:00:01.000000100Z a\n2025-01-01T00:00:01.000000100Z b\n"
                      "2025-01-01T00:00:01.000000200Z c\n2025-01-01T00:00:02.000000000Z "
                      "==> trainbench stdout: logs/train/train.log <==\n2025-01-01T00:00:03.000000000Z part"));
    fake.on(rank0, ok("2025-01-01T00:00:03.000000000Z partial now whole\n"));
    auto b = make(fake);
    fs::path dir = run_dir("20261122T023000Z-ffffff");
    fs::remove_all(dir);
    for (int i = 0; i < 3; ++i) b->follow({"job-f", dir, "train"});
    ASSERT_EQ(fake.requests.size(), 3u);
    EXPECT_EQ(fake.requests[0].argv.back(), "--timestamps") << "the first call reads the whole log";
    EXPECT_EQ(fake.requests[1].argv.back(), "--since-time=2025-01-01T00:00:01Z");
    EXPECT_EQ(fake.requests[2].argv.back(), "--since-time=2025-01-01T00:00:02Z");
    const std::string want = "a\nb\nc\n==> trainbench stdout: logs/train/train.log <==\npartial now whole\n";
    EXPECT_EQ(read_file(dir / "logs/train/training-0.log"), want);
    EXPECT_EQ(read_file(dir / "logs/train/train.log"), want) << "rank 0's stdout where metrics.path names it";
    fs::remove_all(dir);
}

TEST(KubernetesParsers, NewLogTextSkipsWhatTheCursorPassed) {
    kubernetes::LogCursor c{"2025-01-01T00:00:05.000000000Z", 2};
    std::string text = kubernetes::new_log_text(
        "2025-01-01T00:00:04.000000000Z old\n2025-01-01T00:00:05.000000000Z x\n"
        "2025-01-01T00:00:05.000000000Z y\n2025-01-01T00:00:05.000000000Z z\n"
        "not stamped\n2025-01-01T00:00:06.000000000Z w\n",
        c);
    EXPECT_EQ(text, "z\nw\n");
    EXPECT_EQ(c.timestamp, "2025-01-01T00:00:06.000000000Z");
    EXPECT_EQ(c.same, 1);
    EXPECT_EQ(kubernetes::stdout_file_in_log("x\n==> trainbench stdout: ../etc <==\n"), std::nullopt);
    EXPECT_EQ(kubernetes::stdout_file_in_log("==> trainbench stdout: logs/t/a.log <==\n"), "logs/t/a.log");
}

TEST(KubernetesParsers, FilesInTheLogAreTheLinesBetweenMarkers) {
    auto f = kubernetes::files_in_log(
        "a\n==> trainbench file: logs/t/x.json <==\r\n1\n2\n<== trainbench file end\nb\n"
        "==> trainbench file: /etc/passwd <==\nno\n<== trainbench file end\n"
        "==> trainbench file: logs/t/unterminated <==\n3");
    ASSERT_EQ(f.size(), 2u);
    EXPECT_EQ(f[0].first, "logs/t/x.json");
    EXPECT_EQ(f[0].second, "1\n2\n");
    EXPECT_EQ(f[1].first, "logs/t/unterminated");
    EXPECT_EQ(f[1].second, "3\n");
}

namespace {

// `kubectl get job,pods -o json` of a run's stage Jobs: name, suspended, the Job it waits for
// (empty: none), and its condition ("" while active).
std::string chain_json(const std::vector<std::tuple<std::string, bool, std::string, std::string>>& jobs) {
    std::string items;
    for (const auto& [name, suspend, after, condition] : jobs) {
        std::string notes =
            after.empty() ? "{}"
                          : "{\"trainbench.io/after\": \"" + after + "\", \"trainbench.io/dependency\": \"afterok\"}";
        std::string conds = condition.empty() ? "[]"
                                              : "[{\"type\": \"" + condition +
                                                    "\", \"status\": \"True\", \"reason\": \"BackoffLimitExceeded\"}]";
        items += std::string(items.empty() ? "" : ",") + "{\"kind\": \"Job\", \"metadata\": {\"name\": \"" + name +
                 "\", \"annotations\": " + notes + "}, \"spec\": {\"suspend\": " + (suspend ? "true" : "false") +
                 "}, \"status\": {\"conditions\": " + conds + "}}";
    }
    return "{\"kind\": \"List\", \"items\": [" + items + "]}";
}

}  // namespace

TEST(KubernetesChain, AStageStartsWhenTheOneBeforeCompletedAndNotBefore) {
    std::vector<kubernetes::ChainStep> steps =
        kubernetes::chain_steps(chain_json({{"v", false, "", "Complete"}, {"p", true, "v", ""}, {"t", true, "p", ""}}));
    ASSERT_EQ(steps.size(), 2u);
    EXPECT_EQ(steps[0].job, "p");
    EXPECT_EQ(steps[0].action, kubernetes::ChainStep::Action::release);
    EXPECT_EQ(steps[1].job, "t");
    EXPECT_EQ(steps[1].action, kubernetes::ChainStep::Action::wait);
    EXPECT_NE(steps[1].reason.find("waiting for Job p (afterok"), std::string::npos) << steps[1].reason;
    // A released Job (suspend false) is no longer the chain's business.
    EXPECT_TRUE(kubernetes::chain_steps(chain_json({{"v", false, "", "Complete"}, {"p", false, "v", ""}})).empty());
}

TEST(KubernetesChain, AFailedStageCancelsEveryStageAfterIt) {
    std::vector<kubernetes::ChainStep> steps =
        kubernetes::chain_steps(chain_json({{"v", false, "", "Failed"}, {"p", true, "v", ""}, {"t", true, "p", ""}}));
    ASSERT_EQ(steps.size(), 2u);
    for (const kubernetes::ChainStep& s : steps) {
        EXPECT_EQ(s.action, kubernetes::ChainStep::Action::cancel) << s.job;
        EXPECT_NE(s.reason.find("dependency never satisfied"), std::string::npos) << s.reason;
    }
}

TEST(KubernetesBackend, StatusReleasesAWaitingStageAndDeletesOneThatCannotRun) {
    FakeProcessRunner fake;
    fake.on(
        {"kubectl", "get"},
        ok(chain_json(
            {{"v", false, "", "Complete"}, {"p", true, "v", ""}, {"x", false, "", "Failed"}, {"t", true, "x", ""}})));
    fake.on({"kubectl", "patch"}, ok(""));
    fake.on({"kubectl", "delete"}, ok(""));
    auto b = make(fake);
    fs::path dir = run_dir("20261122T023000Z-aaaaaa");
    std::vector<JobStatus> s = b->status({{"p", dir, "prepare-data"}, {"t", dir, "train"}});
    ASSERT_EQ(fake.requests.size(), 3u);
    EXPECT_EQ(fake.requests[1].argv, (std::vector<std::string>{"kubectl", "patch", "job", "p", "--type=merge", "-p",
                                                               R"({"spec":{"suspend":false}})"}));
    EXPECT_EQ(fake.requests[2].argv, (std::vector<std::string>{"kubectl", "delete", "job/t", "service/t", "configmap/t",
                                                               "--ignore-not-found", "--wait=false"}));
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].state, JobState::pending);
    EXPECT_EQ(s[1].state, JobState::cancelled);
}

TEST(KubernetesBackend, AWaitingStageSubmittedWithoutItsPredecessorStartsAtOnce) {
    FakeProcessRunner fake;
    fake.on({"kubectl", "apply"}, ok(chain_json({{"it-t-aaaaaa", true, "it-p-aaaaaa", ""}})));
    fake.on({"kubectl", "patch"}, ok(""));
    auto b = make(fake);
    SubmitRequest r;
    r.run_dir = run_dir("20261122T023000Z-aaaaaa");
    r.stage = "train";
    r.stage_dir = r.run_dir / "rendered/train";
    r.entrypoint = "manifests.yaml";
    EXPECT_EQ(b->submit(r).job_id, "it-t-aaaaaa");
    ASSERT_EQ(fake.requests.size(), 2u);
    EXPECT_EQ(fake.requests[1].argv[1], "patch");
    // Chained after the stage it names: left suspended for status() to release.
    r.depends_on = "it-p-aaaaaa";
    (void)b->submit(r);
    EXPECT_EQ(fake.requests.size(), 3u);
}

TEST(KubernetesBackend, HelmInstallsTheChartAndCancelUninstallsTheRelease) {
    FakeProcessRunner fake;
    fake.on({"helm"}, ok("{}"));
    fake.on({"kubectl", "--context", "gke-a3", "--namespace", "llm", "get"}, ok(R"({"kind": "List", "items": [
                {"kind": "Job", "metadata": {"name": "gpt3-3fa2c1", "labels": {"app.kubernetes.io/managed-by": "Helm"},
                 "annotations": {"meta.helm.sh/release-name": "gpt3-3fa2c1"}}},
                {"kind": "Job", "metadata": {"name": "applied", "labels": {}}}]})"));
    fake.on({"kubectl", "--context", "gke-a3", "--namespace", "llm", "delete"}, ok(""));
    auto b = make(fake, "gke-a3", "llm");
    SubmitRequest r;
    r.run_dir = run_dir("20261122T023000Z-3fa2c1");
    r.stage = "train";
    r.stage_dir = r.run_dir / "rendered/train";
    r.entrypoint = "chart/Chart.yaml";
    fs::create_directories(r.stage_dir / "chart");
    write_file_atomic(r.stage_dir / "chart/values.yaml", "# values\nrelease: \"gpt3-3fa2c1\"\nrecipe: gpt3\n");
    SubmitResult s = b->submit(r);
    EXPECT_EQ(s.job_id, "gpt3-3fa2c1");
    ASSERT_EQ(fake.requests.size(), 1u);
    EXPECT_EQ(fake.requests[0].argv,
              (std::vector<std::string>{"helm", "--kube-context", "gke-a3", "--namespace", "llm", "install",
                                        "gpt3-3fa2c1", (r.stage_dir / "chart").string(), "-o", "json"}));
    b->cancel({{"gpt3-3fa2c1", r.run_dir, "train"}});
    ASSERT_EQ(fake.requests.size(), 4u);
    EXPECT_EQ(fake.requests[2].argv, (std::vector<std::string>{"helm", "--kube-context", "gke-a3", "--namespace", "llm",
                                                               "uninstall", "gpt3-3fa2c1"}));
    EXPECT_EQ(fake.requests[3].argv[5], "delete") << "then the objects not in a release";
    write_file_atomic(r.stage_dir / "chart/values.yaml", "release: Not_A_Label\n");
    EXPECT_THROW((void)b->submit(r), RuntimeError);
    fs::remove_all(r.run_dir);
}
