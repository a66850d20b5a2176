// A DLLogger file parsed by several threads (split at line ends, parts merged
// in file order) gives exactly the sequential result: the same points, wall
// times, parameters, summaries, counts and warnings (with whole-file line
// numbers), also when a restart's repeated steps cross a cut. Files whose list
// steps depend on earlier epochs fall back to one thread.
#include "metrics/split.hpp"

#include "test_support.hpp"

#include <fmt/format.h>

#include <cmath>

namespace fs = std::filesystem;
using namespace trainbench::metrics;
using namespace trainbench::metrics::testing;

namespace {

std::string record(std::int64_t step, double loss, double t) {
    return fmt::format(
        R"(DLLL {{"timestamp": "{:.3f}", "type": "LOG", "step": {}, "data": {{"reduced_train_loss": {}, )"
        R"("train_step_timing in s": {}, "consumed_samples": {}}}}})"
        "\n",
        1700000000.0 + t, step, loss, 1.5 + static_cast<double>(step % 7) * 0.01, (step + 1) * 8);
}

// A log with a PARAMETER record, a summary, garbage, a corrupt line and a
// restart: steps 0..n-1, then steps from `restart_at` again with other values.
std::string make_log(std::int64_t n, std::int64_t restart_at) {
    std::string s = R"(DLLL {"type": "LOG", "step": "PARAMETER", "data": {"cfg/global_batch_size": 8, "seed": 1}})"
                    "\n";
    for (std::int64_t i = 0; i < n; ++i) {
        s += record(i, 10.0 - static_cast<double>(i) * 1e-3, static_cast<double>(i));
        if (i % 997 == 0) s += "not json at all\n";
        if (i % 1499 == 0) s += "DLLL {\"type\": \"LOG\", \"step\": 3, \"data\": {\"x\": \n";  // corrupt
        if (i == n / 2)
            s += R"(DLLL {"type": "LOG", "step": "PARAMETER", "data": {"seed": 2}})"
                 "\n";
    }
    for (std::int64_t i = restart_at; i < n; ++i)
        s += record(i, 5.0 - static_cast<double>(i) * 1e-3, static_cast<double>(n + i));
    s += R"(DLLL {"type": "LOG", "step": [], "data": {"final_loss": 4.25}})"
         "\n";
    s += R"(DLLL {"type": "LOG", "step": 9, "data": {"reduced_train_loss": 1)";  // truncated tail
    return s;
}

// Where two fingerprints first differ, with a little context (they are long).
std::string first_difference(const std::string& a, const std::string& b) {
    if (a == b) return "";
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    std::size_t from = i > 80 ? i - 80 : 0;
    return fmt::format("at {}:\n  got  ...{}\n  want ...{}", i, a.substr(from, 200), b.substr(from, 200));
}

LogData sequential(const fs::path& file, ParseOptions one = {}) {
    LogData out;
    one.threads = 1;
    detail::parse_dllogger_file(file, file.string(), one, out);
    return out;
}

// Parsed by `threads` threads in parts of at least `part_bytes`; fails the test when the file
// was not split.
LogData split(const fs::path& file, unsigned threads, std::uint64_t part_bytes, ParseOptions options = {}) {
    LogData out;
    options.threads = threads;
    bool did = detail::parse_lines_split(file, file.string(), options, out, detail::parse_dllogger_part,
                                         detail::SplitPolicy{part_bytes, part_bytes});
    EXPECT_TRUE(did) << "not split: " << threads << " threads, parts of " << part_bytes;
    return out;
}

}  // namespace

TEST(SplitParse, ManyPartsGiveTheSequentialResultExactly) {
    TempDir dir;
    fs::path file = dir.path() / "dllogger.json";
    write_all(file, make_log(6000, 4200));
    LogData seq = sequential(file);
    ASSERT_GT(seq.stats.records, 7000u);
    ASSERT_GT(seq.stats.corrupt, 0u);
    ASSERT_TRUE(seq.stats.truncated_tail);
    ASSERT_EQ(seq.parameters.at("seed"), "2");
    ASSERT_EQ(seq.summary.at("final_loss"), 4.25);
    ASSERT_DOUBLE_EQ(at(seq, "loss", 4500), 5.0 - 4.5);  // the restart wins
    for (unsigned threads : {2u, 3u, 4u, 7u}) {
        for (std::uint64_t part : {std::uint64_t{4096}, std::uint64_t{100000}, std::uint64_t{300000}}) {
            LogData par = split(file, threads, part);
            EXPECT_EQ(parse_fingerprint(par), parse_fingerprint(seq))
                << threads << " threads, parts of " << part << " bytes";
        }
    }
}

// What a report asks for: gpu-recipes' step records and only the last loss, in one pass.
TEST(SplitParse, StepRecordsAndLastOnlySeriesGiveTheSequentialResult) {
    TempDir dir;
    fs::path file = dir.path() / "dllogger.json";
    write_all(file, make_log(6000, 4200));
    ParseOptions o;
    o.step_records = true;
    o.last_only = {"loss"};
    o.tags = {"loss"};
    LogData seq = sequential(file, o);
    ASSERT_EQ(seq.step_records.size(), 6000u + 1800u);  // the restart's records too
    ASSERT_EQ(seq.find("loss")->points.size(), 1u);
    ASSERT_EQ(seq.find("step_time_s"), nullptr);
    auto records = [](const LogData& d) {
        std::string s;
        for (const StepRecord& r : d.step_records) s += fmt::format("{}={},", r.step, r.seconds);
        return s;
    };
    for (unsigned threads : {2u, 3u, 7u}) {
        LogData par = split(file, threads, 4096, o);
        EXPECT_EQ(parse_fingerprint(par), parse_fingerprint(seq)) << threads << " threads";
        EXPECT_EQ(records(par), records(seq)) << threads << " threads";
    }
}

// Several files go into one LogData one after the other (a report of a run's logs): a split
// file's parts, merged among themselves while the threads parse, join what the files before it
// left exactly as a sequential parse does, for points held in memory and spilled ones.
TEST(SplitParse, AFileSplitIntoWhatEarlierFilesLeftGivesTheSequentialResult) {
    TempDir dir;
    const fs::path first = dir.path() / "first.json", second = dir.path() / "second.json";
    write_all(first, make_log(6000, 4200));
    write_all(second, make_log(3000, 100));  // its steps start again at 0: they replace the first file's
    // (a spilled series holds a different share of its points in memory when its parts were
    // spilled apart: compared as read back, every point in step order)
    auto points = [](const LogData& d) {
        std::string s = fmt::format("{}/{}/{}/{}/{};", d.stats.bytes, d.stats.records, d.stats.skipped, d.stats.corrupt,
                                    d.stats.truncated_tail);
        for (const auto& [name, series] : d.series) {
            s += name + "(" + series.source_name + "):";
            PointReader reader(series);
            for (Point p; reader.next(p);) s += fmt::format("{}={}@{},", p.step, p.value, p.wall_time);
        }
        for (const auto& [k, v] : d.parameters) s += k + "=" + v + ";";
        for (const auto& [k, v] : d.summary) s += fmt::format("{}={};", k, v);
        for (const std::string& w : d.stats.warnings) s += w + "|";
        return s;
    };
    for (std::size_t spill_after : {std::size_t{0}, std::size_t{500}}) {
        ParseOptions o;
        o.spill_after = spill_after;
        LogData seq;
        o.threads = 1;
        for (const fs::path& f : {first, second}) detail::parse_dllogger_file(f, "log", o, seq);
        ASSERT_GT(seq.stats.records, 10000u);
        for (unsigned threads : {2u, 3u}) {
            LogData par;
            o.threads = threads;
            for (const fs::path& f : {first, second})
                EXPECT_TRUE(detail::parse_lines_split(f, "log", o, par, detail::parse_dllogger_part,
                                                      detail::SplitPolicy{8192, 8192}));
            EXPECT_EQ(first_difference(points(par), points(seq)), "")
                << threads << " threads, spill after " << spill_after;
        }
    }
}

TEST(SplitParse, WarningsCarryLineNumbersOfTheWholeFile) {
    TempDir dir;
    fs::path file = dir.path() / "dllogger.json";
    std::string text;
    for (int i = 0; i < 3000; ++i) text += record(i, 1.0, i);
    text += "DLLL {\"step\": 1, \"data\": {\n";  // line 3001: corrupt
    for (int i = 3000; i < 6000; ++i) text += record(i, 1.0, i);
    write_all(file, text);
    LogData par = split(file, 4, 8192);
    ASSERT_EQ(par.stats.corrupt, 1u);
    ASSERT_EQ(par.stats.warnings.size(), 1u);
    EXPECT_EQ(par.stats.warnings[0], file.string() + ":3001: invalid JSON record, skipped");
}

TEST(SplitParse, ASeriesFirstSeenInALaterPartIsKept) {
    TempDir dir;
    fs::path file = dir.path() / "dllogger.json";
    std::string text;
    for (int i = 0; i < 4000; ++i) text += record(i, 1.0, i);
    for (int i = 4000; i < 8000; ++i)
        text += fmt::format(R"(DLLL {{"type": "LOG", "step": {}, "data": {{"late_metric": {}}}}})"
                            "\n",
                            i, i);
    write_all(file, text);
    LogData out = split(file, 4, 16384);
    EXPECT_EQ(steps(out, "late_metric").size(), 4000u);
    EXPECT_EQ(steps(out, "loss").size(), 4000u);
    EXPECT_EQ(out.stats.records, 8000u);
    EXPECT_EQ(first_difference(parse_fingerprint(out), parse_fingerprint(sequential(file))), "");
}

TEST(SplitParse, SmallFilesAndOneThreadAreNotSplit) {
    TempDir dir;
    fs::path file = dir.path() / "dllogger.json";
    write_all(file, make_log(200, 100));
    LogData out;
    ParseOptions options;
    options.threads = 4;
    auto noop = [](detail::Source&, std::string_view, const ParseOptions&, detail::LinePart&) {};
    EXPECT_FALSE(detail::parse_lines_split(file, file.string(), options, out, noop));  // default: 64 MiB and more
    options.threads = 1;
    EXPECT_FALSE(detail::parse_lines_split(file, file.string(), options, out, noop, detail::SplitPolicy{1, 1}));
    EXPECT_TRUE(out.series.empty());
}

TEST(SplitParse, ListStepsAcrossEpochsFallBackToOneThread) {
    // [epoch, iteration] steps map to one increasing step with offsets from earlier epochs:
    // a later part cannot know them, so the file is parsed sequentially.
    TempDir dir;
    fs::path file = dir.path() / "dllogger.json";
    std::string text;
    for (int epoch = 0; epoch < 4; ++epoch)
        for (int it = 1; it <= 1500; ++it)
            text += fmt::format(R"(DLLL {{"type": "LOG", "step": [{}, {}], "data": {{"loss": {}}}}})"
                                "\n",
                                epoch, it, epoch * 10000 + it);
    write_all(file, text);
    LogData seq = sequential(file);
    ASSERT_EQ(steps(seq, "loss").back(), 6000);
    LogData out;
    ParseOptions options;
    options.threads = 4;
    detail::SplitPolicy policy{4096, 4096};
    EXPECT_FALSE(detail::parse_lines_split(file, file.string(), options, out, detail::parse_dllogger_part, policy));
    EXPECT_TRUE(out.series.empty());
    LogData par;
    detail::parse_dllogger_file(file, file.string(), options, par, policy);
    EXPECT_EQ(first_difference(parse_fingerprint(par), parse_fingerprint(seq)), "");
}

namespace {

// An event file with several tags, a restart (steps repeated with new values), a record whose
// data checksum fails, and an incomplete record at the end.
std::string make_events(int n, int restart_at) {
    std::string f = file_version_event(1700000000.0);
    for (int i = 0; i < n; ++i) {
        f += scalar_event("train_step_timing in s", i, 1.5f + static_cast<float>(i % 5) * 0.01f, 1700000000.0 + i);
        f += scalar_event("reduced_train_loss", i, 10.0f - static_cast<float>(i) * 1e-3f, 1700000000.0 + i);
        if (i == n / 3) {
            std::string bad = scalar_event("reduced_train_loss", 999999, 1.0f, 1.0);
            bad[bad.size() - 6] ^= 0x01;
            f += bad;
        }
    }
    for (int i = restart_at; i < n; ++i) f += scalar_event("reduced_train_loss", i, 4.0f, 1700100000.0 + i);
    std::string tail = scalar_event("reduced_train_loss", n, 1.0f, 1.0);
    f += tail.substr(0, tail.size() - 3);
    return f;
}

LogData tb_sequential(const fs::path& file) {
    LogData out;
    ParseOptions one;
    one.threads = 1;
    detail::parse_tensorboard_file(file, file.string(), one, out);
    return out;
}

}  // namespace

TEST(SplitParse, TensorboardRecordsCutAtRecordStartsGiveTheSequentialResult) {
    TempDir dir;
    fs::path file = dir.path() / "events.out.tfevents.1700000000.host";
    write_all(file, make_events(5000, 3000));
    LogData seq = tb_sequential(file);
    ASSERT_EQ(seq.stats.corrupt, 1u);
    ASSERT_TRUE(seq.stats.truncated_tail);
    ASSERT_EQ(steps(seq, "loss").size(), 5000u);
    ASSERT_FLOAT_EQ(static_cast<float>(at(seq, "loss", 4000)), 4.0f);
    for (unsigned threads : {2u, 3u, 4u, 8u}) {
        for (std::uint64_t part : {std::uint64_t{5000}, std::uint64_t{60000}}) {
            LogData par;
            ParseOptions options;
            options.threads = threads;
            ASSERT_TRUE(detail::parse_split(file, file.string(), options, par, detail::parse_tensorboard_part,
                                            detail::next_record_start, detail::SplitPolicy{part, part}))
                << threads << " threads, parts of " << part;
            EXPECT_EQ(first_difference(parse_fingerprint(par), parse_fingerprint(seq)), "")
                << threads << " threads, parts of " << part;
        }
    }
}

TEST(SplitParse, ACutIsARecordStartWhoseRecordAndSuccessorCheckOut) {
    TempDir dir;
    fs::path file = dir.path() / "events.out.tfevents.1.host";
    std::string a = scalar_event("x", 1, 1.0f, 1.0);
    std::string b = scalar_event("x", 2, 2.0f, 2.0);
    std::string c = scalar_event("x", 3, 3.0f, 3.0);
    std::string d = scalar_event("x", 4, 4.0f, 4.0);
    std::string noise("\x13\x37 noise \xff\xff\x00", 11);
    write_all(file, a + b + noise + c + d);
    detail::FileSource f(file);
    std::uint64_t size = f.size_hint();
    std::uint64_t at_c = a.size() + b.size() + noise.size();
    EXPECT_EQ(detail::next_record_start(f, 0, size), 0u);
    // From inside `a`: `b` checks out but is followed by noise, so the cut goes to `c`;
    // never to a position inside a record.
    EXPECT_EQ(detail::next_record_start(f, 1, size), at_c);
    EXPECT_EQ(detail::next_record_start(f, at_c + 1, size), at_c + c.size());  // `d`, followed by the end
    // Nothing starts after the last record's first bytes: 0 means "do not cut here".
    EXPECT_EQ(detail::next_record_start(f, size - 3, size), 0u);
}

// A report's parts shrink as the file is used up, so two threads taking them in turn finish
// within one small part of each other; a spilled parse keeps one equal part per thread.
TEST(SplitParse, PartsShrinkTowardTheEndUnlessSpilled) {
    constexpr std::uint64_t MiB = 1ull << 20;
    const std::uint64_t size = 160 * MiB;
    std::vector<std::uint64_t> starts = detail::part_starts(size, 2, false, 2 * MiB);
    ASSERT_GE(starts.size(), 8u);
    std::vector<std::uint64_t> sizes;
    std::uint64_t at = 0;
    for (std::uint64_t s : starts) {
        sizes.push_back(s - at);
        at = s;
    }
    sizes.push_back(size - at);
    EXPECT_EQ(sizes.front(), size / 4);  // a quarter of the file: half of it per thread
    for (std::size_t i = 1; i + 1 < sizes.size(); ++i) {
        EXPECT_LE(sizes[i], sizes[i - 1]) << "part " << i;
        EXPECT_GE(sizes[i], 2 * MiB) << "part " << i;
    }
    EXPECT_LT(sizes.back(), 4 * MiB);  // the last part is small
    EXPECT_GE(sizes.back(), 2 * MiB);

    EXPECT_EQ(detail::part_starts(size, 2, true, 2 * MiB), (std::vector<std::uint64_t>{size / 2}));
    EXPECT_EQ(detail::part_starts(size, 4, true, 2 * MiB),
              (std::vector<std::uint64_t>{size / 4, size / 4 * 2, size / 4 * 3}));
    // too small for two parts of the minimum
    EXPECT_TRUE(detail::part_starts(3 * MiB, 2, false, 2 * MiB).empty());
    EXPECT_TRUE(detail::part_starts(3 * MiB, 2, true, 2 * MiB).empty());
}
