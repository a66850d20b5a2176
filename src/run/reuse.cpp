// Prepared once, reused: a validate or prepare-data stage that an earlier run
// of the store submitted with the same inputs is not submitted again. The
// store keeps one record per stage key (.reuse/<kind>-<hash>.json: which run
// and job did it); a later submission asks that job's state: finished well
// (and, for validation, within its freshness window) -> skipped; still
// pending or running -> skipped, and the next stage waits for that job too;
// anything else -> submitted again. docs/stages.md.
#include <trainbench/run.hpp>

#include <fmt/format.h>

#include <chrono>

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace trainbench::run {

namespace {

// What makes a validated cluster the same: where (target, partition, host lists,
// reservation), how many nodes, and what was checked.
ordered_json validate_key(const recipe::Recipe& r, const recipe::Stage& s) {
    recipe::ValidateOptions v = recipe::validate_options(r, s);
    return {{"kind", "validate"},
            {"target", r.target.name},
            {"partition", r.slurm.partition},
            {"nodelist", r.slurm.nodelist},
            {"exclude", r.slurm.exclude},
            {"reservation", r.slurm.reservation},
            {"nodes", v.nodes},
            {"dcgm", v.dcgm.enabled ? v.dcgm.level : 0},
            {"nccl_tests", v.nccl.enabled ? v.nccl.tests : std::vector<std::string>{}},
            {"threshold_gbs", v.nccl.busbw_threshold_gbs}};
}

// What makes a prepared dataset the same: its source, tokenizer and output path.
ordered_json prepare_key(const recipe::Recipe& r, const recipe::Stage& s) {
    recipe::PrepareDataOptions p = recipe::prepare_data_options(r, s);
    ordered_json prefixes = ordered_json::array();
    for (const recipe::DataPrefix& d : recipe::prepared_prefixes(r, p)) prefixes.push_back(d.prefix);
    return {{"kind", "prepare-data"},
            {"dataset", p.dataset},
            {"url", p.url},
            {"shards", p.shards},
            {"chunks", p.chunks},
            {"download", {p.download_chunks, p.download_shards}},
            {"tokenizer", p.tokenizer_type},
            {"vocab_file", p.vocab_file},
            {"merge_file", p.merge_file},
            {"output_dir", p.output_dir},
            {"command", p.command},
            {"prefixes", prefixes}};
}

fs::path record_path(const fs::path& root, const ordered_json& key) {
    return root / ".reuse" / fmt::format("{}-{:016x}.json", key["kind"].get<std::string>(), fnv1a(key.dump()));
}

std::optional<ordered_json> key_of(const recipe::Recipe& r, const recipe::Stage& s) {
    if (r.target.scheduler == catalog::Scheduler::local) return std::nullopt;  // nothing outlives the machine
    if (s.kind == "validate") return validate_key(r, s);
    if (s.kind == "prepare-data") return prepare_key(r, s);
    return std::nullopt;
}

// Hours since the stage's exit status was written (its end); on Kubernetes, where the status
// file stays in the pod, since the end the scheduler gave ("2026-11-23T22:00:00Z").
double hours_since_end(const RunInfo& run, const StageState& stage) {
    std::error_code ec;
    auto t = fs::last_write_time(run.dir / "status" / (stage.name + ".exit"), ec);
    if (!ec) return std::chrono::duration<double, std::ratio<3600>>(fs::file_time_type::clock::now() - t).count();
    const auto ended = parse_utc(stage.status.ended);
    if (!ended) return 1e9;
    return std::chrono::duration<double, std::ratio<3600>>(std::chrono::system_clock::now() - *ended).count();
}

// The prefixes of a finished preparation still there (when this host sees the directory).
std::string missing_output(const recipe::Recipe& r, const recipe::Stage& s) {
    recipe::PrepareDataOptions p = recipe::prepare_data_options(r, s);
    std::error_code ec;
    if (p.output_dir.empty() || !fs::is_directory(p.output_dir, ec)) return {};
    for (const recipe::DataPrefix& d : recipe::prepared_prefixes(r, p))
        for (const char* ext : {".bin", ".idx"})
            if (!fs::exists(d.prefix + ext, ec)) return d.prefix + ext;
    return {};
}

std::string read_nodes(const fs::path& file) {
    std::error_code ec;
    if (!fs::exists(file, ec)) return {};
    std::string text = read_file(file), out;
    for (char c : text) out += c == '\n' ? ' ' : c;
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

// The decision for one stage with a record; nullopt = submit it again (with `note` saying why).
std::optional<StageReuse> judge(const recipe::Recipe& r, const recipe::Stage& s, const ordered_json& rec,
                                const BackendProvider& provider, ProcessRunner& runner, std::string& note) {
    fs::path dir = rec.value("run_dir", std::string());
    std::string stage = rec.value("stage", std::string());
    std::error_code ec;
    if (dir.empty() || !fs::is_directory(dir, ec)) return std::nullopt;
    std::vector<RunInfo> runs{load_run(dir)};
    refresh(runs, provider, runner);
    const RunInfo& from = runs.front();
    auto it =
        std::find_if(from.stages.begin(), from.stages.end(), [&](const StageState& x) { return x.name == stage; });
    if (it == from.stages.end() || it->job_id.empty()) return std::nullopt;
    StageReuse u{
        s.name, s.kind, from.run_id, from.dir, stage, it->job_id, std::string(backend::to_string(it->status.state)),
        {}};
    const backend::JobState st = it->status.state;
    const bool running = st == backend::JobState::pending || st == backend::JobState::running;
    if (running && r.target.scheduler == catalog::Scheduler::kubernetes) {
        // A Kubernetes stage waits for a Job of its own run only (docs/stages.md).
        note = fmt::format(
            "the last {} (run {}) is still {}; on Kubernetes a run waits only for its own stages: "
            "submitting it again",
            s.kind, from.short_id, u.state);
        return std::nullopt;
    }
    if (running) {
        u.detail = fmt::format("job {} still {}: this run waits for it", u.job_id, u.state);
        return u;
    }
    if (st != backend::JobState::completed) {
        note = fmt::format("the last {} (run {}) ended {}: submitting it again", s.kind, from.short_id, u.state);
        return std::nullopt;
    }
    if (s.kind == "validate") {
        double age = hours_since_end(from, *it), limit = recipe::validate_options(r, s).reuse_hours;
        if (age > limit) {
            note =
                fmt::format("the last validation (run {}) is {:.1f} h old, older than reuse_hours {}: validating again",
                            from.short_id, age, limit);
            return std::nullopt;
        }
        std::string nodes = read_nodes(from.dir / "logs" / stage / "nodes.txt");
        u.detail = fmt::format("validated {:.1f} h ago{}", age, nodes.empty() ? "" : " on " + nodes);
    } else if (std::string missing = missing_output(r, s); !missing.empty()) {
        note = fmt::format("the data prepared by run {} is gone ({}): preparing again", from.short_id, missing);
        return std::nullopt;
    } else {
        u.detail = "prepared data in place";
    }
    return u;
}

}  // namespace

std::vector<StageReuse> plan_reuse(const fs::path& store_root, const recipe::Recipe& r, const ReuseFlags& flags,
                                   const BackendProvider& provider, ProcessRunner& runner,
                                   std::vector<std::string>& notes) {
    std::vector<StageReuse> out;
    for (const recipe::Stage& s : render::effective_stages(r)) {
        std::optional<ordered_json> key = key_of(r, s);
        if (!key) continue;
        if ((s.kind == "validate" && flags.revalidate) || (s.kind == "prepare-data" && flags.reprepare)) continue;
        if (s.kind == "validate" && recipe::validate_options(r, s).reuse_hours <= 0) continue;
        fs::path file = record_path(store_root, *key);
        std::error_code ec;
        if (!fs::exists(file, ec)) continue;
        ordered_json rec = ordered_json::parse(read_file(file), nullptr, false);
        if (!rec.is_object()) continue;
        std::string note;
        if (std::optional<StageReuse> u = judge(r, s, rec, provider, runner, note))
            out.push_back(*u);
        else if (!note.empty())
            notes.push_back(note);
    }
    return out;
}

std::vector<render::RenderedJob> apply_reuse(const RunInfo& run, const std::vector<render::RenderedJob>& jobs,
                                             const std::vector<StageReuse>& reused, SubmitOptions& options) {
    std::vector<render::RenderedJob> kept;
    std::string waits;  // job ids of reused stages still running, for the next submitted stage
    ordered_json record = ordered_json::array();
    for (const render::RenderedJob& job : jobs) {
        auto u = std::find_if(reused.begin(), reused.end(), [&](const StageReuse& x) { return x.stage == job.stage; });
        if (u == reused.end()) {
            if (!waits.empty()) options.also_after[job.stage] = waits;
            waits.clear();
            kept.push_back(job);
            continue;
        }
        ordered_json e = {{"event", "reused"},
                          {"stage", u->stage},
                          {"kind", u->kind},
                          {"from_run", u->from_run},
                          {"from_dir", u->from_dir.string()},
                          {"from_stage", u->from_stage},
                          {"job_id", u->job_id},
                          {"state", u->state},
                          {"detail", u->detail}};
        append_event(run.dir, e);
        e.erase("event");
        record.push_back(e);
        if (u->state != "COMPLETED") waits += (waits.empty() ? "" : ":") + u->job_id;
    }
    if (!record.empty()) write_file_atomic(run.dir / "reused.json", record.dump(2) + "\n");
    return kept;
}

void record_shared_stages(const fs::path& store_root, const recipe::Recipe& r, const RunInfo& run) {
    for (const recipe::Stage& s : render::effective_stages(r)) {
        std::optional<ordered_json> key = key_of(r, s);
        if (!key) continue;
        auto it = std::find_if(run.stages.begin(), run.stages.end(),
                               [&](const StageState& x) { return x.name == s.name && !x.job_id.empty(); });
        if (it == run.stages.end()) continue;
        ordered_json rec = {{"key", *key},
                            {"run_id", run.run_id},
                            {"run_dir", run.dir.string()},
                            {"stage", s.name},
                            {"job_id", it->job_id}};
        fs::path file = record_path(store_root, *key);
        std::error_code ec;
        fs::create_directories(file.parent_path(), ec);
        write_file_atomic(file, rec.dump(2) + "\n");
    }
}

}  // namespace trainbench::run
