#include "render/escape.hpp"

#include <trainbench/core.hpp>

#include <fmt/format.h>

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

std::string shell_escape(std::string_view value) {
    bool has_control = std::any_of(value.begin(), value.end(), [](char c) {
        auto u = static_cast<unsigned char>(c);
        return u < 0x20 || u == 0x7f;
    });
    if (!has_control) return shell_quote(value);
    std::string out = "$'";
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
            case '\'':
                out += "\\'";
                break;
            default:
                if (u < 0x20 || u == 0x7f)
                    out += fmt::format("\\x{:02x}", u);
                else
                    out += c;
        }
    }
    out += '\'';
    return out;
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
