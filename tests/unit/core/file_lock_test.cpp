// FileLock (flock on a lock file naming its holder) and append_line's handling of torn lines.
#include <trainbench/core.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace trainbench;

namespace {
fs::path fresh_dir(const std::string& tag) {
    fs::path d =
        fs::temp_directory_path() / ("tb-lock-" + tag + "-" + std::to_string(::getpid()) + "-" +
                                     std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    fs::create_directories(d);
    return d;
}
}  // namespace

TEST(FileLock, OneHolderAtATimeNamedByPidAndHost) {
    fs::path dir = fresh_dir("one");
    fs::path path = dir / "sub" / "state.lock";
    std::optional<FileLock> first = FileLock::try_lock(path);
    ASSERT_TRUE(first) << "the lock file and its folder are created";
    // flock locks open files, not processes: a second open in this process is refused too.
    EXPECT_FALSE(FileLock::try_lock(path));
    EXPECT_EQ(FileLock::holder(path).rfind("pid " + std::to_string(::getpid()) + " on host ", 0), 0u)
        << FileLock::holder(path);
    int told = 0;
    std::string named;
    auto t0 = std::chrono::steady_clock::now();
    std::optional<FileLock> waited =
        FileLock::lock_within(path, std::chrono::milliseconds(100), [&](const std::string& holder) {
            ++told;
            named = holder;
        });
    EXPECT_FALSE(waited);
    EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(100));
    EXPECT_EQ(told, 1) << "told once, not on every poll";
    EXPECT_EQ(named, FileLock::holder(path));
    first.reset();
    EXPECT_EQ(FileLock::holder(path), "another process") << "a released lock names nobody";
    EXPECT_TRUE(FileLock::try_lock(path)) << "free again once released";
    fs::remove_all(dir);
}

TEST(FileLock, MovedLocksStayHeldUntilTheLastOwnerGoes) {
    fs::path dir = fresh_dir("move");
    fs::path path = dir / "x.lock";
    {
        FileLock a = FileLock::lock(path);
        FileLock b = std::move(a);
        EXPECT_FALSE(FileLock::try_lock(path));
    }
    EXPECT_TRUE(FileLock::try_lock(path));
    fs::remove_all(dir);
}

TEST(AppendLine, ATornLastLineIsClosedSoItNeverSwallowsTheNextOne) {
    fs::path dir = fresh_dir("append");
    fs::path file = dir / "journal.jsonl";
    std::ofstream(file) << "{\"a\":1}\n{\"torn\":";  // a crash mid-write
    append_line(file, "{\"b\":2}");
    append_line(file, "{\"c\":3}");
    EXPECT_EQ(read_file(file), "{\"a\":1}\n{\"torn\":\n{\"b\":2}\n{\"c\":3}\n");
    fs::remove_all(dir);
}
