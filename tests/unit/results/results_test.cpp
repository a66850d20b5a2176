// The results module: the SQLite store (schema, migration, transactions,
// lookups), the regression verdict, and following a growing log.
#include "results/database.hpp"
#include "support/temp_dir.hpp"

#include <trainbench/results.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>

namespace fs = std::filesystem;
using namespace trainbench;
using namespace trainbench::results;
using trainbench::testing::TempDir;

namespace {

Result sample(const std::string& run_id, const std::string& ran_at, double base, unsigned seed) {
    Result r;
    r.run_id = run_id;
    r.result_id = run_id + "-r";
    r.recorded_at = ran_at;
    r.ran_at = ran_at;
    r.host = "h";
    r.source = "logs";
    r.recipe_name = "tiny";
    r.target = "local";
    r.model = "tinygpt-tiny";
    r.precision = "fp32";
    r.convention = "megatron";
    r.peak_tflops = 0.05;
    r.window_start = 10;
    r.window_end = 30;
    r.final_loss = 7.5;
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> noise(-0.03, 0.03);
    for (int s = 10; s <= 30; ++s) r.window_steps.push_back({s, base * (1 + noise(gen))});
    r.step_time_mean = base;
    return r;
}

std::vector<double> seconds(const Result& r) {
    std::vector<double> v;
    for (const auto& s : r.window_steps) v.push_back(s.seconds);
    return v;
}

}  // namespace

TEST(ResultsStore, RecordsAndReadsBackEveryField) {
    TempDir t;
    auto store = open_store((t.path() / "db" / "results.sqlite").string());
    EXPECT_EQ(store->schema_version(), k_schema_version);
    Result r = sample("20261101T100000Z-aaaaaa", "2026-11-01T10:00:00Z", 0.123456789012345678, 1);
    r.final_loss.reset();
    EXPECT_TRUE(store->record(r));
    EXPECT_FALSE(store->record(r));  // the same result twice is one row
    auto h = store->history({});
    ASSERT_EQ(h.size(), 1u);
    EXPECT_EQ(h[0].to_json().dump(), r.to_json().dump());  // doubles round-trip exactly; NULL loss stays absent
    EXPECT_FALSE(h[0].final_loss.has_value());
}

TEST(ResultsStore, HistoryIsInRunOrderAndFiltered) {
    TempDir t;
    auto store = open_store("sqlite:" + (t.path() / "r.sqlite").string());
    store->record(sample("20261103T000000Z-cccccc", "2026-11-03T00:00:00Z", 1, 3));
    store->record(sample("20261101T000000Z-aaaaaa", "2026-11-01T00:00:00Z", 1, 1));
    Result other = sample("20261102T000000Z-bbbbbb", "2026-11-02T00:00:00Z", 1, 2);
    other.recipe_name = "other";
    store->record(other);
    auto all = store->history({});
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0].short_id(), "aaaaaa");
    EXPECT_EQ(all[1].short_id(), "bbbbbb");
    EXPECT_EQ(all[2].short_id(), "cccccc");
    EXPECT_EQ(store->history({"tiny", "", ""}).size(), 2u);
    EXPECT_EQ(store->history({"tiny", "elsewhere", ""}).size(), 0u);
}

TEST(ResultsStore, FindsRunsByPrefixAndTagsThem) {
    TempDir t;
    auto store = open_store((t.path() / "r.sqlite").string());
    store->record(sample("20261101T000000Z-abc111", "2026-11-01T00:00:00Z", 1, 1));
    store->record(sample("20261102T000000Z-abc222", "2026-11-02T00:00:00Z", 1, 2));
    EXPECT_EQ(store->find_run("abc1").run_id, "20261101T000000Z-abc111");
    EXPECT_EQ(store->find_run("20261102").run_id, "20261102T000000Z-abc222");
    EXPECT_THROW((void)store->find_run("abc"), UsageError);  // ambiguous
    EXPECT_THROW((void)store->find_run("zzz"), UsageError);
    store->tag("20261101T000000Z-abc111", "good");
    store->tag("20261101T000000Z-abc111", "good");  // idempotent
    EXPECT_EQ(store->find_run("abc1").tags, std::vector<std::string>{"good"});
}

TEST(ResultsStore, RefusesANewerSchema) {
    TempDir t;
    const std::string file = (t.path() / "r.sqlite").string();
    { auto store = open_store(file); }
    {
        auto db = detail::open_sqlite(file, true);
        db->exec("INSERT INTO trainbench_schema (version, applied_at) VALUES (99, 'x')", {});
    }
    try {
        (void)open_store(file);
        FAIL() << "a newer schema was accepted";
    } catch (const RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find("schema version 99"), std::string::npos) << e.what();
    }
}

TEST(ResultsStore, AFailedTransactionLeavesNothing) {
    TempDir t;
    auto db = detail::open_sqlite((t.path() / "r.sqlite").string(), true);
    detail::migrate(*db);
    EXPECT_THROW(detail::in_transaction(*db,
                                        [&] {
                                            db->exec("INSERT INTO tags (run_id, tag, tagged_at) VALUES ('a', 'b', 'c')",
                                                     {});
                                            db->exec("INSERT INTO no_such_table VALUES (1)", {});
                                        }),
                 RuntimeError);
    EXPECT_TRUE(db->exec("SELECT * FROM tags", {}).empty());
}

TEST(Regression, NoiseIsNoChangeAndTenPercentIsSlower) {
    const Result a = sample("a", "1", 0.5, 1), b = sample("b", "2", 0.5, 2), slow = sample("c", "3", 0.55, 3);
    const Comparison same = compare_steps(seconds(a), seconds(b));
    EXPECT_EQ(same.verdict, Verdict::no_change);
    EXPECT_LT(same.relative_low, same.relative);
    EXPECT_GT(same.relative_high, same.relative);
    const Comparison worse = compare_steps(seconds(a), seconds(slow));
    EXPECT_EQ(worse.verdict, Verdict::slower);
    EXPECT_NEAR(worse.relative, 0.10, 0.02);
    EXPECT_GT(worse.relative_low, 0);
    EXPECT_EQ(compare_steps(seconds(slow), seconds(a)).verdict, Verdict::faster);
    // Beyond noise but under the threshold: no change.
    EXPECT_EQ(compare_steps(seconds(a), seconds(slow), 0.2).verdict, Verdict::no_change);
    EXPECT_THROW((void)compare_steps({1, 2}, {1, 2, 3}), InputError);
}

TEST(Regression, HodgesLehmannAndTheMannWhitneyInterval) {
    // Shift of exactly +1 with the same spread: the estimate is 1, the interval brackets it.
    const std::vector<double> base = {10, 11, 12, 13, 14, 15, 16, 17, 18, 19};
    std::vector<double> run;
    for (double v : base) run.push_back(v + 1);
    const Comparison c = compare_steps(base, run, 0.01);
    EXPECT_DOUBLE_EQ(c.shift_s, 1.0);
    EXPECT_DOUBLE_EQ(c.baseline_median, 14.5);
    // n = m = 10 at 95%: K = floor(50 - 1.96 * sqrt(100 * 21 / 12)) = 24; the differences 1 + (i - j)
    // sorted, the 24th smallest is -2 and the 24th largest 4.
    EXPECT_DOUBLE_EQ(c.ci_low_s, -2.0);
    EXPECT_DOUBLE_EQ(c.ci_high_s, 4.0);
    EXPECT_EQ(c.verdict, Verdict::no_change);  // the interval includes zero
}

TEST(Baseline, LastGoodTagOrRun) {
    TempDir t;
    auto store = open_store((t.path() / "r.sqlite").string());
    std::vector<Result> rs;
    for (int i = 1; i <= 4; ++i) {
        rs.push_back(sample("2026110" + std::to_string(i) + "T000000Z-00000" + std::to_string(i),
                            "2026-11-0" + std::to_string(i) + "T00:00:00Z", 1, static_cast<unsigned>(i)));
        store->record(rs.back());
    }
    EXPECT_THROW((void)find_baseline(*store, rs[3], "last-good"), UsageError);  // nothing tagged yet
    store->tag(rs[0].run_id, "good");
    store->tag(rs[1].run_id, "good");
    store->tag(rs[3].run_id, "good");  // later than run 3: never its baseline
    store->tag(rs[0].run_id, "v1");
    EXPECT_EQ(find_baseline(*store, rs[2], "last-good").run_id, rs[1].run_id);
    EXPECT_EQ(find_baseline(*store, rs[2], "v1").run_id, rs[0].run_id);
    EXPECT_EQ(find_baseline(*store, rs[2], "000004").run_id, rs[3].run_id);  // a run, named explicitly
    EXPECT_THROW((void)find_baseline(*store, rs[2], "000003"), UsageError);  // itself
}

TEST(LogFollower, ReadsOnlyWhatWasAppendedUpToTheLastCompleteLine) {
    TempDir t;
    const fs::path log = t.path() / "dllogger.json";
    auto line = [](int step, double s) {
        return "DLLL {\"type\": \"LOG\", \"step\": " + std::to_string(step) +
               ", \"data\": {\"train_step_timing in s\": " + std::to_string(s) + "}}\n";
    };
    std::ofstream out(log);
    LogFollower f(log, "dllogger");
    EXPECT_FALSE(f.poll());  // empty
    out << line(0, 2.0) << line(1, 1.0).substr(0, 20) << std::flush;
    EXPECT_TRUE(f.poll());
    EXPECT_EQ(f.data().find("step_time_s")->points.size(), 1u);
    const std::uint64_t first = f.offset();
    EXPECT_EQ(first, line(0, 2.0).size());  // the torn line waits
    EXPECT_FALSE(f.poll());
    out << line(1, 1.0).substr(20) << line(2, 1.0) << std::flush;
    EXPECT_TRUE(f.poll());
    EXPECT_EQ(f.data().find("step_time_s")->points.size(), 3u);
    EXPECT_EQ(f.offset(), fs::file_size(log));
}

TEST(Progress, StepsTimesMfuAndDrift) {
    metrics::LogData log;
    for (int s = 0; s < 8; ++s) log.add_point("step_time_s", "t", {s, s == 0 ? 5.0 : 1.0});
    log.parameters["peak_tflops_measured"] = "0.05";
    analysis::Inputs in;
    in.model.name = "m";
    in.model.family = "gpt";
    in.model.layers = 2;
    in.model.hidden = 128;
    in.model.heads = 4;
    in.model.seq_length = 128;
    in.model.vocab = 4096;
    in.seq_len = 128;
    in.gpus = 1;
    in.gpu_family = "cpu";
    in.precision = catalog::Precision::fp32;
    in.global_batch = 16;
    in.window = {5, 25};
    auto p = progress_of(log, in, 30, 0.8, 0.10);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->step, 7);
    EXPECT_DOUBLE_EQ(p->window_s, 1.0);  // steps 5..7
    EXPECT_EQ(p->window_count, 3u);
    EXPECT_DOUBLE_EQ(p->tokens_per_s, 16 * 128);
    EXPECT_GT(p->mfu, 0);
    EXPECT_DOUBLE_EQ(p->eta_s, 22.0);
    EXPECT_TRUE(p->drift);  // 1.0 against 0.8: +25%
    EXPECT_NE(progress_line(*p).find("step 8 of 30"), std::string::npos) << progress_line(*p);
    EXPECT_FALSE(progress_of({}, in, 30, std::nullopt, 0.1));
}
