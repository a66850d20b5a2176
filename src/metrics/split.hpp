// Private to metrics: one large file parsed by several threads. The file is
// cut into byte ranges at record boundaries (line ends; TFRecord starts), each
// range is parsed into its own LogData by the format's part parser, and the
// parts are merged in file order (each by the thread that finishes the next part
// in order, while the others go on parsing) so that the result is the one a
// sequential parse gives: later records win on repeated steps, parameters and
// summaries; counts add up; warnings keep the first k_max_warnings in file order,
// with line numbers of the whole file.
#pragma once

#include "metrics/input.hpp"

#include <trainbench/metrics.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string_view>
#include <vector>

namespace trainbench::metrics::detail {

struct LinePart {
    std::uint64_t begin = 0;  // the part's first byte in the file (for offsets in warnings)
    LogData data;
    std::uint64_t lines = 0;       // lines the part held (its last line ends with '\n' unless it is the file's last)
    bool order_dependent = false;  // the part used state from earlier lines: parse the file sequentially
};

// Parses `source` (one part) into part.data. Warnings that start "<label>:<line>: ", with
// the line counted from the part's start, are renumbered; byte offsets are the parser's
// to add part.begin to.
using LinePartFn = void (*)(Source& source, std::string_view label, const ParseOptions& options, LinePart& part);

// The first record boundary at or after `from`, or 0 when none is found nearby (no cut there).
using CutFn = std::uint64_t (*)(const FileSource& file, std::uint64_t from, std::uint64_t size);

// Cuts after the next '\n'.
std::uint64_t next_line_start(const FileSource& file, std::uint64_t from, std::uint64_t size);

// For a format's own cut: walks the whole lines after the first line start past `from` (up
// to 4 MiB) and returns the first non-zero `cut_at(line, start, next)` (`start`: the line's
// offset, `next`: the next line's), or 0 (no cut there).
using LineCutFn = std::function<std::uint64_t(std::string_view line, std::uint64_t start, std::uint64_t next)>;
std::uint64_t first_cut_in_lines(const FileSource& file, std::uint64_t from, std::uint64_t size,
                                 const LineCutFn& cut_at);

struct SplitPolicy {
    std::uint64_t min_file_bytes = 64ull << 20;  // smaller files are parsed sequentially
    std::uint64_t min_part_bytes = 2ull << 20;   // no part smaller than this
};

// Parses `path` in parallel into `out` and returns true; returns false (out untouched)
// when the file is too small (under min_file_bytes, or room for fewer than two parts), not
// a regular file, only one thread is allowed, or a part was order-dependent: the caller
// then parses it sequentially.
bool parse_lines_split(const std::filesystem::path& path, std::string_view label, const ParseOptions& options,
                       LogData& out, LinePartFn fn, const SplitPolicy& policy = {});
// Same, with the format's own record boundaries.
bool parse_split(const std::filesystem::path& path, std::string_view label, const ParseOptions& options, LogData& out,
                 LinePartFn fn, CutFn cut, const SplitPolicy& policy = {});

// Where the parts after the first start, before each moves to a record boundary: one
// equal part per thread for a spilled parse (ParseOptions::spill_after), else parts of at
// least `min_part` bytes that shrink as the file is used up.
[[nodiscard]] std::vector<std::uint64_t> part_starts(std::uint64_t size, unsigned threads, bool spilled,
                                                     std::uint64_t min_part);

// The threads `options` allows for one file (0 = one per core, at most 4).
[[nodiscard]] unsigned parse_threads(const ParseOptions& options);

}  // namespace trainbench::metrics::detail
