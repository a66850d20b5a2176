// A small scanner of mustache tags with their positions, used for what the
// kainjow engine does not offer: the strict check (every name a template
// uses must exist in the context), locating a tag by file:line:col, and the
// test that raw (unescaped) tags only name pre-escaped context keys. It
// follows set-delimiter tags ({{=<% %>=}}) the way the engine does.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace trainbench::render {

enum class TagKind { variable, raw, section, inverted, end, partial, comment, set_delimiter };

struct TemplateTag {
    TagKind kind = TagKind::variable;
    std::string name;        // trimmed; for set_delimiter the new "begin end"
    int line = 0;            // 1-based
    int column = 0;          // 1-based, of the opening delimiter
    std::string text;        // the tag as written, delimiters included
    std::size_t offset = 0;  // of the opening delimiter in the template text
};

struct ScanResult {
    std::vector<TemplateTag> tags;
    std::string error;  // empty when the template is well formed
    int error_line = 0;
    int error_column = 0;
};

[[nodiscard]] ScanResult scan_template(std::string_view text);

// The character that marks "this line ends here" in prepared template text.
inline constexpr char k_line_mark = '\x02';

// Prepares template text for the engine so that mustache's standalone rule
// holds exactly: a line holding only a section, inverted, end, comment,
// partial or set-delimiter tag (and blanks) disappears whole; every other line
// is kept as written (even when a section leaves it empty). Other lines get
// k_line_mark before their newline; remove it from the rendered output.
[[nodiscard]] std::string prepare_standalone_lines(std::string_view text);

}  // namespace trainbench::render
