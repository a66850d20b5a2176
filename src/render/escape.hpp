// Escaping by output kind: what a mustache {{value}} becomes in the file it
// lands in. The kind is chosen from the template's file name; the quoting
// itself (shell_escape, yaml_quote, yaml_block) is core's (core/quoting.hpp).
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

// The escape function for an output kind (text: identity).
[[nodiscard]] std::function<std::string(const std::string&)> escaper(OutputKind kind);

// A name Kubernetes accepts for objects and pod hostnames (DNS-1123 label):
// lower-case alphanumerics and '-', at most `max_length` characters, starting
// and ending with an alphanumeric. Keeps the tail (where the run id is).
[[nodiscard]] std::string dns_label(std::string_view name, std::size_t max_length = 63);

}  // namespace trainbench::render
