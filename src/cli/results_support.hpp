// Private to the CLI: what report, history, tag, regress and watch share about
// the results store (docs/results.md).
#pragma once

#include "cli/app.hpp"

#include <trainbench/pipeline.hpp>

#include <memory>
#include <string>

namespace trainbench::cli {

// The store named by --results, $TRAINBENCH_RESULTS, else <run store>/results.sqlite. To read,
// a missing SQLite file is an empty store (nothing is created) and one this user may not write
// is read-only.
[[nodiscard]] std::unique_ptr<results::Store> open_results(Context& ctx,
                                                           results::Access access = results::Access::read);

// --name, --target, --container and --ran-at of `report --record`, checked as they are parsed
// (exit 2 before any report): a label is a plain word (results::label_problem), a time RFC 3339.
void add_record_labels(CLI::App* cmd, results::ResultLabels& labels);

}  // namespace trainbench::cli
