// Series spilled to a temporary file (ParseOptions::spill_after) read back through
// PointReader give exactly the points of an in-memory parse: in step order, a repeated
// step keeping the later value (restarts, steps going backwards, many late points that
// fold the file), sequential or split over several threads; and no more than about
// spill_after points of a series stay in memory.
#include "metrics/spill.hpp"

#include "metrics/split.hpp"
#include "test_support.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace fs = std::filesystem;
using namespace trainbench::metrics;
using namespace trainbench::metrics::testing;

namespace {

std::string record(std::int64_t step, double loss) {
    return fmt::format(R"(DLLL {{"timestamp": "{}", "type": "LOG", "step": {}, "data": {{"reduced_train_loss": {}, )"
                       R"("train_step_timing in s": {}}}}})"
                       "\n",
                       1700000000 + step, step, loss, 1.5 + static_cast<double>(step % 5) * 0.01);
}

// Steps 0..n-1, a restart from `restart_at`, then a stretch of steps going backwards.
std::string make_log(std::int64_t n, std::int64_t restart_at, std::int64_t backwards) {
    std::string s;
    for (std::int64_t i = 0; i < n; ++i) s += record(i, 10.0 - static_cast<double>(i) * 1e-3);
    for (std::int64_t i = restart_at; i < n; ++i) s += record(i, 5.0 - static_cast<double>(i) * 1e-3);
    for (std::int64_t i = backwards; i > 0; --i) s += record(i * 3, 1000.0 + static_cast<double>(i));
    return s;
}

// Every point of every series as PointReader gives them.
std::string fingerprint(const LogData& d) {
    std::string s;
    for (const auto& [name, series] : d.series) {
        s += name + ":";
        PointReader reader(series);
        for (Point p; reader.next(p);) s += fmt::format("{}={}@{},", p.step, p.value, p.wall_time);
    }
    return s;
}

LogData parse_file(const fs::path& file, std::size_t spill_after, unsigned threads = 1) {
    LogData out;
    ParseOptions o;
    o.threads = threads;
    o.spill_after = spill_after;
    if (threads == 1) {
        detail::parse_dllogger_file(file, file.string(), o, out);
    } else {
        bool did = detail::parse_lines_split(file, file.string(), o, out, detail::parse_dllogger_part,
                                             detail::SplitPolicy{8192, 8192});
        EXPECT_TRUE(did);
    }
    return out;
}

}  // namespace

TEST(Spill, SpilledSeriesReadBackAsTheInMemoryOnes) {
    TempDir dir;
    fs::path file = dir.path() / "dllogger.json";
    write_all(file, make_log(3000, 2000, 400));
    LogData memory = parse_file(file, 0);
    ASSERT_EQ(memory.find("loss")->points.size(), 3000u);
    ASSERT_EQ(memory.find("loss")->spill, nullptr);
    for (std::size_t limit : {2u, 7u, 64u, 1000u, 5000u}) {
        LogData spilled = parse_file(file, limit);
        const Series* loss = spilled.find("loss");
        ASSERT_NE(loss, nullptr);
        if (limit < 3000) {
            ASSERT_NE(loss->spill, nullptr);
            EXPECT_LE(loss->points.size(), limit) << "points held in memory, limit " << limit;
        }
        EXPECT_EQ(fingerprint(spilled), fingerprint(memory)) << "limit " << limit;
    }
}

TEST(Spill, ManyLatePointsFoldIntoTheFile) {
    // every step written twice, the second pass backwards: all late once spilled
    TempDir dir;
    fs::path file = dir.path() / "dllogger.json";
    std::string text;
    for (int i = 0; i < 2000; ++i) text += record(i, 1.0);
    for (int i = 1999; i >= 0; --i) text += record(i, 2.0 + i);
    write_all(file, text);
    LogData memory = parse_file(file, 0);
    LogData spilled = parse_file(file, 50);
    EXPECT_EQ(fingerprint(spilled), fingerprint(memory));
    const Series* loss = spilled.find("loss");
    ASSERT_NE(loss->spill, nullptr);
    EXPECT_LT(loss->spill->late().size(), 50u);  // folded, not held
    PointReader reader(*loss);
    Point p;
    ASSERT_TRUE(reader.next(p));
    EXPECT_EQ(p.step, 0);
    EXPECT_EQ(p.value, 2.0);  // the later value of step 0
}

TEST(Spill, SplitParseWithSpillGivesTheSequentialResult) {
    TempDir dir;
    fs::path file = dir.path() / "dllogger.json";
    write_all(file, make_log(6000, 4200, 300));
    const std::string want = fingerprint(parse_file(file, 0));
    for (unsigned threads : {2u, 3u, 5u})
        for (std::size_t limit : {3u, 100u, 100000u})
            EXPECT_EQ(fingerprint(parse_file(file, limit, threads)), want) << threads << " threads, limit " << limit;
}

// A temporary file is made only when a series passes its limit: a small log parses where
// TMPDIR cannot be written to; a long one fails with the error that names TMPDIR.
TEST(Spill, TheTemporaryFileIsMadeOnlyWhenNeeded) {
    TempDir dir;
    fs::path file = dir.path() / "dllogger.json";
    write_all(file, make_log(300, 200, 0));
    const std::string want = fingerprint(parse_file(file, 0));
    const char* old = std::getenv("TMPDIR");
    const std::string saved = old ? old : "";
    ::setenv("TMPDIR", (dir.path() / "missing").c_str(), 1);
    std::string small;
    EXPECT_NO_THROW(small = fingerprint(parse_file(file, 1000)));
    EXPECT_THROW(parse_file(file, 50), trainbench::RuntimeError);
    if (old)
        ::setenv("TMPDIR", saved.c_str(), 1);
    else
        ::unsetenv("TMPDIR");
    EXPECT_EQ(small, want);
}

TEST(Spill, ASeriesWithoutSpillIsReadFromMemory) {
    Series s;
    s.points = {{1, 1.0, 0}, {2, 2.0, 0}};
    PointReader reader(s);
    Point p;
    ASSERT_TRUE(reader.next(p));
    EXPECT_EQ(p.step, 1);
    ASSERT_TRUE(reader.next(p));
    EXPECT_EQ(p.step, 2);
    EXPECT_FALSE(reader.next(p));
}
