// The validate stage's result for people (text) and programs (JSON).
#include <trainbench/report.hpp>

#include <fmt/format.h>

#include <map>

namespace trainbench::report {

namespace {

std::string size_text(std::uint64_t b) {
    if (b >= (1ULL << 30) && b % (1ULL << 30) == 0) return fmt::format("{} GiB", b >> 30);
    if (b >= (1ULL << 20) && b % (1ULL << 20) == 0) return fmt::format("{} MiB", b >> 20);
    if (b >= (1ULL << 10) && b % (1ULL << 10) == 0) return fmt::format("{} KiB", b >> 10);
    return fmt::format("{} B", b);
}

std::string run_label(const analysis::NcclRunCheck& c) {
    return c.all_nodes ? "all nodes" : (c.nodes.size() == 2 ? c.nodes[0] + " + " + c.nodes[1] : std::string("?"));
}

std::string busbw_text(std::optional<double> v) {
    return v ? fmt::format("{:.2f}", *v) : std::string("-");
}

}  // namespace

std::string render_cluster_validation(const analysis::ClusterValidation& v) {
    std::string out;
    out += fmt::format("Cluster validation: {}", v.empty() ? "no results" : (v.passed ? "PASS" : "FAIL"));
    out += v.threshold_gbs > 0 ? fmt::format(" (bus bandwidth threshold {} GB/s", v.threshold_gbs)
                               : " (no bus bandwidth threshold";
    out += fmt::format(", {} nodes)\n", v.nodes.size());
    if (!v.dcgm.empty()) {
        out += "  DCGM diagnostics\n";
        for (const analysis::DcgmNodeResult& d : v.dcgm) {
            std::string failed;
            for (const analysis::DcgmCheck& c : d.checks)
                if (c.result == "Fail")
                    failed += (failed.empty() ? "" : "; ") + c.name + (c.detail.empty() ? "" : " (" + c.detail + ")");
            out += fmt::format("    {:<24} {}{}\n", d.node,
                               !d.parsed ? "FAIL (no result table)" : (d.passed ? "PASS" : "FAIL"),
                               failed.empty() ? "" : ": " + failed);
        }
    }
    // Bus bandwidth per size: one column per run.
    const analysis::NcclRunCheck* all = nullptr;
    for (const analysis::NcclRunCheck& c : v.runs)
        if (c.all_nodes) all = &c;
    if (all && !all->rows.empty()) {
        out += fmt::format("  {} over all nodes: out-of-place bus bandwidth per size (GB/s)\n", all->test);
        for (const metrics::NcclRow& row : all->rows)
            out += fmt::format("    {:>10}  {:>9.2f}\n", size_text(row.size_bytes), row.oop_busbw);
    }
    if (!v.runs.empty()) {
        out += "  nccl-tests runs (bus bandwidth at the largest size, GB/s)\n";
        for (const analysis::NcclRunCheck& c : v.runs)
            out += fmt::format("    {:<40} {:>10} {:>9}  {}{}\n", run_label(c),
                               c.largest_size ? size_text(c.largest_size) : "-", busbw_text(c.largest_busbw),
                               c.passed ? "PASS" : "FAIL", c.problem.empty() ? "" : ": " + c.problem);
    }
    if (!v.bad_nodes.empty()) {
        out += "  bad nodes:";
        for (const std::string& n : v.bad_nodes) out += " " + n;
        out += "\n";
    }
    if (!v.suspect_nodes.empty()) {
        out += "  suspect nodes (in a failing and a passing pair):";
        for (const std::string& n : v.suspect_nodes) out += " " + n;
        out += "\n";
    }
    return out;
}

nlohmann::ordered_json cluster_validation_json(const analysis::ClusterValidation& v) {
    using nlohmann::ordered_json;
    ordered_json j = ordered_json::object();
    j["passed"] = v.passed;
    j["threshold_gbs"] = v.threshold_gbs;
    j["nodes"] = v.nodes;
    j["bad_nodes"] = v.bad_nodes;
    j["suspect_nodes"] = v.suspect_nodes;
    ordered_json dcgm = ordered_json::array();
    for (const analysis::DcgmNodeResult& d : v.dcgm) {
        ordered_json checks = ordered_json::array();
        for (const analysis::DcgmCheck& c : d.checks)
            checks.push_back({{"name", c.name}, {"result", c.result}, {"detail", c.detail}});
        dcgm.push_back({{"node", d.node}, {"passed", d.passed}, {"parsed", d.parsed}, {"checks", checks}});
    }
    j["dcgm"] = dcgm;
    ordered_json runs = ordered_json::array();
    for (const analysis::NcclRunCheck& c : v.runs) {
        ordered_json sizes = ordered_json::array();
        for (const metrics::NcclRow& row : c.rows)
            sizes.push_back({{"size_bytes", row.size_bytes},
                             {"busbw_gbs", row.oop_busbw},
                             {"algbw_gbs", row.oop_algbw},
                             {"in_place_busbw_gbs", row.ip_busbw}});
        ordered_json r = {{"test", c.test},     {"all_nodes", c.all_nodes}, {"nodes", c.nodes},
                          {"passed", c.passed}, {"problem", c.problem},     {"largest_size_bytes", c.largest_size}};
        r["largest_busbw_gbs"] = c.largest_busbw ? ordered_json(*c.largest_busbw) : ordered_json();
        r["avg_busbw_gbs"] = c.avg_busbw ? ordered_json(*c.avg_busbw) : ordered_json();
        r["sizes"] = sizes;
        runs.push_back(r);
    }
    j["runs"] = runs;
    return j;
}

}  // namespace trainbench::report
