// The results views, each a Document the reporters render: the history of recorded
// results (table, CSV, JSON, an HTML page with trend plots) and the regression verdict
// (text, JSON, JUnit). They take the records as the results module gives them (its
// JSON: results::history_json, results::regression_record), so report needs nothing of
// results. Every text in them may come from a database another program wrote: the
// terminal and CSV show control characters escaped, HTML and JUnit escape, JSON keeps
// the text exactly.
#include "report/format_util.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

namespace trainbench::report {

using nlohmann::ordered_json;

namespace {

std::string text_of(const ordered_json& record, const char* key) {
    const auto it = record.find(key);
    return it != record.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double number_of(const ordered_json& record, const char* key) {
    const auto it = record.find(key);
    return it != record.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::int64_t int_of(const ordered_json& record, const char* key) {
    const auto it = record.find(key);
    return it != record.end() && it->is_number() ? it->get<std::int64_t>() : 0;
}

// A run's short id: the last 6 characters of its run id (results::Result::short_id).
std::string short_id(const ordered_json& record) {
    const std::string id = text_of(record, "run_id");
    return id.size() > 6 ? id.substr(id.size() - 6) : id;
}

std::string or_dash(std::string text) {
    return text.empty() ? "-" : text;
}

std::string tags_of(const ordered_json& record, const char* separator) {
    std::vector<std::string> tags;
    if (const auto it = record.find("tags"); it != record.end() && it->is_array())
        for (const auto& t : *it)
            if (t.is_string()) tags.push_back(t.get<std::string>());
    return fmt::format("{}", fmt::join(tags, separator));
}

struct HistoryColumn {
    const char* header;
    std::string (*cell)(const ordered_json&);
};

const std::vector<HistoryColumn>& history_columns() {
    static const std::vector<HistoryColumn> columns = {
        {"RUN", short_id},
        {"RAN", [](const ordered_json& r) { return text_of(r, "ran_at"); }},
        {"RECIPE", [](const ordered_json& r) { return text_of(r, "recipe_name"); }},
        {"TARGET", [](const ordered_json& r) { return or_dash(text_of(r, "target")); }},
        {"CONTAINER", [](const ordered_json& r) { return or_dash(text_of(r, "container")); }},
        {"GPUS", [](const ordered_json& r) { return std::to_string(int_of(r, "gpus")); }},
        {"WINDOW",
         [](const ordered_json& r) {
             return fmt::format("{}:{}", int_of(r, "window_start"), int_of(r, "window_end"));
         }},
        {"STEP_S", [](const ordered_json& r) { return fmt::format("{:.4f}", number_of(r, "step_time_mean")); }},
        {"MEDIAN_S", [](const ordered_json& r) { return fmt::format("{:.4f}", number_of(r, "step_time_median")); }},
        {"TOKENS/S", [](const ordered_json& r) { return fmt::format("{:.0f}", number_of(r, "tokens_per_s")); }},
        {"TFLOPS/GPU", [](const ordered_json& r) { return fmt::format("{:.3f}", number_of(r, "tflops_per_gpu")); }},
        {"MFU", [](const ordered_json& r) { return fmt::format("{:.2f}%", number_of(r, "mfu") * 100); }},
        {"TAGS", [](const ordered_json& r) { return tags_of(r, ","); }},
    };
    return columns;
}

Records history_records(const ordered_json& results) {
    Records out{{"run_id",
                 "ran_at",
                 "recipe_name",
                 "target",
                 "container",
                 "model",
                 "gpus",
                 "precision",
                 "convention",
                 "window_start",
                 "window_end",
                 "step_time_mean",
                 "step_time_median",
                 "step_time_p10",
                 "step_time_p90",
                 "step_time_stddev",
                 "tokens_per_s",
                 "tflops_per_gpu",
                 "mfu",
                 "final_loss",
                 "tags"},
                {},
                {}};
    out.text.assign(out.keys.size(), true);
    for (const ordered_json& r : results) {
        std::vector<std::string>& row = out.rows.emplace_back();
        for (const std::string& k : out.keys) {
            const ordered_json v = k == "tags" ? ordered_json(tags_of(r, " ")) : r.value(k, ordered_json());
            row.push_back(v.is_string() ? v.get<std::string>() : v.is_null() ? "" : v.dump());
        }
    }
    return out;
}

// One trend plot: one series per target / container, x = the result's place in time order.
Plot trend_plot(const ordered_json& results, std::string title, std::string unit,
                double (*value)(const ordered_json&)) {
    Plot plot{PlotKind::trend,
              std::move(title),
              fmt::format("oldest → newest ({} results)", results.size()),
              std::move(unit),
              {},
              {},
              {},
              0,
              false,
              results.size()};
    std::map<std::string, PlotSeries> by_key;
    for (std::size_t i = 0; i < results.size(); ++i) {
        const ordered_json& r = results[i];
        const std::string key = or_dash(text_of(r, "target")) + " / " + or_dash(text_of(r, "container"));
        PlotSeries& s = by_key[key];
        s.name = key;
        s.points.push_back({static_cast<double>(i + 1), value(r),
                            fmt::format("{} {} {:.6g}", short_id(r), text_of(r, "ran_at"), value(r))});
    }
    for (auto& [key, s] : by_key) plot.series.push_back(std::move(s));
    return plot;
}

}  // namespace

Document history_document(const ordered_json& history, const std::string& title) {
    const ordered_json& results = history.at("results");
    Document d;
    d.title = title;
    d.blocks.push_back(
        {Text{fmt::format("{} results, oldest first. One series per target / container.\n", results.size())},
         Show::markup});
    d.blocks.push_back({trend_plot(results, "Step time (window mean)", "s",
                                   [](const ordered_json& r) { return number_of(r, "step_time_mean"); }),
                        Show::markup});
    d.blocks.push_back(
        {trend_plot(results, "MFU", "%", [](const ordered_json& r) { return number_of(r, "mfu") * 100; }),
         Show::markup});
    Table table{"results", {}, {}};
    for (const HistoryColumn& c : history_columns()) table.columns.push_back({c.header});
    for (const ordered_json& r : results) {
        std::vector<std::string>& row = table.rows.emplace_back();
        for (const HistoryColumn& c : history_columns()) row.push_back(c.cell(r));
    }
    d.blocks.push_back({std::move(table)});
    d.records = history_records(results);
    d.data = history;
    return d;
}

Document regression_document(const ordered_json& record) {
    const ordered_json& run = record.at("run");
    const ordered_json& base = record.at("baseline");
    const ordered_json& c = record.at("comparison");
    const auto safe = [](const std::string& text) { return terminal_safe(text); };  // (stored text)
    const std::string tags = tags_of(base, ",");
    const std::string text = fmt::format(
        "run       {} ({}, {} steps {}:{}, median {:.6f} s)\n"
        "baseline  {} ({}, {} steps {}:{}, median {:.6f} s){}\n"
        "shift     {:+.6f} s per step ({:+.2f}%), {:.0f}% interval [{:+.2f}%, {:+.2f}%]\n"
        "          (Hodges-Lehmann shift, Mann-Whitney interval; threshold {:.2f}%)\n"
        "verdict   {}\n",
        safe(text_of(run, "run_id")), safe(text_of(run, "ran_at")), int_of(c, "run_steps"), int_of(run, "window_start"),
        int_of(run, "window_end"), number_of(c, "run_median_s"), safe(text_of(base, "run_id")),
        safe(text_of(base, "ran_at")), int_of(c, "baseline_steps"), int_of(base, "window_start"),
        int_of(base, "window_end"), number_of(c, "baseline_median_s"), tags.empty() ? "" : safe(" tags " + tags),
        number_of(c, "shift_s"), number_of(c, "relative") * 100, number_of(c, "confidence") * 100,
        number_of(c, "relative_low") * 100, number_of(c, "relative_high") * 100, number_of(c, "threshold") * 100,
        text_of(record, "verdict_text"));
    const bool slower = text_of(c, "verdict") == "slower";
    Document d;
    d.title = fmt::format("trainbench regress: {}", text_of(run, "run_id"));
    d.blocks.push_back({Text{text}});
    d.tests_name = "trainbench regress";
    d.tests.push_back({text_of(run, "recipe_name"),
                       {},
                       {{fmt::format("step time of {} against {}", text_of(run, "run_id"), text_of(base, "run_id")),
                         "trainbench.regress",
                         !slower,
                         slower ? fmt::format("slower by {:+.2f}%", number_of(c, "relative") * 100) : std::string(),
                         {},
                         text}}});
    d.data = c;
    return d;
}

}  // namespace trainbench::report
