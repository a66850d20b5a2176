#include <trainbench/core.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainbench {

bool is_variable_name(std::string_view s) {
    if (s.empty() || (s.front() >= '0' && s.front() <= '9')) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
}

std::uint64_t fnv1a(std::string_view bytes, std::uint64_t h) {
    for (char c : bytes) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ULL;
    }
    return h;
}

std::string_view trim(std::string_view s) {
    auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
    while (!s.empty() && space(s.front())) s.remove_prefix(1);
    while (!s.empty() && space(s.back())) s.remove_suffix(1);
    return s;
}

std::vector<std::string> split_dots(std::string_view key) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        std::size_t dot = key.find('.', start);
        parts.emplace_back(key.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    return parts;
}

bool has_control_char(std::string_view s) {
    return std::any_of(s.begin(), s.end(), [](char c) {
        auto u = static_cast<unsigned char>(c);
        return u < 0x20 || u == 0x7f;
    });
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
    // Three rows of the table: two back (for a swap), the previous one, and the current one.
    std::vector<std::size_t> two_back(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        current[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                current[j] = std::min(current[j], two_back[j - 2] + 1);
        }
        std::swap(two_back, previous);
        std::swap(previous, current);
    }
    return previous[b.size()];
}

std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates) {
    // Allow about one edit per three characters, at least one and at most four.
    std::size_t limit = std::clamp<std::size_t>(word.size() / 3, 1, 4);
    std::optional<std::string> best;
    std::size_t best_distance = limit + 1;
    std::size_t best_spelling = std::numeric_limits<std::size_t>::max();
    for (const std::string& c : candidates) {
        const std::size_t spelling = edit_distance(word, c);
        std::size_t d = spelling;
        // A candidate that contains the word (or the reverse) is a near miss too: "p4d" ~ "aws-p4d-24xlarge".
        if (d > limit && word.size() >= 3 &&
            (c.find(word) != std::string::npos || word.find(c) != std::string_view::npos))
            d = limit;
        // (among several that contain it, the closest spelling: "h100" ~ "h100-sxm-80gb", not a longer name)
        if (d < best_distance || (d == best_distance && spelling < best_spelling)) {
            best_distance = d;
            best_spelling = spelling;
            best = c;
        }
    }
    return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
    std::optional<std::string> m = closest_match(word, candidates);
    return m ? fmt::format("did you mean '{}'?", *m) : std::string{};
}

std::string quoted_list(const std::vector<std::string>& items, std::string_view last_sep) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += (i + 1 == items.size()) ? std::string(last_sep) : std::string(", ");
        out += fmt::format("'{}'", items[i]);
    }
    return out;
}

std::string human_bytes(double bytes) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    double v = bytes;
    while (std::fabs(v) >= 1024.0 && u < 5) {
        v /= 1024.0;
        ++u;
    }
    return u == 0 ? fmt::format("{:.0f} {}", v, units[u]) : fmt::format("{:.1f} {}", v, units[u]);
}

std::string human_duration(double seconds) {
    if (!std::isfinite(seconds)) return "-";
    if (seconds < 60) return fmt::format("{:.1f}s", seconds);
    auto total = static_cast<long long>(std::llround(seconds));
    long long d = total / 86400, h = (total % 86400) / 3600, m = (total % 3600) / 60, s = total % 60;
    if (d > 0) return fmt::format("{}d{:02}h{:02}m", d, h, m);
    if (h > 0) return fmt::format("{}h{:02}m{:02}s", h, m, s);
    return fmt::format("{}m{:02}s", m, s);
}

}  // namespace trainbench
