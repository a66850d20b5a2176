#include <trainbench/core.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace trainbench {

std::string SourceLocation::to_string() const {
    if (!override_text.empty()) return fmt::format("-s {}", override_text);
    if (file.empty()) return {};
    if (line <= 0) return file;
    if (column <= 0) return fmt::format("{}:{}", file, line);
    return fmt::format("{}:{}:{}", file, line, column);
}

std::string_view severity_name(Severity s) {
    switch (s) {
        case Severity::error:
            return "error";
        case Severity::warning:
            return "warning";
        case Severity::note:
            return "note";
    }
    return "error";
}

std::string Diagnostic::format() const {
    std::string out;
    std::string where = location.to_string();
    if (!where.empty()) out += where + ": ";
    out += fmt::format("{}: ", severity_name(severity));
    if (!key.empty()) out += fmt::format("'{}': ", key);
    out += message;
    if (!expected.empty()) out += fmt::format(" (expected {})", expected);
    if (!hint.empty()) out += fmt::format("\n  hint: {}", hint);
    return out;
}

void Diagnostics::add(Diagnostic d) {
    m_items.push_back(std::move(d));
}

void Diagnostics::error(SourceLocation where, std::string key, std::string message, std::string expected,
                        std::string hint) {
    m_items.push_back(Diagnostic{Severity::error, std::move(where), std::move(key), std::move(message),
                                 std::move(expected), std::move(hint)});
}

void Diagnostics::warning(SourceLocation where, std::string key, std::string message, std::string hint) {
    m_items.push_back(
        Diagnostic{Severity::warning, std::move(where), std::move(key), std::move(message), {}, std::move(hint)});
}

bool Diagnostics::has_errors() const {
    return error_count() > 0;
}

std::size_t Diagnostics::error_count() const {
    return static_cast<std::size_t>(std::count_if(m_items.begin(), m_items.end(),
                                                  [](const Diagnostic& d) { return d.severity == Severity::error; }));
}

std::vector<Diagnostic> Diagnostics::sorted() const {
    std::vector<Diagnostic> out = m_items;
    std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
        return std::tie(a.location.file, a.location.line, a.location.column) <
               std::tie(b.location.file, b.location.line, b.location.column);
    });
    return out;
}

std::string Diagnostics::format() const {
    std::string out;
    for (const Diagnostic& d : sorted()) {
        out += d.format();
        out += '\n';
    }
    return out;
}

void Diagnostics::throw_if_errors(std::string_view what) const {
    if (!has_errors()) return;
    std::size_t n = error_count();
    throw InputError(fmt::format("{}: {} error{}", what, n, n == 1 ? "" : "s"), *this);
}

void Diagnostics::merge(const Diagnostics& other) {
    m_items.insert(m_items.end(), other.m_items.begin(), other.m_items.end());
}

}  // namespace trainbench
