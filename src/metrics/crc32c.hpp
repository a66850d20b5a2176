// Private to metrics: CRC-32C (Castagnoli), as TFRecord framing uses it.
// SSE4.2 crc32 instructions when the CPU has them, slicing-by-8 tables otherwise.
#pragma once

#include <cstddef>
#include <cstdint>

namespace trainbench::metrics::detail {

// CRC-32C of `n` bytes, continuing from `crc` (0 to start).
[[nodiscard]] std::uint32_t crc32c(const void* data, std::size_t n, std::uint32_t crc = 0);
// The portable table implementation (exposed so tests compare both paths).
[[nodiscard]] std::uint32_t crc32c_portable(const void* data, std::size_t n, std::uint32_t crc = 0);
// True when crc32c() uses the SSE4.2 instructions.
[[nodiscard]] bool crc32c_hardware();

// TFRecord / LevelDB mask: rotate right by 15, add 0xa282ead8.
[[nodiscard]] inline std::uint32_t mask_crc(std::uint32_t crc) {
    return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}
[[nodiscard]] inline std::uint32_t masked_crc32c(const void* data, std::size_t n) {
    return mask_crc(crc32c(data, n));
}

}  // namespace trainbench::metrics::detail
