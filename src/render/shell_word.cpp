#include "render/shell_word.hpp"

#include "render/escape.hpp"

#include <trainbench/core.hpp>

namespace trainbench::render {

ShellWord& ShellWord::lit(std::string text) {
    if (text.empty()) return *this;
    if (!m_parts.empty() && !m_parts.back().is_var)
        m_parts.back().text += text;
    else
        m_parts.push_back(Part{false, std::move(text)});
    return *this;
}

ShellWord& ShellWord::var(std::string name) {
    m_parts.push_back(Part{true, std::move(name)});
    return *this;
}

ShellWord& ShellWord::append(const ShellWord& other) {
    for (const Part& p : other.m_parts) {
        if (p.is_var)
            var(p.text);
        else
            lit(p.text);
    }
    return *this;
}

std::string ShellWord::shell() const {
    if (m_parts.empty()) return "''";
    std::string out;
    for (const Part& p : m_parts) out += p.is_var ? "\"${" + p.text + "}\"" : shell_escape(p.text);
    return out;
}

std::string ShellWord::plain() const {
    std::string out;
    for (const Part& p : m_parts) out += p.is_var ? "${" + p.text + "}" : p.text;
    return out;
}

ShellWord word_with_var(const std::string& prefix, const std::string& var, const std::string& suffix) {
    ShellWord w;
    w.lit(prefix).var(var).lit(suffix);
    return w;
}

}  // namespace trainbench::render
