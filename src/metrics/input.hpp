// Private to metrics: streaming input in constant memory. A Source yields
// bytes (a file through read(2), or a memory buffer in chunks of a chosen size
// so tests and fuzzers exercise chunk boundaries); LineReader and
// RecordBuffer sit on a fixed-size buffer that only grows up to a cap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string_view>

namespace trainbench::metrics::detail {

// Bytes that are always readable (and zero-initialised once) past the end of
// buffered data, so simdjson can parse a line in place.
inline constexpr std::size_t k_padding = 64;

// The input's bytes mapped in memory (a regular file's): `size` bytes of input at `data`, and
// `readable` >= size bytes that may be read there (what follows in the file, the zeros after
// its end up to a page boundary).
struct MappedInput {
    const char* data = nullptr;
    std::size_t size = 0;
    std::size_t readable = 0;
};

class Source {
public:
    virtual ~Source() = default;
    // Reads up to `n` bytes into `dst`; 0 means end of input.
    virtual std::size_t read(char* dst, std::size_t n) = 0;
    // The total size when known (to pre-size the series), else 0.
    [[nodiscard]] virtual std::uint64_t size_hint() const { return 0; }
    // Before the first read: the input mapped in memory, or {} (data nullptr) when it is not
    // mapped. The mapping lives as long as the Source; after it, read() goes on from
    // resume_at(n): the n-th byte of the mapping (a file that grew is read on past it).
    virtual MappedInput map() { return {}; }
    virtual void resume_at(std::uint64_t /*n*/) {}
    // The mapping's bytes before its n-th are read: their pages may leave the resident set
    // (they read the same if touched again).
    virtual void release_mapped(std::uint64_t /*n*/) {}
    // Whether the mapped file shrank while it was read (its lost pages now read as zeros).
    [[nodiscard]] virtual bool map_lost() const { return false; }
};

// A file read with read(2), or the byte range [begin, end) of a regular file
// read with pread(2) (one part of a file parsed in parallel). Throws
// RuntimeError when it cannot be opened.
class FileSource : public Source {
public:
    explicit FileSource(const std::filesystem::path& path);
    // `reserve_hint`: the size_hint() to give instead of the range's size (0: the range's).
    FileSource(const std::filesystem::path& path, std::uint64_t begin, std::uint64_t end,
               std::uint64_t reserve_hint = 0);
    ~FileSource() override;
    FileSource(const FileSource&) = delete;
    FileSource& operator=(const FileSource&) = delete;
    std::size_t read(char* dst, std::size_t n) override;
    [[nodiscard]] std::uint64_t size_hint() const override {
        if (m_reserve_hint) return m_reserve_hint;
        return m_ranged ? m_end - m_pos : m_size;
    }
    // A regular file of at least k_min_mapped bytes, from its start or the range's (mmap).
    MappedInput map() override;
    void resume_at(std::uint64_t n) override;
    void release_mapped(std::uint64_t n) override;
    [[nodiscard]] bool map_lost() const override;
    static constexpr std::uint64_t k_min_mapped = 1 << 20;
    // Reads up to n bytes at `offset` without moving the position (regular files).
    std::size_t read_at(char* dst, std::size_t n, std::uint64_t offset) const;
    [[nodiscard]] bool regular() const { return m_regular; }

private:
    int m_fd = -1;
    std::uint64_t m_size = 0;
    bool m_regular = false;
    bool m_ranged = false;
    std::uint64_t m_pos = 0, m_end = 0;
    std::uint64_t m_reserve_hint = 0;
    std::filesystem::path m_path;
    void* m_map = nullptr;                          // the mapping: m_map_len bytes from the file's offset m_map_at
    std::size_t m_map_len = 0, m_map_released = 0;  // bytes of it given back (MADV_DONTNEED)
    std::uint64_t m_map_at = 0, m_map_start = 0;    // m_map_start: the input's first byte
    int m_map_slot = -1;                            // in the registry that turns SIGBUS into zeros
};

// A memory buffer handed out at most `chunk` bytes per read.
class MemorySource : public Source {
public:
    explicit MemorySource(std::string_view data, std::size_t chunk = 1 << 20)
        : m_data(data), m_chunk(chunk ? chunk : 1) {}
    std::size_t read(char* dst, std::size_t n) override;
    [[nodiscard]] std::uint64_t size_hint() const override { return m_data.size(); }

private:
    std::string_view m_data;
    std::size_t m_pos = 0;
    std::size_t m_chunk;
};

// A byte window over a Source: ensure(n) makes n bytes readable at data()
// (reading and compacting as needed, growing the buffer up to max_window).
class ByteWindow {
public:
    explicit ByteWindow(Source& source, std::size_t initial = 1 << 20, std::size_t max_window = 64u << 20);
    // True when `n` bytes are available at data(); false at end of input or
    // when n exceeds the maximum window.
    bool ensure(std::size_t n) { return available() >= n || ensure_slow(n); }
    [[nodiscard]] const char* data() const { return m_buf.get() + m_pos; }
    [[nodiscard]] std::size_t available() const { return m_end - m_pos; }
    // Consumes n bytes (n may exceed what is buffered: the rest is read and dropped).
    void advance(std::size_t n) {
        if (n <= available()) {
            m_pos += n;
            m_offset += n;
        } else {
            advance_slow(n);
        }
    }
    // Bytes consumed so far (the offset of data() in the input).
    [[nodiscard]] std::uint64_t offset() const { return m_offset; }
    [[nodiscard]] bool eof() const { return m_eof; }
    // Capacity from data() to the end of the allocation (>= available() + k_padding).
    [[nodiscard]] std::size_t capacity_from_data() const { return m_cap + k_padding - m_pos; }
    // Reads more data at the end (compacting first); false when nothing more can be read.
    bool fill();
    [[nodiscard]] std::size_t max_window() const { return m_max; }

private:
    bool ensure_slow(std::size_t n);
    void clear_padding();  // zeroes the k_padding bytes after the data
    void advance_slow(std::size_t n);

    Source& m_source;
    std::unique_ptr<char[]> m_buf;
    std::size_t m_cap;
    std::size_t m_max;
    std::size_t m_pos = 0;
    std::size_t m_end = 0;
    std::uint64_t m_offset = 0;
    bool m_eof = false;
};

// `kubectl logs --prefix` marks every line with the pod and container it came from:
// "[pod/NAME/CONTAINER] text". Returns the text after such a prefix, else `line` unchanged.
[[nodiscard]] std::string_view strip_kubectl_prefix(std::string_view line);

// Lines split on '\n' (a trailing '\r' is kept; callers trim), each without a
// kubectl prefix (strip_kubectl_prefix), so every text parser reads the output of
// `kubectl logs --all-containers --prefix`. A line longer than the maximum window
// is skipped whole and reported as `overlong`.
class LineReader {
public:
    explicit LineReader(Source& source, std::size_t initial = 1 << 20, std::size_t max_line = 16u << 20);

    struct Line {
        std::string_view text;
        std::uint64_t number = 0;  // 1-based
        bool complete = true;      // false for a last line without '\n'
        bool overlong = false;     // text is empty: the line exceeded the maximum and was dropped
        std::size_t capacity = 0;  // readable bytes from text.data() (>= text.size() + k_padding)
    };
    bool next(Line& line);
    [[nodiscard]] std::uint64_t bytes() const { return m_mapped_done + m_window.offset(); }
    [[nodiscard]] std::uint64_t lines() const { return m_line; }

private:
    bool next_raw(Line& line);
    bool next_mapped(Line& line);
    void leave_mapping();

    Source& m_source;
    // A mapped input's lines are handed out where they lie, up to the last one with k_padding
    // readable bytes after it; the rest goes through the window (read from the Source).
    MappedInput m_mapped;
    std::size_t m_mapped_pos = 0, m_mapped_end = 0;
    std::uint64_t m_mapped_done = 0;    // bytes taken from the mapping before the window's
    std::size_t m_mapped_released = 0;  // where the last release_mapped() was
    std::size_t m_max_line;
    ByteWindow m_window;
    std::uint64_t m_line = 0;
    std::size_t m_scan = 0;  // bytes of the current line already searched for '\n'
};

}  // namespace trainbench::metrics::detail
