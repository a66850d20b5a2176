// Private to the CLI: what report, history, tag, regress and watch share about
// the results store (docs/results.md).
#pragma once

#include "cli/app.hpp"

#include <trainbench/analysis.hpp>
#include <trainbench/results.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace trainbench::cli {

// The store named by --results, $TRAINBENCH_RESULTS, else <run store>/results.sqlite. To read,
// a missing SQLite file is an empty store (nothing is created) and one this user may not write
// is read-only.
[[nodiscard]] std::unique_ptr<results::Store> open_results(Context& ctx,
                                                           results::Access access = results::Access::read);

// The result of a report: for a run, with its resolved recipe.
[[nodiscard]] results::Result result_of(Context& ctx, const analysis::RunSummary& summary,
                                        results::ResultLabels labels);

// Records it and says so on stderr ("recorded result ..." or "already recorded"; stored text
// shown terminal-safe).
void record_result(Context& ctx, results::Store& store, const results::Result& result);

// `report`'s recording: the result of `summary` into the results store. For a run (`run_dir`),
// a store that cannot be reached says where the report is and that `history --import` records
// it later.
void record_report(Context& ctx, const analysis::RunSummary& summary, const results::ResultLabels& labels,
                   const std::optional<std::filesystem::path>& run_dir);

// --name, --target, --container and --ran-at of `report --record`, checked as they are parsed
// (exit 2 before any report): a label is a plain word (results::label_problem), a time RFC 3339.
void add_record_labels(CLI::App* cmd, results::ResultLabels& labels);

}  // namespace trainbench::cli
