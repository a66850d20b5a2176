// Private to metrics: the stream entry point of every parser (a file, or a
// memory buffer for tests and fuzzers), and the glue that turns one into a
// LogParser. `label` names the input in warnings ("file:line: ...").
#pragma once

#include "metrics/input.hpp"

#include <trainbench/metrics.hpp>

#include <memory>
#include <string_view>

namespace trainbench::metrics::detail {

void parse_dllogger(Source& source, std::string_view label, const ParseOptions& options, LogData& out);
void parse_tensorboard(Source& source, std::string_view label, const ParseOptions& options, LogData& out);
void parse_megatron(Source& source, std::string_view label, const ParseOptions& options, LogData& out);
void parse_nemo(Source& source, std::string_view label, const ParseOptions& options, LogData& out);
void parse_metaseq(Source& source, std::string_view label, const ParseOptions& options, LogData& out);
void parse_nccl_tests(Source& source, std::string_view label, const ParseOptions& options, LogData& out);

using StreamParseFn = void (*)(Source&, std::string_view, const ParseOptions&, LogData&);

// The stream parser of a format name, or nullptr.
[[nodiscard]] StreamParseFn stream_parser(std::string_view format);

// Parses `data` as `format`, fed in chunks of `chunk` bytes (tests, fuzzers).
void parse_buffer(std::string_view format, std::string_view data, const ParseOptions& options, LogData& out,
                  std::size_t chunk = 1 << 20);

// The TensorBoard files of a directory (recursively), in reading order.
[[nodiscard]] std::vector<std::filesystem::path> tensorboard_files(const std::filesystem::path& dir);

// Detection from a file's name and first bytes (exposed for tests).
[[nodiscard]] std::optional<std::string> detect_from_content(std::string_view file_name, std::string_view head);

}  // namespace trainbench::metrics::detail
