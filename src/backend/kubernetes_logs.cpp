// The Kubernetes backend's log collection: rank 0's training container log streamed into
// the run directory a piece at a time (`kubectl logs --timestamps --since-time`, only the
// lines not yet written), and the files the launch script put into that log written back
// where metrics.path expects them. The pods and their logs vanish with the Job
// (ttlSecondsAfterFinished); what was streamed stays.
#include "backend/kubernetes_logs.hpp"

#include "backend/parsers.hpp"

#include <trainbench/core.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace trainbench::backend {

namespace kubernetes {

namespace {

// kubelet's --timestamps format: RFC 3339 with nanoseconds, fixed width (so the strings
// order like the times), then one space.
constexpr std::size_t k_stamp = 30;  // "2025-01-01T00:00:00.000000000Z"

bool stamped(std::string_view line) {
    return line.size() > k_stamp && line[k_stamp] == ' ' && line[4] == '-' && line[10] == 'T' &&
           line[k_stamp - 1] == 'Z';
}

bool safe_log_path(std::string_view rel) {
    return rel.rfind("logs/", 0) == 0 && rel.find("..") == std::string_view::npos &&
           rel.find('\\') == std::string_view::npos && rel.back() != '/';
}

}  // namespace

std::string new_log_text(std::string_view timestamped, LogCursor& cursor) {
    std::string out;
    long same = 0;  // lines seen in this answer with the cursor's own timestamp
    std::size_t pos = 0;
    while (pos < timestamped.size()) {
        std::size_t nl = timestamped.find('\n', pos);
        if (nl == std::string_view::npos) break;  // a line still being written: next time
        std::string_view line = timestamped.substr(pos, nl - pos);
        pos = nl + 1;
        if (!stamped(line)) continue;
        std::string_view ts = line.substr(0, k_stamp);
        if (!cursor.timestamp.empty()) {
            if (ts < cursor.timestamp) continue;
            if (ts == cursor.timestamp && ++same <= cursor.same) continue;
        }
        if (ts == cursor.timestamp) {
            ++cursor.same;
        } else {
            cursor.timestamp = std::string(ts);
            cursor.same = 1;
            same = 1;
        }
        out.append(line.substr(k_stamp + 1));
        out.push_back('\n');
    }
    return out;
}

std::optional<std::string> stdout_file_in_log(std::string_view log) {
    static constexpr std::string_view begin = "==> trainbench stdout: ";
    static constexpr std::string_view end = " <==";
    std::size_t at = log.find(begin);
    if (at == std::string_view::npos || (at > 0 && log[at - 1] != '\n')) return std::nullopt;
    std::string_view line = log.substr(at, log.find('\n', at) - at);
    if (line.size() <= begin.size() + end.size() || line.substr(line.size() - end.size()) != end) return std::nullopt;
    std::string_view rel = line.substr(begin.size(), line.size() - begin.size() - end.size());
    if (!safe_log_path(rel)) return std::nullopt;
    return std::string(rel);
}

}  // namespace kubernetes

namespace {

kubernetes::LogCursor read_cursor(const fs::path& path) {
    kubernetes::LogCursor c;
    std::error_code ec;
    if (!fs::exists(path, ec)) return c;
    nlohmann::json j = nlohmann::json::parse(read_file(path), nullptr, false);
    if (j.is_object() && j.value("timestamp", nlohmann::json()).is_string() &&
        j.value("same", nlohmann::json()).is_number_integer()) {
        c.timestamp = j["timestamp"].get<std::string>();
        c.same = j["same"].get<long>();
    }
    return c;
}

}  // namespace

bool follow_training_log(const Runner& run, std::vector<std::string> argv, const JobQuery& job) {
    const fs::path dir = job.run_dir / "logs" / job.stage;
    std::error_code ec;
    fs::create_directories(dir, ec);
    const fs::path cursor_file = dir / ".training-0.cursor";
    // `wait` and `logs` may follow the same log at once (core's lock: never through a link)
    const FileLock lock = FileLock::lock(dir / ".training-0.lock");
    kubernetes::LogCursor cursor = read_cursor(cursor_file);
    argv.insert(argv.end(), {"logs", "-l", "job-name=" + job.job_id + ",batch.kubernetes.io/job-completion-index=0",
                             "-c", "training", "--tail=-1", "--timestamps"});
    // The API takes whole seconds: ask from the cursor's second, drop what was written already.
    if (!cursor.timestamp.empty()) argv.push_back("--since-time=" + cursor.timestamp.substr(0, 19) + "Z");
    ProcessResult r = run.run(command(argv));
    if (!r.ok()) return false;  // no pod yet, or it is gone: what was streamed stays
    std::string text = kubernetes::new_log_text(r.out, cursor);
    if (text.empty()) return false;
    text.pop_back();  // append_line adds the last '\n' back
    append_line(dir / "training-0.log", text);
    nlohmann::json c = {{"timestamp", cursor.timestamp}, {"same", cursor.same}};
    write_file_atomic(cursor_file, c.dump() + "\n");
    return true;
}

void export_log_files(const JobQuery& job) {
    const fs::path log_file = job.run_dir / "logs" / job.stage / "training-0.log";
    std::error_code ec;
    if (!fs::exists(log_file, ec)) return;
    const std::string log = read_file(log_file);
    std::error_code mk;
    for (const auto& [rel, content] : kubernetes::files_in_log(log)) {
        fs::path target = job.run_dir / rel;
        fs::create_directories(target.parent_path(), mk);
        write_file_atomic(target, content);
    }
    // The framework's standard output, where metrics.path names it (the launch script says where).
    if (std::optional<std::string> rel = kubernetes::stdout_file_in_log(log)) {
        fs::path target = job.run_dir / *rel;
        if (target != log_file) {
            fs::create_directories(target.parent_path(), mk);
            write_file_atomic(target, log);
        }
    }
}

}  // namespace trainbench::backend
