// Private to the CLI: what `report` and `compare` share. The flags that give
// what a bare log lacks, and turning a run directory or log files into an
// analysed RunSummary.
#pragma once

#include "cli/app.hpp"

#include <trainbench/analysis.hpp>
#include <trainbench/report.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace trainbench::cli {

struct ReportFlags {
    std::string model;  // catalog model name
    int gpus = 0;
    std::string gpu;  // catalog GPU name or family ("h100", "cpu")
    std::string precision;
    int global_batch = 0;
    int seq = 0;
    int tensor_parallel = 0;
    std::string window;           // "A:B"
    std::string flops;            // convention
    std::string format = "auto";  // log format
    double peak = 0;              // TFLOPS; 0 = from the table
    double tokens = 0;            // for days_to_train; 0 = 300e9
    bool csv = false;
    bool markdown = false;
    std::string html;  // file
    // Not a flag: the output shows figures only (no per-step series), so the
    // parse keeps the step times and the final loss, nothing else.
    bool figures_only = false;
};

// Adds the shared options to a subcommand (report, compare).
void add_report_flags(CLI::App* command, ReportFlags& flags);

// A run directory (has run.json), found by path or by a run id / prefix under
// the run store root; nullopt when `ref` is not a run.
[[nodiscard]] std::optional<std::filesystem::path> find_run_dir(Context& ctx, const std::string& ref);

// One run directory -> its summary (recipe from recipe.resolved.yaml, logs from logs/<stage>/).
[[nodiscard]] analysis::RunSummary summarise_run(Context& ctx, const std::filesystem::path& run_dir,
                                                 const ReportFlags& flags);
// Bare log files (one run's logs, one format) -> a summary.
[[nodiscard]] analysis::RunSummary summarise_logs(Context& ctx, const std::vector<std::string>& files,
                                                  const ReportFlags& flags);

// Colour for the table on stdout: a TTY and no NO_COLOR.
[[nodiscard]] bool stdout_colour(const Context& ctx);

}  // namespace trainbench::cli
