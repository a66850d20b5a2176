// Private to metrics: reading one MLPerf :::MLLOG record's fields with simdjson's on-demand
// API without copying what is only compared. A field name is matched on its raw bytes against
// the names the parser reads (mllog's template: namespace, time_ms, event_type, key, value,
// metadata; the metadata's file, lineno, step, samples_count, epoch_num, first_epoch_num,
// status); only a name written with an escape ("\u0074ime_ms") is unescaped and then matched
// as text, so both spellings mean the same field. A string value is read in place when it
// holds no escape, else unescaped into the parser's buffer: either way its text stays valid
// until the parser reads the next record.
#pragma once

#include "metrics/common.hpp"

#include <cstdint>
#include <cstring>
#include <simdjson.h>
#include <string_view>

namespace trainbench::metrics::detail::mllog {

namespace od = simdjson::ondemand;

inline bool read_number(od::value& v, double& out) {
    return !v.get_double().get(out);
}

// A number that is most often a non-negative integer (time_ms, lineno, step, samples_count):
// read as one when it is (the shorter parse), else as any number. The same double either way:
// an integer of up to 20 digits converts to its nearest double, as its decimal text rounds.
inline bool read_count(od::value& v, double& out) {
    std::uint64_t i = 0;
    if (!v.get_uint64().get(i)) {
        out = static_cast<double>(i);
        return true;
    }
    return read_number(v, out);
}

// Consumes a value nobody keeps, of type `t` (its type()), checking that it is JSON.
inline bool skip_typed(od::value& v, od::json_type t) {
    std::string_view raw;
    switch (t) {
        case od::json_type::object: {
            od::object o;
            return !v.get_object().get(o) && !o.raw_json().get(raw);
        }
        case od::json_type::array: {
            od::array a;
            return !v.get_array().get(a) && !a.raw_json().get(raw);
        }
        case od::json_type::string: {
            // (stage 1 has checked its bytes; not unescaping a string nobody reads saves a copy)
            od::raw_json_string s;
            return !v.get_raw_json_string().get(s);
        }
        case od::json_type::number: {
            double d = 0;
            return read_count(v, d);
        }
        case od::json_type::boolean: {
            bool b = false;
            return !v.get_bool().get(b);
        }
        case od::json_type::null: {
            bool is_null = false;
            return !v.is_null().get(is_null) && is_null;
        }
    }
    return false;
}

// Consumes a value nobody keeps, checking that it is JSON.
inline bool skip_value(od::value& v) {
    od::json_type t{};
    return !v.type().get(t) && skip_typed(v, t);
}

// Where ":::MLLOG" first occurs in a line (npos when nowhere), looked for from its one 'M'
// (mllog writes it at the line's start or after a short prefix such as srun -l's "0: ").
inline std::size_t find_mark(std::string_view t) {
    constexpr std::uint64_t mark = 0x474f4c4c4d3a3a3aULL;  // ":::MLLOG", little-endian
    std::size_t at = 3;
    while (at + 5 <= t.size()) {
        const void* m = std::memchr(t.data() + at, 'M', t.size() - at);
        if (!m) break;
        at = static_cast<std::size_t>(static_cast<const char*>(m) - t.data());
        if (at + 5 <= t.size() && load_u64(t.data() + at - 3) == mark) return at - 3;
        ++at;
    }
    return std::string_view::npos;
}

// The record's opening brace after the mark at `pos`: mllog writes ":::MLLOG {".
inline std::size_t find_record(std::string_view t, std::size_t pos) {
    if (pos + 9 < t.size() && t[pos + 8] == ' ' && t[pos + 9] == '{') return pos + 9;
    return t.find('{', pos);
}

// Whether the n bytes at p hold a backslash; up to 16 of them in two 8-byte loads (the
// bytes after a string inside a record are readable: the record's rest and its padding).
inline bool has_backslash(const char* p, std::size_t n) {
    if (n > 16) return std::memchr(p, '\\', n) != nullptr;
    constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    auto zero_bytes = [](std::uint64_t w) { return (w - ones) & ~w & highs; };  // marks bytes that were 0
    auto first = [](std::size_t k) { return k >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * k)) - 1; };
    const std::uint64_t a = zero_bytes(load_u64(p) ^ (ones * '\\')) & first(n);
    const std::uint64_t b = n > 8 ? zero_bytes(load_u64(p + 8) ^ (ones * '\\')) & first(n - 8) : 0;
    return (a | b) != 0;
}

// The text between a string's quotes, from `p` (just after the opening quote) to the first
// quote before `end`, when it holds no escape; false when it does (or has no quote before
// `end`, which a string stage 1 accepted always has).
inline bool plain_text(const char* p, const char* end, std::string_view& out) {
    const void* quote = std::memchr(p, '"', static_cast<std::size_t>(end - p));
    if (!quote) return false;
    const auto n = static_cast<std::size_t>(static_cast<const char*>(quote) - p);
    if (has_backslash(p, n)) return false;
    out = std::string_view(p, n);
    return true;
}

// A field's name (for a name that is kept): as written, else unescaped.
inline bool field_name(od::field& f, const char* end, std::string_view& name) {
    return plain_text(f.key().raw(), end, name) || !f.unescaped_key().get(name);
}

// A string value's text the same way, consumed either way (so what follows it is checked as
// the record's next field); false when the value is no string. Its token runs from its opening
// quote to the next structural character: the closing quote is the token's last one.
inline bool read_text(od::value& v, std::string_view& out) {
    std::string_view token = v.raw_json_token();
    if (!token.empty() && token.front() == '"') {
        const std::size_t close = token.find_last_of('"');
        if (close > 0 && !has_backslash(token.data() + 1, close - 1)) {
            out = token.substr(1, close - 1);
            od::raw_json_string consumed;
            return !v.get_raw_json_string().get(consumed);
        }
    }
    return !v.get_string().get(out);
}

// A name (at most 15 characters, no quote or backslash) and the quote that closes it, compared
// with a raw key in one or two 8-byte loads: a key inside a record is followed by the rest of
// the record and its padding (SIMDJSON_PADDING bytes), so 16 bytes from its start are readable.
class RawName {
public:
    consteval explicit RawName(std::string_view name) : m_size(name.size() + 1) {
        auto byte = [&](std::size_t i) -> std::uint64_t {
            return i < name.size() ? static_cast<unsigned char>(name[i]) : i == name.size() ? '"' : 0;
        };
        for (std::size_t i = 0; i < 8; ++i) m_head |= byte(i) << (8 * i);
        if (m_size >= 8)
            for (std::size_t i = 0; i < 8; ++i) m_tail |= byte(m_size - 8 + i) << (8 * i);
        else
            m_mask = (std::uint64_t{1} << (8 * m_size)) - 1;
    }
    // Whether the key whose text starts at `p` is this name.
    [[nodiscard]] bool at(const char* p) const {
        return m_size >= 8 ? load_u64(p) == m_head && load_u64(p + m_size - 8) == m_tail
                           : (load_u64(p) & m_mask) == m_head;
    }

private:
    std::size_t m_size;
    std::uint64_t m_head = 0, m_tail = 0, m_mask = ~std::uint64_t{0};
};

// The fields the parser reads, of the record and of its metadata.
enum class Field { other, time_ms, key, value, metadata, step, samples_count, epoch_num, first_epoch_num, status };

// A record field by its unescaped name.
inline Field record_field(std::string_view n) {
    return n == "time_ms"    ? Field::time_ms
           : n == "key"      ? Field::key
           : n == "value"    ? Field::value
           : n == "metadata" ? Field::metadata
                             : Field::other;
}

// A metadata field by its unescaped name.
inline Field metadata_field(std::string_view n) {
    return n == "step"              ? Field::step
           : n == "samples_count"   ? Field::samples_count
           : n == "epoch_num"       ? Field::epoch_num
           : n == "first_epoch_num" ? Field::first_epoch_num
           : n == "status"          ? Field::status
                                    : Field::other;
}

// A record field by its raw name; false when it is none of the template's names.
inline bool record_field_raw(const char* p, Field& out) {
    static constexpr RawName k_namespace("namespace"), k_time_ms("time_ms"), k_event_type("event_type"), k_key("key"),
        k_value("value"), k_metadata("metadata");
    switch (*p) {
        case 'n':
            out = Field::other;
            return k_namespace.at(p);
        case 't':
            out = Field::time_ms;
            return k_time_ms.at(p);
        case 'e':
            out = Field::other;
            return k_event_type.at(p);
        case 'k':
            out = Field::key;
            return k_key.at(p);
        case 'v':
            out = Field::value;
            return k_value.at(p);
        case 'm':
            out = Field::metadata;
            return k_metadata.at(p);
        default:
            return false;
    }
}

// A metadata field by its raw name; false when it is none of the names mllog writes or the
// parser reads.
inline bool metadata_field_raw(const char* p, Field& out) {
    static constexpr RawName k_file("file"), k_lineno("lineno"), k_step("step"), k_samples_count("samples_count"),
        k_status("status"), k_epoch_num("epoch_num"), k_first_epoch_num("first_epoch_num");
    out = Field::other;
    switch (*p) {
        case 'f':
            if (k_file.at(p)) return true;
            out = Field::first_epoch_num;
            return k_first_epoch_num.at(p);
        case 'l':
            return k_lineno.at(p);
        case 's':
            out = Field::step;
            if (k_step.at(p)) return true;
            out = Field::samples_count;
            if (k_samples_count.at(p)) return true;
            out = Field::status;
            return k_status.at(p);
        case 'e':
            out = Field::epoch_num;
            return k_epoch_num.at(p);
        default:
            return false;
    }
}

// Which field `f` is: its raw name matched by `raw`, else (a name written with an escape) its
// unescaped name matched by `text`, else Field::other. False when the name cannot be read.
template <typename Raw, typename Text>
bool classify(od::field& f, const char* end, Raw raw, Text text, Field& out) {
    const char* p = f.key().raw();
    if (raw(p, out)) return true;
    std::string_view name;
    if (plain_text(p, end, name)) {
        out = Field::other;
        return true;
    }
    if (f.unescaped_key().get(name)) return false;
    out = text(name);
    return true;
}

}  // namespace trainbench::metrics::detail::mllog
