// Series spilled to a temporary file (ParseOptions::spill_after) read back through
// PointReader give exactly the points of an in-memory parse: in step order, a repeated
// step keeping the later value (restarts, steps going backwards, many late points that
// fold the file), sequential or split over several threads; and no more than about
// spill_after points of a series stay in memory.
#include "metrics/spill.hpp"

#include "metrics/split.hpp"
#include "test_support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <vector>

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

LogData parse_file(const fs::path& file, std::size_t spill_after, unsigned threads = 1,
                   const std::vector<std::string>& window_only = {}) {
    LogData out;
    ParseOptions o;
    o.threads = threads;
    o.spill_after = spill_after;
    o.window_only = window_only;
    o.window_from = 100;
    o.window_to = 2500;
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

// A parallel parse's parts each file their own points; appending one to the other chains the
// files instead of copying them (the later spill is left empty), and every read, a block
// crossing from one file into the next included, gives the points in order; late points fold
// into one file across all of them.
TEST(Spill, AppendedSpillsAreChainedAndReadAcrossTheirBoundaries) {
    auto points = [](std::int64_t from, std::int64_t to) {
        std::vector<Point> v;
        for (std::int64_t i = from; i < to; ++i) v.push_back({i, 0.5 * static_cast<double>(i), 0});
        return v;
    };
    PointSpill a(4, "a"), b(4, "b"), c(4, "c");
    std::vector<Point> pa = points(0, 1000), pb = points(1000, 1700), pc = points(1700, 3000);
    a.move_out(pa);  // (the last point of each stays in memory)
    b.move_out(pb);
    c.move_out(pc);
    a.append(pa, b);
    EXPECT_TRUE(pa.empty());
    EXPECT_EQ(b.count(), 0u);
    a.append(pb, c);
    EXPECT_EQ(c.count(), 0u);
    ASSERT_EQ(a.count(), 2999u);
    EXPECT_EQ(a.last_step(), 2998);
    auto expect_points = [&](const std::function<double(std::int64_t)>& value, const std::string& what) {
        for (std::uint64_t at : {0u, 500u, 995u, 998u, 999u, 1000u, 1698u, 1699u, 1700u, 2990u, 2998u})
            for (std::size_t n : {1u, 7u, 4096u}) {
                std::vector<Point> got(n);
                const std::size_t read = a.read(got.data(), n, at);
                ASSERT_EQ(read, std::min<std::uint64_t>(n, 2999 - at)) << what << ", at " << at << ", n " << n;
                for (std::size_t i = 0; i < read; ++i) {
                    const auto step = static_cast<std::int64_t>(at + i);
                    ASSERT_EQ(got[i].step, step) << what << ", at " << at << ", n " << n;
                    ASSERT_EQ(got[i].value, value(step)) << what << ", at " << at << ", n " << n;
                }
            }
    };
    expect_points([](std::int64_t s) { return 0.5 * static_cast<double>(s); }, "chained");
    // four late points (the limit): folded into one file at once
    for (std::int64_t s : {0, 999, 1699, 2998}) a.add_late({s, -1.0, 0});
    EXPECT_TRUE(a.late().empty());
    ASSERT_EQ(a.count(), 2999u);
    expect_points(
        [](std::int64_t s) {
            return s == 0 || s == 999 || s == 1699 || s == 2998 ? -1.0 : 0.5 * static_cast<double>(s);
        },
        "folded");
}

// Past 16 chained files (many logs' series appended one after another), the next spill's points
// are copied instead: the open files stay few, the points read back the same.
TEST(Spill, ManyAppendedSpillsStayFewFilesAndReadBackInOrder) {
    PointSpill all(2, "all");
    std::vector<Point> held;
    constexpr std::int64_t k_parts = 40, k_each = 50;
    for (std::int64_t part = 0; part < k_parts; ++part) {
        PointSpill next(2, "next");
        std::vector<Point> pts;
        for (std::int64_t i = part * k_each; i < (part + 1) * k_each; ++i)
            pts.push_back({i, static_cast<double>(i), 0});
        next.move_out(pts);
        all.append(held, next);
        EXPECT_EQ(next.count(), 0u) << "part " << part;
        held = std::move(pts);  // (the last point of the part, in memory)
    }
    all.move_out(held);  // (one point: nothing to move)
    ASSERT_EQ(all.count(), static_cast<std::uint64_t>(k_parts * k_each - 1));
    std::vector<Point> got(all.count());
    ASSERT_EQ(all.read(got.data(), got.size(), 0), got.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i].step, static_cast<std::int64_t>(i));
        ASSERT_EQ(got[i].value, static_cast<double>(i));
    }
}

// A series kept only in a step window (a report's framework figures) holds exactly the points
// of the whole parse in that window, restarts' later values included, sequential or split;
// the other series are untouched.
TEST(Spill, AWindowOnlySeriesKeepsThePointsOfItsWindow) {
    TempDir dir;
    fs::path file = dir.path() / "dllogger.json";
    write_all(file, make_log(6000, 2000, 300));
    const LogData whole = parse_file(file, 0);
    std::vector<Point> want;
    for (const Point& p : whole.find("loss")->points)
        if (p.step >= 100 && p.step <= 2500) want.push_back(p);
    ASSERT_GT(want.size(), 2000u);
    for (unsigned threads : {1u, 3u})
        for (std::size_t limit : {0u, 50u}) {
            const LogData got = parse_file(file, limit, threads, {"loss"});
            const Series* loss = got.find("loss");
            ASSERT_NE(loss, nullptr);
            std::vector<Point> points;
            PointReader reader(*loss);
            for (Point p; reader.next(p);) points.push_back(p);
            ASSERT_EQ(points.size(), want.size()) << threads << " threads, limit " << limit;
            for (std::size_t i = 0; i < want.size(); ++i) {
                EXPECT_EQ(points[i].step, want[i].step) << i;
                EXPECT_EQ(points[i].value, want[i].value) << i;
            }
            // the step times are every step's
            LogData all = parse_file(file, limit, threads);
            all.series.erase("loss");
            LogData rest = parse_file(file, limit, threads, {"loss"});
            rest.series.erase("loss");
            EXPECT_EQ(fingerprint(rest), fingerprint(all)) << threads << " threads, limit " << limit;
        }
}
