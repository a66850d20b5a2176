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
#include "metrics/torchtitan_text.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace trainbench::metrics::detail {

namespace {

using namespace titan;

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
            int got = k_unsure;
            if (const void* e = std::memchr(t.data(), '\x1b', t.size())) {
                // A coloured step line is read in place where its escape sequences cannot change
                // what it says (the usual case), any other coloured line without them.
                m_first_escape = static_cast<std::size_t>(static_cast<const char*>(e) - t.data());
                m_sink.discard();
                got = this->line(t, true);
                if (got == k_unsure) {
                    strip_ansi(t, m_clean);
                    t = m_clean;
                }
            }
            if (got == k_unsure) {
                if (trim(t).empty()) return;
                m_sink.discard();
                got = this->line(t, false);
            }
            count(got, line);
        });
    }

private:
    // line()'s answer where a coloured line read in place might say something else without its
    // escape sequences.
    static constexpr int k_unsure = -2;

    void count(int got, const LineReader::Line& line) {
        ParseStats& st = m_out.stats;
        if (got == 0 || got == 2) {
            ++st.skipped;
        } else if (!line.complete) {
            m_sink.discard();
            st.truncated_tail = true;
            warn(st,
                 fmt::format("{}:{}: last line is incomplete (still being written?), ignored", m_label, line.number));
        } else if (got < 0) {
            ++st.skipped;
        } else {
            m_sink.commit();
            commit_timing();
            (m_staged_group.first ? m_validate_group : m_step_group) = m_staged_group.second;
            ++st.records;
        }
    }

    // "step: N" (or "validate step: N") in `t`, with the text before it without escape
    // sequences in `prefix`; false where `t` (with `esc`: read in place) may say otherwise.
    bool head_of(std::string_view t, bool esc, StepHead& h, std::string_view& prefix) {
        if (!esc) {
            h = step_head(t);
            prefix = t.substr(0, h.found ? h.pos : 0);
            return true;
        }
        h.pos = t.find("step:");
        if (h.pos == std::string_view::npos) return false;
        prefix = t.substr(0, h.pos);
        if (m_first_escape < h.pos) {
            const std::size_t at = m_first_escape;
            if (escape_end(prefix, at) == prefix.size()) {
                prefix = prefix.substr(0, at);  // one escape just before "step:" (a colour)
            } else {
                // the escapes end before "step:" and no other "step:" appears without them
                if (!strip_whole(prefix, m_prefix) || m_prefix.find("step:") != std::string_view::npos) return false;
                prefix = m_prefix;
            }
        }
        h.validate = prefix.size() >= 9 && prefix.substr(prefix.size() - 9) == "validate ";
        if (!h.validate && !prefix.empty() && is_key_char(prefix.back())) return true;  // "global_step:" ...
        std::size_t used = 0;
        double value = 0;
        const Read r = read_number(t.substr(h.pos + 5), true, used, value);
        if (r == Read::unsure) return false;
        const std::optional<std::int64_t> step = r == Read::number ? integral(value) : std::nullopt;
        if (!step) return true;
        h.found = true;
        h.step = *step;
        h.rest = h.pos + 5 + used;
        return true;
    }

    enum class Read { number, none, unsure };
    // The number at the start of `s` (after spaces), as grouped_number() reads it (with `esc`:
    // unsure where the escape sequences around it may make it another number).
    static Read read_number(std::string_view s, bool esc, std::size_t& used, double& value) {
        const std::size_t lead = skip_spaces(s);
        auto v = grouped_number(s, used);
        if (!esc) return v ? (value = *v, Read::number) : Read::none;
        if (!v) return has_escape(s.substr(lead, 4)) ? Read::unsure : Read::none;
        if (used < s.size() && may_continue_number(s[used])) return Read::unsure;
        value = *v;
        return Read::number;
    }

    // The key before the next ':' from `pos` in `t` (the run of key characters before it, not
    // before `pos`), that ':' at `colon`; false when no ':' is left. Escape sequences (only in a
    // line read in place) are skipped: `unsure` where the key might reach across one.
    static bool next_key(std::string_view t, std::size_t pos, std::size_t& colon, std::string_view& key, bool& unsure) {
        std::size_t seg = pos;    // where the text after the last escape sequence starts
        bool key_before = false;  // whether a key character comes just before `seg`, after `pos`
        for (;;) {
            const std::size_t at = find_colon_or_escape(t, seg);
            if (at == std::string_view::npos) return false;
            if (t[at] == ':') {
                colon = at;
                break;
            }
            if (at > seg) key_before = is_key_char(t[at - 1]);
            seg = escape_end(t, at);
            if (seg == std::string_view::npos) return false;
        }
        std::size_t k = colon;
        while (k > seg && is_key_char(t[k - 1])) --k;
        unsure = k == seg && key_before;
        key = t.substr(k, colon - k);
        return true;
    }

    // 1: a step line staged; 2: another rank's copy of the step line before; -1: a step line
    // without values; 0: another line; k_unsure (only with `esc`, `t` read in place).
    int line(std::string_view t, bool esc) {
        StepHead head;
        std::string_view prefix;
        if (!head_of(t, esc, head, prefix)) return k_unsure;
        if (!head.found) return 0;
        const bool validate = head.validate;
        const std::int64_t step = head.step;
        // another rank's copy of the step line just read
        std::optional<std::int64_t>& group = validate ? m_validate_group : m_step_group;
        if (group == step) return 2;
        const double wall = prefix_time(prefix, m_datetime);
        m_lookup = 0;
        int values = 0;
        std::size_t pos = head.rest, colon = 0;
        std::string_view key;
        bool unsure = false;
        while (next_key(t, pos, colon, key, unsure)) {
            if (unsure) return k_unsure;
            pos = colon + 1;
            if (key.empty()) continue;
            const int got = value(t.substr(pos), key, esc, Point{step, 0, wall}, validate, pos);
            if (got == k_unsure) return k_unsure;
            values += got;
        }
        if (values == 0) return -1;
        if (!validate) m_timing = {step, wall};
        m_staged_group = {validate, step};
        return 1;
    }

    // The value of `key` at the start of `rest` staged (its time and step in `at`); `pos` moves
    // past it where it is a number. Returns 1 for a value, 0 for none, or k_unsure.
    int value(std::string_view rest, std::string_view key, bool esc, Point at, bool validate, std::size_t& pos) {
        // (a series is made when its first value is read, never for a key without one)
        const std::size_t lead = skip_spaces(rest);
        if (esc && lead < rest.size() && rest[lead] == '\x1b') return k_unsure;
        const bool digit = lead < rest.size() && rest[lead] >= '0' && rest[lead] <= '9';
        const bool memory = key == "memory";
        Series* target = nullptr;
        if (digit && (memory ? !series_of(validate, key) && !series_of(validate, "memory(%)")
                             : !(target = series_of(validate, key)))) {
            // a value that --tags leaves out (neither memory series for "45.67GiB(57.72%)"): a
            // number for sure (it starts with a digit), taken as grouped_number() takes it, unread
            std::size_t used = lead;
            for (; used < rest.size(); ++used) {
                const char c = rest[used];
                if (!((c >= '0' && c <= '9') || c == '.' ||
                      (c == ',' && used + 1 < rest.size() && rest[used + 1] >= '0' && rest[used + 1] <= '9')))
                    break;
            }
            if (used - lead >= 63 || (used < rest.size() && may_continue_number(rest[used]))) {
                // an exponent, a separator, a long number: scan_grouped() says where it ends
                std::size_t n = 0;
                used = scan_grouped(rest, nullptr, n);
                if (esc && used < rest.size() && may_continue_number(rest[used])) return k_unsure;
            }
            pos += used;
            return 1;
        }
        std::size_t used = 0;
        const Read r = read_number(rest, esc, used, at.value);
        if (r == Read::unsure) return k_unsure;
        if (r == Read::none) {
            if (key != "mfu") return 0;
            const std::string_view t = trim(rest);
            if (starts_with(t, "N/A")) {
                m_out.parameters["mfu"] = "\"N/A\"";
            } else if (esc && has_escape(rest.substr(0, static_cast<std::size_t>(t.data() - rest.data()) + 3))) {
                return k_unsure;
            }
            return 0;
        }
        m_sink.stage(digit && !memory ? target : series_of(validate, key), at);
        pos += used;
        if (memory) {  // "45.67GiB(57.72%)"
            rest = rest.substr(used);
            if (esc && has_escape(rest.substr(0, 6))) return k_unsure;
            const std::size_t open = rest.find('(');
            if (open < 6) {  // npos is never below 6
                const Read pr = read_number(rest.substr(open + 1), esc, used, at.value);
                if (pr == Read::unsure) return k_unsure;
                if (pr == Read::number) m_sink.stage(series_of(validate, "memory(%)"), at);
            }
        }
        return 1;
    }

    // The series of a step line's key (nullptr where --tags leaves it out). A step line's keys
    // come in the same order on every line: the n-th lookup of a line is first tried against
    // what the n-th lookup of the line before found.
    Series* series_of(bool validate, std::string_view key) {
        if (m_lookup >= m_memo.size()) return lookup(validate, key);
        Memo& m = m_memo[m_lookup++];
        if (!m.known || m.validate != validate || !same_text(m.key, key)) {
            m.series = lookup(validate, key);
            m.known = true;
            m.validate = validate;
            m.key.assign(key);
        }
        return m.series;
    }

    Series* lookup(bool validate, std::string_view key) {
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
            if (!m_step_time_known) {  // made on the first step time, the same series after
                m_step_time = m_sink.resolve_as(names::step_time_s, "log timestamps");
                m_step_time_known = true;
            }
            m_sink.add(m_step_time, Point{step, seconds, wall});
        }
        m_prev_step = step;
        m_prev_wall = wall;
    }

    std::string_view m_label;
    LogData& m_out;
    SeriesSink m_sink;
    std::string m_clean, m_name, m_prefix;
    DatetimeReader m_datetime;
    std::size_t m_first_escape = 0;  // of the coloured line being read in place
    Series* m_step_time = nullptr;
    bool m_step_time_known = false;
    struct Memo {
        bool known = false, validate = false;
        std::string key;
        Series* series = nullptr;
    };
    std::array<Memo, 16> m_memo;
    std::size_t m_lookup = 0;  // lookups made for the line being read
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
