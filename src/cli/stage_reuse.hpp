// Private to the CLI: the flags and the printing of the submit path's reuse of
// validated clusters and prepared data (src/cli/stage_reuse.cpp).
#pragma once

#include "cli/app.hpp"

#include <trainbench/pipeline.hpp>

#include <vector>

namespace trainbench::cli {

// "stage validate: reused run abc123 (job 12, COMPLETED: validated 0.1 h ago on gpu-1 gpu-2)".
void print_reused(Context& ctx, const std::vector<run::StageReuse>& reused);
// --revalidate and --reprepare.
void add_reuse_flags(CLI::App* cmd, run::ReuseFlags& flags);

}  // namespace trainbench::cli
