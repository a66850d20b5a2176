#include "cli/results_support.hpp"

#include <fmt/format.h>

namespace trainbench::cli {

std::unique_ptr<results::Store> open_results(Context& ctx, results::Access access) {
    return ctx.services().results_store(access);
}

void add_record_labels(CLI::App* cmd, results::ResultLabels& labels) {
    // Checked as they are parsed (exit 2 before any report): what is recorded is shown later by
    // history as a table, CSV and HTML, so a label is a plain word (results::label_problem).
    auto label = [](const char* kind) {
        return CLI::Validator([kind](const std::string& v) { return results::label_problem(kind, v); }, "", kind);
    };
    cmd->add_option("--name", labels.name, "With --record: the recipe name to record bare logs under")
        ->check(label("name"));
    cmd->add_option("--target", labels.target, "With --record: the target the logs ran on")->check(label("target"));
    cmd->add_option("--container", labels.container, "With --record: the container image or version")
        ->check(label("container"));
    cmd->add_option("--ran-at", labels.ran_at,
                    "With --record: when the logs ran (RFC 3339, e.g. 2026-03-01T10:00:00Z or +05:00; stored as "
                    "UTC; default: mtime)")
        ->check(CLI::Validator(
            [](const std::string& v) {
                return parse_utc(v) ? std::string()
                                    : fmt::format(
                                          "'{}' is not a date and time: write YYYY-MM-DD or "
                                          "YYYY-MM-DDTHH:MM:SS with Z or an offset",
                                          terminal_safe(v));
            },
            "", "time"));
}

}  // namespace trainbench::cli
