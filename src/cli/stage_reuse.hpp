// Private to the CLI: the submit path's reuse of validated clusters and prepared
// data, and the run store's file-system check (src/cli/stage_reuse.cpp).
#pragma once

#include "cli/app.hpp"

#include <trainbench/recipe.hpp>
#include <trainbench/run.hpp>

#include <vector>

namespace trainbench::cli {

// The stages an earlier run of the store already did (none with --stage); prints why a
// recorded stage is not reused.
[[nodiscard]] std::vector<run::StageReuse> plan_stage_reuse(Context& ctx, const recipe::Recipe& r,
                                                            const run::ReuseFlags& flags, bool single_stage);
// "stage validate: reused run abc123 (job 12, COMPLETED: validated 0.1 h ago on gpu-1 gpu-2)".
void print_reused(Context& ctx, const std::vector<run::StageReuse>& reused);
// Warns when a Slurm recipe's run store is on a node-local file system.
void warn_node_local_store(Context& ctx, const recipe::Recipe& r);
// --revalidate and --reprepare.
void add_reuse_flags(CLI::App* cmd, run::ReuseFlags& flags);

}  // namespace trainbench::cli
