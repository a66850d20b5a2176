// NVIDIA DLLogger JSON lines: "DLLL {...}" (JSONStreamBackend) or plain JSON
// lines. LOG records become points, PARAMETER records become parameters,
// METADATA records are read and ignored. Parsed in place with simdjson
// on-demand; bare NaN/Infinity (Python json.dumps) are rewritten on a copy of
// the rare line that needs it. The parser's parts: this file reads a line's
// records (step, data, parameters, time) into the series and runs over a file
// or one part of it (the threaded read, split.hpp); dllogger_keys.hpp finds the
// keys (the key table of the previous line), dllogger_values.hpp reads values.
#include "metrics/common.hpp"
#include "metrics/dllogger_keys.hpp"
#include "metrics/dllogger_values.hpp"
#include "metrics/parsers.hpp"
#include "metrics/split.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <simdjson.h>
#include <utility>

namespace trainbench::metrics::detail {

namespace {

using dllogger::check_unread;
using dllogger::each_field;
using dllogger::KeyHints;
using dllogger::non_finite_word;
using dllogger::read_scalar;
using dllogger::rewrite_non_finite;
using dllogger::Scalar;
using dllogger::Unread;
namespace od = simdjson::ondemand;
constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();
constexpr std::int64_t k_exact_integer = std::int64_t{1} << 53;

// DLLogger list steps ([epoch, iter], [epoch, iter, val_iter]) as one
// increasing step: the last element plus, per list length, the sum of the
// largest last element of each earlier epoch.
class ListSteps {
public:
    std::int64_t map(const std::int64_t* elems, std::size_t n) {
        State& s = m_states[n];
        std::int64_t epoch = elems[0], last = elems[n - 1];
        if (!s.started) {
            s.started = true;
            s.epoch = epoch;
        }
        if (epoch > s.epoch) {
            s.offset = sat_add(s.offset, s.max_last);
            s.max_last = 0;
            s.epoch = epoch;
        }
        s.max_last = std::max(s.max_last, last);
        return sat_add(s.offset, last);
    }
    // True once a list step of two or more elements was mapped: the mapping
    // depends on the epochs seen before, so a part of a file cannot do it alone.
    [[nodiscard]] bool used() const { return !m_states.empty(); }

private:
    struct State {
        bool started = false;
        std::int64_t epoch = 0, offset = 0, max_last = 0;
    };
    std::map<std::size_t, State> m_states;
};

enum class StepKind { none, integer, list, parameter, other };
enum class Outcome { ok, ignored, error };

class DlloggerParser {
public:
    DlloggerParser(std::string_view label, const ParseOptions& options, LogData& out)
        : m_label(label),
          m_out(out),
          m_sink(out, options, canonical_names()),
          m_want_records(options.step_records),
          m_want_wall(options.wall_times) {}

    void run(Source& source);
    [[nodiscard]] std::uint64_t lines() const { return m_lines; }
    [[nodiscard]] bool order_dependent() const { return m_list_steps.used(); }

private:
    Outcome parse_json(const char* json, std::size_t len, std::size_t capacity);
    // Forgets what the previous line left (its step kind, summary, parameters, pending points).
    void start_line(const char* end) {
        m_kind = StepKind::none;
        m_list_len = 0;
        m_summary.clear();
        m_params.clear();
        m_sink.discard();
        m_record_step = false;
        m_record_seconds.reset();
        m_end = end;
    }
    bool read_step(od::value v);
    bool read_data(od::object data);
    bool read_parameters(od::object data);
    bool stage_value(std::string_view key, od::value v);
    bool read_time(std::string_view key, od::value v, double& wall, std::string_view& datetime);
    struct Slot;
    Slot& slot_of(std::string_view key);
    bool read_deferred(std::string_view deferred, const char* json, std::size_t capacity);
    void reserve_records(std::uint64_t bytes_done, std::uint64_t size);

    std::string_view m_label;
    LogData& m_out;
    SeriesSink m_sink;
    od::parser m_parser;
    od::parser m_aux;  // for a "data" object that precedes "step"
    ListSteps m_list_steps;
    std::uint64_t m_lines = 0;
    std::string m_scratch;
    std::string m_name;
    KeyHints m_line_keys, m_data_keys, m_parameter_keys;
    // What a data key at one position meant on the previous line: kept while the key is the same.
    struct Slot {
        bool timing = false;    // the key gpu-recipes' step records read
        bool resolved = false;  // `series` is the key's (looked up on the first integer step)
        Series* series = nullptr;
    };
    std::vector<Slot> m_slots;    // by m_data_keys slot
    const char* m_end = nullptr;  // end of the JSON text being parsed

    // the record being read
    StepKind m_kind = StepKind::none;
    std::int64_t m_step = 0;
    std::array<std::int64_t, 8> m_list{};
    std::size_t m_list_len = 0;
    std::vector<std::pair<std::string, double>> m_summary;
    std::vector<std::pair<std::string, std::string>> m_params;

    // gpu-recipes step records (ParseOptions::step_records): what its tool reads of a line
    bool m_want_records = false;
    bool m_record_line = false;  // the line starts "DLLL" and is parsed as written
    bool m_record_step = false;  // "step" is an integer token (m_record_step_value)
    std::int64_t m_record_step_value = 0;
    std::optional<double> m_record_seconds;  // the last data["train_step_timing in s"], when a number
    bool m_records_reserved = false;
    bool m_want_wall = true;  // ParseOptions::wall_times
};

constexpr std::string_view k_timing_key = "train_step_timing in s";

bool DlloggerParser::read_step(od::value v) {
    od::json_type type{};
    if (v.type().get(type)) return false;
    switch (type) {
        case od::json_type::number: {
            // An integer token is what gpu-recipes' records need (its JSON library's integer);
            // the step itself is the double it converts to, as for any other number.
            std::int64_t n = 0;
            std::uint64_t u = 0;
            double d = 0;
            if (!v.get_int64().get(n)) {
                m_record_step = true;
                m_record_step_value = n;
                // (an integer a double holds exactly is the step as it is)
                if (n >= -k_exact_integer && n <= k_exact_integer) {
                    m_kind = StepKind::integer;
                    m_step = n;
                    return true;
                }
                d = static_cast<double>(n);
            } else if (!v.get_uint64().get(u)) {
                m_record_step = true;
                m_record_step_value = static_cast<std::int64_t>(u);
                d = static_cast<double>(u);
            } else {
                m_record_step = false;
                if (v.get_double().get(d)) return false;
            }
            if (auto i = integral(d)) {
                m_kind = StepKind::integer;
                m_step = *i;
            } else {
                m_kind = StepKind::other;
            }
            return true;
        }
        case od::json_type::string: {
            std::string_view s;
            if (v.get_string().get(s)) return false;
            m_kind = (s == "PARAMETER") ? StepKind::parameter : StepKind::other;
            m_record_step = false;
            return true;
        }
        case od::json_type::array: {
            m_record_step = false;
            od::array arr;
            if (v.get_array().get(arr)) return false;
            m_list_len = 0;
            bool ok = true;
            for (auto element : arr) {
                double d = 0;
                if (element.get_double().get(d)) return false;
                auto i = integral(d);
                if (!i || m_list_len == m_list.size())
                    ok = false;
                else
                    m_list[m_list_len++] = *i;
            }
            m_kind = ok ? StepKind::list : StepKind::other;
            return true;
        }
        default:
            m_kind = StepKind::other;
            m_record_step = false;
            return true;
    }
}

// What the data key just read means: the same as at its position on the previous line when
// the key is the same there (most lines), else found again by name.
DlloggerParser::Slot& DlloggerParser::slot_of(std::string_view key) {
    const std::size_t at = m_data_keys.slot();
    if (at >= m_slots.size()) m_slots.resize(at + 1);
    Slot& slot = m_slots[at];
    if (!m_data_keys.hit()) slot = Slot{m_want_records && key == k_timing_key, false, nullptr};
    return slot;
}

bool DlloggerParser::stage_value(std::string_view key, od::value v) {
    Slot& slot = slot_of(key);
    const bool timing = slot.timing;
    // (read_data made a list step of two or more elements an integer one; the series is looked
    // up for such a step only, as a series is created when it is looked up)
    if (m_kind == StepKind::integer && !slot.resolved) {
        slot.series = m_sink.resolve(key);
        slot.resolved = true;
    }
    Series* series = m_kind == StepKind::integer ? slot.series : nullptr;
    // A value nobody keeps (no series for it, or a step that is not one) and that no step
    // record reads is checked, not converted: the line is exactly as valid.
    const bool dropped = !timing && ((m_kind == StepKind::integer && series == nullptr) || m_kind == StepKind::other);
    if (dropped)
        if (Unread u = check_unread(v); u != Unread::read_it) return u == Unread::valid;
    Scalar x;
    if (!read_scalar(v, x)) {
        if (timing) m_record_seconds.reset();
        return false;
    }
    double d = x.number;
    if (x.kind != Scalar::Kind::number) {
        if (timing) m_record_seconds.reset();
        auto nf = x.kind == Scalar::Kind::string ? non_finite_word(x.text) : std::nullopt;
        if (!nf) return true;  // not a scalar series
        d = *nf;
    } else if (timing) {
        m_record_seconds = d;
    }
    if (m_kind == StepKind::integer) {
        m_sink.stage(series, Point{m_step, d, k_nan});
    } else if (m_kind == StepKind::list && m_list_len == 0) {
        m_summary.emplace_back(std::string(key), d);
    } else if (m_kind == StepKind::list && m_list_len == 1) {
        m_name.assign("epoch/").append(key);
        m_sink.stage(m_sink.resolve_as(m_name, key), Point{m_list[0], d, k_nan});
    }
    return true;
}

bool DlloggerParser::read_data(od::object data) {
    if (m_kind == StepKind::list && m_list_len >= 2) {
        // map the step once per record, not per value
        std::int64_t step = m_list_steps.map(m_list.data(), m_list_len);
        m_kind = StepKind::integer;
        m_step = step;
    }
    return each_field(data, m_end, m_data_keys,
                      [this](std::string_view key, od::value v) { return stage_value(key, v); });
}

bool DlloggerParser::read_parameters(od::object data) {
    return each_field(data, m_end, m_parameter_keys, [this](std::string_view key, od::value v) {
        od::json_type type{};
        if (v.type().get(type)) return false;
        std::string_view raw;
        if (type == od::json_type::object) {
            od::object o;
            if (v.get_object().get(o) || o.raw_json().get(raw)) return false;
        } else if (type == od::json_type::array) {
            od::array a;
            if (v.get_array().get(a) || a.raw_json().get(raw)) return false;
        } else {
            raw = v.raw_json_token();
            // a string the NaN rewrite produced is a number again
            if (type == od::json_type::string) {
                std::string_view s;
                if (v.get_string().get(s)) return false;
                if (non_finite_word(s) && trim(raw).size() == s.size() + 2) raw = s;
            }
        }
        m_params.emplace_back(std::string(key), std::string(trim(raw)));
        return true;
    });
}

// "data" came before "step": parse it again now that the step is known. It lies
// inside the padded line buffer, so the padding rule holds.
bool DlloggerParser::read_deferred(std::string_view deferred, const char* json, std::size_t capacity) {
    std::size_t cap = capacity - static_cast<std::size_t>(deferred.data() - json);
    od::document d2;
    od::object data;
    if (m_aux.iterate(deferred.data(), deferred.size(), cap).get(d2) || d2.get_object().get(data)) return false;
    // read_data uses m_parser-independent state only
    return m_kind == StepKind::parameter ? read_parameters(data) : read_data(data);
}

// Room for the step records of the whole input, estimated from its first MiB.
void DlloggerParser::reserve_records(std::uint64_t bytes_done, std::uint64_t size) {
    m_records_reserved = true;
    std::vector<StepRecord>& r = m_out.step_records;
    if (size < bytes_done * 2 || r.empty()) return;
    const double scale = static_cast<double>(size) / static_cast<double>(bytes_done);
    r.reserve(static_cast<std::size_t>(static_cast<double>(r.size()) * scale * 1.05) + 16);
}

// "timestamp" (a number, or a number in a string) into `wall`, "datetime" into `datetime`.
// Without wall times (a report reads none) the value is only checked.
bool DlloggerParser::read_time(std::string_view key, od::value v, double& wall, std::string_view& datetime) {
    if (!m_want_wall)
        if (Unread u = check_unread(v); u != Unread::read_it) return u == Unread::valid;
    Scalar x;
    if (!read_scalar(v, x)) return false;
    if (key == "datetime") {
        if (x.kind == Scalar::Kind::string) datetime = x.text;
    } else if (x.kind == Scalar::Kind::number) {
        wall = x.number;
    } else if (x.kind == Scalar::Kind::string) {
        if (auto n = to_number(x.text)) wall = *n;
    }
    return true;
}

Outcome DlloggerParser::parse_json(const char* json, std::size_t len, std::size_t capacity) {
    start_line(json + len);
    od::document doc;
    if (m_parser.iterate(json, len, capacity).get(doc)) return Outcome::error;
    od::object obj;
    if (doc.get_object().get(obj)) return Outcome::error;

    double wall = k_nan;
    std::string_view datetime;
    std::string_view type = "LOG";
    std::string_view deferred_data;  // raw "data" seen before "step"
    bool has_data = false;
    m_line_keys.restart();
    for (auto result : obj) {
        if (result.error()) return Outcome::error;
        od::field& field = result.value_unsafe();
        std::string_view key;
        if (!m_line_keys.read(field, m_end, key)) return Outcome::error;
        od::value v = field.value();
        if (key == "timestamp" || key == "datetime") {
            if (!read_time(key, v, wall, datetime)) return Outcome::error;
        } else if (key == "type") {
            std::string_view text;
            if (!v.get_string().get(text)) type = text;
        } else if (key == "step") {
            if (!read_step(v)) return Outcome::error;
        } else if (key == "data") {
            od::object data;
            if (v.get_object().get(data)) return Outcome::error;
            has_data = true;
            m_record_seconds.reset();  // a repeated "data" replaces the earlier one
            if (m_kind == StepKind::none) {
                if (data.raw_json().get(deferred_data)) return Outcome::error;
            } else if (m_kind == StepKind::parameter) {
                if (!read_parameters(data)) return Outcome::error;
            } else {
                if (!read_data(data)) return Outcome::error;
            }
        }
        // elapsedtime, metric, metadata and unknown keys are skipped
    }
    if (m_want_records && m_record_line && m_record_step) {
        // The record counts whatever the line's type, as long as the whole line is JSON.
        if (!deferred_data.empty() && !read_deferred(deferred_data, json, capacity)) return Outcome::error;
        deferred_data = {};
        // (nothing may follow the object; the line's trailing blanks are already cut)
        if (m_record_seconds && json[len - 1] == '}')
            m_out.step_records.push_back({m_record_step_value, *m_record_seconds});
    }
    if (type == "METADATA") {
        m_sink.discard();
        return Outcome::ok;
    }
    if (type != "LOG" || !has_data || m_kind == StepKind::none || m_kind == StepKind::other) {
        m_sink.discard();
        return Outcome::ignored;
    }
    if (!deferred_data.empty() && !read_deferred(deferred_data, json, capacity)) return Outcome::error;
    if (std::isnan(wall) && !datetime.empty())
        if (auto t = parse_datetime(datetime)) wall = *t;
    for (auto& [name, value] : m_summary) m_out.summary[name] = value;
    for (auto& [name, value] : m_params) m_out.parameters[name] = value;
    m_sink.commit_with_wall(wall);
    return Outcome::ok;
}

void DlloggerParser::run(Source& source) {
    ParseStats& st = m_out.stats;
    m_lines = each_text_line(source, m_label, m_out, [&](const LineReader::Line& line, std::uint64_t bytes) {
        if (m_want_records && !m_records_reserved && bytes >= (1u << 20)) reserve_records(bytes, source.size_hint());
        std::string_view t = line.text;
        m_record_line = t.size() >= 5 && t.substr(0, 4) == "DLLL";
        std::size_t i = 0;
        while (i < t.size() && (t[i] == ' ' || t[i] == '\t')) ++i;
        if (t.substr(i, 4) == "DLLL") i += 4;
        while (i < t.size() && (t[i] == ' ' || t[i] == '\t')) ++i;
        std::string_view json = t.substr(i);
        while (!json.empty() && (json.back() == '\r' || json.back() == ' ' || json.back() == '\t'))
            json.remove_suffix(1);
        if (json.empty()) return;
        if (json.front() != '{') {
            ++st.skipped;
            return;
        }
        std::size_t capacity = line.capacity - static_cast<std::size_t>(json.data() - t.data());
        Outcome r = parse_json(json.data(), json.size(), capacity);
        if (r == Outcome::error && rewrite_non_finite(json, m_scratch)) {
            m_record_line = false;  // bare NaN is not JSON to gpu-recipes' tool
            std::size_t n = m_scratch.size();
            m_scratch.resize(n + k_padding, '\0');
            r = parse_json(m_scratch.data(), n, m_scratch.size());
        }
        if (r == Outcome::ok) {
            ++st.records;
        } else if (r == Outcome::ignored) {
            ++st.skipped;
        } else if (!line.complete) {
            st.truncated_tail = true;
            warn(st,
                 fmt::format("{}:{}: last line is incomplete (still being written?), ignored", m_label, line.number));
        } else {
            ++st.corrupt;
            warn(st, fmt::format("{}:{}: invalid JSON record, skipped", m_label, line.number));
        }
    });
}

}  // namespace

void parse_dllogger_part(Source& source, std::string_view label, const ParseOptions& options, LinePart& part) {
    DlloggerParser parser(label, options, part.data);
    parser.run(source);
    part.lines = parser.lines();
    part.order_dependent = parser.order_dependent();
}

void parse_dllogger(Source& source, std::string_view label, const ParseOptions& options, LogData& out) {
    DlloggerParser parser(label, options, out);
    parser.run(source);
}

void parse_dllogger_file(const std::filesystem::path& path, std::string_view label, const ParseOptions& options,
                         LogData& out, const SplitPolicy& policy) {
    if (parse_lines_split(path, label, options, out, parse_dllogger_part, policy)) return;
    FileSource source(path);
    parse_dllogger(source, label, options, out);
}

}  // namespace trainbench::metrics::detail
