// What the sweep commands print: the dry-run preview of the points with their
// estimates, the status table, and the sweep report (table, JSON, CSV,
// Markdown, HTML with a scaling plot).
#include <trainbench/report.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace trainbench::report {

using nlohmann::ordered_json;

namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

std::string values_text(const sweep::Point& p) {
    std::string out;
    for (const sweep::PointValue& v : p.values) {
        if (!out.empty()) out += ' ';
        out += v.key + "=" + v.display;
    }
    return out;
}

ordered_json values_json(const sweep::Point& p) {
    ordered_json j = ordered_json::object();
    for (const sweep::PointValue& v : p.values) j[v.key] = v.display;
    return j;
}

ordered_json optional_json(const std::optional<double>& v) {
    return v ? ordered_json(*v) : ordered_json(nullptr);
}

// The GPU-hours of the valid points, and whether every one of them had an estimate.
std::pair<double, bool> total_gpu_hours(const SweepPreview& s) {
    double total = 0;
    bool all = true;
    for (std::size_t i = 0; i < s.expansion.points.size(); ++i) {
        if (!s.expansion.points[i].valid) continue;
        if (s.estimates[i].gpu_hours)
            total += *s.estimates[i].gpu_hours;
        else
            all = false;
    }
    return {total, all};
}

ordered_json point_json(const sweep::Point& p, const plan::RunEstimate& e) {
    ordered_json j = {{"index", p.index}, {"name", p.name}, {"values", values_json(p)}};
    if (!p.valid) {
        j["reasons"] = p.reasons;
        return j;
    }
    j["hash"] = p.hash;
    j["gpus"] = e.gpus;
    j["nodes"] = p.nodes;
    j["memory_per_gpu_gib"] = e.memory / k_gib;
    j["capacity_gib"] = e.capacity / k_gib;
    j["est_step_time_s"] = optional_json(e.step_time_s);
    j["est_gpu_hours"] = optional_json(e.gpu_hours);
    j["warnings"] = p.warnings;
    return j;
}

std::string pruned_text(const sweep::Expansion& x) {
    std::string out =
        fmt::format("\npruned ({} invalid point{}):\n", x.pruned_count(), x.pruned_count() == 1 ? "" : "s");
    for (const sweep::Point& p : x.points) {
        if (p.valid) continue;
        out += fmt::format("{:>5}  {}  {}\n", p.index, p.name, values_text(p));
        for (const std::string& r : p.reasons) {
            std::string indented = r;
            for (std::size_t pos = 0; (pos = indented.find('\n', pos)) != std::string::npos; pos += 8)
                indented.replace(pos, 1, "\n       ");
            out += "       " + indented + '\n';
        }
    }
    return out;
}

}  // namespace

ordered_json sweep_preview_json(const SweepPreview& s) {
    const sweep::Expansion& x = s.expansion;
    ordered_json points = ordered_json::array();
    ordered_json pruned = ordered_json::array();
    for (std::size_t i = 0; i < x.points.size(); ++i)
        (x.points[i].valid ? points : pruned).push_back(point_json(x.points[i], s.estimates[i]));
    ordered_json excluded = ordered_json::array();
    for (const sweep::Point& p : x.excluded) excluded.push_back({{"index", p.index}, {"values", values_json(p)}});
    auto [total_hours, all_hours] = total_gpu_hours(s);
    ordered_json out = {{"sweep", x.spec.name},
                        {"file", x.spec.file.string()},
                        {"base", x.spec.base.string()},
                        {"assume_mfu", s.assume_mfu},
                        {"total", x.points.size() + x.excluded.size()},
                        {"valid", x.valid_count()},
                        {"pruned_count", x.pruned_count()},
                        {"excluded_count", x.excluded.size()},
                        {"est_gpu_hours", all_hours ? ordered_json(total_hours) : ordered_json(nullptr)},
                        {"points", points},
                        {"pruned", pruned},
                        {"excluded", excluded}};
    if (!s.output_dir.empty()) out["rendered_files"] = s.rendered_files;
    return out;
}

std::string sweep_preview_text(const SweepPreview& s) {
    const sweep::Expansion& x = s.expansion;
    std::size_t name_w = 4, values_w = 6;
    for (const sweep::Point& p : x.points) {
        name_w = std::max(name_w, p.name.size());
        values_w = std::max(values_w, values_text(p).size());
    }
    TextTable t{{{"#", 5, Align::right, ""},
                 {"name", std::min<std::size_t>(name_w, 60), Align::left},
                 {"values", std::min<std::size_t>(values_w, 80), Align::left},
                 {"gpus", 5, Align::right},
                 {"mem/GPU (GiB)", 17, Align::right},
                 {"step (s)", 10, Align::right},
                 {"GPU-hours", 10, Align::right}}};
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < x.points.size(); ++i) {
        const sweep::Point& p = x.points[i];
        if (!p.valid) continue;
        const plan::RunEstimate& e = s.estimates[i];
        rows.push_back({std::to_string(p.index), p.name, values_text(p), std::to_string(e.gpus),
                        e.capacity > 0 ? fmt::format("{:.1f} of {:.0f}", e.memory / k_gib, e.capacity / k_gib)
                                       : fmt::format("{:.1f}", e.memory / k_gib),
                        optional_cell(e.step_time_s, "{:.3f}"), optional_cell(e.gpu_hours, "{:.2f}")});
    }
    std::string out = t.render(rows);
    if (x.pruned_count() > 0) out += pruned_text(x);
    auto [total_hours, all_hours] = total_gpu_hours(s);
    const std::size_t total = x.points.size() + x.excluded.size();
    out += fmt::format(
        "\nsweep '{}': {} point{}: {} valid, {} pruned, {} excluded; estimated {}{:.1f} GPU-hours at MFU {:g}\n",
        x.spec.name, total, total == 1 ? "" : "s", x.valid_count(), x.pruned_count(), x.excluded.size(),
        all_hours ? "" : ">= ", total_hours, s.assume_mfu);
    if (!s.output_dir.empty())
        out +=
            fmt::format("rendered {} files of {} points under {}\n", s.rendered_files, x.valid_count(), s.output_dir);
    return out;
}

std::string sweep_status_text(const std::string& sweep_name, const std::vector<SweepStatusRow>& rows) {
    TextTable t{{{"#", 5, Align::right, ""},
                 {"name", 40, Align::left},
                 {"run", 28, Align::left},
                 {"state", 11, Align::left},
                 {"detail", 0, Align::left}}};
    std::vector<std::vector<std::string>> cells;
    std::map<std::string, std::size_t> counts;
    for (const SweepStatusRow& r : rows) {
        cells.push_back({std::to_string(r.index), r.name, r.run_id, r.state, r.detail});
        ++counts[r.state];
    }
    std::string summary;
    for (const auto& [k, n] : counts) summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, k);
    return t.render(cells) +
           fmt::format("\nsweep '{}': {}\n", sweep_name, summary.empty() ? "no valid points" : summary);
}

ordered_json sweep_status_json(const std::string& sweep_name, const std::vector<SweepStatusRow>& rows) {
    ordered_json points = ordered_json::array();
    std::map<std::string, std::size_t> counts;
    for (const SweepStatusRow& r : rows) {
        points.push_back({{"index", r.index},
                          {"name", r.name},
                          {"hash", r.hash},
                          {"run_id", r.run_id},
                          {"state", r.state},
                          {"detail", r.detail}});
        ++counts[r.state];
    }
    ordered_json c = ordered_json::object();
    for (const auto& [k, n] : counts) c[k] = n;
    return {{"sweep", sweep_name}, {"points", points}, {"counts", c}};
}

}  // namespace trainbench::report
