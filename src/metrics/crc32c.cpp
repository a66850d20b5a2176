#include "metrics/crc32c.hpp"

#include <array>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <nmmintrin.h>
#define TB_CRC32C_X86 1
#endif

namespace trainbench::metrics::detail {

namespace {

constexpr std::uint32_t k_poly = 0x82f63b78u;  // reflected Castagnoli polynomial

using Tables = std::array<std::array<std::uint32_t, 256>, 8>;

constexpr Tables make_tables() {
    Tables t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int k = 0; k < 8; ++k) c = (c & 1u) ? (c >> 1) ^ k_poly : c >> 1;
        t[0][i] = c;
    }
    for (std::size_t i = 0; i < 256; ++i)
        for (std::size_t s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xffu];
    return t;
}

constexpr Tables k_tables = make_tables();

#ifdef TB_CRC32C_X86
__attribute__((target("sse4.2"))) std::uint32_t crc32c_sse42(const unsigned char* p, std::size_t n, std::uint32_t crc) {
    std::uint64_t c = ~crc;
    while (n >= 8) {
        std::uint64_t word = 0;
        std::memcpy(&word, p, 8);
        c = _mm_crc32_u64(c, word);
        p += 8;
        n -= 8;
    }
    auto c32 = static_cast<std::uint32_t>(c);
    while (n > 0) {
        c32 = _mm_crc32_u8(c32, *p++);
        --n;
    }
    return ~c32;
}

bool cpu_has_sse42() {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
    return (c & bit_SSE4_2) != 0;
}
#endif

}  // namespace

std::uint32_t crc32c_portable(const void* data, std::size_t n, std::uint32_t crc) {
    const auto* p = static_cast<const unsigned char*>(data);
    std::uint32_t c = ~crc;
    while (n >= 8) {
        std::uint32_t lo = 0, hi = 0;
        std::memcpy(&lo, p, 4);  // little-endian hosts only (x86, arm64)
        std::memcpy(&hi, p + 4, 4);
        lo ^= c;
        c = k_tables[7][lo & 0xffu] ^ k_tables[6][(lo >> 8) & 0xffu] ^ k_tables[5][(lo >> 16) & 0xffu] ^
            k_tables[4][lo >> 24] ^ k_tables[3][hi & 0xffu] ^ k_tables[2][(hi >> 8) & 0xffu] ^
            k_tables[1][(hi >> 16) & 0xffu] ^ k_tables[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n > 0) {
        c = (c >> 8) ^ k_tables[0][(c ^ *p++) & 0xffu];
        --n;
    }
    return ~c;
}

bool crc32c_hardware() {
#ifdef TB_CRC32C_X86
    static const bool has = cpu_has_sse42();
    return has;
#else
    return false;
#endif
}

std::uint32_t crc32c(const void* data, std::size_t n, std::uint32_t crc) {
#ifdef TB_CRC32C_X86
    if (crc32c_hardware()) return crc32c_sse42(static_cast<const unsigned char*>(data), n, crc);
#endif
    return crc32c_portable(data, n, crc);
}

}  // namespace trainbench::metrics::detail
