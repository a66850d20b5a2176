#include "metrics/input.hpp"

#include <trainbench/core.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace trainbench::metrics::detail {

namespace {

// A mapped file that shrinks while it is read (truncated: a log rotated with copytruncate)
// faults with SIGBUS on its lost pages. The mappings are registered here, and a fault in one
// puts a page of zeros there and marks it lost: the reader sees the mark and reads on with
// read(2), as it would have seen the file end. A SIGBUS anywhere else goes to the handler
// that was there before.
struct MapSlot {
    std::atomic<std::uintptr_t> begin{0}, end{0};
    std::atomic<bool> lost{false}, used{false};
};
constexpr int k_map_slots = 64;
MapSlot g_map_slots[k_map_slots];
struct sigaction g_previous_sigbus {};
std::uintptr_t g_page = 4096;

void on_sigbus(int, siginfo_t* info, void*) {
    const auto at = reinterpret_cast<std::uintptr_t>(info->si_addr);
    for (MapSlot& s : g_map_slots) {
        if (at < s.begin.load(std::memory_order_acquire) || at >= s.end.load(std::memory_order_acquire)) continue;
        void* page = reinterpret_cast<void*>(at & ~(g_page - 1));
        // (mmap is a plain system call: safe here in practice, though POSIX does not list it)
        void* zeros = ::mmap(page, g_page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (zeros == page) {
            s.lost.store(true, std::memory_order_release);
            return;  // the access is retried and reads zeros
        }
        break;
    }
    ::sigaction(SIGBUS, &g_previous_sigbus, nullptr);  // the fault repeats under that handler
}

// A registry slot for [begin, begin + len), or -1 when none is free (the file is then read).
int register_mapping(const void* begin, std::size_t len) {
    static std::once_flag installed;
    static bool ok = false;
    std::call_once(installed, [] {
        g_page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
        struct sigaction sa {};
        sa.sa_sigaction = on_sigbus;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        ok = ::sigaction(SIGBUS, &sa, &g_previous_sigbus) == 0;
    });
    if (!ok) return -1;
    for (int i = 0; i < k_map_slots; ++i) {
        MapSlot& s = g_map_slots[i];
        if (s.used.exchange(true)) continue;
        s.lost.store(false);
        const auto b = reinterpret_cast<std::uintptr_t>(begin);
        s.begin.store(b, std::memory_order_release);
        s.end.store(b + len, std::memory_order_release);
        return i;
    }
    return -1;
}

void release_mapping(int slot) {
    MapSlot& s = g_map_slots[slot];
    s.end.store(0, std::memory_order_release);
    s.begin.store(0, std::memory_order_release);
    s.used.store(false, std::memory_order_release);
}

}  // namespace

FileSource::FileSource(const std::filesystem::path& path) : m_path(path) {
    m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0)
        throw RuntimeError(fmt::format("cannot open '{}': {}", path.string(), std::strerror(errno)),
                           "check the path and its permissions");
    struct stat st {};
    if (::fstat(m_fd, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            ::close(m_fd);
            m_fd = -1;
            throw RuntimeError(fmt::format("'{}' is a directory", path.string()),
                               "only TensorBoard logs can be read from a directory; name a file");
        }
        m_size = static_cast<std::uint64_t>(st.st_size);
        m_regular = S_ISREG(st.st_mode);
    }
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(m_fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
}

FileSource::FileSource(const std::filesystem::path& path, std::uint64_t begin, std::uint64_t end,
                       std::uint64_t reserve_hint)
    : FileSource(path) {
    m_ranged = true;
    m_reserve_hint = reserve_hint;
    m_end = std::min(end, m_size);
    m_pos = std::min(begin, m_end);
}

FileSource::~FileSource() {
    if (m_map) {
        if (m_map_slot >= 0) release_mapping(m_map_slot);
        ::munmap(m_map, m_map_len);
    }
    if (m_fd >= 0) ::close(m_fd);
}

MappedInput FileSource::map() {
    const std::uint64_t start = m_ranged ? m_pos : 0;
    const std::uint64_t end = m_ranged ? m_end : m_size;
    if (m_map || !m_regular || end < start + k_min_mapped || end > SIZE_MAX) return {};
    if (!m_ranged && ::lseek(m_fd, 0, SEEK_CUR) != 0) return {};  // read from already
    // From the page holding the first byte to the file's end (a part's lines are read on past
    // the range, for the padding), the page after the end reading as zeros.
    const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::uint64_t at = start / page * page;
    const auto len = static_cast<std::size_t>(m_size - at);
    void* m = ::mmap(nullptr, len, PROT_READ, MAP_PRIVATE, m_fd, static_cast<off_t>(at));
    if (m == MAP_FAILED) return {};
    const int slot = register_mapping(m, len);
    if (slot < 0) {
        ::munmap(m, len);
        return {};
    }
    ::madvise(m, len, MADV_SEQUENTIAL);
    m_map = m;
    m_map_len = len;
    m_map_at = at;
    m_map_start = start;
    m_map_slot = slot;
    const std::size_t tail = static_cast<std::size_t>(m_size % page);
    const std::size_t zeros = tail == 0 ? 0 : static_cast<std::size_t>(page) - tail;
    const char* data = static_cast<const char*>(m) + (start - at);
    return {data, static_cast<std::size_t>(end - start), len - static_cast<std::size_t>(start - at) + zeros};
}

void FileSource::resume_at(std::uint64_t n) {
    if (m_ranged) {
        m_pos = std::min(m_map_start + n, m_end);
    } else if (::lseek(m_fd, static_cast<off_t>(m_map_start + n), SEEK_SET) < 0) {
        throw RuntimeError(fmt::format("cannot read '{}': {}", m_path.string(), std::strerror(errno)));
    }
}

void FileSource::release_mapped(std::uint64_t n) {
    if (!m_map) return;
    const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::uint64_t upto = std::min<std::uint64_t>((m_map_start - m_map_at + n) / page * page, m_map_len);
    if (upto <= m_map_released) return;
    ::madvise(static_cast<char*>(m_map) + m_map_released, static_cast<std::size_t>(upto) - m_map_released,
              MADV_DONTNEED);
    m_map_released = static_cast<std::size_t>(upto);
}

bool FileSource::map_lost() const {
    return m_map_slot >= 0 && g_map_slots[m_map_slot].lost.load(std::memory_order_acquire);
}

std::size_t FileSource::read_at(char* dst, std::size_t n, std::uint64_t offset) const {
    for (;;) {
        ssize_t got = ::pread(m_fd, dst, n, static_cast<off_t>(offset));
        if (got >= 0) return static_cast<std::size_t>(got);
        if (errno == EINTR) continue;
        throw RuntimeError(fmt::format("cannot read '{}': {}", m_path.string(), std::strerror(errno)));
    }
}

std::size_t FileSource::read(char* dst, std::size_t n) {
    if (m_ranged) {
        std::size_t got = read_at(dst, static_cast<std::size_t>(std::min<std::uint64_t>(n, m_end - m_pos)), m_pos);
        m_pos += got;
        return got;
    }
    for (;;) {
        ssize_t got = ::read(m_fd, dst, n);
        if (got >= 0) return static_cast<std::size_t>(got);
        if (errno == EINTR) continue;
        throw RuntimeError(fmt::format("cannot read '{}': {}", m_path.string(), std::strerror(errno)));
    }
}

std::size_t MemorySource::read(char* dst, std::size_t n) {
    std::size_t take = std::min({n, m_chunk, m_data.size() - m_pos});
    if (take) std::memcpy(dst, m_data.data() + m_pos, take);
    m_pos += take;
    return take;
}

ByteWindow::ByteWindow(Source& source, std::size_t initial, std::size_t max_window)
    : m_source(source), m_cap(std::max<std::size_t>(initial, 64)), m_max(std::max(max_window, m_cap)) {
    // A small input of known size needs no 1 MiB buffer (the window grows when needed).
    if (std::uint64_t hint = source.size_hint(); hint > 0 && hint + 1 < m_cap)
        m_cap = std::max<std::size_t>(static_cast<std::size_t>(hint) + 1, 4096);
    // Not zero-filled (the window of each part of a large file, and a window grown for a long
    // line, would be cleared whole): only the padding after the data is, after every read.
    m_buf = std::make_unique_for_overwrite<char[]>(m_cap + k_padding);
    clear_padding();
}

void ByteWindow::clear_padding() {
    std::memset(m_buf.get() + m_end, 0, k_padding);
}

bool ByteWindow::fill() {
    if (m_eof) return false;
    if (m_pos > 0) {
        std::size_t live = m_end - m_pos;
        if (live) std::memmove(m_buf.get(), m_buf.get() + m_pos, live);
        m_pos = 0;
        m_end = live;
    }
    if (m_end == m_cap) {
        if (m_cap >= m_max) return false;
        std::size_t cap = std::min(m_cap * 2, m_max);
        auto bigger = std::make_unique_for_overwrite<char[]>(cap + k_padding);
        std::memcpy(bigger.get(), m_buf.get(), m_end);
        m_buf = std::move(bigger);
        m_cap = cap;
    }
    std::size_t got = m_source.read(m_buf.get() + m_end, m_cap - m_end);
    m_end += got;
    clear_padding();
    if (got == 0) {
        m_eof = true;
        return false;
    }
    return true;
}

bool ByteWindow::ensure_slow(std::size_t n) {
    while (available() < n)
        if (!fill()) return false;
    return true;
}

void ByteWindow::advance_slow(std::size_t n) {
    std::size_t here = std::min(n, available());
    m_pos += here;
    m_offset += here;
    n -= here;
    while (n > 0) {
        if (!fill()) return;
        here = std::min(n, available());
        m_pos += here;
        m_offset += here;
        n -= here;
    }
}

std::string_view strip_kubectl_prefix(std::string_view line) {
    constexpr std::string_view open = "[pod/";
    constexpr std::size_t k_longest = 400;  // pod names <= 253, container names <= 63 characters
    if (line.size() < open.size() + 4 || line.compare(0, open.size(), open) != 0 || line[open.size()] == '/')
        return line;
    std::size_t slashes = 0;
    for (std::size_t i = open.size(); i < line.size() && i < k_longest; ++i) {
        const char c = line[i];
        if (c == '/') {
            ++slashes;
        } else if (c == ']') {
            bool ok = slashes == 1 && line[i - 1] != '/' && i + 1 < line.size() && line[i + 1] == ' ';
            return ok ? line.substr(i + 2) : line;
        } else if (c == ' ' || c == '\t' || c == '[') {
            return line;
        }
    }
    return line;
}

LineReader::LineReader(Source& source, std::size_t initial, std::size_t max_line)
    : m_source(source), m_mapped(source.map()), m_max_line(max_line), m_window(source, initial, max_line) {
    if (m_mapped.data) {
        // The last line handed out in place ends k_padding readable bytes before the mapping's end.
        const std::size_t room = m_mapped.readable > k_padding ? m_mapped.readable - k_padding : 0;
        m_mapped_end = std::min(m_mapped.size, room);
        if (m_mapped_end == 0) leave_mapping();
    }
}

void LineReader::leave_mapping() {
    m_mapped_done = m_mapped_pos;
    m_mapped_end = m_mapped_pos;  // no more lines in place
    m_source.resume_at(m_mapped_pos);
}

// A line of the mapped input where it lies, when its '\n' is within the maximum line length
// and leaves k_padding readable bytes after it; else (and when the file shrank) the window
// reads on from the line's start.
bool LineReader::next_mapped(Line& line) {
    const char* d = m_mapped.data + m_mapped_pos;
    const std::size_t look = std::min(m_mapped_end - m_mapped_pos, m_max_line);
    const void* nl = std::memchr(d, '\n', look);
    if (!nl || m_source.map_lost()) {
        leave_mapping();
        return false;
    }
    // The resident set stays small: what was read is given back every MiB (as the read window holds one).
    constexpr std::size_t k_release = 1 << 20;
    if (m_mapped_pos - m_mapped_released >= k_release) {
        m_source.release_mapped(m_mapped_pos);  // (before this line)
        m_mapped_released = m_mapped_pos;
    }
    const auto len = static_cast<std::size_t>(static_cast<const char*>(nl) - d);
    line.text = std::string_view(d, len);
    line.number = ++m_line;
    line.complete = true;
    line.overlong = false;
    line.capacity = m_mapped.readable - m_mapped_pos;
    m_mapped_pos += len + 1;
    m_mapped_done = m_mapped_pos;
    if (m_mapped_pos == m_mapped_end) leave_mapping();
    return true;
}

bool LineReader::next(Line& line) {
    if (!(m_mapped_pos < m_mapped_end && next_mapped(line)) && !next_raw(line)) return false;
    std::string_view text = strip_kubectl_prefix(line.text);
    if (text.size() != line.text.size()) {
        const std::size_t cut = line.text.size() - text.size();
        line.text = text;
        line.capacity = line.capacity > cut ? line.capacity - cut : 0;
    }
    return true;
}

bool LineReader::next_raw(Line& line) {
    for (;;) {
        const char* d = m_window.data();
        std::size_t avail = m_window.available();
        if (m_scan < avail) {
            const void* nl = std::memchr(d + m_scan, '\n', avail - m_scan);
            if (nl) {
                auto len = static_cast<std::size_t>(static_cast<const char*>(nl) - d);
                line.text = std::string_view(d, len);
                line.number = ++m_line;
                line.complete = true;
                line.overlong = false;
                line.capacity = m_window.capacity_from_data();
                m_window.advance(len + 1);
                m_scan = 0;
                return true;
            }
            m_scan = avail;
        }
        if (m_window.fill()) continue;
        d = m_window.data();
        avail = m_window.available();
        if (m_window.eof()) {
            if (avail == 0) return false;
            line.text = std::string_view(d, avail);
            line.number = ++m_line;
            line.complete = false;
            line.overlong = false;
            line.capacity = m_window.capacity_from_data();
            m_window.advance(avail);
            m_scan = 0;
            return true;
        }
        // The window is full and holds no '\n': drop the line up to its end.
        line.text = {};
        line.number = ++m_line;
        line.complete = true;
        line.overlong = true;
        line.capacity = 0;
        for (;;) {
            m_window.advance(m_window.available());
            if (!m_window.fill()) break;
            const char* p = m_window.data();
            const void* nl = std::memchr(p, '\n', m_window.available());
            if (nl) {
                m_window.advance(static_cast<std::size_t>(static_cast<const char*>(nl) - p) + 1);
                break;
            }
        }
        m_scan = 0;
        return true;
    }
}

}  // namespace trainbench::metrics::detail
