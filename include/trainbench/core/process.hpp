// core/process.hpp: every external program trainbench starts goes through
// ProcessRunner, always as an argv vector: nothing is ever passed through a
// shell string built from recipe values. Part of core's public header:
// include <trainbench/core.hpp>.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainbench {

struct ProcessRequest {
    std::vector<std::string> argv;
    std::map<std::string, std::string> env_set;  // added to (or replacing in) the inherited environment
    std::vector<std::string> env_unset;
    std::optional<std::filesystem::path> cwd;
    std::optional<std::string> stdin_data;
    std::optional<std::chrono::milliseconds> timeout;  // killed (SIGTERM then SIGKILL) after this
};

struct ProcessResult {
    int exit_code = -1;  // exit status, or 128+signal when killed by a signal
    bool timed_out = false;
    std::string out;
    std::string err;
    [[nodiscard]] bool ok() const { return exit_code == 0 && !timed_out; }
};

// Where a detached process (ProcessRunner::start) writes: its stdout and
// stderr are appended to these files (created 0644 when missing).
struct DetachedOutput {
    std::filesystem::path stdout_file;
    std::filesystem::path stderr_file;
};

// The seam for every external command (sbatch, squeue, kubectl, a local job
// script, ...). Tests use a fake that records requests and replays canned results.
class ProcessRunner {
public:
    virtual ~ProcessRunner() = default;
    // Runs to completion and captures stdout/stderr. Throws RuntimeError only
    // when the program cannot be started at all (e.g. not found on PATH).
    virtual ProcessResult run(const ProcessRequest& request) = 0;
    // Starts a process that outlives this one and returns its pid at once: the
    // leader of a new session and process group, stdin /dev/null, stdout and
    // stderr appended to `output`, in request.cwd, with no descriptor of this
    // process but 0-2 (it must not keep trainbench's lock files locked) and
    // default signal handling. request.stdin_data and request.timeout must be
    // unset. Throws RuntimeError when it cannot be started. The default throws:
    // a runner that cannot start detached processes says so.
    virtual long start(const ProcessRequest& request, const DetachedOutput& output);
};

// The real runner: fork/exec (posix_spawn), poll-based capture, timeouts.
[[nodiscard]] ProcessRunner& system_process_runner();
// True when `name` is an executable on PATH (or an absolute path that is).
[[nodiscard]] bool program_on_path(std::string_view name);

}  // namespace trainbench
