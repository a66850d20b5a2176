// TensorBoard event files: TFRecord framing (masked CRC-32C on the length and
// on the data) around serialized Event protos. The protos are read with a
// small wire-format reader that touches only the fields scalars need
// (Event.wall_time/step/summary, Summary.value, Value.tag/simple_value/tensor,
// TensorProto dtype/shape/content/typed values) and skips everything else by
// wire type: no allocation per record, no generated code (docs/performance.md).
// The wire reader and the TensorProto decoding are tensorboard_proto.hpp; this file is the
// record framing, the Event/Summary decoder and the threaded read's parts.
#include "metrics/common.hpp"
#include "metrics/crc32c.hpp"
#include "metrics/parsers.hpp"
#include "metrics/tensorboard_proto.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace fs = std::filesystem;

namespace trainbench::metrics::detail {

namespace {

constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t k_max_record = 64u << 20;  // larger records (graphs) are skipped unread

using tfproto::f32;
using tfproto::tensor_scalar;
using tfproto::Wire;

class TensorboardParser {
public:
    // `base`: the file offset of the source's first byte (a part of a file read by one thread).
    TensorboardParser(std::string_view label, const ParseOptions& options, LogData& out, std::uint64_t base = 0)
        : m_label(label), m_out(out), m_sink(out, options, canonical_names()), m_base(base) {}

    void run(Source& source);

private:
    bool decode_event(std::string_view event);
    bool decode_summary(std::string_view summary, std::int64_t step, double wall);

    std::string_view m_label;
    LogData& m_out;
    SeriesSink m_sink;
    std::uint64_t m_base;
};

bool TensorboardParser::decode_summary(std::string_view summary, std::int64_t step, double wall) {
    Wire w(summary);
    std::uint32_t f = 0, wt = 0;
    while (!w.done()) {
        if (!w.tag(f, wt)) return false;
        if (f != 1 || wt != 2) {
            if (!w.skip(wt)) return false;
            continue;
        }
        std::string_view value;
        if (!w.bytes(value)) return false;
        Wire v(value);
        std::string_view tag, tensor;
        std::optional<double> simple;
        while (!v.done()) {
            std::uint32_t vf = 0, vwt = 0;
            if (!v.tag(vf, vwt)) return false;
            bool ok = true;
            if (vf == 1 && vwt == 2) {
                ok = v.bytes(tag);
            } else if (vf == 2 && vwt == 5) {
                std::uint32_t bits = 0;
                ok = v.fixed32(bits);
                simple = f32(bits);
            } else if (vf == 8 && vwt == 2) {
                ok = v.bytes(tensor);
            } else {
                ok = v.skip(vwt);
            }
            if (!ok) return false;
        }
        std::optional<double> scalar = simple;
        if (!scalar && !tensor.empty()) {
            bool malformed = false;
            scalar = tensor_scalar(tensor, malformed);
            if (malformed) return false;
        }
        if (scalar && !tag.empty()) m_sink.stage(m_sink.resolve(tag), Point{step, *scalar, wall});
    }
    return true;
}

bool TensorboardParser::decode_event(std::string_view event) {
    Wire w(event);
    double wall = k_nan;
    std::int64_t step = 0;  // proto3 elides step 0
    std::string_view summary;
    bool has_summary = false;
    std::uint32_t f = 0, wt = 0;
    while (!w.done()) {
        if (!w.tag(f, wt)) return false;
        bool ok = true;
        if (f == 1 && wt == 1) {
            std::uint64_t bits = 0;
            ok = w.fixed64(bits);
            wall = std::bit_cast<double>(bits);
        } else if (f == 2 && wt == 0) {
            std::uint64_t v = 0;
            ok = w.varint(v);
            step = static_cast<std::int64_t>(v);
        } else if (f == 5 && wt == 2) {
            ok = w.bytes(summary);
            has_summary = true;
        } else {
            ok = w.skip(wt);
        }
        if (!ok) return false;
    }
    if (has_summary && !decode_summary(summary, step, wall)) return false;
    return true;
}

void TensorboardParser::run(Source& source) {
    ByteWindow win(source, 1 << 20, k_max_record + 16);
    SeriesReserver reserver(m_out, source.size_hint());
    ParseStats& st = m_out.stats;
    bool resyncing = false;
    for (;;) {
        reserver.check(win.offset());
        if (!win.ensure(12)) {
            if (win.available() > 0) {
                st.truncated_tail = true;
                warn(st, fmt::format("{}: offset {}: incomplete record at the end (still being written?), ignored",
                                     m_label, m_base + win.offset()));
            }
            break;
        }
        const auto* h = reinterpret_cast<const unsigned char*>(win.data());
        std::uint64_t len = load_u64(h);
        if (masked_crc32c(h, 8) != load_u32(h + 8)) {
            if (!resyncing) {
                ++st.corrupt;
                warn(st, fmt::format("{}: offset {}: bad length checksum, skipping to the next valid record", m_label,
                                     m_base + win.offset()));
                resyncing = true;
            }
            win.advance(1);
            continue;
        }
        resyncing = false;
        if (len > k_max_record) {
            ++st.skipped;
            warn(st,
                 fmt::format("{}: offset {}: record of {} bytes skipped unread", m_label, m_base + win.offset(), len));
            std::uint64_t before = win.offset();
            win.advance(
                static_cast<std::size_t>(std::min<std::uint64_t>(len + 16, std::numeric_limits<std::size_t>::max())));
            if (win.offset() - before < len + 16) {
                st.truncated_tail = true;
                break;
            }
            continue;
        }
        auto n = static_cast<std::size_t>(len);
        if (!win.ensure(12 + n + 4)) {
            st.truncated_tail = true;
            warn(st, fmt::format("{}: offset {}: incomplete record at the end (still being written?), ignored", m_label,
                                 m_base + win.offset()));
            break;
        }
        const auto* d = reinterpret_cast<const unsigned char*>(win.data()) + 12;
        if (masked_crc32c(d, n) != load_u32(d + n)) {
            ++st.corrupt;
            warn(st,
                 fmt::format("{}: offset {}: data checksum mismatch, record skipped", m_label, m_base + win.offset()));
            win.advance(12 + n + 4);
            continue;
        }
        if (decode_event(std::string_view(reinterpret_cast<const char*>(d), n))) {
            ++st.records;
            m_sink.commit();
        } else {
            m_sink.discard();
            ++st.corrupt;
            warn(st,
                 fmt::format("{}: offset {}: record is not a valid Event, skipped", m_label, m_base + win.offset()));
        }
        win.advance(12 + n + 4);
    }
    st.bytes += win.offset() + win.available();
}

// A valid record at `p`: its length checksum, its data checksum, and the length checksum of
// the record after it (or the end of the file). A false match needs three 32-bit CRCs to
// agree by chance.
bool record_at(const FileSource& file, std::uint64_t p, std::uint64_t size, const unsigned char* block,
               std::uint64_t block_start, std::size_t block_len, std::vector<unsigned char>& scratch) {
    auto view = [&](std::uint64_t at, std::size_t n) -> const unsigned char* {
        if (at >= block_start && at + n <= block_start + block_len) return block + (at - block_start);
        scratch.resize(n);
        if (file.read_at(reinterpret_cast<char*>(scratch.data()), n, at) != n) return nullptr;
        return scratch.data();
    };
    if (p + 16 > size) return false;
    const unsigned char* h = view(p, 12);
    if (!h || masked_crc32c(h, 8) != load_u32(h + 8)) return false;
    std::uint64_t len = load_u64(h);
    if (len > k_max_record || p + 16 + len > size) return false;
    const unsigned char* d = view(p + 12, static_cast<std::size_t>(len) + 4);
    if (!d || masked_crc32c(d, static_cast<std::size_t>(len)) != load_u32(d + len)) return false;
    std::uint64_t next = p + 16 + len;
    if (next == size) return true;
    if (next + 12 > size) return false;
    const unsigned char* h2 = view(next, 12);
    return h2 && masked_crc32c(h2, 8) == load_u32(h2 + 8);
}

}  // namespace

void parse_tensorboard(Source& source, std::string_view label, const ParseOptions& options, LogData& out) {
    TensorboardParser parser(label, options, out);
    parser.run(source);
}

void parse_tensorboard_part(Source& source, std::string_view label, const ParseOptions& options, LinePart& part) {
    TensorboardParser parser(label, options, part.data, part.begin);
    parser.run(source);
}

std::uint64_t next_record_start(const FileSource& file, std::uint64_t from, std::uint64_t size) {
    constexpr std::size_t k_block = 1 << 20;
    constexpr std::uint64_t k_max_scan = k_max_record + 16;
    std::vector<unsigned char> block(k_block), scratch;
    for (std::uint64_t at = from; at < size && at - from < k_max_scan;) {
        std::size_t got = file.read_at(reinterpret_cast<char*>(block.data()), block.size(), at);
        if (got == 0) return 0;
        for (std::size_t i = 0; i < got; ++i)
            if (record_at(file, at + i, size, block.data(), at, got, scratch)) return at + i;
        at += got;
    }
    return 0;
}

void parse_tensorboard_file(const std::filesystem::path& path, std::string_view label, const ParseOptions& options,
                            LogData& out, const SplitPolicy& policy) {
    if (parse_split(path, label, options, out, parse_tensorboard_part, next_record_start, policy)) return;
    FileSource source(path);
    parse_tensorboard(source, label, options, out);
}

std::vector<fs::path> tensorboard_files(const fs::path& dir) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
        if (it->is_regular_file(ec) && it->path().filename().string().find("tfevents") != std::string::npos)
            files.push_back(it->path());
    }
    // Event file names start with the creation time (%010d), so name order is
    // time order; a restart's file sorts after the first one.
    std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
        auto fa = a.filename().string(), fb = b.filename().string();
        return fa != fb ? fa < fb : a < b;
    });
    return files;
}

}  // namespace trainbench::metrics::detail
