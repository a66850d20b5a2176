// Megatron-LM iteration lines (training_log), every dated variant:
//   [ [YYYY-MM-DD HH:MM:SS(.ffffff)]] iteration  i/  N | key: value | key: value | ...
// Launcher prefixes (srun "1: ", "[default7]:", "[1,15]<stdout>:") are simply
// text before "iteration". Each "|" segment is "key: value" split at the last
// ':' with the value's leading number; skipped iterations carry no loss.
#include "metrics/common.hpp"
#include "metrics/parsers.hpp"

#include <fmt/format.h>

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

// Whether `s` starts with a digit after spaces (leading_number then reads a number).
bool starts_with_digit(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size() && s[i] == ' ') ++i;
    return i < s.size() && s[i] >= '0' && s[i] <= '9';
}

}  // namespace

IterationLine stage_iteration_line(std::string_view t, bool complete, SeriesSink& sink) {
    constexpr std::string_view k_elapsed = "elapsed time per iteration (ms)";
    IterationLine r;
    std::size_t at = 0;
    std::size_t rest_pos = match_iteration(t, at, r.iteration);
    if (rest_pos == std::string_view::npos) return r;
    r.matched = true;
    r.wall = timestamp_before(t, at);
    std::string_view rest = t.substr(rest_pos);
    while (!rest.empty()) {
        std::size_t bar = rest.find('|');
        if (bar == std::string_view::npos && !complete) break;  // possibly cut mid-value
        std::string_view seg = trim(rest.substr(0, bar));
        rest = (bar == std::string_view::npos) ? std::string_view{} : rest.substr(bar + 1);
        std::size_t colon = seg.rfind(':');
        if (seg.empty() || colon == std::string_view::npos) continue;
        std::string_view key = trim(seg.substr(0, colon));
        if (key.empty()) continue;
        const std::string_view text = seg.substr(colon + 1);
        const bool elapsed = key == k_elapsed;
        // (a series is made when its first value is read: a value that is no number resolves none)
        const bool digit = starts_with_digit(text);  // leading_number reads any value that starts so
        Series* target = nullptr;
        if (digit) {
            target = elapsed ? sink.resolve_as(names::step_time_s, key) : sink.resolve(key);
            if (!target) {  // a value --tags leaves out: counted, not converted
                ++r.fields;
                r.has_elapsed = r.has_elapsed || elapsed;
                continue;
            }
        }
        auto value = leading_number(text);
        if (!value) continue;
        ++r.fields;
        if (!digit) target = elapsed ? sink.resolve_as(names::step_time_s, key) : sink.resolve(key);
        if (elapsed) {
            r.has_elapsed = true;
            sink.stage(target, Point{r.iteration, *value / 1000.0, r.wall});
        } else {
            sink.stage(target, Point{r.iteration, *value, r.wall});
        }
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
