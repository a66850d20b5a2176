// Issue #35's core pieces: lock files never followed through a link (nor a hard link, nor a
// file that is not regular), the one UTC formatter and parser whatever TZ says, and text made
// safe for CSV (formula cells) and terminals (control characters).
#include "support/temp_dir.hpp"

#include <trainbench/core.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace trainbench;
using trainbench::testing::TempDir;

namespace {

std::string content(const fs::path& p) {
    return read_file(p);
}

// Sets TZ for the life of the object.
struct Zone {
    std::string old;
    bool had;
    explicit Zone(const char* tz) : had(std::getenv("TZ") != nullptr) {
        if (had) old = std::getenv("TZ");
        ::setenv("TZ", tz, 1);
        ::tzset();
    }
    ~Zone() {
        if (had)
            ::setenv("TZ", old.c_str(), 1);
        else
            ::unsetenv("TZ");
        ::tzset();
    }
};
}  // namespace

TEST(FileLockLinks, ASymlinkedLockIsRefusedAndItsTargetKeepsItsContent) {
    TempDir t;
    const fs::path victim = t.path() / "victim.txt", lock = t.path() / "state.lock";
    std::ofstream(victim) << "precious\n";
    fs::create_symlink(victim, lock);
    EXPECT_THROW((void)FileLock::try_lock(lock), RuntimeError);
    EXPECT_THROW((void)FileLock::lock_within(lock, std::chrono::milliseconds(10)), RuntimeError);
    EXPECT_EQ(content(victim), "precious\n");
    EXPECT_EQ(FileLock::holder(lock), "another process") << "holder() does not read through the link either";
    // A dangling link is not followed to create its target.
    fs::remove(lock);
    fs::create_symlink(t.path() / "created-through-link", lock);
    EXPECT_THROW((void)FileLock::try_lock(lock), RuntimeError);
    EXPECT_FALSE(fs::exists(t.path() / "created-through-link"));
}

TEST(FileLockLinks, AHardLinkAFifoAndADirectoryAreRefused) {
    TempDir t;
    const fs::path victim = t.path() / "victim.txt", lock = t.path() / "state.lock";
    std::ofstream(victim) << "precious\n";
    fs::create_hard_link(victim, lock);
    EXPECT_THROW((void)FileLock::try_lock(lock), RuntimeError);
    EXPECT_EQ(content(victim), "precious\n");
    fs::remove(lock);
    ASSERT_EQ(::mkfifo(lock.c_str(), 0600), 0);
    EXPECT_THROW((void)FileLock::try_lock(lock), RuntimeError) << "and the open does not hang on the FIFO";
    fs::remove(lock);
    fs::create_directory(lock);
    EXPECT_THROW((void)FileLock::try_lock(lock), RuntimeError);
}

TEST(FileLockLinks, AnotherUsersLockFileIsLockedButNeverWritten) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the file to another user";
    TempDir t;
    const fs::path lock = t.path() / "state.lock";
    std::ofstream(lock) << "theirs\n";
    ASSERT_EQ(::chown(lock.c_str(), 65534, 65534), 0);
    {
        std::optional<FileLock> held = FileLock::try_lock(lock);
        ASSERT_TRUE(held);
        EXPECT_FALSE(FileLock::try_lock(lock));
        EXPECT_EQ(content(lock), "theirs\n");
    }
    EXPECT_EQ(content(lock), "theirs\n") << "not emptied on release either";
}

TEST(AppendLineLinks, AJournalPlantedAsASymlinkIsNotAppendedThrough) {
    TempDir t;
    const fs::path victim = t.path() / "victim.txt", journal = t.path() / "journal.jsonl";
    std::ofstream(victim) << "precious\n";
    fs::create_symlink(victim, journal);
    EXPECT_THROW(append_line(journal, "{}"), RuntimeError);
    EXPECT_EQ(content(victim), "precious\n");
}

TEST(UtcTime, TheOneFormatterIsUtcWhateverTheZone) {
    const auto t = std::chrono::sys_days{std::chrono::year{2026} / 3 / 1} + std::chrono::hours{23} +
                   std::chrono::minutes{4} + std::chrono::seconds{5} + std::chrono::microseconds{678};
    for (const char* tz : {"UTC", "Pacific/Kiritimati", "America/Adak", "Asia/Kathmandu"}) {
        Zone zone(tz);
        EXPECT_EQ(format_utc(t), "2026-03-01T23:04:05Z") << tz;
        EXPECT_EQ(format_utc(t, UtcStyle::iso_micro), "2026-03-01T23:04:05.000678Z") << tz;
        EXPECT_EQ(format_utc(t, UtcStyle::compact), "20260301T230405Z") << tz;
        const auto read_back = parse_utc(utc_now());
        ASSERT_TRUE(read_back) << tz;
        EXPECT_LT(std::chrono::abs(*read_back - std::chrono::system_clock::now()), std::chrono::seconds(2)) << tz;
    }
    EXPECT_EQ(format_utc(std::chrono::system_clock::time_point{}), "1970-01-01T00:00:00Z");
}

TEST(UtcTime, ParsesRfc3339AndRefusesWhatIsNotATime) {
    auto iso = [](const char* text) {
        const auto t = parse_utc(text);
        return t ? format_utc(*t, UtcStyle::iso_micro) : std::string("none");
    };
    EXPECT_EQ(iso("2026-03-01T10:00:00Z"), "2026-03-01T10:00:00.000000Z");
    EXPECT_EQ(iso("2026-03-01T10:00:00+05:00"), "2026-03-01T05:00:00.000000Z");
    EXPECT_EQ(iso("2026-03-01T01:30:00-02:45"), "2026-03-01T04:15:00.000000Z");
    EXPECT_EQ(iso("2026-03-01T00:30:00+05:00"), "2026-02-28T19:30:00.000000Z");
    EXPECT_EQ(iso("2026-03-01"), "2026-03-01T00:00:00.000000Z");
    EXPECT_EQ(iso("2026-03-01T10:00"), "2026-03-01T10:00:00.000000Z");
    EXPECT_EQ(iso("2026-03-01T10:00:00.25Z"), "2026-03-01T10:00:00.250000Z");
    EXPECT_EQ(iso("2024-02-29T00:00:00Z"), "2024-02-29T00:00:00.000000Z");
    for (const char* bad : {"2026-02-30", "2026-02-29", "2026-13-01", "2026-00-10", "2026-03-01T25:00:00Z",
                            "2026-03-01T10:60:00Z", "2026-03-01T10:00:60Z", "25:00", "+05:00", "2026-03-01 00:00:00",
                            "2026-03-01T10:00:00+24:00", "2026-03-01T10:00:00+05", "2026-03-01T10:00:00.Z", "2026-3-1",
                            "yesterday", "", "2026-03-01T10:00:00Zjunk", "+026-03-01", "2026-03-01T-1:00"})
        EXPECT_EQ(iso(bad), "none") << bad;
}

TEST(SafeText, CsvNeutralisesFormulaCellsButNotNumbers) {
    EXPECT_EQ(csv_field("=cmd|' /C calc'!A0"), "\"'=cmd|' /C calc'!A0\"");
    EXPECT_EQ(csv_field("+1+1"), "\"'+1+1\"");
    EXPECT_EQ(csv_field("@SUM(A1)"), "\"'@SUM(A1)\"");
    EXPECT_EQ(csv_field("-2+3"), "\"'-2+3\"");
    EXPECT_EQ(csv_field("\t-x"), "\"'\t-x\"");
    EXPECT_EQ(csv_field("\rx"), "\"'\rx\"");
    EXPECT_EQ(csv_field("-0.5"), "-0.5");
    EXPECT_EQ(csv_field("-1e-3"), "-1e-3");
    EXPECT_EQ(csv_field("plain"), "plain");
    EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
    EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
}

TEST(SafeText, TerminalTextShowsControlCharactersInsteadOfObeyingThem) {
    EXPECT_EQ(terminal_safe("\x1b]0;pwned\a\x1b[31mred"), "\\x1b]0;pwned\\x07\\x1b[31mred");
    EXPECT_EQ(terminal_safe("two\nlines\ttab\r"), "two\\x0alines\\x09tab\\x0d");
    EXPECT_EQ(terminal_safe("two\nlines\ttab", true), "two\nlines\ttab");
    EXPECT_EQ(terminal_safe("\x7f"), "\\x7f");
    EXPECT_EQ(terminal_safe("csi \xc2\x9b"
                            "31m"),
              "csi \\u009b31m")
        << "C1 controls in UTF-8";
    EXPECT_EQ(terminal_safe("bad \x9b byte"), "bad \\x9b byte") << "a byte that is not UTF-8";
    EXPECT_EQ(terminal_safe("gr\xc3\xbc\xc3\x9f \xe2\x86\x92 ok"), "gr\xc3\xbc\xc3\x9f \xe2\x86\x92 ok")
        << "UTF-8 passes";
    EXPECT_EQ(html_escape("<a>\x1b"), "&lt;a&gt;\\x1b");
    EXPECT_EQ(md_escape("a|b\x1b"), "a\\|b\\x1b");
}
