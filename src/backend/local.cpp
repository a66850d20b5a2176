// The local backend: the rendered job script runs on this machine as the
// leader of its own session and process group (setsid), with stdout/stderr
// in run_dir/logs/<stage>/. The job id is the leader's pid. Status comes
// from the status files the script writes and from whether the group still
// has a live process; cancel ends the group (SIGTERM, then SIGKILL).
#include "backend/common.hpp"

#include <trainbench/backend.hpp>

#include <fmt/format.h>

#include <csignal>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace trainbench::backend {

namespace {

// A chained stage: waits for the previous stage's exit file (or for its
// process group to vanish), then runs its own script when the dependency
// allows. A constant script; every value arrives as a positional argument.
constexpr const char* k_chain_script = R"sh(exit_file=$1; prev_pid=$2; dependency=$3; own_exit=$4; shift 4
never() { echo "trainbench: dependency never satisfied: $1" >&2
  echo "254 $(date -u +%Y-%m-%dT%H:%M:%SZ) DependencyNeverSatisfied" > "$own_exit"; exit 254; }
while [ ! -s "$exit_file" ]; do
  if ! kill -0 "-$prev_pid" 2>/dev/null; then
    [ -s "$exit_file" ] && break
    never "the previous stage (pid $prev_pid) ended without writing $exit_file"
  fi
  sleep 1
done
read -r code _ < "$exit_file"
case $dependency in
  afterok) [ "$code" = 0 ] || never "the previous stage exited $code" ;;
  afternotok) [ "$code" != 0 ] || never "the previous stage succeeded" ;;
esac
exec "$@"
)sh";

struct ProcInfo {
    bool exists = false;
    char state = '?';
    long pgrp = 0;
};

ProcInfo read_proc(long pid) {
    ProcInfo info;
    std::ifstream in(fmt::format("/proc/{}/stat", pid));
    std::string text;
    if (!std::getline(in, text)) return info;
    // "pid (comm) S ppid pgrp ..." where comm may hold spaces and parentheses.
    std::size_t close = text.rfind(')');
    if (close == std::string::npos || close + 2 >= text.size()) return info;
    info.exists = true;
    info.state = text[close + 2];
    std::istringstream rest(text.substr(close + 3));
    long ppid = 0;
    rest >> ppid >> info.pgrp;
    return info;
}

bool is_live(const ProcInfo& p) {
    return p.exists && p.state != 'Z' && p.state != 'X';
}

// True when any non-zombie process is in process group `pgid`.
bool group_alive(long pgid) {
    if (is_live(read_proc(pgid))) return true;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/proc", ec)) {
        const std::string name = e.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
        ProcInfo p = read_proc(std::stol(name));
        if (p.pgrp == pgid && is_live(p)) return true;
    }
    return false;
}

// The same directory, however each path reaches it (a symlinked store, "." entered through a
// link, a relative path): compared as files (device and inode), never as strings.
bool same_directory(const fs::path& a, const fs::path& b) {
    std::error_code ec;
    const bool same = fs::equivalent(a, b, ec);
    if (!ec) return same;
    // (one of them is gone: the resolved paths decide)
    return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
}

// The process really is this run's job (not a recycled pid): its
// environment names the run directory.
bool belongs_to_run(long pid, const fs::path& run_dir) {
    std::string env;
    try {
        env = read_file(fmt::format("/proc/{}/environ", pid));
    } catch (const RuntimeError&) {
        return true;  // unreadable (another user): trust the pid
    }
    if (env.empty()) return true;  // a zombie or a kernel thread: decided elsewhere
    constexpr std::string_view k_var = "TRAINBENCH_RUN_DIR=";
    for (const std::string& entry : split(env, '\0'))
        if (entry.rfind(k_var, 0) == 0) return same_directory(entry.substr(k_var.size()), run_dir);
    return false;
}

std::optional<long> parse_pid(const std::string& job_id) {
    if (job_id.empty() || job_id.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return std::stol(job_id);
}

class LocalBackend final : public Backend {
public:
    explicit LocalBackend(const BackendOptions& options) : m_run(options) {}

    std::string_view name() const override { return "local"; }

    SubmitResult submit(const SubmitRequest& request) override {
        fs::path logs = request.run_dir / "logs" / request.stage;
        std::error_code ec;
        fs::create_directories(logs, ec);
        fs::create_directories(request.run_dir / "status", ec);
        fs::path script = request.stage_dir / request.entrypoint;
        if (!fs::exists(script, ec)) throw RuntimeError(fmt::format("no job script '{}'", script.string()));

        std::vector<std::string> args;
        if (request.depends_on) {
            args = {"/bin/sh",
                    "-c",
                    k_chain_script,
                    "trainbench-chain",
                    (request.run_dir / "status" / (request.previous_stage + ".exit")).string(),
                    *request.depends_on,
                    request.dependency,
                    (request.run_dir / "status" / (request.stage + ".exit")).string()};
        }
        if (::access(script.c_str(), X_OK) == 0) {
            args.push_back(script.string());
        } else {
            args.emplace_back("/bin/bash");
            args.push_back(script.string());
        }

        // Detached, in its own session, stdin /dev/null, output appended to the stage's logs.
        ProcessRequest job;
        job.argv = std::move(args);
        job.env_set = request.env;
        job.cwd = request.run_dir;
        long pid = m_run.start(job, {logs / "stdout.log", logs / "stderr.log"});
        return {std::to_string(pid), fmt::format("process group {}", pid)};
    }

    std::vector<JobStatus> status(const std::vector<JobQuery>& jobs) override {
        std::vector<JobStatus> result;
        for (const JobQuery& q : jobs) result.push_back(status_of(q));
        return result;
    }

    void cancel(const std::vector<JobQuery>& jobs) override {
        std::vector<long> groups;
        for (const JobQuery& q : jobs) {
            std::optional<long> pid = parse_pid(q.job_id);
            if (pid && group_alive(*pid) && belongs_to_run(*pid, q.run_dir)) groups.push_back(*pid);
        }
        for (long g : groups) ::kill(static_cast<pid_t>(-g), SIGTERM);
        for (int i = 0; i < 50; ++i) {  // up to 5 s for a clean exit
            for (long g : groups) reap(g);
            bool any = false;
            for (long g : groups) any = any || group_alive(g);
            if (!any) return;
            m_run.sleep(std::chrono::milliseconds(100));
        }
        for (long g : groups) ::kill(static_cast<pid_t>(-g), SIGKILL);
        m_run.sleep(std::chrono::milliseconds(100));
        for (long g : groups) reap(g);
    }

    std::vector<fs::path> logs(const JobQuery& job) override {
        std::vector<fs::path> files = stage_log_files(job);
        std::sort(files.begin(), files.end());
        return files;
    }

    std::vector<FoundJob> find_jobs(const std::string& job_name, const JobQuery& job) override {
        // The job script records its pid in status/<stage>.started: a job whose
        // submitter died before journaling it is found there.
        std::istringstream in(first_line_of(job.run_dir / "status" / (job.stage + ".started")));
        std::string when, host, id;
        in >> when >> host >> id;
        if (parse_pid(id)) return {{id, job_name}};
        return {};
    }

private:
    // Collects the exit status of jobs that are children of this process
    // (submit and wait in one process, as `run` does); others end as orphans.
    static std::map<long, int>& exit_codes() {
        static std::map<long, int> codes;
        return codes;
    }

    static void reap(long pid) {
        int st = 0;
        if (::waitpid(static_cast<pid_t>(pid), &st, WNOHANG) == static_cast<pid_t>(pid))
            exit_codes()[pid] = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }

    JobStatus status_of(const JobQuery& q) {
        std::optional<long> pid = parse_pid(q.job_id);
        if (pid) reap(*pid);
        JobStatus files = status_from_files(q.run_dir, q.stage, q.job_id);
        if (is_final(files.state)) return files;
        if (pid && group_alive(*pid) && belongs_to_run(*pid, q.run_dir)) {
            JobStatus s = files;
            s.source = "process";
            // Alive but no .started yet: a chained stage waiting for its dependency.
            s.state = files.state == JobState::running ? JobState::running : JobState::pending;
            // (no reason: a chained stage waiting for its dependency looks the same)
            return s;
        }
        // The group is gone and the script wrote no exit status.
        JobStatus s = files;
        s.source = "process";
        s.state = JobState::failed;
        if (pid && exit_codes().count(*pid)) {
            s.exit_code = exit_codes()[*pid];
            s.reason = fmt::format("exit code {}", *s.exit_code);
        } else {
            s.reason = "process ended without writing its exit status";
        }
        return s;
    }

    Runner m_run;
};

}  // namespace

std::unique_ptr<Backend> make_local_backend(const BackendOptions& options) {
    return std::make_unique<LocalBackend>(options);
}

}  // namespace trainbench::backend
