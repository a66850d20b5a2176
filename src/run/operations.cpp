// Submitting a run's stages, refreshing the state of many runs with one
// scheduler query per backend, resolving interrupted submissions, cancelling.
#include "run/time.hpp"

#include <trainbench/run.hpp>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

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

}  // namespace

std::map<std::string, std::string> secret_environment(const catalog::EnvList& env) {
    std::map<std::string, std::string> values;
    std::vector<std::string> missing;
    for (const auto& [name, value] : env) {
        if (value.rfind("${env:", 0) != 0 || value.back() != '}') continue;
        std::string var = value.substr(6, value.size() - 7);
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

BackendProvider default_backend_provider(backend::BackendOptions base) {
    return [base](const RunInfo& run, ProcessRunner& runner) {
        backend::BackendOptions o = base;
        o.runner = &runner;
        if (o.kube_context.empty()) o.kube_context = run.kube_context;
        if (o.kube_namespace.empty()) o.kube_namespace = run.kube_namespace;
        return backend::make_backend(run.backend, o);
    };
}

void submit_stages(RunInfo& run, const std::vector<render::RenderedJob>& jobs, const BackendProvider& provider,
                   const SubmitOptions& options) {
    ProcessRunner& inner = options.runner ? *options.runner : system_process_runner();
    CommandRecorder recorder(inner, run.dir / "commands");
    std::unique_ptr<backend::Backend> backend = provider(run, recorder);
    const std::string host = host_name();
    std::optional<std::string> previous_id;
    std::string previous_stage;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const render::RenderedJob& job = jobs[i];
        StageState& stage = stage_of(run, job.stage);
        if (interrupted()) {
            for (std::size_t k = i; k < jobs.size(); ++k) {
                ordered_json e;
                e["event"] = "submit_failed";
                e["stage"] = jobs[k].stage;
                e["message"] = "interrupted before submission";
                append_event(run.dir, e);
            }
            finish_if_final(run);
            throw InterruptedError();
        }
        stage.job_name = fmt::format("{}{}-{}-{}", options.job_name_prefix, run.recipe_name, run.short_id, job.stage);
        ordered_json submitting;
        submitting["event"] = "submitting";
        submitting["stage"] = job.stage;
        submitting["job_name"] = stage.job_name;
        submitting["pid"] = static_cast<long>(::getpid());
        submitting["host"] = host;
        append_event(run.dir, submitting);

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

        backend::SubmitResult result;
        try {
            result = backend->submit(req);
        } catch (const Error& e) {
            ordered_json failed;
            failed["event"] = "submit_failed";
            failed["stage"] = job.stage;
            failed["message"] = e.what();
            append_event(run.dir, failed);
            for (std::size_t k = i + 1; k < jobs.size(); ++k) {
                ordered_json skipped;
                skipped["event"] = "submit_failed";
                skipped["stage"] = jobs[k].stage;
                skipped["message"] = fmt::format("not submitted: stage '{}' failed to submit", job.stage);
                append_event(run.dir, skipped);
            }
            finish_if_final(run);
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
        for (RunInfo* run : members) {
            bool changed = false;
            for (StageState& stage : run->stages) {
                if (!stage.submitting || stage.abandoned) continue;
                bool in_flight = stage.submitter_host == host && stage.submitter_pid != ::getpid() &&
                                 process_alive(stage.submitter_pid);
                if (in_flight) continue;
                std::vector<backend::FoundJob> found = backend->find_jobs(stage.job_name, run->query(stage));
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
                append_event(run->dir, e);
                changed = true;
            }
            if (changed) {
                write_records(*run, capture.records());
                finish_if_final(*run);
            }
            capture.clear();
        }

        std::vector<std::pair<RunInfo*, std::string>> asked;  // run, stage name
        std::vector<backend::JobQuery> queries;
        for (RunInfo* run : members) {
            if (run->is_final()) continue;
            for (const StageState& stage : run->stages) {
                if (stage.job_id.empty() || backend::is_final(stage.status.state)) continue;
                asked.emplace_back(run, stage.name);
                queries.push_back(run->query(stage));
            }
        }
        if (queries.empty()) continue;
        std::vector<backend::JobStatus> statuses = backend->status(queries);
        std::set<RunInfo*> changed;
        for (std::size_t i = 0; i < asked.size() && i < statuses.size(); ++i) {
            RunInfo* run = asked[i].first;
            StageState& stage = stage_of(*run, asked[i].second);
            backend::JobStatus s = statuses[i];
            if (run->cancel_requested && backend::is_final(s.state) && s.state == backend::JobState::failed) {
                s.state = backend::JobState::cancelled;  // the script's trap saw the cancel as a failure
                if (s.reason.empty()) s.reason = "cancelled by trainbench";
            }
            if (s.state == backend::JobState::unknown && run->cancel_requested) {
                s.state = backend::JobState::cancelled;
                s.reason = "cancelled by trainbench";
            }
            if (same(s, stage.status)) continue;
            append_event(run->dir, state_event(stage, s));
            stage.status = s;
            changed.insert(run);
        }
        for (RunInfo* run : changed) {
            write_records(*run, capture.records());
            finish_if_final(*run);
        }
    }
}

void cancel(RunInfo& run, const BackendProvider& provider, ProcessRunner& runner) {
    ordered_json e;
    e["event"] = "cancelled";
    e["pid"] = static_cast<long>(::getpid());
    append_event(run.dir, e);
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
