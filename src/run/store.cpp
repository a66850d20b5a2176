// The run store: fresh run directories, run.json, the journal and its replay.
#include "run/time.hpp"

#include <trainbench/run.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

namespace trainbench::run {

namespace {
constexpr const char* k_lock_name = ".lock";
}  // namespace

// ---------------------------------------------------------------- run ids
namespace {
bool is_run_id(const std::string& name) {
    // 20261122T023000Z-1a2b3c
    if (name.size() != 23 || name[8] != 'T' || name[15] != 'Z' || name[16] != '-') return false;
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (i == 8 || i == 15 || i == 16) continue;
        char c = name[i];
        bool ok = i < 16 ? (c >= '0' && c <= '9') : ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
        if (!ok) return false;
    }
    return true;
}

std::string dump(const ordered_json& j, int indent = -1) {
    return j.dump(indent, ' ', false, json::error_handler_t::replace);
}
}  // namespace

std::string random_short_id() {
    static std::mt19937_64 rng{std::random_device{}() ^ static_cast<unsigned long>(::getpid())};
    return fmt::format("{:06x}", rng() & 0xffffff);
}

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

// ---------------------------------------------------------------- locks and failed creation
FileLock lock_run(const fs::path& run_dir) {
    return FileLock::lock(run_dir / k_lock_name);
}

std::optional<FileLock> lock_run_within(const fs::path& run_dir, std::chrono::milliseconds limit) {
    return FileLock::lock_within(run_dir / k_lock_name, limit);
}

void update_run_json(const fs::path& run_dir, const std::function<void(ordered_json&)>& change) {
    FileLock lock = lock_run(run_dir);
    fs::path meta_path = run_dir / "run.json";
    // Read under the lock: what is changed is the newest run.json, never an older copy.
    ordered_json meta = ordered_json::parse(read_file(meta_path), nullptr, false);
    if (meta.is_discarded() || !meta.is_object()) meta = ordered_json::object();
    change(meta);
    write_file_atomic(meta_path, dump(meta, 2) + "\n");
}

void discard_run(const fs::path& run_dir, const std::string& reason) {
    std::error_code ec;
    fs::remove_all(run_dir, ec);
    if (!ec && !fs::exists(run_dir, ec)) return;
    // Could not be removed (a read-only store): say FAILED with the reason, never UNKNOWN forever.
    try {
        ordered_json e;
        e["event"] = "finished";
        e["state"] = "FAILED";
        e["detail"] = "run not created: " + reason;
        append_event(run_dir, e);
    } catch (const Error&) {
        // nothing more can be written there
    }
}

// ---------------------------------------------------------------- store
RunStore::RunStore(fs::path root) : m_root(std::move(root)) {}

namespace {

// Everything a new run directory holds before its jobs are rendered.
RunInfo fill_new_run(const fs::path& dir, const std::string& run_id, const RunMetadata& meta, ProcessRunner& runner) {
    std::error_code ec;
    write_file_atomic(dir / k_lock_name, "");  // exists before anyone needs it (a full disk later)
    // The journal first: a crash after this point leaves a directory `status` can read.
    ordered_json signature;
    signature["format"] = k_journal_format;
    signature["version"] = k_journal_version;
    append_line(dir / "journal.jsonl", dump(signature));

    CommandRecorder recorder(runner, dir / "commands");
    std::string commit;
    fs::path recipe_dir = meta.recipe_file.empty() ? fs::path(".") : fs::absolute(meta.recipe_file, ec).parent_path();
    try {
        ProcessRequest git;
        git.argv = {"git", "-C", recipe_dir.string(), "rev-parse", "HEAD"};
        git.timeout = std::chrono::seconds(10);
        ProcessResult r = recorder.run(git);
        if (r.ok()) commit = r.out.substr(0, r.out.find('\n'));
    } catch (const Error&) {
        // no git: no commit
    }

    RunInfo run;
    run.dir = dir;
    run.run_id = run_id;
    run.short_id = run_id.substr(run_id.size() - 6);
    run.recipe_name = meta.recipe_name;
    run.recipe_file = meta.recipe_file.empty() ? std::string{} : fs::absolute(meta.recipe_file, ec).string();
    run.target = meta.target;
    run.backend = meta.backend;
    run.kube_context = meta.kube_context;
    run.kube_namespace = meta.kube_namespace;
    run.created = utc_now();

    ordered_json j;
    j["format_version"] = k_run_format_version;
    j["run_id"] = run.run_id;
    j["short_id"] = run.short_id;
    j["recipe"] = run.recipe_name;
    j["recipe_file"] = run.recipe_file;
    j["tool_version"] = std::string(version());
    j["git_commit"] = commit.empty() ? ordered_json(nullptr) : ordered_json(commit);
    j["created"] = run.created;
    j["target"] = run.target;
    j["scheduler"] = run.backend;
    if (!run.kube_context.empty()) j["kube_context"] = run.kube_context;
    if (!run.kube_namespace.empty()) j["kube_namespace"] = run.kube_namespace;
    j["stages"] = ordered_json::array();
    write_file_atomic(dir / "run.json", dump(j, 2) + "\n");
    if (!meta.resolved_yaml.empty()) write_file_atomic(dir / "recipe.resolved.yaml", meta.resolved_yaml);
    ordered_json created;
    created["event"] = "created";
    created["run_id"] = run.run_id;
    created["backend"] = run.backend;
    append_event(dir, created);
    return run;
}

}  // namespace

RunInfo RunStore::create(const RunMetadata& meta, ProcessRunner& runner) {
    std::error_code ec;
    fs::path parent = fs::absolute(m_root / meta.recipe_name, ec).lexically_normal();
    fs::create_directories(parent, ec);
    if (ec) throw RuntimeError(fmt::format("cannot create run store '{}': {}", parent.string(), ec.message()));
    fs::path dir;
    std::string run_id;
    for (int attempt = 0;; ++attempt) {
        run_id = utc_now(UtcStyle::compact) + "-" + random_short_id();
        dir = parent / run_id;
        // create_directory is mkdir(2): false when the name exists, so a run dir is never reused.
        if (fs::create_directory(dir, ec)) break;
        if (ec) throw RuntimeError(fmt::format("cannot create run directory '{}': {}", dir.string(), ec.message()));
        if (attempt > 100)
            throw RuntimeError(fmt::format("cannot find a free run directory under '{}'", parent.string()));
    }
    try {
        return fill_new_run(dir, run_id, meta, runner);
    } catch (const Error& e) {
        discard_run(dir, e.what());
        throw RuntimeError(fmt::format("cannot create run '{}': {}", dir.string(), e.what()),
                           "nothing was submitted and the run directory was removed; free space or fix the store's "
                           "permissions, then submit again");
    }
}

namespace {
void write_rendered_files(const RunInfo& run, const std::vector<render::RenderedJob>& jobs) {
    std::error_code ec;
    for (const render::RenderedJob& job : jobs) {
        fs::path base = run.dir / "rendered" / job.stage;
        fs::create_directories(run.dir / "logs" / job.stage, ec);
        for (const render::RenderedFile& f : job.files) {
            fs::path target = base / f.path;
            fs::create_directories(target.parent_path(), ec);
            auto mode = fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read;
            if (f.executable) mode |= fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec;
            write_file_atomic(target, f.content, mode);
        }
    }
    fs::create_directories(run.dir / "status", ec);
    // run.json learns the stage order.
    ordered_json names = ordered_json::array();
    for (const render::RenderedJob& job : jobs) names.push_back(job.stage);
    update_run_json(run.dir, [&](ordered_json& meta) { meta["stages"] = names; });
}
}  // namespace

void write_rendered(const RunInfo& run, const std::vector<render::RenderedJob>& jobs) {
    try {
        write_rendered_files(run, jobs);
    } catch (const Error& e) {
        discard_run(run.dir, e.what());
        throw RuntimeError(fmt::format("cannot write the job files of run '{}': {}", run.dir.string(), e.what()),
                           "nothing was submitted and the run directory was removed; free space or fix the store's "
                           "permissions, then submit again");
    }
}

std::vector<fs::path> RunStore::list() const {
    std::vector<fs::path> runs;
    std::error_code ec;
    if (!fs::is_directory(m_root, ec)) return runs;
    for (const auto& recipe_dir : fs::directory_iterator(m_root, ec)) {
        if (!recipe_dir.is_directory()) continue;
        std::error_code ec2;
        for (const auto& d : fs::directory_iterator(recipe_dir.path(), ec2))
            if (d.is_directory() && is_run_id(d.path().filename().string())) runs.push_back(d.path());
    }
    std::sort(runs.begin(), runs.end(), [](const fs::path& a, const fs::path& b) {
        return a.filename() != b.filename() ? a.filename() < b.filename() : a < b;
    });
    return runs;
}

bool RunStore::is_run_dir(const fs::path& dir) {
    std::error_code ec;
    return fs::is_directory(dir, ec) && (fs::exists(dir / "journal.jsonl", ec) || fs::exists(dir / "run.json", ec));
}

fs::path RunStore::resolve(const std::string& ref) const {
    std::error_code ec;
    if (ref.empty()) throw UsageError("empty run name");
    if (is_run_dir(ref)) return fs::absolute(ref, ec).lexically_normal();
    std::vector<fs::path> matches;
    std::vector<std::string> all;
    for (const fs::path& p : list()) {
        std::string id = p.filename().string();
        std::string short_id = id.substr(id.size() - 6);
        std::string qualified = p.parent_path().filename().string() + "/" + id;
        all.push_back(short_id);
        if (short_id.rfind(ref, 0) == 0 || id.rfind(ref, 0) == 0 || qualified.rfind(ref, 0) == 0) matches.push_back(p);
    }
    if (matches.size() == 1) return matches.front();
    if (matches.empty())
        throw UsageError(fmt::format("no run '{}' under '{}'", ref, m_root.string()),
                         all.empty() ? std::string("no runs yet; submit one with 'trainbench submit RECIPE'")
                         : did_you_mean(ref, all).empty() ? std::string("'trainbench status' lists the runs")
                                                          : did_you_mean(ref, all));
    std::vector<std::string> names;
    for (const fs::path& p : matches)
        names.push_back(p.parent_path().filename().string() + "/" + p.filename().string());
    throw UsageError(fmt::format("run '{}' is ambiguous: it matches {}", ref, quoted_list(names, " and ")),
                     "give more digits of the short id, or the run directory");
}

}  // namespace trainbench::run
