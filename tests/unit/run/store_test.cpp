// The run store: fresh directories, the journal and its replay after crashes,
// resolving runs, submitting and refreshing through a fake backend.
#include "support/fake_process_runner.hpp"

#include <trainbench/run.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <set>

namespace fs = std::filesystem;
using namespace trainbench;
using trainbench::testing::FakeProcessRunner;
using trainbench::testing::ok;

namespace {

struct Store {
    fs::path root;
    FakeProcessRunner git;
    run::RunStore store;
    Store()
        : root(fs::temp_directory_path() /
               ("tb-run-test-" + std::to_string(::getpid()) + "-" +
                std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()))),
          store(root) {
        git.on({"git"}, ok("0123456789abcdef0123456789abcdef01234567\n"));
    }
    ~Store() {
        std::error_code ec;
        fs::remove_all(root, ec);
    }
    run::RunInfo create(const std::string& name = "gpt") {
        run::RunMetadata m;
        m.recipe_name = name;
        m.recipe_file = "recipes/x.yaml";
        m.backend = "slurm";
        m.resolved_yaml = "name: gpt\n";
        return store.create(m, git);
    }
};

// A backend that records calls and answers from a table (a fake; no scheduler).
struct FakeBackend final : backend::Backend {
    std::map<std::string, backend::JobStatus>* states;
    std::vector<backend::SubmitRequest>* submitted;
    int* status_calls;
    std::vector<backend::FoundJob> found;
    std::string_view name() const override { return "slurm"; }
    backend::SubmitResult submit(const backend::SubmitRequest& r) override {
        submitted->push_back(r);
        if (r.stage == "refused")
            throw RuntimeError("sbatch refused stage 'refused': Invalid partition name specified");
        return {std::to_string(100 + submitted->size()), ""};
    }
    std::vector<backend::JobStatus> status(const std::vector<backend::JobQuery>& jobs) override {
        ++*status_calls;
        std::vector<backend::JobStatus> out;
        for (const auto& q : jobs) {
            backend::JobStatus s = (*states)[q.job_id];
            s.job_id = q.job_id;
            out.push_back(s);
        }
        return out;
    }
    void cancel(const std::vector<backend::JobQuery>&) override {}
    std::vector<fs::path> logs(const backend::JobQuery&) override { return {}; }
    std::vector<backend::FoundJob> find_jobs(const std::string&, const backend::JobQuery&) override { return found; }
};

struct Fakes {
    std::map<std::string, backend::JobStatus> states;
    std::vector<backend::SubmitRequest> submitted;
    int status_calls = 0;
    std::vector<backend::FoundJob> found;
    run::BackendProvider provider() {
        return [this](const run::RunInfo&, ProcessRunner&) {
            auto b = std::make_unique<FakeBackend>();
            b->states = &states;
            b->submitted = &submitted;
            b->status_calls = &status_calls;
            b->found = found;
            return b;
        };
    }
};

render::RenderedJob job(const std::string& stage, const std::string& dependency = "") {
    render::RenderedJob j;
    j.stage = stage;
    j.entrypoint = "job.sbatch";
    j.files = {{"job.sbatch", "#!/bin/bash\n", true}};
    j.dependency = dependency;
    return j;
}

backend::JobStatus state(backend::JobState s, std::optional<int> code = {}) {
    backend::JobStatus st;
    st.state = s;
    st.exit_code = code;
    return st;
}

}  // namespace

TEST(RunStore, EveryRunGetsAFreshDirectoryNamedByTimeAndShortId) {
    Store s;
    std::set<fs::path> dirs;
    for (int i = 0; i < 20; ++i) dirs.insert(s.create().dir);
    EXPECT_EQ(dirs.size(), 20u);
    run::RunInfo r = s.create();
    EXPECT_EQ(r.dir.parent_path().filename(), "gpt");
    EXPECT_EQ(r.run_id.size(), 23u);
    EXPECT_EQ(r.run_id.substr(16), "-" + r.short_id);
    EXPECT_TRUE(fs::exists(r.dir / "recipe.resolved.yaml"));
    EXPECT_EQ(read_file(r.dir / "journal.jsonl").substr(0, 44), "{\"format\":\"trainbench-journal\",\"version\":1}\n");
    nlohmann::json meta = nlohmann::json::parse(read_file(r.dir / "run.json"));
    EXPECT_EQ(meta["git_commit"], "0123456789abcdef0123456789abcdef01234567");
    EXPECT_EQ(meta["tool_version"], std::string(version()));
    EXPECT_TRUE(fs::exists(r.dir / "commands/001.json")) << "the git command is recorded";
    EXPECT_EQ(s.store.list().size(), 21u);
}

TEST(RunStore, AJournalFromANewerTrainbenchIsRefusedClearly) {
    Store s;
    run::RunInfo r = s.create();
    write_file_atomic(r.dir / "journal.jsonl", "{\"format\":\"trainbench-journal\",\"version\":2}\n");
    try {
        (void)run::load_run(r.dir);
        FAIL();
    } catch (const RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find("journal version 2, newer than this trainbench reads (1)"),
                  std::string::npos);
        EXPECT_EQ(e.hint(), "upgrade trainbench to read this run");
    }
}

TEST(RunStore, ATornLastLineAndAMissingRunJsonAreTolerated) {
    Store s;
    run::RunInfo r = s.create();
    run::write_rendered(r, {job("train")});
    run::append_event(r.dir, {{"event", "submitting"}, {"stage", "train"}, {"job_name", "x"}});
    run::append_event(r.dir, {{"event", "submitted"}, {"stage", "train"}, {"job_id", "7"}});
    std::ofstream(r.dir / "journal.jsonl", std::ios::app) << "{\"event\":\"sta";  // crash mid-write
    fs::remove(r.dir / "run.json");
    run::RunInfo loaded = run::load_run(r.dir);
    ASSERT_EQ(loaded.stages.size(), 1u);
    EXPECT_EQ(loaded.stages[0].job_id, "7");
    EXPECT_EQ(loaded.state(), "PENDING");
}

TEST(RunStore, AnInterruptedSubmissionShowsAsUnknown) {
    Store s;
    run::RunInfo r = s.create();
    run::append_event(
        r.dir, {{"event", "submitting"}, {"stage", "train"}, {"job_name", "x"}, {"pid", 1}, {"host", "elsewhere"}});
    run::RunInfo loaded = run::load_run(r.dir);
    EXPECT_EQ(loaded.state(), "UNKNOWN");
    EXPECT_EQ(loaded.detail(), "submission interrupted");
    EXPECT_FALSE(loaded.is_final());
}

TEST(RunStore, RunsAreResolvedByShortIdPrefixAndAmbiguityListsTheCandidates) {
    Store s;
    run::RunInfo a = s.create();
    EXPECT_EQ(s.store.resolve(a.short_id), a.dir);
    EXPECT_EQ(s.store.resolve(a.dir.string()), a.dir);
    EXPECT_EQ(s.store.resolve(a.run_id), a.dir);
    for (int i = 0; i < 40; ++i) (void)s.create();
    try {
        (void)s.store.resolve("");
        FAIL();
    } catch (const UsageError&) {
    }
    // 41 runs over 16 first hex digits: some first digit is shared.
    std::map<char, int> first;
    for (const fs::path& p : s.store.list()) ++first[p.filename().string()[17]];
    char shared = 0;
    for (auto [c, n] : first)
        if (n > 1) shared = c;
    ASSERT_NE(shared, 0);
    try {
        (void)s.store.resolve(std::string(1, shared));
        FAIL();
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("is ambiguous: it matches 'gpt/"), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)s.store.resolve("zzzzzz"), UsageError);
}

TEST(RunOperations, StagesAreChainedAndJournaledBeforeAndAfterSubmission) {
    Store s;
    Fakes f;
    run::RunInfo r = s.create();
    std::vector<render::RenderedJob> jobs = {job("prepare"), job("train", "afterok")};
    run::write_rendered(r, jobs);
    run::SubmitOptions o;
    o.secrets = {{"HF_TOKEN", "hunter2"}};
    FakeProcessRunner runner;
    run::submit_stages(r, jobs, f.provider(), runner, o);
    ASSERT_EQ(f.submitted.size(), 2u);
    EXPECT_FALSE(f.submitted[0].depends_on);
    EXPECT_EQ(f.submitted[1].depends_on, "101");
    EXPECT_EQ(f.submitted[1].dependency, "afterok");
    EXPECT_EQ(f.submitted[1].job_name, "trainbench-gpt-" + r.short_id + "-train");
    EXPECT_EQ(f.submitted[1].env.at("HF_TOKEN"), "hunter2");
    EXPECT_EQ(f.submitted[1].env.at("TRAINBENCH_RUN_DIR"), r.dir.string());
    std::string journal = read_file(r.dir / "journal.jsonl");
    EXPECT_LT(journal.find("\"submitting\",\"stage\":\"prepare\""),
              journal.find("\"submitted\",\"stage\":\"prepare\""));
    EXPECT_EQ(journal.find("hunter2"), std::string::npos);
    EXPECT_EQ(r.state(), "PENDING");
}

TEST(RunOperations, ARefusedStageFailsTheRunWithTheSchedulersMessage) {
    Store s;
    Fakes f;
    run::RunInfo r = s.create();
    std::vector<render::RenderedJob> jobs = {job("refused"), job("train", "afterok")};
    run::write_rendered(r, jobs);
    FakeProcessRunner runner;
    EXPECT_THROW(run::submit_stages(r, jobs, f.provider(), runner), RuntimeError);
    run::RunInfo loaded = run::load_run(r.dir);
    EXPECT_EQ(loaded.state(), "FAILED");
    EXPECT_TRUE(loaded.is_final());
    EXPECT_NE(loaded.detail().find("Invalid partition name specified"), std::string::npos);
}

TEST(RunOperations, RefreshAsksTheBackendOnceForEveryRunAndFinishesEndedRuns) {
    Store s;
    Fakes f;
    std::vector<run::RunInfo> runs;
    for (int i = 0; i < 3; ++i) {
        run::RunInfo r = s.create();
        run::write_rendered(r, {job("train")});
        FakeProcessRunner runner;
        run::submit_stages(r, {job("train")}, f.provider(), runner);
        runs.push_back(r);
    }
    f.states["101"] = state(backend::JobState::completed, 0);
    f.states["102"] = state(backend::JobState::failed, 3);
    f.states["103"] = state(backend::JobState::running);
    FakeProcessRunner none;
    run::refresh(runs, f.provider(), none);
    EXPECT_EQ(f.status_calls, 1);
    EXPECT_EQ(runs[0].state(), "COMPLETED");
    EXPECT_EQ(runs[1].state(), "FAILED");
    EXPECT_EQ(runs[1].detail(), "stage 'train' exit code 3");
    EXPECT_EQ(runs[2].state(), "RUNNING");
    EXPECT_EQ(run::load_run(runs[0].dir).finished_state, "COMPLETED");
    // Ended runs are not asked again.
    run::refresh(runs, f.provider(), none);
    EXPECT_EQ(f.status_calls, 2);
}

TEST(RunOperations, AnInterruptedSubmissionIsResolvedByAskingForTheJobName) {
    Store s;
    Fakes f;
    run::RunInfo r = s.create();
    run::append_event(r.dir, {{"event", "submitting"},
                              {"stage", "train"},
                              {"job_name", "trainbench-gpt-x-train"},
                              {"pid", 999999999},
                              {"host", "elsewhere"}});
    f.found = {{"55", "trainbench-gpt-x-train"}};
    f.states["55"] = state(backend::JobState::running);
    std::vector<run::RunInfo> runs{run::load_run(r.dir)};
    FakeProcessRunner none;
    run::refresh(runs, f.provider(), none);
    EXPECT_EQ(runs[0].stages[0].job_id, "55");
    EXPECT_EQ(runs[0].state(), "RUNNING");

    run::RunInfo lost = s.create();
    run::append_event(
        lost.dir,
        {{"event", "submitting"}, {"stage", "train"}, {"job_name", "y"}, {"pid", 999999999}, {"host", "elsewhere"}});
    f.found.clear();
    std::vector<run::RunInfo> more{run::load_run(lost.dir)};
    run::refresh(more, f.provider(), none);
    EXPECT_EQ(more[0].state(), "INTERRUPTED");
    EXPECT_TRUE(more[0].is_final());
}

TEST(RunOperations, SecretsComeFromTheEnvironmentAndMissingOnesAreNamed) {
    ::setenv("TB_TEST_SECRET", "value", 1);
    ::unsetenv("TB_TEST_MISSING");
    catalog::EnvList env = {{"A", "${env:TB_TEST_SECRET}"}, {"B", "plain"}};
    EXPECT_EQ(run::secret_environment(env), (std::map<std::string, std::string>{{"TB_TEST_SECRET", "value"}}));
    env.push_back({"C", "${env:TB_TEST_MISSING}"});
    try {
        (void)run::secret_environment(env);
        FAIL();
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("'TB_TEST_MISSING' (for env 'C')"), std::string::npos) << e.what();
    }
}

TEST(CommandRecorder, RecordsArgvOutputAndOnlyTheNamesOfSecrets) {
    Store s;
    FakeProcessRunner fake;
    fake.on({"sbatch"}, ok("12\n"));
    run::CommandRecorder rec(fake, s.root / "commands");
    ProcessRequest p;
    p.argv = {"sbatch", "--parsable", "job.sbatch"};
    p.env_set = {{"TRAINBENCH_RUN_DIR", "/runs/x"}, {"HF_TOKEN", "hunter2"}};
    (void)rec.run(p);
    (void)rec.run(p);
    std::string text = read_file(s.root / "commands/001.json");
    EXPECT_TRUE(fs::exists(s.root / "commands/002.json"));
    nlohmann::json j = nlohmann::json::parse(text);
    EXPECT_EQ(j["argv"][0], "sbatch");
    EXPECT_EQ(j["exit_code"], 0);
    EXPECT_EQ(j["stdout"], "12\n");
    EXPECT_EQ(j["env"]["TRAINBENCH_RUN_DIR"], "/runs/x");
    EXPECT_EQ(j["env_passed_by_name"][0], "HF_TOKEN");
    EXPECT_EQ(text.find("hunter2"), std::string::npos);
}
