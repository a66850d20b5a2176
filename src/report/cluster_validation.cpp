// The validate stage's result (DCGM diagnostics per node, nccl-tests bus bandwidth per size and
// per run against the threshold, bad and suspect nodes) as parts of a document, so the bad nodes
// are named whichever format a pipeline reads (docs/stages.md): lines on a terminal, a section
// in Markdown and HTML (a table of every check), its JSON ("validation"), a JUnit suite with a
// case per check, and, in a document of its own, one CSV row per check.
#include "report/format_util.hpp"

#include <fmt/format.h>

namespace trainbench::report {

namespace {

using analysis::ClusterValidation;
using analysis::DcgmNodeResult;
using analysis::NcclRunCheck;

std::string size_text(std::uint64_t b) {
    if (b >= (1ULL << 30) && b % (1ULL << 30) == 0) return fmt::format("{} GiB", b >> 30);
    if (b >= (1ULL << 20) && b % (1ULL << 20) == 0) return fmt::format("{} MiB", b >> 20);
    if (b >= (1ULL << 10) && b % (1ULL << 10) == 0) return fmt::format("{} KiB", b >> 10);
    return fmt::format("{} B", b);
}

std::string verdict(const ClusterValidation& v) {
    return v.empty() ? "no results" : (v.passed ? "PASS" : "FAIL");
}

std::string node_list(const std::vector<std::string>& nodes) {
    std::string out;
    for (const std::string& n : nodes) out += (out.empty() ? "" : " ") + n;
    return out;
}

// A run as a check's name ("all_reduce_perf over all nodes", "all_reduce_perf node-c + node-d").
std::string run_name(const NcclRunCheck& c) {
    return c.all_nodes ? c.test + " over all nodes"
                       : c.test + (c.nodes.size() == 2 ? " " + c.nodes[0] + " + " + c.nodes[1] : std::string());
}

std::string busbw_text(std::optional<double> v) {
    return v ? fmt::format("{:.2f}", *v) : std::string("-");
}

// The failed checks of a node's DCGM run, "; "-joined: "GPU Memory (GPU: 3)" on a terminal,
// "GPU Memory: GPU: 3" in a table.
std::string failed_checks(const DcgmNodeResult& d, bool terminal) {
    std::string failed;
    for (const analysis::DcgmCheck& c : d.checks) {
        if (c.result != "Fail") continue;
        const std::string detail = c.detail.empty() ? "" : (terminal ? " (" + c.detail + ")" : ": " + c.detail);
        failed += (failed.empty() ? "" : "; ") + c.name + detail;
    }
    return failed;
}

std::string dcgm_failures(const DcgmNodeResult& d) {
    return d.parsed ? failed_checks(d, false) : std::string("no result table");
}

// Every check as a row: name, PASS/FAIL, bus bandwidth at the largest size (as `busbw` writes it;
// none for DCGM), what failed.
std::vector<std::vector<std::string>> check_rows(const ClusterValidation& v,
                                                 std::string (*busbw)(std::optional<double>)) {
    std::vector<std::vector<std::string>> rows;
    for (const DcgmNodeResult& n : v.dcgm)
        rows.push_back({"DCGM " + n.node, n.passed ? "PASS" : "FAIL", "", dcgm_failures(n)});
    for (const NcclRunCheck& c : v.runs)
        rows.push_back({run_name(c), c.passed ? "PASS" : "FAIL", busbw(c.largest_busbw), c.problem});
    return rows;
}

// ---- the terminal's lines

std::string terminal_dcgm(const ClusterValidation& v) {
    if (v.dcgm.empty()) return "";
    std::string out = "  DCGM diagnostics\n";
    for (const DcgmNodeResult& d : v.dcgm) {
        const std::string failed = failed_checks(d, true);
        out += fmt::format("    {:<24} {}{}\n", terminal_safe(d.node),
                           !d.parsed ? "FAIL (no result table)" : (d.passed ? "PASS" : "FAIL"),
                           failed.empty() ? "" : ": " + terminal_safe(failed));
    }
    return out;
}

// Bus bandwidth per size of the run over all nodes.
std::string terminal_sizes(const ClusterValidation& v) {
    for (const NcclRunCheck& c : v.runs) {
        if (!c.all_nodes || c.rows.empty()) continue;
        std::string out =
            fmt::format("  {} over all nodes: out-of-place bus bandwidth per size (GB/s)\n", terminal_safe(c.test));
        for (const metrics::NcclRow& row : c.rows)
            out += fmt::format("    {:>10}  {:>9.2f}\n", size_text(row.size_bytes), row.oop_busbw);
        return out;
    }
    return "";
}

std::string terminal_runs(const ClusterValidation& v) {
    if (v.runs.empty()) return "";
    std::string out = "  nccl-tests runs (bus bandwidth at the largest size, GB/s)\n";
    for (const NcclRunCheck& c : v.runs) {
        const std::string label =
            c.all_nodes ? "all nodes" : (c.nodes.size() == 2 ? c.nodes[0] + " + " + c.nodes[1] : std::string("?"));
        out += fmt::format("    {:<40} {:>10} {:>9}  {}{}\n", terminal_safe(label),
                           c.largest_size ? size_text(c.largest_size) : "-", busbw_text(c.largest_busbw),
                           c.passed ? "PASS" : "FAIL", c.problem.empty() ? "" : ": " + terminal_safe(c.problem));
    }
    return out;
}

std::string terminal_nodes(const ClusterValidation& v) {
    std::string out;
    if (!v.bad_nodes.empty()) out += "  bad nodes: " + terminal_safe(node_list(v.bad_nodes)) + "\n";
    if (!v.suspect_nodes.empty())
        out += "  suspect nodes (in a failing and a passing pair): " + terminal_safe(node_list(v.suspect_nodes)) + "\n";
    return out;
}

// ---- the parts of the document

void add(Document& d, Block::Content content, Show show) {
    d.blocks.push_back({std::move(content), show, Side::none});
}

// The verdict with the threshold, the bad nodes, and a table of every check (Markdown, HTML);
// the verdict line and lines per section (terminal).
void add_blocks(Document& d, const ClusterValidation& v) {
    const std::string title = "Cluster validation: " + verdict(v);
    const std::string threshold = v.threshold_gbs > 0 ? fmt::format("bus bandwidth threshold {} GB/s", v.threshold_gbs)
                                                      : std::string("no bus bandwidth threshold");
    add(d, Heading{fmt::format("{} ({}, {} nodes)", title, threshold, v.nodes.size()), {}, {}}, Show::terminal);
    for (const std::string& lines : {terminal_dcgm(v), terminal_sizes(v), terminal_runs(v), terminal_nodes(v)})
        if (!lines.empty()) add(d, Text{lines}, Show::terminal);
    add(d, Text{"## " + md_escape(title) + "\n"}, Show::markdown);
    add(d, Heading{title, {}, "cluster-validation"}, Show::html);
    add(d, Text{fmt::format("Bus bandwidth threshold {} GB/s, {} nodes.\n", v.threshold_gbs, v.nodes.size())},
        Show::markup);
    const std::string bad = v.bad_nodes.empty() ? "none" : node_list(v.bad_nodes);
    add(d, Text{"**Bad nodes:** " + md_escape(bad) + "\n"}, Show::markdown);
    add(d, Definitions{{{"Bad nodes", Cell(bad)}}, "bad-nodes"}, Show::html);
    if (!v.suspect_nodes.empty()) {
        const std::string suspect = node_list(v.suspect_nodes);
        add(d, Text{"**Suspect nodes:** " + md_escape(suspect) + "\n"}, Show::markdown);
        add(d, Definitions{{{"Suspect nodes", Cell(suspect)}}, "suspect-nodes"}, Show::html);
    }
    add(d, Table{"", {{"check"}, {"result"}, {"bus bandwidth (GB/s)"}, {"detail"}}, check_rows(v, busbw_text)},
        Show::markup);
}

TestSuite validation_suite(const ClusterValidation& v) {
    TestSuite suite{"cluster-validation", {}, {}};
    auto testcase = [&suite](const std::string& name, bool passed, const std::string& message) {
        suite.cases.push_back({name, "cluster-validation", passed, passed ? std::string() : message, {}, {}});
    };
    testcase("bad nodes", v.passed,
             v.bad_nodes.empty() ? std::string("validation failed") : "bad nodes: " + node_list(v.bad_nodes));
    for (const DcgmNodeResult& d : v.dcgm) testcase("DCGM " + d.node, d.passed, dcgm_failures(d));
    for (const NcclRunCheck& c : v.runs) testcase(run_name(c), c.passed, c.problem);
    return suite;
}

nlohmann::ordered_json dcgm_json(const DcgmNodeResult& d) {
    nlohmann::ordered_json checks = nlohmann::ordered_json::array();
    for (const analysis::DcgmCheck& c : d.checks)
        checks.push_back({{"name", c.name}, {"result", c.result}, {"detail", c.detail}});
    return {{"node", d.node}, {"passed", d.passed}, {"parsed", d.parsed}, {"checks", checks}};
}

nlohmann::ordered_json run_json(const NcclRunCheck& c) {
    using nlohmann::ordered_json;
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
    return r;
}

nlohmann::ordered_json validation_json(const ClusterValidation& v) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    j["passed"] = v.passed;
    j["threshold_gbs"] = v.threshold_gbs;
    j["nodes"] = v.nodes;
    j["bad_nodes"] = v.bad_nodes;
    j["suspect_nodes"] = v.suspect_nodes;
    j["dcgm"] = nlohmann::ordered_json::array();
    for (const DcgmNodeResult& d : v.dcgm) j["dcgm"].push_back(dcgm_json(d));
    j["runs"] = nlohmann::ordered_json::array();
    for (const NcclRunCheck& c : v.runs) j["runs"].push_back(run_json(c));
    return j;
}

}  // namespace

void add_cluster_validation(Document& d, const analysis::ClusterValidation& v, const Parts& parts) {
    if (parts.blocks) {
        // (a run's findings stay with the run, before the validation)
        add(d, FindingsHere{}, Show::terminal);
        add(d, FindingsHere{}, Show::markdown);
        add_blocks(d, v);
    }
    if (parts.data) d.data["validation"] = validation_json(v);
    if (parts.tests) {
        if (d.tests_name.empty()) d.tests_name = "trainbench cluster validation";
        d.tests.push_back(validation_suite(v));
    }
}

Document cluster_validation_document(const analysis::ClusterValidation& v, const Parts& parts) {
    Document d;
    d.title = "Cluster validation";
    d.title_level = 0;  // Markdown: the section's own heading only
    add_cluster_validation(d, v, parts);
    if (parts.records) {
        d.records = {{"check", "result", "busbw_gbs", "detail"},
                     {true, false, false, true},
                     check_rows(v, [](std::optional<double> b) { return b ? fmt::format("{}", *b) : std::string(); })};
    }
    return d;
}

}  // namespace trainbench::report
