// core: what every other module stands on. The error family and exit codes,
// located diagnostics for user input, "did you mean", atomic file writes,
// quoting for the outputs we generate, external processes run by argv, and
// where the shipped data (recipes/, templates/, workloads/) lives.
//
// core knows nothing about recipes, schedulers or logs.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace trainbench {

// ---------------------------------------------------------------- exit codes
// The one table of exit codes (docs/cli.md repeats it).
enum class ExitCode : int {
    ok = 0,                  // success
    internal = 1,            // a bug or an unexpected failure
    usage = 2,               // bad command line
    invalid_input = 3,       // invalid recipe, catalog, template, sweep or log file
    runtime = 4,             // scheduler, backend or file-system failure
    expectation_failed = 5,  // the run finished but a stated expectation failed, or regress found it slower
    interrupted = 130,       // SIGINT / SIGTERM
};

// ---------------------------------------------------------------- diagnostics
// Where a value came from: a file position (1-based line and column) or a
// command-line override ("-s nodes=4"). An empty file means "unknown".
struct SourceLocation {
    std::string file;
    int line = 0;
    int column = 0;
    std::string override_text;  // set when the value came from -s k=v

    [[nodiscard]] bool known() const { return !file.empty() || !override_text.empty(); }
    // "file:line:col", "file", "-s nodes=4" or "".
    [[nodiscard]] std::string to_string() const;
};

enum class Severity { error, warning, note };

// One problem in user input: where, which key, what is wrong, what was
// expected, and a hint (usually "did you mean 'x'?").
struct Diagnostic {
    Severity severity = Severity::error;
    SourceLocation location;
    std::string key;       // dotted key path, e.g. "parallelism.tensor"; may be empty
    std::string message;   // lower-case, no trailing full stop, values quoted
    std::string expected;  // e.g. "an integer >= 1"; may be empty
    std::string hint;      // e.g. "did you mean 'tensor'?"; may be empty

    // "file:line:col: error: key 'k': message (expected X)\n  hint: ...".
    [[nodiscard]] std::string format() const;
};

// Collects every problem in a piece of user input so the user sees all of
// them at once; throw_if_errors() is the checkpoint.
class Diagnostics {
public:
    void add(Diagnostic d);
    void error(SourceLocation where, std::string key, std::string message, std::string expected = {},
               std::string hint = {});
    void warning(SourceLocation where, std::string key, std::string message, std::string hint = {});

    [[nodiscard]] bool has_errors() const;
    [[nodiscard]] std::size_t error_count() const;
    [[nodiscard]] const std::vector<Diagnostic>& items() const { return m_items; }
    // Stable order: by file, line, column, then insertion.
    [[nodiscard]] std::vector<Diagnostic> sorted() const;
    [[nodiscard]] std::string format() const;
    // Throws InputError carrying these diagnostics when any is an error.
    void throw_if_errors(std::string_view what) const;
    void merge(const Diagnostics& other);

private:
    std::vector<Diagnostic> m_items;
};

// ---------------------------------------------------------------- errors
// One exception family, caught once in cli::run and mapped to an exit code.
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message, std::string hint = {})
        : std::runtime_error(message), m_hint(std::move(hint)) {}
    [[nodiscard]] const std::string& hint() const { return m_hint; }
    [[nodiscard]] virtual ExitCode exit_code() const { return ExitCode::internal; }

private:
    std::string m_hint;
};

class UsageError : public Error {
public:
    using Error::Error;
    [[nodiscard]] ExitCode exit_code() const override { return ExitCode::usage; }
};

// Invalid recipe, catalog, template, sweep or log. May carry diagnostics.
class InputError : public Error {
public:
    using Error::Error;
    InputError(const std::string& message, Diagnostics diagnostics)
        : Error(message), m_diagnostics(std::move(diagnostics)) {}
    [[nodiscard]] ExitCode exit_code() const override { return ExitCode::invalid_input; }
    [[nodiscard]] const Diagnostics& diagnostics() const { return m_diagnostics; }

private:
    Diagnostics m_diagnostics;
};

// Scheduler, backend, process or file-system failure.
class RuntimeError : public Error {
public:
    using Error::Error;
    [[nodiscard]] ExitCode exit_code() const override { return ExitCode::runtime; }
};

class ExpectationError : public Error {
public:
    using Error::Error;
    [[nodiscard]] ExitCode exit_code() const override { return ExitCode::expectation_failed; }
};

class InterruptedError : public Error {
public:
    InterruptedError() : Error("interrupted") {}
    [[nodiscard]] ExitCode exit_code() const override { return ExitCode::interrupted; }
};

// ---------------------------------------------------------------- strings
// Levenshtein distance (insert, delete, substitute each cost 1).
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);
// The closest candidate within a distance that scales with the word length,
// or nothing when no candidate is close enough.
[[nodiscard]] std::optional<std::string> closest_match(std::string_view word,
                                                       const std::vector<std::string>& candidates);
// "did you mean 'x'?" or "" when nothing is close.
[[nodiscard]] std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);
// "'a', 'b' or 'c'".
[[nodiscard]] std::string quoted_list(const std::vector<std::string>& items, std::string_view last_sep = " or ");

// POSIX shell single-quoting: the result is one inert word for sh/bash.
[[nodiscard]] std::string shell_quote(std::string_view value);
// A YAML double-quoted scalar that round-trips to exactly `value`.
[[nodiscard]] std::string yaml_quote(std::string_view value);
// Text for HTML (and XML) element content and attribute values: & < > " ' escaped.
[[nodiscard]] std::string html_escape(std::string_view text);
// One CSV field (RFC 4180): quoted, with quotes doubled, when it holds , " CR or LF.
[[nodiscard]] std::string csv_field(std::string_view text);

// "1.5 GiB"-style sizes, and "2h03m"-style durations for humans.
[[nodiscard]] std::string human_bytes(double bytes);
[[nodiscard]] std::string human_duration(double seconds);

// ---------------------------------------------------------------- files
// Reads a whole file; throws RuntimeError naming the path on failure.
[[nodiscard]] std::string read_file(const std::filesystem::path& path);
// Writes through a temporary file in the same directory, fsyncs and renames,
// so readers see the old content or the new, never half of it.
void write_file_atomic(const std::filesystem::path& path, std::string_view content,
                       std::filesystem::perms mode = std::filesystem::perms::owner_read |
                                                     std::filesystem::perms::owner_write |
                                                     std::filesystem::perms::group_read |
                                                     std::filesystem::perms::others_read);
// Appends one line (a '\n' is added) with O_APPEND and fsync.
void append_line(const std::filesystem::path& path, std::string_view line);

// ---------------------------------------------------------------- data dirs
// Where shipped data lives. Search order for each kind: the explicit flag,
// then the environment variable (TRAINBENCH_RECIPES, TRAINBENCH_TEMPLATES,
// TRAINBENCH_WORKLOADS), then ./<kind> next to the binary's source tree when
// run from a build directory, then the installed $prefix/share/trainbench/<kind>.
struct DataDirs {
    std::vector<std::filesystem::path> recipes;    // catalog (targets/, models/, gpus.yaml) + seed recipes
    std::vector<std::filesystem::path> templates;  // user directories first: they override shipped templates
    std::filesystem::path workloads;
};
[[nodiscard]] DataDirs default_data_dirs(const std::optional<std::filesystem::path>& recipes_flag = {},
                                         const std::optional<std::filesystem::path>& templates_flag = {});

[[nodiscard]] std::string_view version();

// ---------------------------------------------------------------- processes
// An external command, always an argv vector: nothing is ever passed through
// a shell string built from recipe values.
struct ProcessRequest {
    std::vector<std::string> argv;
    std::map<std::string, std::string> env_set;  // added to (or replacing in) the inherited environment
    std::vector<std::string> env_unset;
    std::optional<std::filesystem::path> cwd;
    std::optional<std::string> stdin_data;
    std::optional<std::chrono::milliseconds> timeout;  // killed (SIGTERM then SIGKILL) after this
};

struct ProcessResult {
    int exit_code = -1;  // exit status, or 128+signal when killed by a signal
    bool timed_out = false;
    std::string out;
    std::string err;
    [[nodiscard]] bool ok() const { return exit_code == 0 && !timed_out; }
};

// The seam for every external command (sbatch, squeue, kubectl, ...). Tests
// use a fake that records requests and replays canned results.
class ProcessRunner {
public:
    virtual ~ProcessRunner() = default;
    // Runs to completion and captures stdout/stderr. Throws RuntimeError only
    // when the program cannot be started at all (e.g. not found on PATH).
    virtual ProcessResult run(const ProcessRequest& request) = 0;
};

// The real runner: fork/exec (posix_spawn), poll-based capture, timeouts.
[[nodiscard]] ProcessRunner& system_process_runner();
// True when `name` is an executable on PATH (or an absolute path that is).
[[nodiscard]] bool program_on_path(std::string_view name);

// ---------------------------------------------------------------- signals
// Installs SIGINT/SIGTERM handlers that set a flag; long-running loops call
// check_interrupted() which throws InterruptedError once the flag is set.
void install_interrupt_handlers();
[[nodiscard]] bool interrupted();
void check_interrupted();

}  // namespace trainbench
