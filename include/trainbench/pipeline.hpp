// pipeline: the use cases, each a short list of steps over the modules below
// (load, validate, render, create a run, submit, summarise). The commands of
// cli parse options, make one call here and print what it returns.
//
// Sweep submission: the sweep state file runs/_sweeps/<sweep>/state.jsonl
// (point hash -> run) and the resumable submission loop.
#pragma once

#include <trainbench/core.hpp>
#include <trainbench/run.hpp>
#include <trainbench/sweep.hpp>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace trainbench::pipeline {

// ---------------------------------------------------------------- state and submission
// runs/_sweeps/<sweep name>/state.jsonl: one JSON object per line
// {"hash", "point", "name", "run_id", "run_dir", "time"}, appended atomically.
struct StateEntry {
    std::string hash;
    std::size_t point = 0;
    std::string name;
    std::string run_id;
    std::string run_dir;
    std::string event;  // "created" (run directory made, submitting) or "submitted" or "failed"
};

[[nodiscard]] std::filesystem::path state_file(const std::filesystem::path& runs_root, const std::string& sweep_name);
// Reads the state (a torn last line is ignored). Later entries win per hash.
[[nodiscard]] std::map<std::string, StateEntry> read_state(const std::filesystem::path& file);
void append_state(const std::filesystem::path& file, const StateEntry& entry);

// Creates a run for one point and submits it. `on_created` is called with
// the fresh run directory before anything is submitted (the state file
// records it then, so a crash mid-submission never leads to a second run).
using SubmitPointFn =
    std::function<run::RunInfo(const sweep::Point& point, const std::function<void(const run::RunInfo&)>& on_created)>;

// What the default submission needs besides the point.
struct RunContext {
    std::filesystem::path runs_root;
    std::vector<std::filesystem::path> template_dirs;
    std::filesystem::path workloads;
    std::filesystem::path sweep_file;
    ProcessRunner* runner = nullptr;  // default: system_process_runner()
};
// render::render + run::RunStore::create + write_rendered + submit_stages.
[[nodiscard]] run::RunInfo submit_point_default(const sweep::Point& point, const RunContext& context,
                                                const std::function<void(const run::RunInfo&)>& on_created);

struct SubmitProgress {
    std::size_t submitted = 0;  // by this invocation
    std::size_t skipped = 0;    // already had a run
    std::size_t failed = 0;
    std::size_t total = 0;   // valid points
    std::size_t active = 0;  // runs not final
};

struct SweepSubmitOptions {
    std::size_t max_active = 0;  // 0 = no limit
    std::chrono::milliseconds poll_interval{5000};
    // Asks which of the sweep's runs are still active (not final); default: run::refresh.
    std::function<std::size_t(const std::vector<std::string>& run_dirs)> count_active;
    std::function<void(const SubmitProgress&, const std::string& message)> on_progress;
    std::function<void(std::chrono::milliseconds)> sleep;
};

// True when the state says the point already has a run worth keeping: any
// entry except a run whose every stage failed to reach the scheduler.
[[nodiscard]] bool has_run(const StateEntry& entry);

// Submits every valid point that has no run in the state file, at most
// max_active at a time, recording each run in the state file right after
// its submission. Stops with InterruptedError on SIGINT/SIGTERM between
// submissions (check_interrupted), so a second call resumes.
SubmitProgress submit_sweep(const sweep::Expansion& expansion, const std::filesystem::path& runs_root,
                            const SubmitPointFn& submit_point, const SweepSubmitOptions& options);

}  // namespace trainbench::pipeline
