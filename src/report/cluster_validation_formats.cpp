// The validate stage's result in the other report formats: a Markdown section,
// an HTML section and a JUnit test suite, so the bad nodes are named whichever
// format a pipeline reads (docs/stages.md).
#include "report/format_util.hpp"

#include <fmt/format.h>

namespace trainbench::report {

namespace {

std::string run_name(const analysis::NcclRunCheck& c) {
    return c.all_nodes ? c.test + " over all nodes"
                       : c.test + (c.nodes.size() == 2 ? " " + c.nodes[0] + " + " + c.nodes[1] : std::string());
}

std::string dcgm_failures(const analysis::DcgmNodeResult& d) {
    if (!d.parsed) return "no result table";
    std::string failed;
    for (const analysis::DcgmCheck& c : d.checks)
        if (c.result == "Fail")
            failed += (failed.empty() ? "" : "; ") + c.name + (c.detail.empty() ? "" : ": " + c.detail);
    return failed;
}

std::string busbw(const analysis::NcclRunCheck& c) {
    return c.largest_busbw ? fmt::format("{:.2f}", *c.largest_busbw) : std::string("-");
}

std::string node_list(const std::vector<std::string>& nodes) {
    std::string out;
    for (const std::string& n : nodes) out += (out.empty() ? "" : " ") + n;
    return out;
}

std::string verdict(const analysis::ClusterValidation& v) {
    return v.empty() ? "no results" : (v.passed ? "PASS" : "FAIL");
}

}  // namespace

std::string cluster_validation_markdown(const analysis::ClusterValidation& v) {
    std::string out = fmt::format("\n## Cluster validation: {}\n\n", verdict(v));
    out += fmt::format("Bus bandwidth threshold {} GB/s, {} nodes.\n\n", v.threshold_gbs, v.nodes.size());
    out += fmt::format("**Bad nodes:** {}\n\n", v.bad_nodes.empty() ? "none" : node_list(v.bad_nodes));
    if (!v.suspect_nodes.empty()) out += fmt::format("**Suspect nodes:** {}\n\n", node_list(v.suspect_nodes));
    out += "| check | result | bus bandwidth (GB/s) | detail |\n|---|---|---|---|\n";
    for (const analysis::DcgmNodeResult& d : v.dcgm)
        out += fmt::format("| DCGM {} | {} | | {} |\n", d.node, d.passed ? "PASS" : "FAIL", dcgm_failures(d));
    for (const analysis::NcclRunCheck& c : v.runs)
        out += fmt::format("| {} | {} | {} | {} |\n", run_name(c), c.passed ? "PASS" : "FAIL", busbw(c), c.problem);
    return out;
}

std::string cluster_validation_html(const analysis::ClusterValidation& v) {
    std::string out = fmt::format("<section id=\"cluster-validation\">\n<h2>Cluster validation: {}</h2>\n", verdict(v));
    out += fmt::format("<p>Bus bandwidth threshold {} GB/s, {} nodes.</p>\n", v.threshold_gbs, v.nodes.size());
    out += fmt::format("<p class=\"bad-nodes\"><strong>Bad nodes:</strong> {}</p>\n",
                       html_escape(v.bad_nodes.empty() ? "none" : node_list(v.bad_nodes)));
    if (!v.suspect_nodes.empty())
        out += fmt::format("<p><strong>Suspect nodes:</strong> {}</p>\n", html_escape(node_list(v.suspect_nodes)));
    out += "<table>\n<tr><th>check</th><th>result</th><th>bus bandwidth (GB/s)</th><th>detail</th></tr>\n";
    for (const analysis::DcgmNodeResult& d : v.dcgm)
        out += fmt::format("<tr><td>DCGM {}</td><td>{}</td><td></td><td>{}</td></tr>\n", html_escape(d.node),
                           d.passed ? "PASS" : "FAIL", html_escape(dcgm_failures(d)));
    for (const analysis::NcclRunCheck& c : v.runs)
        out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", html_escape(run_name(c)),
                           c.passed ? "PASS" : "FAIL", busbw(c), html_escape(c.problem));
    return out + "</table>\n</section>\n";
}

TestSuite cluster_validation_suite(const analysis::ClusterValidation& v) {
    TestSuite suite{"cluster-validation", {}, {}};
    auto testcase = [&suite](const std::string& name, bool passed, const std::string& message) {
        suite.cases.push_back({name, "cluster-validation", passed, passed ? std::string() : message, {}, {}});
    };
    testcase("bad nodes", v.passed,
             v.bad_nodes.empty() ? std::string("validation failed") : "bad nodes: " + node_list(v.bad_nodes));
    for (const analysis::DcgmNodeResult& d : v.dcgm) testcase("DCGM " + d.node, d.passed, dcgm_failures(d));
    for (const analysis::NcclRunCheck& c : v.runs) testcase(run_name(c), c.passed, c.problem);
    return suite;
}

std::string with_cluster_validation(std::string_view format, std::string rendered,
                                    const analysis::ClusterValidation& v) {
    auto insert_before = [&rendered](std::string_view tag, const std::string& text) {
        std::size_t at = rendered.rfind(tag);
        if (at == std::string::npos) return rendered + text;
        return rendered.insert(at, text);
    };
    if (format == "markdown") return rendered + cluster_validation_markdown(v);
    if (format == "html") return insert_before("</body>", cluster_validation_html(v));
    if (format == "junit") {
        if (rendered.find("<testsuites") == std::string::npos)
            return junit_xml("trainbench cluster validation", {cluster_validation_suite(v)});
        return insert_before("</testsuites>", detail::junit_suite(cluster_validation_suite(v)));
    }
    return rendered;
}

}  // namespace trainbench::report
