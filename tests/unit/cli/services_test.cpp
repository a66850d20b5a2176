// Commands reach processes only through the runner the CLI was given (Context::processes ->
// pipeline::Services): submit, status and wait of a Slurm recipe driven end to end on a FAKE
// runner with canned sbatch/squeue/scontrol answers. Were any command to start the system's
// runner instead, the real sbatch here would fail (no cluster is up) and the fake would not
// see the call.
#include "cli_test_support.hpp"
#include "unit/backend/fake_process_runner.hpp"

#include <trainbench/cli.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace {

cli_test::Result run_on(trainbench::ProcessRunner& fake, const std::vector<std::string>& args) {
    std::ostringstream out, err;
    cli_test::Result r;
    r.code = trainbench::cli::run(args, out, err, fake);
    r.out = out.str();
    r.err = err.str();
    return r;
}

}  // namespace

TEST(CommandServices, SubmitStatusAndWaitUseOnlyTheGivenProcessRunner) {
    cli_test::TempDir dir;
    const std::string runs = (dir.path() / "runs").string();
    const std::string recipe = (cli_test::source_dir() / "recipes/local-slurm/tinygpt-2n.yaml").string();
    trainbench::testing::FakeProcessRunner fake;
    fake.on({"sbatch"}, {0, false, "4242\n", ""});
    cli_test::Result submitted = run_on(fake, {"--runs", runs, "-q", "--json", "submit", recipe, "--stage", "train"});
    ASSERT_EQ(submitted.code, 0) << submitted.err;
    ASSERT_EQ(fake.calls("sbatch").size(), 1u) << submitted.err;
    const std::string run_id = nlohmann::json::parse(submitted.out).at("run_id").get<std::string>();
    // The job's name as sbatch was given it: squeue must report that name (a job id Slurm reused
    // for another job is not this run's).
    const std::string name_flag = fake.calls("sbatch").at(0).at(2);
    ASSERT_EQ(name_flag.rfind("--job-name=", 0), 0u) << name_flag;
    const std::string job_name = name_flag.substr(11);
    // squeue's format: %i|%T|%r|%N|%S|%e|%j
    fake.on({"squeue"}, {0, false, "4242|RUNNING|None|node[1-2]|2026-11-27T05:00:00|N/A|" + job_name + "\n", ""});
    fake.on({"squeue"}, {0, false, "", ""});
    fake.on({"scontrol", "show", "config"}, {0, false, "AccountingStorageType   = accounting_storage/slurmdbd\n", ""});
    fake.on({"scontrol"},
            {0, false, "JobId=4242 JobName=" + job_name + " JobState=COMPLETED Reason=None ExitCode=0:0\n", ""});
    fake.on({"sacct"}, {0, false, "4242|COMPLETED|0:0|node[1-2]|2026-11-27T05:00:00|2026-11-27T05:01:00\n", ""});

    cli_test::Result status = run_on(fake, {"--runs", runs, "status"});
    ASSERT_EQ(status.code, 0) << status.err;
    EXPECT_NE(status.out.find("RUNNING"), std::string::npos) << status.out;

    cli_test::Result waited =
        run_on(fake, {"--runs", runs, "-q", "wait", run_id, "--timeout", "20", "--interval", "0.01"});
    EXPECT_GE(fake.calls("squeue").size(), 2u);
    for (const trainbench::ProcessRequest& r : fake.requests)
        EXPECT_TRUE(r.argv.at(0) == "sbatch" || r.argv.at(0) == "squeue" || r.argv.at(0) == "scontrol" ||
                    r.argv.at(0) == "sacct" || r.argv.at(0) == "git")
            << r.argv.at(0);
    EXPECT_EQ(waited.code, 0) << waited.out << waited.err;
}
