// The one home of quoting and escaping (core/quoting.hpp).
#include <trainbench/core.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

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

namespace {
bool is_c0(unsigned char u) {
    return u < 0x20 || u == 0x7f;
}

// The length of the UTF-8 sequence at text[i] (2 to 4), or 0 when it is not one.
std::size_t utf8_length(std::string_view text, std::size_t i) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t n = lead >= 0xf0 && lead <= 0xf4 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 && lead < 0xe0 ? 2 : 0;
    if (n == 0 || lead >= 0xf5 || i + n > text.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return 0;
    return n;
}

// A number as a whole (strtod's syntax, no inf/nan): CSV leaves it as it is.
bool is_number(std::string_view text) {
    if (text.empty() || text.size() > 64) return false;
    const std::string s(text);
    if (s.find_first_not_of("0123456789+-.eE") != std::string::npos) return false;
    char* end = nullptr;
    (void)std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size();
}
}  // namespace

std::string terminal_safe(std::string_view text, bool keep_newlines) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const auto u = static_cast<unsigned char>(text[i]);
        if (u < 0x80) {
            if (is_c0(u) && !(keep_newlines && (u == '\n' || u == '\t')))
                out += fmt::format("\\x{:02x}", u);
            else
                out += text[i];
            ++i;
            continue;
        }
        const std::size_t n = utf8_length(text, i);
        if (n == 0) {
            out += fmt::format("\\x{:02x}", u);
            ++i;
        } else if (n == 2 && u == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0) {
            out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[i + 1]));  // C1: U+0080..U+009F
            i += 2;
        } else {
            out.append(text.substr(i, n));
            i += n;
        }
    }
    return out;
}

std::string html_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        if (is_c0(static_cast<unsigned char>(c)) && c != '\t' && c != '\n' && c != '\r') {
            out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
            continue;
        }
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
    const bool formula =
        !text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos && !is_number(text);
    if (!formula && text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
    std::string out = formula ? "\"'" : "\"";
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
        if (is_c0(static_cast<unsigned char>(c))) {
            out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
            continue;
        }
        out += c;
    }
    return out;
}

}  // namespace trainbench
