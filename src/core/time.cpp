// UTC timestamps, written and read (core/time.hpp): calendar arithmetic only, no TZ.
#include <trainbench/core.hpp>

#include <fmt/format.h>

#include <charconv>

namespace trainbench {

namespace chr = std::chrono;

std::string format_utc(chr::system_clock::time_point t, UtcStyle style) {
    const auto us = chr::floor<chr::microseconds>(t);
    const auto day = chr::floor<chr::days>(us);
    const chr::year_month_day ymd{day};
    const chr::hh_mm_ss<chr::microseconds> hms{us - day};
    const int y = static_cast<int>(ymd.year());
    const unsigned mo = static_cast<unsigned>(ymd.month()), d = static_cast<unsigned>(ymd.day());
    const auto h = hms.hours().count(), mi = hms.minutes().count(), s = hms.seconds().count();
    switch (style) {
        case UtcStyle::compact:
            return fmt::format("{:04}{:02}{:02}T{:02}{:02}{:02}Z", y, mo, d, h, mi, s);
        case UtcStyle::iso_micro:
            return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", y, mo, d, h, mi, s,
                               hms.subseconds().count());
        case UtcStyle::iso:
            break;
    }
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", y, mo, d, h, mi, s);
}

std::string utc_now(UtcStyle style) {
    return format_utc(chr::system_clock::now(), style);
}

namespace {

// Reads exactly `n` digits at `pos` (advancing it); nothing when they are not there.
std::optional<int> digits(std::string_view text, std::size_t& pos, std::size_t n) {
    if (pos + n > text.size()) return std::nullopt;
    int v = 0;
    const char* first = text.data() + pos;
    auto [ptr, ec] = std::from_chars(first, first + n, v);
    if (ec != std::errc{} || ptr != first + n || *first == '-' || *first == '+') return std::nullopt;
    pos += n;
    return v;
}

bool take(std::string_view text, std::size_t& pos, char c) {
    if (pos >= text.size() || text[pos] != c) return false;
    ++pos;
    return true;
}

// "Z", "+HH:MM", "-HH:MM" or nothing at `pos`, to the end: the offset east of UTC.
std::optional<chr::minutes> zone(std::string_view text, std::size_t pos) {
    if (pos == text.size()) return chr::minutes{0};
    if (text.substr(pos) == "Z") return chr::minutes{0};
    const char sign = text[pos];
    if (sign != '+' && sign != '-') return std::nullopt;
    ++pos;
    auto h = digits(text, pos, 2);
    if (!h || !take(text, pos, ':')) return std::nullopt;
    auto m = digits(text, pos, 2);
    if (!m || pos != text.size() || *h > 23 || *m > 59) return std::nullopt;
    const chr::minutes off{*h * 60 + *m};
    return sign == '+' ? off : -off;
}

}  // namespace

std::optional<chr::system_clock::time_point> parse_utc(std::string_view text) {
    std::size_t pos = 0;
    auto y = digits(text, pos, 4);
    if (!y || !take(text, pos, '-')) return std::nullopt;
    auto mo = digits(text, pos, 2);
    if (!mo || !take(text, pos, '-')) return std::nullopt;
    auto d = digits(text, pos, 2);
    if (!d) return std::nullopt;
    const chr::year_month_day ymd{chr::year{*y}, chr::month{static_cast<unsigned>(*mo)},
                                  chr::day{static_cast<unsigned>(*d)}};
    if (!ymd.ok()) return std::nullopt;
    chr::system_clock::time_point t = chr::sys_days{ymd};
    if (pos == text.size()) return t;
    if (!take(text, pos, 'T')) return std::nullopt;
    auto h = digits(text, pos, 2);
    if (!h || !take(text, pos, ':')) return std::nullopt;
    auto mi = digits(text, pos, 2);
    if (!mi || *h > 23 || *mi > 59) return std::nullopt;
    int s = 0;
    chr::microseconds frac{0};
    if (take(text, pos, ':')) {
        auto sec = digits(text, pos, 2);
        if (!sec || *sec > 59) return std::nullopt;
        s = *sec;
        if (take(text, pos, '.')) {
            std::size_t n = 0;
            long long us = 0;
            for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos, ++n)
                if (n < 6) us = us * 10 + (text[pos] - '0');
            if (n == 0) return std::nullopt;
            for (std::size_t k = n; k < 6; ++k) us *= 10;
            frac = chr::microseconds{us};
        }
    }
    const std::optional<chr::minutes> off = zone(text, pos);
    if (!off) return std::nullopt;
    t += chr::hours{*h} + chr::minutes{*mi} + chr::seconds{s} + frac;
    return t - *off;
}

}  // namespace trainbench
