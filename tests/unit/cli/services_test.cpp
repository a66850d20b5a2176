// Commands reach processes only through the runner the CLI was given (Context::processes ->
// pipeline::Services): submit, status and wait of a Slurm recipe driven end to end on a FAKE
// runner with canned sbatch/squeue/scontrol answers. Were any command to start the system's
// runner instead, the real sbatch here would fail (no cluster is up) and the fake would not
// see the call. validate, report and wait make one pipeline call each: the second test runs
// them on the same fakes, the results database being the one Services names (--results), and
// report's --series reaches the JSON through pipeline::ReportRequest. plan, show, parse and list
// print exactly the value of their one pipeline call (the third test makes the same calls on a
// Services built here and compares byte for byte), and start no process either.
#include "cli_test_support.hpp"
#include "support/fake_process_runner.hpp"

#include <trainbench/cli.hpp>
#include <trainbench/pipeline.hpp>
#include <trainbench/report.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
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

// The job's name as sbatch was given it: squeue must report that name (a job id Slurm reused
// for another job is not this run's). Then the scheduler's answers of a job that ran and ended.
void job_runs_and_completes(trainbench::testing::FakeProcessRunner& fake) {
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
}

void expect_only_scheduler_calls(const trainbench::testing::FakeProcessRunner& fake) {
    for (const trainbench::ProcessRequest& r : fake.requests)
        EXPECT_TRUE(r.argv.at(0) == "sbatch" || r.argv.at(0) == "squeue" || r.argv.at(0) == "scontrol" ||
                    r.argv.at(0) == "sacct" || r.argv.at(0) == "git")
            << r.argv.at(0);
}

// What tinygpt's rank 0 writes (workloads/tinygpt/train.py): the parameters with the peak it
// measured on the CPU, then one DLLogger record per step.
std::string dllogger_log(int steps, double step_s) {
    std::string text =
        "DLLL {\"timestamp\": \"1764219599\", \"type\": \"LOG\", \"step\": \"PARAMETER\", \"data\": "
        "{\"global_batch_size\": 16, \"peak_tflops_measured\": 0.5, \"peak_precision\": \"fp32\"}}\n";
    for (int i = 0; i < steps; ++i)
        text += fmt::format(
            "DLLL {{\"timestamp\": \"{}\", \"type\": \"LOG\", \"step\": {}, \"data\": {{\"reduced_train_loss\": "
            "{}, \"train_step_timing in s\": {}, \"consumed_samples\": {}}}}}\n",
            1764219600 + i, i, 10.0 - 0.1 * i, step_s, (i + 1) * 16);
    return text;
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
    job_runs_and_completes(fake);

    cli_test::Result status = run_on(fake, {"--runs", runs, "status"});
    ASSERT_EQ(status.code, 0) << status.err;
    EXPECT_NE(status.out.find("RUNNING"), std::string::npos) << status.out;

    cli_test::Result waited =
        run_on(fake, {"--runs", runs, "-q", "wait", run_id, "--timeout", "20", "--interval", "0.01"});
    EXPECT_GE(fake.calls("squeue").size(), 2u);
    expect_only_scheduler_calls(fake);
    EXPECT_EQ(waited.code, 0) << waited.out << waited.err;
}

TEST(CommandServices, ValidateReportAndWaitGoThroughTheServicesAlone) {
    namespace fs = std::filesystem;
    cli_test::TempDir dir;
    const std::string runs = (dir.path() / "runs").string();
    const std::string results = (dir.path() / "results.sqlite").string();
    const std::string recipe = (cli_test::source_dir() / "recipes/local-slurm/tinygpt-2n.yaml").string();
    trainbench::testing::FakeProcessRunner fake;

    // validate: the recipe checked with its launch line, no process started.
    cli_test::Result validated = run_on(fake, {"--json", "validate", recipe});
    ASSERT_EQ(validated.code, 0) << validated.err;
    const nlohmann::json v = nlohmann::json::parse(validated.out);
    EXPECT_EQ(v.at("ok"), 1);
    EXPECT_EQ(v.at("recipes").at(0).at("name"), "tinygpt-local-slurm-2n");
    EXPECT_EQ(v.at("recipes").at(0).at("gpus"), 4);
    EXPECT_TRUE(fake.requests.empty());

    // wait: the run submitted on the fake scheduler runs and completes.
    fake.on({"sbatch"}, {0, false, "4242\n", ""});
    cli_test::Result submitted = run_on(fake, {"--runs", runs, "-q", "--json", "submit", recipe, "--stage", "train"});
    ASSERT_EQ(submitted.code, 0) << submitted.err;
    const std::string run_id = nlohmann::json::parse(submitted.out).at("run_id").get<std::string>();
    const fs::path run_dir = nlohmann::json::parse(submitted.out).at("dir").get<std::string>();
    job_runs_and_completes(fake);
    cli_test::Result waited =
        run_on(fake, {"--runs", runs, "-q", "--json", "wait", run_id, "--timeout", "20", "--interval", "0.01"});
    ASSERT_EQ(waited.code, 0) << waited.out << waited.err;
    EXPECT_EQ(nlohmann::json::parse(waited.out).at("state"), "COMPLETED");

    // report: the run's log summarised and recorded in the database Services names.
    fs::create_directories(run_dir / "logs/train/dllogger/rank-0");
    trainbench::write_file_atomic(run_dir / "logs/train/dllogger/rank-0/dllogger.json", dllogger_log(20, 0.25));
    cli_test::Result reported = run_on(fake, {"--runs", runs, "--results", results, "--json", "report", run_id});
    ASSERT_EQ(reported.code, 0) << reported.err;
    EXPECT_DOUBLE_EQ(nlohmann::json::parse(reported.out).at("step_time_s").get<double>(), 0.25);
    EXPECT_TRUE(fs::exists(run_dir / "report/summary.json"));
    EXPECT_NE(reported.err.find("recorded result of"), std::string::npos) << reported.err;
    // The per-step series only on demand (--series), through the same report_run.
    EXPECT_FALSE(nlohmann::json::parse(reported.out).contains("series")) << reported.out;
    cli_test::Result with_series =
        run_on(fake, {"--runs", runs, "--results", results, "--json", "report", run_id, "--series"});
    ASSERT_EQ(with_series.code, 0) << with_series.err;
    const nlohmann::json series = nlohmann::json::parse(with_series.out).at("series");
    EXPECT_EQ(series.at("step_time_s").size(), 20u) << with_series.out;
    EXPECT_EQ(series.at("loss").size(), 20u) << with_series.out;
    cli_test::Result history = run_on(fake, {"--runs", runs, "--results", results, "--json", "history"});
    ASSERT_EQ(history.code, 0) << history.err;
    EXPECT_NE(history.out.find(run_id), std::string::npos) << history.out;
    EXPECT_FALSE(fs::exists(fs::path(runs) / "results.sqlite"));  // not the default location
    expect_only_scheduler_calls(fake);
}

TEST(CommandServices, PlanShowParseAndListPrintTheValueOfTheirPipelineCall) {
    using namespace trainbench;
    const std::string recipe = (cli_test::source_dir() / "recipes/aws-p4d/gpt3-126m.yaml").string();
    const std::string log = (cli_test::source_dir() / "tests/data/logs/dllogger_nemo.json").string();
    pipeline::Services services;
    services.dirs = default_data_dirs();
    const catalog::Catalog cat = catalog::Catalog::load(services.dirs.recipes);
    services.catalog = [&cat]() -> const catalog::Catalog& { return cat; };
    trainbench::testing::FakeProcessRunner fake;

    pipeline::PlanRequest plan;
    plan.recipe = recipe;
    plan.overrides = {"nodes=2", "batch.global=7"};  // a plan of an invalid recipe carries its validation
    cli_test::Result planned = run_on(fake, {"--json", "plan", recipe, "-s", "nodes=2", "-s", "batch.global=7"});
    ASSERT_EQ(planned.code, 0) << planned.err;
    const pipeline::PlanResult p = pipeline::plan_recipe(services, plan);
    EXPECT_FALSE(p.json.at("validation").empty());
    EXPECT_EQ(planned.out, p.json.dump(2) + "\n");
    plan.search = true;
    plan.top = 2;
    cli_test::Result ranked =
        run_on(fake, {"plan", recipe, "-s", "nodes=2", "-s", "batch.global=7", "--search", "--top", "2"});
    const pipeline::PlanResult r = pipeline::plan_recipe(services, plan);
    EXPECT_EQ(ranked.out, report::search_text(r.recipe, r.candidates, 2));

    cli_test::Result shown = run_on(fake, {"--json", "show", recipe, "-s", "nodes=2", "--origin"});
    ASSERT_EQ(shown.code, 0) << shown.err;
    EXPECT_EQ(shown.out, pipeline::show_recipe(services, recipe, {"nodes=2"}, true).json.dump(2) + "\n");
    EXPECT_EQ(run_on(fake, {"show", recipe}).out, pipeline::show_recipe(services, recipe, {}, false).yaml);

    cli_test::Result parsed = run_on(fake, {"--json", "parse", log, "-t", "lr"});
    ASSERT_EQ(parsed.code, 0) << parsed.err;
    pipeline::ParseRequest parse;
    parse.files = {log};
    parse.tags = {"lr"};
    std::ostringstream parsed_json;
    report::write_log_data_json(parsed_json, pipeline::parse_logs(parse).data);
    EXPECT_EQ(parsed.out, parsed_json.str());

    for (const char* what : {"gpus", "conventions", "references"}) {
        cli_test::Result listed = run_on(fake, {"--json", "list", what});
        ASSERT_EQ(listed.code, 0) << listed.err;
        EXPECT_EQ(listed.out, pipeline::list_catalog(services, what).json.dump(2) + "\n") << what;
    }
    EXPECT_TRUE(fake.requests.empty());
}
