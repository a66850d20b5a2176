#include <trainbench/render.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace trainbench::render {

namespace {

std::vector<std::string> split_lines(std::string_view s) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < s.size()) {
        std::size_t end = s.find('\n', start);
        if (end == std::string_view::npos) {
            lines.emplace_back(std::string(s.substr(start)) + "\n\\ No newline at end of file");
            break;
        }
        lines.emplace_back(s.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

struct Edit {
    char op;        // ' ', '-', '+'
    std::size_t a;  // index in a (for ' ' and '-')
    std::size_t b;  // index in b (for ' ' and '+')
};

}  // namespace

std::string unified_diff(std::string_view a_text, std::string_view b_text, const std::string& a_name,
                         const std::string& b_name, int context) {
    if (a_text == b_text) return {};
    std::vector<std::string> a = split_lines(a_text), b = split_lines(b_text);
    const std::size_t n = a.size(), m = b.size();
    // LCS table (files here are a few hundred lines).
    std::vector<std::vector<std::size_t>> lcs(n + 1, std::vector<std::size_t>(m + 1, 0));
    for (std::size_t i = n; i-- > 0;)
        for (std::size_t j = m; j-- > 0;)
            lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    std::vector<Edit> edits;
    std::size_t i = 0, j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && a[i] == b[j]) {
            edits.push_back({' ', i++, j++});
        } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
            edits.push_back({'-', i++, j});
        } else {
            edits.push_back({'+', i, j++});
        }
    }
    std::string out = fmt::format("--- {}\n+++ {}\n", a_name, b_name);
    const auto ctx = static_cast<std::size_t>(std::max(0, context));
    std::size_t k = 0;
    while (k < edits.size()) {
        // Find the next change.
        while (k < edits.size() && edits[k].op == ' ') ++k;
        if (k == edits.size()) break;
        std::size_t start = k >= ctx ? k - ctx : 0;
        std::size_t end = k;
        // Extend while changes are within 2*ctx of each other.
        std::size_t last_change = k;
        while (end < edits.size()) {
            if (edits[end].op != ' ') last_change = end;
            if (end - last_change > 2 * ctx) break;
            ++end;
        }
        end = std::min(edits.size(), last_change + ctx + 1);
        std::size_t a_start = 0, a_count = 0, b_start = 0, b_count = 0;
        bool a_set = false, b_set = false;
        for (std::size_t e = start; e < end; ++e) {
            if (edits[e].op != '+') {
                if (!a_set) a_start = edits[e].a, a_set = true;
                ++a_count;
            }
            if (edits[e].op != '-') {
                if (!b_set) b_start = edits[e].b, b_set = true;
                ++b_count;
            }
        }
        if (!a_set) a_start = edits[start].a;
        if (!b_set) b_start = edits[start].b;
        out += fmt::format("@@ -{},{} +{},{} @@\n", a_count ? a_start + 1 : a_start, a_count,
                           b_count ? b_start + 1 : b_start, b_count);
        for (std::size_t e = start; e < end; ++e) {
            const std::string& line = edits[e].op == '+' ? b[edits[e].b] : a[edits[e].a];
            out += edits[e].op;
            out += line;
            out += '\n';
        }
        k = end;
    }
    return out;
}

}  // namespace trainbench::render
