// Private to metrics: the DLLogger parser's value scanner. A value as a JSON parser reads it
// (numbers past a double are infinite, bare NaN/Infinity words), the number grammar checked
// word-wise for values nobody keeps, and the rewrite of a line with bare NaN/Infinity.
#pragma once

#include "metrics/common.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <simdjson.h>
#include <string>
#include <string_view>

namespace trainbench::metrics::detail::dllogger {

namespace od = simdjson::ondemand;

// Copies `in` to `out` with bare NaN / Infinity / -Infinity (outside strings)
// turned into strings. Returns false when there was nothing to rewrite.
// (dllogger_values.cpp: only a line that fails to parse comes here)
bool rewrite_non_finite(std::string_view in, std::string& out);

// The value a bare NaN / Infinity / -Infinity word (as the rewrite leaves it, a string) stands for.
inline std::optional<double> non_finite_word(std::string_view s) {
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    return std::nullopt;
}

// The first byte at or after `p` that is not a digit, or `end`. Eight bytes at a time, also
// past `end`: every token lies in a parse buffer with k_padding readable bytes after it.
inline const unsigned char* skip_digits(const unsigned char* p, const unsigned char* end) {
    constexpr std::uint64_t zeros = 0x3030303030303030, bias = 0x7676767676767676, high = 0x8080808080808080;
    while (p < end) {
        const std::uint64_t x = load_u64(p);
        // t = byte - '0' as a bit pattern; a digit has t < 10, so t + 0x76 keeps its high bit
        // clear. A byte with t >= 0x80 may carry into the bytes above it, which come after
        // the first non-digit anyway.
        const std::uint64_t t = x ^ zeros;
        const std::uint64_t non_digits = ((t + bias) | t) & high;
        if (non_digits != 0) return std::min(p + (std::countr_zero(non_digits) >> 3), end);
        p += 8;
    }
    return end;
}

// True when `token` is one JSON number followed by nothing but blanks, as a number parser
// requires: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
[[gnu::always_inline]] inline bool is_json_number(std::string_view token) {
    const auto* p = reinterpret_cast<const unsigned char*>(token.data());
    const auto* end = p + token.size();
    // one or more digits at p, then past them
    auto digits = [&] {
        const unsigned char* after = skip_digits(p, end);
        const bool some = after > p;
        p = after;
        return some;
    };
    if (p < end && *p == '-') ++p;
    if (p < end && *p == '0')
        ++p;
    else if (!digits())
        return false;
    if (p < end && *p == '.' && (++p, !digits())) return false;
    if (p < end && (*p | 0x20) == 'e') {
        ++p;
        if (p < end && (*p == '+' || *p == '-')) ++p;
        if (!digits()) return false;
    }
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
    return p == end;
}

// What a value read as a scalar holds.
struct Scalar {
    enum class Kind { number, string, other } kind = Kind::other;
    double number = 0;
    std::string_view text;  // a string's text, unescaped
};

// Reads `v` as a JSON parser would: a number (beyond a double, 1e400, is infinity), a string,
// or something else. False when the value is not valid JSON: a number token no number
// parser takes ('-', '--1', '1.5x') or a misspelt atom ('tru').
inline bool read_scalar(od::value v, Scalar& out) {
    // Numbers first: nearly every value is one, and a failed get_double leaves the value
    // unread for the next try.
    auto err = v.get_double().get(out.number);
    if (!err) {
        out.kind = Scalar::Kind::number;
        return true;
    }
    std::string_view token = v.raw_json_token();
    if (err == simdjson::NUMBER_ERROR && is_json_number(token)) {
        out.kind = Scalar::Kind::number;
        out.number =
            token.front() == '-' ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
        return true;
    }
    if (err != simdjson::INCORRECT_TYPE) return false;
    od::json_type type{};
    if (v.type().get(type)) return false;
    out.kind = Scalar::Kind::other;
    switch (type) {
        case od::json_type::number:
            return false;
        case od::json_type::boolean: {
            bool b = false;
            return !v.get_bool().get(b);
        }
        case od::json_type::null: {
            bool is_null = false;
            return !v.is_null().get(is_null) && is_null;
        }
        case od::json_type::string:
            out.kind = Scalar::Kind::string;
            return !v.get_string().get(out.text);
        default:
            return true;  // lists and objects
    }
}

// A value nobody reads, judged without converting it where that is cheap: a number by
// its grammar, a string without escapes as it stands (stage 1 found its closing quote).
enum class Unread { valid, invalid, read_it };
[[gnu::always_inline]] inline Unread check_unread(od::value v) {
    std::string_view token = v.raw_json_token();
    if (token.empty()) return Unread::read_it;
    const char c = token.front();
    if (c == '-' || (c >= '0' && c <= '9')) return is_json_number(token) ? Unread::valid : Unread::invalid;
    if (c == '"' && token.find('\\') == std::string_view::npos) return Unread::valid;
    return Unread::read_it;
}

}  // namespace trainbench::metrics::detail::dllogger
