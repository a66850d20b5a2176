// Megatron iteration lines are split into "key: value" segments by one pass over the '|' and
// ':' positions (DelimiterScanner, SSE2 where the target has it). Checked against the plain
// reading they replace (each '|' segment trimmed, split at its last ':', the key trimmed, the
// value's leading number) on random and mutated lines: the same series, points and field
// count; and the SSE2 mask against the byte-by-byte one at every length and offset.
#include "metrics/common.hpp"
#include "metrics/parsers.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace trainbench::metrics;
using namespace trainbench::metrics::detail;

namespace {

using Values = std::map<std::string, std::vector<std::uint64_t>>;  // series -> value bits

// The reading before the scanner, of the text after the "iteration i/N |" match.
std::size_t reference_fields(std::string_view rest, bool complete, Values& out) {
    std::size_t fields = 0;
    while (!rest.empty()) {
        std::size_t bar = rest.find('|');
        if (bar == std::string_view::npos && !complete) break;
        std::string_view seg = trim(rest.substr(0, bar));
        rest = bar == std::string_view::npos ? std::string_view{} : rest.substr(bar + 1);
        std::size_t colon = seg.rfind(':');
        if (seg.empty() || colon == std::string_view::npos) continue;
        std::string_view key = trim(seg.substr(0, colon));
        if (key.empty()) continue;
        auto value = leading_number(seg.substr(colon + 1));
        if (!value) continue;
        ++fields;
        const bool elapsed = key == "elapsed time per iteration (ms)";
        const double v = elapsed ? *value / 1000.0 : *value;
        // (one step: a key repeated on the line replaces its earlier value)
        out[elapsed ? std::string(names::step_time_s) : std::string(key)] = {std::bit_cast<std::uint64_t>(v)};
    }
    return fields;
}

std::size_t scanned_fields(std::string_view line, bool complete, Values& out) {
    static const std::vector<NameMapping> no_mapping;
    LogData data;
    ParseOptions options;
    SeriesSink sink(data, options, no_mapping);
    IterationLine it = stage_iteration_line(line, complete, sink);
    EXPECT_TRUE(it.matched);
    sink.commit();
    for (const auto& [name, s] : data.series)
        for (const Point& p : s.points) out[name].push_back(std::bit_cast<std::uint64_t>(p.value));
    return it.fields;
}

constexpr std::string_view k_head = " [2026-08-22 10:00:05] iteration        7/  500000 |";
constexpr std::string_view k_body =
    " consumed samples:          256 | elapsed time per iteration (ms): 5400.9 | throughput per GPU "
    "(TFLOP/s/GPU): 2344.3 | learning rate: 6.000000E-06 | global batch size:   256 | lm loss: 2.564700E+00 | "
    "loss scale: 1.0 | grad norm: 1.960 | number of skipped iterations:   0 | number of nan iterations:   0 |";

std::string mutate(std::mt19937_64& rng, std::string s) {
    static constexpr std::string_view alphabet = " \t\r:|:|0123456789.e-+nainf x";
    for (int n = static_cast<int>(rng() % 6); n > 0; --n) {
        const std::size_t at = rng() % (s.size() + 1);
        switch (rng() % 3) {
            case 0:
                s.insert(at, 1, alphabet[rng() % alphabet.size()]);
                break;
            case 1:
                if (at < s.size()) s.erase(at, 1 + rng() % 8);
                break;
            default:
                if (at < s.size()) s[at] = alphabet[rng() % alphabet.size()];
        }
    }
    if (rng() % 4 == 0) s.resize(rng() % (s.size() + 1));  // cut short
    return s;
}

}  // namespace

TEST(IterationLine, SegmentsAreReadAsTheirPlainSplitReadsThem) {
    std::mt19937_64 rng(2026);
    std::size_t with_fields = 0;
    for (int i = 0; i < 20000; ++i) {
        std::string body = i % 10 == 0 ? std::string(k_body) : mutate(rng, std::string(k_body));
        if (i % 7 == 0) body += std::string(rng() % 200, ' ') + "key: " + std::to_string(rng() % 1000);
        const bool complete = rng() % 3 != 0;
        Values want, got;
        const std::size_t want_fields = reference_fields(body, complete, want);
        const std::size_t got_fields = scanned_fields(std::string(k_head) + body, complete, got);
        ASSERT_EQ(got_fields, want_fields) << "line: " << body << (complete ? "" : " (incomplete)");
        ASSERT_EQ(got, want) << "line: " << body << (complete ? "" : " (incomplete)");
        with_fields += want_fields > 0;
    }
    EXPECT_GT(with_fields, 15000u);  // most lines still hold values
}

TEST(IterationLine, TheDelimiterMaskIsTheByteByBytesOne) {
    std::mt19937_64 rng(64);
    std::string buf(300, ' ');
    for (int round = 0; round < 200; ++round) {
        for (char& c : buf) c = "ab|:: |x\t"[rng() % 9];
        for (std::size_t offset = 0; offset < 80; ++offset)
            for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{17}, std::size_t{63}, std::size_t{64},
                                  std::size_t{65}, std::size_t{200}})
                ASSERT_EQ(delimiter_mask(buf.data() + offset, n, '|', ':'),
                          delimiter_mask_bytes(buf.data() + offset, n, '|', ':'))
                    << "offset " << offset << ", n " << n;
    }
    // The scanner walks them all in order, across 64-byte blocks.
    std::vector<std::size_t> want, got;
    for (std::size_t i = 0; i < buf.size(); ++i)
        if (buf[i] == '|' || buf[i] == ':') want.push_back(i);
    DelimiterScanner scan(buf, '|', ':');
    for (std::size_t at = scan.next(); at != std::string_view::npos; at = scan.next()) got.push_back(at);
    EXPECT_EQ(got, want);
}
