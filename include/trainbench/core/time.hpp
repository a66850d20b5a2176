// core/time.hpp: the one home of UTC timestamps, written and read. Every time trainbench
// stores or prints (run ids, journals, command records, results, sweep state) goes through
// format_utc, so none depends on the TZ of the process. Part of core's public header:
// include <trainbench/core.hpp>.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace trainbench {

enum class UtcStyle {
    iso,        // "2026-11-23T19:02:03Z"
    iso_micro,  // "2026-11-23T19:02:03.123456Z"
    compact,    // "20261123T190203Z" (run ids)
};

// `t` in UTC, in one of the styles above (truncated, never rounded up).
[[nodiscard]] std::string format_utc(std::chrono::system_clock::time_point t, UtcStyle style = UtcStyle::iso);
// format_utc of now.
[[nodiscard]] std::string utc_now(UtcStyle style = UtcStyle::iso);

// An RFC 3339 time: "YYYY-MM-DD" (midnight), or "YYYY-MM-DDTHH:MM[:SS[.digits]]" followed by
// "Z", "+HH:MM" or "-HH:MM" (none: UTC). Nothing for any other text, a date or time that does
// not exist (2026-02-30, 25:00, an offset beyond 23:59).
[[nodiscard]] std::optional<std::chrono::system_clock::time_point> parse_utc(std::string_view text);

}  // namespace trainbench
