// fairseq / metaseq training logs, --log-format json and simple, current and legacy:
//   <ts> | INFO | train_inner | {"epoch": 1, "wps": "3283.4", "num_updates": "2", ...}
//   <ts> | INFO | train_inner | epoch 001:    100 / 1563 loss=9.5, wps=..., num_updates=100, ...
//   <ts> | INFO | train | {"train_wps": ...}      <ts> | INFO | valid | epoch 001 | loss 9.5 | ...
//   | epoch 010:   2000 / 8223 loss=..., wps=...   (fairseq <= 0.9: train_wall cumulative)
//   | epoch 010  2000 / 8223 loss=1.27 (1.50), wps=962, ...   (2018)
// train_inner values keep their names (wps -> tokens_per_s, bsz -> global_batch_size,
// gnorm -> grad_norm, ...); end-of-epoch "train" / "valid" values are kept as
// epoch/train_<key> / epoch/valid_<key>. The step is num_updates, or (epoch-1)*size + i
// when a legacy line has none. step_time_s is derived (see docs/log-formats.md).
#include "metrics/common.hpp"
#include "metrics/parsers.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <simdjson.h>

namespace trainbench::metrics::detail {

namespace {

namespace od = simdjson::ondemand;
constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();

enum class Kind { inner, train, valid };

class MetaseqParser {
public:
    MetaseqParser(std::string_view label, const ParseOptions& options, LogData& out)
        : m_label(label), m_out(out), m_sink(out, options, canonical_names()) {}
    void run(Source& source);

private:
    bool line(std::string_view t, std::size_t capacity);
    bool json_values(const char* json, std::size_t len, std::size_t capacity);
    void kv_values(std::string_view s, char pair_sep, char kv_sep);
    void emit(Kind kind, double wall, std::optional<std::int64_t> fallback_step, bool legacy,
              bool keys_prefixed = true);

    std::string_view m_label;
    LogData& m_out;
    SeriesSink m_sink;
    od::parser m_parser;
    std::vector<std::pair<std::string, double>> m_values;
    // previous train_inner line, for the derived step time
    std::optional<std::int64_t> m_prev_updates;
    double m_prev_train_wall = k_nan;
};

bool MetaseqParser::json_values(const char* json, std::size_t len, std::size_t capacity) {
    m_values.clear();
    od::document doc;
    od::object obj;
    if (m_parser.iterate(json, len, capacity).get(doc) || doc.get_object().get(obj)) return false;
    for (auto field : obj) {
        std::string_view key;
        od::value v;
        if (field.unescaped_key().get(key) || field.value().get(v)) return false;
        od::json_type type{};
        if (v.type().get(type)) return false;
        double d = 0;
        if (type == od::json_type::number) {
            if (v.get_double().get(d)) return false;
        } else if (type == od::json_type::string) {
            std::string_view s;
            if (v.get_string().get(s)) return false;
            auto n = to_number(s);
            if (!n) continue;
            d = *n;
        } else {
            if (type == od::json_type::object || type == od::json_type::array) {
                std::string_view raw;  // consume it
                if (type == od::json_type::object) {
                    od::object o;
                    if (v.get_object().get(o) || o.raw_json().get(raw)) return false;
                } else {
                    od::array a;
                    if (v.get_array().get(a) || a.raw_json().get(raw)) return false;
                }
            }
            continue;
        }
        m_values.emplace_back(std::string(key), d);
    }
    return true;
}

// "k=v, k=v" (pair_sep ',', kv_sep '=') or "k v | k v" (pair_sep '|', kv_sep ' ').
void MetaseqParser::kv_values(std::string_view s, char pair_sep, char kv_sep) {
    while (!s.empty()) {
        std::size_t sep = s.find(pair_sep);
        std::string_view item = trim(s.substr(0, sep));
        s = (sep == std::string_view::npos) ? std::string_view{} : s.substr(sep + 1);
        std::size_t kv = (kv_sep == '=') ? item.find('=') : item.rfind(' ');
        if (item.empty() || kv == std::string_view::npos) continue;
        std::string_view key = trim(item.substr(0, kv));
        auto value = leading_number(item.substr(kv + 1));
        if (key.empty() || !value) continue;
        m_values.emplace_back(std::string(key), *value);
    }
}

void MetaseqParser::emit(Kind kind, double wall, std::optional<std::int64_t> fallback_step, bool legacy,
                         bool keys_prefixed) {
    std::string_view prefix = kind == Kind::train ? "train_" : kind == Kind::valid ? "valid_" : "";
    std::optional<std::int64_t> step;
    std::string updates_key = std::string(prefix) + "num_updates";
    double train_wall = k_nan;
    for (auto& [k, v] : m_values) {
        if (k == updates_key || k == "num_updates" || (!keys_prefixed && k == "num_updates")) step = integral(v);
        if (kind == Kind::inner && k == "train_wall") train_wall = v;
    }
    if (!step) step = fallback_step;
    if (!step) return;
    std::string name;
    for (auto& [k, v] : m_values) {
        if (kind == Kind::inner && k == "wps" && v == 0) continue;  // meter just started
        if (kind == Kind::inner) {
            m_sink.stage(m_sink.resolve(k), Point{*step, v, wall});
            continue;
        }
        // End-of-epoch values: "epoch/train_<key>", "epoch/valid_<key>" (the JSON
        // format prefixes keys itself; its "train_wall" is the total wall time).
        name.assign("epoch/");
        if (!keys_prefixed || !starts_with(k, prefix)) name.append(prefix);
        name.append(k);
        m_sink.stage(m_sink.resolve(name), Point{*step, v, wall});
    }
    if (kind != Kind::inner) return;
    // Derived step time: seconds inside train_step over the updates since the
    // previous train_inner line (fairseq <= 0.9 logged train_wall cumulatively).
    if (m_prev_updates && *step > *m_prev_updates && !std::isnan(train_wall)) {
        double interval = legacy ? train_wall - m_prev_train_wall : train_wall;
        double updates = static_cast<double>(*step) - static_cast<double>(*m_prev_updates);
        if (!std::isnan(interval) && interval >= 0)
            m_sink.stage(m_sink.resolve_as(names::step_time_s, "train_wall"), Point{*step, interval / updates, wall});
    }
    m_prev_updates = step;
    m_prev_train_wall = train_wall;
}

// The "YYYY-MM-DD HH:MM:SS" just before the first " | ", as Unix seconds.
double line_time(std::string_view t) {
    std::size_t bar = t.find(" | ");
    if (bar == std::string_view::npos || bar < 19) return k_nan;
    auto v = parse_datetime(t.substr(bar - 19, 19));
    return v ? *v : k_nan;
}

// "epoch 001:    100 / 1563 rest" or "epoch 010  2000 / 8223 rest": the step
// (epoch-1)*size + i and what follows.
bool inner_progress(std::string_view s, std::int64_t& step, std::string_view& rest) {
    std::size_t i = 0;
    auto num = [&](std::int64_t& v) {
        while (i < s.size() && s[i] == ' ') ++i;
        std::size_t start = i;
        v = 0;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 18) v = v * 10 + (s[i++] - '0');
        return i > start;
    };
    if (!starts_with(s, "epoch ")) return false;
    i = 6;
    std::int64_t epoch = 0, it = 0, size = 0;
    if (!num(epoch)) return false;
    if (i < s.size() && s[i] == ':') ++i;
    if (!num(it)) return false;
    while (i < s.size() && s[i] == ' ') ++i;
    if (i >= s.size() || s[i] != '/') return false;
    ++i;
    if (!num(size)) return false;
    step = sat_add(sat_mul(std::max<std::int64_t>(epoch - 1, 0), size), it);
    rest = s.substr(i);
    return true;
}

bool MetaseqParser::line(std::string_view t, std::size_t capacity) {
    m_values.clear();
    double wall = line_time(t);
    struct Tag {
        std::string_view text;
        Kind kind;
    };
    static constexpr Tag k_tags[] = {
        {"| train_inner |", Kind::inner}, {"| train |", Kind::train}, {"| valid |", Kind::valid}};
    for (const Tag& tag : k_tags) {
        std::size_t pos = t.find(tag.text);
        if (pos == std::string_view::npos) continue;
        std::string_view rest = trim(t.substr(pos + tag.text.size()));
        if (!rest.empty() && rest.front() == '{') {
            std::size_t cap = capacity - static_cast<std::size_t>(rest.data() - t.data());
            if (!json_values(rest.data(), rest.size(), cap)) return false;
            emit(tag.kind, wall, std::nullopt, false);
            return true;
        }
        std::int64_t step = 0;
        std::string_view kv;
        if (tag.kind == Kind::inner && inner_progress(rest, step, kv)) {
            kv_values(kv, ',', '=');
            emit(tag.kind, wall, step, false);
            return !m_values.empty();
        }
        if (tag.kind != Kind::inner && starts_with(rest, "epoch ")) {
            kv_values(rest, '|', ' ');
            emit(tag.kind, wall, std::nullopt, false, false);  // simple format: keys carry no prefix
            return !m_values.empty();
        }
        return false;
    }
    // fairseq <= 0.9 printed "| epoch 010:   2000 / 8223 k=v, ..." without a logging prefix.
    std::size_t pos = t.find("| epoch ");
    if (pos == std::string_view::npos) return false;
    std::int64_t step = 0;
    std::string_view kv;
    if (!inner_progress(t.substr(pos + 2), step, kv)) return false;
    kv_values(kv, ',', '=');
    emit(Kind::inner, wall, step, true);
    return !m_values.empty();
}

void MetaseqParser::run(Source& source) {
    ParseStats& st = m_out.stats;
    each_text_line(source, m_label, m_out, [&](const LineReader::Line& ln, std::uint64_t) {
        std::string_view t = ln.text;
        while (!t.empty() && (t.back() == '\r' || t.back() == ' ')) t.remove_suffix(1);
        if (trim(t).empty()) return;
        m_sink.discard();
        bool ok = line(t, ln.capacity);
        if (ok && ln.complete) {
            m_sink.commit();
            ++st.records;
        } else if (!ln.complete &&
                   (t.find("| train") != std::string_view::npos || t.find("| valid") != std::string_view::npos ||
                    t.find("| epoch") != std::string_view::npos)) {
            m_sink.discard();
            st.truncated_tail = true;
            warn(st, fmt::format("{}:{}: last line is incomplete (still being written?), ignored", m_label, ln.number));
        } else if (!ok && t.find('{') != std::string_view::npos &&
                   t.find("| train_inner |") != std::string_view::npos) {
            m_sink.discard();
            ++st.corrupt;
            warn(st, fmt::format("{}:{}: invalid JSON record, skipped", m_label, ln.number));
        } else {
            m_sink.discard();
            ++st.skipped;
        }
    });
}

}  // namespace

void parse_metaseq(Source& source, std::string_view label, const ParseOptions& options, LogData& out) {
    MetaseqParser parser(label, options, out);
    parser.run(source);
}

}  // namespace trainbench::metrics::detail
