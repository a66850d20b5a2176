// Submitting a run's stages, refreshing the state of many runs with one
// scheduler query per backend, resolving interrupted submissions, cancelling.
#include "run/time.hpp"

#include <trainbench/recipe.hpp>
#include <trainbench/run.hpp>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace trainbench::run {

namespace {

std::string host_name() {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
    return buf;
}

// A live (non-zombie) process with this pid on this machine.
bool process_alive(long pid) {
    if (pid <= 0) return false;
    std::ifstream in(fmt::format("/proc/{}/stat", pid));
    std::string text;
    if (!std::getline(in, text)) return false;
    std::size_t close = text.rfind(')');
    return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z' && text[close + 2] != 'X';
}

StageState& stage_of(RunInfo& run, const std::string& name) {
    for (StageState& s : run.stages)
        if (s.name == name) return s;
    run.stages.push_back({});
    run.stages.back().name = name;
    return run.stages.back();
}

void write_records(const RunInfo& run, const std::vector<ordered_json>& records) {
    for (const ordered_json& r : records) CommandRecorder::write_record(run.dir / "commands", r);
}

ordered_json state_event(const StageState& stage, const backend::JobStatus& s) {
    ordered_json e;
    e["event"] = "state";
    e["stage"] = stage.name;
    e["job_id"] = stage.job_id;
    e["state"] = std::string(backend::to_string(s.state));
    e["exit_code"] = s.exit_code ? ordered_json(*s.exit_code) : ordered_json(nullptr);
    e["reason"] = s.reason;
    e["nodes"] = s.nodes;
    e["started"] = s.started;
    e["ended"] = s.ended;
    e["source"] = s.source;
    return e;
}

bool same(const backend::JobStatus& a, const backend::JobStatus& b) {
    return a.state == b.state && a.exit_code == b.exit_code && a.reason == b.reason && a.nodes == b.nodes;
}

// The caller holds the run's lock.
void finish_if_final(RunInfo& run) {
    RunInfo fresh = load_run(run.dir);
    if (fresh.finished_state.empty() && fresh.is_final()) {
        ordered_json e;
        e["event"] = "finished";
        e["state"] = fresh.state();
        if (!fresh.detail().empty()) e["detail"] = fresh.detail();
        append_event(run.dir, e);
        fresh = load_run(run.dir);
    }
    run = std::move(fresh);
}

// Writes the scheduler commands captured for `fresh` (the run as journaled under its lock)
// and its final record, then makes it the caller's view; when writing fails, the view is the
// run as it is on disk.
void commit_fresh(RunInfo& run, RunInfo fresh, const CommandRecorder& capture) {
    try {
        write_records(fresh, capture.records());
        finish_if_final(fresh);
    } catch (const RuntimeError& e) {
        spdlog::warn("cannot record in run {}: {}", fresh.short_id, e.what());
        fresh = load_run(run.dir);
    }
    run = std::move(fresh);
}

// Journals an event where a failure to write (a full disk, a read-only store) must not stop
// the command: a warning, and false.
bool try_append(const RunInfo& run, const ordered_json& event) {
    try {
        append_event(run.dir, event);
        return true;
    } catch (const RuntimeError& e) {
        spdlog::warn("cannot record in run {}: {} (the state shown is not saved)", run.short_id, e.what());
        return false;
    }
}

// A failed attempt of a scheduler command during a submission (retried, or the last one).
ordered_json attempt_failed_event(const std::string& stage, const ordered_json& record) {
    ordered_json e;
    e["event"] = "attempt_failed";
    e["stage"] = stage;
    e["command"] = record.contains("argv") && !record["argv"].empty() ? record["argv"][0] : ordered_json("?");
    e["exit_code"] = record.value("exit_code", ordered_json(nullptr));
    if (record.value("timed_out", false)) e["timed_out"] = true;
    std::string err = record.contains("stderr") && record["stderr"].is_string() ? record["stderr"].get<std::string>()
                      : record.contains("error")                                ? record["error"].get<std::string>()
                                                                                : std::string{};
    e["message"] = err.substr(0, std::min(err.find('\n'), std::size_t{300}));
    return e;
}

// A command that failed: an error, a time-out or a non-zero exit code. A detached start (the
// local backend's job) has no exit code yet: it failed only when it could not start.
bool failed_record(const ordered_json& record) {
    if (record.contains("error") || record.value("timed_out", false)) return true;
    if (record.value("detached", false)) return !record.contains("pid");
    return !record.contains("exit_code") || !record["exit_code"].is_number_integer() ||
           record["exit_code"].get<int>() != 0;
}

// Journals "submitting" for a stage. When even that cannot be written, nothing has reached
// the scheduler for this stage: a run with no job yet is removed, a later stage is marked
// failed (when the disk still takes it).
void journal_submitting(RunInfo& run, std::size_t index, const ordered_json& submitting) {
    try {
        append_event(run.dir, submitting);
    } catch (const RuntimeError& e) {
        if (index == 0) {
            discard_run(run.dir, e.what());
            throw RuntimeError(fmt::format("cannot journal the submission of run '{}': {}", run.dir.string(), e.what()),
                               "nothing was submitted and the run directory was removed");
        }
        ordered_json failed;
        failed["event"] = "submit_failed";
        failed["stage"] = submitting["stage"];
        failed["message"] = e.what();
        (void)try_append(run, failed);
        throw;
    }
}

// What one refresh saw of one stage: the state it knew before asking, and the answer.
struct Observation {
    RunInfo* run = nullptr;
    std::string stage;
    backend::JobStatus before;
    backend::JobStatus now;
};

bool resolvable(const StageState& s, const std::string& host) {
    if (!s.submitting || s.abandoned) return false;
    bool in_flight = s.submitter_host == host && s.submitter_pid != ::getpid() && process_alive(s.submitter_pid);
    return !in_flight;
}

// An interrupted submission: the job by its name, or "abandoned". Only with the run's lock
// (a submission in progress holds it) and on the journal as it is now, so two `status`
// commands never resolve one stage twice.
void resolve_interrupted(RunInfo& run, backend::Backend& backend, CommandRecorder& capture, const std::string& host) {
    auto pending = [&](const StageState& s) { return resolvable(s, host); };
    if (std::none_of(run.stages.begin(), run.stages.end(), pending)) return;
    std::optional<FileLock> lock = lock_run_within(run.dir, std::chrono::milliseconds(0));
    if (!lock) return;  // being submitted or resolved by another process
    RunInfo fresh = load_run(run.dir);
    bool changed = false;
    for (StageState& stage : fresh.stages) {
        if (!pending(stage)) continue;
        std::vector<backend::FoundJob> found = backend.find_jobs(stage.job_name, fresh.query(stage));
        ordered_json e;
        e["stage"] = stage.name;
        if (!found.empty()) {
            e["event"] = "submitted";
            e["job_id"] = found.front().job_id;
            e["resolved"] = "found by name after an interrupted submission";
        } else {
            e["event"] = "abandoned";
            e["job_name"] = stage.job_name;
        }
        changed = try_append(fresh, e) || changed;
    }
    if (changed) {
        commit_fresh(run, std::move(fresh), capture);
    }
    capture.clear();
}

// Journals what the scheduler said about a run's stages, under the run's lock and against the
// journal as it is now: a stage that another process journaled since this one looked keeps
// that (possibly newer) state, and a final state is never replaced. When nothing can be
// written (a full disk, a lock held too long) the answer is still shown.
void record_observations(RunInfo& run, const std::vector<Observation>& seen, const CommandRecorder& capture) {
    auto show_only = [&] {
        for (const Observation& o : seen) stage_of(run, o.stage).status = o.now;
    };
    std::optional<FileLock> lock = lock_run_within(run.dir, std::chrono::seconds(10));
    if (!lock) {
        spdlog::warn("run {} is locked by {}; its new state is not recorded this time", run.short_id,
                     FileLock::holder(run.dir / ".lock"));
        return show_only();
    }
    RunInfo fresh = load_run(run.dir);
    bool written = true;
    for (const Observation& o : seen) {
        const StageState& now = stage_of(fresh, o.stage);
        if (!same(now.status, o.before) || backend::is_final(now.status.state)) continue;
        if (!try_append(fresh, state_event(now, o.now))) written = false;
    }
    if (!written) return show_only();
    commit_fresh(run, std::move(fresh), capture);
}

}  // namespace

std::map<std::string, std::string> secret_environment(const catalog::EnvList& env) {
    std::map<std::string, std::string> values;
    std::vector<std::string> missing;
    for (const auto& [name, value] : env) {
        const std::optional<std::string> ref = recipe::env_reference(value);
        if (!ref) continue;
        const std::string& var = *ref;
        const char* v = std::getenv(var.c_str());
        if (!v) {
            missing.push_back(fmt::format("'{}' (for env '{}')", var, name));
            continue;
        }
        values[var] = v;
    }
    if (!missing.empty())
        throw UsageError(
            fmt::format("the recipe takes {} from the environment, but {} not set", fmt::join(missing, ", "),
                        missing.size() == 1 ? "it is" : "they are"),
            "export the variable before submitting; its value is passed to the job and never written to disk");
    return values;
}

namespace {
// TRAINBENCH_SCHEDULER_TIMEOUT: seconds one scheduler command may take (default 60).
std::chrono::milliseconds scheduler_timeout(std::chrono::milliseconds fallback) {
    const char* text = std::getenv("TRAINBENCH_SCHEDULER_TIMEOUT");
    if (!text || !*text) return fallback;
    char* end = nullptr;
    double seconds = std::strtod(text, &end);
    if (end == text || *end != '\0' || !(seconds > 0) || seconds > 86400)
        throw UsageError(
            fmt::format("TRAINBENCH_SCHEDULER_TIMEOUT='{}' is not a number of seconds in (0, 86400]", text));
    return std::chrono::milliseconds(static_cast<long>(seconds * 1000));
}
}  // namespace

BackendProvider default_backend_provider(backend::BackendOptions base) {
    base.command_timeout = scheduler_timeout(base.command_timeout);
    return [base](const RunInfo& run, ProcessRunner& runner) {
        backend::BackendOptions o = base;
        if (o.kube_context.empty()) o.kube_context = run.kube_context;
        if (o.kube_namespace.empty()) o.kube_namespace = run.kube_namespace;
        return backend::make_backend(run.backend, runner, o);
    };
}

namespace {

ordered_json submit_failed_event(const std::string& stage, const std::string& message) {
    ordered_json e;
    e["event"] = "submit_failed";
    e["stage"] = stage;
    e["message"] = message;
    return e;
}

// Ctrl-C between two submissions: the stages not submitted say so, then InterruptedError.
[[noreturn]] void stop_interrupted(RunInfo& run, const std::vector<render::RenderedJob>& jobs, std::size_t from) {
    for (std::size_t k = from; k < jobs.size(); ++k) {
        ordered_json e = submit_failed_event(jobs[k].stage, "interrupted before submission");
        e["interrupted"] = true;  // INTERRUPTED, not FAILED, when no stage reached the scheduler
        append_event(run.dir, e);
    }
    finish_if_final(run);
    throw InterruptedError();
}

// A stage the backend refused: it and every later stage are journaled as not submitted
// (as far as the disk allows: the submission's own error is what the caller reports).
void journal_refused(RunInfo& run, const std::vector<render::RenderedJob>& jobs, std::size_t i, const Error& e) {
    (void)try_append(run, submit_failed_event(jobs[i].stage, e.what()));
    for (std::size_t k = i + 1; k < jobs.size(); ++k)
        (void)try_append(run, submit_failed_event(jobs[k].stage, fmt::format("not submitted: stage '{}' failed to "
                                                                             "submit",
                                                                             jobs[i].stage)));
    try {
        finish_if_final(run);
    } catch (const RuntimeError&) {
        // a full disk: the submission's own error says more
    }
}

// What the backend is asked to submit for one stage: its files, its dependency on the
// stage before (and on a reused stage still running), and its environment.
backend::SubmitRequest stage_request(const RunInfo& run, const render::RenderedJob& job, const StageState& stage,
                                     const std::optional<std::string>& previous_id, const std::string& previous_stage,
                                     const SubmitOptions& options) {
    backend::SubmitRequest req;
    req.run_dir = run.dir;
    req.run_id = run.run_id;
    req.stage = job.stage;
    req.stage_dir = run.dir / "rendered" / job.stage;
    req.entrypoint = job.entrypoint;
    for (const render::RenderedFile& f : job.files) req.files.push_back(f.path);
    req.job_name = stage.job_name;
    if (previous_id && !job.dependency.empty()) {
        req.depends_on = previous_id;
        req.dependency = job.dependency;
        req.previous_stage = previous_stage;
    }
    if (auto also = options.also_after.find(job.stage); also != options.also_after.end()) {
        // A reused stage of an earlier run still running: wait for it as well.
        req.depends_on = req.depends_on ? *req.depends_on + ":" + also->second : also->second;
        if (req.dependency.empty()) req.dependency = "afterok";
    }
    req.env["TRAINBENCH_RUN_DIR"] = run.dir.string();
    req.env["TRAINBENCH_RUN_ID"] = run.run_id;
    req.env["TRAINBENCH_STAGE"] = job.stage;
    if (!options.workloads.empty()) req.env["TRAINBENCH_WORKLOADS"] = options.workloads.string();
    for (const auto& [k, v] : options.secrets) req.env[k] = v;
    return req;
}

}  // namespace

void submit_stages(RunInfo& run, const std::vector<render::RenderedJob>& jobs, const BackendProvider& provider,
                   ProcessRunner& inner, const SubmitOptions& options) {
    // One writer at a time: a `status` elsewhere leaves this run alone until the submission ends.
    FileLock lock = lock_run(run.dir);
    CommandRecorder recorder(inner, run.dir / "commands");
    std::string current_stage;
    recorder.on_record([&](const ordered_json& record) {
        if (failed_record(record)) append_event(run.dir, attempt_failed_event(current_stage, record));
    });
    std::unique_ptr<backend::Backend> backend = provider(run, recorder);
    const std::string host = host_name();
    std::optional<std::string> previous_id;
    std::string previous_stage;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const render::RenderedJob& job = jobs[i];
        StageState& stage = stage_of(run, job.stage);
        if (interrupted()) stop_interrupted(run, jobs, i);
        stage.job_name = fmt::format("{}{}-{}-{}", options.job_name_prefix, run.recipe_name, run.short_id, job.stage);
        ordered_json submitting;
        submitting["event"] = "submitting";
        submitting["stage"] = job.stage;
        submitting["job_name"] = stage.job_name;
        submitting["pid"] = static_cast<long>(::getpid());
        submitting["host"] = host;
        journal_submitting(run, i, submitting);
        current_stage = job.stage;

        backend::SubmitResult result;
        try {
            result = backend->submit(stage_request(run, job, stage, previous_id, previous_stage, options));
        } catch (const Error& e) {
            journal_refused(run, jobs, i, e);
            throw;
        }
        ordered_json submitted;
        submitted["event"] = "submitted";
        submitted["stage"] = job.stage;
        submitted["job_id"] = result.job_id;
        if (!result.detail.empty()) submitted["detail"] = result.detail;
        append_event(run.dir, submitted);
        stage.job_id = result.job_id;
        stage.submitting = false;
        stage.status.job_id = result.job_id;
        stage.status.state = backend::JobState::pending;
        previous_id = result.job_id;
        previous_stage = job.stage;
    }
    run = load_run(run.dir);
}

void refresh(std::vector<RunInfo>& runs, const BackendProvider& provider, ProcessRunner& runner) {
    // Group unfinished runs by the backend (and cluster) they use.
    std::map<std::string, std::vector<RunInfo*>> groups;
    for (RunInfo& run : runs) {
        if (run.is_final() || run.backend.empty()) continue;
        groups[run.backend + "|" + run.kube_context + "|" + run.kube_namespace].push_back(&run);
    }
    const std::string host = host_name();
    for (auto& [key, members] : groups) {
        CommandRecorder capture(runner);  // in memory: kept only for runs that changed
        std::unique_ptr<backend::Backend> backend = provider(*members.front(), capture);

        // Interrupted submissions: ask the scheduler for the job by its name.
        for (RunInfo* run : members) resolve_interrupted(*run, *backend, capture, host);

        std::vector<Observation> asked;
        std::vector<backend::JobQuery> queries;
        for (RunInfo* run : members) {
            if (run->is_final()) continue;
            for (const StageState& stage : run->stages) {
                if (stage.job_id.empty() || backend::is_final(stage.status.state)) continue;
                asked.push_back({run, stage.name, stage.status, {}});
                queries.push_back(run->query(stage));
            }
        }
        if (queries.empty()) continue;
        std::vector<backend::JobStatus> statuses = backend->status(queries);
        std::map<RunInfo*, std::vector<Observation>> changed;
        for (std::size_t i = 0; i < asked.size() && i < statuses.size(); ++i) {
            Observation& o = asked[i];
            o.now = statuses[i];
            if (o.run->cancel_requested && backend::is_final(o.now.state) && o.now.state == backend::JobState::failed) {
                o.now.state = backend::JobState::cancelled;  // the script's trap saw the cancel as a failure
                if (o.now.reason.empty()) o.now.reason = "cancelled by trainbench";
            }
            if (o.now.state == backend::JobState::unknown && o.run->cancel_requested) {
                o.now.state = backend::JobState::cancelled;
                o.now.reason = "cancelled by trainbench";
            }
            if (!same(o.now, o.before)) changed[o.run].push_back(o);
        }
        for (auto& [run, seen] : changed) record_observations(*run, seen, capture);
    }
}

void cancel(RunInfo& run, const BackendProvider& provider, ProcessRunner& runner) {
    ordered_json e;
    e["event"] = "cancelled";
    e["pid"] = static_cast<long>(::getpid());
    {
        FileLock lock = lock_run(run.dir);
        append_event(run.dir, e);
    }
    run.cancel_requested = true;
    CommandRecorder recorder(runner, run.dir / "commands");
    std::unique_ptr<backend::Backend> backend = provider(run, recorder);
    std::vector<backend::JobQuery> queries;
    for (const StageState& stage : run.stages)
        if (!stage.job_id.empty() && !backend::is_final(stage.status.state)) queries.push_back(run.query(stage));
    if (!queries.empty()) backend->cancel(queries);
    run = load_run(run.dir);
}

}  // namespace trainbench::run
