// The one text-table helper and the one colour decision of the project.
#include <trainbench/report.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace trainbench::report {

namespace {

void append_row(std::string& out, const TextTable& table, const std::vector<std::string>& cells) {
    out += table.indent;
    for (std::size_t i = 0; i < table.columns.size(); ++i) {
        const TextColumn& c = table.columns[i];
        const std::string& v = i < cells.size() ? cells[i] : std::string();
        if (i > 0) out += c.gap;
        if (c.width == 0)
            out += v;
        else if (c.align == Align::right)
            out += fmt::format("{:>{}}", v, c.width);
        else
            out += fmt::format("{:<{}}", v, c.width);
    }
    out += '\n';
}

}  // namespace

std::string TextTable::render(const std::vector<std::vector<std::string>>& rows) const {
    std::string out;
    std::vector<std::string> header;
    header.reserve(columns.size());
    for (const TextColumn& c : columns) header.push_back(c.header);
    append_row(out, *this, header);
    for (const auto& row : rows) append_row(out, *this, row);
    return out;
}

std::string fitted_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> width(header.size(), 0);
    auto measure = [&](const std::vector<std::string>& r) {
        for (std::size_t i = 0; i < r.size() && i < width.size(); ++i) width[i] = std::max(width[i], r[i].size());
    };
    measure(header);
    for (const auto& r : rows) measure(r);
    std::string out;
    auto line = [&](const std::vector<std::string>& r) {
        for (std::size_t i = 0; i < r.size(); ++i) {
            out += r[i];
            if (i + 1 < r.size()) out += std::string(width[i] - r[i].size() + 2, ' ');
        }
        out += '\n';
    };
    line(header);
    for (const auto& r : rows) line(r);
    return out;
}

std::string optional_cell(const std::optional<double>& value, std::string_view format) {
    return value ? fmt::format(fmt::runtime(format), *value) : std::string("-");
}

bool use_colour(bool is_tty) {
    const char* no_color = std::getenv("NO_COLOR");
    return is_tty && !(no_color && *no_color);
}

}  // namespace trainbench::report
