#include "render/escape.hpp"

#include <trainbench/core.hpp>

#include <algorithm>

namespace trainbench::render {

OutputKind output_kind_for(const std::filesystem::path& template_path) {
    std::string ext = template_path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (ext == ".sh" || ext == ".sbatch" || ext == ".bash") return OutputKind::shell;
    if (ext == ".yaml" || ext == ".yml") return OutputKind::yaml;
    return OutputKind::text;
}

std::string_view to_string(OutputKind kind) {
    switch (kind) {
        case OutputKind::shell:
            return "shell";
        case OutputKind::yaml:
            return "yaml";
        case OutputKind::text:
            return "text";
    }
    return "text";
}

std::function<std::string(const std::string&)> escaper(OutputKind kind) {
    switch (kind) {
        case OutputKind::shell:
            return [](const std::string& v) { return shell_escape(v); };
        case OutputKind::yaml:
            return [](const std::string& v) { return yaml_quote(v); };
        case OutputKind::text:
            break;
    }
    return [](const std::string& v) { return v; };
}

std::string dns_label(std::string_view name, std::size_t max_length) {
    std::string out;
    for (char c : name) {
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
            out += c;
        else if (c >= 'A' && c <= 'Z')
            out += static_cast<char>(c - 'A' + 'a');
        else if (!out.empty() && out.back() != '-')
            out += '-';
    }
    if (out.size() > max_length) out = out.substr(out.size() - max_length);
    while (!out.empty() && (out.front() == '-')) out.erase(out.begin());
    while (!out.empty() && (out.back() == '-')) out.pop_back();
    if (out.empty()) out = "trainbench";
    return out;
}

}  // namespace trainbench::render
