// TensorBoard event files: TFRecord framing (masked CRC-32C on the length and
// on the data) around serialized Event protos. The protos are read with a
// small wire-format reader that touches only the fields scalars need
// (Event.wall_time/step/summary, Summary.value, Value.tag/simple_value/tensor,
// TensorProto dtype/shape/content/typed values) and skips everything else by
// wire type: no allocation per record, no generated code (docs/performance.md).
#include "metrics/common.hpp"
#include "metrics/crc32c.hpp"
#include "metrics/parsers.hpp"

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

// Protobuf wire format, read-only, bounds-checked.
struct Wire {
    const unsigned char* p;
    const unsigned char* end;

    Wire(const unsigned char* b, std::size_t n) : p(b), end(b + n) {}
    explicit Wire(std::string_view s) : Wire(reinterpret_cast<const unsigned char*>(s.data()), s.size()) {}

    [[nodiscard]] bool done() const { return p >= end; }

    bool varint(std::uint64_t& v) {
        if (p < end && *p < 0x80u) {  // tags, small lengths and steps: one byte
            v = *p++;
            return true;
        }
        v = 0;
        for (unsigned shift = 0; shift < 64; shift += 7) {
            if (p >= end) return false;
            unsigned char b = *p++;
            v |= static_cast<std::uint64_t>(b & 0x7fu) << shift;
            if (!(b & 0x80u)) return true;
        }
        return false;
    }
    bool fixed32(std::uint32_t& v) {
        if (end - p < 4) return false;
        v = load_u32(p);
        p += 4;
        return true;
    }
    bool fixed64(std::uint64_t& v) {
        if (end - p < 8) return false;
        v = load_u64(p);
        p += 8;
        return true;
    }
    bool bytes(std::string_view& s) {
        std::uint64_t n = 0;
        if (!varint(n) || n > static_cast<std::uint64_t>(end - p)) return false;
        s = std::string_view(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n));
        p += n;
        return true;
    }
    bool tag(std::uint32_t& field, std::uint32_t& wire_type) {
        std::uint64_t t = 0;
        if (!varint(t) || t > 0xffffffffu) return false;
        field = static_cast<std::uint32_t>(t >> 3);
        wire_type = static_cast<std::uint32_t>(t & 7u);
        return field != 0;
    }
    bool skip(std::uint32_t wire_type) {
        std::uint64_t v = 0;
        std::uint32_t v32 = 0;
        std::string_view s;
        switch (wire_type) {
            case 0:
                return varint(v);
            case 1:
                return fixed64(v);
            case 2:
                return bytes(s);
            case 5:
                return fixed32(v32);
            default:
                return false;  // groups (3, 4) are not used by these protos
        }
    }
};

double f32(std::uint32_t bits) {
    return static_cast<double>(std::bit_cast<float>(bits));
}

double half_to_double(std::uint32_t h) {
    std::uint32_t sign = (h >> 15) & 1u, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    double v = 0;
    if (exp == 0)
        v = std::ldexp(static_cast<double>(mant), -24);
    else if (exp == 31)
        v = mant ? k_nan : std::numeric_limits<double>::infinity();
    else
        v = std::ldexp(static_cast<double>(mant | 0x400u), static_cast<int>(exp) - 25);
    return sign ? -v : v;
}

double bf16_to_double(std::uint32_t b) {
    return f32((b & 0xffffu) << 16);
}

enum DataType : std::uint64_t {
    dt_float = 1,
    dt_double = 2,
    dt_int32 = 3,
    dt_uint8 = 4,
    dt_int16 = 5,
    dt_int8 = 6,
    dt_int64 = 9,
    dt_bool = 10,
    dt_bfloat16 = 14,
    dt_half = 19,
};

// The number of elements a TensorShapeProto describes (1 for rank 0); -1 when unknown.
std::int64_t element_count(std::string_view shape) {
    Wire w(shape);
    std::int64_t count = 1;
    std::uint32_t f = 0, wt = 0;
    while (!w.done()) {
        if (!w.tag(f, wt)) return -1;
        if (f == 2 && wt == 2) {
            std::string_view dim;
            if (!w.bytes(dim)) return -1;
            Wire d(dim);
            std::int64_t size = 1;
            while (!d.done()) {
                std::uint32_t df = 0, dwt = 0;
                if (!d.tag(df, dwt)) return -1;
                if (df == 1 && dwt == 0) {
                    std::uint64_t v = 0;
                    if (!d.varint(v)) return -1;
                    size = static_cast<std::int64_t>(v);
                } else if (!d.skip(dwt)) {
                    return -1;
                }
            }
            if (size < 0) return -1;
            if (size != 1) count = (size == 0) ? 0 : 2;  // only "one element" matters
        } else if (f == 3 && wt == 0) {
            std::uint64_t unknown = 0;
            if (!w.varint(unknown)) return -1;
            if (unknown) return -1;
        } else if (!w.skip(wt)) {
            return -1;
        }
    }
    return count;
}

// What a TensorProto holds, as far as a scalar is concerned.
struct TensorFields {
    std::uint64_t dtype = 0;
    std::int64_t count = 1;
    std::string_view content;
    std::optional<double> typed;  // first typed value
    std::size_t typed_count = 0;
    void add_typed(double v) {
        if (typed_count++ == 0) typed = v;
    }
};

// int_val, int64_val, bool_val, half_val (fields 7, 10, 11, 13) as a double.
double varint_value(std::uint32_t f, std::uint64_t x, std::uint64_t dtype) {
    if (f == 13) {
        auto bits = static_cast<std::uint32_t>(x & 0xffffu);
        return dtype == dt_bfloat16 ? bf16_to_double(bits) : half_to_double(bits);
    }
    if (f == 7) return static_cast<double>(static_cast<std::int32_t>(static_cast<std::uint32_t>(x)));
    if (f == 11) return x ? 1.0 : 0.0;
    return static_cast<double>(static_cast<std::int64_t>(x));
}

// Reads one field of a TensorProto into `t`; false when it is malformed.
bool read_tensor_field(Wire& w, std::uint32_t f, std::uint32_t wt, TensorFields& t) {
    bool ok = true;
    std::string_view s;
    std::uint64_t v = 0;
    std::uint32_t v32 = 0;
    if (f == 1 && wt == 0) {
        ok = w.varint(t.dtype);
    } else if (f == 2 && wt == 2) {
        ok = w.bytes(s);
        if (ok) t.count = element_count(s);
    } else if (f == 4 && wt == 2) {
        ok = w.bytes(t.content);
    } else if (f == 5 && wt == 5) {  // float_val, unpacked
        ok = w.fixed32(v32);
        if (ok) t.add_typed(f32(v32));
    } else if (f == 5 && wt == 2) {  // float_val, packed
        ok = w.bytes(s);
        for (std::size_t i = 0; ok && i + 4 <= s.size(); i += 4)
            t.add_typed(f32(load_u32(reinterpret_cast<const unsigned char*>(s.data() + i))));
    } else if (f == 6 && wt == 1) {  // double_val
        ok = w.fixed64(v);
        if (ok) t.add_typed(std::bit_cast<double>(v));
    } else if (f == 6 && wt == 2) {
        ok = w.bytes(s);
        for (std::size_t i = 0; ok && i + 8 <= s.size(); i += 8)
            t.add_typed(std::bit_cast<double>(load_u64(reinterpret_cast<const unsigned char*>(s.data() + i))));
    } else if ((f == 7 || f == 10 || f == 11 || f == 13) && wt == 0) {  // varints, unpacked
        ok = w.varint(v);
        if (ok) t.add_typed(varint_value(f, v, t.dtype));
    } else if ((f == 7 || f == 10 || f == 11 || f == 13) && wt == 2) {  // varints, packed
        ok = w.bytes(s);
        Wire packed(s);
        while (ok && !packed.done()) {
            ok = packed.varint(v);
            if (ok) t.add_typed(varint_value(f, v, t.dtype));
        }
    } else {
        ok = w.skip(wt);
    }
    return ok;
}

// The scalar in tensor_content for `dtype`: false for a type that is no
// scalar (strings, complex, resources); `out` is set when the size fits.
bool content_scalar(std::uint64_t dtype, std::string_view content, std::optional<double>& out) {
    const auto* c = reinterpret_cast<const unsigned char*>(content.data());
    switch (dtype) {
        case dt_float:
            if (content.size() == 4) out = f32(load_u32(c));
            return true;
        case dt_double:
            if (content.size() == 8) out = std::bit_cast<double>(load_u64(c));
            return true;
        case dt_int32:
            if (content.size() == 4) out = static_cast<double>(static_cast<std::int32_t>(load_u32(c)));
            return true;
        case dt_int64:
            if (content.size() == 8) out = static_cast<double>(static_cast<std::int64_t>(load_u64(c)));
            return true;
        case dt_int16:
            if (content.size() == 2) out = static_cast<double>(static_cast<std::int16_t>(c[0] | (c[1] << 8)));
            return true;
        case dt_int8:
            if (content.size() == 1) out = static_cast<double>(static_cast<std::int8_t>(c[0]));
            return true;
        case dt_uint8:
        case dt_bool:
            if (content.size() == 1) out = static_cast<double>(c[0]);
            return true;
        case dt_half:
            if (content.size() == 2) out = half_to_double(static_cast<std::uint32_t>(c[0] | (c[1] << 8)));
            return true;
        case dt_bfloat16:
            if (content.size() == 2) out = bf16_to_double(static_cast<std::uint32_t>(c[0] | (c[1] << 8)));
            return true;
        default:
            return false;
    }
}

// A scalar from a TensorProto, or nullopt when it is not one.
std::optional<double> tensor_scalar(std::string_view tensor, bool& malformed) {
    Wire w(tensor);
    TensorFields t;
    std::uint32_t f = 0, wt = 0;
    while (!w.done()) {
        if (!w.tag(f, wt) || !read_tensor_field(w, f, wt, t)) {
            malformed = true;
            return std::nullopt;
        }
    }
    if (t.count != 1) return std::nullopt;
    std::optional<double> from_content;
    if (!content_scalar(t.dtype, t.content, from_content)) return std::nullopt;
    if (from_content) return from_content;
    if (t.content.empty() && t.typed_count == 1) return t.typed;
    return std::nullopt;
}

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
