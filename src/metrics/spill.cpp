// Series points in an unnamed temporary file (see spill.hpp), and PointReader.
#include "metrics/spill.hpp"

#include <trainbench/core.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <unistd.h>

namespace trainbench::metrics {

namespace {

constexpr std::size_t k_read_block = 4096;  // points per read (96 KiB)
constexpr std::size_t k_max_segments = 16;  // files chained in one spill (PointSpill::append)

std::string temp_dir() {
    const char* dir = std::getenv("TMPDIR");
    return dir && *dir ? std::string(dir) : std::string("/tmp");
}

// A file nobody else can open, gone when closed (O_TMPFILE, or created and unlinked at once).
int open_unnamed(const std::string& series) {
    const std::string dir = temp_dir();
    int fd = -1;
#ifdef O_TMPFILE
    fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
#endif
    std::string path = dir + "/trainbench-points-XXXXXX";
    fd = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd < 0)
        throw RuntimeError(fmt::format("cannot create a temporary file in '{}' for the points of series '{}': {}", dir,
                                       series, std::strerror(errno)),
                           "set TMPDIR to a writable directory with room for the parsed points");
    ::unlink(path.c_str());
    return fd;
}

}  // namespace

// The file is opened at the first write: a series that never passes its limit needs no
// temporary directory (a small log reads even where TMPDIR is not writable).
PointSpill::PointSpill(std::size_t limit, std::string series_name)
    : m_limit(std::max<std::size_t>(limit, 2)), m_name(std::move(series_name)) {}

PointSpill::~PointSpill() {
    close_all();
}

void PointSpill::close_all() {
    for (const Segment& s : m_segments) ::close(s.fd);
    m_segments.clear();
    m_count = 0;
}

void PointSpill::write(const Point* points, std::size_t n) {
    if (n == 0) return;
    if (m_segments.empty()) m_segments.push_back({open_unnamed(m_name), 0});
    Segment& seg = m_segments.back();
    const char* data = reinterpret_cast<const char*>(points);
    std::size_t left = n * sizeof(Point);
    auto at = static_cast<off_t>(seg.count * sizeof(Point));
    while (left > 0) {
        ssize_t done = ::pwrite(seg.fd, data, left, at);
        if (done < 0 && errno == EINTR) continue;
        if (done <= 0)
            throw RuntimeError(fmt::format("cannot write the temporary file of series '{}' in '{}': {}", m_name,
                                           temp_dir(), done < 0 ? std::strerror(errno) : "no room"),
                               "set TMPDIR to a directory with room for the parsed points");
        data += done;
        left -= static_cast<std::size_t>(done);
        at += done;
    }
    seg.count += n;
    m_count += n;
}

void PointSpill::move_out(std::vector<Point>& points) {
    if (points.size() < 2) return;
    const std::size_t n = points.size() - 1;
    write(points.data(), n);
    m_last_step = points[n - 1].step;
    points.erase(points.begin(), points.begin() + static_cast<std::ptrdiff_t>(n));
}

void PointSpill::append(std::vector<Point>& points, PointSpill& next) {
    write(points.data(), points.size());
    if (!points.empty()) m_last_step = points.back().step;
    points.clear();
    if (!next.m_late.empty()) next.fold_late();
    if (next.m_count == 0) return;
    if (m_segments.size() + next.m_segments.size() > k_max_segments) {
        // (many files' series appended one after another: copied, so that the open files stay few)
        std::vector<Point> block(k_read_block);
        for (std::uint64_t at = 0; at < next.m_count;) {
            const std::size_t n = next.read(block.data(), block.size(), at);
            write(block.data(), n);
            at += n;
        }
        m_last_step = next.m_last_step;
        next.close_all();
        return;
    }
    // (the files are chained, not copied: a parallel parse of a long log would otherwise copy
    // every later part's points once more, on one thread, after the others are done)
    for (const Segment& seg : next.m_segments) {
        if (seg.count > 0) {
            m_segments.push_back(seg);
        } else {
            ::close(seg.fd);
        }
    }
    m_count += next.m_count;
    m_last_step = next.m_last_step;
    next.m_segments.clear();
    next.m_count = 0;
}

void PointSpill::add_late(const Point& p) {
    m_late.push_back(p);
    if (m_late.size() >= m_limit) fold_late();
}

std::size_t PointSpill::read(Point* out, std::size_t n, std::uint64_t at) const {
    n = static_cast<std::size_t>(std::min<std::uint64_t>(n, m_count - std::min(at, m_count)));
    char* data = reinterpret_cast<char*>(out);
    std::size_t want = n * sizeof(Point), got = 0;
    std::uint64_t first = 0;  // the point index where the segment `seg` starts
    std::size_t seg = 0;
    while (got < want) {
        const std::uint64_t byte = at * sizeof(Point) + got;
        while (seg < m_segments.size() && (first + m_segments[seg].count) * sizeof(Point) <= byte)
            first += m_segments[seg++].count;
        if (seg == m_segments.size())
            throw RuntimeError(
                fmt::format("cannot read the temporary file of series '{}': file shorter than written", m_name));
        const std::uint64_t in_seg = byte - first * sizeof(Point);
        const std::size_t len = static_cast<std::size_t>(
            std::min<std::uint64_t>(want - got, m_segments[seg].count * sizeof(Point) - in_seg));
        ssize_t r = ::pread(m_segments[seg].fd, data + got, len, static_cast<off_t>(in_seg));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0)
            throw RuntimeError(fmt::format("cannot read the temporary file of series '{}': {}", m_name,
                                           r < 0 ? std::strerror(errno) : "file shorter than written"));
        got += static_cast<std::size_t>(r);
    }
    return n;
}

void PointSpill::fold_late() {
    // Merge into a new file, then take its place.
    PointSpill merged(m_limit, m_name);
    detail::SpillMerge merge(*this, detail::sorted_late(m_late));
    std::vector<Point> block;
    block.reserve(k_read_block);
    Point p;
    while (merge.next(p)) {
        block.push_back(p);
        if (block.size() == k_read_block) {
            merged.write(block.data(), block.size());
            block.clear();
        }
    }
    merged.write(block.data(), block.size());
    std::swap(m_segments, merged.m_segments);
    std::swap(m_count, merged.m_count);
    m_late.clear();
}

namespace detail {

std::vector<Point> sorted_late(const std::vector<Point>& late) {
    std::vector<Point> v = late;
    std::stable_sort(v.begin(), v.end(), [](const Point& a, const Point& b) { return a.step < b.step; });
    // keep the last of each run of equal steps (the later in the log)
    std::vector<Point> out;
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        if (i + 1 == v.size() || v[i + 1].step != v[i].step) out.push_back(v[i]);
    return out;
}

SpillMerge::SpillMerge(const PointSpill& spill, std::vector<Point> late) : m_spill(spill), m_late(std::move(late)) {}

bool SpillMerge::file_head() {
    if (m_buffer_at < m_buffer_size) return true;
    // (sized once: a vector resized up again for every block would clear it every time)
    if (m_buffer.empty()) m_buffer.resize(k_read_block);
    m_buffer_size = m_spill.read(m_buffer.data(), k_read_block, m_file_at);
    m_file_at += m_buffer_size;
    m_buffer_at = 0;
    return m_buffer_size > 0;
}

bool SpillMerge::next(Point& p) {
    const bool filed = file_head();
    if (m_late_at < m_late.size() && (!filed || m_late[m_late_at].step <= m_buffer[m_buffer_at].step)) {
        p = m_late[m_late_at++];
        if (filed && m_buffer[m_buffer_at].step == p.step) ++m_buffer_at;  // replaced by the later value
        return true;
    }
    if (!filed) return false;
    p = m_buffer[m_buffer_at++];
    return true;
}

bool SpillMerge::next_run(const Point*& begin, const Point*& end) {
    const bool filed = file_head();
    if (filed) {
        // The read points before the next late point's step go as they are (a parallel parse
        // leaves a late point at each cut: every point before it would otherwise go one by one).
        const Point* first = m_buffer.data() + m_buffer_at;
        const Point* last = m_buffer.data() + m_buffer_size;
        if (m_late_at < m_late.size())
            last = std::lower_bound(first, last, m_late[m_late_at].step,
                                    [](const Point& p, std::int64_t step) { return p.step < step; });
        if (last != first) {
            begin = first;
            end = last;
            m_buffer_at = static_cast<std::size_t>(last - m_buffer.data());
            return true;
        }
    }
    if (!next(m_one)) return false;
    begin = &m_one;
    end = begin + 1;
    return true;
}

}  // namespace detail

struct PointReader::State {
    const Series& series;
    std::optional<detail::SpillMerge> spilled;
    bool memory_read = false;
};

PointReader::PointReader(const Series& series) : m_state(std::make_unique<State>(State{series, std::nullopt, false})) {
    if (series.spill) m_state->spilled.emplace(*series.spill, detail::sorted_late(series.spill->late()));
}

PointReader::~PointReader() = default;

// The spilled points in runs, then the points in memory as one run.
bool PointReader::refill() {
    State& s = *m_state;
    if (s.spilled) {
        if (s.spilled->next_run(m_at, m_end)) return true;
        s.spilled.reset();
    }
    if (s.memory_read || s.series.points.empty()) return false;
    s.memory_read = true;
    m_at = s.series.points.data();
    m_end = m_at + s.series.points.size();
    return true;
}

}  // namespace trainbench::metrics
