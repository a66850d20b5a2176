// Private to the CLI: the context every command receives and the command table.
#pragma once

#include <trainbench/core.hpp>
#include <trainbench/pipeline.hpp>

#include <CLI/CLI.hpp>

#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace trainbench::cli {

// Options every command accepts (defined once on the root, seen by subcommands).
struct GlobalOptions {
    bool json = false;
    int verbose = 0;
    bool quiet = false;
    std::string recipes_dir;    // --recipes: an extra catalog/recipe directory
    std::string templates_dir;  // --templates: a template directory that overrides shipped templates
    std::string runs_dir;       // --runs: the run store root
    std::string results;        // --results: the results database (docs/results.md)
};

// What a command needs from the outside world: streams, global options and
// lazily loaded shared data.
struct Context {
    GlobalOptions options;
    std::ostream& out;
    std::ostream& err;
    bool err_is_tty = false;
    // Set by the chosen command's CLI11 callback; run() invokes it inside the one try/catch.
    std::function<int()> action;

    Context(std::ostream& o, std::ostream& e) : out(o), err(e) {}

    [[nodiscard]] DataDirs data_dirs() const;
    [[nodiscard]] const catalog::Catalog& catalog();
    // GPUs and models (what a report of bare logs reads): the whole catalog when it is loaded
    // already, else the catalog without its targets, and with only `model`'s file read when
    // one is named.
    [[nodiscard]] const catalog::Catalog& catalog_without_targets(std::string_view model = {});
    // The run store root: --runs, else $TRAINBENCH_RUNS, else ./runs.
    [[nodiscard]] std::filesystem::path runs_root() const;
    // What the use cases need (pipeline), built from the options above.
    [[nodiscard]] pipeline::Services services();
    // The process runner every command uses: `process_override` when a test sets one, else
    // the system's (this is the one place that names system_process_runner()).
    [[nodiscard]] ProcessRunner& processes() const;
    ProcessRunner* process_override = nullptr;
    // Colour on stdout: a TTY, and no NO_COLOR (report::use_colour).
    [[nodiscard]] bool out_colour() const;
    // "warning: ..." on stderr (respects -q).
    void warn(const std::string& message) const;

private:
    std::optional<catalog::Catalog> m_catalog;
    std::map<std::string, catalog::Catalog, std::less<>> m_catalogs_without_targets;  // by model ("": all)
};

using SetupFn = void (*)(CLI::App& root, Context& ctx);

struct CommandInfo {
    const char* name;
    const char* summary;
    SetupFn setup;
};

// The one list of commands (commands.cpp). Help and did-you-mean derive from it.
const std::vector<CommandInfo>& command_table();

// Helpers shared by commands.
void print_json(Context& ctx, const std::string& json_text);

}  // namespace trainbench::cli
