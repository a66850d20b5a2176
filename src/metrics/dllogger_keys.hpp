// Private to metrics: the DLLogger parser's key table. The keys of a line's objects as
// written (no copy, no unescaping), found by one word-wise comparison with the key the
// previous line had at the same position (KeyHints), and the field loop that reads them.
#pragma once

#include "metrics/common.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <simdjson.h>
#include <string_view>

namespace trainbench::metrics::detail::dllogger {

namespace od = simdjson::ondemand;

// The key of `field` as written (escapes left as they are: metric names have
// none in practice), pointing into the line: no copy, no unescaping.
inline bool raw_key(od::field& field, const char* end, std::string_view& key) {
    const char* p = field.key().raw();
    const char* q = p;
    for (;;) {
        while (q < end && *q != '"') ++q;  // keys are short: a loop beats a memchr call
        if (q >= end) return false;
        std::size_t backslashes = 0;
        for (const char* b = q; b > p && b[-1] == '\\'; --b) ++backslashes;
        if (backslashes % 2 == 0) break;
        ++q;
    }
    key = std::string_view(p, static_cast<std::size_t>(q - p));
    return true;
}

// The keys of one kind of object on the previous line, in order. Lines repeat them,
// so a key is usually found by one comparison instead of a scan for its closing quote.
class KeyHints {
public:
    void restart() { m_at = 0; }
    // The position of the key read last in its object, and whether it is the key the
    // previous line had there.
    [[nodiscard]] std::size_t slot() const { return m_at - 1; }
    [[nodiscard]] bool hit() const { return m_hit; }
    // (inlined: called for every key of every line; the miss is out of line)
    [[gnu::always_inline]] bool read(od::field& field, const char* end, std::string_view& key) {
        const char* p = field.key().raw();
        if (m_at < m_count) {
            const Hint& h = m_hints[m_at];
            if (static_cast<std::size_t>(end - p) > h.size && p[h.size] == '"' && h.matches(p)) {
                key = std::string_view(p, h.size);
                ++m_at;
                m_hit = true;
                return true;
            }
        }
        return miss(field, end, key);
    }

private:
    // A key of at most k_max_key bytes, zero-filled to a whole number of words.
    static constexpr std::size_t k_max_key = 56;
    struct Hint {
        std::array<std::uint64_t, k_max_key / 8 + 1> words{};  // the key's bytes, zero-filled
        std::size_t size = 0;
        std::size_t full = 0;    // words wholly in the key
        std::uint64_t tail = 0;  // mask of the key's bytes in the word after them
        bool usable = false;     // not too long, and not ending in a backslash (an escaped quote)
        void set(std::string_view key) {
            usable = key.size() <= k_max_key && (key.empty() || key.back() != '\\');
            size = usable ? key.size() : 0;
            words.fill(0);
            if (usable) std::memcpy(words.data(), key.data(), key.size());
            full = size / 8;
            tail = size % 8 == 0 ? 0 : (std::uint64_t{1} << (size % 8 * 8)) - 1;  // little-endian: first bytes
        }
        // Whether the `size` bytes at `p` are the key, a word at a time: `p` is in a parse
        // buffer, so the word holding its last bytes is readable (k_padding after the text).
        [[nodiscard]] bool matches(const char* p) const {
            std::uint64_t diff = usable ? 0 : 1;
            for (std::size_t i = 0; i < full; ++i) diff |= load_u64(p + i * 8) ^ words[i];
            return (diff | ((load_u64(p + full * 8) ^ words[full]) & tail)) == 0;
        }
    };

    [[gnu::noinline]] bool miss(od::field& field, const char* end, std::string_view& key) {
        m_hit = false;
        if (!raw_key(field, end, key)) return false;
        if (m_at < m_count) {
            m_hints[m_at].set(key);
        } else if (m_count < m_hints.size()) {
            m_hints[m_count++].set(key);
        }
        ++m_at;
        return true;
    }

    std::array<Hint, 64> m_hints{};
    std::size_t m_count = 0;
    std::size_t m_at = 0;
    bool m_hit = false;
};

// Calls f(key, value) for each field of `obj` while it returns true; false when a field
// cannot be read or f returns false.
template <typename F>
bool each_field(od::object obj, const char* end, KeyHints& hints, F&& f) {
    hints.restart();
    for (auto result : obj) {
        if (result.error()) return false;
        od::field& field = result.value_unsafe();
        std::string_view key;
        if (!hints.read(field, end, key)) return false;
        if (!f(key, field.value())) return false;
    }
    return true;
}

}  // namespace trainbench::metrics::detail::dllogger
