// Private to render: the training frameworks, one file each, behind one table.
//
// To add a framework:
//  1. a row in the catalog's table (src/catalog/frameworks.cpp: name, the log format it
//     writes, its default FLOPs convention, and the fields the recipe module reads: what
//     recipes of it may ask, how the memory estimate models it), which is what recipes may name;
//  2. src/render/frameworks/<name>.cpp with a function that turns the recipe (Facts)
//     into a FrameworkLaunch (program, arguments, files delivered with the job,
//     start-up checks), and, when it needs one, a function giving its environment;
//  3. one row in the table in table.cpp (the Framework fields below say how it is
//     started, which precisions and model keys it can express); build_context (context.cpp)
//     and model_support.cpp read only this table, never a name. A version whose launch differs
//     (TorchTitan b5bcd76c) is one more row of the same name with `.versions`;
//  4. a partial template templates/frameworks/<name>.sh, included through
//     {{#framework_is.<template_key>}};
//  5. a profile under recipes/catalog/frameworks/ when the framework has versions
//     whose arguments trainbench should check.
#pragma once

#include "render/shell_word.hpp"

#include <trainbench/render.hpp>

#include <optional>
#include <span>
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
    // Python modules the framework needs for what the recipe asks (e.g. dllogger):
    // the job checks them at start and stops with a clear message when one is missing.
    std::vector<std::pair<std::string, std::string>> requires_modules;  // module, why
    std::string config_file;                                            // the delivered config among `files`, if any
    std::vector<std::string> config_keys;  // its keys, flat ("model.optim.lr"), for Hydra override checks
    // A TOML config's flat keys with their values (TorchTitan), checked key and value by check_launch.
    nlohmann::ordered_json config_values = nlohmann::ordered_json::object();
};

// A model key the recipe's framework version cannot express (model_support.cpp).
struct ModelProblem {
    std::string key;       // the recipe key: "model.experts", "model.rope_scaling", "precision"
    std::string message;   // "NeMo 2.0.0rc1 (container nemo:24.07) cannot express mixture of experts ..."
    std::string expected;  // what would do
};

struct Framework {
    std::string_view name;  // as recipes name it (the catalog's framework table)
    // The framework_versions this row serves; empty: every version no other row of the name lists.
    std::span<const std::string_view> versions = {};
    std::string_view template_key;  // framework_is.<key>: the partial the templates include
    // Started once per GPU by the scheduler (srun tasks, the local rank loop),
    // rather than once per node by torchrun.
    bool one_task_per_gpu = false;
    // The interpreter that starts the program ("" = not a Python program: no launcher words,
    // start-up checks with python3).
    std::string_view python = {};
    bool torchrun_per_node = false;       // on Slurm and locally torchrun starts the GPU ranks (one task per node)
    bool torchrun_on_kubernetes = false;  // on Kubernetes one torchrun per pod starts them
    bool own_rank_loop = false;           // the shipped workload: the local script starts the ranks itself
    bool nsys = false;                    // profiling.nsys runs it under `nsys profile`
    bool hydra = false;                   // takes Hydra overrides (check_launch checks keys, not options)
    bool cli_overrides = false;           // options, then key=value config overrides (check_launch checks both)
    // `--section.key` flags read by tyro, after a delivered TOML config when there is one
    // (TorchTitan; check_launch checks the TOML's keys and values, then the flags)
    bool tyro_flags = false;
    // Trains in the block-scaled precisions (MXFP8, NVFP4) when the GPU has them.
    bool block_scaled = false;
    // The model keys its version cannot express (model_support.cpp); null: it takes any model.
    void (*model_problems)(const recipe::Recipe& r, std::vector<ModelProblem>& out) = nullptr;
    // Environment set after the target's and before the recipe's; null when none.
    catalog::EnvList (*env)(const recipe::Recipe& r) = nullptr;
    FrameworkLaunch (*launch)(const Facts& facts) = nullptr;
};

// The framework table (table.cpp): the row of `name` that lists `version`, else its row that
// lists none; nullptr for an unknown name. The one place a version picks a row.
[[nodiscard]] const Framework* find_framework(std::string_view name, std::string_view version);
// Each name once, in table order.
[[nodiscard]] std::vector<std::string> framework_names();
// Each template key once, in table order (rows of one name may share a partial).
[[nodiscard]] std::vector<std::string> framework_template_keys();

// Per-framework launch builders (one file each).
[[nodiscard]] FrameworkLaunch nemo_launch(const Facts& f);
[[nodiscard]] FrameworkLaunch megatron_lm_launch(const Facts& f);
[[nodiscard]] FrameworkLaunch metaseq_launch(const Facts& f);
[[nodiscard]] FrameworkLaunch tinygpt_launch(const Facts& f);
[[nodiscard]] FrameworkLaunch custom_launch(const Facts& f);
[[nodiscard]] FrameworkLaunch megatron_bridge_launch(const Facts& f);
[[nodiscard]] catalog::EnvList megatron_bridge_env(const recipe::Recipe& r);
[[nodiscard]] catalog::EnvList nemo_env(const recipe::Recipe& r);
[[nodiscard]] catalog::EnvList megatron_lm_env(const recipe::Recipe& r);
// What each framework's version cannot express of a model (model_support.cpp).
void megatron_model_problems(const recipe::Recipe& r, std::vector<ModelProblem>& out);
void nemo_model_problems(const recipe::Recipe& r, std::vector<ModelProblem>& out);
void gpt_only_model_problems(const recipe::Recipe& r, std::vector<ModelProblem>& out);
[[nodiscard]] FrameworkLaunch torchtitan_launch(const Facts& f);
[[nodiscard]] catalog::EnvList torchtitan_env(const recipe::Recipe& r);

// The tools that non-training stages run, whose commands check_launch checks against profiles.
// nccl-tests (validate): one command per test of the stage's validate context.
[[nodiscard]] std::vector<nlohmann::ordered_json> nccl_tests_commands(const nlohmann::ordered_json& validate);
// NeMo's tokenizer (prepare-data): the NeMo release of the container image, else the recipe's.
[[nodiscard]] std::string nemo_preprocess_version(const recipe::Recipe& r, const std::string& image);

// ---------------------------------------------------------------- the model's architecture
// One group of arguments that expresses a model key (field "" = the basic shape every version
// has), with what it means for messages ("grouped-query attention (8 groups)").
struct ModelArgs {
    std::string field;  // the model key: "kv_heads", "experts", "mtp_layers", ...
    std::string what;
    std::vector<ShellWord> words;
};
// Megatron-LM's model arguments, in the order they are rendered (megatron_model.cpp).
[[nodiscard]] std::vector<ModelArgs> megatron_model_args(const catalog::Model& m);

// A model flavour TorchTitan defines (torchtitan_model.cpp): its model name and flavour, the
// Hugging Face assets folder its tokenizer is read from, and the shape (0 = not set there).
struct TorchtitanFlavor {
    const char* model;  // the catalog model
    const char* name;   // model.name: "llama3", "qwen3"
    const char* flavor;
    const char* hf_assets;
    int layers, hidden, heads, kv_heads, head_dim, ffn, vocab;
    long long rope_theta;
    int experts, top_k, moe_ffn;
};
// The flavour of the recipe's model (framework_config model.flavor/model.name may pick another); null when none.
[[nodiscard]] const TorchtitanFlavor* torchtitan_flavor(const recipe::Recipe& r);

// TorchTitan's: the shape against the flavour, and what the version cannot express (torchtitan_model.cpp).
void torchtitan_problems(const recipe::Recipe& r, std::vector<ModelProblem>& out);
// The recipe's model against the flavour TorchTitan defines for it (either version).
void torchtitan_shape_problems(const recipe::Recipe& r, std::vector<ModelProblem>& out);
// TorchTitan main (b5bcd76c, config functions; torchtitan_main.cpp): the registry function of the
// model and precision, the shape, what no flag of the version can set.
void torchtitan_main_problems(const recipe::Recipe& r, std::vector<ModelProblem>& out);
[[nodiscard]] FrameworkLaunch torchtitan_main_launch(const Facts& f);
[[nodiscard]] catalog::EnvList torchtitan_main_env(const recipe::Recipe& r);
[[nodiscard]] std::vector<ModelProblem> model_support_problems(const recipe::Recipe& r);
// Megatron-Bridge: a model without a performance recipe, a GPU or precision its flags cannot name.
void megatron_bridge_problems(const recipe::Recipe& r, std::vector<ModelProblem>& out);
// Throws InputError with the first problem (a launch builder never renders half a model).
void refuse_unsupported_model(const recipe::Recipe& r);

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
