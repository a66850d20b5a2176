// Private to metrics: what every parser shares. The series sink (canonical
// names, tag selection, per-line staging), counted warnings, and small text
// helpers (numbers, dates, trimming, prefixes).
#pragma once

#include "metrics/input.hpp"

#include <trainbench/metrics.hpp>

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainbench::metrics::detail {

// Little-endian words at any alignment: TFRecord and protobuf fixed fields, and the parsers'
// word-at-a-time scans.
static_assert(std::endian::native == std::endian::little, "load_u64 / load_u32 read little-endian words");
[[nodiscard]] inline std::uint64_t load_u64(const void* p) {
    std::uint64_t v = 0;
    std::memcpy(&v, p, 8);
    return v;
}
[[nodiscard]] inline std::uint32_t load_u32(const void* p) {
    std::uint32_t v = 0;
    std::memcpy(&v, p, 4);
    return v;
}

// source name -> canonical name, for one family of logs.
struct NameMapping {
    std::string_view source;
    std::string_view canonical;
};

// The one table of known names: NeMo / Lightning (DLLogger, TensorBoard, NeMo
// stdout), Megatron (stdout keys and TensorBoard tags), fairseq / metaseq.
// Megatron's "elapsed time per iteration (ms)" is converted by its parser.
[[nodiscard]] const std::vector<NameMapping>& canonical_names();

// Inserts a point in step order; a repeated step replaces the earlier value.
void insert_point(Series& series, const Point& p);

// a == b, eight bytes at a time (names are short: no call to memcmp).
[[nodiscard]] inline bool same_name(std::string_view a, std::string_view b) {
    const std::size_t n = a.size();
    if (n != b.size()) return false;
    if (n < 8) {
        for (std::size_t i = 0; i < n; ++i)
            if (a[i] != b[i]) return false;
        return true;
    }
    for (std::size_t i = 0; i + 8 < n; i += 8)
        if (load_u64(a.data() + i) != load_u64(b.data() + i)) return false;
    return load_u64(a.data() + n - 8) == load_u64(b.data() + n - 8);
}

// Where parsers put values. Resolves a source name once (canonical mapping,
// --tags selection) and caches the Series*; points can be staged for a line
// and committed only when the whole line was understood.
class SeriesSink {
public:
    SeriesSink(LogData& out, const ParseOptions& options, const std::vector<NameMapping>& mapping);

    // The series for `source_name`, or nullptr when --tags excludes it.
    Series* resolve(std::string_view source_name) {
        // Names usually come in the same order on every line: the one after the last hit first
        // (the first after the last: the next line's first name).
        const std::size_t next = m_last + 1 < m_cache.size() ? m_last + 1 : 0;
        if (next < m_cache.size() && same_name(m_cache[next].source, source_name)) {
            m_last = next;
            return m_cache[next].series;
        }
        return resolve_slow(source_name);
    }
    // Same, but stores it under an explicit name (e.g. a derived series).
    Series* resolve_as(std::string_view name, std::string_view source_name);

    void stage(Series* s, const Point& p) {
        if (s) m_staged.emplace_back(s, p);
    }
    void commit();
    // Commits, giving staged points without a wall time this one.
    void commit_with_wall(double wall);
    void discard() { m_staged.clear(); }
    void add(Series* s, const Point& p) {
        if (s) insert_point(*s, p);
    }
    [[nodiscard]] LogData& data() { return m_out; }

private:
    Series* resolve_slow(std::string_view source_name);
    Series* create(std::string_view name, std::string_view source_name);
    bool selected(std::string_view name, std::string_view source_name) const;

    LogData& m_out;
    const ParseOptions& m_options;
    const std::vector<NameMapping>& m_mapping;
    struct Entry {
        std::string source;
        Series* series;
    };
    std::vector<Entry> m_cache;  // resolve()
    std::size_t m_last = 0;
    std::vector<Entry> m_as;  // resolve_as(), by name
    std::size_t m_as_next = 0;
    std::vector<std::pair<Series*, Point>> m_staged;
};

// Pre-sizes the series once 1 MiB of a large input has been read, from the
// points that MiB produced: the vectors then grow without copying.
class SeriesReserver {
public:
    SeriesReserver(LogData& out, std::uint64_t size_hint);
    void check(std::uint64_t bytes_done) {
        if (!m_done && bytes_done >= (1u << 20)) reserve(bytes_done);
    }

private:
    void reserve(std::uint64_t bytes_done);
    LogData& m_out;
    std::uint64_t m_size;
    bool m_done = false;
    std::map<std::string, std::size_t> m_initial;
};

// Records a warning (at most k_max_warnings are kept; every one is counted by the caller).
inline constexpr std::size_t k_max_warnings = 20;
void warn(ParseStats& stats, std::string message);

// Reads every line of `source` for a text-log parser: pre-sizes the series as the input
// grows, skips (counted, with a warning naming `label`) lines over the maximum length, calls
// each(line, bytes read so far) for the others and counts the bytes read. Returns the number
// of lines.
template <typename Each>
std::uint64_t each_text_line(Source& source, std::string_view label, LogData& out, Each&& each) {
    LineReader reader(source);
    SeriesReserver reserver(out, source.size_hint());
    LineReader::Line line;
    while (reader.next(line)) {
        reserver.check(reader.bytes());
        if (line.overlong) {
            ++out.stats.skipped;
            warn(out.stats, fmt::format("{}:{}: line longer than the maximum, skipped", label, line.number));
            continue;
        }
        each(line, reader.bytes());
    }
    out.stats.bytes += reader.bytes();
    return reader.lines();
}

// ---------------------------------------------------------------- text
// Without the spaces, tabs, '\r' and '\n' at both ends (inline: parsers trim every field).
[[nodiscard]] inline bool trim_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
[[nodiscard]] inline std::string_view trim(std::string_view s) {
    std::size_t b = 0, e = s.size();
    while (b < e && trim_space(s[b])) ++b;
    while (e > b && trim_space(s[e - 1])) --e;
    return s.substr(b, e - b);
}
[[nodiscard]] inline bool starts_with(std::string_view s, std::string_view p) {
    return s.substr(0, p.size()) == p;
}
// Where `a` or `b` occur in the 64 bytes at p (bit i: p[i]); `n` < 64: only the first n bytes.
// delimiter_mask is SSE2 where the target has it, else delimiter_mask_bytes.
[[nodiscard]] inline std::uint64_t delimiter_mask_bytes(const char* p, std::size_t n, char a, char b) {
    std::uint64_t m = 0;
    for (std::size_t i = 0; i < n && i < 64; ++i)
        if (p[i] == a || p[i] == b) m |= std::uint64_t{1} << i;
    return m;
}
[[nodiscard]] std::uint64_t delimiter_mask(const char* p, std::size_t n, char a, char b);

// The positions of two delimiter characters in a line, in order, 64 bytes at a time.
class DelimiterScanner {
public:
    DelimiterScanner(std::string_view s, char a, char b) : m_s(s), m_a(a), m_b(b) { load(); }
    // The next position of `a` or `b`, or npos.
    std::size_t next() {
        while (m_mask == 0) {
            m_base += 64;
            if (m_base >= m_s.size()) return std::string_view::npos;
            load();
        }
        const std::size_t at = m_base + static_cast<std::size_t>(std::countr_zero(m_mask));
        m_mask &= m_mask - 1;
        return at;
    }

private:
    void load() { m_mask = delimiter_mask(m_s.data() + m_base, m_s.size() - m_base, m_a, m_b); }

    std::string_view m_s;
    char m_a, m_b;
    std::size_t m_base = 0;
    std::uint64_t m_mask = 0;
};

// A whole string as a number ("1.5", "-3e+06", "nan", "inf", "+2"); nullopt otherwise.
[[nodiscard]] std::optional<double> to_number(std::string_view s);
// The number at the start of s (after spaces), ignoring what follows ("962 (1.50)", "100%").
[[nodiscard]] std::optional<double> leading_number(std::string_view s);
// The same number's value in `value` and how many characters of s it took with the spaces
// before it; 0 when s holds no number there.
[[nodiscard]] std::size_t leading_number_length(std::string_view s, double& value);
// The number at `first` (no spaces before it, a leading '+' allowed) as leading_number reads
// it: returns its end, `first` where there is none.
[[nodiscard]] const char* scan_number(const char* first, const char* last, double& value);
// A whole string as a signed integer.
[[nodiscard]] std::optional<std::int64_t> to_integer(std::string_view s);
// "YYYY-MM-DD HH:MM:SS[.ffffff][+HH:MM]" (or 'T' between) as Unix seconds; a
// missing offset is taken as UTC.
[[nodiscard]] std::optional<double> parse_datetime(std::string_view s);
// parse_datetime for timestamps that come in order: the date, hour and minute of the last one
// read are remembered, and a timestamp in the same minute only has its seconds converted.
class DatetimeReader {
public:
    [[nodiscard]] std::optional<double> read(std::string_view s);

private:
    std::array<char, 16> m_minute{};
    double m_base = 0;
    bool m_known = false;
};
// Removes ANSI escape sequences (CSI "ESC [ ... letter" and two-byte escapes).
void strip_ansi(std::string_view in, std::string& out);
// Step arithmetic that saturates instead of overflowing (hostile inputs).
[[nodiscard]] inline std::int64_t sat_add(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
    return r;
}
[[nodiscard]] inline std::int64_t sat_mul(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        return (a < 0) != (b < 0) ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
    return r;
}
// A double rounded to the nearest int64 when it holds an integral value in range.
[[nodiscard]] std::optional<std::int64_t> integral(double v);

}  // namespace trainbench::metrics::detail
