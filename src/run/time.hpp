// Private: UTC clock strings for run ids and journal events.
#pragma once

#include <string>

namespace trainbench::run {

// "2026-11-22T02:30:00Z"
[[nodiscard]] std::string utc_iso_now();
// "20261122T023000Z"
[[nodiscard]] std::string utc_compact_now();
// 6 random lower-case hex digits.
[[nodiscard]] std::string random_short_id();

}  // namespace trainbench::run
