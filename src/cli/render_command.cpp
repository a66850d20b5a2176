// trainbench render RECIPE...: the job files of each recipe (dry run: no
// scheduler, no network), written to a directory, printed, compared with a
// committed copy, or checked by the real scheduler (sbatch --test-only).
#include "cli/app.hpp"

#include <trainbench/recipe.hpp>
#include <trainbench/render.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <set>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace trainbench::cli {

namespace {

struct RenderCliOptions {
    std::vector<std::string> recipes;
    std::vector<std::string> overrides;
    std::string output;
    bool to_stdout = false;
    std::vector<std::string> all;
    std::string compare;
    bool check = false;
    std::string stage;
    bool no_validate = false;
    bool argv = false;
};

struct Input {
    fs::path file;
    fs::path relative;  // where its files go below -o / --compare in multi-recipe mode
};

constexpr fs::perms k_file_mode =
    fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read;
constexpr fs::perms k_script_mode =
    k_file_mode | fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec;

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

// Reads DIR's files (relative paths), for the "only in the committed copy" check.
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

struct Outcome {
    bool invalid = false;
    bool rejected = false;
    bool differs = false;
};

// --argv: what each framework receives, per stage, as JSON (the conformance suite reads it).
int run_argv(const RenderCliOptions& opts, Context& ctx) {
    recipe::LoadOptions load;
    load.recipe_roots = ctx.data_dirs().recipes;
    for (const std::string& s : opts.overrides) load.overrides.push_back(recipe::parse_override(s));
    render::RenderOptions options;
    options.template_dirs = ctx.data_dirs().templates;
    options.stage = opts.stage;
    ordered_json out = ordered_json::array();
    for (const std::string& file : opts.recipes) {
        recipe::Recipe r = recipe::load_recipe(file, ctx.catalog(), load);
        if (!opts.no_validate) {
            Diagnostics d;
            recipe::validate_recipe(r, d);
            d.throw_if_errors(fmt::format("invalid recipe '{}'", file));
        }
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
    ctx.out << out.dump(2) << "\n";
    return 0;
}

int run_render(const RenderCliOptions& opts, Context& ctx) {
    if (opts.argv) return run_argv(opts, ctx);
    recipe::LoadOptions load;
    load.recipe_roots = ctx.data_dirs().recipes;
    for (const std::string& s : opts.overrides) load.overrides.push_back(recipe::parse_override(s));

    std::vector<Input> inputs;
    for (const std::string& r : opts.recipes) inputs.push_back({r, {}});
    for (const std::string& dir : opts.all) {
        std::error_code ec;
        if (!fs::exists(dir, ec)) throw UsageError(fmt::format("--all: '{}' does not exist", dir));
        for (const fs::path& f : recipe::find_recipe_files(dir)) {
            fs::path rel = fs::relative(f, dir).replace_extension();
            inputs.push_back({f, rel});
        }
    }
    if (inputs.empty()) throw UsageError("no recipe given", "trainbench render RECIPE... or --all DIR");
    const bool multi = inputs.size() > 1 || !opts.all.empty();
    if (opts.to_stdout && multi && (!opts.output.empty() || !opts.compare.empty()))
        throw UsageError("--stdout prints one recipe's job file; it does not combine with -o or --compare for many");
    const bool print_main = opts.to_stdout || (!multi && opts.output.empty() && opts.compare.empty() && !opts.check);

    const catalog::Catalog& cat = ctx.catalog();
    render::RenderOptions render_options;
    render_options.template_dirs = ctx.data_dirs().templates;
    render_options.stage = opts.stage;

    Outcome total;
    int n_ok = 0, n_failed = 0;
    ordered_json results = ordered_json::array();
    for (const Input& in : inputs) {
        check_interrupted();
        ordered_json j = {{"path", in.file.string()}};
        Outcome outcome;
        std::vector<std::string> notes;
        try {
            recipe::Recipe r = recipe::load_recipe(in.file, cat, load);
            if (!opts.no_validate) {
                Diagnostics d;
                recipe::validate_recipe(r, d);
                if (!d.has_errors()) render::check_launch(r, cat, d);
                d.throw_if_errors(fmt::format("invalid recipe '{}'", in.file.string()));
            }
            std::vector<render::RenderedJob> jobs = render::render(r, render_options);
            j["name"] = r.name;
            fs::path rel = in.relative.empty() ? fs::path(r.name) : in.relative;
            fs::path base = multi ? rel : fs::path();
            ordered_json files = ordered_json::array();
            std::size_t n_files = 0;
            for (const render::RenderedJob& job : jobs) n_files += job.files.size();

            if (print_main) {
                for (const render::RenderedJob& job : jobs)
                    for (const render::RenderedFile& f : job.files)
                        if (f.path == job.entrypoint) ctx.out << f.content;
            }
            if (!opts.output.empty()) {
                fs::path root = fs::path(opts.output) / base;
                for (const render::RenderedJob& job : jobs) {
                    for (const render::RenderedFile& f : job.files) {
                        fs::path target = root / job.stage / f.path;
                        fs::create_directories(target.parent_path());
                        write_file_atomic(target, f.content, f.executable ? k_script_mode : k_file_mode);
                        files.push_back(target.string());
                        if (!multi && !ctx.options.json) ctx.out << "wrote " << target.string() << '\n';
                    }
                }
            }
            if (!opts.compare.empty()) {
                fs::path root = fs::path(opts.compare) / base;
                std::set<std::string> committed = files_under(root);
                std::size_t n_diff = 0;
                for (const render::RenderedJob& job : jobs) {
                    for (const render::RenderedFile& f : job.files) {
                        fs::path rel_path = fs::path(job.stage) / f.path;
                        fs::path target = root / rel_path;
                        committed.erase(rel_path.generic_string());
                        std::error_code ec;
                        std::string old = fs::is_regular_file(target, ec) ? read_file(target) : std::string();
                        std::string diff = render::unified_diff(old, f.content, target.string(),
                                                                "rendered/" + rel_path.generic_string());
                        if (!diff.empty()) {
                            ++n_diff;
                            if (!ctx.options.json) ctx.out << diff;
                        }
                    }
                }
                for (const std::string& extra : committed) {
                    ++n_diff;
                    if (!ctx.options.json) ctx.out << fmt::format("only in {}: {}\n", root.string(), extra);
                }
                if (n_diff > 0) {
                    outcome.differs = true;
                    notes.push_back(fmt::format("{} file{} differ{} from {}", n_diff, n_diff == 1 ? "" : "s",
                                                n_diff == 1 ? "s" : "", root.string()));
                }
                j["differences"] = n_diff;
            }
            if (opts.check) {
                ordered_json checks = ordered_json::array();
                for (const render::RenderedJob& job : jobs) {
                    if (job.scheduler != catalog::Scheduler::slurm) {
                        notes.push_back(fmt::format("stage '{}': --check needs a Slurm job, this one is {}", job.stage,
                                                    catalog::to_string(job.scheduler)));
                        continue;
                    }
                    TempDir tmp;
                    for (const render::RenderedFile& f : job.files) {
                        fs::path target = tmp.path() / f.path;
                        fs::create_directories(target.parent_path());
                        write_file_atomic(target, f.content, f.executable ? k_script_mode : k_file_mode);
                    }
                    fs::create_directories(tmp.path() / "logs" / job.stage);
                    fs::create_directories(tmp.path() / "status");
                    ProcessRequest req;
                    req.argv = {"sbatch", "--test-only", job.entrypoint.string()};
                    req.cwd = tmp.path();
                    req.timeout = std::chrono::milliseconds(60000);
                    ProcessResult res = system_process_runner().run(req);
                    std::string answer = first_line(res.err.empty() ? res.out : res.err);
                    checks.push_back({{"stage", job.stage}, {"accepted", res.ok()}, {"answer", answer}});
                    if (res.ok()) {
                        notes.push_back(fmt::format("stage '{}' accepted: {}", job.stage, answer));
                    } else {
                        outcome.rejected = true;
                        notes.push_back(fmt::format("stage '{}' rejected by sbatch --test-only (exit {}): {}",
                                                    job.stage, res.exit_code, answer));
                    }
                }
                j["check"] = checks;
            }
            j["files"] = files;
            j["ok"] = !outcome.differs && !outcome.rejected;
            if (!ctx.options.json && (multi || opts.check || !opts.compare.empty())) {
                std::string where =
                    opts.output.empty() ? std::string() : " -> " + (fs::path(opts.output) / base).string();
                ctx.out << fmt::format("{}  {} ({} file{}{}){}\n",
                                       outcome.rejected  ? "FAIL"
                                       : outcome.differs ? "DIFF"
                                                         : "ok  ",
                                       in.file.string(), n_files, n_files == 1 ? "" : "s", where,
                                       notes.empty() ? "" : ": " + fmt::format("{}", fmt::join(notes, "; ")));
            }
        } catch (const InputError& e) {
            outcome.invalid = true;
            if (!ctx.options.json) {
                for (const Diagnostic& x : e.diagnostics().sorted()) ctx.err << x.format() << '\n';
                ctx.err << "trainbench: error: " << e.what() << '\n';
                if (!e.hint().empty()) ctx.err << "  hint: " << e.hint() << '\n';
                ctx.out << fmt::format("FAIL  {} ({})\n", in.file.string(), e.what());
            }
            j["ok"] = false;
            j["error"] = e.what();
        }
        (outcome.invalid || outcome.rejected || outcome.differs) ? ++n_failed : ++n_ok;
        total.invalid |= outcome.invalid;
        total.rejected |= outcome.rejected;
        total.differs |= outcome.differs;
        results.push_back(j);
    }
    if (ctx.options.json) {
        print_json(
            ctx,
            ordered_json{{"recipes", results}, {"total", inputs.size()}, {"ok", n_ok}, {"failed", n_failed}}.dump(2));
    } else if (multi) {
        ctx.out << fmt::format("{} recipe{}: {} ok, {} failed\n", inputs.size(), inputs.size() == 1 ? "" : "s", n_ok,
                               n_failed);
    }
    if (total.invalid) return static_cast<int>(ExitCode::invalid_input);
    if (total.rejected) return static_cast<int>(ExitCode::runtime);
    if (total.differs) return static_cast<int>(ExitCode::expectation_failed);
    return 0;
}

}  // namespace

void setup_render_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<RenderCliOptions>();
    CLI::App* cmd =
        root.add_subcommand("render", "Render the job files of recipes (dry run: no scheduler, no network)");
    cmd->add_option("recipes", opts->recipes, "Recipe files");
    cmd->add_option("-s,--set", opts->overrides, "Override a value in every recipe: -s key=value (repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("-o,--output", opts->output,
                    "Write the files to DIR/<stage>/ (many recipes: DIR/<recipe path>/<stage>/)");
    cmd->add_flag("--stdout", opts->to_stdout, "Print the main job file (sbatch script, manifests, run.sh)");
    cmd->add_option("--all", opts->all, "Render every recipe under DIR (skips catalog/ and common/ folders)")
        ->allow_extra_args(false);
    cmd->add_option(
        "--compare", opts->compare,
        "Compare with a committed render in DIR (same layout as -o); print a unified diff, exit 5 on a difference");
    cmd->add_flag("--check", opts->check,
                  "Ask the real Slurm scheduler to validate each batch script (sbatch --test-only; nothing runs)");
    cmd->add_option("--stage", opts->stage, "Render only this stage");
    cmd->add_flag("--argv", opts->argv,
                  "Print, as JSON, the command each stage hands its framework (program, version, argv, config file)");
    cmd->add_flag("--no-validate", opts->no_validate,
                  "Skip the semantic checks (parallelism, memory fit); the schema is still checked");
    cmd->footer(R"(Examples:
  trainbench render recipes/aws-p4d/gpt3-126m.yaml --stdout
  trainbench render recipes/gcp-a3-mega/gpt3-175b-fp8.yaml -s nodes=16 -o out/
  trainbench render --all recipes/ -o out/
  trainbench render --all recipes/ --compare tests/golden/render
  trainbench render recipes/local-slurm/tinygpt-2n.yaml --check
  trainbench render recipes/aws-p4d/gpt3-126m.yaml --argv
Output is deterministic: the same recipe renders to the same bytes. Exit codes: 0 ok, 3 a recipe
or template is invalid, 4 sbatch --test-only rejected a script, 5 --compare found a difference.
Templates: --templates DIR overrides any shipped template (docs/templates.md).)");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_render(*opts, ctx); }; });
}

}  // namespace trainbench::cli
