// FileLock: an exclusive flock(2) on a lock file that names its holder.
#include <trainbench/core.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace trainbench {

namespace {

std::string this_host() {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
    return buf;
}

// Not close-on-exec, on purpose: every command started while the lock is held (sbatch, kubectl)
// holds it too, so when trainbench is killed mid-submission the lock stays held until an
// orphaned sbatch has finished, and nobody takes that submission for abandoned while it may
// still reach the scheduler. Long-lived children (the local backend's jobs) close it
// (closefrom in their spawn), and a normal release unlocks for every holder at once.
//
// The lock file is never followed through a link: on a shared store another user could plant
// `state.lock` as a symlink (or a hard link) to a file of whoever runs trainbench next, which
// the holder's note would then overwrite. O_NOFOLLOW refuses a symlink; a file that is not a
// regular file, or has another name elsewhere (a hard link), is refused after opening (O_NONBLOCK:
// a FIFO does not hang the open). A lock file of another user is locked but never written.
int open_lock_file(const fs::path& path) {
    std::error_code ec;
    if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
    constexpr int k_flags = O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | k_flags, 0644);
    // A read-only store still locks (flock needs no write access); the holder's note is skipped.
    if (fd < 0 && (errno == EROFS || errno == EACCES)) fd = ::open(path.c_str(), O_RDONLY | k_flags);
    if (fd < 0 && errno == ELOOP)
        throw RuntimeError(
            fmt::format("the lock file '{}' is a symbolic link; trainbench does not follow it", path.string()),
            "remove the link (someone else may have planted it) and try again");
    if (fd < 0) throw RuntimeError(fmt::format("cannot open lock file '{}': {}", path.string(), std::strerror(errno)));
    struct stat st {};
    const char* wrong = nullptr;
    if (::fstat(fd, &st) != 0)
        wrong = "cannot be examined";
    else if (!S_ISREG(st.st_mode))
        wrong = "is not a regular file";
    else if (st.st_nlink != 1)
        wrong = "has another name (a hard link)";
    if (wrong) {
        ::close(fd);
        throw RuntimeError(fmt::format("the lock file '{}' {}; trainbench does not use it", path.string(), wrong),
                           "remove it (someone else may have planted it) and try again");
    }
    return fd;
}

// The holder's "pid P on host H", written into the lock file once the lock is taken, when the
// file is ours. A full disk must not stop the lock from working: the note is best effort.
void write_holder(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_uid != ::geteuid()) return;
    std::string note = fmt::format("pid {} on host {}\n", ::getpid(), this_host());
    if (::ftruncate(fd, 0) != 0) return;
    (void)::pwrite(fd, note.data(), note.size(), 0);
}

}  // namespace

FileLock::FileLock(int fd, fs::path path) : m_fd(fd), m_path(std::move(path)) {}

FileLock::FileLock(FileLock&& other) noexcept : m_fd(other.m_fd), m_path(std::move(other.m_path)) {
    other.m_fd = -1;
}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
    if (this != &other) {
        release();
        m_fd = other.m_fd;
        m_path = std::move(other.m_path);
        other.m_fd = -1;
    }
    return *this;
}

FileLock::~FileLock() {
    release();
}

void FileLock::release() {
    if (m_fd < 0) return;
    // The file stays: removing it would let a waiter lock an unlinked inode while a newcomer
    // locks a fresh file of the same name. Emptied, so no waiter names a holder that has gone.
    struct stat st {};
    if (::fstat(m_fd, &st) == 0 && st.st_uid == ::geteuid()) (void)::ftruncate(m_fd, 0);
    ::flock(m_fd, LOCK_UN);
    ::close(m_fd);
    m_fd = -1;
}

std::optional<FileLock> FileLock::try_lock(const fs::path& path) {
    int fd = open_lock_file(path);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int err = errno;
        ::close(fd);
        if (err == EWOULDBLOCK || err == EINTR) return std::nullopt;
        throw RuntimeError(fmt::format("cannot lock '{}': {}", path.string(), std::strerror(err)));
    }
    write_holder(fd);
    return FileLock(fd, path);
}

std::optional<FileLock> FileLock::lock_within(const fs::path& path, std::chrono::milliseconds limit,
                                              const std::function<void(const std::string&)>& on_wait) {
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + limit;
    // The holder writes its note just after it takes the lock: a waiter that finds the file
    // still empty looks again for a moment before it names "another process".
    constexpr auto k_note_grace = std::chrono::milliseconds(500);
    bool told = false;
    auto pause = std::chrono::milliseconds(5);
    while (true) {
        if (std::optional<FileLock> lock = try_lock(path)) return lock;
        const auto now = std::chrono::steady_clock::now();
        if (!told && on_wait) {
            std::string who = holder(path);
            if (who != "another process" || now - start >= k_note_grace || now >= deadline) {
                on_wait(who);
                told = true;
            }
        }
        if (now >= deadline) return std::nullopt;
        check_interrupted();
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::milliseconds(200));
    }
}

FileLock FileLock::lock(const fs::path& path, const std::function<void(const std::string&)>& on_wait) {
    constexpr auto k_forever = std::chrono::hours(24 * 365);
    return std::move(*lock_within(path, k_forever, on_wait));
}

std::string FileLock::holder(const fs::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) return "another process";
    char buf[300] = {};
    ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    ::close(fd);
    std::string text = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string{};
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    return text.empty() ? "another process" : text;
}

}  // namespace trainbench
