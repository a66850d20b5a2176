// NeMo stdout: NeMo 2 progress lines
//   Training epoch E, iteration n/total | lr: 2.699e-06 | global_step: 17 | ...
// and NeMo 1 / Lightning tqdm bars, whose updates are separated by '\r':
//   Epoch 0: :  47%|████▋     | 7/15 [06:19<07:13, k=v, k=v, ...]
// Lines are split on '\n' and '\r', ANSI escapes removed. The step is
// global_step for progress lines (iteration n when absent) and the bar
// counter n for tqdm bars (plus, from the second epoch on, the largest n of
// the earlier epochs): tqdm prints global_step with 3 significant digits.
#include "metrics/common.hpp"
#include "metrics/parsers.hpp"

#include <fmt/format.h>

#include <cstring>
#include <limits>

namespace trainbench::metrics::detail {

namespace {

constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();

bool read_int(std::string_view s, std::size_t& i, std::int64_t& v) {
    std::size_t start = i;
    v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 18) v = v * 10 + (s[i++] - '0');
    return i > start;
}

class NemoParser {
public:
    NemoParser(std::string_view label, const ParseOptions& options, LogData& out)
        : m_label(label), m_out(out), m_sink(out, options, canonical_names()) {}
    void run(Source& source);

private:
    // true when the segment was a progress line or bar
    bool progress_line(std::string_view s);
    bool tqdm_bar(std::string_view s);
    void segment(std::string_view s, bool complete);

    std::string_view m_label;
    LogData& m_out;
    SeriesSink m_sink;
    std::string m_clean;
    std::vector<std::pair<std::string_view, double>> m_values;
    // tqdm epoch offsets
    bool m_bar_started = false;
    std::int64_t m_bar_epoch = 0, m_bar_offset = 0, m_bar_max = 0;
};

bool NemoParser::progress_line(std::string_view s) {
    std::size_t pos = s.find("Training epoch ");
    if (pos == std::string_view::npos) return false;
    std::size_t i = pos + 15;
    std::int64_t epoch = 0, iteration = 0, total = 0;
    if (!read_int(s, i, epoch)) return false;
    constexpr std::string_view k_it = ", iteration ";
    if (s.substr(i, k_it.size()) != k_it) return false;
    i += k_it.size();
    if (!read_int(s, i, iteration) || i >= s.size() || s[i] != '/') return false;
    ++i;
    read_int(s, i, total);
    std::string_view rest = s.substr(i);
    m_values.clear();
    std::optional<std::int64_t> global_step;
    while (!rest.empty()) {
        std::size_t bar = rest.find('|');
        std::string_view seg = trim(rest.substr(0, bar));
        rest = (bar == std::string_view::npos) ? std::string_view{} : rest.substr(bar + 1);
        std::size_t colon = seg.rfind(':');
        if (seg.empty() || colon == std::string_view::npos) continue;
        std::string_view key = trim(seg.substr(0, colon));
        auto value = to_number(seg.substr(colon + 1));
        if (key.empty() || !value) continue;
        if (key == "global_step") global_step = integral(*value);
        m_values.emplace_back(key, *value);
    }
    std::int64_t step = global_step ? *global_step : iteration;
    for (auto& [key, value] : m_values) m_sink.stage(m_sink.resolve(key), Point{step, value, k_nan});
    m_sink.stage(m_sink.resolve_as("epoch", "epoch"), Point{step, static_cast<double>(epoch), k_nan});
    return true;
}

bool NemoParser::tqdm_bar(std::string_view s) {
    std::size_t pct = s.find("%|");
    if (pct == std::string_view::npos) return false;
    std::string_view desc = s.substr(0, pct);
    std::size_t ep = desc.rfind("Epoch ");
    if (ep == std::string_view::npos) return false;  // validation / sanity-check bars
    std::size_t i = ep + 6;
    std::int64_t epoch = 0;
    if (!read_int(desc, i, epoch)) return false;
    std::size_t bar_end = s.find('|', pct + 2);
    if (bar_end == std::string_view::npos) return false;
    i = bar_end + 1;
    while (i < s.size() && s[i] == ' ') ++i;
    std::int64_t n = 0, total = 0;
    if (!read_int(s, i, n)) return false;
    if (i < s.size() && s[i] == '/') {
        ++i;
        read_int(s, i, total);
    }
    std::size_t open = s.find('[', i);
    if (open == std::string_view::npos) return false;
    std::size_t close = s.find(']', open);
    if (close == std::string_view::npos) return false;  // cut bar: nothing reliable
    std::string_view post = s.substr(open + 1, close - open - 1);
    m_values.clear();
    while (!post.empty()) {
        std::size_t comma = post.find(", ");
        std::string_view item = trim(post.substr(0, comma));
        post = (comma == std::string_view::npos) ? std::string_view{} : post.substr(comma + 2);
        std::size_t eq = item.find('=');
        if (eq == std::string_view::npos) continue;  // elapsed<remaining, rate
        std::string_view key = trim(item.substr(0, eq));
        auto value = to_number(item.substr(eq + 1));
        if (key.empty() || !value || key == "v_num") continue;  // v_num: the logger version, not a metric
        m_values.emplace_back(key, *value);
    }
    if (!m_bar_started) {
        m_bar_started = true;
        m_bar_epoch = epoch;
    }
    if (epoch > m_bar_epoch) {
        m_bar_offset = sat_add(m_bar_offset, m_bar_max);
        m_bar_max = 0;
        m_bar_epoch = epoch;
    }
    m_bar_max = std::max(m_bar_max, n);
    std::int64_t step = sat_add(m_bar_offset, n);
    for (auto& [key, value] : m_values) m_sink.stage(m_sink.resolve(key), Point{step, value, k_nan});
    if (!m_values.empty())
        m_sink.stage(m_sink.resolve_as("epoch", "epoch"), Point{step, static_cast<double>(epoch), k_nan});
    return !m_values.empty();
}

void NemoParser::segment(std::string_view s, bool complete) {
    ParseStats& st = m_out.stats;
    if (std::memchr(s.data(), '\x1b', s.size())) {
        strip_ansi(s, m_clean);
        s = m_clean;
    }
    if (trim(s).empty()) return;
    bool ok = progress_line(s) || tqdm_bar(s);
    if (!ok) {
        m_sink.discard();
        ++st.skipped;
        return;
    }
    if (!complete) {
        // A progress line cut mid-value would lie; a bar is only taken with its ']'.
        if (s.find("Training epoch ") != std::string_view::npos) {
            m_sink.discard();
            st.truncated_tail = true;
            warn(st, fmt::format("{}: last line is incomplete (still being written?), ignored", m_label));
            return;
        }
    }
    m_sink.commit();
    ++st.records;
}

void NemoParser::run(Source& source) {
    each_text_line(source, m_label, m_out, [this](const LineReader::Line& line, std::uint64_t) {
        std::string_view t = line.text;
        // tqdm updates are separated by '\r'; only the last piece can be cut.
        while (!t.empty()) {
            std::size_t cr = t.find('\r');
            std::string_view piece = t.substr(0, cr);
            t = (cr == std::string_view::npos) ? std::string_view{} : t.substr(cr + 1);
            segment(piece, line.complete || !t.empty() || cr != std::string_view::npos);
        }
    });
}

}  // namespace

void parse_nemo(Source& source, std::string_view label, const ParseOptions& options, LogData& out) {
    NemoParser parser(label, options, out);
    parser.run(source);
}

}  // namespace trainbench::metrics::detail
