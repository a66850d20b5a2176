// DLLogger JSON lines: record types, step kinds, non-finite numbers, names, robustness.
#include "test_support.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

using namespace trainbench::metrics;
using namespace trainbench::metrics::testing;

namespace {

const char* k_nemo_log =
    R"(DLLL {"timestamp": "1727486460.519", "datetime": "2024-09-28 01:21:00.519044", "elapsedtime": "0.0001", "type": "LOG", "step": "PARAMETER", "data": {"cfg/micro_batch_size": 1, "cfg/global_batch_size": 2048, "cfg/precision": "bf16", "cfg/optim": {"name": "adam"}, "cfg/fp8": false}}
DLLL {"timestamp": "1727486493.241469", "datetime": "2024-09-28 01:21:33.241469", "elapsedtime": "32.9", "type": "LOG", "step": 0, "data": {"reduced_train_loss": 11.0, "lr": 1e-05, "global_step": 0.0, "consumed_samples": 2048.0, "train_step_timing in s": 25.5, "epoch": 0}}
DLLL {"timestamp": "1727486518.7", "datetime": "2024-09-28 01:21:58.700000", "elapsedtime": "58.4", "type": "LOG", "step": 1, "data": {"reduced_train_loss": 10.5, "lr": 2e-05, "global_step": 1.0, "consumed_samples": 4096.0, "train_step_timing in s": 25.1, "epoch": 0}}
)";

}  // namespace

TEST(Dllogger, NemoRecordsMapToCanonicalNamesWithWallTimes) {
    LogData d = parse_text("dllogger", k_nemo_log);
    EXPECT_EQ(d.stats.records, 3u);
    EXPECT_EQ(values(d, "step_time_s"), (std::vector<double>{25.5, 25.1}));
    EXPECT_EQ(d.find("step_time_s")->source_name, "train_step_timing in s");
    EXPECT_EQ(values(d, "loss"), (std::vector<double>{11.0, 10.5}));
    EXPECT_EQ(values(d, "consumed_samples"), (std::vector<double>{2048, 4096}));
    EXPECT_EQ(steps(d, "lr"), (std::vector<std::int64_t>{0, 1}));
    EXPECT_NEAR(d.find("loss")->points[1].wall_time, 1727486518.7, 1e-6);
    // the canonical name and the source name both find the series
    EXPECT_EQ(d.find("train_step_timing in s"), d.find("step_time_s"));
}

TEST(Dllogger, ParameterRecordBecomesParametersAsJsonText) {
    LogData d = parse_text("dllogger", k_nemo_log);
    EXPECT_EQ(d.parameters.at("cfg/global_batch_size"), "2048");
    EXPECT_EQ(d.parameters.at("cfg/precision"), "\"bf16\"");
    EXPECT_EQ(d.parameter_text("cfg/precision"), "bf16");
    EXPECT_EQ(d.parameters.at("cfg/optim"), R"({"name": "adam"})");
    EXPECT_EQ(d.parameter_number("cfg/fp8"), 0.0);
    EXPECT_EQ(d.parameter_number("cfg/micro_batch_size"), 1.0);
    EXPECT_FALSE(d.parameter_number("cfg/precision"));
    EXPECT_FALSE(d.parameter_number("missing"));
    EXPECT_EQ(d.find("cfg/global_batch_size"), nullptr);
}

TEST(Dllogger, PlainJsonLinesWithoutPrefixAreAccepted) {
    LogData d = parse_text("dllogger", R"({"type": "LOG", "step": 3, "data": {"loss": 1.5}}
{"type": "LOG", "step": 4, "data": {"loss": 1.25}}
)");
    EXPECT_EQ(steps(d, "loss"), (std::vector<std::int64_t>{3, 4}));
    EXPECT_EQ(values(d, "loss"), (std::vector<double>{1.5, 1.25}));
    EXPECT_TRUE(std::isnan(d.find("loss")->points[0].wall_time));
}

TEST(Dllogger, BareNanAndInfinityFromPythonJsonDumpsAreNumbers) {
    LogData d = parse_text(
        "dllogger",
        R"(DLLL {"timestamp": "1.0", "type": "LOG", "step": 1, "data": {"loss": NaN, "gnorm": Infinity, "x": -Infinity, "label": "NaN in a string stays text"}}
DLLL {"timestamp": "2.0", "type": "LOG", "step": "PARAMETER", "data": {"eps": NaN}}
)");
    EXPECT_EQ(d.stats.records, 2u);
    EXPECT_EQ(d.stats.corrupt, 0u);
    EXPECT_TRUE(std::isnan(at(d, "loss", 1)));
    EXPECT_EQ(at(d, "gnorm", 1), std::numeric_limits<double>::infinity());
    EXPECT_EQ(at(d, "x", 1), -std::numeric_limits<double>::infinity());
    EXPECT_EQ(d.find("label"), nullptr);
    EXPECT_EQ(d.parameters.at("eps"), "NaN");
}

TEST(Dllogger, ListStepsBecomeIncreasingStepsAndEmptyListIsTheSummary) {
    LogData d = parse_text("dllogger", R"(DLLL {"type": "LOG", "step": [0, 10], "data": {"ips": 1}}
DLLL {"type": "LOG", "step": [0, 20], "data": {"ips": 2}}
DLLL {"type": "LOG", "step": [0], "data": {"ips": 1.5}}
DLLL {"type": "LOG", "step": [1, 10], "data": {"ips": 3}}
DLLL {"type": "LOG", "step": [1, 20], "data": {"ips": 4}}
DLLL {"type": "LOG", "step": [1, 20, 5], "data": {"val.loss": 0.5}}
DLLL {"type": "LOG", "step": [], "data": {"ips": 2.5}}
DLLL {"type": "LOG", "step": "other", "data": {"ips": 9}}
DLLL {"type": "LOG", "step": [0, 1.5], "data": {"ips": 9}}
)");
    EXPECT_EQ(steps(d, "ips"), (std::vector<std::int64_t>{10, 20, 30, 40}));
    EXPECT_EQ(values(d, "ips"), (std::vector<double>{1, 2, 3, 4}));
    EXPECT_EQ(values(d, "epoch/ips"), (std::vector<double>{1.5}));
    EXPECT_EQ(steps(d, "val.loss"), (std::vector<std::int64_t>{5}));
    EXPECT_EQ(d.summary.at("ips"), 2.5);
    EXPECT_EQ(d.stats.records, 7u);
    EXPECT_EQ(d.stats.skipped, 2u);  // string step, fractional list step
}

TEST(Dllogger, SeveralLinesOfOneStepMergeAndARepeatedStepKeepsTheLaterValue) {
    LogData d = parse_text("dllogger", R"(DLLL {"type": "LOG", "step": 5, "data": {"a": 1}}
DLLL {"type": "LOG", "step": 5, "data": {"b": 2}}
DLLL {"type": "LOG", "step": 6, "data": {"a": 3}}
DLLL {"type": "LOG", "step": 5, "data": {"a": 4}}
)");
    EXPECT_EQ(values(d, "a"), (std::vector<double>{4, 3}));
    EXPECT_EQ(values(d, "b"), (std::vector<double>{2}));
}

TEST(Dllogger, KeyOrderDoesNotMatterEvenDataBeforeStep) {
    LogData d = parse_text("dllogger", R"(DLLL {"data": {"loss": 2.5}, "step": 7, "type": "LOG", "timestamp": "100.5"}
DLLL {"metadata": {"unit": "s"}, "metric": "loss", "type": "METADATA"}
)");
    EXPECT_EQ(steps(d, "loss"), (std::vector<std::int64_t>{7}));
    EXPECT_EQ(d.find("loss")->points[0].wall_time, 100.5);
    EXPECT_EQ(d.stats.records, 2u);
}

TEST(Dllogger, DatetimeIsTheWallTimeWhenThereIsNoTimestamp) {
    LogData d = parse_text(
        "dllogger", R"(DLLL {"datetime": "2019-10-10 14:15:16.5+00:00", "type": "LOG", "step": 1, "data": {"x": 1}}
DLLL {"datetime": "2019-10-10 16:15:16.5+02:00", "type": "LOG", "step": 2, "data": {"x": 1}}
)");
    EXPECT_DOUBLE_EQ(d.find("x")->points[0].wall_time, 1570716916.5);
    EXPECT_DOUBLE_EQ(d.find("x")->points[1].wall_time, 1570716916.5);
}

TEST(Dllogger, TruncatedLastLineIsReportedAndEarlierLinesKept) {
    std::string text = k_nemo_log;
    text +=
        R"(DLLL {"timestamp": "1727486544.0", "type": "LOG", "step": 2, "data": {"reduced_train_loss": 10.2, "lr": 3e-)";
    LogData d = parse_text("dllogger", text);
    EXPECT_TRUE(d.stats.truncated_tail);
    EXPECT_EQ(d.stats.corrupt, 0u);
    EXPECT_EQ(values(d, "loss"), (std::vector<double>{11.0, 10.5}));  // nothing from the cut line
}

TEST(Dllogger, GarbageAndBinaryNoiseAreCountedNotFatal) {
    std::string text = "garbage line\n";
    text += std::string("\x00\x01\xff\xfe{\"type\"\n", 12);
    text += "{\"type\": \"LOG\", \"step\": 1, \"data\": {\"loss\": 1.0,,}}\n";
    text += "DLLL {\"type\": \"LOG\", \"step\": 2, \"data\": {\"loss\": 2.0}}\n";
    text += "DLL 2019-10-10 14:15:21.842053 - 0 5 train.loss : 8.5\n";
    text += "{\"unrelated\": true}\n";
    text += "\n\n";
    LogData d = parse_text("dllogger", text);
    EXPECT_EQ(values(d, "loss"), (std::vector<double>{2.0}));
    EXPECT_EQ(d.stats.records, 1u);
    EXPECT_EQ(d.stats.skipped, 4u);  // text, binary, DLL stdout, unrelated JSON
    EXPECT_EQ(d.stats.corrupt, 1u);  // the broken JSON record
    EXPECT_FALSE(d.stats.warnings.empty());
}

TEST(Dllogger, CrlfLineEndsAreAccepted) {
    LogData d = parse_text("dllogger", "DLLL {\"type\": \"LOG\", \"step\": 1, \"data\": {\"loss\": 1.0}}\r\n");
    EXPECT_EQ(values(d, "loss"), (std::vector<double>{1.0}));
}

TEST(Dllogger, ResultDoesNotDependOnHowTheInputIsChunked) {
    LogData whole = parse_text("dllogger", k_nemo_log);
    for (std::size_t chunk : {1u, 2u, 3u, 7u, 64u, 100u}) {
        LogData d = parse_text("dllogger", k_nemo_log, {}, chunk);
        EXPECT_EQ(values(d, "loss"), values(whole, "loss")) << chunk;
        EXPECT_EQ(d.parameters, whole.parameters) << chunk;
        EXPECT_EQ(d.stats.records, whole.stats.records) << chunk;
    }
}

TEST(Dllogger, TagsSelectSeriesBySourceOrCanonicalName) {
    ParseOptions o;
    o.tags = {"train_step_timing in s", "lr"};
    LogData d = parse_text("dllogger", k_nemo_log, o);
    EXPECT_NE(d.find("step_time_s"), nullptr);
    EXPECT_NE(d.find("lr"), nullptr);
    EXPECT_EQ(d.find("loss"), nullptr);
    o.tags = {"loss"};
    d = parse_text("dllogger", k_nemo_log, o);
    EXPECT_EQ(d.series.size(), 1u);
    EXPECT_NE(d.find("loss"), nullptr);
}

// A value no kept series needs is checked, not converted: a line is exactly as valid
// with --tags as without.
TEST(Dllogger, ValuesOfSeriesNotKeptMustStillBeJsonNumbers) {
    // (digit runs of 8 and more, and ones ending at every position of an 8-byte word: the
    // check reads digits a word at a time)
    const std::vector<std::string> good = {"0",
                                           "-0",
                                           "7",
                                           "-12.5",
                                           "1e-05",
                                           "2.5E+3",
                                           "0.0 ",
                                           "31e2",
                                           "true",
                                           "null",
                                           "12345678",
                                           "1234567.1234567",
                                           "123456789012345678",
                                           "2.7617999999999999e-05",
                                           "-98765432.123456789E-12345678",
                                           "1e400"};
    const std::vector<std::string> bad = {"01",        "1.",        ".5",           "-",           "1e",
                                          "1e+",       "+1",        "1.2.3",        "0x10",        "1.5x",
                                          "--1",       "tru",       "nul",          "falsey",      "00000000",
                                          "12345678.", "1234567x9", "123456789.e5", "1.23456789e", "9999999\xc3\xa9"};
    auto line = [](std::int64_t step, const std::string& lr) {
        return fmt::format(R"(DLLL {{"type": "LOG", "step": {}, "data": {{"lr": {}, "reduced_train_loss": {}}}}})",
                           step, lr, static_cast<double>(step) + 0.5) +
               "\n";
    };
    std::string text;
    std::int64_t step = 0;
    for (const std::string& v : good) text += line(step++, v);
    for (const std::string& v : bad) text += line(step++, v);
    for (bool tagged : {false, true}) {
        ParseOptions o;
        if (tagged) o.tags = {"loss"};
        LogData d = parse_text("dllogger", text, o);
        SCOPED_TRACE(tagged ? "--tags loss" : "every series");
        EXPECT_EQ(d.stats.records, good.size());
        EXPECT_EQ(d.stats.corrupt, bad.size());
        std::vector<double> losses;  // the good lines' (steps 0, 1, ...)
        for (std::size_t i = 0; i < good.size(); ++i) losses.push_back(static_cast<double>(i) + 0.5);
        EXPECT_EQ(values(d, "loss"), losses);
        EXPECT_EQ(d.find("lr") != nullptr, !tagged);
        if (!tagged) {
            EXPECT_EQ(d.find("lr")->points.back().value, std::numeric_limits<double>::infinity());
        }
    }
}

// Without wall times (what a report asks for) the points are the same, with NaN wall
// times, and a timestamp that is not valid JSON still makes its line invalid.
TEST(Dllogger, WithoutWallTimesTheValuesAreTheSameAndTimestampsStillChecked) {
    std::string text = k_nemo_log;
    text += R"(DLLL {"timestamp": 1.2.3, "type": "LOG", "step": 2, "data": {"reduced_train_loss": 9.0}})"
            "\n";
    text += R"(DLLL {"timestamp": "17\q", "type": "LOG", "step": 3, "data": {"reduced_train_loss": 8.0}})"
            "\n";
    text += R"(DLLL {"datetime": tru, "type": "LOG", "step": 4, "data": {"reduced_train_loss": 7.0}})"
            "\n";
    text += R"(DLLL {"timestamp": 1727486600, "type": "LOG", "step": 5, "data": {"reduced_train_loss": 6.0}})"
            "\n";
    ParseOptions o;
    LogData with = parse_text("dllogger", text, o);
    o.wall_times = false;
    LogData without = parse_text("dllogger", text, o);
    for (const LogData* d : {&with, &without}) {
        EXPECT_EQ(d->stats.records, 4u);
        EXPECT_EQ(d->stats.corrupt, 3u);
        EXPECT_EQ(values(*d, "loss"), (std::vector<double>{11.0, 10.5, 6.0}));
        EXPECT_EQ(values(*d, "step_time_s"), (std::vector<double>{25.5, 25.1}));
    }
    EXPECT_EQ(with.find("loss")->points.back().wall_time, 1727486600.0);
    for (const Point& p : without.find("loss")->points) EXPECT_TRUE(std::isnan(p.wall_time));
}

TEST(Dllogger, OverlongLineIsSkippedWithoutUnboundedMemory) {
    std::string text = "DLLL {\"type\": \"LOG\", \"step\": 1, \"data\": {\"a\": 1}}\n";
    text += "DLLL {\"x\": \"" + std::string(20u << 20, 'x') + "\"}\n";  // beyond the 16 MiB line cap
    text += "DLLL {\"type\": \"LOG\", \"step\": 2, \"data\": {\"a\": 2}}\n";
    LogData d = parse_text("dllogger", text);
    EXPECT_EQ(values(d, "a"), (std::vector<double>{1, 2}));
    EXPECT_EQ(d.stats.skipped, 1u);
}

// gpu-recipes' records (ParseOptions::step_records): every "DLLL" line that is JSON with an
// integer step and a numeric "train_step_timing in s", duplicates kept, in file order.
TEST(DlloggerRecords, KeepsDuplicatesAndSkipsParametersAndOtherLines) {
    const std::string text =
        std::string(R"(DLLL {"type": "LOG", "step": "PARAMETER", "data": {"cfg/global_batch_size": 8}})") + "\n" +
        R"(DLLL {"type": "LOG", "step": 1, "data": {"train_step_timing in s": 2.5}})" + "\n" + "some other line\n" +
        R"(DLLL {"type": "LOG", "step": 1, "data": {"train_step_timing in s": 3.5}})" + "\n" +
        R"(DLLL {"type": "LOG", "step": [0, 1], "data": {"train_step_timing in s": 9}})" + "\n" +
        R"(DLLL {"type": "LOG", "step": 2, "data": {"val_loss": 1.0}})" + "\n" +
        R"(DLLL {"type": "LOG", "step": 3, "data": {"train_step_timing in s": 4}})" + "\n";
    ParseOptions o;
    o.step_records = true;
    const LogData d = parse_text("dllogger", text, o);
    const auto& r = d.step_records;
    ASSERT_EQ(r.size(), 3U);
    EXPECT_EQ(r[0].step, 1);
    EXPECT_DOUBLE_EQ(r[1].seconds, 3.5);
    EXPECT_EQ(r[2].step, 3);
    EXPECT_TRUE(parse_text("dllogger", text).step_records.empty());  // only when asked
}

TEST(DlloggerRecords, TakeOnlyWhatAJsonLibraryReadsAsAnIntegerStepAndANumber) {
    const std::string text =
        std::string(R"(DLLL {"step": 4.0, "data": {"train_step_timing in s": 1}})") + "\n" +
        R"(DLLL {"step": 5, "data": {"train_step_timing in s": "NaN"}})" + "\n" +
        R"(DLLL {"step": 6, "data": {"train_step_timing in s": NaN}})" + "\n" +
        R"(  DLLL {"step": 7, "data": {"train_step_timing in s": 1}})" + "\n" +
        R"({"step": 8, "data": {"train_step_timing in s": 1}})" + "\n" +
        R"(DLLL {"step": 9, "data": {"train_step_timing in s": 1}} x)" + "\n" +
        R"(DLLL {"data": {"train_step_timing in s": 2}, "type": "METADATA", "step": 10})" + "\n" +
        R"(DLLL {"step": 11, "data": {"train_step_timing in s": 1, "train_step_timing in s": 3}})" + "\n" +
        R"(DLLL {"step": 12, "data": {"train_step_timing in s": 1}, "data": {}})" + "\n";
    ParseOptions o;
    o.step_records = true;
    const LogData d = parse_text("dllogger", text, o, 7);
    ASSERT_EQ(d.step_records.size(), 2U);
    EXPECT_EQ(d.step_records[0].step, 10);  // data before step, any type
    EXPECT_DOUBLE_EQ(d.step_records[0].seconds, 2);
    EXPECT_EQ(d.step_records[1].step, 11);  // the later of two equal keys
    EXPECT_DOUBLE_EQ(d.step_records[1].seconds, 3);
}

TEST(Dllogger, LastOnlySeriesKeepTheHighestStep) {
    ParseOptions o;
    o.last_only = {"loss"};
    LogData d = parse_text("dllogger", k_nemo_log, o);
    ASSERT_EQ(d.find("loss")->points.size(), 1U);
    EXPECT_EQ(d.find("loss")->points[0].step, 1);
    EXPECT_DOUBLE_EQ(d.find("loss")->points[0].value, 10.5);
    EXPECT_EQ(values(d, "step_time_s"), (std::vector<double>{25.5, 25.1}));
    const std::string restart = std::string(R"(DLLL {"step": 5, "data": {"reduced_train_loss": 1}})") + "\n" +
                                R"(DLLL {"step": 3, "data": {"reduced_train_loss": 2}})" + "\n" +
                                R"(DLLL {"step": 5, "data": {"reduced_train_loss": 4}})" + "\n";
    EXPECT_EQ(values(parse_text("dllogger", restart, o), "loss"), (std::vector<double>{4}));
}

TEST(Dllogger, AKeyThatChangesPlaceBetweenLinesLandsInItsOwnSeries) {
    // Keys at the same position as on the line before are matched without a scan: a key
    // that moved (or a position that held an epoch or summary value) must not inherit the
    // series of the key that stood there before.
    LogData d = parse_text("dllogger", R"(DLLL {"step": 1, "data": {"x": 1, "z": 7}}
DLLL {"step": [1], "data": {"y": 2}}
DLLL {"step": 2, "data": {"y": 3, "x": 4}}
DLLL {"step": [], "data": {"y": 5}}
DLLL {"step": 3, "data": {"y": 6, "x": 8}}
DLLL {"step": 4, "data": {"x": 9, "y": 10}}
)");
    EXPECT_EQ(values(d, "x"), (std::vector<double>{1, 4, 8, 9}));
    EXPECT_EQ(steps(d, "x"), (std::vector<std::int64_t>{1, 2, 3, 4}));
    EXPECT_EQ(values(d, "y"), (std::vector<double>{3, 6, 10}));
    EXPECT_EQ(steps(d, "y"), (std::vector<std::int64_t>{2, 3, 4}));
    EXPECT_EQ(values(d, "epoch/y"), (std::vector<double>{2}));
    EXPECT_EQ(values(d, "z"), (std::vector<double>{7}));
}

TEST(Dllogger, ARecordKeyThatChangesPlaceBetweenLinesKeepsItsMeaning) {
    // A record key at the same position as on the line before takes the meaning found there
    // without comparing it with each name: keys that swap places, or a position that held
    // another key, must still be read as what they are.
    LogData d = parse_text("dllogger", R"(DLLL {"timestamp": "10", "type": "LOG", "step": 1, "data": {"x": 1}}
DLLL {"timestamp": "20", "step": 2, "type": "LOG", "data": {"x": 2}}
DLLL {"step": 3, "timestamp": "30", "data": {"x": 3}, "type": "LOG"}
DLLL {"step": 4, "datetime": "1970-01-01 00:00:40", "data": {"x": 4}, "type": "METADATA"}
DLLL {"data": {"x": 5}, "type": "LOG", "step": 5, "timestamp": "50"}
DLLL {"data": {"x": 6}, "type": "LOG", "timestamp": "60", "step": "PARAMETER"}
DLLL {"datetime": "1970-01-01 00:01:10", "type": "LOG", "step": 7, "data": {"x": 7}}
DLLL {"timestamp": "80", "type": "LOG", "step": 8, "data": {"x": 8}}
)");
    EXPECT_EQ(steps(d, "x"), (std::vector<std::int64_t>{1, 2, 3, 5, 7, 8}));
    EXPECT_EQ(values(d, "x"), (std::vector<double>{1, 2, 3, 5, 7, 8}));
    std::vector<double> walls;
    for (const Point& p : d.find("x")->points) walls.push_back(p.wall_time);
    EXPECT_EQ(walls, (std::vector<double>{10, 20, 30, 50, 70, 80}));
    EXPECT_EQ(d.parameters.at("x"), "6");
}
