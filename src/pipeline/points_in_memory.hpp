// Private to pipeline: how many points of a series a parse keeps in memory before the earlier
// ones wait in a temporary file (metrics::ParseOptions::spill_after), for `parse` and for a
// report of a Megatron-Bridge or TorchTitan log (a GiB of either is millions of steps).
#pragma once

#include <cstddef>

namespace trainbench::pipeline::detail {

inline constexpr std::size_t k_points_in_memory = std::size_t{1} << 16;  // per series: 1.5 MiB

}  // namespace trainbench::pipeline::detail
