#include "cli/app.hpp"

#include <trainbench/cli.hpp>
#include <trainbench/report.hpp>

#include <fmt/format.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace trainbench::cli {

DataDirs Context::data_dirs() const {
    std::optional<fs::path> recipes, templates;
    if (!options.recipes_dir.empty()) recipes = options.recipes_dir;
    if (!options.templates_dir.empty()) templates = options.templates_dir;
    return default_data_dirs(recipes, templates);
}

const catalog::Catalog& Context::catalog() {
    if (!m_catalog) m_catalog = catalog::Catalog::load(data_dirs().recipes);
    return *m_catalog;
}

const catalog::Catalog& Context::catalog_without_targets(std::string_view model) {
    if (m_catalog) return *m_catalog;
    // (a map: a catalog handed out stays where it is when another is loaded)
    if (auto it = m_catalogs_without_targets.find(""); it != m_catalogs_without_targets.end()) return it->second;
    if (auto it = m_catalogs_without_targets.find(model); it != m_catalogs_without_targets.end()) return it->second;
    catalog::Catalog c = catalog::Catalog::load(data_dirs().recipes, catalog::CatalogParts::without_targets, model);
    return m_catalogs_without_targets.emplace(std::string(model), std::move(c)).first->second;
}

fs::path Context::runs_root() const {
    if (!options.runs_dir.empty()) return options.runs_dir;
    if (const char* env = std::getenv("TRAINBENCH_RUNS"); env && *env) return env;
    return fs::path("runs");
}

pipeline::Services Context::services() {
    pipeline::Services s;
    s.catalog = [this]() -> const catalog::Catalog& { return catalog(); };
    s.catalog_without_targets = [this](std::string_view model) -> const catalog::Catalog& {
        return catalog_without_targets(model);
    };
    s.runs_root = runs_root();
    s.dirs = data_dirs();
    s.runner = &processes();
    s.results_location = options.results;
    return s;
}

ProcessRunner& Context::processes() const {
    return process_override ? *process_override : system_process_runner();
}

bool Context::out_colour() const {
    return report::use_colour(&out == &std::cout && ::isatty(1));
}

void Context::warn(const std::string& message) const {
    if (!options.quiet) err << "trainbench: warning: " << message << '\n';
}

void print_json(Context& ctx, const std::string& json_text) {
    ctx.out << json_text << '\n';
}

namespace {

void print_error(Context& ctx, const std::string& message, const std::string& hint) {
    bool color = report::use_colour(ctx.err_is_tty);
    ctx.err << (color ? "trainbench: \033[1;31merror:\033[0m " : "trainbench: error: ") << message << '\n';
    if (!hint.empty()) ctx.err << "  hint: " << hint << '\n';
}

void print_diagnostics(Context& ctx, const Diagnostics& diagnostics) {
    for (const Diagnostic& d : diagnostics.sorted()) ctx.err << d.format() << '\n';
}

void setup_logging(const Context& ctx) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(ctx.err);
    auto logger = std::make_shared<spdlog::logger>("trainbench", sink);
    logger->set_pattern("trainbench: %l: %v");
    spdlog::level::level_enum level = spdlog::level::warn;
    if (ctx.options.quiet) level = spdlog::level::err;
    if (ctx.options.verbose == 1) level = spdlog::level::info;
    if (ctx.options.verbose == 2) level = spdlog::level::debug;
    if (ctx.options.verbose >= 3) level = spdlog::level::trace;
    logger->set_level(level);
    spdlog::set_default_logger(logger);
}

std::vector<std::string> command_names() {
    std::vector<std::string> names;
    for (const CommandInfo& c : command_table()) names.emplace_back(c.name);
    return names;
}

constexpr const char* k_footer = R"(Examples:
  trainbench list targets
  trainbench validate recipes/aws-p4d/gpt3-126m.yaml
  trainbench show recipes/aws-p4d/gpt3-126m.yaml -s nodes=4 --origin
  trainbench render recipes/gcp-a3-mega/gpt3-175b-fp8.yaml -o out/
  trainbench run recipes/local/tinygpt.yaml
  trainbench report runs/tinygpt-local/<run>

Exit codes: 0 ok, 1 internal error, 2 usage, 3 invalid input, 4 scheduler/runtime
failure, 5 expectation failed or regression, 6 busy (sweep --no-wait), 130 interrupted. See
docs/cli.md.)";

}  // namespace

namespace {
// The word in the command's place: the first argument that is neither a global option nor
// the value of one ("trainbench --runs DIR sumbit x" -> "sumbit").
std::string command_word(const std::vector<std::string>& args) {
    static const std::vector<std::string> with_value = {"--recipes", "--templates", "--runs", "--results"};
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (std::find(with_value.begin(), with_value.end(), args[i]) != with_value.end()) {
            ++i;
            continue;
        }
        if (args[i].rfind('-', 0) != 0) return args[i];
    }
    return {};
}
}  // namespace

namespace {

int run_with(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, ProcessRunner* processes) {
    Context ctx(out, err);
    ctx.process_override = processes;
    ctx.err_is_tty = (&err == &std::cerr) && ::isatty(2);
    CLI::App app{
        "trainbench: declarative LLM pre-training benchmarks on GPU clusters.\n"
        "Validate a recipe, render its job files, submit, track and report.",
        "trainbench"};
    app.footer(k_footer);
    app.set_version_flag("-V,--version", std::string(version()));
    app.fallthrough(true);
    app.require_subcommand(0, 1);
    app.add_flag("--json", ctx.options.json, "Machine-readable JSON output on stdout");
    app.add_flag("-v,--verbose", ctx.options.verbose, "More log output on stderr (repeatable)");
    app.add_flag("-q,--quiet", ctx.options.quiet, "Only errors on stderr");
    app.add_option("--recipes", ctx.options.recipes_dir, "Extra catalog/recipe directory (also $TRAINBENCH_RECIPES)");
    app.add_option("--templates", ctx.options.templates_dir,
                   "Template directory that overrides shipped templates (also $TRAINBENCH_TEMPLATES)");
    app.add_option("--runs", ctx.options.runs_dir, "Run store root (also $TRAINBENCH_RUNS; default ./runs)");
    app.add_option("--results", ctx.options.results,
                   "Results database: a SQLite file or postgresql://... (also $TRAINBENCH_RESULTS; default "
                   "RUNS/results.sqlite)");
    for (const CommandInfo& c : command_table()) c.setup(app, ctx);

    std::vector<std::string> reversed(args.rbegin(), args.rend());
    try {
        app.parse(reversed);
    } catch (const CLI::CallForHelp&) {
        out << app.help();
        return 0;
    } catch (const CLI::CallForAllHelp&) {
        out << app.help("", CLI::AppFormatMode::All);
        return 0;
    } catch (const CLI::CallForVersion&) {
        out << "trainbench " << version() << '\n';
        return 0;
    } catch (const CLI::ParseError& e) {
        const std::vector<std::string> names = command_names();
        const std::string word = command_word(args);
        if (!word.empty() && app.get_subcommands().empty() &&
            std::find(names.begin(), names.end(), word) == names.end()) {
            std::string hint = did_you_mean(word, names);
            print_error(ctx, fmt::format("unknown command '{}'", word),
                        hint.empty() ? "run 'trainbench --help' for the commands" : hint);
        } else {
            print_error(ctx, e.what(), "run 'trainbench --help' for usage");
        }
        return static_cast<int>(ExitCode::usage);
    }
    setup_logging(ctx);
    if (!ctx.action) {
        if (!args.empty() && app.remaining_size() > 0) {
            std::string first = app.remaining().front();
            print_error(ctx, fmt::format("unknown command '{}'", first), did_you_mean(first, command_names()));
            return static_cast<int>(ExitCode::usage);
        }
        out << app.help();
        return args.empty() ? static_cast<int>(ExitCode::usage) : 0;
    }
    install_interrupt_handlers();
    try {
        return ctx.action();
    } catch (const InputError& e) {
        print_diagnostics(ctx, e.diagnostics());
        print_error(ctx, e.what(), e.hint());
        return static_cast<int>(e.exit_code());
    } catch (const Error& e) {
        print_error(ctx, e.what(), e.hint());
        return static_cast<int>(e.exit_code());
    } catch (const CLI::ParseError& e) {
        print_error(ctx, e.what(), {});
        return static_cast<int>(ExitCode::usage);
    } catch (const std::exception& e) {
        print_error(ctx, fmt::format("internal error: {}", e.what()), "please report this as a bug");
        return static_cast<int>(ExitCode::internal);
    }
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    return run_with(args, out, err, nullptr);
}

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, ProcessRunner& processes) {
    return run_with(args, out, err, &processes);
}

}  // namespace trainbench::cli
