// The format table, detection from content and file name, and parse_logs.
#include "metrics/common.hpp"
#include "metrics/crc32c.hpp"
#include "metrics/parsers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <fstream>
#include <functional>

namespace fs = std::filesystem;

namespace trainbench::metrics {

namespace {

struct FormatRow {
    FormatInfo info;
    detail::StreamParseFn parse;
    std::vector<std::string_view> aliases;
    detail::FileParseFn parse_file = nullptr;  // a whole-file parser (threads for large files)
};

const std::vector<FormatRow>& format_rows() {
    static const std::vector<FormatRow> rows = {
        {{"dllogger", "NVIDIA DLLogger JSON lines ('DLLL {...}' or plain JSON): NeMo 1.x dllogger.json"},
         detail::parse_dllogger,
         {"dllogger.json", "dlll"},
         detail::parse_dllogger_file},
        {{"tensorboard", "TensorBoard event files (events.out.tfevents.*), a file or a directory of them"},
         detail::parse_tensorboard,
         {"tfevents", "tb"},
         detail::parse_tensorboard_file},
        {{"megatron", "Megatron-LM stdout iteration lines ('iteration i/N | ... |')"},
         detail::parse_megatron,
         {"megatron-lm"}},
        {{"nemo", "NeMo 2 progress lines ('Training epoch E, iteration n/N | ...') and NeMo 1 / Lightning tqdm bars"},
         detail::parse_nemo,
         {"lightning", "tqdm"}},
        {{"metaseq", "fairseq / metaseq train_inner lines (--log-format json or simple)"},
         detail::parse_metaseq,
         {"fairseq"}},
        {{"nccl-tests", "nccl-tests output (all_reduce_perf, ...): per-size rows and the average bus bandwidth"},
         detail::parse_nccl_tests,
         {"nccl", "nccl_tests"}},
        {{"megatron-bridge",
          "Megatron-Bridge stdout: 'Step Time : ...s GPU utilization: ...MODEL_TFLOP/s/GPU' and its iteration lines"},
         detail::parse_megatron_bridge,
         {"bridge", "megatron_bridge"},
         detail::parse_megatron_bridge_file},
        {{"torchtitan", "TorchTitan step lines ('step: N  loss: ...  tps: ...  tflops: ...  mfu: ...%')"},
         detail::parse_torchtitan,
         {"titan"},
         detail::parse_torchtitan_file},
        {{"mlperf", "MLPerf Training ':::MLLOG {json}' event lines: run start/stop (time to train), blocks, stats"},
         detail::parse_mlperf,
         {"mllog"},
         detail::parse_mlperf_file},
    };
    return rows;
}

const FormatRow* find_row(std::string_view name) {
    for (const FormatRow& r : format_rows()) {
        if (r.info.name == name) return &r;
        for (std::string_view a : r.aliases)
            if (a == name) return &r;
    }
    return nullptr;
}

std::vector<std::string> format_names() {
    std::vector<std::string> names;
    for (const FormatRow& r : format_rows()) names.push_back(r.info.name);
    return names;
}

// Series that a parser named but never filled (a line dropped after its
// names were resolved) are not part of the result.
void drop_empty_series(LogData& out) {
    std::erase_if(out.series, [](const auto& kv) { return kv.second.points.empty(); });
}

class StreamLogParser : public LogParser {
public:
    StreamLogParser(std::string name, detail::StreamParseFn fn, detail::FileParseFn file_fn)
        : m_name(std::move(name)), m_fn(fn), m_file_fn(file_fn) {}

    void parse(const fs::path& path, const ParseOptions& options, LogData& out) override {
        std::error_code ec;
        if (m_name == "tensorboard" && fs::is_directory(path, ec)) {
            auto files = detail::tensorboard_files(path);
            if (files.empty())
                throw RuntimeError(fmt::format("no TensorBoard event files under '{}'", path.string()),
                                   "event files are named events.out.tfevents.*");
            for (const fs::path& f : files) parse_file(f, options, out);
        } else {
            parse_file(path, options, out);
        }
        drop_empty_series(out);
    }

private:
    void parse_file(const fs::path& path, const ParseOptions& options, LogData& out) {
        if (m_file_fn) {
            m_file_fn(path, path.string(), options, out, detail::SplitPolicy{});
        } else {
            detail::FileSource source(path);
            m_fn(source, path.string(), options, out);
        }
        out.files.push_back(path);
    }

    std::string m_name;
    detail::StreamParseFn m_fn;
    detail::FileParseFn m_file_fn;
};

bool contains(std::string_view s, std::string_view what) {
    return s.find(what) != std::string_view::npos;
}

// A substring looked for in every line of a log's head: Boyer-Moore-Horspool, whose skip
// table (an array for chars) is built once, steps over most of a line that has no match,
// where find stops at every occurrence of the first character.
class Needle {
public:
    explicit Needle(std::string_view text) : m_search(text.begin(), text.end()) {}
    [[nodiscard]] bool in(std::string_view s) const { return std::search(s.begin(), s.end(), m_search) != s.end(); }

private:
    std::boyer_moore_horspool_searcher<std::string_view::const_iterator> m_search;
};

// The position of the first '\r' or '\n' at or after `pos`, or the end: a memchr for the
// '\n', then one for a '\r' before it (find_first_of would call memchr per character).
std::size_t line_end(std::string_view s, std::size_t pos) {
    if (pos >= s.size()) return s.size();
    const char* first = s.data() + pos;
    const auto* nl = static_cast<const char*>(std::memchr(first, '\n', s.size() - pos));
    const std::size_t end = nl ? static_cast<std::size_t>(nl - s.data()) : s.size();
    const auto* cr = static_cast<const char*>(std::memchr(first, '\r', end - pos));
    return cr ? static_cast<std::size_t>(cr - s.data()) : end;
}

}  // namespace

namespace detail {

StreamParseFn stream_parser(std::string_view format) {
    const FormatRow* r = find_row(format);
    return r ? r->parse : nullptr;
}

void parse_buffer(std::string_view format, std::string_view data, const ParseOptions& options, LogData& out,
                  std::size_t chunk) {
    StreamParseFn fn = stream_parser(format);
    if (!fn) throw InputError(fmt::format("unknown log format '{}'", format));
    MemorySource source(data, chunk);
    fn(source, "<memory>", options, out);
    drop_empty_series(out);
    out.format = find_row(format)->info.name;
}

namespace {

constexpr std::array<std::string_view, 8> k_scored = {"dllogger", "nccl-tests", "metaseq",         "nemo",
                                                      "megatron", "mlperf",     "megatron-bridge", "torchtitan"};

bool tfrecord_header(std::string_view head) {
    if (head.size() < 12) return false;
    const auto* h = reinterpret_cast<const unsigned char*>(head.data());
    return masked_crc32c(h, 8) == load_u32(h + 8);
}

// The evidence for each format of k_scored in `head`, line by line.
std::array<int, 8> score_content(std::string_view head) {
    // The evidence, its needles built once.
    struct Evidence {
        Needle step{"\"step\""}, data{"\"data\""};
        Needle n_thread{"# nThread"}, avg_bus{"Avg bus bandwidth"}, nccl_version{"nccl-tests version"},
            collective{"Collective test starting"}, out_of_place{"out-of-place"}, in_place{"in-place"};
        Needle train_inner{"| train_inner |"}, valid{"| valid | {"}, train{"| train | {"}, bar_epoch{"| epoch "},
            slash{" / "}, loss_eq{"loss="};
        Needle training_epoch{"Training epoch "}, comma_iteration{", iteration "}, tqdm_bar{"%|"}, epoch{"Epoch "},
            reduced_loss{"reduced_train_loss"}, step_timing{"train_step_timing"}, global_step{"global_step"};
        Needle iteration{"iteration"}, elapsed{"elapsed time per iteration"}, consumed{"consumed samples"};
        Needle mllog{":::MLLOG"}, step_time{"Step Time :"}, model_tflop{"MODEL_TFLOP/s/GPU"}, titan_step{"step:"},
            titan_tflops{"tflops:"}, titan_mfu{"mfu:"}, titan_tps{"tps:"};
    };
    static const Evidence e;
    // Count evidence line by line ('\r' separates tqdm updates).
    std::array<int, 8> score{};  // in k_scored's order
    std::size_t pos = 0;
    int lines = 0;
    while (pos < head.size() && lines < 200000) {
        std::size_t end = line_end(head, pos);
        std::string_view line = head.substr(pos, end - pos);
        pos = end + 1;
        ++lines;
        std::string_view t = trim(strip_kubectl_prefix(line));
        if (t.empty()) continue;
        if (starts_with(t, "DLLL {") || starts_with(t, "DLLL{"))
            score[0] += 3;
        else if (t.front() == '{' && e.step.in(t) && e.data.in(t))
            score[0] += 2;
        // (needles with a '|' or a '#' need one in the line: one memchr instead of a search each)
        const bool bar = t.find('|') != std::string_view::npos, hash = t.find('#') != std::string_view::npos;
        if ((hash && e.n_thread.in(t)) || e.avg_bus.in(t) || e.nccl_version.in(t) || e.collective.in(t) ||
            (e.out_of_place.in(t) && e.in_place.in(t)))
            score[1] += 3;
        if (bar && (e.train_inner.in(t) || e.valid.in(t) || e.train.in(t)))
            score[2] += 3;
        else if (bar && e.bar_epoch.in(t) && e.slash.in(t) && e.loss_eq.in(t))
            score[2] += 2;
        if (e.training_epoch.in(t) && e.comma_iteration.in(t))
            score[3] += 3;
        else if (bar && e.tqdm_bar.in(t) && e.epoch.in(t) &&
                 (e.reduced_loss.in(t) || e.step_timing.in(t) || e.global_step.in(t)))
            score[3] += 3;
        if (e.iteration.in(t) && (e.elapsed.in(t) || e.consumed.in(t))) score[4] += 3;
        if (e.mllog.in(t)) score[5] += 3;
        // (a Bridge log also holds Megatron iteration lines: its own line outscores them)
        if (e.model_tflop.in(t) || e.step_time.in(t)) score[6] += 4;
        if (e.titan_step.in(t) && (e.titan_tflops.in(t) || e.titan_mfu.in(t) || e.titan_tps.in(t))) score[7] += 3;
    }
    return score;
}

}  // namespace

std::optional<std::string> detect_from_content(std::string_view file_name, std::string_view head) {
    if (file_name.find("tfevents") != std::string_view::npos || tfrecord_header(head)) return "tensorboard";
    const std::array<int, 8> score = score_content(head);
    std::size_t best = 0;
    for (std::size_t i = 1; i < score.size(); ++i)
        if (score[i] > score[best]) best = i;
    if (score[best] > 0) return std::string(k_scored[best]);
    // Nothing conclusive in the content: the file name.
    std::string lower(file_name);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (contains(lower, "dllogger")) return "dllogger";
    if (contains(lower, "nccl") || contains(lower, "_perf")) return "nccl-tests";
    return std::nullopt;
}

std::optional<std::string> detect_decisively(std::string_view head) {
    if (tfrecord_header(head)) return "tensorboard";
    const std::array<int, 8> score = score_content(head);
    std::optional<std::string> found;
    for (std::size_t i = 0; i < score.size(); ++i) {
        if (score[i] == 0) continue;
        if (found || score[i] < 6) return std::nullopt;  // two formats, or under two lines of evidence
        found = std::string(k_scored[i]);
    }
    return found;
}

}  // namespace detail

const std::vector<FormatInfo>& formats() {
    static const std::vector<FormatInfo> infos = [] {
        std::vector<FormatInfo> v;
        for (const FormatRow& r : format_rows()) v.push_back(r.info);
        return v;
    }();
    return infos;
}

std::unique_ptr<LogParser> make_parser(std::string_view format) {
    const FormatRow* r = find_row(format);
    if (!r) return nullptr;
    return std::make_unique<StreamLogParser>(r->info.name, r->parse, r->parse_file);
}

std::optional<std::string> detect_format(const fs::path& path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        if (!detail::tensorboard_files(path).empty()) return "tensorboard";
        return std::nullopt;
    }
    std::string name = path.filename().string();
    if (name.find("tfevents") != std::string::npos) return "tensorboard";
    detail::FileSource source(path);
    // Reads up to `want` more bytes into `buf`; false at the end of the file.
    auto fill = [&source](std::string& buf, std::size_t want) {
        const std::size_t start = buf.size();
        buf.resize(start + want);
        std::size_t got = 0;
        while (got < want) {
            std::size_t n = source.read(buf.data() + start + got, want - got);
            if (n == 0) break;
            got += n;
        }
        buf.resize(start + got);
        return got == want;
    };
    // The first 64 KiB decide when they hold evidence of one format only, from two lines at
    // least (nearly every log: its first lines are of its format), without scoring a whole MiB
    // before a report can start. Otherwise the first MiB, then up to 8 MiB: Megatron and NeMo
    // print long preambles before the first step.
    constexpr std::size_t k_first = 64 << 10, k_chunk = 1 << 20;
    std::string head;
    if (!fill(head, k_first)) return detail::detect_from_content(name, head);
    if (auto f = detail::detect_decisively(head)) return f;
    bool full = fill(head, k_chunk - k_first);
    if (auto f = detail::detect_from_content(name, head)) return f;
    std::string more;
    for (int i = 1; i < 8 && full; ++i) {
        more.clear();
        full = fill(more, k_chunk);
        if (auto f = detail::detect_from_content("", more)) {
            if (*f != "tensorboard") return f;  // a CRC match mid-file is chance, not a format
        }
    }
    return std::nullopt;
}

namespace {
// A compressed log is refused by name instead of being parsed as noise.
void check_not_compressed(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    char magic[6] = {};
    if (!in.read(magic, sizeof magic)) return;
    std::string_view m(magic, sizeof magic);
    const char* kind = m.substr(0, 2) == "\x1f\x8b"                                ? "gzip"
                       : m.substr(0, 4) == std::string_view("\x28\xb5\x2f\xfd", 4) ? "zstd"
                       : m == std::string_view(
                                  "\xfd"
                                  "7zXZ\0",
                                  6)
                           ? "xz"
                       : m.substr(0, 3) == "BZh" && m[3] >= '1' && m[3] <= '9' ? "bzip2"
                                                                               : nullptr;
    if (kind)
        throw InputError(fmt::format("'{}' is {}-compressed; trainbench reads uncompressed logs", path.string(), kind),
                         fmt::format("decompress it first, e.g. {} -dk '{}'", kind, path.string()));
}

// What every parse refuses before reading: no paths, a compressed file.
void check_inputs(const std::vector<fs::path>& paths) {
    if (paths.empty()) throw UsageError("no log files given", "name one or more log files or directories");
    for (const fs::path& p : paths) {
        std::error_code ec;
        if (fs::is_regular_file(p, ec)) check_not_compressed(p);
    }
}
}  // namespace

std::string logs_format(const std::vector<fs::path>& paths) {
    check_inputs(paths);
    std::optional<std::string> first;
    fs::path first_path;
    for (const fs::path& p : paths) {
        std::error_code ec;
        if (!fs::exists(p, ec))
            throw RuntimeError(fmt::format("cannot open '{}': no such file or directory", p.string()));
        auto f = detect_format(p);
        if (!f)
            throw InputError(fmt::format("cannot tell the log format of '{}'", p.string()),
                             "name it with --format " + quoted_list(format_names()));
        if (first && *first != *f)
            throw InputError(
                fmt::format("'{}' looks like {} but '{}' looks like {}", first_path.string(), *first, p.string(), *f),
                "parse files of one format at a time, or force one with --format");
        if (!first) {
            first = f;
            first_path = p;
        }
    }
    return *first;
}

LogData parse_logs(const std::vector<fs::path>& paths, const ParseOptions& options) {
    std::string format = options.format.empty() ? std::string("auto") : options.format;
    if (format == "auto")
        format = logs_format(paths);
    else
        check_inputs(paths);
    const FormatRow* r = find_row(format);
    if (!r)
        throw InputError(fmt::format("unknown log format '{}'", format), [&] {
            std::string hint = did_you_mean(format, format_names());
            return hint.empty() ? "known formats: " + quoted_list(format_names()) : hint;
        }());
    format = r->info.name;
    LogData out;
    out.format = format;
    auto parser = make_parser(format);
    for (const fs::path& p : paths) parser->parse(p, options, out);
    return out;
}

}  // namespace trainbench::metrics
