// The text of TorchTitan's step lines (torchtitan.cpp): keys, numbers with thousands
// separators, escape sequences read in place, the logger's timestamp. Internal to metrics.
#pragma once

#include "metrics/common.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace trainbench::metrics::detail::titan {

// The characters of a key ("grad_norm", "tps"): letters, digits, '_'.
inline constexpr std::array<bool, 256> k_key_chars = [] {
    std::array<bool, 256> table{};
    for (int c = 0; c < 256; ++c)
        table[static_cast<std::size_t>(c)] =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    return table;
}();

inline bool is_key_char(char c) {
    return k_key_chars[static_cast<unsigned char>(c)];
}

// The spaces at the start of `s`.
inline std::size_t skip_spaces(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size() && s[i] == ' ') ++i;
    return i;
}

// Whether a number read up to `c` might have read on past it had an escape sequence not been
// there (`c` is one, or a character a number can continue with).
inline bool may_continue_number(char c) {
    return c == '\x1b' || (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' ||
           c == ',';
}

// a == b, for the short keys of a step line without a call to memcmp.
inline bool same_text(std::string_view a, std::string_view b) {
    const std::size_t n = a.size();
    if (n != b.size()) return false;
    auto load8 = [](const char* p) {
        std::uint64_t v = 0;
        std::memcpy(&v, p, 8);
        return v;
    };
    auto load4 = [](const char* p) {
        std::uint32_t v = 0;
        std::memcpy(&v, p, 4);
        return v;
    };
    if (n >= 8 && n <= 16)
        return load8(a.data()) == load8(b.data()) && load8(a.data() + n - 8) == load8(b.data() + n - 8);
    if (n >= 4 && n < 8)
        return load4(a.data()) == load4(b.data()) && load4(a.data() + n - 4) == load4(b.data() + n - 4);
    return a == b;
}

// Whether `s` holds an ESC (an escape sequence, a colour).
inline bool has_escape(std::string_view s) {
    return std::memchr(s.data(), '\x1b', s.size()) != nullptr;
}

// Where a step line's values start: "step: N" (or "validate step: N") found at `pos`, the
// values from `rest` on.
struct StepHead {
    bool found = false, validate = false;
    std::size_t pos = 0, rest = 0;
    std::int64_t step = 0;
};

// A number that may carry thousands separators ("1,234,567"), at the start of `s` after
// spaces: its characters without the separators go to `buf` (`n` of them; none where `buf`
// is null: the number is skipped); returns how many characters of `s` it took.
std::size_t scan_grouped(std::string_view s, char* buf, std::size_t& n_out);

// That number's value; `used` is how many characters it took.
std::optional<double> grouped_number(std::string_view s, std::size_t& used);

// The first ':' or ESC in `t` from `from`, or npos: the one search a step line's key loop makes
// (sixteen bytes at a time where SSE2 is there).
inline std::size_t find_colon_or_escape(std::string_view t, std::size_t from) {
    const char* p = t.data() + std::min(from, t.size());
    const char* const end = t.data() + t.size();
#if defined(__SSE2__)
    const __m128i colon = _mm_set1_epi8(':'), esc = _mm_set1_epi8('\x1b');
    for (; end - p >= 16; p += 16) {
        const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(block, colon), _mm_cmpeq_epi8(block, esc)));
        if (mask != 0)
            return static_cast<std::size_t>(p - t.data()) +
                   static_cast<unsigned>(__builtin_ctz(static_cast<unsigned>(mask)));
    }
#endif
    for (; p < end; ++p)
        if (*p == ':' || *p == '\x1b') return static_cast<std::size_t>(p - t.data());
    return std::string_view::npos;
}

// Where the escape sequence at `i` (an ESC) ends by strip_ansi's rule (a CSI "ESC [" runs to its
// final byte, '@'..'~' other than '['; any other escape is two bytes), one past its last byte;
// npos where `t` ends first.
std::size_t escape_end(std::string_view t, std::size_t i);

// `s` without its escape sequences into `out`; false when one runs past the end of `s` (what
// follows `s` then belongs to it).
bool strip_whole(std::string_view s, std::string& out);

// The first "YYYY-MM-DD HH:MM:SS[,mmm]" in `prefix`, as Unix seconds (the logger's local
// time read as UTC: only differences are used), or NaN.
double prefix_time(std::string_view prefix, DatetimeReader& reader);

// "step: N" or "validate step: N" in a line without escape sequences (not found for
// "global_step:" and other keys ending in "step", or without an integer after it).
StepHead step_head(std::string_view t);

}  // namespace trainbench::metrics::detail::titan
