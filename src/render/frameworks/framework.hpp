// Private to render: the training frameworks, one file each, behind one table.
//
// To add a framework: write src/render/frameworks/<name>.cpp with a function
// that turns the recipe (Facts) into a FrameworkLaunch (program, arguments,
// files delivered with the job, environment, start-up checks), add one row to
// the table in table.cpp, a profile under recipes/catalog/frameworks/ when
// the framework has versions whose arguments trainbench should check, and a
// partial template templates/frameworks/<name>.sh.
#pragma once

#include "render/shell_word.hpp"

#include <trainbench/render.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainbench::render {

constexpr const char* k_run_dir_var = "TRAINBENCH_RUN_DIR";

// What the context builder has decided about the job before the framework renders.
struct Facts {
    const recipe::Recipe& r;
    const recipe::Stage& stage;
    catalog::Scheduler scheduler;
    int nodes;
    int gpus_per_node;
    int tasks_per_node;
    bool requests_gpus;
    std::string log_dir;        // "logs/<stage>"
    std::string dllogger_file;  // relative to the run dir: "logs/<stage>/<metrics.path>" or ".../dllogger.json"
    ShellWord config_dir;       // where files delivered with the job are at run time
    int world_size;             // GPU ranks of the job
};

// Arguments in groups: a flag with its values, or one Hydra override.
using Args = std::vector<std::vector<ShellWord>>;

struct FrameworkLaunch {
    std::vector<ShellWord> program;   // entry point and arguments (no launcher prefix)
    std::vector<RenderedFile> files;  // delivered with the job (relative to the stage's files)
    catalog::EnvList env;             // set before the recipe's env
    // Python modules the framework needs for what the recipe asks (e.g. dllogger):
    // the job checks them at start and stops with a clear message when one is missing.
    std::vector<std::pair<std::string, std::string>> requires_modules;  // module, why
    std::string config_file;                                            // the delivered config among `files`, if any
    std::vector<std::string> config_keys;  // its keys, flat ("model.optim.lr"), for Hydra override checks
};

struct Framework {
    std::string_view name;
    // Started once per GPU by the scheduler (srun tasks, the local rank loop),
    // rather than once per node by torchrun.
    bool one_task_per_gpu;
    FrameworkLaunch (*launch)(const Facts& facts);
};

// The framework table (table.cpp); nullptr for an unknown name.
[[nodiscard]] const Framework* find_framework(std::string_view name);
[[nodiscard]] std::vector<std::string> framework_names();

// Per-framework launch builders (one file each).
[[nodiscard]] FrameworkLaunch nemo_launch(const Facts& f);
[[nodiscard]] FrameworkLaunch megatron_lm_launch(const Facts& f);
[[nodiscard]] FrameworkLaunch metaseq_launch(const Facts& f);
[[nodiscard]] FrameworkLaunch tinygpt_launch(const Facts& f);
[[nodiscard]] FrameworkLaunch custom_launch(const Facts& f);

// ---------------------------------------------------------------- shared helpers (common.cpp)
[[nodiscard]] std::vector<ShellWord> group(ShellWord w);
// "--flag" of "--flag" or "--flag=v"; "a.b" of "++a.b=v" / "+a.b=v" / "a.b=v".
[[nodiscard]] std::string argument_key(const std::string& word);
// Appends the generated arguments except those whose key launch.extra_args
// sets again (the recipe's extra arguments replace generated ones), then the extra arguments.
void append_args(std::vector<ShellWord>& out, const Args& args, const std::vector<std::string>& extra);
// "${TRAINBENCH_RUN_DIR}/<relative>".
[[nodiscard]] ShellWord run_path(const std::string& relative);
// "nodes" as the launch line should see it: a number on Slurm and locally,
// the pod's NNODES variable on Kubernetes (so a Helm --set nodes=N stays consistent).
[[nodiscard]] ShellWord nodes_word(const Facts& f, const std::string& prefix);
[[nodiscard]] int data_parallel_size(const recipe::Recipe& r, int total_gpus);
// The recipe's entry point, else `fallback_entry` (relative entries resolve against the workdir).
[[nodiscard]] std::string entry_point(const recipe::Recipe& r, const std::string& fallback_workdir,
                                      const std::string& fallback_entry);
// 12 -> "12", 0.5 -> "0.5".
[[nodiscard]] std::string number_text(double v);
[[nodiscard]] std::string py_bool(bool b);

}  // namespace trainbench::render
