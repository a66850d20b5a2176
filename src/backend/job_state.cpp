// Job states, the status-file fallback and the backend table.
#include "backend/common.hpp"

#include <trainbench/backend.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;

namespace trainbench::backend {

std::string_view to_string(JobState state) {
    switch (state) {
        case JobState::unknown:
            return "UNKNOWN";
        case JobState::pending:
            return "PENDING";
        case JobState::running:
            return "RUNNING";
        case JobState::completed:
            return "COMPLETED";
        case JobState::failed:
            return "FAILED";
        case JobState::cancelled:
            return "CANCELLED";
        case JobState::timeout:
            return "TIMEOUT";
        case JobState::node_fail:
            return "NODE_FAIL";
        case JobState::out_of_memory:
            return "OUT_OF_MEMORY";
        case JobState::preempted:
            return "PREEMPTED";
    }
    return "UNKNOWN";
}

std::optional<JobState> parse_job_state(std::string_view text) {
    std::string word;
    for (char c : text) {
        if (c == ' ' || c == '+') break;  // "CANCELLED by 0", "RUNNING+"
        word += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    static const std::vector<std::pair<std::string_view, JobState>> words = {
        {"UNKNOWN", JobState::unknown},
        {"PENDING", JobState::pending},
        {"PD", JobState::pending},
        {"REQUEUED", JobState::pending},
        {"REQUEUE_HOLD", JobState::pending},
        {"REQUEUE_FED", JobState::pending},
        {"RESV_DEL_HOLD", JobState::pending},
        {"RUNNING", JobState::running},
        {"R", JobState::running},
        {"CONFIGURING", JobState::running},
        {"COMPLETING", JobState::running},
        {"SUSPENDED", JobState::running},
        {"STOPPED", JobState::running},
        {"RESIZING", JobState::running},
        {"SIGNALING", JobState::running},
        {"STAGE_OUT", JobState::running},
        {"COMPLETED", JobState::completed},
        {"CD", JobState::completed},
        {"FAILED", JobState::failed},
        {"F", JobState::failed},
        {"BOOT_FAIL", JobState::failed},
        {"DEADLINE", JobState::failed},
        {"SPECIAL_EXIT", JobState::failed},
        {"REVOKED", JobState::failed},
        {"CANCELLED", JobState::cancelled},
        {"CA", JobState::cancelled},
        {"TIMEOUT", JobState::timeout},
        {"TO", JobState::timeout},
        {"NODE_FAIL", JobState::node_fail},
        {"NF", JobState::node_fail},
        {"OUT_OF_MEMORY", JobState::out_of_memory},
        {"OOM", JobState::out_of_memory},
        {"PREEMPTED", JobState::preempted},
        {"PR", JobState::preempted},
    };
    for (const auto& [w, s] : words)
        if (w == word) return s;
    return std::nullopt;
}

bool is_final(JobState state) {
    switch (state) {
        case JobState::unknown:
        case JobState::pending:
        case JobState::running:
            return false;
        default:
            return true;
    }
}

JobStatus status_from_files(const fs::path& run_dir, const std::string& stage, const std::string& job_id) {
    JobStatus s;
    s.job_id = job_id;
    s.source = "status-file";
    fs::path started = run_dir / "status" / (stage + ".started");
    fs::path exited = run_dir / "status" / (stage + ".exit");
    std::error_code ec;
    if (fs::exists(started, ec)) {
        std::istringstream in(first_line_of(started));
        in >> s.started;
        std::string host;
        in >> host;
        s.nodes = host;
        s.state = JobState::running;
    }
    if (fs::exists(exited, ec)) {
        std::istringstream in(first_line_of(exited));
        int code = 0;
        if (in >> code) {
            s.exit_code = code;
            in >> s.ended;
            s.state = code == 0 ? JobState::completed : JobState::failed;
            if (code != 0) s.reason = fmt::format("exit code {}", code);
            std::string note;
            if (in >> note && note == "DependencyNeverSatisfied") {  // written by the local backend's chain wrapper
                s.state = JobState::cancelled;
                s.reason = note;
                s.exit_code.reset();
            }
        }
    }
    return s;
}

// ---------------------------------------------------------------- shared helpers

std::string first_line_of(const fs::path& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

std::string trim(std::string_view s) {
    std::size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return std::string(s.substr(b, e - b));
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
        std::string t = trim(l);
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
    : m_runner(options.runner ? options.runner : &system_process_runner()),
      m_retry(options.retry),
      m_sleep(options.sleep),
      m_timeout(options.command_timeout) {
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

// ---------------------------------------------------------------- the table

std::unique_ptr<Backend> make_slurm_backend(const BackendOptions& options);
std::unique_ptr<Backend> make_kubernetes_backend(const BackendOptions& options);
std::unique_ptr<Backend> make_local_backend(const BackendOptions& options);

const std::vector<BackendInfo>& backend_table() {
    static const std::vector<BackendInfo> table = {
        {"slurm", "sbatch/squeue/scontrol/sacct/scancel against the Slurm cluster of SLURM_CONF", make_slurm_backend},
        {"kubernetes", "kubectl apply/get/logs/delete against the current (or --context) cluster",
         make_kubernetes_backend},
        {"local", "the job script as a process group on this machine", make_local_backend},
    };
    return table;
}

std::unique_ptr<Backend> make_backend(std::string_view name, const BackendOptions& options) {
    std::vector<std::string> names;
    for (const BackendInfo& b : backend_table()) {
        if (name == b.name) return b.factory(options);
        names.emplace_back(b.name);
    }
    throw UsageError(fmt::format("unknown backend '{}' (known: {})", name, quoted_list(names, " and ")),
                     did_you_mean(name, names));
}

}  // namespace trainbench::backend
