#include "metrics/torchtitan_text.hpp"

#include <algorithm>
#include <bit>
#include <limits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace trainbench::metrics::detail::titan {

// A number that may carry thousands separators ("1,234,567"), at the start of `s` after
// spaces: its characters without the separators go to `buf` (`n` of them; none where `buf`
// is null: the number is skipped); returns how many characters of `s` it took.
std::size_t scan_grouped(std::string_view s, char* buf, std::size_t& n_out) {
    constexpr std::size_t k_most = 63;
    std::size_t i = 0;
    while (i < s.size() && s[i] == ' ') ++i;
    std::size_t n = 0;
    const std::size_t start = i;
    while (i < s.size() && n < k_most) {
        const char c = s[i];
        if ((c >= '0' && c <= '9') || c == '.') {  // most of a number
            if (buf) buf[n] = c;
            ++n;
            ++i;
            continue;
        }
        const bool sign = (c == '-' || c == '+') && (i == start || s[i - 1] == 'e' || s[i - 1] == 'E');
        const bool exp = (c == 'e' || c == 'E') && i > start;
        if (c == ',' && i > start && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9') {
            ++i;
            continue;
        }
        if (!(sign || exp)) break;
        if (buf) buf[n] = c;
        ++n;
        ++i;
    }
    n_out = n;
    return i;
}

// That number's value; `used` is how many characters it took.
std::optional<double> grouped_number(std::string_view s, std::size_t& used) {
    // Most numbers are plain decimals with no separator: read in place (the value the copy
    // below gives them; "nan" and "inf" are no numbers here, as there).
    const std::size_t first = skip_spaces(s);
    std::size_t lead = first;
    if (lead + 1 < s.size() && (s[lead] == '-' || s[lead] == '+')) ++lead;
    if (lead < s.size() && ((s[lead] >= '0' && s[lead] <= '9') || s[lead] == '.')) {
        double value = 0;
        const char* end = scan_number(s.data() + first, s.data() + s.size(), value);
        const auto n_plain = static_cast<std::size_t>(end - s.data());
        if (n_plain > first && n_plain - lead < 63 && (n_plain == s.size() || s[n_plain] != ',')) {
            used = n_plain;
            return value;
        }
        if (lead == first && n_plain > first) {
            // "10,251": an integer in groups is its digits (at most 15: exact as a double)
            std::uint64_t digits = 0;
            std::size_t i = first, count = 0;
            for (; i < s.size(); ++i) {
                const char c = s[i];
                if (c >= '0' && c <= '9') {
                    digits = digits * 10 + static_cast<std::uint64_t>(c - '0');
                    ++count;
                } else if (c != ',' || i + 1 == s.size() || s[i + 1] < '0' || s[i + 1] > '9') {
                    break;
                }
            }
            if (count <= 15 && (i == s.size() || !may_continue_number(s[i]))) {
                used = i;
                return static_cast<double>(digits);
            }
        }
    }
    char buf[64];
    std::size_t n = 0;
    used = scan_grouped(s, buf, n);
    if (n == 0) return std::nullopt;
    return leading_number(std::string_view(buf, n));
}

// Where the escape sequence at `i` (an ESC) ends by strip_ansi's rule (a CSI "ESC [" runs to its
// final byte, '@'..'~' other than '['; any other escape is two bytes), one past its last byte;
// npos where `t` ends first.
std::size_t escape_end(std::string_view t, std::size_t i) {
    if (++i >= t.size()) return std::string_view::npos;
    if (t[i] != '[') return i + 1;
    ++i;
    auto final_byte = [](char c) { return c >= '@' && c <= '~' && c != '['; };
#if defined(__SSE2__)
    // a final byte is one of 0x40..0x7e (positive as a signed char) but '['
    const __m128i below = _mm_set1_epi8(0x3f), above = _mm_set1_epi8(0x7f), bracket = _mm_set1_epi8('[');
    for (; t.size() - i >= 16; i += 16) {
        const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t.data() + i));
        const __m128i finals = _mm_andnot_si128(
            _mm_cmpeq_epi8(block, bracket), _mm_and_si128(_mm_cmpgt_epi8(block, below), _mm_cmplt_epi8(block, above)));
        if (const int mask = _mm_movemask_epi8(finals))
            return i + static_cast<unsigned>(__builtin_ctz(static_cast<unsigned>(mask))) + 1;
    }
#endif
    for (; i < t.size(); ++i)
        if (final_byte(t[i])) return i + 1;
    return std::string_view::npos;
}

// `s` without its escape sequences into `out`; false when one runs past the end of `s` (what
// follows `s` then belongs to it).
bool strip_whole(std::string_view s, std::string& out) {
    out.clear();
    std::size_t i = 0;
    while (const void* esc = std::memchr(s.data() + i, '\x1b', s.size() - i)) {
        const auto at = static_cast<std::size_t>(static_cast<const char*>(esc) - s.data());
        out.append(s.data() + i, at - i);
        i = escape_end(s, at);
        if (i == std::string_view::npos) return false;
    }
    out.append(s.data() + i, s.size() - i);
    return true;
}

// The first "YYYY-MM-DD HH:MM:SS[,mmm]" in `prefix`, as Unix seconds (the logger's local
// time read as UTC: only differences are used), or NaN.
double prefix_time(std::string_view prefix, DatetimeReader& reader) {
    // each '-' from the fifth character on, in order, may end a year
    for (std::size_t dash = prefix.find('-', 4); dash != std::string_view::npos && dash + 15 <= prefix.size();
         dash = prefix.find('-', dash + 1)) {
        const std::size_t i = dash - 4;
        if (prefix[i] < '0' || prefix[i] > '9') continue;
        if (auto t = reader.read(prefix.substr(i))) return *t;
    }
    return std::numeric_limits<double>::quiet_NaN();
}

StepHead step_head(std::string_view t) {
    StepHead h;
    h.pos = t.find("step:");
    if (h.pos == std::string_view::npos) return h;
    h.validate = h.pos >= 9 && t.substr(h.pos - 9, 9) == "validate ";
    if (!h.validate && h.pos > 0 && is_key_char(t[h.pos - 1])) return h;  // "global_step:" and the like
    std::size_t used = 0;
    auto step_value = grouped_number(t.substr(h.pos + 5), used);
    std::optional<std::int64_t> step = step_value ? integral(*step_value) : std::nullopt;
    if (!step) return h;
    h.found = true;
    h.step = *step;
    h.rest = h.pos + 5 + used;
    return h;
}

}  // namespace trainbench::metrics::detail::titan
