// metrics: reading training logs. Every parser fills the same model: named
// per-step series (step, value, wall time) plus the run metadata a log
// declares. Parsers stream their input in constant memory, never throw on
// bad content (bad lines and records are counted and skipped), and never
// hang. To add a log format: implement LogParser in src/metrics/<format>.cpp
// and add a row to the format table in src/metrics/formats.cpp.
//
// metrics depends only on core.
#pragma once

#include <trainbench/core.hpp>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainbench::metrics {

// Canonical series names. Parsers map their format's own names onto these
// where the meaning is the same, and keep every other scalar under its own name.
namespace names {
inline constexpr std::string_view step_time_s = "step_time_s";  // seconds per optimizer step
inline constexpr std::string_view loss = "loss";
inline constexpr std::string_view consumed_samples = "consumed_samples";
inline constexpr std::string_view learning_rate = "lr";
inline constexpr std::string_view grad_norm = "grad_norm";
inline constexpr std::string_view loss_scale = "loss_scale";
inline constexpr std::string_view global_batch = "global_batch_size";
inline constexpr std::string_view tokens_per_s = "tokens_per_s";  // words/s in fairseq ("wps")
inline constexpr std::string_view samples_per_s = "samples_per_s";
inline constexpr std::string_view tflops_per_gpu = "tflops_per_gpu";  // as the log itself reports it
inline constexpr std::string_view skipped_iterations = "skipped_iterations";
}  // namespace names

struct Point {
    std::int64_t step = 0;
    double value = 0;
    double wall_time = std::numeric_limits<double>::quiet_NaN();  // unix seconds, NaN when unknown
};

// The earlier points of a long series, moved to an unnamed temporary file
// (ParseOptions::spill_after). Opaque: read a series with PointReader.
class PointSpill;

struct Series {
    std::string name;           // canonical or original name
    std::string source_name;    // the name in the log ("train_step_timing in s")
    std::vector<Point> points;  // in step order; a repeated step keeps the later value
    bool last_only = false;     // only the point of the highest step is kept (ParseOptions::last_only)
    // Only the points of steps in [keep_from, keep_to] are kept (ParseOptions::window_only).
    std::int64_t keep_from = std::numeric_limits<std::int64_t>::min();
    std::int64_t keep_to = std::numeric_limits<std::int64_t>::max();
    // With ParseOptions::spill_after, the points before `points` (all of lower steps) when the
    // series outgrew memory; nullptr otherwise. PointReader reads both.
    std::shared_ptr<PointSpill> spill;
};

// Every point of a series in step order, whether held in memory or spilled to a
// temporary file. The series must outlive the reader and not change while it reads.
// Throws RuntimeError when the temporary file cannot be read.
class PointReader {
public:
    explicit PointReader(const Series& series);
    ~PointReader();
    PointReader(const PointReader&) = delete;
    PointReader& operator=(const PointReader&) = delete;
    // The next point; false at the end. (Inline: statistics read every point in several passes.)
    bool next(Point& p) {
        if (m_at == m_end && !refill()) return false;
        p = *m_at++;
        return true;
    }

private:
    bool refill();  // the next run of points in [m_at, m_end); false at the end
    struct State;
    std::unique_ptr<State> m_state;
    const Point* m_at = nullptr;
    const Point* m_end = nullptr;
};

// One step-time record as the gpu-recipes tool reads a DLLogger file: a line
// "DLLL {...}" that is valid JSON with an integer "step" and a numeric
// data["train_step_timing in s"], whatever its type; duplicates kept, file order.
struct StepRecord {
    std::int64_t step = 0;
    double seconds = 0;
};

// nccl-tests: one row per message size (out-of-place and in-place).
struct NcclRow {
    std::uint64_t size_bytes = 0;
    std::uint64_t count = 0;
    std::string type;
    std::string redop;
    std::int64_t root = -1;
    double oop_time_us = 0, oop_algbw = 0, oop_busbw = 0;
    std::int64_t oop_wrong = 0;  // -1 when the column says N/A
    double ip_time_us = 0, ip_algbw = 0, ip_busbw = 0;
    std::int64_t ip_wrong = 0;
};

struct NcclResult {
    std::string operation;                      // "all_reduce_perf" when the log names it, else ""
    std::map<std::string, std::string> header;  // nThread, nGpus, minBytes, ...
    std::vector<std::string> devices;           // "#  Rank  0 Group  0 Pid ... on host device 0 [0x..] NVIDIA H100"
    std::vector<NcclRow> rows;
    std::optional<double> avg_busbw;  // the footer's "Avg bus bandwidth"
    std::optional<std::int64_t> out_of_bounds;
};

struct ParseStats {
    std::uint64_t bytes = 0;
    std::uint64_t records = 0;          // lines or TFRecords that yielded data
    std::uint64_t skipped = 0;          // lines/records not understood (garbage, other messages)
    std::uint64_t corrupt = 0;          // records that failed a check (CRC, JSON syntax in a data line)
    bool truncated_tail = false;        // the last record/line was incomplete
    std::vector<std::string> warnings;  // at most a few, with line/offset numbers
};

struct LogData {
    std::string format;  // the parser that read it
    std::vector<std::filesystem::path> files;
    std::map<std::string, Series> series;           // by Series::name
    std::map<std::string, std::string> parameters;  // metadata the log declares (DLLogger PARAMETER), JSON text values
    std::map<std::string, double> summary;          // run-level values logged without a step (DLLogger step [])
    std::optional<NcclResult> nccl;
    std::vector<StepRecord> step_records;  // DLLogger with ParseOptions::step_records only
    ParseStats stats;

    [[nodiscard]] const Series* find(std::string_view name) const;
    // A parameter as a number (JSON number, bool, or a string holding a number), or nullopt.
    [[nodiscard]] std::optional<double> parameter_number(std::string_view name) const;
    // A parameter as text: a JSON string unquoted and unescaped, anything else as its JSON text.
    [[nodiscard]] std::optional<std::string> parameter_text(std::string_view name) const;
    // Adds (or replaces, for a repeated step) one point, keeping step order.
    void add_point(std::string_view name, std::string_view source_name, Point p);
};

struct ParseOptions {
    std::string format = "auto";    // a format name, or "auto"
    std::vector<std::string> tags;  // keep only these series (source or canonical names); empty = all
    // Threads for one large file (DLLogger: 64 MiB and more, split at line ends; the result is
    // the sequential one, warnings included). 0 = one per core, at most 4; 1 = sequential.
    unsigned threads = 0;
    // Series (source or canonical names) of which only the point of the highest step is
    // kept: what a report needs of a series it shows only the final value of.
    std::vector<std::string> last_only;
    // Series (source or canonical names) of which only the points of steps in
    // [window_from, window_to] are kept: what a report needs of a series it only averages over
    // its step window (the framework's own TFLOPS and MFU), a few points instead of millions.
    std::vector<std::string> window_only;
    std::int64_t window_from = 0, window_to = 0;
    // DLLogger: also collect LogData::step_records in the same pass.
    bool step_records = false;
    // false: a DLLogger parser may leave Point::wall_time NaN instead of converting each
    // record's timestamp (a report reads no wall time). The values are still checked.
    bool wall_times = true;
    // Keep at most about this many points of a series in memory; the earlier ones go to an
    // unnamed temporary file in $TMPDIR (Series::spill), so output of a log larger than memory
    // takes constant memory. Files are then read on one thread. 0 = everything in memory.
    std::size_t spill_after = 0;
};

// One log format.
class LogParser {
public:
    virtual ~LogParser() = default;
    // Parses `path` (a file; a tensorboard parser also accepts a directory)
    // into `out`. Must not throw on bad content; throws RuntimeError only when
    // the file cannot be read at all.
    virtual void parse(const std::filesystem::path& path, const ParseOptions& options, LogData& out) = 0;
};

struct FormatInfo {
    std::string name;  // "dllogger", "tensorboard", "megatron", "nemo", "metaseq", "nccl-tests", "megatron-bridge", ...
    std::string description;  // one line, for `trainbench list formats` and --help
};
[[nodiscard]] const std::vector<FormatInfo>& formats();
[[nodiscard]] std::unique_ptr<LogParser> make_parser(std::string_view format);  // nullptr if unknown

// Detects the format from the file name and its first bytes; nullopt when unsure.
[[nodiscard]] std::optional<std::string> detect_format(const std::filesystem::path& path);

// The one format of `paths`, each file detected: throws UsageError for no paths, RuntimeError
// for a missing one, InputError for a compressed or undetectable file or files that disagree.
[[nodiscard]] std::string logs_format(const std::vector<std::filesystem::path>& paths);

// Parses one or more files (or tensorboard directories) of one format into
// one LogData; later files win on repeated steps. Format "auto" is logs_format(paths).
// Throws InputError for an unknown or undetectable format, RuntimeError for unreadable files.
[[nodiscard]] LogData parse_logs(const std::vector<std::filesystem::path>& paths, const ParseOptions& options = {});

}  // namespace trainbench::metrics
