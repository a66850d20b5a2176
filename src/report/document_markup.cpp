// A Document in the markup formats: Markdown and one self-contained HTML page (the
// run report's page: the same head, style sheet and SVG plots).
#include "report/format_util.hpp"

#include <fmt/format.h>

namespace trainbench::report::detail {

namespace {

bool shown(const Block& b) {
    return b.show != Show::terminal;
}

std::string markdown_table(const Table& t) {
    std::string out = t.title.empty() ? "" : "## " + md_escape(t.title) + "\n\n";
    std::string header = "|", rule = "|";
    for (const Column& c : t.columns) {
        header += " " + md_escape(c.header) + " |";
        rule += c.align == Align::right ? "---:|" : "---|";
    }
    out += header + "\n" + rule + "\n";
    for (const auto& row : t.rows) {
        out += "|";
        for (const std::string& cell : row) out += " " + md_escape(cell) + " |";
        out += "\n";
    }
    return out;
}

std::string html_table(const Table& t) {
    std::string out = t.title.empty() ? "" : "<h2>" + html_escape(t.title) + "</h2>\n";
    out += "<table>\n<tr>";
    for (const Column& c : t.columns) out += "<th>" + html_escape(c.header) + "</th>";
    out += "</tr>\n";
    for (const auto& row : t.rows) {
        out += "<tr>";
        for (std::size_t i = 0; i < row.size(); ++i) {
            const bool num = i < t.columns.size() && t.columns[i].align == Align::right;
            out += (num ? "<td class=\"num\">" : "<td>") + html_escape(row[i]) + "</td>";
        }
        out += "</tr>\n";
    }
    return out + "</table>\n";
}

}  // namespace

std::string document_markdown(const Document& d) {
    std::string out = d.title.empty() ? "" : "# " + md_escape(d.title) + "\n";
    for (const Block& b : d.blocks) {
        if (!shown(b)) continue;
        if (const auto* t = std::get_if<Table>(&b.content)) out += "\n" + markdown_table(*t);
        if (const auto* p = std::get_if<Text>(&b.content)) out += "\n" + p->text;
    }
    if (!d.findings.empty()) out += "\n";
    for (const analysis::Finding& f : d.findings)
        out += fmt::format("- {}: ", severity_name(f.severity)) + md_escape(f.message) + "\n";
    return out;
}

std::string document_html(const Document& d) {
    std::string out = html_head(d.title) + "<h1>" + html_escape(d.title) + "</h1>\n";
    for (const Block& b : d.blocks) {
        if (!shown(b)) continue;
        if (const auto* t = std::get_if<Table>(&b.content)) out += html_table(*t);
        if (const auto* p = std::get_if<Plot>(&b.content)) out += svg_plot(*p);
        if (const auto* x = std::get_if<Text>(&b.content)) {
            std::string text = x->text;
            while (!text.empty() && (text.back() == '\n' || text.front() == '\n'))
                text = text.back() == '\n' ? text.substr(0, text.size() - 1) : text.substr(1);
            out += text.find('\n') == std::string::npos ? "<p>" + html_escape(text) + "</p>\n"
                                                        : "<pre>" + html_escape(text) + "</pre>\n";
        }
    }
    if (!d.findings.empty()) {
        out += "<h2>Findings</h2>\n<ul>\n";
        for (const analysis::Finding& f : d.findings)
            out += fmt::format("<li class=\"{0}\">{0}: {1}</li>\n", severity_name(f.severity), html_escape(f.message));
        out += "</ul>\n";
    }
    return out + "</body>\n</html>\n";
}

}  // namespace trainbench::report::detail
