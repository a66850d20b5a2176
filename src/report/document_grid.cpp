// A Grid of marked cells (and a list of definitions) in each format: the terminal with
// colour, Markdown, HTML. The run report and the comparison are laid out with them.
#include "report/format_util.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace trainbench::report::detail {

std::string Style::wrap(std::string_view code, std::string_view text) const {
    if (!on) return std::string(text);
    return fmt::format("\033[{}m{}\033[0m", code, text);
}

std::string Style::tone(Tone tone, std::string_view t) const {
    switch (tone) {
        case Tone::pass:
            return wrap("32", t);
        case Tone::fail:
            return wrap("1;31", t);
        case Tone::warn:
            return wrap("33", t);
        case Tone::note:
            return dim(t);
        case Tone::plain:
            break;
    }
    return std::string(t);
}

std::size_t display_width(std::string_view s) {
    std::size_t n = 0;
    for (char c : s)
        if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++n;
    return n;
}

std::string pad(std::string_view s, std::size_t width) {
    std::string out(s);
    const std::size_t w = display_width(s);
    if (w < width) out.append(width - w, ' ');
    return out;
}

bool shown(const Block& b, Show format) {
    if (b.show == Show::everywhere || b.show == format) return true;
    return b.show == Show::markup && (format == Show::markdown || format == Show::html);
}

namespace {

// The index of the last cell with something in it (-1 for none).
std::ptrdiff_t last_filled(const std::vector<Cell>& cells) {
    for (std::size_t i = cells.size(); i > 0; --i)
        if (!cells[i - 1].text.empty() || !cells[i - 1].note.empty()) return static_cast<std::ptrdiff_t>(i - 1);
    return -1;
}

std::string terminal_note(const Cell& c, const Style& style) {
    if (c.note.empty()) return "";
    const std::string note = terminal_safe(c.note);
    return "  " + (c.note_style == NoteStyle::origin ? style.dim("(" + note + ")") : note);
}

// One terminal line: every filled cell but the last padded to its column, marked by its tone.
std::string terminal_line(const Grid& g, const std::vector<Cell>& cells, const std::vector<std::size_t>& width,
                          const Style& style) {
    const std::ptrdiff_t last = last_filled(cells);
    std::string line = g.indent;
    for (std::ptrdiff_t i = 0; i <= last; ++i) {
        const auto u = static_cast<std::size_t>(i);
        const Cell& c = cells[u];
        std::string text = terminal_safe(c.text);
        if (i < last && u < width.size()) {
            const bool right = u < g.columns.size() && g.columns[u].align == Align::right;
            const std::size_t w = display_width(text);
            text = right && w < width[u] ? std::string(width[u] - w, ' ') + text : pad(text, width[u]);
        }
        line += (i > 0 ? "  " : "") + style.tone(c.tone, text) + terminal_note(c, style);
    }
    return line;
}

}  // namespace

std::string grid_terminal(const Grid& g, const Style& style) {
    std::vector<std::size_t> width(g.columns.size(), 0);
    auto measure = [&](std::size_t i, const std::string& text) {
        if (i < width.size() && g.columns[i].width == 0)
            width[i] = std::max(width[i], display_width(terminal_safe(text)));
    };
    for (std::size_t i = 0; i < g.columns.size(); ++i) {
        if (g.columns[i].width > 0) width[i] = g.columns[i].width;
        if (g.header) measure(i, g.columns[i].header);
    }
    for (const auto& row : g.rows)
        for (std::size_t i = 0; i < row.size(); ++i) measure(i, row[i].text);
    std::string out;
    if (g.header) {
        std::vector<Cell> header;
        for (const Column& c : g.columns) header.emplace_back(c.header);
        out += style.bold(terminal_line(g, header, width, Style{})) + "\n";
    }
    for (const auto& row : g.rows) out += terminal_line(g, row, width, style) + "\n";
    return out;
}

std::string cell_markdown(const Cell& c) {
    std::string out = c.tone == Tone::fail ? "**" + md_escape(c.text) + "**" : md_escape(c.text);
    if (c.note.empty()) return out;
    return out + (c.note_style == NoteStyle::origin ? " (" + md_escape(c.note) + ")" : " " + md_escape(c.note));
}

// Markdown: a header row always ("" headers empty), the alignment rule, one line per row.
std::string grid_markdown(const Grid& g) {
    std::string header = "|", rule = "|";
    for (const Column& c : g.columns) {
        header += c.header.empty() ? " |" : " " + md_escape(c.header) + " |";
        rule += c.align == Align::right ? "---:|" : "---|";
    }
    std::string out = header + "\n" + rule + "\n";
    for (const auto& row : g.rows) {
        out += "|";
        for (const Cell& c : row) out += " " + cell_markdown(c) + " |";
        out += "\n";
    }
    return out;
}

std::string cell_html(const Cell& c) {
    std::string out = html_escape(c.text);
    if (c.note.empty()) return out;
    switch (c.note_style) {
        case NoteStyle::origin:
            return out + " <span class=\"origin\">(" + html_escape(c.note) + ")</span>";
        case NoteStyle::detail:
            return out + " &mdash; " + html_escape(c.note);
        case NoteStyle::below:
            break;
    }
    return out + "<div class=\"origin\">" + html_escape(c.note) + "</div>";
}

namespace {

std::string td(const Cell& c) {
    static constexpr std::array<const char*, 5> k_class = {"", "origin", "pass", "fail", "warning"};
    std::string cls = k_class.at(static_cast<std::size_t>(c.tone));
    if (cls.empty() && c.number) cls = "num";
    return (cls.empty() ? "<td>" : "<td class=\"" + cls + "\">") + cell_html(c) + "</td>";
}

}  // namespace

std::string grid_html(const Grid& g) {
    std::string out = "<table>\n";
    if (g.header) {
        out += "<tr>";
        for (const Column& c : g.columns) out += "<th>" + html_escape(c.header) + "</th>";
        out += "</tr>\n";
    }
    for (const auto& row : g.rows) {
        out += "<tr>";
        for (const Cell& c : row) out += td(c);
        out += "</tr>\n";
    }
    return out + "</table>\n";
}

std::string definitions_html(const Definitions& d) {
    std::string out;
    if (!d.callout.empty()) {
        for (const auto& [term, value] : d.items)
            out += (out.empty() ? "<p class=\"" + html_escape(d.callout) + "\">" : std::string("<br>")) +
                   ("<b>" + html_escape(term) + ":</b> ") + cell_html(value);
        return out.empty() ? out : out + "</p>\n";
    }
    out = "<dl>\n";
    for (const auto& [term, value] : d.items)
        out += "<dt>" + html_escape(term) + "</dt><dd>" + cell_html(value) + "</dd>\n";
    return out + "</dl>\n";
}

Grid definitions_grid(const Definitions& d) {
    Grid g{{{"term"}, {"value"}}, {}, false};
    for (const auto& [term, value] : d.items) g.rows.push_back({Cell(term), value});
    return g;
}

}  // namespace trainbench::report::detail
