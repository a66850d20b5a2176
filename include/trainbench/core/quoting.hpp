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
// Text for HTML (and XML) element content and attribute values: & < > " ' escaped.
[[nodiscard]] std::string html_escape(std::string_view text);
// One CSV field (RFC 4180): quoted, with quotes doubled, when it holds , " CR or LF.
[[nodiscard]] std::string csv_field(std::string_view text);
// Text for one Markdown table cell: | * _ ` < > backslash-escaped, newlines as spaces.
[[nodiscard]] std::string md_escape(std::string_view text);

}  // namespace trainbench
