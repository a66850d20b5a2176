// TorchTitan's per-step line (torchtitan/components/metrics.py, MetricsProcessor.log), v0.2.2
// and after, with or without its ANSI colours and whatever launcher prefix comes first:
//   [rank0]:[titan] 2026-08-22 10:00:00,123 - root - INFO - step: 10  loss:  7.12345
//     grad_norm:  1.2345  memory: 45.67GiB(57.72%)  tps: 1,234  tflops: 56.78  mfu: 5.74%
// (one line; b5bcd76c prints "mfu: N/A" when quantization is on, older releases print no
// grad_norm, the oldest "wps" for "tps"), and the validation line "validate step: N  loss: ...
// memory: ...  tps: ...". Series: loss, grad_norm, memory_max_reserved_gib and _pct,
// tokens_per_s_per_gpu (tps is per device), tflops_per_gpu, mfu_pct; validation values as
// validate/<key>. The line prints no time: step_time_s is derived from the logger's
// timestamps (seconds between two step lines over the steps between them). A "mfu: N/A" is
// kept as the parameter mfu = "N/A".
// Every rank logs when LOG_RANK names several (torchrun --tee: "[rank0]:", "[rank1]:" ...) or
// when torchrun runs without a filter (trainbench's launch): the same step then comes once per
// rank, one rank's line after another (each rank writes its step line before it can take part
// in the next step's collectives). A step line of the same step as the step line before it is
// another rank's copy: the first line of each step is read, the copies are skipped (counted).
#include "metrics/common.hpp"
#include "metrics/parsers.hpp"
#include "metrics/split.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace trainbench::metrics::detail {

namespace {

constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();

const std::vector<NameMapping>& titan_names() {
    static const std::vector<NameMapping> table = {
        {"loss", names::loss},
        {"grad_norm", names::grad_norm},
        {"memory", "memory_max_reserved_gib"},
        {"memory(%)", "memory_max_reserved_pct"},
        {"tps", "tokens_per_s_per_gpu"},
        {"tflops", names::tflops_per_gpu},
        {"mfu", "mfu_pct"},
    };
    return table;
}

bool is_key_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// A number that may carry thousands separators ("1,234,567"), at the start of `s` after
// spaces: its characters without the separators go to `buf` (`n` of them; none where `buf`
// is null: the number is skipped); returns how many characters of `s` it took.
std::size_t scan_grouped(std::string_view s, char* buf, std::size_t& n) {
    constexpr std::size_t k_most = 63;
    std::size_t i = 0;
    while (i < s.size() && s[i] == ' ') ++i;
    n = 0;
    std::size_t start = i;
    while (i < s.size() && n < k_most) {
        char c = s[i];
        bool sign = (c == '-' || c == '+') && (i == start || s[i - 1] == 'e' || s[i - 1] == 'E');
        bool exp = (c == 'e' || c == 'E') && i > start;
        if (c == ',' && i > start && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9') {
            ++i;
            continue;
        }
        if (!((c >= '0' && c <= '9') || c == '.' || sign || exp)) break;
        if (buf) buf[n] = c;
        ++n;
        ++i;
    }
    return i;
}

// That number's value; `used` is how many characters it took.
std::optional<double> grouped_number(std::string_view s, std::size_t& used) {
    // Most numbers are plain decimals with no separator: read in place (the value the copy
    // below gives them; "nan" and "inf" are no numbers here, as there).
    std::size_t lead = s.find_first_not_of(' ');
    if (lead != std::string_view::npos && lead + 1 < s.size() && (s[lead] == '-' || s[lead] == '+')) ++lead;
    if (lead < s.size() && ((s[lead] >= '0' && s[lead] <= '9') || s[lead] == '.')) {
        double value = 0;
        const std::size_t n_plain = leading_number_length(s, value);
        if (n_plain > 0 && n_plain - lead < 63 && (n_plain == s.size() || s[n_plain] != ',')) {
            used = n_plain;
            return value;
        }
    }
    char buf[64];
    std::size_t n = 0;
    used = scan_grouped(s, buf, n);
    if (n == 0) return std::nullopt;
    return leading_number(std::string_view(buf, n));
}

// Whether `s` starts with a digit after spaces: grouped_number() then reads a number.
bool digit_after_spaces(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size() && s[i] == ' ') ++i;
    return i < s.size() && s[i] >= '0' && s[i] <= '9';
}

// The first "YYYY-MM-DD HH:MM:SS[,mmm]" in `prefix`, as Unix seconds (the logger's local
// time read as UTC: only differences are used), or NaN.
double prefix_time(std::string_view prefix) {
    for (std::size_t i = 0; i + 19 <= prefix.size(); ++i) {
        if (prefix[i] < '0' || prefix[i] > '9' || prefix[i + 4] != '-') continue;
        if (auto t = parse_datetime(prefix.substr(i))) return *t;
    }
    return k_nan;
}

// Where a step line's values start: "step: N" (or "validate step: N") found at `pos`, the
// values from `rest` on.
struct StepHead {
    bool found = false, validate = false;
    std::size_t pos = 0, rest = 0;
    std::int64_t step = 0;
};

StepHead step_head(std::string_view t) {
    StepHead h;
    h.pos = t.find("step:");
    if (h.pos == std::string_view::npos) return h;
    h.validate = h.pos >= 9 && t.substr(h.pos - 9, 9) == "validate ";
    if (!h.validate && h.pos > 0 && is_key_char(t[h.pos - 1])) return h;  // "global_step:" and the like
    std::size_t used = 0;
    auto step_value = grouped_number(t.substr(h.pos + 5), used);
    std::optional<std::int64_t> step = step_value ? integral(*step_value) : std::nullopt;
    if (!step) return h;
    h.found = true;
    h.step = *step;
    h.rest = h.pos + 5 + used;
    return h;
}

class TitanParser {
public:
    TitanParser(std::string_view label, const ParseOptions& options, LogData& out)
        : m_label(label), m_out(out), m_sink(out, options, titan_names()) {}

    // The first and last step lines with their times (a part of a file: the step time across
    // the cut is the merge's to add).
    struct Edge {
        std::int64_t first_step = 0, last_step = 0;
        double first_wall = k_nan, last_wall = k_nan;
        bool any = false;
    };
    [[nodiscard]] const Edge& edge() const { return m_edge; }
    [[nodiscard]] std::uint64_t lines() const { return m_lines; }

    void run(Source& source) {
        m_lines = each_text_line(source, m_label, m_out, [&](const LineReader::Line& line, std::uint64_t) {
            std::string_view t = line.text;
            if (std::memchr(t.data(), '\x1b', t.size())) {
                strip_ansi(t, m_clean);
                t = m_clean;
            }
            ParseStats& st = m_out.stats;
            if (trim(t).empty()) return;
            m_sink.discard();
            int got = this->line(t);
            if (got == 0 || got == 2) {
                ++st.skipped;
            } else if (!line.complete) {
                m_sink.discard();
                st.truncated_tail = true;
                warn(st, fmt::format("{}:{}: last line is incomplete (still being written?), ignored", m_label,
                                     line.number));
            } else if (got < 0) {
                ++st.skipped;
            } else {
                m_sink.commit();
                commit_timing();
                (m_staged_group.first ? m_validate_group : m_step_group) = m_staged_group.second;
                ++st.records;
            }
        });
    }

private:
    // 1: a step line staged; 2: another rank's copy of the step line before; -1: a step line
    // without values; 0: another line.
    int line(std::string_view t) {
        const StepHead head = step_head(t);
        if (!head.found) return 0;
        const bool validate = head.validate;
        const std::int64_t step = head.step;
        // another rank's copy of the step line just read
        std::optional<std::int64_t>& group = validate ? m_validate_group : m_step_group;
        if (group == step) return 2;
        double wall = prefix_time(t.substr(0, head.pos));
        std::size_t used = 0;
        std::string_view rest = t.substr(head.rest);
        int values = 0;
        while (!rest.empty()) {
            std::size_t colon = rest.find(':');
            if (colon == std::string_view::npos) break;
            std::size_t k = colon;
            while (k > 0 && is_key_char(rest[k - 1])) --k;
            std::string_view key = rest.substr(k, colon - k);
            rest = rest.substr(colon + 1);
            if (key.empty()) continue;
            // (a series is made when its first value is read, never for a key without one)
            Series* target = nullptr;
            const bool memory = key == "memory";
            if (memory && digit_after_spaces(rest) && !series_of(validate, key) && !series_of(validate, "memory(%)")) {
                // neither memory series is kept (--tags): the "45.67GiB(57.72%)" is skipped unread
                std::size_t n = 0;
                rest = rest.substr(scan_grouped(rest, nullptr, n));
                ++values;
                continue;
            }
            const bool number = !memory && digit_after_spaces(rest);
            if (number && !(target = series_of(validate, key))) {
                // a value that --tags leaves out: a number for sure (it starts with a digit), taken
                // as grouped_number() takes it, not converted
                std::size_t n = 0;
                rest = rest.substr(scan_grouped(rest, nullptr, n));
                ++values;
                continue;
            }
            auto v = grouped_number(rest, used);
            if (!v) {
                if (key == "mfu" && starts_with(trim(rest), "N/A")) m_out.parameters["mfu"] = "\"N/A\"";
                continue;
            }
            rest = rest.substr(used);
            m_sink.stage(number ? target : series_of(validate, key), Point{step, *v, wall});
            ++values;
            if (key == "memory") {  // "45.67GiB(57.72%)"
                std::size_t open = rest.find('(');
                if (open < 6)  // npos is never below 6
                    if (auto pct = grouped_number(rest.substr(open + 1), used))
                        m_sink.stage(series_of(validate, "memory(%)"), Point{step, *pct, wall});
            }
        }
        if (values == 0) return -1;
        if (!validate) m_timing = {step, wall};
        m_staged_group = {validate, step};
        return 1;
    }

    // The series of a step line's key (nullptr where --tags leaves it out).
    Series* series_of(bool validate, std::string_view key) {
        if (key == "wps") key = "tps";  // the oldest releases' name for the same figure
        if (!validate) return m_sink.resolve(key);
        m_name.assign("validate/");
        m_name.append(key);
        return m_sink.resolve(m_name);
    }

    // The step time between this step line and the previous one, from their timestamps.
    void commit_timing() {
        if (!m_timing) return;
        auto [step, wall] = *m_timing;
        m_timing.reset();
        if (!m_edge.any) {
            m_edge.any = true;
            m_edge.first_step = step;
            m_edge.first_wall = wall;
        }
        m_edge.last_step = step;
        m_edge.last_wall = wall;
        if (!std::isnan(wall) && !std::isnan(m_prev_wall) && step > m_prev_step && wall >= m_prev_wall) {
            double seconds = (wall - m_prev_wall) / static_cast<double>(step - m_prev_step);
            m_sink.add(m_sink.resolve_as(names::step_time_s, "log timestamps"), Point{step, seconds, wall});
        }
        m_prev_step = step;
        m_prev_wall = wall;
    }

    std::string_view m_label;
    LogData& m_out;
    SeriesSink m_sink;
    std::string m_clean, m_name;
    std::optional<std::pair<std::int64_t, double>> m_timing;
    // The step of the last step line read (training, validation), and of the one staged.
    std::optional<std::int64_t> m_step_group, m_validate_group;
    std::pair<bool, std::int64_t> m_staged_group{false, 0};
    std::int64_t m_prev_step = 0;
    double m_prev_wall = k_nan;
    Edge m_edge;
    std::uint64_t m_lines = 0;
};

// Each part's first and last step line, in the part's summary under keys that sort in file
// order (the merge keeps them all), for join_parts.
constexpr std::string_view k_edge_key = "\x01torchtitan-edge:";

// A cut for a parallel parse: the start of a step line of another step than the step line
// before it, with no validation line between them, so that no part starts among the ranks'
// copies of one step line (the first copy is read, wherever it is).
std::uint64_t at_new_step(const FileSource& file, std::uint64_t from, std::uint64_t size) {
    std::string clean;
    std::optional<std::int64_t> previous;  // the step of the last step line, while no validation line followed it
    return first_cut_in_lines(file, from, size, [&](std::string_view t, std::uint64_t start, std::uint64_t) {
        if (std::memchr(t.data(), '\x1b', t.size())) {
            strip_ansi(t, clean);
            t = clean;
        }
        if (const StepHead h = step_head(t); h.found) {
            if (!h.validate && previous && *previous != h.step) return start;
            previous = h.validate ? std::nullopt : std::optional<std::int64_t>(h.step);
        }
        return std::uint64_t{0};
    });
}

void parse_titan_part(Source& source, std::string_view label, const ParseOptions& options, LinePart& part) {
    TitanParser parser(label, options, part.data);
    parser.run(source);
    part.lines = parser.lines();
    const TitanParser::Edge& e = parser.edge();
    if (!e.any) return;
    const std::string key = fmt::format("{}{:020}:", k_edge_key, part.begin);
    part.data.summary[key + "a"] = static_cast<double>(e.first_step);
    part.data.summary[key + "b"] = e.first_wall;
    part.data.summary[key + "c"] = static_cast<double>(e.last_step);
    part.data.summary[key + "d"] = e.last_wall;
}

// The step time of each part's first step line, from the previous part's last one: what a
// sequential parse gives; the edge keys are then removed.
void join_parts(const ParseOptions& options, LogData& out) {
    std::vector<std::array<double, 4>> edges;
    for (auto it = out.summary.lower_bound(std::string(k_edge_key)); it != out.summary.end();) {
        if (!starts_with(it->first, k_edge_key)) break;
        const char field = it->first.back();
        if (field == 'a') edges.push_back({k_nan, k_nan, k_nan, k_nan});
        if (!edges.empty()) edges.back()[static_cast<std::size_t>(field - 'a') & 3u] = it->second;
        it = out.summary.erase(it);
    }
    SeriesSink sink(out, options, titan_names());
    for (std::size_t i = 1; i < edges.size(); ++i) {
        const double prev_step = edges[i - 1][2], prev_wall = edges[i - 1][3];
        const double step = edges[i][0], wall = edges[i][1];
        if (std::isnan(wall) || std::isnan(prev_wall) || !(step > prev_step) || wall < prev_wall) continue;
        sink.add(sink.resolve_as(names::step_time_s, "log timestamps"),
                 Point{static_cast<std::int64_t>(step), (wall - prev_wall) / (step - prev_step), wall});
    }
}

}  // namespace

void parse_torchtitan(Source& source, std::string_view label, const ParseOptions& options, LogData& out) {
    TitanParser parser(label, options, out);
    parser.run(source);
}

bool parse_torchtitan_split(const std::filesystem::path& path, std::string_view label, const ParseOptions& options,
                            LogData& out, const SplitPolicy& policy) {
    if (!parse_split(path, label, options, out, parse_titan_part, at_new_step, policy)) return false;
    join_parts(options, out);
    return true;
}

void parse_torchtitan_file(const std::filesystem::path& path, std::string_view label, const ParseOptions& options,
                           LogData& out, const SplitPolicy& policy) {
    if (parse_torchtitan_split(path, label, options, out, policy)) return;
    FileSource source(path);
    parse_torchtitan(source, label, options, out);
}

}  // namespace trainbench::metrics::detail
