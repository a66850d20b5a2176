// The one home of quoting and escaping (core/quoting.hpp).
#include <trainbench/core.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace trainbench {

namespace {
// The body of a C-style quoted string (YAML "...", bash $'...'): the quote
// character, backslash, \n \r \t and every other control character escaped.
std::string c_escaped(std::string_view value, char quote) {
    std::string out;
    for (char c : value) {
        auto u = static_cast<unsigned char>(c);
        switch (c) {
            case '\n':
                out += "\\n";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\\':
                out += "\\\\";
                break;
            default:
                if (c == quote) {
                    out += '\\';
                    out += c;
                } else if (u < 0x20 || u == 0x7f) {
                    out += fmt::format("\\x{:02x}", u);
                } else {
                    out += c;
                }
        }
    }
    return out;
}
}  // namespace

std::string shell_quote(std::string_view value) {
    if (!value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                   c == '.' || c == '/' || c == ':' || c == ',' || c == '=' || c == '@' || c == '+' || c == '%';
        }))
        return std::string(value);
    std::string out = "'";
    for (char c : value) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    out += '\'';
    return out;
}

std::string html_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string csv_field(std::string_view text) {
    if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string yaml_quote(std::string_view value) {
    return '"' + c_escaped(value, '"') + '"';
}

std::string shell_escape(std::string_view value) {
    if (!has_control_char(value)) return shell_quote(value);
    return "$'" + c_escaped(value, '\'') + "'";
}

std::string yaml_block(std::string_view text, int indent) {
    bool literal_ok = !text.empty() && text.back() == '\n' && (text.size() < 2 || text[text.size() - 2] != '\n') &&
                      text.front() != ' ' && text.front() != '\n';
    for (char c : text) {
        auto u = static_cast<unsigned char>(c);
        if ((u < 0x20 && c != '\n') || u == 0x7f) literal_ok = false;
    }
    if (!literal_ok) return yaml_quote(text);
    std::string pad(static_cast<std::size_t>(indent), ' ');
    std::string out = "|";
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        std::string_view line = text.substr(start, end - start);
        out += '\n';
        if (!line.empty()) {
            out += pad;
            out += line;
        }
        start = end + 1;
    }
    return out;
}

std::string md_escape(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '|' || c == '*' || c == '_' || c == '`' || c == '<' || c == '>') out += '\\';
        if (c == '\n') {
            out += ' ';
            continue;
        }
        out += c;
    }
    return out;
}

}  // namespace trainbench
