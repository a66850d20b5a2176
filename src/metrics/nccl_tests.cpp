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

}  // namespace

void parse_nccl_tests(Source& source, std::string_view label, const ParseOptions& options, LogData& out) {
    LineReader reader(source);
    LineReader::Line line;
    SeriesSink sink(out, options, canonical_names());
    ParseStats& st = out.stats;
    if (!out.nccl) out.nccl.emplace();
    NcclResult& result = *out.nccl;
    std::array<std::string_view, k_max_tokens> tok{};
    Series* s_oop_busbw = sink.resolve("oop_busbw");
    Series* s_ip_busbw = sink.resolve("ip_busbw");
    Series* s_oop_algbw = sink.resolve("oop_algbw");
    Series* s_ip_algbw = sink.resolve("ip_algbw");
    Series* s_oop_time = sink.resolve("oop_time_us");
    Series* s_ip_time = sink.resolve("ip_time_us");
    while (reader.next(line)) {
        if (line.overlong) {
            ++st.skipped;
            continue;
        }
        std::string_view t = line.text;
        if (trim(t).empty()) continue;
        // '#' lines (after an optional launcher prefix)
        std::size_t hash = t.find('#');
        if (hash != std::string_view::npos && t.find("NCCL INFO") == std::string_view::npos) {
            std::string_view h = t.substr(hash);
            std::string_view body = trim(h.substr(1));
            if (starts_with(body, "Avg bus bandwidth")) {
                std::size_t colon = body.find(':');
                if (colon != std::string_view::npos)
                    if (auto v = leading_number(body.substr(colon + 1))) result.avg_busbw = *v;
                ++st.records;
                continue;
            }
            if (starts_with(body, "Out of bounds values")) {
                std::size_t colon = body.find(':');
                if (colon != std::string_view::npos)
                    if (auto v = leading_number(body.substr(colon + 1))) result.out_of_bounds = integral(*v);
                ++st.records;
                continue;
            }
            if (starts_with(body, "Collective test starting:")) {
                result.operation = std::string(trim(body.substr(25)));
                ++st.records;
                continue;
            }
            if (starts_with(body, "nThread ")) {
                parse_header(body, result.header);
                ++st.records;
                continue;
            }
            if (starts_with(body, "Rank ") && body.find(" device ") != std::string_view::npos) {
                result.devices.emplace_back(body);
                ++st.records;
                continue;
            }
            if (starts_with(body, "nccl-tests version")) {
                result.header["version"] = std::string(trim(body.substr(18)));
                ++st.records;
                continue;
            }
            std::string_view prefix = trim(t.substr(0, hash));
            if (prefix.empty() || prefix.back() == ':' || prefix.back() == ']') {
                ++st.skipped;  // other comments: column headers, "Using devices", ...
                continue;
            }
        }
        std::size_t n = tokenize(t, tok);
        // find "size count type redop" after any prefix tokens
        std::size_t k = 0;
        bool found = false;
        for (; k + 12 <= n && k < 4; ++k) {
            if (is_uint(tok[k]) && is_uint(tok[k + 1]) && is_word(tok[k + 2]) && is_word(tok[k + 3])) {
                found = true;
                break;
            }
        }
        if (!found) {
            if (!line.complete)
                st.truncated_tail = true;  // possibly a row cut mid-write
            else
                ++st.skipped;
            continue;
        }
        std::size_t cols = n - k;
        bool has_root = cols >= 13 && to_integer(tok[k + 4]).has_value();
        std::size_t base = k + 4 + (has_root ? 1 : 0);
        // -I 1 adds four per-iteration columns after each #wrong
        bool per_iteration = has_root && (cols == 21 || cols == 23);
        std::size_t ip = base + (per_iteration ? 8 : 4);
        if (ip + 4 > n) {
            if (!line.complete)
                st.truncated_tail = true;
            else
                ++st.skipped;
            continue;
        }
        auto num = [&](std::size_t i) { return to_number(tok[i]); };
        auto oop_time = num(base), oop_alg = num(base + 1), oop_bus = num(base + 2);
        auto ip_time = num(ip), ip_alg = num(ip + 1), ip_bus = num(ip + 2);
        if (!oop_time || !oop_alg || !oop_bus || !ip_time || !ip_alg || !ip_bus) {
            if (!line.complete)
                st.truncated_tail = true;
            else
                ++st.corrupt;
            warn(st, fmt::format("{}:{}: malformed nccl-tests row, skipped", label, line.number));
            continue;
        }
        if (!line.complete) {
            // the last column may be cut: a row needs its in-place #wrong
            st.truncated_tail = true;
        }
        NcclRow row;
        row.size_bytes = std::stoull(std::string(tok[k]));
        row.count = std::stoull(std::string(tok[k + 1]));
        row.type = std::string(tok[k + 2]);
        row.redop = std::string(tok[k + 3]);
        row.root = has_root ? to_integer(tok[k + 4]).value_or(-1) : -1;
        row.oop_time_us = *oop_time;
        row.oop_algbw = *oop_alg;
        row.oop_busbw = *oop_bus;
        row.oop_wrong = wrong_value(tok[base + 3], has_root);
        row.ip_time_us = *ip_time;
        row.ip_algbw = *ip_alg;
        row.ip_busbw = *ip_bus;
        row.ip_wrong = wrong_value(tok[ip + 3], has_root);
        auto step = static_cast<std::int64_t>(
            std::min<std::uint64_t>(row.size_bytes, std::numeric_limits<std::int64_t>::max()));
        sink.add(s_oop_busbw, Point{step, row.oop_busbw, k_nan});
        sink.add(s_ip_busbw, Point{step, row.ip_busbw, k_nan});
        sink.add(s_oop_algbw, Point{step, row.oop_algbw, k_nan});
        sink.add(s_ip_algbw, Point{step, row.ip_algbw, k_nan});
        sink.add(s_oop_time, Point{step, row.oop_time_us, k_nan});
        sink.add(s_ip_time, Point{step, row.ip_time_us, k_nan});
        result.rows.push_back(std::move(row));
        ++st.records;
    }
    st.bytes += reader.bytes();
}

}  // namespace trainbench::metrics::detail
