// `trainbench parse`: what the log parsers decoded (series, parameters,
// summary, nccl-tests rows) as JSON, CSV or text tables.
#include <trainbench/metrics.hpp>
#include <trainbench/report.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <ostream>

namespace trainbench::report {

namespace {

std::string number(double v) {
    if (std::isnan(v)) return "-";
    return fmt::format("{:.6g}", v);
}

nlohmann::json json_number(double v) {
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

// Where write_json puts the series: a string no log can produce as the "series" value.
constexpr std::string_view k_series_mark = "\x01series\x01";

// Everything but the series (small) as a document.
nlohmann::json to_json(const metrics::LogData& d) {
    nlohmann::json j;
    j["format"] = d.format;
    j["files"] = nlohmann::json::array();
    for (const auto& f : d.files) j["files"].push_back(f.string());
    j["stats"] = {{"bytes", d.stats.bytes},
                  {"records", d.stats.records},
                  {"skipped", d.stats.skipped},
                  {"corrupt", d.stats.corrupt},
                  {"truncated_tail", d.stats.truncated_tail},
                  {"warnings", d.stats.warnings}};
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [k, v] : d.parameters) {
        nlohmann::json pv = nlohmann::json::parse(v, nullptr, false);
        params[k] = pv.is_discarded() ? nlohmann::json(v) : pv;
    }
    j["parameters"] = params;
    nlohmann::json summary = nlohmann::json::object();
    for (const auto& [k, v] : d.summary) summary[k] = json_number(v);
    j["summary"] = summary;
    j["series"] = std::string(k_series_mark);  // the points are written by write_json, not held twice
    if (d.nccl) {
        const auto& n = *d.nccl;
        nlohmann::json rows = nlohmann::json::array();
        for (const auto& r : n.rows)
            rows.push_back({{"size_bytes", r.size_bytes},
                            {"count", r.count},
                            {"type", r.type},
                            {"redop", r.redop},
                            {"root", r.root},
                            {"oop_time_us", r.oop_time_us},
                            {"oop_algbw", r.oop_algbw},
                            {"oop_busbw", r.oop_busbw},
                            {"oop_wrong", r.oop_wrong},
                            {"ip_time_us", r.ip_time_us},
                            {"ip_algbw", r.ip_algbw},
                            {"ip_busbw", r.ip_busbw},
                            {"ip_wrong", r.ip_wrong}});
        j["nccl"] = {{"operation", n.operation},
                     {"header", n.header},
                     {"devices", n.devices},
                     {"rows", rows},
                     {"avg_busbw", n.avg_busbw ? nlohmann::json(*n.avg_busbw) : nlohmann::json(nullptr)},
                     {"out_of_bounds", n.out_of_bounds ? nlohmann::json(*n.out_of_bounds) : nlohmann::json(nullptr)}};
    }
    return j;
}

// A number as nlohmann::json writes it (non-finite: null).
std::string json_number_text(double v) {
    return std::isfinite(v) ? nlohmann::json(v).dump() : std::string("null");
}

// The document to_json() + series would give with dump(2), byte for byte, with the
// series written point by point instead of built as one more document in memory.

// Every step of every series, one row per step and one column per series, in the
// layout of fitted_table, without holding the rows: one pass measures the columns,
// a second writes the rows (both merge the series by step).
template <typename Row>
void each_points_row(const metrics::LogData& d, Row&& row) {
    std::vector<std::unique_ptr<metrics::PointReader>> readers;
    std::vector<std::optional<metrics::Point>> heads;
    for (const auto& [name, s] : d.series) {
        readers.push_back(std::make_unique<metrics::PointReader>(s));
        metrics::Point p;
        heads.push_back(readers.back()->next(p) ? std::optional(p) : std::nullopt);
    }
    std::vector<std::string> cells(d.series.size() + 1);
    for (;;) {
        std::optional<std::int64_t> step;
        for (const auto& h : heads)
            if (h && (!step || h->step < *step)) step = h->step;
        if (!step) return;
        cells[0] = std::to_string(*step);
        for (std::size_t i = 0; i < heads.size(); ++i) {
            if (heads[i] && heads[i]->step == *step) {
                cells[i + 1] = number(heads[i]->value);
                metrics::Point p;
                heads[i] = readers[i]->next(p) ? std::optional(p) : std::nullopt;
            } else {
                cells[i + 1] = "-";
            }
        }
        row(cells);
    }
}

void write_points_table(std::ostream& out, const metrics::LogData& d) {
    std::vector<std::string> header{"STEP"};
    for (const auto& [name, s] : d.series) header.push_back(name);
    std::vector<std::size_t> width(header.size());
    for (std::size_t i = 0; i < header.size(); ++i) width[i] = header[i].size();
    each_points_row(d, [&](const std::vector<std::string>& cells) {
        for (std::size_t i = 0; i < cells.size(); ++i) width[i] = std::max(width[i], cells[i].size());
    });
    std::string line;
    auto write = [&](const std::vector<std::string>& cells) {
        line.clear();
        for (std::size_t i = 0; i < cells.size(); ++i) {
            line += cells[i];
            if (i + 1 < cells.size()) line.append(width[i] - cells[i].size() + 2, ' ');
        }
        line += '\n';
        out << line;
    };
    write(header);
    each_points_row(d, write);
}
}  // namespace

void write_log_data_json(std::ostream& out, const metrics::LogData& d) {
    const std::string doc = to_json(d).dump(2);
    const std::string mark = nlohmann::json(std::string(k_series_mark)).dump();
    const std::size_t at = doc.find(mark);
    out << std::string_view(doc).substr(0, at);
    if (d.series.empty()) {
        out << "{}";
    } else {
        out << "{\n";
        std::size_t n = 0;
        for (const auto& [name, s] : d.series) {
            out << "    " << nlohmann::json(name).dump() << ": {\n      \"points\": ";
            metrics::PointReader reader(s);
            metrics::Point p;
            bool first = true;
            while (reader.next(p)) {
                out << (first ? "[\n" : ",\n") << "        {\n          \"step\": " << p.step
                    << ",\n          \"value\": " << json_number_text(p.value)
                    << ",\n          \"wall_time\": " << json_number_text(p.wall_time) << "\n        }";
                first = false;
            }
            out << (first ? "[]" : "\n      ]");
            out << ",\n      \"source_name\": " << nlohmann::json(s.source_name).dump() << "\n    }"
                << (++n < d.series.size() ? ",\n" : "\n");
        }
        out << "  }";
    }
    out << std::string_view(doc).substr(at + mark.size()) << '\n';
}

void write_log_data_csv(std::ostream& out, const metrics::LogData& d) {
    if (d.nccl && !d.nccl->rows.empty()) {
        out << "size_bytes,count,type,redop,root,oop_time_us,oop_algbw,oop_busbw,oop_wrong,ip_time_us,ip_algbw,ip_"
               "busbw,ip_wrong\n";
        for (const auto& r : d.nccl->rows)
            out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.size_bytes, r.count, csv_field(r.type),
                               csv_field(r.redop), r.root, r.oop_time_us, r.oop_algbw, r.oop_busbw, r.oop_wrong,
                               r.ip_time_us, r.ip_algbw, r.ip_busbw, r.ip_wrong);
        return;
    }
    out << "series,source_name,step,value,wall_time\n";
    for (const auto& [name, s] : d.series) {
        std::string prefix = csv_field(name) + "," + csv_field(s.source_name) + ",";
        metrics::PointReader reader(s);
        for (metrics::Point p; reader.next(p);)
            out << prefix << p.step << ',' << fmt::format("{}", p.value) << ','
                << (std::isnan(p.wall_time) ? std::string() : fmt::format("{:.6f}", p.wall_time)) << '\n';
    }
}

void write_log_data_text(std::ostream& out, const metrics::LogData& d, bool points) {
    if (!d.series.empty() && !(d.nccl && !d.nccl->rows.empty())) {
        std::vector<std::vector<std::string>> rows;
        for (const auto& [name, s] : d.series) {
            metrics::PointReader reader(s);
            metrics::Point first, p;
            if (!reader.next(first)) continue;
            double sum = first.value, lo = first.value, hi = first.value;
            std::uint64_t count = 1;
            metrics::Point last = first;
            while (reader.next(p)) {
                sum += p.value;
                lo = std::min(lo, p.value);
                hi = std::max(hi, p.value);
                ++count;
                last = p;
            }
            rows.push_back({name, s.source_name == name ? "" : s.source_name, std::to_string(count),
                            fmt::format("{}..{}", first.step, last.step), number(last.value),
                            number(sum / static_cast<double>(count)), number(lo), number(hi)});
        }
        out << fitted_table({"SERIES", "SOURCE", "POINTS", "STEPS", "LAST", "MEAN", "MIN", "MAX"}, rows);
    }
    if (points && !d.series.empty()) {
        out << '\n';
        write_points_table(out, d);
    }
    if (!d.summary.empty()) {
        out << "\nsummary:\n";
        for (const auto& [k, v] : d.summary) out << "  " << k << ": " << number(v) << '\n';
    }
    if (!d.parameters.empty()) {
        out << "\nparameters:\n";
        for (const auto& [k, v] : d.parameters) out << "  " << k << ": " << v << '\n';
    }
    if (d.nccl) {
        const auto& n = *d.nccl;
        if (!n.operation.empty()) out << "operation: " << n.operation << '\n';
        std::vector<std::vector<std::string>> rows;
        auto wrong = [](std::int64_t w) { return w < 0 ? std::string("n/a") : std::to_string(w); };
        for (const auto& r : n.rows)
            rows.push_back({std::to_string(r.size_bytes), r.type, r.redop, number(r.oop_time_us), number(r.oop_algbw),
                            number(r.oop_busbw), wrong(r.oop_wrong), number(r.ip_time_us), number(r.ip_algbw),
                            number(r.ip_busbw), wrong(r.ip_wrong)});
        if (!rows.empty())
            out << fitted_table({"SIZE_B", "TYPE", "REDOP", "OOP_US", "OOP_ALGBW", "OOP_BUSBW", "OOP_WRONG", "IP_US",
                                 "IP_ALGBW", "IP_BUSBW", "IP_WRONG"},
                                rows);
        if (n.avg_busbw) out << "avg bus bandwidth: " << number(*n.avg_busbw) << " GB/s\n";
    }
}

}  // namespace trainbench::report
