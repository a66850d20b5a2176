// Megatron-LM iteration lines (training_log), every dated variant:
//   [ [YYYY-MM-DD HH:MM:SS(.ffffff)]] iteration  i/  N | key: value | key: value | ...
// Launcher prefixes (srun "1: ", "[default7]:", "[1,15]<stdout>:") are simply
// text before "iteration". Each "|" segment is "key: value" split at the last
// ':' with the value's leading number; skipped iterations carry no loss.
#include "metrics/common.hpp"
#include "metrics/parsers.hpp"

#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <limits>

namespace trainbench::metrics::detail {

namespace {

constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();

bool parse_uint(std::string_view s, std::size_t& i, std::int64_t& v) {
    std::size_t start = i;
    v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 18) v = v * 10 + (s[i++] - '0');
    return i > start;
}

void skip_spaces(std::string_view s, std::size_t& i) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
}

// Finds " iteration i/N |" and returns the position after '|' (npos if none).
std::size_t match_iteration(std::string_view line, std::size_t& at, std::int64_t& iteration) {
    std::size_t from = 0;
    for (;;) {
        std::size_t pos = line.find("iteration", from);
        if (pos == std::string_view::npos) return pos;
        from = pos + 1;
        std::size_t i = pos + 9;
        std::int64_t it = 0, total = 0;
        skip_spaces(line, i);
        if (!parse_uint(line, i, it)) continue;
        skip_spaces(line, i);
        if (i >= line.size() || line[i] != '/') continue;
        ++i;
        skip_spaces(line, i);
        if (!parse_uint(line, i, total)) continue;
        skip_spaces(line, i);
        if (i >= line.size() || line[i] != '|') continue;
        at = pos;
        iteration = it;
        return i + 1;
    }
}

// " [2024-04-06 02:58:23]" right before "iteration", as Unix seconds (UTC assumed).
double timestamp_before(std::string_view line, std::size_t pos) {
    std::string_view head = trim(line.substr(0, pos));
    if (head.empty() || head.back() != ']') return k_nan;
    std::size_t open = head.rfind('[');
    if (open == std::string_view::npos) return k_nan;
    auto t = parse_datetime(head.substr(open + 1, head.size() - open - 2));
    return t ? *t : k_nan;
}

// How many spaces `s` starts with (eight at a time: values are padded with runs of them).
std::size_t leading_spaces(std::string_view s) {
    constexpr std::uint64_t k_spaces = 0x2020202020202020ull;
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8)
        if (const std::uint64_t diff = load_u64(s.data() + i) ^ k_spaces; diff != 0)
            return i + static_cast<std::size_t>(std::countr_zero(diff) / 8);
    while (i < s.size() && s[i] == ' ') ++i;
    return i;
}

// One "key: value" segment: staged when its series is kept, counted when --tags leaves it out.
void stage_segment(std::string_view key, std::string_view text, IterationLine& r, SeriesSink& sink) {
    constexpr std::string_view k_elapsed = "elapsed time per iteration (ms)";
    const bool elapsed = key.size() == k_elapsed.size() && key == k_elapsed;
    // (a series is made when its first value is read: a value that is no number resolves none)
    text.remove_prefix(leading_spaces(text));                                        // (leading_number skips them too)
    const bool digit = !text.empty() && text.front() >= '0' && text.front() <= '9';  // read as a number
    Series* target = nullptr;
    if (digit) {
        target = elapsed ? sink.resolve_as(names::step_time_s, key) : sink.resolve(key);
        if (!target) {  // a value --tags leaves out: counted, not converted
            ++r.fields;
            r.has_elapsed = r.has_elapsed || elapsed;
            return;
        }
    }
    auto value = leading_number(text);
    if (!value) return;
    ++r.fields;
    if (!digit) target = elapsed ? sink.resolve_as(names::step_time_s, key) : sink.resolve(key);
    if (elapsed) {
        r.has_elapsed = true;
        sink.stage(target, Point{r.iteration, *value / 1000.0, r.wall});
    } else {
        sink.stage(target, Point{r.iteration, *value, r.wall});
    }
}

}  // namespace

IterationLine stage_iteration_line(std::string_view t, bool complete, SeriesSink& sink) {
    IterationLine r;
    std::size_t at = 0;
    std::size_t rest_pos = match_iteration(t, at, r.iteration);
    if (rest_pos == std::string_view::npos) return r;
    r.matched = true;
    r.wall = timestamp_before(t, at);
    // Segments between '|'s, each "key: value" split at its last ':'.
    const std::string_view rest = t.substr(rest_pos);
    DelimiterScanner delimiters(rest, '|', ':');
    std::size_t begin = 0, colon = std::string_view::npos;
    for (;;) {
        const std::size_t d = delimiters.next();
        if (d != std::string_view::npos && rest[d] == ':') {
            colon = d;
            continue;
        }
        if (d == std::string_view::npos && !complete) break;  // possibly cut mid-value
        const std::size_t end = d == std::string_view::npos ? rest.size() : d;
        if (colon != std::string_view::npos) {
            const std::string_view key = trim(rest.substr(begin, colon - begin));
            std::string_view text = rest.substr(colon + 1, end - colon - 1);
            while (!text.empty() && trim_space(text.back())) text.remove_suffix(1);
            if (!key.empty()) stage_segment(key, text, r, sink);
        }
        if (d == std::string_view::npos) break;
        begin = d + 1;
        colon = std::string_view::npos;
    }
    return r;
}

void parse_megatron(Source& source, std::string_view label, const ParseOptions& options, LogData& out) {
    SeriesSink sink(out, options, canonical_names());
    ParseStats& st = out.stats;
    each_text_line(source, label, out, [&](const LineReader::Line& line, std::uint64_t) {
        std::string_view t = line.text;
        if (trim(t).empty()) return;
        IterationLine it = stage_iteration_line(t, line.complete, sink);
        if (!it.matched) {
            ++st.skipped;
            return;
        }
        if (it.fields == 0) {
            sink.discard();
            if (!line.complete)
                st.truncated_tail = true;
            else
                ++st.skipped;
            return;
        }
        if (!line.complete) {
            // A line cut mid-write: keep what was complete before the last '|'.
            st.truncated_tail = true;
            warn(st, fmt::format("{}:{}: last line is incomplete (still being written?)", label, line.number));
        }
        sink.commit();
        ++st.records;
    });
}

}  // namespace trainbench::metrics::detail
