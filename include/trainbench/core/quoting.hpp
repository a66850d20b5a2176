// core/quoting.hpp: the one home of quoting and escaping, one function per
// output kind we generate (shell, YAML, HTML/XML, CSV, Markdown). Part of
// core's public header: include <trainbench/core.hpp>.
#pragma once

#include <string>
#include <string_view>

namespace trainbench {

// POSIX shell single-quoting: the result is one inert word for sh/bash.
[[nodiscard]] std::string shell_quote(std::string_view value);
// One shell word that bash reads back as exactly `value`. Printable values are
// single-quoted (shell_quote); values with control characters (newline, tab,
// ...) use bash's $'...' so the word stays on one line, which keeps a value
// placed in a comment or a #SBATCH line from starting a new line.
[[nodiscard]] std::string shell_escape(std::string_view value);
// A YAML double-quoted scalar that round-trips to exactly `value`.
[[nodiscard]] std::string yaml_quote(std::string_view value);
// A YAML literal block scalar ("|" then the lines indented by `indent`
// spaces) holding exactly `text`, or a double-quoted scalar when the text
// cannot be a literal block (no trailing newline, leading spaces, control
// characters). Used for whole files embedded in a manifest (ConfigMap data).
[[nodiscard]] std::string yaml_block(std::string_view text, int indent);
// Text for HTML (and XML) element content and attribute values: & < > " ' escaped; control
// characters other than tab, newline and CR (which XML 1.0 forbids) shown as "\x1b".
[[nodiscard]] std::string html_escape(std::string_view text);
// One CSV field (RFC 4180): quoted, with quotes doubled, when it holds , " CR or LF. Text that
// a spreadsheet would take for a formula (a first character = + - @ TAB or CR, OWASP's CSV
// injection list) gets a leading ', unless the whole field is a number ("-0.5", "1e-3").
[[nodiscard]] std::string csv_field(std::string_view text);
// Text for one Markdown table cell: | * _ ` < > backslash-escaped, newlines as spaces, other
// control characters as for the terminal.
[[nodiscard]] std::string md_escape(std::string_view text);
// Text safe to print on a terminal: control characters (C0, DEL, and C1 encoded in UTF-8:
// escape sequences, a newline that would start a forged row) and bytes that are not UTF-8
// shown as "\x1b", "\u009b". With keep_newlines, '\n' and tab pass (messages of several
// lines).
[[nodiscard]] std::string terminal_safe(std::string_view text, bool keep_newlines = false);

}  // namespace trainbench
