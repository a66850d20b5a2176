// The MLPerf parser's fast paths against its general ones, on random and mutated :::MLLOG
// lines (src/metrics/mllog_fields.hpp): a field name matched on its raw bytes against the same
// name written with an escape (unescaped, then matched as text), a string read in place against
// one unescaped, an integer read as uint64 against the same number written with a fraction
// (read as a double). The two spellings of a log must give the same LogData.
#include "metrics/mllog_fields.hpp"
#include "test_support.hpp"

#include <nlohmann/json.hpp>

#include <random>

using namespace trainbench::metrics;
using namespace trainbench::metrics::testing;

namespace {

const std::vector<std::string> k_names = {"namespace",     "time_ms",   "event_type",      "key",          "value",
                                          "metadata",      "file",      "lineno",          "step",         "status",
                                          "samples_count", "epoch_num", "first_epoch_num", "throughput",   "loss",
                                          "timem",         "keys",      "stepx",           "samples_coun", "x"};
const std::vector<std::string> k_keys = {"run_start",      "run_stop",          "block_start",   "block_stop",
                                         "epoch_start",    "epoch_stop",        "tracked_stats", "eval_accuracy",
                                         "throughput",     "global_batch_size", "seed",          "submission_benchmark",
                                         "train_step_time"};

std::string random_scalar(std::mt19937& rng) {
    switch (rng() % 7) {
        case 0:
            return std::to_string(rng() % 100000);
        case 1:
            return fmt::format("{}", static_cast<double>(rng() % 100000) / 64.0);
        case 2:
            return "\"" + k_keys[rng() % k_keys.size()] + "\"";
        case 3:
            return "null";
        case 4:
            return rng() % 2 ? "true" : "false";
        case 5:
            return std::to_string(1721026000000ULL + rng() % 1000000);
        default:
            return "-" + std::to_string(rng() % 1000);
    }
}

std::string random_object(std::mt19937& rng, int fields) {
    std::string o = "{";
    for (int i = 0; i < fields; ++i) {
        if (i) o += ", ";
        o += "\"" + k_names[rng() % k_names.size()] + "\": " + random_scalar(rng);
    }
    return o + "}";
}

// A record with the template's fields in random order, some repeated, left out or unknown.
std::string random_record(std::mt19937& rng) {
    std::vector<std::string> fields = {
        "\"namespace\": \"\"",
        fmt::format("\"time_ms\": {}", 1721026000000ULL + rng() % 100000000),
        "\"event_type\": \"POINT_IN_TIME\"",
        "\"key\": \"" + k_keys[rng() % k_keys.size()] + "\"",
        "\"value\": " + (rng() % 3 ? random_scalar(rng) : random_object(rng, 1 + static_cast<int>(rng() % 3))),
        "\"metadata\": " + random_object(rng, static_cast<int>(rng() % 5)),
    };
    if (rng() % 4 == 0) fields.push_back("\"" + k_names[rng() % k_names.size()] + "\": " + random_scalar(rng));
    if (rng() % 5 == 0) fields.erase(fields.begin() + static_cast<long>(rng() % fields.size()));
    std::shuffle(fields.begin(), fields.end(), rng);
    std::string r = "{";
    for (std::size_t i = 0; i < fields.size(); ++i) r += (i ? ", " : "") + fields[i];
    return r + "}";
}

std::string mutate(std::string s, std::mt19937& rng) {
    static const std::string alphabet = "{}[]\",:\\ 0123456789-.eEtrufalsn";
    for (int e = 0, n = 1 + static_cast<int>(rng() % 3); e < n && !s.empty(); ++e) {
        const std::size_t pos = rng() % s.size();
        const char c = alphabet[rng() % alphabet.size()];
        switch (rng() % 3) {
            case 0:
                s[pos] = c;
                break;
            case 1:
                s.erase(pos, 1);
                break;
            default:
                s.insert(pos, 1, c);
        }
    }
    return s;
}

// The same JSON spelled the general way: the first character of every string (names and
// values) as a \u escape, and every integer outside strings with a ".0". Only for valid JSON
// without arrays (an array's raw text is kept as written).
std::string general_spelling(const std::string& json) {
    std::string out;
    bool in_string = false;
    for (std::size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        out += c;
        if (in_string) {
            if (c == '\\')
                out += json[++i];
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
            const char next = json[i + 1];
            if (next != '"' && next != '\\') {
                out += fmt::format("\\u{:04x}", static_cast<unsigned char>(next));
                ++i;
            }
        } else if (c >= '0' && c <= '9') {
            const char next = json[i + 1];
            const bool integer_ends = !(next >= '0' && next <= '9') && next != '.' && next != 'e' && next != 'E';
            std::size_t start = out.size() - 1;
            while (start > 0 && ((out[start - 1] >= '0' && out[start - 1] <= '9') || out[start - 1] == '-')) --start;
            const bool fraction = start > 0 && (out[start - 1] == '.' || out[start - 1] == 'e' ||
                                                out[start - 1] == 'E' || out[start - 1] == '+');
            if (integer_ends && !fraction) out += ".0";
        }
    }
    return out;
}

// A log of `lines` lines (valid, random, mutated; `srun -l` prefixes on some) and its
// general spelling.
std::pair<std::string, std::string> two_spellings(std::mt19937& rng, int lines) {
    std::string fast, general;
    for (int i = 0; i < lines; ++i) {
        std::string json = random_record(rng);
        if (rng() % 4 == 0) json = mutate(json, rng);
        const std::string prefix = rng() % 2 ? "0: :::MLLOG " : ":::MLLOG ";
        const bool valid = nlohmann::json::accept(json) && json.find('[') == std::string::npos;
        fast += prefix + json + "\n";
        general += prefix + (valid ? general_spelling(json) : json) + "\n";
    }
    return {fast, general};
}

}  // namespace

TEST(MlperfFastPaths, GeneralSpellingIsTheSameJson) {
    const std::string json = R"({"key": "run_start", "time_ms": 1721026000001, "value": 12, "x": -3, "y": 1.5e3})";
    const std::string general = general_spelling(json);
    EXPECT_EQ(general,
              R"({"\u006bey": "\u0072un_start", "\u0074ime_ms": 1721026000001.0, "\u0076alue": 12.0, "\u0078": -3.0, )"
              R"("\u0079": 1.5e3})");
    EXPECT_EQ(nlohmann::json::parse(general), nlohmann::json::parse(json));
}

TEST(MlperfFastPaths, RandomAndMutatedRecordsGiveTheSameLogDataBothWays) {
    std::mt19937 rng(20261127);
    int compared_records = 0, respelled = 0;
    for (int round = 0; round < 300; ++round) {
        const auto [fast, general] = two_spellings(rng, 1 + static_cast<int>(rng() % 40));
        respelled += fast != general;
        const LogData a = parse_text("mlperf", fast);
        const LogData b = parse_text("mlperf", general);
        ASSERT_EQ(parse_fingerprint(a, false), parse_fingerprint(b, false)) << "round " << round << "\n"
                                                                            << fast << "\n"
                                                                            << general;
        compared_records += static_cast<int>(a.stats.records);
    }
    EXPECT_GT(respelled, 250);          // (a log of one mutated, invalid line is left as it is)
    EXPECT_GT(compared_records, 2000);  // most records are understood, not only counted corrupt
}

TEST(MlperfFastPaths, RealLogsGiveTheSameLogDataBothWays) {
    for (const char* file : {"tests/data/logs/real/mlperf_v5.1_amd_mi355x_llama31_8b_result_0_excerpt.txt",
                             "fuzz/corpus/mlperf/variants.txt"}) {
        const std::string log = read_all(std::filesystem::path(TRAINBENCH_SOURCE_DIR) / file);
        std::string general;
        std::size_t start = 0;
        while (start < log.size()) {
            std::size_t end = log.find('\n', start);
            if (end == std::string::npos) end = log.size();
            std::string line = log.substr(start, end - start);
            const std::size_t mark = line.find(":::MLLOG");
            const std::size_t open = mark == std::string::npos ? mark : line.find('{', mark);
            if (open != std::string::npos && nlohmann::json::accept(line.substr(open)) &&
                line.find('[', open) == std::string::npos)
                line = line.substr(0, open) + general_spelling(line.substr(open));
            general += line + (end < log.size() ? "\n" : "");
            start = end + 1;
        }
        ASSERT_NE(general, log) << file;
        const LogData a = parse_text("mlperf", log);
        EXPECT_GT(a.stats.records, 10u) << file;
        EXPECT_EQ(parse_fingerprint(a, false), parse_fingerprint(parse_text("mlperf", general), false)) << file;
    }
}

// The line scans against the standard library's: the mark, the record's brace, a backslash.
TEST(MlperfFastPaths, LineScansAgreeWithStringViewFind) {
    namespace mllog = trainbench::metrics::detail::mllog;
    std::mt19937 rng(7);
    static const std::string pieces[] = {":::MLLOG", ":::MLLO", "::MLLOG", "M", ":",    " ",
                                         "{",        "\\",      "0: ",     "x", "MLLOG"};
    for (int i = 0; i < 20000; ++i) {
        std::string t;
        for (int k = static_cast<int>(rng() % 8); k > 0; --k) t += pieces[rng() % std::size(pieces)];
        std::string buffer = t + std::string(64, '\0');  // the padding a line has after it
        const std::string_view line(buffer.data(), t.size());
        const std::size_t pos = mllog::find_mark(line);
        ASSERT_EQ(pos, line.find(":::MLLOG")) << t;
        if (pos != std::string_view::npos) {
            ASSERT_EQ(mllog::find_record(line, pos), line.find('{', pos)) << t;
        }
        for (std::size_t n = 0; n <= t.size(); ++n)
            ASSERT_EQ(mllog::has_backslash(line.data(), n), line.substr(0, n).find('\\') != std::string_view::npos)
                << t << " " << n;
    }
}
