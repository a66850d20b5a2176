// Job states: their names, the scheduler words they stand for, and the status-file fallback
// for a job the scheduler has forgotten (docs/runs.md).
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

}  // namespace trainbench::backend
