// Escaping by output kind: what a mustache {{value}} becomes in the file it
// lands in. The kind is chosen from the template's file name.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace trainbench::render {

enum class OutputKind {
    shell,  // .sh, .sbatch, .bash: one inert shell word
    yaml,   // .yaml, .yml: one YAML double-quoted scalar
    text,   // anything else (.tpl, .txt, .md): the value as is
};

[[nodiscard]] OutputKind output_kind_for(const std::filesystem::path& template_path);
[[nodiscard]] std::string_view to_string(OutputKind kind);

// One shell word that bash reads back as exactly `value`. Printable values are
// single-quoted (trainbench::shell_quote); values with control characters
// (newline, tab, ...) use bash's $'...' so the word stays on one line, which
// keeps a value placed in a comment or a #SBATCH line from starting a new line.
[[nodiscard]] std::string shell_escape(std::string_view value);

// The escape function for an output kind (text: identity).
[[nodiscard]] std::function<std::string(const std::string&)> escaper(OutputKind kind);

// A YAML literal block scalar ("|" then the lines indented by `indent`
// spaces) holding exactly `text`, or a double-quoted scalar when the text
// cannot be a literal block (no trailing newline, leading spaces, control
// characters). Used for whole files embedded in a manifest (ConfigMap data).
[[nodiscard]] std::string yaml_block(std::string_view text, int indent);

// A name Kubernetes accepts for objects and pod hostnames (DNS-1123 label):
// lower-case alphanumerics and '-', at most `max_length` characters, starting
// and ending with an alphanumeric. Keeps the tail (where the run id is).
[[nodiscard]] std::string dns_label(std::string_view name, std::size_t max_length = 63);

}  // namespace trainbench::render
