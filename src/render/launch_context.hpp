// Private to render: the launch command of a stage's job (launch_context.cpp), and what
// build_context (context.cpp) decides about the stage that the launch depends on.
#pragma once

#include "render/frameworks/framework.hpp"
#include "render/shell_word.hpp"

#include <trainbench/recipe.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace trainbench::render {

// What build_context decides about the stage beside the Facts the framework sees.
struct StageShape {
    bool slurm_validate = false;  // a validate stage on Slurm (nccl-tests over the allocation)
    bool k8s_validate = false;    // a validate stage on Kubernetes (nccl-tests across the Job's pods)
    bool slurm_prepare = false;   // a prepare-data stage on Slurm (one node per array task)
    bool per_gpu = false;         // the program is started once per GPU
    std::string stdout_file;      // where a framework that logs to stdout writes it ("" = the job's log)
};

// The container: the recipe's, else the target's runtime; mounts = target defaults + recipe.
struct ContainerPlan {
    std::string runtime;
    bool pyxis = false;  // srun --container-image on Slurm
    std::vector<std::string> mounts;
};

// Whether the stage names its own command (options.command), which replaces what its kind runs.
[[nodiscard]] bool stage_has_command(const recipe::Stage& stage);

// The program a stage runs and what goes with it (no launcher prefix); `fw` null for a stage
// other than train.
[[nodiscard]] FrameworkLaunch stage_program(const Facts& f, const Framework* fw);

// The interpreter/launcher words before the program, per scheduler (none for a stage's own
// command or a program that is not Python); `nsys` wraps them in nsys profile.
[[nodiscard]] std::vector<ShellWord> launcher_words(const Facts& f, const Framework* fw, bool nsys);

// srun and its flags (Slurm only): output file, Pyxis container, the recipe's srun arguments.
[[nodiscard]] std::vector<ShellWord> runner_words(const Facts& f, const StageShape& s, const ContainerPlan& container);

// launch_lines, launch_argv, launch_command_sh: the command as the templates place it.
void add_launch(const std::vector<ShellWord>& runner, const std::vector<ShellWord>& launcher,
                const std::vector<ShellWord>& program, nlohmann::ordered_json& c);

// delivered_files, config_file, preflight: files delivered with the job and the checks the job
// makes before it starts the framework.
void add_delivered_files_and_preflight(const FrameworkLaunch& launch, const std::vector<ShellWord>& runner,
                                       const Framework* fw, nlohmann::ordered_json& c);

// The programs this stage runs, as their frameworks receive them (checked against the framework
// profiles by check_launch, printed by `render --argv`); `c` holds the stage kind's context.
[[nodiscard]] nlohmann::ordered_json stage_commands(const Facts& f, const StageShape& s, const FrameworkLaunch& launch,
                                                    const nlohmann::ordered_json& c);

}  // namespace trainbench::render
