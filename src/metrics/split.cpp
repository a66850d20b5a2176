// One large line-oriented file parsed by several threads (see split.hpp).
#include "metrics/split.hpp"

#include "metrics/common.hpp"
#include "metrics/spill.hpp"

#include <fmt/format.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace trainbench::metrics::detail {

namespace {

constexpr unsigned k_max_threads = 4;
constexpr std::size_t k_scan_block = 64 << 10;
constexpr std::uint64_t k_max_scan = 16ull << 20;  // the longest line a parser reads

// "<label>:<line>: ..." with the part's line number moved by `base`.
std::string shift_line(const std::string& warning, std::string_view label, std::uint64_t base) {
    if (base == 0 || warning.size() <= label.size() + 1 || warning.compare(0, label.size(), label) != 0 ||
        warning[label.size()] != ':')
        return warning;
    const char* first = warning.data() + label.size() + 1;
    const char* last = warning.data() + warning.size();
    std::uint64_t line = 0;
    auto [end, ec] = std::from_chars(first, last, line);
    if (ec != std::errc() || end == first || end == last || *end != ':') return warning;
    return fmt::format("{}:{}{}", label, line + base, std::string_view(end, static_cast<std::size_t>(last - end)));
}

// A series some of whose points are in a temporary file (ParseOptions::spill_after).
void merge_spilled(Series& dst, Series&& src) {
    if (!dst.spill && dst.points.empty()) {
        dst.points = std::move(src.points);
        dst.spill = std::move(src.spill);
        return;
    }
    Point first;
    PointReader reader(src);
    if (!reader.next(first)) return;
    const bool dst_empty = dst.points.empty() && !(dst.spill && dst.spill->count() > 0);
    const std::int64_t dst_last =
        dst.points.empty() ? (dst.spill ? dst.spill->last_step() : 0) : dst.points.back().step;
    if (dst.spill && src.spill && (dst_empty || first.step > dst_last)) {
        dst.spill->append(dst.points, *src.spill);
        dst.points = std::move(src.points);
        return;
    }
    // A restart crossing the cut: point by point, as line by line.
    insert_point(dst, first);
    for (Point p; reader.next(p);) insert_point(dst, p);
}

void merge_series(Series& dst, Series&& src) {
    if (src.spill || dst.spill) {
        merge_spilled(dst, std::move(src));
        return;
    }
    if (src.points.empty()) return;
    if (dst.last_only || src.last_only) {
        // one point each: the later part's wins unless its step is lower
        dst.last_only = true;
        if (dst.points.empty() || dst.points.back().step <= src.points.back().step) dst.points = {src.points.back()};
        return;
    }
    if (dst.points.empty()) {
        dst.points = std::move(src.points);
    } else if (src.points.front().step > dst.points.back().step) {
        dst.points.insert(dst.points.end(), src.points.begin(), src.points.end());
    } else {
        // A restart crossing the cut: the later part's points replace the earlier ones, as
        // they would have line by line.
        for (const Point& p : src.points) insert_point(dst, p);
    }
}

// Merges `part` (the one after those merged into `out` before, `base` lines into the file)
// into `out`, and frees the part's points, so a merge holds the file's points about once.
void merge_part(LinePart& part, std::string_view label, std::uint64_t base, LogData& out) {
    for (auto& [name, s] : part.data.series) {
        auto [it, added] = out.series.try_emplace(name);
        Series& dst = it->second;
        if (added) {
            dst.name = s.name;
            dst.source_name = s.source_name;
            dst.keep_from = s.keep_from;
            dst.keep_to = s.keep_to;
        }
        // (a series new to `out` takes the part's vector over: the first part's has room for the
        // whole file's points, so the later parts are appended without a copy)
        merge_series(dst, std::move(s));
    }
    part.data.series.clear();
    if (out.step_records.empty())
        out.step_records = std::move(part.data.step_records);
    else
        out.step_records.insert(out.step_records.end(), part.data.step_records.begin(), part.data.step_records.end());
    std::vector<StepRecord>().swap(part.data.step_records);
    for (auto& [k, v] : part.data.parameters) out.parameters[k] = std::move(v);
    for (auto& [k, v] : part.data.summary) out.summary[k] = v;
    if (part.data.nccl) out.nccl = std::move(part.data.nccl);
    ParseStats& st = out.stats;
    const ParseStats& ps = part.data.stats;
    st.bytes += ps.bytes;
    st.records += ps.records;
    st.skipped += ps.skipped;
    st.corrupt += ps.corrupt;
    st.truncated_tail = st.truncated_tail || ps.truncated_tail;
    for (const std::string& w : ps.warnings) warn(st, shift_line(w, label, base));
}

// The parts merged in file order as they finish, by the thread that finished the next one in
// order while the other threads go on parsing: only the parts still being parsed when the
// last one ends are merged after the threads are joined (parts shrink toward the file's end,
// so that is little). Stops at a part that failed or that must be parsed sequentially.
class PartMerger {
public:
    PartMerger(std::vector<LinePart>& parts, const std::vector<std::exception_ptr>& errors, std::string_view label)
        : m_parts(parts), m_errors(errors), m_done(parts.size(), 0), m_label(label) {}

    // Part `i` is parsed; merges every part in order that can be, unless another thread is.
    void finished(std::size_t i) {
        std::unique_lock lock(m_mutex);
        m_done[i] = 1;
        if (m_merging) return;  // that thread sees this part before it stops
        m_merging = true;
        while (!m_stopped && m_next < m_parts.size() && m_done[m_next] != 0) {
            const std::size_t k = m_next;
            lock.unlock();
            // (m_parts[k], m_merged and m_base are only touched by the one merging thread)
            const bool ok = mergeable(k);
            if (ok) {
                merge_part(m_parts[k], m_label, m_base, m_merged);
                m_base += m_parts[k].lines;
            }
            lock.lock();
            if (ok)
                ++m_next;
            else
                m_stopped = true;
        }
        m_merging = false;
    }
    // After the threads are joined: whether every part was merged.
    [[nodiscard]] bool complete() const { return m_next == m_parts.size(); }
    [[nodiscard]] LogData& merged() { return m_merged; }

private:
    [[nodiscard]] bool mergeable(std::size_t k) const {
        return !m_errors[k] && (k == 0 || !m_parts[k].order_dependent);
    }

    std::vector<LinePart>& m_parts;
    const std::vector<std::exception_ptr>& m_errors;
    std::vector<char> m_done;
    std::string_view m_label;
    std::mutex m_mutex;
    bool m_merging = false, m_stopped = false;
    std::size_t m_next = 0;
    LogData m_merged;
    std::uint64_t m_base = 0;
};

}  // namespace

// - A spilled parse (ParseOptions::spill_after): one equal part per thread, because each
//   finished part holds up to spill_after points per series in memory until the merge.
// - Otherwise parts that shrink as the file is used up, each a 1/(2 x threads) share of what
//   is left: the threads take the next part as they finish one, so one slowed down by the
//   rest of the machine leaves more of the file to the others, and the last parts are small
//   enough for the threads to finish together.
std::vector<std::uint64_t> part_starts(std::uint64_t size, unsigned threads, bool spilled, std::uint64_t min_part) {
    min_part = std::max<std::uint64_t>(min_part, 1);
    std::vector<std::uint64_t> starts;
    if (spilled) {
        const auto n = static_cast<unsigned>(std::min<std::uint64_t>(threads, size / min_part));
        for (unsigned i = 1; i < n; ++i) starts.push_back(size / n * i);
        return starts;
    }
    for (std::uint64_t at = 0;;) {
        const std::uint64_t left = size - at;
        const std::uint64_t part = std::max<std::uint64_t>(left / (2ull * std::max(threads, 1u)), min_part);
        if (left < part + min_part) break;  // the rest is the last part
        at += part;
        starts.push_back(at);
    }
    return starts;
}

// The offset just past the first '\n' at or after `from`, or 0 when there is
// none within k_max_scan bytes (the caller then does not cut there).
std::uint64_t next_line_start(const FileSource& file, std::uint64_t from, std::uint64_t size) {
    std::vector<char> block(k_scan_block);
    for (std::uint64_t at = from; at < size && at - from < k_max_scan;) {
        std::size_t got = file.read_at(block.data(), block.size(), at);
        if (got == 0) return 0;
        if (const void* nl = std::memchr(block.data(), '\n', got))
            return at + static_cast<std::uint64_t>(static_cast<const char*>(nl) - block.data()) + 1;
        at += got;
    }
    return 0;
}

std::uint64_t first_cut_in_lines(const FileSource& file, std::uint64_t from, std::uint64_t size,
                                 const LineCutFn& cut_at) {
    constexpr std::size_t k_block = 1 << 20;
    std::vector<char> block(k_block);
    std::uint64_t at = next_line_start(file, from, size);
    while (at != 0 && at < size && at - from < 4 * k_block) {
        const std::size_t got = file.read_at(block.data(), block.size(), at);
        const std::string_view text(block.data(), got);
        std::size_t start = 0;
        for (std::size_t end = text.find('\n'); end != std::string_view::npos; end = text.find('\n', start)) {
            if (std::uint64_t cut = cut_at(text.substr(start, end - start), at + start, at + end + 1)) return cut;
            start = end + 1;
        }
        if (start == 0) return 0;  // no whole line in a block: lines that long, no cut here
        at += start;
    }
    return 0;
}

unsigned parse_threads(const ParseOptions& options) {
    if (options.threads > 0) return options.threads;
    return std::clamp(std::thread::hardware_concurrency(), 1u, k_max_threads);
}

bool parse_lines_split(const std::filesystem::path& path, std::string_view label, const ParseOptions& options,
                       LogData& out, LinePartFn fn, const SplitPolicy& policy) {
    return parse_split(path, label, options, out, fn, next_line_start, policy);
}

bool parse_split(const std::filesystem::path& path, std::string_view label, const ParseOptions& options, LogData& out,
                 LinePartFn fn, CutFn cut_at, const SplitPolicy& policy) {
    unsigned threads = parse_threads(options);
    if (threads < 2) return false;
    FileSource file(path);
    std::uint64_t size = file.size_hint();
    if (!file.regular() || size < policy.min_file_bytes || size < 2 * policy.min_part_bytes) return false;
    std::vector<std::uint64_t> cuts{0};
    for (std::uint64_t target : part_starts(size, threads, options.spill_after > 0, policy.min_part_bytes)) {
        if (target < cuts.back()) continue;  // inside a record that the previous search crossed
        std::uint64_t cut = cut_at(file, target, size);
        // No boundary within the longest record after this target: the file has records that
        // long here, and every later search could read as far again; the rest is the last part.
        if (cut == 0) break;
        if (cut < size) cuts.push_back(cut);
    }
    cuts.push_back(size);
    if (cuts.size() < 3) return false;

    std::vector<LinePart> parts(cuts.size() - 1);
    for (std::size_t i = 0; i < parts.size(); ++i) parts[i].begin = cuts[i];
    std::vector<std::exception_ptr> errors(parts.size());
    PartMerger merger(parts, errors, label);
    auto work = [&](std::size_t i) {
        try {
            // The first part reserves its series for the whole file (address space only,
            // untouched until used), so the later parts are appended without a copy.
            FileSource range(path, cuts[i], cuts[i + 1], i == 0 ? size : 0);
            fn(range, label, options, parts[i]);
        } catch (...) {
            errors[i] = std::current_exception();
        }
        merger.finished(i);
    };
    // Each thread takes the next part until none is left, in file order.
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        for (std::size_t i = next++; i < parts.size(); i = next++) work(i);
    };
    std::vector<std::thread> pool;
    const std::size_t helpers = std::min<std::size_t>(threads, parts.size()) - 1;
    pool.reserve(helpers);
    for (std::size_t t = 0; t < helpers; ++t) pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool) t.join();
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
    if (!merger.complete()) return false;  // an order-dependent part: parse the file sequentially

    LinePart whole;
    whole.data = std::move(merger.merged());
    merge_part(whole, label, 0, out);  // (moves, when `out` holds no other file yet)
    parts.clear();
#ifdef __GLIBC__
    // The parts' vectors were freed in the helper threads' malloc arenas, which keep freed
    // memory mapped (glibc raises its mmap threshold as large blocks are freed, so later ones
    // come from the arenas): give it back before the caller allocates again (a report's step
    // samples), or it counts twice in the peak RSS.
    malloc_trim(0);
#endif
    return true;
}

}  // namespace trainbench::metrics::detail
