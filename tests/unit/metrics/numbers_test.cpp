// The numbers every text parser reads: leading_number() and to_number() give exactly the
// double std::from_chars gives (correctly rounded), whether the plain-decimal fast path or
// from_chars reads them, and stop where from_chars stops.
#include "metrics/common.hpp"

#include <gtest/gtest.h>

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace trainbench::metrics::detail;

namespace {

// from_chars' value and length, the reference; out of range, strtod's infinity or zero.
std::size_t reference(const std::string& s, double& v) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc::result_out_of_range) {
        v = std::strtod(s.c_str(), nullptr);
        return static_cast<std::size_t>(end - s.data());
    }
    return ec == std::errc() ? static_cast<std::size_t>(end - s.data()) : 0;
}

void expect_same(const std::string& s) {
    double want = 0, got = 0;
    const std::size_t want_len = reference(s, want);
    const std::size_t got_len = leading_number_length(s, got);
    ASSERT_EQ(got_len, want_len) << '"' << s << '"';
    if (want_len == 0) return;
    EXPECT_EQ(std::memcmp(&got, &want, sizeof got), 0) << '"' << s << "\": " << got << " vs " << want;
}

}  // namespace

TEST(Numbers, HandPickedDecimalsAndTheirEdges) {
    for (const char* s : {"0",
                          "-0",
                          "7",
                          "2347.0",
                          "7.12345",
                          "-1.5E-06",
                          "6.000000E-06",
                          "1e22",
                          "1e23",
                          "9007199254740992",
                          "9007199254740993",
                          "18446744073709551615",
                          "0.000000000000000000000001",
                          "123456789012345678901",
                          "1.7976931348623157e308",
                          "4.9e-324",
                          "1e400",
                          "1e-400",
                          "0.1",
                          "0.30000000000000004",
                          "5.39s",
                          "45.67GiB(57.72%)",
                          "1,234",
                          "1.",
                          ".5",
                          "1.e5",
                          "1e",
                          "1e+",
                          "1e-5x",
                          "1.5.3",
                          "-",
                          "--1",
                          "nan",
                          "inf",
                          "-inf",
                          "0x1p3",
                          "1e00022",
                          "00012.500",
                          "1E-22",
                          "1E-23"})
        expect_same(s);
}

TEST(Numbers, RandomDecimalsAreReadAsFromCharsReadsThem) {
    std::mt19937_64 rng(20261127);
    std::uniform_int_distribution<int> digits(1, 21), exp(-30, 30), coin(0, 3);
    for (int i = 0; i < 200000; ++i) {
        std::string s;
        if (coin(rng) == 0) s += '-';
        const int n = digits(rng);
        const int point = static_cast<int>(rng() % static_cast<unsigned>(n + 1));
        for (int d = 0; d < n; ++d) {
            if (d == point && d > 0) s += '.';
            s += static_cast<char>('0' + rng() % 10);
        }
        if (coin(rng) == 1) s += (coin(rng) < 2 ? "e" : "E") + std::to_string(exp(rng));
        if (coin(rng) == 2) s += " |";
        expect_same(s);
    }
}

TEST(Numbers, ALeadingPlusAndSpacesAreTaken) {
    double v = 0;
    EXPECT_EQ(leading_number_length("  +2.5 x", v), 6u);
    EXPECT_EQ(v, 2.5);
    EXPECT_EQ(leading_number_length("+-2", v), 0u);
    EXPECT_EQ(to_number(" 1.25 "), 1.25);
    EXPECT_FALSE(to_number("1.25x"));
}

// DatetimeReader remembers the last minute it read: every timestamp still reads as
// parse_datetime reads it, in order or not, valid or not.
TEST(Datetime, TheReaderReadsWhatParseDatetimeReads) {
    std::mt19937 rng(7);
    auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
    DatetimeReader reader;
    for (int i = 0; i < 100000; ++i) {
        // mostly a few minutes (the reader's remembered one), now and then an impossible field
        std::string s = fmt::format("2026-{:02}-{:02} {:02}:{:02}:{:02}", pick(50) ? 8 : 13, pick(50) ? 1 : 32,
                                    pick(50) ? pick(2) : 24, pick(50) ? pick(3) : 60, pick(62));
        if (pick(2)) s += fmt::format(",{:03}", pick(1000));
        if (pick(4) == 0) s += pick(2) ? "+02:00" : "-0530";
        if (pick(20) == 0) s[static_cast<std::size_t>(pick(static_cast<int>(s.size())))] = 'x';
        if (pick(20) == 0) s.resize(static_cast<std::size_t>(pick(static_cast<int>(s.size()))));
        const std::optional<double> want = parse_datetime(s), got = reader.read(s);
        ASSERT_EQ(got.has_value(), want.has_value()) << s;
        if (want) {
            ASSERT_EQ(*got, *want) << s;
        }
    }
}
