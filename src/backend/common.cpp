// The backends' shared helpers (common.hpp): text splitting, the stage's log files, and the
// process runner wrapper with timeouts and bounded exponential backoff.
#include "backend/common.hpp"

#include <trainbench/backend.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace fs = std::filesystem;

namespace trainbench::backend {

std::string first_line_of(const fs::path& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

std::vector<std::string> split(std::string_view s, char sep) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        std::size_t p = s.find(sep, start);
        parts.emplace_back(s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
        if (p == std::string_view::npos) break;
        start = p + 1;
    }
    return parts;
}

std::vector<std::string> lines_of(std::string_view s) {
    std::vector<std::string> out;
    for (std::string& l : split(s, '\n')) {
        std::string t(trim(l));
        if (!t.empty()) out.push_back(std::move(t));
    }
    return out;
}

std::string first_error_line(const ProcessResult& r) {
    if (r.timed_out)
        return "timed out: no answer within the command time limit (TRAINBENCH_SCHEDULER_TIMEOUT, default 60 s)";
    for (const std::string& l : lines_of(r.err)) return l;
    for (const std::string& l : lines_of(r.out)) return l;
    return fmt::format("exit code {}", r.exit_code);
}

std::vector<fs::path> stage_log_files(const JobQuery& job) {
    std::vector<fs::path> files;
    std::error_code ec;
    fs::path dir = job.run_dir / "logs" / job.stage;
    if (fs::is_directory(dir, ec))
        for (const auto& e : fs::recursive_directory_iterator(dir, ec))
            if (e.is_regular_file()) files.push_back(e.path());
    return files;
}

ProcessRequest command(std::vector<std::string> argv) {
    ProcessRequest r;
    r.argv = std::move(argv);
    return r;
}

Runner::Runner(const BackendOptions& options)
    : m_runner(options.runner), m_retry(options.retry), m_sleep(options.sleep), m_timeout(options.command_timeout) {
    if (!m_runner) throw std::logic_error("a backend needs a process runner (backend::make_backend)");
    if (!m_sleep) m_sleep = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
}

ProcessResult Runner::run(ProcessRequest request) const {
    if (!request.timeout) request.timeout = m_timeout;
    return m_runner->run(request);
}

ProcessResult Runner::run_with_retry(ProcessRequest request, const std::function<bool(const ProcessResult&)>& transient,
                                     const std::function<void()>& before_retry) const {
    if (!request.timeout) request.timeout = m_timeout;
    std::chrono::milliseconds delay = m_retry.initial_delay;
    int attempts = std::max(1, m_retry.attempts);
    for (int attempt = 1;; ++attempt) {
        ProcessResult r = m_runner->run(request);
        // A command that hung is tried again only where a check before the retry makes that safe
        // (a submission looks for its job first); a hung query would otherwise take attempts x timeout.
        bool retry = r.timed_out ? static_cast<bool>(before_retry) : transient(r);
        if (r.ok() || attempt >= attempts || !retry) return r;
        m_sleep(delay);
        delay = std::min(delay * 2, m_retry.max_delay);
        if (before_retry) before_retry();
    }
}

long Runner::start(const ProcessRequest& request, const DetachedOutput& output) const {
    return m_runner->start(request, output);
}

void Runner::sleep(std::chrono::milliseconds d) const {
    m_sleep(d);
}

}  // namespace trainbench::backend
