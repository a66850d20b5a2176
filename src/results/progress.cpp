// Live progress: following a growing rank-0 log and turning what has arrived
// into a progress line (step n of N, step times, tokens/s, MFU so far, ETA).
#include <trainbench/metrics.hpp>
#include <trainbench/results.hpp>

#include <fmt/format.h>

#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace trainbench::results {

namespace {

// The length of the complete records at the start of `bytes`: whole TFRecords
// for TensorBoard (length, its CRC, data, data CRC), whole lines otherwise.
std::size_t complete_prefix(const std::string& bytes, const std::string& format) {
    if (format != "tensorboard") {
        const std::size_t nl = bytes.rfind('\n');
        return nl == std::string::npos ? 0 : nl + 1;
    }
    std::size_t at = 0;
    while (bytes.size() - at >= 12) {
        std::uint64_t len = 0;
        std::memcpy(&len, bytes.data() + at, sizeof len);  // little-endian on every platform we build for
        if (len > bytes.size() - at - 16) break;
        at += 16 + static_cast<std::size_t>(len);
    }
    return at;
}

std::string read_range(const fs::path& path, std::uint64_t from, std::uint64_t to) {
    std::string out(static_cast<std::size_t>(to - from), '\0');
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return {};
    const ssize_t n = ::pread(fd, out.data(), out.size(), static_cast<off_t>(from));
    ::close(fd);
    out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return out;
}

// Parses `bytes` with the format's parser through an anonymous in-memory file.
metrics::LogData parse_bytes(const std::string& bytes, const std::string& format) {
    metrics::LogData part;
    const int fd = ::memfd_create("trainbench-follow", MFD_CLOEXEC);
    if (fd < 0) throw RuntimeError(fmt::format("memfd_create failed: {}", std::strerror(errno)));
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
    }
    auto parser = metrics::make_parser(format);
    metrics::ParseOptions po;
    po.format = format;
    po.threads = 1;
    try {
        if (parser) parser->parse(fmt::format("/proc/self/fd/{}", fd), po, part);
    } catch (...) {
        ::close(fd);
        throw;
    }
    ::close(fd);
    return part;
}

}  // namespace

LogFollower::LogFollower(fs::path path, std::string format) : m_path(std::move(path)), m_format(std::move(format)) {}

bool LogFollower::poll() {
    std::error_code ec;
    const std::uint64_t size = fs::file_size(m_path, ec);
    if (ec) return false;   // not written yet
    if (size < m_offset) {  // truncated or replaced: start again
        m_offset = 0;
        m_data = {};
    }
    if (size == m_offset) return false;
    if (m_format.empty() || m_format == "auto") {
        const auto detected = metrics::detect_format(m_path);
        if (!detected) return false;
        m_format = *detected;
    }
    const std::string bytes = read_range(m_path, m_offset, size);
    const std::size_t complete = complete_prefix(bytes, m_format);
    if (complete == 0) return false;
    metrics::LogData part = parse_bytes(bytes.substr(0, complete), m_format);
    m_offset += complete;
    m_data.format = m_format;
    if (m_data.files.empty()) m_data.files.push_back(m_path);
    for (auto& [k, v] : part.parameters) m_data.parameters[k] = v;
    for (auto& [k, v] : part.summary) m_data.summary[k] = v;
    bool added = false;
    for (const auto& [name, series] : part.series)
        for (const metrics::Point& p : series.points) {
            m_data.add_point(name, series.source_name, p);
            added = true;
        }
    m_data.stats.records += part.stats.records;
    return added;
}

std::optional<Progress> progress_of(const metrics::LogData& log, const analysis::Inputs& in, std::int64_t total_steps,
                                    std::optional<double> expected_s, double drift_threshold) {
    const std::vector<analysis::StepSample> samples = analysis::step_samples(log);
    if (samples.empty()) return std::nullopt;
    Progress p;
    p.step = samples.back().step;
    p.total_steps = total_steps;
    p.current_s = samples.back().seconds;
    // The window so far; before it starts, every step after the first (which carries start-up).
    const bool in_window = p.step >= in.window.start;
    double sum = 0;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const analysis::StepSample& s = samples[i];
        const bool use =
            in_window ? (s.step >= in.window.start && s.step <= in.window.end) : (i > 0 || samples.size() == 1);
        if (use) sum += s.seconds, ++p.window_count;
    }
    p.window_s = p.window_count > 0 ? sum / static_cast<double>(p.window_count) : p.current_s;
    try {
        const analysis::FlopsConvention& conv = analysis::find_flops_convention(in.convention);
        analysis::FlopsInput fi;
        fi.model = in.model;
        fi.seq_length = in.seq_len;
        fi.tensor_parallel = in.tensor_parallel;
        analysis::PeakRequest pr;
        pr.convention = analysis::peak_convention(in.convention);
        pr.gpu_family = in.gpu_family;
        pr.precision = in.precision;
        pr.override_tflops = in.peak_override;
        pr.measured_tflops = log.parameter_number("peak_tflops_measured");
        if (in.catalog_gpu) pr.gpu = &*in.catalog_gpu;
        const analysis::Derived d =
            analysis::derive(p.window_s, conv.per_sample(fi).per_sample, in.global_batch, in.seq_len, in.gpus,
                             analysis::resolve_peak(pr).tflops, in.train_tokens);
        p.tokens_per_s = d.tokens_per_s;
        p.mfu = d.mfu;
    } catch (const Error&) {  // no model or peak yet: step times only
    }
    if (total_steps > 0) {
        const std::int64_t left = std::max<std::int64_t>(0, total_steps - (p.step - samples.front().step + 1));
        p.eta_s = static_cast<double>(left) * p.window_s;
    }
    if (expected_s && *expected_s > 0) {
        p.expected_s = expected_s;
        p.drift_relative = p.window_s / *expected_s - 1;
        p.drift = p.window_count >= 3 && std::abs(p.drift_relative) > drift_threshold;
    }
    return p;
}

std::string progress_line(const Progress& p) {
    std::string line =
        p.total_steps > 0 ? fmt::format("step {} of {}", p.step + 1, p.total_steps) : fmt::format("step {}", p.step);
    line += fmt::format(", step time {:.3f} s (window {:.3f} s over {})", p.current_s, p.window_s, p.window_count);
    if (p.tokens_per_s > 0) line += fmt::format(", {:.0f} tokens/s", p.tokens_per_s);
    if (p.mfu > 0) line += fmt::format(", MFU {:.2f}%", p.mfu * 100);
    if (p.total_steps > 0) line += fmt::format(", ETA {}", human_duration(p.eta_s));
    if (p.drift)
        line += fmt::format(" - {:+.1f}% from the expected {:.3f} s ({})", p.drift_relative * 100, *p.expected_s,
                            p.expected_origin);
    return line;
}

nlohmann::ordered_json progress_json(const Progress& p) {
    nlohmann::ordered_json j = {{"event", "progress"},
                                {"step", p.step},
                                {"total_steps", p.total_steps},
                                {"step_time_s", p.current_s},
                                {"window_step_time_s", p.window_s},
                                {"window_steps", p.window_count},
                                {"tokens_per_s", p.tokens_per_s},
                                {"mfu", p.mfu},
                                {"eta_s", p.eta_s}};
    if (p.expected_s) {
        j["expected_step_time_s"] = *p.expected_s;
        j["expected_from"] = p.expected_origin;
        j["drift"] = p.drift;
        j["drift_relative"] = p.drift_relative;
    }
    return j;
}

ImportReport import_runs(Store& store, const fs::path& runs_root, const Summariser& summarise) {
    ImportReport rep;
    std::error_code ec;
    if (!fs::is_directory(runs_root, ec))
        throw UsageError(fmt::format("'{}' is not a directory", runs_root.string()), "give a run store (runs/)");
    std::vector<fs::path> dirs;
    for (auto it = fs::recursive_directory_iterator(runs_root, ec); it != fs::recursive_directory_iterator(); ++it)
        if (it->is_directory() && fs::exists(it->path() / "run.json", ec)) {
            dirs.push_back(it->path());
            it.disable_recursion_pending();
        }
    std::sort(dirs.begin(), dirs.end());
    for (const fs::path& d : dirs) {
        check_interrupted();
        try {
            std::optional<Result> r = summarise(d);
            if (!r) continue;
            (store.record(*r) ? rep.recorded : rep.already) += 1;
        } catch (const InterruptedError&) {
            throw;
        } catch (const Error& e) {
            rep.skipped.push_back(fmt::format("{}: {}", d.string(), e.what()));
        }
    }
    return rep;
}

}  // namespace trainbench::results
