// Private: the random part of run ids. (Times are core's utc_now: core/time.hpp.)
#pragma once

#include <string>

namespace trainbench::run {

// 6 random lower-case hex digits.
[[nodiscard]] std::string random_short_id();

}  // namespace trainbench::run
