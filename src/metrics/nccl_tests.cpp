// nccl-tests output (all_reduce_perf and siblings), every layout since 2017:
// rows are whitespace-separated tokens "size count type redop [root] time
// algbw busbw #wrong|error time algbw busbw #wrong|error [extras]". Launcher
// prefixes ("0: ", "[1,0]<stdout>:") are tokens skipped before the row;
// NCCL INFO and any other line that is not a row or a known '#' line is
// ignored. Rows also fill the series oop_busbw / ip_busbw / oop_algbw /
// ip_algbw / oop_time_us / ip_time_us with step = message size in bytes.
#include "metrics/common.hpp"
#include "metrics/parsers.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <limits>
#include <optional>

namespace trainbench::metrics::detail {

namespace {

constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t k_max_tokens = 40;

std::size_t tokenize(std::string_view s, std::array<std::string_view, k_max_tokens>& out) {
    std::size_t n = 0, i = 0;
    while (i < s.size() && n < out.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
        std::size_t start = i;
        while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') ++i;
        if (i > start) out[n++] = s.substr(start, i - start);
    }
    return n;
}

bool is_uint(std::string_view s) {
    if (s.empty() || s.size() > 19) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

bool is_word(std::string_view s) {
    if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
    for (char c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return true;
}

// #wrong (a count), error (old: max deviation, not a count) or N/A.
std::int64_t wrong_value(std::string_view s, bool has_root) {
    if (!has_root) return -1;  // the pre-2.13 "error" column is not a count
    if (auto v = to_number(s)) {
        if (auto i = integral(*v)) return *i;
    }
    return -1;
}

// "# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 1 ..."
void parse_header(std::string_view s, std::map<std::string, std::string>& header) {
    std::array<std::string_view, k_max_tokens> tok{};
    std::size_t n = tokenize(s, tok);
    std::string key;
    for (std::size_t i = 0; i < n; ++i) {
        std::string_view t = tok[i];
        if (t == "#") continue;
        bool colon = t.back() == ':';
        if (colon) t.remove_suffix(1);
        if (!key.empty()) key.push_back(' ');
        key.append(t);
        bool next_is_value = i + 1 < n && (colon || leading_number(tok[i + 1]).has_value());
        if (next_is_value) {
            header[key] = std::string(tok[i + 1]);
            key.clear();
            ++i;
        }
    }
}

// ---------------------------------------------------------------- '#' lines: header and summary
enum class HashLine {
    record,   // a header or summary line, read into the result
    comment,  // another comment (column headers, "Using devices", ...)
    none,     // not a '#' line: read it as a table row
};

// The number after the ':' of a summary line ("# Avg bus bandwidth    : 7.635").
std::optional<double> value_after_colon(std::string_view body) {
    const std::size_t colon = body.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    return leading_number(body.substr(colon + 1));
}

// A '#' line (after an optional launcher prefix; NCCL INFO lines are not): the summary lines
// (average bus bandwidth, out-of-bounds count) and the header lines (the collective, the
// "nThread ..." parameters, the devices, the version) go into `result`.
HashLine read_hash_line(std::string_view t, NcclResult& result) {
    const std::size_t hash = t.find('#');
    if (hash == std::string_view::npos || t.find("NCCL INFO") != std::string_view::npos) return HashLine::none;
    const std::string_view body = trim(t.substr(hash + 1));
    if (starts_with(body, "Avg bus bandwidth")) {
        if (auto v = value_after_colon(body)) result.avg_busbw = *v;
    } else if (starts_with(body, "Out of bounds values")) {
        if (auto v = value_after_colon(body)) result.out_of_bounds = integral(*v);
    } else if (starts_with(body, "Collective test starting:")) {
        result.operation = std::string(trim(body.substr(25)));
    } else if (starts_with(body, "nThread ")) {
        parse_header(body, result.header);
    } else if (starts_with(body, "Rank ") && body.find(" device ") != std::string_view::npos) {
        result.devices.emplace_back(body);
    } else if (starts_with(body, "nccl-tests version")) {
        result.header["version"] = std::string(trim(body.substr(18)));
    } else {
        const std::string_view prefix = trim(t.substr(0, hash));
        const bool comment = prefix.empty() || prefix.back() == ':' || prefix.back() == ']';
        return comment ? HashLine::comment : HashLine::none;
    }
    return HashLine::record;
}

// ---------------------------------------------------------------- table rows
using Tokens = std::array<std::string_view, k_max_tokens>;

// Where a row's columns are: "size count type redop" at `first` (after up to 4 launcher-prefix
// tokens), then the root when there is one, the out-of-place group at `oop` and the in-place
// group at `ip` (each time, algbw, busbw, #wrong).
struct RowLayout {
    std::size_t first = 0;
    bool has_root = false;
    std::size_t oop = 0;
    std::size_t ip = 0;
};

std::optional<RowLayout> row_layout(const Tokens& tok, std::size_t n) {
    for (std::size_t k = 0; k + 12 <= n && k < 4; ++k) {
        if (!(is_uint(tok[k]) && is_uint(tok[k + 1]) && is_word(tok[k + 2]) && is_word(tok[k + 3]))) continue;
        RowLayout l;
        l.first = k;
        const std::size_t cols = n - k;
        l.has_root = cols >= 13 && to_integer(tok[k + 4]).has_value();
        l.oop = k + 4 + (l.has_root ? 1 : 0);
        const bool per_iteration = l.has_root && (cols == 21 || cols == 23);  // -I 1: four more after each #wrong
        l.ip = l.oop + (per_iteration ? 8 : 4);
        if (l.ip + 4 > n) return std::nullopt;
        return l;
    }
    return std::nullopt;
}

// The row at `l`, or nullopt when one of its times or bandwidths is not a number.
std::optional<NcclRow> read_row(const Tokens& tok, const RowLayout& l) {
    auto num = [&](std::size_t i) { return to_number(tok[i]); };
    auto oop_time = num(l.oop), oop_alg = num(l.oop + 1), oop_bus = num(l.oop + 2);
    auto ip_time = num(l.ip), ip_alg = num(l.ip + 1), ip_bus = num(l.ip + 2);
    if (!oop_time || !oop_alg || !oop_bus || !ip_time || !ip_alg || !ip_bus) return std::nullopt;
    NcclRow row;
    row.size_bytes = std::stoull(std::string(tok[l.first]));
    row.count = std::stoull(std::string(tok[l.first + 1]));
    row.type = std::string(tok[l.first + 2]);
    row.redop = std::string(tok[l.first + 3]);
    row.root = l.has_root ? to_integer(tok[l.first + 4]).value_or(-1) : -1;
    row.oop_time_us = *oop_time;
    row.oop_algbw = *oop_alg;
    row.oop_busbw = *oop_bus;
    row.oop_wrong = wrong_value(tok[l.oop + 3], l.has_root);
    row.ip_time_us = *ip_time;
    row.ip_algbw = *ip_alg;
    row.ip_busbw = *ip_bus;
    row.ip_wrong = wrong_value(tok[l.ip + 3], l.has_root);
    return row;
}

// The series a row fills, each with step = the message size in bytes.
class RowSeries {
public:
    explicit RowSeries(SeriesSink& sink)
        : m_sink(sink),
          m_oop_busbw(sink.resolve("oop_busbw")),
          m_ip_busbw(sink.resolve("ip_busbw")),
          m_oop_algbw(sink.resolve("oop_algbw")),
          m_ip_algbw(sink.resolve("ip_algbw")),
          m_oop_time(sink.resolve("oop_time_us")),
          m_ip_time(sink.resolve("ip_time_us")) {}

    void add(const NcclRow& row) {
        const auto step = static_cast<std::int64_t>(
            std::min<std::uint64_t>(row.size_bytes, std::numeric_limits<std::int64_t>::max()));
        m_sink.add(m_oop_busbw, Point{step, row.oop_busbw, k_nan});
        m_sink.add(m_ip_busbw, Point{step, row.ip_busbw, k_nan});
        m_sink.add(m_oop_algbw, Point{step, row.oop_algbw, k_nan});
        m_sink.add(m_ip_algbw, Point{step, row.ip_algbw, k_nan});
        m_sink.add(m_oop_time, Point{step, row.oop_time_us, k_nan});
        m_sink.add(m_ip_time, Point{step, row.ip_time_us, k_nan});
    }

private:
    SeriesSink& m_sink;
    Series *m_oop_busbw, *m_ip_busbw, *m_oop_algbw, *m_ip_algbw, *m_oop_time, *m_ip_time;
};

// A line that is no row: the file's cut end when the line is incomplete (possibly a row cut
// mid-write), else one more line of `kind` (skipped or corrupt).
void not_a_row(const LineReader::Line& line, ParseStats& st, std::uint64_t& kind) {
    if (!line.complete)
        st.truncated_tail = true;
    else
        ++kind;
}

}  // namespace

void parse_nccl_tests(Source& source, std::string_view label, const ParseOptions& options, LogData& out) {
    LineReader reader(source);
    LineReader::Line line;
    SeriesSink sink(out, options, canonical_names());
    RowSeries series(sink);
    ParseStats& st = out.stats;
    if (!out.nccl) out.nccl.emplace();
    NcclResult& result = *out.nccl;
    Tokens tok{};
    while (reader.next(line)) {
        if (line.overlong) {
            ++st.skipped;
            continue;
        }
        const std::string_view t = line.text;
        if (trim(t).empty()) continue;
        const HashLine hash = read_hash_line(t, result);  // the header and summary lines
        if (hash != HashLine::none) {
            ++(hash == HashLine::record ? st.records : st.skipped);
            continue;
        }
        const std::size_t n = tokenize(t, tok);  // a table row
        const std::optional<RowLayout> layout = row_layout(tok, n);
        if (!layout) {
            not_a_row(line, st, st.skipped);
            continue;
        }
        std::optional<NcclRow> row = read_row(tok, *layout);
        if (!row) {
            not_a_row(line, st, st.corrupt);
            warn(st, fmt::format("{}:{}: malformed nccl-tests row, skipped", label, line.number));
            continue;
        }
        if (!line.complete) st.truncated_tail = true;  // the last column may be cut: a row needs its in-place #wrong
        series.add(*row);
        result.rows.push_back(std::move(*row));
        ++st.records;
    }
    st.bytes += reader.bytes();
}

}  // namespace trainbench::metrics::detail
