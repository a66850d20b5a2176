// Private to metrics: the TensorBoard parser's protobuf reader. The wire format, read-only
// and bounds-checked (Wire), and a TensorProto's scalar (tensor_scalar: dtype, shape, the
// packed content or the typed values, half and bfloat16 included). Inline: the event loop in
// tensorboard.cpp calls them for every record.
#pragma once

#include "metrics/common.hpp"

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>

namespace trainbench::metrics::detail::tfproto {

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

inline double f32(std::uint32_t bits) {
    return static_cast<double>(std::bit_cast<float>(bits));
}

inline double half_to_double(std::uint32_t h) {
    std::uint32_t sign = (h >> 15) & 1u, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    double v = 0;
    if (exp == 0)
        v = std::ldexp(static_cast<double>(mant), -24);
    else if (exp == 31)
        v = mant ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else
        v = std::ldexp(static_cast<double>(mant | 0x400u), static_cast<int>(exp) - 25);
    return sign ? -v : v;
}

inline double bf16_to_double(std::uint32_t b) {
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
inline std::int64_t element_count(std::string_view shape) {
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
inline double varint_value(std::uint32_t f, std::uint64_t x, std::uint64_t dtype) {
    if (f == 13) {
        auto bits = static_cast<std::uint32_t>(x & 0xffffu);
        return dtype == dt_bfloat16 ? bf16_to_double(bits) : half_to_double(bits);
    }
    if (f == 7) return static_cast<double>(static_cast<std::int32_t>(static_cast<std::uint32_t>(x)));
    if (f == 11) return x ? 1.0 : 0.0;
    return static_cast<double>(static_cast<std::int64_t>(x));
}

// Reads one field of a TensorProto into `t`; false when it is malformed.
inline bool read_tensor_field(Wire& w, std::uint32_t f, std::uint32_t wt, TensorFields& t) {
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
inline bool content_scalar(std::uint64_t dtype, std::string_view content, std::optional<double>& out) {
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
inline std::optional<double> tensor_scalar(std::string_view tensor, bool& malformed) {
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

}  // namespace trainbench::metrics::detail::tfproto
