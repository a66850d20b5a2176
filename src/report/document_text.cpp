// A Document in the plain-text formats: the terminal table, CSV and JSON.
#include "report/format_util.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace trainbench::report::detail {

namespace {

// Columns as wide as their widest cell, two spaces apart, trailing spaces dropped.
std::string fitted_lines(const std::vector<Column>& columns, const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> width(columns.size(), 0);
    for (std::size_t i = 0; i < columns.size(); ++i) width[i] = columns[i].header.size();
    for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], row[i].size());
    std::string out;
    auto line = [&](auto cell) {
        std::string text;
        for (std::size_t i = 0; i < columns.size(); ++i) {
            const std::string v = cell(i);
            text += columns[i].align == Align::right ? fmt::format("{:>{}}  ", v, width[i])
                                                     : fmt::format("{:<{}}  ", v, width[i]);
        }
        while (!text.empty() && text.back() == ' ') text.pop_back();
        out += text + "\n";
    };
    line([&](std::size_t i) { return columns[i].header; });
    for (const auto& row : rows) line([&](std::size_t i) { return i < row.size() ? row[i] : std::string(); });
    return out;
}

// A table in the terminal: fixed widths through TextTable, or fitted; every cell one line.
std::string terminal_table(const Table& t) {
    std::vector<std::vector<std::string>> rows;
    rows.reserve(t.rows.size());
    for (const auto& row : t.rows) {
        std::vector<std::string>& safe = rows.emplace_back();
        for (const std::string& c : row) safe.push_back(terminal_safe(c));
    }
    const bool fixed = std::any_of(t.columns.begin(), t.columns.end(), [](const Column& c) { return c.width > 0; });
    if (!fixed) return fitted_lines(t.columns, rows);
    TextTable text;
    for (const Column& c : t.columns) text.columns.push_back({c.header, c.width, c.align});
    return text.render(rows);
}

}  // namespace

namespace {

std::string terminal_findings(const Document& d, const Style& style) {
    std::string out = d.findings.empty() ? "" : "\n";
    for (const analysis::Finding& f : d.findings) {
        const std::string_view severity = severity_name(f.severity);
        out += (f.severity == Severity::note ? style.dim(severity) : style.tone(Tone::warn, severity)) + ": " +
               terminal_safe(f.message) + "\n";
    }
    return out;
}

// A heading: bold, a blank line before it unless it is the first thing shown.
std::string terminal_heading(const Heading& h, const Style& style, bool first) {
    std::string out = (first ? "" : "\n") + style.bold(terminal_safe(h.text));
    if (!h.note.empty()) out += "  " + style.dim(terminal_safe(h.note));
    return out + "\n";
}

}  // namespace

std::string document_terminal(const Document& d, bool colour) {
    const Style style{colour};
    std::string out;
    bool findings_shown = false;
    for (const Block& b : d.blocks) {
        if (!shown(b, Show::terminal)) continue;
        if (const auto* t = std::get_if<Table>(&b.content)) out += terminal_table(*t);
        if (const auto* p = std::get_if<Text>(&b.content)) out += p->text;
        if (const auto* h = std::get_if<Heading>(&b.content)) out += terminal_heading(*h, style, out.empty());
        if (const auto* g = std::get_if<Grid>(&b.content)) out += grid_terminal(*g, style);
        if (const auto* l = std::get_if<Definitions>(&b.content)) out += grid_terminal(definitions_grid(*l), style);
        if (std::holds_alternative<FindingsHere>(b.content)) {
            out += terminal_findings(d, style);
            findings_shown = true;
        }
    }
    return findings_shown ? out : out + terminal_findings(d, style);
}

std::string document_csv(const Document& d) {
    const Records& r = d.records;
    std::string out;
    for (std::size_t i = 0; i < r.keys.size(); ++i) out += (i ? "," : "") + r.keys[i];
    out += "\n";
    for (const auto& row : r.rows) {
        for (std::size_t i = 0; i < row.size(); ++i) {
            const bool text = i < r.text.size() && r.text[i];
            // (free text, shown as the terminal shows it: CSV on stdout often lands on a terminal)
            out += (i ? "," : "") + (text ? csv_field(terminal_safe(row[i])) : row[i]);
        }
        out += "\n";
    }
    return out;
}

std::string document_json(const Document& d) {
    return d.data.dump(2) + "\n";
}

}  // namespace trainbench::report::detail
