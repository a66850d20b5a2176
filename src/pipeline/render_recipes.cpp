// The render use case: every recipe loaded, validated, rendered, then
// written, compared with a committed copy, or checked by sbatch --test-only.
#include "pipeline/file_modes.hpp"

#include <trainbench/pipeline.hpp>

#include <fmt/format.h>

#include <map>
#include <set>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace trainbench::pipeline {

namespace {

// A temporary directory removed when the object goes away.
class TempDir {
public:
    TempDir() {
        std::string tmpl = (fs::temp_directory_path() / "trainbench-check-XXXXXX").string();
        if (!::mkdtemp(tmpl.data())) throw RuntimeError("cannot create a temporary directory for --check");
        m_path = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(m_path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    [[nodiscard]] const fs::path& path() const { return m_path; }

private:
    fs::path m_path;
};

std::string first_line(const std::string& text) {
    std::string t = text;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
    return t;
}

// DIR's files (relative paths), for the "only in the committed copy" check.
std::set<std::string> files_under(const fs::path& dir) {
    std::set<std::string> out;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return out;
    for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (ec) break;
        if (it->is_regular_file(ec)) out.insert(fs::relative(it->path(), dir).generic_string());
    }
    return out;
}

void compare_with(const std::vector<render::RenderedJob>& jobs, const fs::path& root, RenderOutcome& o) {
    std::set<std::string> committed = files_under(root);
    for (const render::RenderedJob& job : jobs) {
        for (const render::RenderedFile& f : job.files) {
            fs::path rel_path = fs::path(job.stage) / f.path;
            fs::path target = root / rel_path;
            committed.erase(rel_path.generic_string());
            std::error_code ec;
            std::string old = fs::is_regular_file(target, ec) ? read_file(target) : std::string();
            std::string diff =
                render::unified_diff(old, f.content, target.string(), "rendered/" + rel_path.generic_string());
            if (!diff.empty()) o.differences.push_back(diff);
        }
    }
    for (const std::string& extra : committed)
        o.differences.push_back(fmt::format("only in {}: {}\n", root.string(), extra));
    o.compared = true;
    const std::size_t n = o.differences.size();
    if (n > 0)
        o.notes.push_back(
            fmt::format("{} file{} differ{} from {}", n, n == 1 ? "" : "s", n == 1 ? "s" : "", root.string()));
}

// sbatch --test-only on a job's batch script, in a scratch copy of its files.
void check_with_slurm(const render::RenderedJob& job, ProcessRunner& runner, RenderOutcome& o) {
    if (job.scheduler != catalog::Scheduler::slurm) {
        o.notes.push_back(fmt::format("stage '{}': --check needs a Slurm job, this one is {}", job.stage,
                                      catalog::to_string(job.scheduler)));
        return;
    }
    TempDir tmp;
    (void)write_job_files(job, tmp.path());
    fs::create_directories(tmp.path() / "logs" / job.stage);
    fs::create_directories(tmp.path() / "status");
    ProcessRequest req;
    req.argv = {"sbatch", "--test-only", job.entrypoint.string()};
    req.cwd = tmp.path();
    req.timeout = std::chrono::milliseconds(60000);
    ProcessResult res = runner.run(req);
    std::string answer = first_line(res.err.empty() ? res.out : res.err);
    o.checks.push_back({{"stage", job.stage}, {"accepted", res.ok()}, {"answer", answer}});
    if (res.ok()) {
        o.notes.push_back(fmt::format("stage '{}' accepted: {}", job.stage, answer));
    } else {
        o.rejected = true;
        o.notes.push_back(
            fmt::format("stage '{}' rejected by sbatch --test-only (exit {}): {}", job.stage, res.exit_code, answer));
    }
}

// One recipe: load, validate, render, then write / compare / check as asked.
void render_one(const RenderRequest& rq, const RenderInput& in, const catalog::Catalog& cat, ProcessRunner& runner,
                RenderOutcome& o) {
    recipe::Recipe r =
        load_checked_recipe(cat, in.file, rq.load, rq.validate ? RecipeChecks::launch : RecipeChecks::none);
    std::vector<render::RenderedJob> jobs = render::render(r, rq.render);
    o.name = r.name;
    o.base = rq.many ? (in.relative.empty() ? fs::path(r.name) : in.relative) : fs::path();
    for (const render::RenderedJob& job : jobs) {
        o.files += job.files.size();
        for (const render::RenderedFile& f : job.files)
            if (rq.entrypoints && f.path == job.entrypoint) o.entrypoints.push_back(f.content);
    }
    if (!rq.output.empty())
        for (const render::RenderedJob& job : jobs)
            for (fs::path& p : write_job_files(job, rq.output / o.base / job.stage)) o.written.push_back(std::move(p));
    if (!rq.compare.empty()) compare_with(jobs, rq.compare / o.base, o);
    o.checked = rq.check;
    if (rq.check)
        for (const render::RenderedJob& job : jobs) check_with_slurm(job, runner, o);
}

}  // namespace

std::vector<fs::path> write_job_files(const render::RenderedJob& job, const fs::path& dir) {
    std::vector<fs::path> written;
    for (const render::RenderedFile& f : job.files) {
        fs::path target = dir / f.path;
        fs::create_directories(target.parent_path());
        write_file_atomic(target, f.content, f.executable ? k_script_mode : k_file_mode);
        written.push_back(std::move(target));
    }
    return written;
}

ordered_json framework_argv(const std::vector<std::string>& files, const recipe::LoadOptions& load,
                            const render::RenderOptions& options, bool validate, const catalog::Catalog& catalog) {
    ordered_json out = ordered_json::array();
    for (const std::string& file : files) {
        // (not the launch check: the conformance suite checks these lines against the real sources)
        recipe::Recipe r =
            load_checked_recipe(catalog, file, load, validate ? RecipeChecks::recipe : RecipeChecks::none);
        std::map<std::string, ordered_json> stages;
        for (const render::LaunchCommand& c : render::launch_commands(r, options)) {
            ordered_json& st = stages[c.stage];
            if (st.is_null())
                st = {{"recipe", r.name},
                      {"file", file},
                      {"stage", c.stage},
                      {"kind", c.kind},
                      {"framework", r.framework},
                      {"framework_version", r.framework_version},
                      {"commands", ordered_json::array()}};
            ordered_json cmd = {{"program", c.program}, {"version", c.version}, {"argv", c.argv}};
            if (!c.config_file.empty()) {
                // Relative to the stage's rendered files (rendered/<stage>/ in a run directory).
                cmd["config_dir"] = ".";
                cmd["config_name"] = fs::path(c.config_file).stem().string();
            }
            st["commands"].push_back(cmd);
        }
        for (const recipe::Stage& s : render::effective_stages(r))
            if (stages.count(s.name)) out.push_back(stages[s.name]);
    }
    return out;
}

void render_recipes(const RenderRequest& rq, const catalog::Catalog& cat, ProcessRunner& runner,
                    const std::function<void(const RenderOutcome&)>& each) {
    for (const RenderInput& in : rq.inputs) {
        check_interrupted();
        RenderOutcome o;
        o.file = in.file;
        try {
            render_one(rq, in, cat, runner, o);
        } catch (const InputError& e) {
            o.invalid = true;
            o.error = e;
        }
        each(o);
    }
}

}  // namespace trainbench::pipeline
