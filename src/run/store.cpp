// The run store: run ids, fresh run directories and their run.json, locks, the rendered
// files, listing and resolving runs. (A run as its directory records it: run_info.cpp.)
#include "run/json_text.hpp"
#include "run/time.hpp"

#include <trainbench/run.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <random>
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

}  // namespace

std::string random_short_id() {
    static std::mt19937_64 rng{std::random_device{}() ^ static_cast<unsigned long>(::getpid())};
    return fmt::format("{:06x}", rng() & 0xffffff);
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
