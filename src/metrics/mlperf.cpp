// MLPerf Training result logs (mlcommons/logging, mllog.py LOG_TEMPLATE):
//   :::MLLOG {"namespace": "", "time_ms": 1721026606541, "event_type": "INTERVAL_START",
//             "key": "block_start", "value": null, "metadata": {"samples_count": 2688, ...}}
// anywhere in a line (srun -l's "0: ", a logger's prefix), among any other output. Read:
// run_start / run_stop (the first start, the last stop, its metadata status), block and epoch
// intervals (block_time_s, epoch_time_s at the stop's samples_count / epoch_num; block_samples,
// the samples between a block's start and stop), eval_accuracy,
// tracked_stats (each number of its value: throughput, loss, lr, train_step_time ->
// step_time_s) and a bare "throughput" key, as series at the metadata's step (step, else
// samples_count, else epoch_num, else first_epoch_num, else the last step seen). Other keys
// with a scalar value and no step (global_batch_size, seed, submission_*) are parameters (JSON
// text, the last one wins, at most k_max_parameters). The result, in summary: run_start_ms,
// run_stop_ms and time_to_train_min = (run_stop - run_start) / 60000 as MLPerf scores it;
// the status is the parameter "status".
// A large log is read by several threads, cut where a block starts (split.hpp); a part that
// needs what came before it (a stop whose start is in an earlier part, an event with no step
// of its own before any with one, a second run_start, the parameter cap) makes the file read
// sequentially instead, so the result is always the sequential one.
#include "metrics/common.hpp"
#include "metrics/mllog_fields.hpp"
#include "metrics/parsers.hpp"
#include "metrics/split.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <simdjson.h>

namespace trainbench::metrics::detail {

namespace {

namespace od = simdjson::ondemand;
using mllog::Field;
using mllog::read_number;
using mllog::skip_value;
constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t k_max_parameters = 1024;
constexpr std::size_t k_max_value_fields = 64;

// One MLLOG record as read. The names and texts point into the line or into the parser's
// string buffer: they are read before the next line is parsed.
struct Event {
    double time_ms = k_nan;
    std::string_view key;
    enum class Value { none, number, text, other } kind = Value::none;
    double number = 0;
    std::string json;                                        // the value's JSON text (scalars and small values)
    std::vector<std::pair<std::string_view, double>> stats;  // the numbers of an object value
    std::optional<double> step, samples_count, epoch_num, first_epoch_num;
    std::string_view status;
    void clear() {
        time_ms = k_nan;
        key = {};
        kind = Value::none;
        json.clear();
        stats.clear();
        step = samples_count = epoch_num = first_epoch_num = std::nullopt;
        status = {};
    }
};

// MLPerf's names that mean a canonical series; "throughput" keeps its name (samples/s in most
// benchmarks, tokens/s in GPT-3's), it is no Megatron TensorBoard TFLOPS tag.
const std::vector<NameMapping>& mlperf_names() {
    static const std::vector<NameMapping> table = {
        {"train_step_time", names::step_time_s},
        {"loss", names::loss},
        {"lr", names::learning_rate},
    };
    return table;
}

// The events read by their key.
enum class Key {
    other,
    run_start,
    run_stop,
    block_start,
    block_stop,
    epoch_start,
    epoch_stop,
    tracked_stats,
    eval_accuracy,
    throughput
};

Key event_key(std::string_view k) {
    using namespace std::string_view_literals;
    switch (k.size()) {
        case 8:
            return k == "run_stop"sv ? Key::run_stop : Key::other;
        case 9:
            return k == "run_start"sv ? Key::run_start : Key::other;
        case 10:
            return k == "block_stop"sv   ? Key::block_stop
                   : k == "epoch_stop"sv ? Key::epoch_stop
                   : k == "throughput"sv ? Key::throughput
                                         : Key::other;
        case 11:
            return k == "block_start"sv ? Key::block_start : k == "epoch_start"sv ? Key::epoch_start : Key::other;
        case 13:
            return k == "tracked_stats"sv   ? Key::tracked_stats
                   : k == "eval_accuracy"sv ? Key::eval_accuracy
                                            : Key::other;
        default:
            return Key::other;
    }
}

class MlperfParser {
public:
    // `first`: the input starts at the file's start (else it is a later part of a split file).
    MlperfParser(std::string_view label, const ParseOptions& options, LogData& out, bool first = true)
        : m_label(label), m_out(out), m_sink(out, options, mlperf_names()), m_first(first) {}
    void run(Source& source);
    [[nodiscard]] std::uint64_t lines() const { return m_lines; }
    // A later part used state of the lines before it (see the file's comment).
    [[nodiscard]] bool order_dependent() const { return m_order_dependent; }

private:
    bool read(const char* json, std::size_t len, std::size_t capacity);
    bool read_value(od::value& v);
    bool read_metadata(od::value& v);
    void apply();
    void keep_parameter();
    void interval(std::string_view name, std::optional<double> start, double at, std::optional<double> step);
    void block_samples();
    std::int64_t step_of();
    void note_interval(bool block, bool stop);

    std::string_view m_label;
    LogData& m_out;
    SeriesSink m_sink;
    od::parser m_parser;
    Event m_e;
    const char* m_end = nullptr;  // the end of the record being read
    std::int64_t m_last_step = 0;
    std::optional<double> m_block_start, m_epoch_start, m_run_start, m_run_stop;
    std::optional<double> m_block_start_samples;  // the samples_count of the open block's start
    bool m_first = true, m_order_dependent = false;
    // A later part: whether its own events settled the last step, the block and the epoch.
    bool m_step_known = false, m_block_known = false, m_epoch_known = false;
    std::uint64_t m_lines = 0;
};

bool MlperfParser::read_value(od::value& v) {
    od::json_type type{};
    if (v.type().get(type)) return false;
    std::string_view raw;
    switch (type) {
        case od::json_type::number:
            if (!read_number(v, m_e.number)) return false;
            m_e.kind = Event::Value::number;  // (its JSON text only if it becomes a parameter)
            return true;
        case od::json_type::object: {
            od::object o;
            if (v.get_object().get(o)) return false;
            for (auto result : o) {
                od::field field;
                std::string_view name;
                if (std::move(result).get(field) || !mllog::field_name(field, m_end, name)) return false;
                od::value& fv = field.value();
                double d = 0;
                od::json_type ft{};
                if (fv.type().get(ft)) return false;
                if (ft == od::json_type::number) {
                    if (!read_number(fv, d)) return false;
                    if (m_e.stats.size() < k_max_value_fields) m_e.stats.emplace_back(name, d);
                } else if (!mllog::skip_typed(fv, ft)) {
                    return false;
                }
            }
            m_e.kind = Event::Value::other;
            return true;
        }
        case od::json_type::array: {
            od::array a;
            if (v.get_array().get(a) || a.raw_json().get(raw)) return false;
            m_e.kind = Event::Value::other;
            m_e.json.assign(raw.substr(0, std::min<std::size_t>(raw.size(), 4096)));
            return true;
        }
        case od::json_type::string: {
            std::string_view s;
            if (v.get_string().get(s)) return false;
            m_e.kind = Event::Value::text;
            m_e.json = fmt::format("\"{}\"", s.substr(0, 4096));
            return true;
        }
        case od::json_type::boolean: {
            bool b = false;
            if (v.get_bool().get(b)) return false;
            m_e.kind = Event::Value::other;
            m_e.json = b ? "true" : "false";
            return true;
        }
        case od::json_type::null: {
            bool is_null = false;
            return !v.is_null().get(is_null) && is_null;
        }
    }
    return false;
}

bool MlperfParser::read_metadata(od::value& v) {
    od::object o;
    if (v.get_object().get(o)) return false;
    for (auto result : o) {
        od::field field;
        Field which{};
        if (std::move(result).get(field) ||
            !mllog::classify(field, m_end, mllog::metadata_field_raw, mllog::metadata_field, which))
            return false;
        od::value& fv = field.value();
        std::optional<double>* slot = which == Field::step              ? &m_e.step
                                      : which == Field::samples_count   ? &m_e.samples_count
                                      : which == Field::epoch_num       ? &m_e.epoch_num
                                      : which == Field::first_epoch_num ? &m_e.first_epoch_num
                                                                        : nullptr;
        double d = 0;
        std::string_view s;
        od::json_type t{};
        if (fv.type().get(t)) return false;
        if (slot && t == od::json_type::number) {
            if (!mllog::read_count(fv, d)) return false;
            *slot = d;
        } else if (which == Field::status && t == od::json_type::string) {
            if (!mllog::read_text(fv, s)) return false;
            m_e.status = s.substr(0, 64);
        } else if (!mllog::skip_typed(fv, t)) {
            return false;
        }
    }
    return true;
}

bool MlperfParser::read(const char* json, std::size_t len, std::size_t capacity) {
    m_e.clear();
    m_end = json + len;
    od::document doc;
    od::object obj;
    if (m_parser.iterate(json, len, capacity).get(doc) || doc.get_object().get(obj)) return false;
    bool have_key = false;
    for (auto result : obj) {
        od::field field;
        Field which{};
        std::string_view s;
        if (std::move(result).get(field) ||
            !mllog::classify(field, m_end, mllog::record_field_raw, mllog::record_field, which))
            return false;
        od::value& v = field.value();
        switch (which) {
            case Field::time_ms:
                if (!mllog::read_count(v, m_e.time_ms)) return false;
                break;
            case Field::key:
                if (!mllog::read_text(v, s)) return false;
                m_e.key = s.substr(0, 256);
                have_key = true;
                break;
            case Field::value:
                if (!read_value(v)) return false;
                break;
            case Field::metadata: {
                od::json_type t{};
                if (v.type().get(t)) return false;
                if (t == od::json_type::object ? !read_metadata(v) : !mllog::skip_typed(v, t)) return false;
                break;
            }
            default:
                if (!skip_value(v)) return false;
        }
    }
    return have_key;
}

std::int64_t MlperfParser::step_of() {
    for (const std::optional<double>& s : {m_e.step, m_e.samples_count, m_e.epoch_num, m_e.first_epoch_num})
        if (s)
            if (auto i = integral(*s)) {
                m_step_known = true;
                return *i;
            }
    if (!m_first && !m_step_known) m_order_dependent = true;  // the last step is an earlier part's
    return m_last_step;
}

// A later part's first block or epoch event: a stop closes an interval an earlier part opened.
void MlperfParser::note_interval(bool block, bool stop) {
    bool& known = block ? m_block_known : m_epoch_known;
    if (!m_first && !known && stop) m_order_dependent = true;
    known = true;
}

void MlperfParser::interval(std::string_view name, std::optional<double> start, double at, std::optional<double> step) {
    if (!start || std::isnan(at) || at < *start) return;
    std::optional<std::int64_t> s = step ? integral(*step) : std::nullopt;
    m_sink.add(m_sink.resolve_as(name, name), Point{s.value_or(step_of()), (at - *start) / 1000.0, at / 1000.0});
}

// The samples a block trained on (its stop's samples_count less its start's), beside its
// block_time_s: the report's step time is block_time_s over block_samples / global_batch_size.
void MlperfParser::block_samples() {
    if (!m_block_start || !m_block_start_samples || !m_e.samples_count || std::isnan(m_e.time_ms) ||
        m_e.time_ms < *m_block_start || *m_e.samples_count <= *m_block_start_samples)
        return;
    std::optional<std::int64_t> s = integral(*m_e.samples_count);
    if (!s) return;
    m_sink.add(m_sink.resolve_as("block_samples", "block_samples"),
               Point{*s, *m_e.samples_count - *m_block_start_samples, m_e.time_ms / 1000.0});
}

void MlperfParser::keep_parameter() {
    if (m_e.kind == Event::Value::number) m_e.json = fmt::format("{}", m_e.number);
    // (an object value with no step, a tracked_stats-like record, has no text: nothing to keep)
    if (m_e.json.empty()) return;
    std::string key(m_e.key);
    auto it = m_out.parameters.find(key);
    if (it != m_out.parameters.end())
        it->second = m_e.json;
    else if (m_out.parameters.size() < k_max_parameters)
        m_out.parameters.emplace(std::move(key), m_e.json);
}

void MlperfParser::apply() {
    const double t = m_e.time_ms;
    const double wall = std::isnan(t) ? k_nan : t / 1000.0;
    const std::int64_t step = step_of();
    const Key key = event_key(m_e.key);
    switch (key) {
        case Key::run_start:
            if (!m_first) m_order_dependent = true;  // the first run_start is an earlier part's to say
            if (!m_run_start && !std::isnan(t)) m_run_start = t;
            break;
        case Key::run_stop:
            if (!std::isnan(t)) m_run_stop = t;
            if (!m_e.status.empty()) m_out.parameters["status"] = fmt::format("\"{}\"", m_e.status);
            break;
        case Key::block_start:
        case Key::epoch_start:
            note_interval(key == Key::block_start, false);
            (key == Key::block_start ? m_block_start : m_epoch_start) = std::isnan(t) ? std::nullopt : std::optional(t);
            if (key == Key::block_start) m_block_start_samples = m_e.samples_count;
            break;
        case Key::block_stop:
            note_interval(true, true);
            interval("block_time_s", m_block_start, t, m_e.samples_count ? m_e.samples_count : m_e.first_epoch_num);
            block_samples();
            m_block_start.reset();
            m_block_start_samples.reset();
            break;
        case Key::epoch_stop:
            note_interval(false, true);
            interval("epoch_time_s", m_epoch_start, t, m_e.epoch_num ? m_e.epoch_num : m_e.samples_count);
            m_epoch_start.reset();
            break;
        case Key::tracked_stats:
            for (const auto& [name, v] : m_e.stats) m_sink.add(m_sink.resolve(name), Point{step, v, wall});
            break;
        default:
            if (m_e.kind == Event::Value::number && (key == Key::eval_accuracy || key == Key::throughput || m_e.step))
                m_sink.add(m_sink.resolve(m_e.key), Point{step, m_e.number, wall});
            else if (m_e.kind != Event::Value::none)
                keep_parameter();
    }
    m_last_step = step;
}

void MlperfParser::run(Source& source) {
    ParseStats& st = m_out.stats;
    m_lines = each_text_line(source, m_label, m_out, [&](const LineReader::Line& ln, std::uint64_t) {
        std::string_view t = ln.text;
        const std::size_t pos = mllog::find_mark(t);
        if (pos == std::string_view::npos) {
            if (!trim(t).empty()) ++st.skipped;
            return;
        }
        const std::size_t open = mllog::find_record(t, pos);
        if (open == std::string_view::npos) {
            ++st.corrupt;
            warn(st, fmt::format("{}:{}: ':::MLLOG' without a JSON record, skipped", m_label, ln.number));
            return;
        }
        std::string_view json = t.substr(open);
        while (!json.empty() && (json.back() == '\r' || json.back() == ' ')) json.remove_suffix(1);
        const std::size_t cap = ln.capacity - open;
        if (!read(json.data(), json.size(), cap)) {
            if (!ln.complete) {
                st.truncated_tail = true;
                warn(st,
                     fmt::format("{}:{}: last line is incomplete (still being written?), ignored", m_label, ln.number));
            } else {
                ++st.corrupt;
                warn(st, fmt::format("{}:{}: invalid MLLOG record, skipped", m_label, ln.number));
            }
            return;
        }
        apply();
        ++st.records;
    });
    if (m_run_start) m_out.summary["run_start_ms"] = *m_run_start;
    if (m_run_stop) m_out.summary["run_stop_ms"] = *m_run_stop;
}

// The result, once the parts are merged: the first run_start (only the first part may hold
// one) and the last run_stop.
void finish(LogData& out) {
    auto start = out.summary.find("run_start_ms");
    auto stop = out.summary.find("run_stop_ms");
    if (start != out.summary.end() && stop != out.summary.end() && stop->second >= start->second)
        out.summary["time_to_train_min"] = (stop->second - start->second) / 60000.0;
}

// A cut for a parallel parse: the start of a block_start event's line.
std::uint64_t at_block_start(const FileSource& file, std::uint64_t from, std::uint64_t size) {
    return first_cut_in_lines(file, from, size, [](std::string_view line, std::uint64_t start, std::uint64_t) {
        const std::size_t mark = line.find(":::MLLOG");
        return mark != std::string_view::npos && line.find("\"block_start\"", mark) != std::string_view::npos
                   ? start
                   : std::uint64_t{0};
    });
}

void parse_mlperf_part(Source& source, std::string_view label, const ParseOptions& options, LinePart& part) {
    MlperfParser parser(label, options, part.data, part.begin == 0);
    parser.run(source);
    part.lines = parser.lines();
    part.order_dependent = parser.order_dependent();
}

}  // namespace

void parse_mlperf(Source& source, std::string_view label, const ParseOptions& options, LogData& out) {
    MlperfParser parser(label, options, out);
    parser.run(source);
    finish(out);
}

bool parse_mlperf_split(const std::filesystem::path& path, std::string_view label, const ParseOptions& options,
                        LogData& out, const SplitPolicy& policy) {
    // Only into an empty result: past k_max_parameters the parts' parameters together are not
    // the ones a sequential read keeps, which shows only once they are merged.
    if (!out.series.empty() || !out.parameters.empty() || !out.summary.empty() || out.stats.records > 0) return false;
    if (!parse_split(path, label, options, out, parse_mlperf_part, at_block_start, policy)) return false;
    if (out.parameters.size() > k_max_parameters) {
        LogData empty;
        empty.format = std::move(out.format);
        empty.files = std::move(out.files);
        out = std::move(empty);
        return false;
    }
    finish(out);
    return true;
}

void parse_mlperf_file(const std::filesystem::path& path, std::string_view label, const ParseOptions& options,
                       LogData& out, const SplitPolicy& policy) {
    if (parse_mlperf_split(path, label, options, out, policy)) return;
    FileSource source(path);
    parse_mlperf(source, label, options, out);
}

}  // namespace trainbench::metrics::detail
