// Replays the fuzz corpus (fuzz/corpus/<format>/) through every parser, plus
// deterministic mutations and random bytes: no parser throws, crashes or
// hangs, and chunking never changes a result. CI runs this; the libFuzzer
// targets in fuzz/ explore further.
#include "test_support.hpp"

#include <random>

namespace fs = std::filesystem;
using namespace trainbench::metrics;
using namespace trainbench::metrics::testing;

namespace {

const std::vector<std::string> k_formats = {"dllogger",   "tensorboard",     "megatron",   "nemo",  "metaseq",
                                            "nccl-tests", "megatron-bridge", "torchtitan", "mlperf"};

fs::path corpus_dir() {
    return fs::path(TRAINBENCH_SOURCE_DIR) / "fuzz" / "corpus";
}

// A fingerprint of everything a parse produced.
std::string fingerprint(const LogData& d) {
    std::string s = std::to_string(d.stats.records) + "/" + std::to_string(d.stats.skipped) + "/" +
                    std::to_string(d.stats.corrupt) + "/" + std::to_string(d.stats.truncated_tail) + ";";
    for (const auto& [name, series] : d.series) {
        s += name + ":";
        for (const Point& p : series.points) s += std::to_string(p.step) + "=" + std::to_string(p.value) + ",";
    }
    for (const auto& [k, v] : d.parameters) s += k + "=" + v + ";";
    if (d.nccl) s += "nccl" + std::to_string(d.nccl->rows.size()) + std::to_string(d.nccl->avg_busbw.value_or(-1));
    return s;
}

std::vector<std::pair<std::string, std::string>> corpus(const std::string& format) {
    std::vector<std::pair<std::string, std::string>> files;
    fs::path dir = corpus_dir() / format;
    if (!fs::exists(dir)) return files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file()) files.emplace_back(e.path().filename().string(), read_all(e.path()));
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

TEST(Robustness, EveryCorpusFileParsesAsItsFormatWithDataAndChunkingChangesNothing) {
    for (const std::string& format : k_formats) {
        auto files = corpus(format);
        ASSERT_FALSE(files.empty()) << "no corpus for " << format;
        for (const auto& [name, data] : files) {
            LogData whole = parse_text(format, data);
            EXPECT_GT(whole.stats.records, 0u) << format << "/" << name;
            std::string expected = fingerprint(whole);
            for (std::size_t chunk : {1u, 3u, 64u, 4097u})
                EXPECT_EQ(fingerprint(parse_text(format, data, {}, chunk)), expected)
                    << format << "/" << name << " chunk " << chunk;
        }
    }
}

TEST(Robustness, EveryParserSurvivesEveryOtherFormatsCorpus) {
    for (const std::string& source : k_formats)
        for (const auto& [name, data] : corpus(source))
            for (const std::string& parser : k_formats)
                EXPECT_NO_THROW((void)parse_text(parser, data)) << parser << " on " << source << "/" << name;
}

TEST(Robustness, MutatedCorpusFilesNeverThrow) {
    std::mt19937 rng(1234);
    for (const std::string& format : k_formats) {
        for (const auto& [name, data] : corpus(format)) {
            for (int round = 0; round < 200; ++round) {
                std::string m = data;
                int edits = 1 + static_cast<int>(rng() % 8);
                for (int e = 0; e < edits && !m.empty(); ++e) {
                    std::size_t pos = rng() % m.size();
                    switch (rng() % 4) {
                        case 0:
                            m[pos] = static_cast<char>(rng());
                            break;
                        case 1:
                            m.erase(pos, 1 + rng() % 16);
                            break;
                        case 2:
                            m.insert(pos, 1 + rng() % 8, static_cast<char>(rng()));
                            break;
                        default:
                            m.resize(pos);
                            break;  // truncation
                    }
                }
                std::size_t chunk = 1 + rng() % 97;
                EXPECT_NO_THROW((void)parse_text(format, m, {}, chunk)) << format << "/" << name << " round " << round;
            }
        }
    }
}

TEST(Robustness, RandomBytesAreSkippedOrCountedNeverFatal) {
    std::mt19937 rng(99);
    for (int round = 0; round < 50; ++round) {
        std::string junk(1 + rng() % 5000, '\0');
        for (char& c : junk) c = static_cast<char>(rng());
        for (const std::string& format : k_formats) {
            LogData d;
            EXPECT_NO_THROW(d = parse_text(format, junk)) << format;
            EXPECT_EQ(d.stats.bytes, junk.size()) << format;
        }
    }
}
