// The sweep state file (point hash -> run) and the resumable submission loop.
#include <trainbench/pipeline.hpp>
#include <trainbench/render.hpp>

#include <fmt/format.h>

#include <chrono>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;

namespace trainbench::pipeline {

fs::path state_file(const fs::path& runs_root, const std::string& sweep_name) {
    return runs_root / "_sweeps" / sweep_name / "state.jsonl";
}

std::map<std::string, StateEntry> read_state(const fs::path& file) {
    std::map<std::string, StateEntry> out;
    std::error_code ec;
    if (!fs::exists(file, ec)) return out;
    std::istringstream in(read_file(file));
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("hash")) continue;  // a torn last line
        StateEntry e;
        e.hash = j.value("hash", "");
        e.point = j.value("point", std::size_t{0});
        e.name = j.value("name", "");
        e.run_id = j.value("run_id", "");
        e.run_dir = j.value("run_dir", "");
        e.event = j.value("event", "submitted");
        out[e.hash] = e;
    }
    return out;
}

void append_state(const fs::path& file, const StateEntry& e) {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    if (ec) throw RuntimeError(fmt::format("cannot create '{}': {}", file.parent_path().string(), ec.message()));
    nlohmann::ordered_json j;
    j["hash"] = e.hash;
    j["point"] = e.point;
    j["name"] = e.name;
    j["run_id"] = e.run_id;
    j["run_dir"] = e.run_dir;
    j["event"] = e.event;
    j["time"] = utc_now();
    append_line(file, j.dump());
}

bool has_run(const StateEntry& e) {
    if (e.event == "submitted") return true;
    // "created" (the process stopped between making the run directory and
    // recording the submission) or "failed": the run's journal decides. A
    // stage that was submitted, or whose submission may have reached the
    // scheduler, keeps the run; otherwise the point is submitted again.
    std::error_code ec;
    if (e.run_dir.empty() || !fs::is_directory(e.run_dir, ec)) return false;
    run::RunInfo info = run::load_run(e.run_dir);
    for (const run::StageState& s : info.stages)
        if (!s.job_id.empty() || (s.submitting && !s.abandoned)) return true;
    return false;
}

run::RunInfo submit_point(const Services& services, const sweep::Expansion& expansion, const sweep::Point& point,
                          const std::function<void(const run::RunInfo&)>& on_created) {
    if (!point.loaded) throw RuntimeError(fmt::format("sweep point {} has no recipe", point.index));
    SubmitRequest request;
    request.recipe_file = expansion.spec.file;
    request.on_created = on_created;
    return submit_recipe(services, sweep::point_recipe(expansion, point, services.catalog()), request);
}

namespace {

std::size_t default_count_active(const std::vector<std::string>& run_dirs, ProcessRunner& processes) {
    std::vector<run::RunInfo> runs;
    for (const std::string& d : run_dirs) {
        run::RunInfo info = run::load_run(d);
        if (!info.is_final()) runs.push_back(std::move(info));
    }
    if (runs.empty()) return 0;
    run::refresh(runs, run::default_backend_provider(), processes);
    std::size_t n = 0;
    for (const run::RunInfo& r : runs)
        if (!r.is_final()) ++n;
    return n;
}

}  // namespace

fs::path state_lock_file(const fs::path& runs_root, const std::string& sweep_name) {
    return state_file(runs_root, sweep_name).parent_path() / "state.lock";
}

namespace {

// One submitter per sweep: the exclusive lock beside state.jsonl, held while points are
// submitted (and released by the kernel if the process dies).
FileLock lock_state(const fs::path& runs_root, const std::string& sweep, const SweepSubmitOptions& options) {
    fs::path path = state_lock_file(runs_root, sweep);
    if (options.no_wait) {
        if (std::optional<FileLock> lock = FileLock::try_lock(path)) return std::move(*lock);
        throw BusyError(fmt::format("sweep '{}' is being submitted by {} (lock '{}')", sweep, FileLock::holder(path),
                                    path.string()),
                        "wait for it to finish, or leave out --no-wait to wait for it");
    }
    return FileLock::lock(path, [&](const std::string& holder) {
        if (options.on_lock_wait)
            options.on_lock_wait(fmt::format("waiting for sweep '{}': it is being submitted by {} (lock '{}')", sweep,
                                             holder, path.string()));
    });
}

// A point whose submission failed. When even that line cannot be written (a full disk) the
// run's own journal still decides (has_run), so the sweep goes on to report every point.
void record_failure(const fs::path& file, StateEntry entry) {
    if (entry.run_dir.empty()) return;
    entry.event = "failed";
    try {
        append_state(file, entry);
    } catch (const RuntimeError&) {
        // the point's own error is reported
    }
}

// A point that was submitted: its run's journal already holds the job and the "created" line
// names the run, so a full disk here must not turn the submission into a failure.
void record_submitted(const fs::path& file, const StateEntry& entry) {
    try {
        append_state(file, entry);
    } catch (const RuntimeError&) {
        // has_run() finds the job through the "created" line and the run's journal
    }
}

}  // namespace

SubmitProgress submit_sweep(const sweep::Expansion& expansion, const fs::path& runs_root,
                            const SubmitPointFn& submit_point, const SweepSubmitOptions& options) {
    const fs::path file = state_file(runs_root, expansion.spec.name);
    FileLock lock = lock_state(runs_root, expansion.spec.name, options);
    // Read only now: the state another invocation wrote while this one waited counts.
    std::map<std::string, StateEntry> state = read_state(file);
    SubmitProgress progress;
    progress.total = expansion.valid_count();
    auto sleep = options.sleep ? options.sleep : [](std::chrono::milliseconds ms) { std::this_thread::sleep_for(ms); };
    std::function<std::size_t(const std::vector<std::string>&)> count_active = options.count_active;
    if (!count_active)
        count_active = [&options](const std::vector<std::string>& run_dirs) {
            if (options.processes == nullptr)
                throw std::logic_error("submit_sweep: neither count_active nor a process runner given");
            return default_count_active(run_dirs, *options.processes);
        };
    auto report = [&](const std::string& message) {
        if (options.on_progress) options.on_progress(progress, message);
    };

    std::vector<std::string> sweep_runs;
    for (const auto& [hash, e] : state)
        if (has_run(e) && !e.run_dir.empty()) sweep_runs.push_back(e.run_dir);

    for (const sweep::Point& p : expansion.points) {
        if (!p.valid) continue;
        auto it = state.find(p.hash);
        if (it != state.end() && has_run(it->second)) {
            ++progress.skipped;
            report(fmt::format("point {} '{}' already has run {}", p.index, p.name, it->second.run_id));
            continue;
        }
        check_interrupted();
        if (options.max_active > 0) {
            while (true) {
                progress.active = count_active(sweep_runs);
                if (progress.active < options.max_active) break;
                report(fmt::format("waiting: {} runs active (--max-active {})", progress.active, options.max_active));
                sleep(options.poll_interval);
                check_interrupted();
            }
        }
        StateEntry entry;
        entry.hash = p.hash;
        entry.point = p.index;
        entry.name = p.name;
        auto on_created = [&](const run::RunInfo& info) {
            entry.run_id = info.run_id;
            entry.run_dir = info.dir.string();
            entry.event = "created";
            append_state(file, entry);
        };
        try {
            run::RunInfo info = submit_point(p, on_created);
            entry.run_id = info.run_id;
            entry.run_dir = info.dir.string();
            entry.event = "submitted";
            record_submitted(file, entry);
            state[p.hash] = entry;
            sweep_runs.push_back(entry.run_dir);
            ++progress.submitted;
            ++progress.active;
            report(fmt::format("point {} '{}' submitted as {}", p.index, p.name, info.run_id));
        } catch (const InterruptedError&) {
            throw;
        } catch (const Error& e) {
            record_failure(file, entry);
            ++progress.failed;
            report(fmt::format("point {} '{}' failed to submit: {}", p.index, p.name, e.what()));
            // An interrupt during the scheduler call surfaces as a failure of that call.
            check_interrupted();
        }
    }
    return progress;
}

}  // namespace trainbench::pipeline
