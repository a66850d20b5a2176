// One libFuzzer target per log format (TB_FUZZ_FORMAT): the input is a log
// file; its first byte also picks the read chunk size, so line and record
// boundaries fall everywhere. Any crash, sanitizer report, exception or hang
// is a bug: parsers must count bad input, never fail on it.
#include "metrics/parsers.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    std::size_t chunk = size ? static_cast<std::size_t>(data[0] % 64) + 1 : 1;
    trainbench::metrics::LogData out;
    trainbench::metrics::ParseOptions options;
    trainbench::metrics::detail::parse_buffer(TB_FUZZ_FORMAT, text, options, out, chunk);
    if (out.stats.bytes != size) __builtin_trap();  // every byte is accounted for
    return 0;
}
