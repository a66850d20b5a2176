#include "render/template_scan.hpp"

#include <trainbench/core.hpp>

#include <fmt/format.h>

#include <optional>

namespace trainbench::render {

namespace {

// The kind a tag's first character names ({{#x}}, {{^x}}, {{/x}}, {{>x}}, {{&x}}, {{!x}});
// none for a plain variable.
std::optional<TagKind> sigil_kind(char first) {
    switch (first) {
        case '#':
            return TagKind::section;
        case '^':
            return TagKind::inverted;
        case '/':
            return TagKind::end;
        case '>':
            return TagKind::partial;
        case '&':
            return TagKind::raw;
        case '!':
            return TagKind::comment;
        default:
            return std::nullopt;
    }
}

struct Position {
    int line = 1;
    int column = 1;
};

// Line and column of offsets met in increasing order, each counted from the
// previous one (a template is scanned once, not once per tag).
class Positions {
public:
    explicit Positions(std::string_view text) : m_text(text) {}
    Position at(std::size_t offset) {
        if (offset < m_offset) {
            m_offset = 0;
            m_position = Position{};
        }
        for (; m_offset < offset && m_offset < m_text.size(); ++m_offset) {
            if (m_text[m_offset] == '\n') {
                ++m_position.line;
                m_position.column = 1;
            } else {
                ++m_position.column;
            }
        }
        return m_position;
    }

private:
    std::string_view m_text;
    std::size_t m_offset = 0;
    Position m_position;
};

// The tag delimiters in force: "{{" and "}}" until a set-delimiter tag changes them.
struct Delimiters {
    std::string open = "{{";
    std::string close = "}}";
};

// A set-delimiter tag's new delimiters ("{{=<% %>=}}": spec "<% %>="), which it sets in `delims`
// and `tag.name`; false when the spec is not two delimiters and a closing '='.
bool set_delimiters(std::string_view spec_text, TemplateTag& tag, Delimiters& delims) {
    std::string spec(trim(spec_text));
    if (spec.empty() || spec.back() != '=') return false;
    spec = std::string(trim(std::string_view(spec).substr(0, spec.size() - 1)));
    const std::size_t space = spec.find_first_of(" \t");
    if (space == std::string::npos) return false;
    delims.open = spec.substr(0, space);
    delims.close = trim(std::string_view(spec).substr(space));
    tag.name = delims.open + " " + delims.close;
    return true;
}

// The kind and name of `tag` from what its delimiters enclose (`inner`; a triple mustache
// {{{x}}} is raw); an error message when the tag is malformed, "" otherwise.
std::string read_tag(std::string_view inner, bool triple, TemplateTag& tag, Delimiters& delims) {
    if (triple) {
        tag.kind = TagKind::raw;
        tag.name = trim(inner.substr(1));
    } else if (!inner.empty() && inner.front() == '=') {
        tag.kind = TagKind::set_delimiter;
        if (!set_delimiters(inner.substr(1), tag, delims))
            return fmt::format("invalid set-delimiter tag '{}'", tag.text);
    } else if (const std::optional<TagKind> kind = sigil_kind(inner.empty() ? '\0' : inner.front())) {
        tag.kind = *kind;
        tag.name = trim(inner.substr(1));
    } else {
        tag.kind = TagKind::variable;
        tag.name = trim(inner);
    }
    if (tag.kind != TagKind::comment && tag.kind != TagKind::set_delimiter && tag.name.empty())
        return fmt::format("empty tag '{}'", tag.text);
    return "";
}

// Sections must nest: the first end tag that closes no open section (or another one), else the
// innermost section never closed, as `result`'s error.
void check_nesting(ScanResult& result) {
    std::vector<const TemplateTag*> stack;
    for (const TemplateTag& t : result.tags) {
        if (t.kind == TagKind::section || t.kind == TagKind::inverted) stack.push_back(&t);
        if (t.kind != TagKind::end) continue;
        if (stack.empty() || stack.back()->name != t.name) {
            result.error = stack.empty() ? fmt::format("section end '{}' without a matching start", t.text)
                                         : fmt::format("section end '{}' does not close '{}' (line {})", t.text,
                                                       stack.back()->text, stack.back()->line);
            result.error_line = t.line;
            result.error_column = t.column;
            return;
        }
        stack.pop_back();
    }
    if (!stack.empty()) {
        result.error = fmt::format("section '{}' is never closed", stack.back()->text);
        result.error_line = stack.back()->line;
        result.error_column = stack.back()->column;
    }
}

}  // namespace

// Every tag in order (following set-delimiter tags), then the sections' nesting; the first
// error stops the scan.
ScanResult scan_template(std::string_view text) {
    ScanResult result;
    Delimiters delims;
    Positions positions(text);
    auto fail = [&](std::size_t at, std::string message) {
        const Position p = positions.at(at);
        result.error = std::move(message);
        result.error_line = p.line;
        result.error_column = p.column;
    };
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t start = text.find(delims.open, pos);
        if (start == std::string_view::npos) break;
        const std::size_t contents = start + delims.open.size();
        const bool triple = delims.open == "{{" && contents < text.size() && text[contents] == '{';
        const std::string end_delim = triple ? "}}}" : delims.close;
        const std::size_t end = text.find(end_delim, contents);
        if (end == std::string_view::npos) {
            fail(start, fmt::format("unclosed tag '{}'", std::string(text.substr(start, 20))));
            return result;
        }
        TemplateTag tag;
        const Position p = positions.at(start);
        tag.line = p.line;
        tag.column = p.column;
        tag.text = std::string(text.substr(start, end + end_delim.size() - start));
        tag.offset = start;
        if (std::string error = read_tag(text.substr(contents, end - contents), triple, tag, delims); !error.empty()) {
            fail(start, std::move(error));
            return result;
        }
        result.tags.push_back(std::move(tag));
        pos = end + end_delim.size();
    }
    check_nesting(result);
    return result;
}

std::string prepare_standalone_lines(std::string_view text) {
    ScanResult scan = scan_template(text);
    if (!scan.error.empty()) return std::string(text);  // the engine reports the error
    std::string out;
    out.reserve(text.size() + text.size() / 16);
    std::size_t tag_index = 0;
    std::size_t line_start = 0;
    while (line_start < text.size()) {
        std::size_t nl = text.find('\n', line_start);
        std::size_t line_end = nl == std::string_view::npos ? text.size() : nl;
        // Tags that start on this line.
        std::vector<const TemplateTag*> tags;
        while (tag_index < scan.tags.size() && scan.tags[tag_index].offset < line_end) {
            if (scan.tags[tag_index].offset >= line_start) tags.push_back(&scan.tags[tag_index]);
            ++tag_index;
        }
        bool standalone = false;
        if (tags.size() == 1 && nl != std::string_view::npos) {
            const TemplateTag& t = *tags.front();
            bool kind_ok = t.kind != TagKind::variable && t.kind != TagKind::raw;
            std::size_t tag_end = t.offset + t.text.size();
            auto blank = [](std::string_view s) { return s.find_first_not_of(" \t\r") == std::string_view::npos; };
            standalone = kind_ok && tag_end <= line_end && blank(text.substr(line_start, t.offset - line_start)) &&
                         blank(text.substr(tag_end, line_end - tag_end));
            if (standalone) out += t.text;
        }
        if (!standalone) {
            out.append(text.substr(line_start, line_end - line_start));
            if (nl != std::string_view::npos) {
                out += k_line_mark;
                out += '\n';
            }
        }
        if (nl == std::string_view::npos) break;
        line_start = nl + 1;
    }
    return out;
}

}  // namespace trainbench::render
