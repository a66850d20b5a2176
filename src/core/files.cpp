#include <trainbench/core.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <random>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace trainbench {

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw RuntimeError(fmt::format("cannot read '{}': {}", path.string(), std::strerror(errno)));
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

static void write_all(int fd, std::string_view data, const fs::path& path) {
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            throw RuntimeError(fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno)));
        }
        data.remove_prefix(static_cast<std::size_t>(n));
    }
}

void write_file_atomic(const fs::path& path, std::string_view content, fs::perms mode) {
    fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw RuntimeError(fmt::format("cannot create directory '{}': {}", dir.string(), ec.message()));
    std::random_device rd;
    fs::path tmp = dir / fmt::format(".{}.tmp.{}.{:08x}", path.filename().string(), ::getpid(), rd());
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) throw RuntimeError(fmt::format("cannot create '{}': {}", tmp.string(), std::strerror(errno)));
    try {
        write_all(fd, content, tmp);
        if (::fsync(fd) != 0)
            throw RuntimeError(fmt::format("cannot sync '{}': {}", tmp.string(), std::strerror(errno)));
    } catch (...) {
        ::close(fd);
        fs::remove(tmp, ec);
        throw;
    }
    ::close(fd);
    fs::permissions(tmp, mode, ec);
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        int saved = errno;
        fs::remove(tmp, ec);
        throw RuntimeError(fmt::format("cannot rename into '{}': {}", path.string(), std::strerror(saved)));
    }
}

void append_line(const fs::path& path, std::string_view line) {
    // Never through a symlink (a journal on a shared store planted as a link to another file).
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0 && errno == ELOOP)
        throw RuntimeError(
            fmt::format("'{}' is a symbolic link; trainbench does not append through it", path.string()));
    if (fd < 0) throw RuntimeError(fmt::format("cannot open '{}': {}", path.string(), std::strerror(errno)));
    off_t start = ::lseek(fd, 0, SEEK_END);
    std::string buf;
    // A line torn by a crash or a full disk is closed first, so it never swallows this one.
    char last = '\n';
    if (start > 0 && ::pread(fd, &last, 1, start - 1) == 1 && last != '\n') buf += '\n';
    buf += line;
    buf += '\n';
    try {
        write_all(fd, buf, path);
        if (::fsync(fd) != 0)
            throw RuntimeError(fmt::format("cannot sync '{}': {}", path.string(), std::strerror(errno)));
    } catch (...) {
        // Take back a partial line (a full disk), unless another writer appended after it.
        struct stat st {};
        if (start >= 0 && ::fstat(fd, &st) == 0 && st.st_size > start &&
            st.st_size <= start + static_cast<off_t>(buf.size()))
            (void)::ftruncate(fd, start);
        ::close(fd);
        throw;
    }
    ::close(fd);
}

}  // namespace trainbench
