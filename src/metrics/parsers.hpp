// Private to metrics: the stream entry point of every parser (a file, or a
// memory buffer for tests and fuzzers), and the glue that turns one into a
// LogParser. `label` names the input in warnings ("file:line: ...").
#pragma once

#include "metrics/input.hpp"
#include "metrics/split.hpp"

#include <trainbench/metrics.hpp>

#include <limits>
#include <memory>
#include <string_view>

namespace trainbench::metrics::detail {

void parse_dllogger(Source& source, std::string_view label, const ParseOptions& options, LogData& out);
void parse_tensorboard(Source& source, std::string_view label, const ParseOptions& options, LogData& out);
void parse_megatron(Source& source, std::string_view label, const ParseOptions& options, LogData& out);
void parse_nemo(Source& source, std::string_view label, const ParseOptions& options, LogData& out);
void parse_metaseq(Source& source, std::string_view label, const ParseOptions& options, LogData& out);
void parse_nccl_tests(Source& source, std::string_view label, const ParseOptions& options, LogData& out);
void parse_megatron_bridge(Source& source, std::string_view label, const ParseOptions& options, LogData& out);
void parse_torchtitan(Source& source, std::string_view label, const ParseOptions& options, LogData& out);
void parse_mlperf(Source& source, std::string_view label, const ParseOptions& options, LogData& out);
// Megatron-Bridge, TorchTitan and MLPerf logs: split across threads when large (split.hpp), else streamed.
void parse_megatron_bridge_file(const std::filesystem::path& path, std::string_view label, const ParseOptions& options,
                                LogData& out, const SplitPolicy& policy = {});
void parse_torchtitan_file(const std::filesystem::path& path, std::string_view label, const ParseOptions& options,
                           LogData& out, const SplitPolicy& policy = {});
void parse_mlperf_file(const std::filesystem::path& path, std::string_view label, const ParseOptions& options,
                       LogData& out, const SplitPolicy& policy = {});
// The parallel parse alone: false (out untouched) where the file is not split (split.hpp).
bool parse_megatron_bridge_split(const std::filesystem::path& path, std::string_view label, const ParseOptions& options,
                                 LogData& out, const SplitPolicy& policy);
bool parse_torchtitan_split(const std::filesystem::path& path, std::string_view label, const ParseOptions& options,
                            LogData& out, const SplitPolicy& policy);
bool parse_mlperf_split(const std::filesystem::path& path, std::string_view label, const ParseOptions& options,
                        LogData& out, const SplitPolicy& policy);

class SeriesSink;
// One Megatron-style "iteration i/N | key: value | ..." line, its values staged in `sink`
// (megatron.cpp; Megatron-Bridge prints the same line).
struct IterationLine {
    bool matched = false;  // an iteration line at all
    std::int64_t iteration = 0;
    std::size_t fields = 0;  // "key: value" segments read
    bool has_elapsed = false;
    double wall = std::numeric_limits<double>::quiet_NaN();
};
[[nodiscard]] IterationLine stage_iteration_line(std::string_view text, bool complete, SeriesSink& sink);

using StreamParseFn = void (*)(Source&, std::string_view, const ParseOptions&, LogData&);

// One part of a DLLogger file (split.hpp); order-dependent when it maps list steps.
void parse_dllogger_part(Source& source, std::string_view label, const ParseOptions& options, LinePart& part);
// A DLLogger file: split across threads when it is large (split.hpp), else streamed.
void parse_dllogger_file(const std::filesystem::path& path, std::string_view label, const ParseOptions& options,
                         LogData& out, const SplitPolicy& policy = {});
// One part of a TensorBoard event file, and where a record starts (split.hpp).
void parse_tensorboard_part(Source& source, std::string_view label, const ParseOptions& options, LinePart& part);
[[nodiscard]] std::uint64_t next_record_start(const FileSource& file, std::uint64_t from, std::uint64_t size);
// An event file: split across threads when it is large, else streamed.
void parse_tensorboard_file(const std::filesystem::path& path, std::string_view label, const ParseOptions& options,
                            LogData& out, const SplitPolicy& policy = {});
using FileParseFn = void (*)(const std::filesystem::path&, std::string_view, const ParseOptions&, LogData&,
                             const SplitPolicy&);

// The stream parser of a format name, or nullptr.
[[nodiscard]] StreamParseFn stream_parser(std::string_view format);

// Parses `data` as `format`, fed in chunks of `chunk` bytes (tests, fuzzers).
void parse_buffer(std::string_view format, std::string_view data, const ParseOptions& options, LogData& out,
                  std::size_t chunk = 1 << 20);

// The TensorBoard files of a directory (recursively), in reading order.
[[nodiscard]] std::vector<std::filesystem::path> tensorboard_files(const std::filesystem::path& dir);

// Detection from a file's name and first bytes (exposed for tests).
[[nodiscard]] std::optional<std::string> detect_from_content(std::string_view file_name, std::string_view head);
// The format when `head` alone settles it: a TFRecord header, or evidence of one format only,
// from two lines at least (detect_format's first 64 KiB).
[[nodiscard]] std::optional<std::string> detect_decisively(std::string_view head);

}  // namespace trainbench::metrics::detail
