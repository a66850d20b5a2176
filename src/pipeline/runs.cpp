// The runs of the store: load, refresh, cancel, their logs, waiting for one to end and the live
// progress of its training while it runs (status, cancel, logs, run, wait, watch).
#include <trainbench/backend.hpp>
#include <trainbench/pipeline.hpp>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace fs = std::filesystem;

namespace trainbench::pipeline {

std::vector<run::RunInfo> load_runs(const Services& services, const std::vector<std::string>& refs) {
    run::RunStore store(services.runs_root);
    std::vector<run::RunInfo> runs;
    if (!refs.empty()) {
        for (const std::string& ref : refs) runs.push_back(run::load_run(store.resolve(ref)));
        return runs;
    }
    for (const fs::path& dir : store.list()) {
        try {
            runs.push_back(run::load_run(dir));
        } catch (const RuntimeError& e) {
            run::RunInfo broken;
            broken.dir = dir;
            broken.run_id = dir.filename().string();
            broken.short_id = broken.run_id.substr(broken.run_id.size() - 6);
            broken.recipe_name = dir.parent_path().filename().string();
            broken.problem = e.what();
            runs.push_back(std::move(broken));
        }
    }
    return runs;
}

namespace {

const backend::BackendInfo* backend_info(const run::RunInfo& run) {
    for (const backend::BackendInfo& b : backend::backend_table())
        if (run.backend == b.name) return &b;
    return nullptr;
}

}  // namespace

void refresh_runs(const Services& services, std::vector<run::RunInfo>& runs) {
    run::refresh(runs, run::default_backend_provider(), services.processes());
}

void cancel_runs(const Services& services, std::vector<run::RunInfo>& runs,
                 const std::function<void(const run::RunInfo&)>& on_ended) {
    const run::BackendProvider provider = run::default_backend_provider();
    run::refresh(runs, provider, services.processes());
    for (run::RunInfo& r : runs) {
        if (r.is_final()) {
            if (on_ended) on_ended(r);
            continue;
        }
        run::cancel(r, provider, services.processes());
    }
    // The scheduler takes a moment to report the cancellation.
    for (int i = 0; i < 20; ++i) {
        run::refresh(runs, provider, services.processes());
        if (std::all_of(runs.begin(), runs.end(), [](const run::RunInfo& r) { return r.is_final(); })) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
}

bool cancel_if_jobs_end_with_run(const Services& services, run::RunInfo& run) {
    const backend::BackendInfo* b = backend_info(run);
    if (!b || !b->jobs_end_with_run) return false;
    run::cancel(run, run::default_backend_provider(), services.processes());
    return true;
}

// ---------------------------------------------------------------- logs
struct RunLogs::Impl {
    Services services;
    run::RunInfo run;
    std::string stage;
    run::BackendProvider provider = run::default_backend_provider();
    std::unique_ptr<backend::Backend> backend;
};

RunLogs::RunLogs(const Services& services, run::RunInfo run, std::string stage) : m(std::make_unique<Impl>()) {
    if (!stage.empty() &&
        std::none_of(run.stages.begin(), run.stages.end(), [&](const auto& s) { return s.name == stage; })) {
        std::vector<std::string> names;
        for (const auto& s : run.stages) names.push_back(s.name);
        throw UsageError(fmt::format("run {} has no stage '{}'", run.short_id, stage), did_you_mean(stage, names));
    }
    m->services = services;
    m->run = std::move(run);
    m->stage = std::move(stage);
    m->backend = m->provider(m->run, services.processes());
}
RunLogs::~RunLogs() = default;

std::vector<fs::path> RunLogs::collect() {
    std::vector<fs::path> files;
    for (const run::StageState& s : m->run.stages) {
        if (!m->stage.empty() && s.name != m->stage) continue;
        if (s.job_id.empty()) continue;
        std::vector<fs::path> f = m->backend->logs(m->run.query(s));
        files.insert(files.end(), f.begin(), f.end());
    }
    return files;
}

void RunLogs::refresh() {
    std::vector<run::RunInfo> one{m->run};
    run::refresh(one, m->provider, m->services.processes());
    m->run = one.front();
}

const run::RunInfo& RunLogs::run() const {
    return m->run;
}

// ---------------------------------------------------------------- live progress
struct ProgressReader::Impl {
    Services services;
    fs::path run_dir;
    bool started = false;
    fs::path log_dir;
    recipe::Metrics metrics;
    std::unique_ptr<results::LogFollower> follower;
    analysis::Inputs inputs;
    std::int64_t total_steps = 0;
    std::optional<double> expected;
    std::string expected_origin;

    void start();
    void baseline(const recipe::Recipe& r);
};

ProgressReader::ProgressReader(const Services& services, fs::path run_dir) : m(std::make_unique<Impl>()) {
    m->services = services;
    m->run_dir = std::move(run_dir);
}
ProgressReader::~ProgressReader() = default;

// The recipe's inputs, its steps, and what the step time should be: the recipe's
// step_time_s expectation, else the mean of the latest earlier run tagged good.
void ProgressReader::Impl::start() {
    started = true;
    const recipe::Recipe r = recipe::load_recipe(run_dir / "recipe.resolved.yaml", services.catalog());
    inputs = results::inputs_from_recipe(r);
    total_steps = r.steps;
    log_dir = run_dir / "logs" / train_stage(r);
    metrics = r.metrics;
    for (const recipe::Expectation& e : r.expectations)
        if (e.figure == "step_time_s" && e.value) {
            expected = e.value;
            expected_origin = "recipe expectation";
        }
    if (!expected) baseline(r);
}

void ProgressReader::Impl::baseline(const recipe::Recipe& r) {
    try {
        std::unique_ptr<results::Store> store = services.results_store(results::Access::read);
        const std::string target = r.target_name.empty() ? r.target.name : r.target_name;
        for (const results::Result& h : store->history({r.name, target, ""}))
            if (std::find(h.tags.begin(), h.tags.end(), "good") != h.tags.end()) {
                expected = h.step_time_mean;
                expected_origin = "baseline " + h.short_id();
            }
    } catch (const Error& e) {
        spdlog::debug("no baseline for the live progress: {}", e.what());
    }
}

std::optional<results::Progress> ProgressReader::poll() {
    if (!m->started) m->start();
    if (!m->follower) {
        std::string format;
        std::vector<fs::path> files;
        try {
            files = run_log_files(m->log_dir, m->metrics, format);
        } catch (const InputError&) {
            return std::nullopt;  // no training log yet
        }
        m->follower = std::make_unique<results::LogFollower>(files.front(), format);
    }
    if (!m->follower->poll()) return std::nullopt;
    std::optional<results::Progress> p =
        results::progress_of(m->follower->data(), m->inputs, m->total_steps, m->expected, k_drift_threshold);
    if (p) p->expected_origin = m->expected_origin;
    return p;
}

// ---------------------------------------------------------------- wait
namespace {

bool logs_go_with_jobs(const run::RunInfo& run) {
    const backend::BackendInfo* b = backend_info(run);
    return b && b->logs_go_with_jobs;
}

// Streams what the run's running jobs printed into its directory; a log that cannot be read
// yet is tried again at the next poll.
void follow_running(const Services& services, const run::RunInfo& run, const run::BackendProvider& provider) {
    if (!logs_go_with_jobs(run)) return;
    try {
        std::unique_ptr<backend::Backend> b = provider(run, services.processes());
        for (const run::StageState& s : run.stages)
            if (!s.job_id.empty() && s.status.state == backend::JobState::running) b->follow(run.query(s));
    } catch (const Error&) {  // the final collection after the wait reports what fails
    }
}

// The jobs' logs into the run directory before the cluster deletes them, as `logs` does.
std::string collect_logs(const Services& services, const run::RunInfo& run, const run::BackendProvider& provider) {
    if (!logs_go_with_jobs(run)) return {};
    try {
        std::unique_ptr<backend::Backend> b = provider(run, services.processes());
        for (const run::StageState& s : run.stages)
            if (!s.job_id.empty()) (void)b->logs(run.query(s));
    } catch (const Error& e) {
        return fmt::format("could not collect the logs of run {}: {}", run.short_id, e.what());
    }
    return {};
}

// A scheduler that does not answer for a while (a controller restart) does not end a wait:
// the last known state stays, with a warning, until the run ends or the timeout passes.
void refresh_one(const Services& services, run::RunInfo& run, const run::BackendProvider& provider,
                 const WaitOptions& options) {
    std::vector<run::RunInfo> one{run};
    try {
        run::refresh(one, provider, services.processes());
    } catch (const RuntimeError& e) {
        if (options.on_warning)
            options.on_warning(fmt::format("{} (still waiting; the last known state is shown)", e.what()));
    }
    run = one.front();
}

// The progress of new steps; a reader that fails is turned off with a warning.
std::optional<results::Progress> poll_progress(std::optional<ProgressReader>& reader, const WaitOptions& options) {
    if (!reader) return std::nullopt;
    try {
        return reader->poll();
    } catch (const Error& e) {
        reader.reset();
        if (options.on_warning) options.on_warning(fmt::format("no live progress: {}", e.what()));
        return std::nullopt;
    }
}

// Sleeps in small steps so Ctrl-C is noticed at once.
void sleep_interruptibly(double seconds) {
    auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
        check_interrupted();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

}  // namespace

WaitResult wait_run(const Services& services, run::RunInfo run, const WaitOptions& options,
                    const std::function<void(const WaitTick&)>& on_tick) {
    const run::BackendProvider provider = run::default_backend_provider();
    std::optional<ProgressReader> reader(std::in_place, services, run.dir);
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    while (true) {
        refresh_one(services, run, provider, options);
        follow_running(services, run, provider);
        std::optional<results::Progress> progress;
        if (!run.is_final()) progress = poll_progress(reader, options);
        if (on_tick) on_tick(WaitTick{run, elapsed(), std::move(progress)});
        if (run.is_final()) break;
        if (options.timeout_s > 0 && elapsed() >= options.timeout_s) return {std::move(run), true, {}};
        sleep_interruptibly(options.interval_s);
    }
    std::string collect_error = collect_logs(services, run, provider);
    return {std::move(run), false, std::move(collect_error)};
}

}  // namespace trainbench::pipeline
