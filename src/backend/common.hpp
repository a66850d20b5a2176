// Private helpers shared by the backends: the status files a job script writes, text
// splitting, and a process runner wrapper with timeouts and bounded exponential backoff.
#pragma once

#include <trainbench/backend.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace trainbench::backend {

// The status files a job script writes (docs/runs.md): a status for a job the
// scheduler has forgotten. `job_id` is copied into the result.
[[nodiscard]] JobStatus status_from_files(const std::filesystem::path& run_dir, const std::string& stage,
                                          const std::string& job_id);

[[nodiscard]] std::string first_line_of(const std::filesystem::path& path);
[[nodiscard]] std::vector<std::string> split(std::string_view s, char sep);
// Non-empty, trimmed lines.
[[nodiscard]] std::vector<std::string> lines_of(std::string_view s);
// The first line of stderr (else stdout) of a failed command, for messages.
[[nodiscard]] std::string first_error_line(const ProcessResult& r);

// Every file below the stage's run_dir/logs/<stage>/ (in directory order).
[[nodiscard]] std::vector<std::filesystem::path> stage_log_files(const JobQuery& job);

// A request that only sets argv.
[[nodiscard]] ProcessRequest command(std::vector<std::string> argv);

class Runner {
public:
    explicit Runner(const BackendOptions& options);
    [[nodiscard]] ProcessResult run(ProcessRequest request) const;
    // Retries while `transient` says the failure is temporary (or the command
    // timed out), sleeping initial_delay, 2x, 4x ... up to max_delay between tries.
    // `before_retry` may throw to stop retrying (e.g. the job turned out to exist).
    [[nodiscard]] ProcessResult run_with_retry(ProcessRequest request,
                                               const std::function<bool(const ProcessResult&)>& transient,
                                               const std::function<void()>& before_retry = {}) const;
    // A detached process (ProcessRunner::start); returns its pid.
    [[nodiscard]] long start(const ProcessRequest& request, const DetachedOutput& output) const;
    void sleep(std::chrono::milliseconds d) const;

private:
    ProcessRunner* m_runner;
    RetryPolicy m_retry;
    std::function<void(std::chrono::milliseconds)> m_sleep;
    std::chrono::milliseconds m_timeout;
};

}  // namespace trainbench::backend
