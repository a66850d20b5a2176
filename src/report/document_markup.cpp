// A Document in the markup formats: Markdown and one self-contained HTML page (the
// run report's page: the same head, style sheet and SVG plots).
#include "report/format_util.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace trainbench::report::detail {

namespace {

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

namespace {

std::string markdown_findings(const Document& d) {
    std::string out = d.findings.empty() ? "" : "\n";
    for (const analysis::Finding& f : d.findings)
        out += fmt::format("- {}: ", severity_name(f.severity)) + md_escape(f.message) + "\n";
    return out;
}

std::string markdown_text(const Text& x) {
    return "\n" + (x.verbatim ? md_escape(x.text) : x.text);
}

std::string markdown_heading(const Heading& h) {
    return "\n" + md_escape(h.text) + (h.note.empty() ? "" : " (" + md_escape(h.note) + ")") + "\n";
}

std::string markdown_definitions(const Definitions& l) {
    std::string out = "\n";
    for (const auto& [term, value] : l.items) out += "- **" + md_escape(term) + ":** " + cell_markdown(value) + "\n";
    return out;
}

}  // namespace

std::string document_markdown(const Document& d) {
    std::string out;
    if (!d.title.empty() && d.title_level > 0)
        out = std::string(static_cast<std::size_t>(d.title_level), '#') + " " + md_escape(d.title) + "\n";
    bool findings_shown = false;
    for (const Block& b : d.blocks) {
        if (!shown(b, Show::markdown)) continue;
        if (const auto* t = std::get_if<Table>(&b.content)) out += "\n" + markdown_table(*t);
        if (const auto* p = std::get_if<Text>(&b.content)) out += markdown_text(*p);
        if (const auto* h = std::get_if<Heading>(&b.content)) out += markdown_heading(*h);
        if (const auto* g = std::get_if<Grid>(&b.content)) out += "\n" + grid_markdown(*g);
        if (const auto* l = std::get_if<Definitions>(&b.content)) out += markdown_definitions(*l);
        if (std::holds_alternative<FindingsHere>(b.content)) {
            out += markdown_findings(d);
            findings_shown = true;
        }
    }
    return findings_shown ? out : out + markdown_findings(d);
}

namespace {

std::string html_findings(const Document& d) {
    if (d.findings.empty()) return "";
    std::string out = "<h2>Findings</h2>\n<ul>\n";
    for (const analysis::Finding& f : d.findings)
        out += fmt::format("<li class=\"{0}\">{0}: {1}</li>\n", severity_name(f.severity), html_escape(f.message));
    return out + "</ul>\n";
}

// A paragraph (one line), <pre> (several, or verbatim: as it is), or a marked paragraph.
std::string html_text(const Text& x) {
    if (x.verbatim) return "<pre>" + html_escape(x.text) + "</pre>\n";
    std::string text = x.text;
    while (!text.empty() && (text.back() == '\n' || text.front() == '\n'))
        text = text.back() == '\n' ? text.substr(0, text.size() - 1) : text.substr(1);
    if (x.tone == Tone::note) return "<p class=\"origin\">" + html_escape(text) + "</p>\n";
    return text.find('\n') == std::string::npos ? "<p>" + html_escape(text) + "</p>\n"
                                                : "<pre>" + html_escape(text) + "</pre>\n";
}

// The two-column rows: a change of side opens, switches or closes one.
std::string html_side(Side& current, Side next) {
    if (next == current) return "";
    std::string out;
    if (current != Side::none) out += next == Side::none ? "</div>\n</div>\n" : "</div>\n<div>\n";
    if (current == Side::none) out += "<div class=\"grid2\">\n<div>\n";
    current = next;
    return out;
}

std::string html_block(const Document& d, const Block& b) {
    if (const auto* t = std::get_if<Table>(&b.content)) return html_table(*t);
    if (const auto* p = std::get_if<Plot>(&b.content)) return svg_plot(*p);
    if (const auto* x = std::get_if<Text>(&b.content)) return html_text(*x);
    if (const auto* h = std::get_if<Heading>(&b.content))
        return (h->id.empty() ? "<h2>" : "<h2 id=\"" + html_escape(h->id) + "\">") + html_escape(h->text) + "</h2>\n";
    if (const auto* g = std::get_if<Grid>(&b.content)) return grid_html(*g);
    if (const auto* l = std::get_if<Definitions>(&b.content)) return definitions_html(*l);
    return html_findings(d);  // FindingsHere
}

}  // namespace

// (The pieces are joined once: a page with the plots of a long log is tens of MB.)
std::string document_html(const Document& d) {
    std::vector<std::string> pieces = {html_head(d.title) + "<h1>" + html_escape(d.title) + "</h1>\n"};
    bool findings_shown = false;
    Side side = Side::none;
    for (const Block& b : d.blocks) {
        if (!shown(b, Show::html)) continue;
        pieces.push_back(html_side(side, b.side));
        pieces.push_back(html_block(d, b));
        findings_shown = findings_shown || std::holds_alternative<FindingsHere>(b.content);
    }
    pieces.push_back(html_side(side, Side::none));
    if (!findings_shown) pieces.push_back(html_findings(d));
    pieces.emplace_back("</body>\n</html>\n");
    std::size_t size = 0;
    for (const std::string& p : pieces) size += p.size();
    std::string out;
    out.reserve(size);
    for (std::string& p : pieces) {
        out += p;
        std::string().swap(p);
    }
    return out;
}

}  // namespace trainbench::report::detail
