// core: what every other module stands on. This header holds the error
// family and exit codes, located diagnostics for user input, "did you mean"
// and the strings of messages; each other concern has its own part under
// include/trainbench/core/, included here so that a module includes core as
// one header:
//   core/quoting.hpp    shell, YAML, HTML/XML, CSV and Markdown quoting (the one home)
//   core/files.hpp      whole-file reads, atomic writes, appended lines, FileLock
//   core/process.hpp    ProcessRunner: every external program, by argv
//   core/data_dirs.hpp  where recipes/, templates/, workloads/ live; version()
//   core/signals.hpp    the interrupt flag (SIGINT/SIGTERM)
//   core/time.hpp       UTC timestamps, written and read (the one formatter)
//
// core knows nothing about recipes, schedulers or logs.
#pragma once

#include <trainbench/core/data_dirs.hpp>
#include <trainbench/core/files.hpp>
#include <trainbench/core/process.hpp>
#include <trainbench/core/quoting.hpp>
#include <trainbench/core/signals.hpp>
#include <trainbench/core/time.hpp>

#include <cstdint>
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
    busy = 6,                // another trainbench holds the lock (sweep --no-wait)
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
// "error", "warning" or "note": how every output names a severity.
[[nodiscard]] std::string_view severity_name(Severity s);

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

// Another process holds a lock this command was told not to wait for.
class BusyError : public Error {
public:
    using Error::Error;
    [[nodiscard]] ExitCode exit_code() const override { return ExitCode::busy; }
};

class InterruptedError : public Error {
public:
    InterruptedError() : Error("interrupted") {}
    [[nodiscard]] ExitCode exit_code() const override { return ExitCode::interrupted; }
};

// ---------------------------------------------------------------- strings
// Edit distance: an insertion, a deletion, a substitution or a swap of two neighbouring
// characters each count one (optimal string alignment), so "nodse" is one edit from "nodes".
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);
// A shell/environment variable name: letters, digits and '_', not starting with a digit.
[[nodiscard]] bool is_variable_name(std::string_view s);
// Holds a control character (below 0x20, or DEL): a newline or tab among them.
[[nodiscard]] bool has_control_char(std::string_view s);
// 64-bit FNV-1a of `bytes`, continuing from `h` (the offset basis by default), so a hash can
// be taken over several pieces.
inline constexpr std::uint64_t k_fnv1a_offset = 14695981039346656037ULL;
[[nodiscard]] std::uint64_t fnv1a(std::string_view bytes, std::uint64_t h = k_fnv1a_offset);
// The closest candidate within a distance that scales with the word length,
// or nothing when no candidate is close enough.
[[nodiscard]] std::optional<std::string> closest_match(std::string_view word,
                                                       const std::vector<std::string>& candidates);
// "did you mean 'x'?" or "" when nothing is close.
[[nodiscard]] std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);
// "'a', 'b' or 'c'".
[[nodiscard]] std::string quoted_list(const std::vector<std::string>& items, std::string_view last_sep = " or ");

// `s` without the ASCII whitespace (space, \t, \n, \v, \f, \r) at either end.
[[nodiscard]] std::string_view trim(std::string_view s);
// The parts of a dotted key: "parallelism.tensor" -> {"parallelism", "tensor"} (every '.'
// separates, so "a..b" has an empty part and "" is one empty part).
[[nodiscard]] std::vector<std::string> split_dots(std::string_view key);

// Bytes in a GiB (2^30): every memory size trainbench prints or compares is in GiB.
inline constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

// "1.5 GiB"-style sizes, and "2h03m"-style durations for humans.
[[nodiscard]] std::string human_bytes(double bytes);
[[nodiscard]] std::string human_duration(double seconds);

}  // namespace trainbench
