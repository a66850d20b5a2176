// Megatron-Bridge training logs (train_utils.training_log, 2026): rank 0 prints
//   Step Time : 5.39s GPU utilization: 2347.0MODEL_TFLOP/s/GPU
// and the last rank then prints the Megatron-style line of the same iteration
//   [2026-08-22 10:00:00] iteration       10/      50 | consumed samples: ... |
//     elapsed time per iteration (ms): 5390.1 | throughput per GPU (TFLOP/s/GPU): 2347.0 | ... |
// A "Step Time" line belongs to the next iteration line; one with no iteration line after it
// (a rank-0 log alone) takes the step after the previous one. Series: step_time_s from
// "elapsed time per iteration (ms)" (else from "Step Time"), tflops_per_gpu from "GPU
// utilization" (else from "throughput per GPU"), tokens_per_s_per_gpu where a variant prints
// "tok/s/gpu", and every other iteration-line key under its own name, as in megatron.cpp.
#include "metrics/common.hpp"
#include "metrics/parsers.hpp"
#include "metrics/split.hpp"

#include <fmt/format.h>

#include <cstring>
#include <limits>
#include <optional>
#include <vector>

namespace trainbench::metrics::detail {

namespace {

constexpr std::string_view k_step_time = "Step Time (s)";
constexpr std::string_view k_gpu_util = "GPU utilization (MODEL_TFLOP/s/GPU)";
constexpr std::string_view k_iteration_tflops = "throughput per GPU (TFLOP/s/GPU)";
constexpr std::string_view k_tokens_gpu = "tok/s/gpu";

// canonical_names() without the iteration line's TFLOP/s/GPU: the Bridge's own "GPU
// utilization" (printed whenever the FLOPs are known) is the canonical one.
const std::vector<NameMapping>& bridge_names() {
    static const std::vector<NameMapping> table = [] {
        std::vector<NameMapping> t;
        for (const NameMapping& m : canonical_names())
            if (m.source != k_iteration_tflops) t.push_back(m);
        return t;
    }();
    return table;
}

// The values of a "Step Time" line.
struct StepLine {
    std::optional<double> seconds, tflops, tokens_per_gpu;
};

// The number at the start of `rest` (spaces, an optional ':', spaces), or nullopt.
std::optional<double> number_at(std::string_view rest) {
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    if (!rest.empty() && rest.front() == ':') rest.remove_prefix(1);
    return leading_number(rest);
}

// The number after `key` (spaces, an optional ':', spaces), or nullopt.
std::optional<double> number_after(std::string_view t, std::string_view key) {
    std::size_t pos = t.find(key);
    if (pos == std::string_view::npos) return std::nullopt;
    return number_at(t.substr(pos + key.size()));
}

// The number just before `unit` ("32680.36 tok/s/gpu"), or nullopt.
std::optional<double> number_before(std::string_view t, std::string_view unit) {
    std::size_t pos = t.find(unit);
    if (pos == std::string_view::npos) return std::nullopt;
    std::size_t end = pos;
    while (end > 0 && t[end - 1] == ' ') --end;
    std::size_t begin = end;
    while (begin > 0 && begin + 40 > end &&
           ((t[begin - 1] >= '0' && t[begin - 1] <= '9') || t[begin - 1] == '.' || t[begin - 1] == ','))
        --begin;
    if (begin == end) return std::nullopt;
    std::string digits;
    for (char c : t.substr(begin, end - begin))
        if (c != ',') digits.push_back(c);
    return to_number(digits);
}

std::optional<StepLine> step_line(std::string_view t) {
    std::size_t pos = t.find("Step Time");
    if (pos == std::string_view::npos) return std::nullopt;
    std::string_view rest = t.substr(pos);
    StepLine s;
    s.seconds = number_at(rest.substr(std::string_view("Step Time").size()));  // (rest starts so)
    s.tflops = number_after(rest, "GPU utilization");
    s.tokens_per_gpu = number_before(rest, k_tokens_gpu);
    if (!s.seconds && !s.tflops) return std::nullopt;
    return s;
}

// Renames series `from` to `to` when the log has no `to`.
void adopt(LogData& out, std::string_view from, std::string_view to) {
    if (out.series.count(std::string(to))) return;
    auto node = out.series.extract(std::string(from));
    if (node.empty()) return;
    node.key() = std::string(to);
    node.mapped().name = std::string(to);
    out.series.insert(std::move(node));
}

class BridgeParser {
public:
    BridgeParser(std::string_view label, const ParseOptions& options, LogData& out)
        : m_label(label), m_out(out), m_sink(out, options, bridge_names()) {}

    void run(Source& source) {
        m_lines = each_text_line(source, m_label, m_out,
                                 [&](const LineReader::Line& line, std::uint64_t) { this->line(line); });
        if (m_pending) m_order_dependent = true;  // its iteration line may be in the next part
        flush_pending(m_last_step + 1);
        m_sink.commit();
    }
    [[nodiscard]] std::uint64_t lines() const { return m_lines; }
    // A Step Time line took its step from lines before this input (a part of a file).
    [[nodiscard]] bool order_dependent() const { return m_order_dependent; }

private:
    void line(const LineReader::Line& line) {
        std::string_view t = line.text;
        ParseStats& st = m_out.stats;
        if (trim(t).empty()) return;
        if (auto s = step_line(t)) {
            if (!line.complete) {
                st.truncated_tail = true;
                warn(st, fmt::format("{}:{}: last line is incomplete (still being written?), ignored", m_label,
                                     line.number));
                return;
            }
            if (m_pending) {  // no iteration line in between: the step after the previous one
                if (!m_seen_iteration) m_order_dependent = true;
                flush_pending(m_last_step + 1);
            }
            m_pending = s;
            ++st.records;
            return;
        }
        IterationLine it = stage_iteration_line(t, line.complete, m_sink);
        if (!it.matched || it.fields == 0) {
            m_sink.discard();
            if (it.matched && !line.complete)
                st.truncated_tail = true;
            else
                ++st.skipped;
            return;
        }
        if (!line.complete) {
            st.truncated_tail = true;
            warn(st, fmt::format("{}:{}: last line is incomplete (still being written?)", m_label, line.number));
        }
        m_sink.commit();
        flush_pending(it.iteration, it.wall);
        m_last_step = it.iteration;
        m_seen_iteration = true;
        ++st.records;
    }

    void flush_pending(std::int64_t step, double wall = std::numeric_limits<double>::quiet_NaN()) {
        if (!m_pending) return;
        const StepLine& s = *m_pending;
        if (s.seconds) m_sink.add(m_step_time.get(m_sink), Point{step, *s.seconds, wall});
        if (s.tflops) m_sink.add(m_gpu_util.get(m_sink), Point{step, *s.tflops, wall});
        if (s.tokens_per_gpu) m_sink.add(m_tokens_gpu.get(m_sink), Point{step, *s.tokens_per_gpu, wall});
        m_pending.reset();
        m_last_step = step;
    }

    // A series of the Step Time line, resolved at its first value (Series* stay valid).
    struct Named {
        std::string_view name, source;
        bool resolved = false;
        Series* series = nullptr;
        Series* get(SeriesSink& sink) {
            if (!resolved) {
                series = sink.resolve_as(name, source);
                resolved = true;
            }
            return series;
        }
    };

    std::string_view m_label;
    LogData& m_out;
    SeriesSink m_sink;
    Named m_step_time{k_step_time, "Step Time"}, m_gpu_util{names::tflops_per_gpu, k_gpu_util},
        m_tokens_gpu{"tokens_per_s_per_gpu", k_tokens_gpu};
    std::optional<StepLine> m_pending;
    std::int64_t m_last_step = 0;
    bool m_seen_iteration = false, m_order_dependent = false;
    std::uint64_t m_lines = 0;
};

// The series names that depend on the whole log: the Bridge's Step Time and the iteration
// line's TFLOPS become the canonical series when nothing better is there.
void finish(LogData& out) {
    adopt(out, k_step_time, names::step_time_s);
    adopt(out, k_iteration_tflops, names::tflops_per_gpu);
}

bool iteration_line(std::string_view line) {
    return line.find("iteration") != std::string_view::npos && line.find(" | ") != std::string_view::npos &&
           line.find("Step Time") == std::string_view::npos;
}

// A cut for a parallel parse: the start of the line after the next iteration line, so that
// no part starts between a Step Time line and the iteration line it belongs to.
std::uint64_t after_iteration_line(const FileSource& file, std::uint64_t from, std::uint64_t size) {
    return first_cut_in_lines(file, from, size, [](std::string_view line, std::uint64_t, std::uint64_t next) {
        return iteration_line(line) ? next : 0;
    });
}

void parse_bridge_part(Source& source, std::string_view label, const ParseOptions& options, LinePart& part) {
    BridgeParser parser(label, options, part.data);
    parser.run(source);
    part.lines = parser.lines();
    part.order_dependent = parser.order_dependent();
}

}  // namespace

void parse_megatron_bridge(Source& source, std::string_view label, const ParseOptions& options, LogData& out) {
    BridgeParser parser(label, options, out);
    parser.run(source);
    finish(out);
}

bool parse_megatron_bridge_split(const std::filesystem::path& path, std::string_view label, const ParseOptions& options,
                                 LogData& out, const SplitPolicy& policy) {
    if (!parse_split(path, label, options, out, parse_bridge_part, after_iteration_line, policy)) return false;
    finish(out);
    return true;
}

void parse_megatron_bridge_file(const std::filesystem::path& path, std::string_view label, const ParseOptions& options,
                                LogData& out, const SplitPolicy& policy) {
    if (!parse_split(path, label, options, out, parse_bridge_part, after_iteration_line, policy)) {
        FileSource source(path);
        BridgeParser parser(label, options, out);
        parser.run(source);
    }
    finish(out);
}

}  // namespace trainbench::metrics::detail
