// Slurm knobs of a recipe and its stages that the job script carries as they
// are: placement (nodelist, exclude, reservation), extra #SBATCH directives,
// the stage's own time limit and memory, and variables the recipe unsets.
#pragma once

#include <trainbench/recipe.hpp>

#include <nlohmann/json.hpp>

namespace trainbench::render {

// Adds slurm.{nodelist,exclude,reservation,directives} to the context's "slurm"
// map, and the stage's time/mem over the recipe's (a validate stage without its
// own time gets the sum of its steps' limits when they are all given).
void add_slurm_knobs(const recipe::Recipe& r, const recipe::Stage& stage, nlohmann::ordered_json& c);

// The validate stage's job time from its steps' limits (dcgm.time, and nccl.time
// per nccl-tests run: all nodes, two rounds of pairs); "" when a limit is missing.
[[nodiscard]] std::string validate_job_time(const recipe::ValidateOptions& v);

}  // namespace trainbench::render
