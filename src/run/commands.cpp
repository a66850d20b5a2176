// CommandRecorder: every external command of a run, kept as commands/NNN.json.
#include "run/json_text.hpp"
#include "run/time.hpp"

#include <trainbench/run.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace trainbench::run {

CommandRecorder::CommandRecorder(ProcessRunner& inner, std::optional<fs::path> commands_dir)
    : m_inner(inner), m_dir(std::move(commands_dir)) {}

namespace {
// What a record says of the request: argv, cwd, TRAINBENCH_* values, other names only.
ordered_json request_record(const ProcessRequest& request) {
    ordered_json rec;
    rec["argv"] = request.argv;
    if (request.cwd) rec["cwd"] = request.cwd->string();
    ordered_json env = ordered_json::object();
    std::vector<std::string> passed;
    for (const auto& [k, v] : request.env_set) {
        if (k.rfind("TRAINBENCH_", 0) == 0)
            env[k] = v;
        else
            passed.push_back(k);  // a secret: its name only
    }
    if (!env.empty()) rec["env"] = env;
    if (!passed.empty()) rec["env_passed_by_name"] = passed;
    rec["started"] = utc_now();
    return rec;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

void CommandRecorder::keep(const ordered_json& record) {
    if (m_on_record) m_on_record(record);
    if (m_dir)
        write_record(*m_dir, record);
    else
        m_records.push_back(record);
}

ProcessResult CommandRecorder::run(const ProcessRequest& request) {
    ordered_json rec = request_record(request);
    auto t0 = std::chrono::steady_clock::now();
    ProcessResult r;
    try {
        r = m_inner.run(request);
    } catch (const Error& e) {
        rec["error"] = e.what();
        rec["exit_code"] = nullptr;
        rec["duration_s"] = seconds_since(t0);
        keep(rec);
        throw;
    }
    rec["exit_code"] = r.exit_code;
    if (r.timed_out) rec["timed_out"] = true;
    rec["duration_s"] = seconds_since(t0);
    rec["stdout"] = r.out;
    rec["stderr"] = r.err;
    keep(rec);
    return r;
}

long CommandRecorder::start(const ProcessRequest& request, const DetachedOutput& output) {
    ordered_json rec = request_record(request);
    rec["detached"] = true;
    rec["stdout_file"] = output.stdout_file.string();
    rec["stderr_file"] = output.stderr_file.string();
    long pid = 0;
    try {
        pid = m_inner.start(request, output);
    } catch (const Error& e) {
        rec["error"] = e.what();
        keep(rec);
        throw;
    }
    rec["pid"] = pid;
    keep(rec);
    return pid;
}

void CommandRecorder::write_record(const fs::path& commands_dir, const ordered_json& record) {
    std::error_code ec;
    fs::create_directories(commands_dir, ec);
    fs::path tmp = commands_dir / fmt::format(".record-{}-{}.tmp", ::getpid(), random_short_id());
    write_file_atomic(tmp, dump(record, 2) + "\n");
    // link() never replaces: the first free number wins, even with several writers.
    int next = 1;
    for (const auto& e : fs::directory_iterator(commands_dir, ec)) {
        std::string stem = e.path().stem().string();
        if (e.path().extension() == ".json" && !stem.empty() &&
            stem.find_first_not_of("0123456789") == std::string::npos)
            next = std::max(next, std::stoi(stem) + 1);
    }
    for (int attempt = 0; attempt < 10000; ++attempt, ++next) {
        fs::path target = commands_dir / fmt::format("{:03d}.json", next);
        if (::link(tmp.c_str(), target.c_str()) == 0) {
            fs::remove(tmp, ec);
            return;
        }
        if (errno != EEXIST) {
            int err = errno;
            fs::remove(tmp, ec);
            throw RuntimeError(fmt::format("cannot write '{}': {}", target.string(), std::strerror(err)));
        }
    }
    fs::remove(tmp, ec);
    throw RuntimeError(fmt::format("cannot number a command record in '{}'", commands_dir.string()));
}

}  // namespace trainbench::run
