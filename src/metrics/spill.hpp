// Private to metrics: the earlier points of a long series in an unnamed
// temporary file (ParseOptions::spill_after), so that a parse whose output
// holds every point takes constant memory.
#pragma once

#include <trainbench/metrics.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace trainbench::metrics {

// Points of one series, in step order, one step once, every step at most
// last_step(). Points that arrive later with a step in that range ("late":
// a restarted run) are kept aside and merged in, later value winning, when
// read; past `limit` of them the file is rewritten with them merged.
class PointSpill {
public:
    PointSpill(std::size_t limit, std::string series_name);
    ~PointSpill();
    PointSpill(const PointSpill&) = delete;
    PointSpill& operator=(const PointSpill&) = delete;

    [[nodiscard]] std::size_t limit() const { return m_limit; }
    // Whether `step` falls in the spilled range (it then goes to add_late).
    [[nodiscard]] bool covers(std::int64_t step) const { return m_count > 0 && step <= m_last_step; }
    void add_late(const Point& p);
    // Writes every point of `points` but the last to the file and removes them from `points`
    // (the last stays, so a repeated step can still replace it in memory).
    void move_out(std::vector<Point>& points);

    // Appends `points` (all of higher steps than the file's) and then every point of `next`
    // (a later part of the same log, of higher steps still); `points` is emptied. `next`'s files
    // are taken over as they are, not copied: `next` is left empty.
    void append(std::vector<Point>& points, PointSpill& next);
    [[nodiscard]] std::int64_t last_step() const { return m_last_step; }

    // Reading: the file's points [0, count()), and the late points in arrival order.
    [[nodiscard]] std::uint64_t count() const { return m_count; }
    [[nodiscard]] const std::vector<Point>& late() const { return m_late; }
    // Reads up to `n` points from point index `at`; returns how many.
    std::size_t read(Point* out, std::size_t n, std::uint64_t at) const;

private:
    void write(const Point* points, std::size_t n);
    void fold_late();  // rewrites the file with the late points merged in

    // The points in one or more files, one after another (a parallel parse's parts each filed
    // their own: appended, they are chained): writes go to the last.
    struct Segment {
        int fd = -1;
        std::uint64_t count = 0;
    };
    void close_all();

    std::size_t m_limit;
    std::string m_name;
    std::vector<Segment> m_segments;
    std::uint64_t m_count = 0;  // in all segments
    std::int64_t m_last_step = 0;
    std::vector<Point> m_late;
};

namespace detail {

// The late points sorted by step, a repeated step keeping the later one.
[[nodiscard]] std::vector<Point> sorted_late(const std::vector<Point>& late);

// The points of a spill file merged with its sorted late points, in step order
// (a late point replaces a filed one of the same step).
class SpillMerge {
public:
    SpillMerge(const PointSpill& spill, std::vector<Point> late);
    bool next(Point& p);
    // The next points in [begin, end), valid until the next call: the points read from the file
    // as they are, up to the next late point's step; else one point; false at the end.
    bool next_run(const Point*& begin, const Point*& end);

private:
    bool file_head();
    Point m_one;
    const PointSpill& m_spill;
    std::vector<Point> m_late;
    std::size_t m_late_at = 0;
    std::vector<Point> m_buffer;  // k_read_block points, the first m_buffer_size of them read
    std::size_t m_buffer_size = 0;
    std::size_t m_buffer_at = 0;
    std::uint64_t m_file_at = 0;
};

}  // namespace detail

}  // namespace trainbench::metrics
