// Private to the CLI: what submit, status, cancel, logs, wait and run share.
#pragma once

#include "cli/app.hpp"

#include <trainbench/pipeline.hpp>

#include <optional>
#include <string>
#include <vector>

namespace trainbench::cli {

struct SubmitArgs {
    std::string recipe;
    std::vector<std::string> overrides;
    std::string stage;  // submit only this stage (no dependency)
    std::string kube_context;
    std::string kube_namespace;
    run::ReuseFlags reuse;  // --revalidate, --reprepare
};

// validate, render with the run's directory and id, create the run, submit
// the stages in order with their dependencies.
[[nodiscard]] run::RunInfo submit_recipe(Context& ctx, const SubmitArgs& args);

// The runs named on the command line (directory, run id or short id
// prefix), or every run under the store when `refs` is empty.
[[nodiscard]] std::vector<run::RunInfo> load_runs(Context& ctx, const std::vector<std::string>& refs);

// The runs as an aligned table.
void print_run_table(Context& ctx, const std::vector<run::RunInfo>& runs);
// "submitted run abc123 (dir)" and one line per stage.
void print_submitted(Context& ctx, const run::RunInfo& run);

// Polls until the run is final: a live status line on a TTY, plain lines on
// each change otherwise, with the training's live progress (step, step time,
// tokens/s, MFU, ETA) from the rank-0 log; --json progress events go to stderr,
// or to stdout with `events_to_stdout` (watch). Returns 0 when it COMPLETED;
// throws RuntimeError for any other ending or when `timeout_s` (> 0) passes.
int wait_for_run(Context& ctx, run::RunInfo& run, double timeout_s, double interval_s, bool events_to_stdout = false);

// RUN, --timeout and --interval: what wait and watch take.
struct WaitArgs {
    std::string run;
    double timeout = 0;
    double interval = 2;
};
void add_wait_options(CLI::App* cmd, WaitArgs& args, const std::string& interval_help);
// wait_for_run on the run that args.run names.
int wait_for_named_run(Context& ctx, const WaitArgs& args, bool events_to_stdout);

// Wraps a subcommand's Kubernetes flags.
void add_kube_flags(CLI::App* cmd, std::string& context, std::string& ns);

}  // namespace trainbench::cli
