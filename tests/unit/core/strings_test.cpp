#include <trainbench/core.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

using namespace trainbench;

namespace {
ProcessRequest command(std::vector<std::string> argv) {
    ProcessRequest r;
    r.argv = std::move(argv);
    return r;
}
}  // namespace

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions) {
    EXPECT_EQ(edit_distance("", ""), 0u);
    EXPECT_EQ(edit_distance("tensor", "tensor"), 0u);
    EXPECT_EQ(edit_distance("tensor", "tenzor"), 1u);
    EXPECT_EQ(edit_distance("tensor_paralel", "tensor"), 8u);
    EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(EditDistance, CountsASwapOfNeighboursAsOneEdit) {
    EXPECT_EQ(edit_distance("nodse", "nodes"), 1u);
    EXPECT_EQ(edit_distance("ab", "ba"), 1u);
    EXPECT_EQ(edit_distance("tesnor", "tensor"), 1u);
    EXPECT_EQ(edit_distance("ca", "abc"), 3u);  // optimal string alignment: no edit of a swapped pair
    EXPECT_EQ(edit_distance("abcd", "badc"), 2u);
}

TEST(ClosestMatch, SuggestsTheKeyForASwappedPairOfLetters) {
    std::vector<std::string> keys = {"nodes", "name", "model", "steps"};
    EXPECT_EQ(closest_match("nodse", keys), "nodes");
    EXPECT_EQ(closest_match("mdoel", keys), "model");
}

TEST(ClosestMatch, SuggestsANearMissAndNothingForAFarOne) {
    std::vector<std::string> keys = {"tensor", "pipeline", "virtual_pipeline", "context", "sequence_parallel"};
    EXPECT_EQ(closest_match("tensr", keys), "tensor");
    EXPECT_EQ(closest_match("pipline", keys), "pipeline");
    EXPECT_EQ(closest_match("sequence_paralel", keys), "sequence_parallel");
    EXPECT_FALSE(closest_match("bananas", keys).has_value());
}

TEST(ClosestMatch, TreatsAContainedNameAsANearMiss) {
    std::vector<std::string> targets = {"aws-p4d-24xlarge", "gcp-a3-megagpu-8g", "local"};
    EXPECT_EQ(closest_match("aws-p4d", targets), "aws-p4d-24xlarge");
    EXPECT_EQ(did_you_mean("aws-p4d", targets), "did you mean 'aws-p4d-24xlarge'?");
    EXPECT_EQ(did_you_mean("zzz", targets), "");
}

TEST(ClosestMatch, AmongContainingNamesTheClosestSpellingWins) {
    // (alphabetical order would give the first; the nearest spelling is the likelier meaning)
    std::vector<std::string> gpus = {"h100-nvl-pcie-94gb", "h100-pcie-80gb", "h100-sxm-80gb"};
    EXPECT_EQ(closest_match("h100", gpus), "h100-sxm-80gb");
    EXPECT_EQ(closest_match("h100-pcie", gpus), "h100-pcie-80gb");
}

TEST(QuotedList, JoinsWithCommasAndALastSeparator) {
    EXPECT_EQ(quoted_list({"a"}), "'a'");
    EXPECT_EQ(quoted_list({"a", "b", "c"}), "'a', 'b' or 'c'");
}

TEST(Trim, DropsAsciiWhitespaceAtBothEndsOnly) {
    EXPECT_EQ(trim(" \t\r\n\v\f a b \t\r\n"), "a b");
    EXPECT_EQ(trim("a\tb"), "a\tb");
    EXPECT_EQ(trim(" \n "), "");
    EXPECT_EQ(trim(""), "");
    EXPECT_EQ(trim("\xa0x\x85"), "\xa0x\x85");  // bytes of UTF-8 text are not ASCII whitespace
}

TEST(SplitDots, SplitsAtEveryDot) {
    EXPECT_EQ(split_dots("parallelism.tensor"), (std::vector<std::string>{"parallelism", "tensor"}));
    EXPECT_EQ(split_dots("nodes"), (std::vector<std::string>{"nodes"}));
    EXPECT_EQ(split_dots("a..b"), (std::vector<std::string>{"a", "", "b"}));
    EXPECT_EQ(split_dots(""), (std::vector<std::string>{""}));
    EXPECT_EQ(split_dots("a."), (std::vector<std::string>{"a", ""}));
}

TEST(ShellQuote, LeavesPlainWordsAndQuotesEverythingElse) {
    EXPECT_EQ(shell_quote("gpt3-126m"), "gpt3-126m");
    EXPECT_EQ(shell_quote("/fsx:/fsx"), "/fsx:/fsx");
    EXPECT_EQ(shell_quote(""), "''");
    EXPECT_EQ(shell_quote("a b"), "'a b'");
    EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
    EXPECT_EQ(shell_quote("$(touch x)"), "'$(touch x)'");
}

TEST(ShellQuote, HostileValuesArriveByteExactThroughBash) {
    std::vector<std::string> hostile = {"x\"; rm -rf / #",
                                        "$(touch /tmp/tb-pwned)",
                                        "`id`",
                                        "a'b'c",
                                        "line1\nline2",
                                        "*",
                                        "~root",
                                        "${HOME}",
                                        "!!",
                                        "\\"};
    for (const std::string& v : hostile) {
        ProcessResult r = system_process_runner().run(command({"bash", "-c", "printf %s " + shell_quote(v)}));
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(r.out, v);
    }
    EXPECT_FALSE(std::filesystem::exists("/tmp/tb-pwned"));
}

TEST(YamlQuote, EscapesQuotesBackslashesAndControlCharacters) {
    EXPECT_EQ(yaml_quote("plain"), "\"plain\"");
    EXPECT_EQ(yaml_quote("a\"b"), "\"a\\\"b\"");
    EXPECT_EQ(yaml_quote("a\\b"), "\"a\\\\b\"");
    EXPECT_EQ(yaml_quote("a\nb"), "\"a\\nb\"");
    EXPECT_EQ(yaml_quote(std::string("a\x01") + "b"), "\"a\\x01b\"");
}

TEST(HumanUnits, FormatsBytesAndDurations) {
    EXPECT_EQ(human_bytes(512), "512 B");
    EXPECT_EQ(human_bytes(1536), "1.5 KiB");
    EXPECT_EQ(human_bytes(80.0 * 1024 * 1024 * 1024), "80.0 GiB");
    EXPECT_EQ(human_duration(12.34), "12.3s");
    EXPECT_EQ(human_duration(125), "2m05s");
    EXPECT_EQ(human_duration(3 * 86400 + 7200 + 60), "3d02h01m");
}

TEST(Strings, HtmlEscapeLeavesNoMarkupOrAttributeBreakout) {
    EXPECT_EQ(html_escape("gpt3-175b"), "gpt3-175b");
    EXPECT_EQ(html_escape("<script>alert('x' & \"y\")</script>"),
              "&lt;script&gt;alert(&#39;x&#39; &amp; &quot;y&quot;)&lt;/script&gt;");
}

TEST(Strings, CsvFieldQuotesOnlyWhatNeedsIt) {
    EXPECT_EQ(csv_field("plain text"), "plain text");
    EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
    EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
    EXPECT_EQ(csv_field("cr\r"), "\"cr\r\"");
}

// The published 64-bit FNV-1a values, and a hash taken in pieces equal to the whole.
TEST(Strings, Fnv1aMatchesTheReferenceValuesAndChains) {
    EXPECT_EQ(trainbench::fnv1a(""), 0xcbf29ce484222325ULL);
    EXPECT_EQ(trainbench::fnv1a("a"), 0xaf63dc4c8601ec8cULL);
    EXPECT_EQ(trainbench::fnv1a("foobar"), 0x85944171f73967e8ULL);
    EXPECT_EQ(trainbench::fnv1a("bar", trainbench::fnv1a("foo")), trainbench::fnv1a("foobar"));
}
