// A run as its directory records it: RunInfo's state, detail and JSON, the journal's events
// (append_event) and their replay over run.json (load_run).
#include "run/json_text.hpp"

#include <trainbench/run.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

namespace trainbench::run {

// ---------------------------------------------------------------- RunInfo
namespace {
int severity(backend::JobState s) {
    using backend::JobState;
    switch (s) {
        case JobState::completed:
            return 0;
        case JobState::pending:
            return 1;
        case JobState::unknown:
            return 2;
        case JobState::running:
            return 3;
        default:
            return 4;  // an ending that is not success
    }
}
}  // namespace

std::string RunInfo::state() const {
    if (!finished_state.empty()) return finished_state;
    if (!problem.empty() && stages.empty()) return "UNKNOWN";
    // Stopped by Ctrl-C before any job reached the scheduler: INTERRUPTED, not a failure.
    const bool none_submitted =
        std::none_of(stages.begin(), stages.end(), [](const StageState& s) { return !s.job_id.empty(); });
    for (const StageState& s : stages)
        if (!s.submit_error.empty() && !(s.stopped && none_submitted)) return "FAILED";
    if (none_submitted && std::any_of(stages.begin(), stages.end(), [](const StageState& s) { return s.stopped; }))
        return "INTERRUPTED";
    for (const StageState& s : stages)
        if (s.submitting) return s.abandoned ? "INTERRUPTED" : "UNKNOWN";
    if (stages.empty()) return "UNKNOWN";
    // The worst ending wins; otherwise the furthest progress.
    bool all_completed = true;
    const StageState* worst = nullptr;
    bool any_running = false, any_pending = false, any_unsubmitted = false;
    for (const StageState& s : stages) {
        if (s.job_id.empty()) {
            any_unsubmitted = true;
            all_completed = false;
            continue;
        }
        if (s.status.state != backend::JobState::completed) all_completed = false;
        if (backend::is_final(s.status.state) && s.status.state != backend::JobState::completed &&
            (!worst || severity(s.status.state) > severity(worst->status.state)))
            worst = &s;
        any_running = any_running || s.status.state == backend::JobState::running;
        any_pending = any_pending || s.status.state == backend::JobState::pending;
    }
    if (worst) return std::string(backend::to_string(worst->status.state));
    if (all_completed) return "COMPLETED";
    if (any_running) return "RUNNING";
    if (any_pending) return "PENDING";
    if (any_unsubmitted) return "SUBMITTING";
    return "UNKNOWN";
}

std::string RunInfo::detail() const {
    if (!finished_detail.empty() && stages.empty()) return finished_detail;
    if (!problem.empty()) return problem;
    for (const StageState& s : stages) {
        if (!s.submit_error.empty()) return fmt::format("stage '{}' not submitted: {}", s.name, s.submit_error);
        if (s.submitting && s.abandoned)
            return fmt::format("submission interrupted; no job '{}' reached the scheduler", s.job_name);
        if (s.submitting) return "submission interrupted";
    }
    for (const StageState& s : stages) {
        if (s.job_id.empty()) continue;
        backend::JobState st = s.status.state;
        if (backend::is_final(st) && st != backend::JobState::completed) {
            std::string d = fmt::format("stage '{}'", s.name);
            if (s.status.exit_code) d += fmt::format(" exit code {}", *s.status.exit_code);
            if (!s.status.reason.empty() && s.status.reason != "None") d += fmt::format(" ({})", s.status.reason);
            return d;
        }
        if (st == backend::JobState::pending && !s.status.reason.empty() && s.status.reason != "None")
            return fmt::format("stage '{}' waiting: {}", s.name, s.status.reason);
    }
    return {};
}

bool RunInfo::is_final() const {
    if (!finished_state.empty()) return true;
    if (stages.empty()) return !problem.empty();
    bool refused = false;
    for (const StageState& s : stages) {
        if (!s.submit_error.empty()) refused = true;
        if (s.submitting) {
            if (!s.abandoned) return false;
            continue;
        }
        if (s.job_id.empty()) continue;  // never submitted (an earlier stage failed)
        if (!backend::is_final(s.status.state)) return false;
    }
    if (refused) return true;
    // Stages still waiting to be submitted keep the run open.
    return std::none_of(
               stages.begin(), stages.end(),
               [](const StageState& s) { return s.job_id.empty() && !s.submitting && s.submit_error.empty(); }) ||
           std::any_of(stages.begin(), stages.end(), [](const StageState& s) { return s.abandoned; });
}

backend::JobQuery RunInfo::query(const StageState& stage) const {
    return {stage.job_id, dir, stage.name, stage.job_name};
}

ordered_json RunInfo::to_json() const {
    ordered_json j;
    j["run_id"] = run_id;
    j["short_id"] = short_id;
    j["dir"] = dir.string();
    j["recipe"] = recipe_name;
    j["target"] = target;
    j["backend"] = backend;
    j["created"] = created;
    j["state"] = state();
    j["detail"] = detail();
    j["final"] = is_final();
    ordered_json st = ordered_json::array();
    for (const StageState& s : stages) {
        ordered_json o;
        o["name"] = s.name;
        o["job_name"] = s.job_name;
        o["job_id"] = s.job_id;
        o["state"] = s.job_id.empty() ? (s.submitting ? "UNKNOWN" : "NOT_SUBMITTED")
                                      : std::string(backend::to_string(s.status.state));
        o["exit_code"] = s.status.exit_code ? ordered_json(*s.status.exit_code) : ordered_json(nullptr);
        o["reason"] = s.status.reason;
        o["nodes"] = s.status.nodes;
        o["started"] = s.status.started;
        o["ended"] = s.status.ended;
        if (!s.submit_error.empty()) o["submit_error"] = s.submit_error;
        st.push_back(o);
    }
    j["stages"] = st;
    return j;
}

// ---------------------------------------------------------------- journal
void append_event(const fs::path& run_dir, ordered_json event) {
    ordered_json line;
    line["time"] = utc_now();
    for (auto& [k, v] : event.items()) line[k] = v;
    append_line(run_dir / "journal.jsonl", dump(line));
}

namespace {

StageState& stage_named(RunInfo& run, const std::string& name) {
    for (StageState& s : run.stages)
        if (s.name == name) return s;
    run.stages.push_back({});
    run.stages.back().name = name;
    return run.stages.back();
}

std::string jstr(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

void apply_event(RunInfo& run, const json& e) {
    const std::string kind = jstr(e, "event");
    const std::string stage = jstr(e, "stage");
    if (kind == "submitting") {
        StageState& s = stage_named(run, stage);
        s.job_name = jstr(e, "job_name");
        s.submitting = true;
        s.submitter_pid = e.value("pid", 0L);
        s.submitter_host = jstr(e, "host");
    } else if (kind == "submitted") {
        StageState& s = stage_named(run, stage);
        s.job_id = jstr(e, "job_id");
        s.submitting = false;
        s.abandoned = false;
        s.status.job_id = s.job_id;
        if (s.status.state == backend::JobState::unknown) s.status.state = backend::JobState::pending;
    } else if (kind == "submit_failed") {
        StageState& s = stage_named(run, stage);
        s.submitting = false;
        s.submit_error = jstr(e, "message");
        s.stopped = e.value("interrupted", false);
    } else if (kind == "abandoned") {
        stage_named(run, stage).abandoned = true;
    } else if (kind == "state") {
        StageState& s = stage_named(run, stage);
        backend::JobStatus& st = s.status;
        st.job_id = jstr(e, "job_id");
        st.state = backend::parse_job_state(jstr(e, "state")).value_or(backend::JobState::unknown);
        st.exit_code.reset();
        if (e.contains("exit_code") && e["exit_code"].is_number_integer()) st.exit_code = e["exit_code"].get<int>();
        st.reason = jstr(e, "reason");
        st.nodes = jstr(e, "nodes");
        st.started = jstr(e, "started");
        st.ended = jstr(e, "ended");
        st.source = jstr(e, "source");
    } else if (kind == "cancelled") {
        run.cancel_requested = true;
    } else if (kind == "finished") {
        run.finished_state = jstr(e, "state");
        run.finished_detail = jstr(e, "detail");
    } else if (kind == "created") {
        if (run.backend.empty()) run.backend = jstr(e, "backend");
    }
}

}  // namespace

RunInfo load_run(const fs::path& dir_in) {
    RunInfo run;
    std::error_code ec;
    run.dir = fs::absolute(dir_in, ec).lexically_normal();
    if (run.dir.filename().empty()) run.dir = run.dir.parent_path();
    run.run_id = run.dir.filename().string();
    run.short_id = run.run_id.size() > 6 ? run.run_id.substr(run.run_id.size() - 6) : run.run_id;
    run.recipe_name = run.dir.parent_path().filename().string();

    fs::path meta_path = run.dir / "run.json";
    if (fs::exists(meta_path, ec)) {
        json meta = json::parse(read_file(meta_path), nullptr, false);
        if (meta.is_object()) {
            if (meta.value("format_version", 1) > k_run_format_version)
                throw RuntimeError(
                    fmt::format("run '{}' was written by a newer trainbench (run.json format {}; this one reads {})",
                                run.dir.string(), meta.value("format_version", 0), k_run_format_version),
                    "upgrade trainbench");
            run.recipe_name = meta.value("recipe", run.recipe_name);
            run.recipe_file = jstr(meta, "recipe_file");
            run.target = jstr(meta, "target");
            run.backend = jstr(meta, "scheduler");
            run.kube_context = jstr(meta, "kube_context");
            run.kube_namespace = jstr(meta, "kube_namespace");
            run.created = jstr(meta, "created");
            if (meta.contains("stages") && meta["stages"].is_array())
                for (const json& s : meta["stages"])
                    if (s.is_string()) stage_named(run, s.get<std::string>());
        } else {
            run.problem = "run.json is unreadable";
        }
    } else {
        run.problem = "run.json missing (interrupted while the run was created)";
    }

    fs::path journal = run.dir / "journal.jsonl";
    if (!fs::exists(journal, ec)) {
        if (run.problem.empty()) run.problem = "journal.jsonl missing";
        return run;
    }
    std::istringstream in(read_file(journal));
    std::string line;
    bool first = true;
    int line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        if (line.empty()) continue;
        json e = json::parse(line, nullptr, false);
        if (first) {
            first = false;
            if (e.is_discarded() || jstr(e, "format") != k_journal_format)
                throw RuntimeError(
                    fmt::format("'{}' is not a trainbench journal (no format signature on line 1)", journal.string()));
            int version = e.value("version", 0);
            if (version > k_journal_version)
                throw RuntimeError(fmt::format("'{}' has journal version {}, newer than this trainbench reads ({})",
                                               journal.string(), version, k_journal_version),
                                   "upgrade trainbench to read this run");
            continue;
        }
        if (e.is_discarded() || !e.is_object()) continue;  // a line torn by a crash: skip it
        apply_event(run, e);
    }
    if (!run.problem.empty() && !run.stages.empty() && !run.backend.empty()) run.problem.clear();
    return run;
}

}  // namespace trainbench::run
