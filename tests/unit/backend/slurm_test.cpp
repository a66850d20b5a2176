// The Slurm backend: parsers fed with text captured from the real local Slurm
// (tests/unit/backend/data), and the command paths driven by a fake runner.
#include "backend/parsers.hpp"
#include "support/fake_process_runner.hpp"
#include "support/temp_dir.hpp"

#include <trainbench/backend.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace trainbench;
using namespace trainbench::backend;
using trainbench::testing::fail;
using trainbench::testing::FakeProcessRunner;
using trainbench::testing::ok;
using trainbench::testing::TempDir;

namespace {

std::string data(const std::string& name) {
    return read_file(fs::path(TRAINBENCH_SOURCE_DIR) / "tests/unit/backend/data" / name);
}

struct Harness {
    FakeProcessRunner fake;
    std::vector<std::chrono::milliseconds> sleeps;
    std::unique_ptr<Backend> make() {
        BackendOptions o;
        o.sleep = [this](std::chrono::milliseconds d) { sleeps.push_back(d); };
        return make_backend("slurm", fake, o);
    }
};

SubmitRequest request(const fs::path& run_dir) {
    SubmitRequest r;
    r.run_dir = run_dir;
    r.run_id = "20261122T023000Z-abc123";
    r.stage = "train";
    r.stage_dir = run_dir / "rendered/train";
    r.entrypoint = "job.sbatch";
    r.job_name = "trainbench-gpt-abc123-train";
    r.env["TRAINBENCH_RUN_DIR"] = run_dir.string();
    return r;
}

}  // namespace

TEST(SlurmParsers, SbatchParsableOutputGivesTheJobId) {
    EXPECT_EQ(slurm::parse_sbatch_output("7\n"), "7");
    EXPECT_EQ(slurm::parse_sbatch_output("1234;cluster-a\n"), "1234");
    EXPECT_EQ(slurm::parse_sbatch_output("sbatch: warning: something\n42\n"), "42");
    EXPECT_EQ(slurm::parse_sbatch_output("Submitted batch job 42\n"), std::nullopt);
    EXPECT_EQ(slurm::parse_sbatch_output(""), std::nullopt);
}

TEST(SlurmParsers, SqueueLinesCapturedFromTheLocalClusterParseIntoStates) {
    std::vector<JobStatus> rows = slurm::parse_squeue(data("squeue_mixed.txt"));
    ASSERT_EQ(rows.size(), 5u);
    EXPECT_EQ(rows[0].job_id, "7");
    EXPECT_EQ(rows[0].state, JobState::completed);
    EXPECT_EQ(rows[0].nodes, "gpu-[1-2]");
    EXPECT_EQ(rows[0].ended, "2026-11-22T02:36:05");
    EXPECT_EQ(rows[1].state, JobState::failed);
    EXPECT_EQ(rows[1].reason, "NonZeroExitCode");
    EXPECT_EQ(rows[2].state, JobState::pending);
    EXPECT_EQ(rows[2].reason, "Dependency");
    EXPECT_EQ(rows[2].started, "");  // N/A
    EXPECT_EQ(rows[3].state, JobState::running);
    EXPECT_EQ(rows[3].ended, "");  // not final: no end time
    EXPECT_EQ(rows[3].source, "squeue");
}

TEST(SlurmParsers, ScontrolOneLineFormOfAFailedJobGivesItsExitCode) {
    std::optional<JobStatus> s = slurm::parse_scontrol_job(data("scontrol_failed.txt"));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->job_id, "8");
    EXPECT_EQ(s->state, JobState::failed);
    EXPECT_EQ(s->exit_code, 3);
    EXPECT_EQ(s->reason, "NonZeroExitCode");
    EXPECT_EQ(s->nodes, "gpu-1");
}

TEST(SlurmParsers, ScontrolMultiLineFormOfACompletedMultiNodeJob) {
    std::optional<JobStatus> s = slurm::parse_scontrol_job(data("scontrol_completed_multiline.txt"));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->state, JobState::completed);
    EXPECT_EQ(s->exit_code, 0);
    EXPECT_EQ(s->nodes, "gpu-[1-2]");
    EXPECT_EQ(s->reason, "");  // "None"
}

TEST(SlurmParsers, ACancelledJobReportsTheSignalAsExitCode) {
    std::optional<JobStatus> s = slurm::parse_scontrol_job(data("scontrol_cancelled.txt"));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->state, JobState::cancelled);
    EXPECT_EQ(s->exit_code, 128 + 15);
}

TEST(SlurmParsers, ADependencyThatCanNeverBeMetStaysPendingWithItsReason) {
    std::optional<JobStatus> s = slurm::parse_scontrol_job(data("scontrol_dep_never.txt"));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->state, JobState::pending);
    EXPECT_EQ(s->reason, "DependencyNeverSatisfied");
    EXPECT_FALSE(s->exit_code);
}

TEST(SlurmParsers, SacctPipeSeparatedLinesSkipJobSteps) {
    std::vector<JobStatus> rows = slurm::parse_sacct(
        "12|COMPLETED|0:0|gpu-[1-2]|2026-11-22T02:36:04|2026-11-22T02:36:05\n"
        "12.batch|COMPLETED|0:0|gpu-1|2026-11-22T02:36:04|2026-11-22T02:36:05\n"
        "13|CANCELLED by 0|0:15|gpu-1|2026-11-22T02:36:04|2026-11-22T02:36:09\n"
        "14|TIMEOUT|0:0|gpu-2|2026-11-22T02:36:04|2026-11-22T02:37:05\n");
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].state, JobState::completed);
    EXPECT_EQ(rows[1].state, JobState::cancelled);
    EXPECT_EQ(rows[1].exit_code, 143);
    EXPECT_EQ(rows[2].state, JobState::timeout);
    EXPECT_EQ(rows[2].source, "sacct");
}

TEST(SlurmParsers, ExitCodesAndStateWords) {
    EXPECT_EQ(slurm::parse_exit_code("2:0"), 2);
    EXPECT_EQ(slurm::parse_exit_code("0:9"), 137);
    EXPECT_EQ(slurm::parse_exit_code(""), std::nullopt);
    EXPECT_EQ(slurm::parse_exit_code("x"), std::nullopt);
    EXPECT_EQ(parse_job_state("COMPLETING"), JobState::running);
    EXPECT_EQ(parse_job_state("CANCELLED by 1000"), JobState::cancelled);
    EXPECT_EQ(parse_job_state("out_of_memory"), JobState::out_of_memory);
    EXPECT_EQ(parse_job_state("BOOT_FAIL"), JobState::failed);
    EXPECT_EQ(parse_job_state("banana"), std::nullopt);
    EXPECT_TRUE(is_final(JobState::timeout));
    EXPECT_FALSE(is_final(JobState::pending));
}

TEST(SlurmParsers, TransientErrorsAreToldApartFromPermanentOnes) {
    EXPECT_TRUE(slurm::is_transient_error(
        "sbatch: error: Batch job submission failed: Socket timed out on send/recv operation"));
    EXPECT_TRUE(
        slurm::is_transient_error("sbatch: error: Slurm temporarily unable to accept job, sleeping and retrying"));
    EXPECT_TRUE(slurm::is_transient_error("squeue: error: Unable to contact slurm controller (connect failure)"));
    EXPECT_FALSE(slurm::is_transient_error(data("sbatch_invalid_partition.txt")));
    EXPECT_FALSE(slurm::is_transient_error(data("squeue_invalid_id.txt")));
}

TEST(SlurmBackend, SubmitRunsSbatchParsableFromTheRunDirectoryWithTheRunEnvironment) {
    TempDir tmp;
    Harness h;
    h.fake.on({"sbatch"}, ok("41\n"));
    auto b = h.make();
    SubmitRequest r = request(tmp.path());
    SubmitResult res = b->submit(r);
    EXPECT_EQ(res.job_id, "41");
    ASSERT_EQ(h.fake.requests.size(), 1u);
    const ProcessRequest& p = h.fake.requests[0];
    EXPECT_EQ(p.argv, (std::vector<std::string>{"sbatch", "--parsable", "--job-name=trainbench-gpt-abc123-train",
                                                (tmp.path() / "rendered/train/job.sbatch").string()}));
    EXPECT_EQ(p.cwd, tmp.path());
    EXPECT_EQ(p.env_set.at("TRAINBENCH_RUN_DIR"), tmp.path().string());
    EXPECT_TRUE(fs::is_directory(tmp.path() / "logs/train")) << "sbatch --output needs the directory to exist";
}

TEST(SlurmBackend, AChainedStageDependsOnThePreviousJob) {
    TempDir tmp;
    Harness h;
    h.fake.on({"sbatch"}, ok("42\n"));
    auto b = h.make();
    SubmitRequest r = request(tmp.path());
    r.depends_on = "41";
    r.dependency = "afterany";
    (void)b->submit(r);
    const auto& argv = h.fake.requests.at(0).argv;
    EXPECT_NE(std::find(argv.begin(), argv.end(), "--dependency=afterany:41"), argv.end());
    EXPECT_NE(std::find(argv.begin(), argv.end(), "--kill-on-invalid-dep=yes"), argv.end());
}

TEST(SlurmBackend, TransientSubmitErrorsAreRetriedWithExponentialBackoff) {
    TempDir tmp;
    Harness h;
    h.fake
        .on({"sbatch"},
            fail(1, "sbatch: error: Batch job submission failed: Socket timed out on send/recv operation\n"))
        .on({"sbatch"}, fail(1, "sbatch: error: Slurm temporarily unable to accept job, sleeping and retrying\n"))
        .on({"sbatch"}, ok("43\n"));
    h.fake.on({"squeue"}, ok(""));  // the job did not reach the controller
    auto b = h.make();
    EXPECT_EQ(b->submit(request(tmp.path())).job_id, "43");
    EXPECT_EQ(h.fake.calls("sbatch").size(), 3u);
    EXPECT_EQ(h.sleeps, (std::vector<std::chrono::milliseconds>{std::chrono::milliseconds(1000),
                                                                std::chrono::milliseconds(2000)}));
    // Before each retry the backend looks for the job by name, so it never submits twice.
    ASSERT_EQ(h.fake.calls("squeue").size(), 2u);
    EXPECT_EQ(h.fake.calls("squeue")[0], (std::vector<std::string>{"squeue", "-h", "--states=all", "-n",
                                                                   "trainbench-gpt-abc123-train", "-o", "%i|%j"}));
}

TEST(SlurmBackend, AJobThatReachedTheControllerDespiteATimeoutIsNotSubmittedTwice) {
    TempDir tmp;
    Harness h;
    h.fake.on({"sbatch"},
              fail(1, "sbatch: error: Batch job submission failed: Socket timed out on send/recv operation\n"));
    h.fake.on({"squeue"}, ok("77|trainbench-gpt-abc123-train\n"));
    auto b = h.make();
    EXPECT_EQ(b->submit(request(tmp.path())).job_id, "77");
    EXPECT_EQ(h.fake.calls("sbatch").size(), 1u);
}

TEST(SlurmBackend, RetriesAreBoundedAndTheLastMessageIsShown) {
    TempDir tmp;
    Harness h;
    h.fake.on({"sbatch"}, fail(1, "sbatch: error: Unable to contact slurm controller (connect failure)\n"));
    h.fake.on({"squeue"}, ok(""));
    auto b = h.make();
    try {
        (void)b->submit(request(tmp.path()));
        FAIL() << "expected an error";
    } catch (const RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find("Unable to contact slurm controller"), std::string::npos) << e.what();
    }
    EXPECT_EQ(h.fake.calls("sbatch").size(), 5u);
    EXPECT_EQ(h.sleeps, (std::vector<std::chrono::milliseconds>{
                            std::chrono::milliseconds(1000), std::chrono::milliseconds(2000),
                            std::chrono::milliseconds(4000), std::chrono::milliseconds(8000)}));
}

TEST(SlurmBackend, PermanentErrorsFailAtOnceWithTheSchedulersMessage) {
    TempDir tmp;
    Harness h;
    h.fake.on({"sbatch"}, fail(1, data("sbatch_invalid_partition.txt")));
    auto b = h.make();
    try {
        (void)b->submit(request(tmp.path()));
        FAIL() << "expected an error";
    } catch (const RuntimeError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "sbatch refused stage 'train': sbatch: error: Batch job submission failed: Invalid partition name "
                  "specified");
    }
    EXPECT_EQ(h.fake.calls("sbatch").size(), 1u);
    EXPECT_TRUE(h.sleeps.empty());
}

TEST(SlurmBackend, StatusAsksSqueueOnceForAllJobsAndScontrolForThoseThatEnded) {
    TempDir tmp;
    Harness h;
    h.fake.on({"squeue"}, ok(data("squeue_mixed.txt")));
    h.fake.on({"scontrol", "-o", "show", "job", "7"},
              ok("JobId=7 JobName=x JobState=COMPLETED Reason=None ExitCode=0:0 NodeList=gpu-[1-2]\n"));
    h.fake.on({"scontrol", "-o", "show", "job", "8"}, ok(data("scontrol_failed.txt")));
    auto b = h.make();
    std::vector<JobQuery> q = {
        {"7", tmp.path(), "a"}, {"8", tmp.path(), "b"}, {"9", tmp.path(), "c"}, {"10", tmp.path(), "d"}};
    std::vector<JobStatus> s = b->status(q);
    ASSERT_EQ(h.fake.calls("squeue").size(), 1u);
    EXPECT_EQ(h.fake.calls("squeue")[0], (std::vector<std::string>{"squeue", "-h", "--states=all", "-j", "7,8,9,10",
                                                                   "-o", "%i|%T|%r|%N|%S|%e|%j"}));
    EXPECT_EQ(h.fake.calls("scontrol").size(), 2u) << "only the ended jobs 7 and 8";
    ASSERT_EQ(s.size(), 4u);
    EXPECT_EQ(s[0].state, JobState::completed);
    EXPECT_EQ(s[1].state, JobState::failed);
    EXPECT_EQ(s[1].exit_code, 3);
    EXPECT_EQ(s[2].state, JobState::running);
    EXPECT_EQ(s[3].state, JobState::pending);
    EXPECT_EQ(s[3].reason, "Dependency");
}

TEST(SlurmBackend, WithAccountingDisabledAForgottenJobIsReadFromItsStatusFiles) {
    TempDir tmp;
    fs::create_directories(tmp.path() / "status");
    std::ofstream(tmp.path() / "status/train.started") << "2026-11-22T02:36:05Z gpu-1 99\n";
    std::ofstream(tmp.path() / "status/train.exit") << "2 2026-11-22T02:36:09Z\n";
    Harness h;
    h.fake.on({"squeue"}, fail(1, data("squeue_invalid_id.txt")));
    h.fake.on({"scontrol", "show", "config"}, ok(data("scontrol_show_config_accounting.txt")));
    auto b = h.make();
    std::vector<JobStatus> s = b->status({{"99", tmp.path(), "train"}});
    EXPECT_TRUE(h.fake.calls("sacct").empty()) << "sacct needs slurmdbd; it is not asked when accounting is off";
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].state, JobState::failed);
    EXPECT_EQ(s[0].exit_code, 2);
    EXPECT_EQ(s[0].source, "status-file");
    EXPECT_EQ(s[0].nodes, "gpu-1");
}

TEST(SlurmBackend, WithAccountingEnabledAForgottenJobIsAskedFromSacctInOneCall) {
    TempDir tmp;
    Harness h;
    h.fake.on({"squeue"}, ok(""));
    h.fake.on({"scontrol", "show", "config"}, ok("AccountingStorageType   = accounting_storage/slurmdbd\n"));
    h.fake.on({"sacct"},
              ok("5|TIMEOUT|0:0|gpu-2|2026-11-22T02:36:04|2026-11-22T02:37:05\n6|COMPLETED|0:0|gpu-1|x|y\n"));
    auto b = h.make();
    std::vector<JobStatus> s = b->status({{"5", tmp.path(), "a"}, {"6", tmp.path(), "b"}});
    ASSERT_EQ(h.fake.calls("sacct").size(), 1u);
    EXPECT_EQ(h.fake.calls("sacct")[0], (std::vector<std::string>{"sacct", "-n", "-P", "-X", "-j", "5,6", "-o",
                                                                  "JobID,State,ExitCode,NodeList,Start,End,JobName"}));
    EXPECT_EQ(s[0].state, JobState::timeout);
    EXPECT_EQ(s[1].state, JobState::completed);
}

TEST(SlurmBackend, AControllerThatStaysDownIsAnErrorNotAnEmptyStatus) {
    TempDir tmp;
    Harness h;
    h.fake.on({"squeue"}, fail(1, "squeue: error: Unable to contact slurm controller (connect failure)\n"));
    auto b = h.make();
    EXPECT_THROW((void)b->status({{"5", tmp.path(), "a"}}), RuntimeError);
    EXPECT_EQ(h.fake.calls("squeue").size(), 5u);
}

TEST(SlurmBackend, CancelIsOneScancelForEveryJobAndFinishedJobsAreNotAnError) {
    TempDir tmp;
    Harness h;
    h.fake.on({"scancel"},
              fail(1, "scancel: error: Kill job error on job id 5: Job/step already completing or completed\n"));
    auto b = h.make();
    EXPECT_NO_THROW(b->cancel({{"5", tmp.path(), "a"}, {"6", tmp.path(), "b"}}));
    EXPECT_EQ(h.fake.calls("scancel"), (std::vector<std::vector<std::string>>{{"scancel", "5", "6"}}));
}

// Issue #35: a journaled job id that now names another job (ids reused after the controller
// lost its state, or an edited journal) is neither taken for the run's job nor cancelled.
TEST(SlurmJobIdentity, StatusIgnoresAJobOfAnotherNameAndFallsBackToTheStatusFiles) {
    TempDir tmp;
    fs::create_directories(tmp.path() / "status");
    std::ofstream(tmp.path() / "status/train.started") << "2026-11-22T02:36:05Z gpu-1 41\n";
    Harness h;
    h.fake.on({"squeue"},
              ok("41|PENDING|JobHeldUser|||N/A|someone-elses-job\n42|RUNNING|None|gpu-2|x|y|tb-x-abc123-eval\n"));
    auto b = h.make();
    std::vector<JobStatus> s =
        b->status({{"41", tmp.path(), "train", "tb-x-abc123-train"}, {"42", tmp.path(), "eval", "tb-x-abc123-eval"}});
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].state, JobState::unknown) << "not the foreign job's PENDING, and no longer RUNNING";
    EXPECT_NE(s[0].reason.find("someone-elses-job"), std::string::npos) << s[0].reason;
    EXPECT_EQ(s[1].state, JobState::running) << "a job whose name matches is the run's";
    // Without a name to compare (a journal from before names were kept), the id is trusted.
    std::vector<JobStatus> legacy = b->status({{"41", tmp.path(), "train"}});
    EXPECT_EQ(legacy[0].state, JobState::pending);
}

TEST(SlurmJobIdentity, StatusChecksTheNameSacctGivesForAForgottenJob) {
    TempDir tmp;
    Harness h;
    h.fake.on({"squeue"}, ok(""));
    h.fake.on({"scontrol", "show", "config"}, ok("AccountingStorageType   = accounting_storage/slurmdbd\n"));
    h.fake.on({"sacct"}, ok("5|COMPLETED|0:0|gpu-2|x|y|other-users-job\n"));
    auto b = h.make();
    std::vector<JobStatus> s = b->status({{"5", tmp.path(), "train", "tb-x-abc123-train"}});
    EXPECT_EQ(s[0].state, JobState::unknown) << "another job's COMPLETED is not this run's";
}

TEST(SlurmJobIdentity, CancelAsksSqueueForTheNamesAndCancelsOnlyTheRunsOwnJobs) {
    TempDir tmp;
    Harness h;
    h.fake.on({"squeue"}, ok("5|tb-x-abc123-train\n6|someone-elses-job\n"));
    h.fake.on({"scancel"}, ok(""));
    auto b = h.make();
    b->cancel({{"5", tmp.path(), "train", "tb-x-abc123-train"},
               {"6", tmp.path(), "eval", "tb-x-abc123-eval"},
               {"7", tmp.path(), "post", "tb-x-abc123-post"}});
    ASSERT_EQ(h.fake.calls("squeue").size(), 1u);
    EXPECT_EQ(h.fake.calls("squeue")[0],
              (std::vector<std::string>{"squeue", "-h", "--states=all", "-j", "5,6,7", "-o", "%i|%j"}));
    EXPECT_EQ(h.fake.calls("scancel"),
              (std::vector<std::vector<std::string>>{{"scancel", "--name=tb-x-abc123-train", "5"}}))
        << "6 is another job, 7 is gone; the name is also the controller's filter";
}

TEST(SlurmJobIdentity, CancelOfJobsSqueueNoLongerKnowsRunsNoScancel) {
    TempDir tmp;
    Harness h;
    h.fake.on({"squeue"}, fail(1, data("squeue_invalid_id.txt")));
    auto b = h.make();
    EXPECT_NO_THROW(b->cancel({{"5", tmp.path(), "train", "tb-x-abc123-train"}}));
    EXPECT_TRUE(h.fake.calls("scancel").empty());
    Harness down;
    down.fake.on({"squeue"}, fail(1, "squeue: error: Unable to contact slurm controller (connect failure)\n"));
    auto d = down.make();
    EXPECT_THROW(d->cancel({{"5", tmp.path(), "train", "tb-x-abc123-train"}}), RuntimeError) << "no scancel on a guess";
    EXPECT_TRUE(down.fake.calls("scancel").empty());
}

TEST(BackendTable, UnknownNamesGetASuggestion) {
    try {
        (void)make_backend("slurn", system_process_runner());
        FAIL();
    } catch (const UsageError& e) {
        EXPECT_EQ(e.hint(), "did you mean 'slurm'?");
    }
    EXPECT_EQ(backend_table().size(), 3u);
}
