// core/files.hpp: reading and writing files so that readers never see half of
// one, and the exclusive lock file (FileLock). Part of core's public header:
// include <trainbench/core.hpp>.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace trainbench {

// Reads a whole file; throws RuntimeError naming the path on failure.
[[nodiscard]] std::string read_file(const std::filesystem::path& path);
// Writes through a temporary file in the same directory, fsyncs and renames,
// so readers see the old content or the new, never half of it.
void write_file_atomic(const std::filesystem::path& path, std::string_view content,
                       std::filesystem::perms mode = std::filesystem::perms::owner_read |
                                                     std::filesystem::perms::owner_write |
                                                     std::filesystem::perms::group_read |
                                                     std::filesystem::perms::others_read);
// Appends one line (a '\n' is added) with O_APPEND and fsync. A torn last line (a crash) is
// closed first; a line that cannot be written whole (a full disk) is taken back.
void append_line(const std::filesystem::path& path, std::string_view line);

// An exclusive flock(2) on a lock file, released when destroyed or when the process ends in
// any way (SIGKILL included). The holder writes "pid P on host H" into the file, so those
// who wait can say for whom.
class FileLock {
public:
    FileLock(FileLock&& other) noexcept;
    FileLock& operator=(FileLock&& other) noexcept;
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;
    ~FileLock();
    // Takes the lock if it is free; nothing when another process holds it.
    [[nodiscard]] static std::optional<FileLock> try_lock(const std::filesystem::path& path);
    // Waits up to `limit` (polling; Ctrl-C throws InterruptedError); `on_wait(holder)` is
    // called once when the lock is busy.
    [[nodiscard]] static std::optional<FileLock> lock_within(
        const std::filesystem::path& path, std::chrono::milliseconds limit,
        const std::function<void(const std::string& holder)>& on_wait = {});
    // Waits as long as it takes.
    [[nodiscard]] static FileLock lock(const std::filesystem::path& path,
                                       const std::function<void(const std::string& holder)>& on_wait = {});
    // "pid P on host H" of the current holder, or "another process".
    [[nodiscard]] static std::string holder(const std::filesystem::path& path);

private:
    FileLock(int fd, std::filesystem::path path);
    void release();
    int m_fd = -1;
    std::filesystem::path m_path;
};

}  // namespace trainbench
