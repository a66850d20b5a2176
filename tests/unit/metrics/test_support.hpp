// Helpers for the metrics tests: parse a string as a format (in chunks of a
// chosen size), and write TensorBoard event files with our own encoder
// (protobuf wire format + TFRecord framing + masked CRC-32C).
#pragma once

#include "metrics/crc32c.hpp"
#include "metrics/parsers.hpp"
#include "support/temp_dir.hpp"

#include <trainbench/metrics.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace trainbench::metrics::testing {

using ::trainbench::testing::TempDir;

inline LogData parse_text(std::string_view format, std::string_view text, ParseOptions options = {},
                          std::size_t chunk = 1 << 20) {
    LogData out;
    detail::parse_buffer(format, text, options, out, chunk);
    return out;
}

inline std::filesystem::path shared_samples() {
    return std::filesystem::path(TRAINBENCH_SHARED_DIR) / "samples";
}

inline std::vector<double> values(const LogData& d, std::string_view name) {
    std::vector<double> v;
    if (const Series* s = d.find(name))
        for (const Point& p : s->points) v.push_back(p.value);
    return v;
}
inline std::vector<std::int64_t> steps(const LogData& d, std::string_view name) {
    std::vector<std::int64_t> v;
    if (const Series* s = d.find(name))
        for (const Point& p : s->points) v.push_back(p.step);
    return v;
}
// The value at a step, or NaN.
inline double at(const LogData& d, std::string_view name, std::int64_t step) {
    if (const Series* s = d.find(name))
        for (const Point& p : s->points)
            if (p.step == step) return p.value;
    return std::numeric_limits<double>::quiet_NaN();
}

inline std::string read_all(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::string s(static_cast<std::size_t>(std::filesystem::file_size(p)), '\0');
    in.read(s.data(), static_cast<std::streamsize>(s.size()));
    return s;
}

inline void write_all(const std::filesystem::path& p, std::string_view data) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

// ---------------------------------------------------------------- protobuf encoder
class Proto {
public:
    Proto& varint_field(std::uint32_t field, std::uint64_t v) {
        key(field, 0);
        varint(v);
        return *this;
    }
    Proto& fixed64_field(std::uint32_t field, std::uint64_t v) {
        key(field, 1);
        for (int i = 0; i < 8; ++i) m_bytes.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
        return *this;
    }
    Proto& double_field(std::uint32_t field, double v) { return fixed64_field(field, std::bit_cast<std::uint64_t>(v)); }
    Proto& fixed32_field(std::uint32_t field, std::uint32_t v) {
        key(field, 5);
        for (int i = 0; i < 4; ++i) m_bytes.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
        return *this;
    }
    Proto& float_field(std::uint32_t field, float v) { return fixed32_field(field, std::bit_cast<std::uint32_t>(v)); }
    Proto& bytes_field(std::uint32_t field, std::string_view b) {
        key(field, 2);
        varint(b.size());
        m_bytes.append(b);
        return *this;
    }
    Proto& message_field(std::uint32_t field, const Proto& m) { return bytes_field(field, m.str()); }
    [[nodiscard]] const std::string& str() const { return m_bytes; }

    static std::string le32(std::uint32_t v) {
        std::string s;
        for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
        return s;
    }
    static std::string le64(std::uint64_t v) {
        std::string s;
        for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
        return s;
    }

private:
    void key(std::uint32_t field, std::uint32_t wt) { varint((static_cast<std::uint64_t>(field) << 3) | wt); }
    void varint(std::uint64_t v) {
        while (v >= 0x80) {
            m_bytes.push_back(static_cast<char>((v & 0x7fu) | 0x80u));
            v >>= 7;
        }
        m_bytes.push_back(static_cast<char>(v));
    }
    std::string m_bytes;
};

// One TFRecord: length, masked CRC of length, data, masked CRC of data.
inline std::string tfrecord(std::string_view data) {
    std::string len = Proto::le64(data.size());
    std::string r = len;
    r += Proto::le32(detail::masked_crc32c(len.data(), len.size()));
    r.append(data);
    r += Proto::le32(detail::masked_crc32c(data.data(), data.size()));
    return r;
}

inline std::string file_version_event(double wall) {
    return tfrecord(Proto().double_field(1, wall).bytes_field(3, "brain.Event:2").str());
}

// Event{wall_time, step (elided when 0), summary{value{tag, simple_value}}}
inline std::string scalar_event(std::string_view tag, std::int64_t step, float value, double wall) {
    Proto v;
    v.bytes_field(1, tag).float_field(2, value);
    Proto summary;
    summary.message_field(1, v);
    Proto e;
    e.double_field(1, wall);
    if (step != 0) e.varint_field(2, static_cast<std::uint64_t>(step));
    e.message_field(5, summary);
    return tfrecord(e.str());
}

// Event with a tensor value (already encoded TensorProto) and scalars plugin metadata.
inline std::string tensor_event(std::string_view tag, std::int64_t step, const Proto& tensor, double wall) {
    Proto plugin;
    plugin.bytes_field(1, "scalars");
    Proto metadata;
    metadata.message_field(1, plugin);
    Proto v;
    v.bytes_field(1, tag).message_field(8, tensor).message_field(9, metadata);
    Proto summary;
    summary.message_field(1, v);
    Proto e;
    e.double_field(1, wall).varint_field(2, static_cast<std::uint64_t>(step)).message_field(5, summary);
    return tfrecord(e.str());
}

// Everything a parse produced (in-memory points), for comparing a split parse with the
// sequential one; without the bytes read (`with_bytes` false) for two spellings of one log.
inline std::string parse_fingerprint(const LogData& d, bool with_bytes = true) {
    std::string s = fmt::format("{}/{}/{}/{}/{};", with_bytes ? d.stats.bytes : 0, d.stats.records, d.stats.skipped,
                                d.stats.corrupt, d.stats.truncated_tail);
    for (const auto& [name, series] : d.series) {
        s += name + "(" + series.source_name + "):";
        for (const Point& p : series.points) s += fmt::format("{}={}@{},", p.step, p.value, p.wall_time);
    }
    for (const auto& [k, v] : d.parameters) s += k + "=" + v + ";";
    for (const auto& [k, v] : d.summary) s += fmt::format("{}={};", k, v);
    for (const std::string& w : d.stats.warnings) s += w + "|";
    return s;
}

}  // namespace trainbench::metrics::testing
