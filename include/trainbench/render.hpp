// render: a validated recipe becomes the exact files a submission needs
// (Slurm batch script, Kubernetes manifests, Helm chart, local script), from
// logic-less mustache templates under templates/. All decisions are made in
// C++ when the template context is built; templates only place values, each
// escaped for the output it lands in (shell-quoted in scripts, YAML-quoted in
// manifests). A template that names a variable the context lacks is an error.
// Rendering is pure: no clock, no environment, the same recipe gives the same bytes.
#pragma once

#include <trainbench/recipe.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace trainbench::render {

class TemplateEngine;  // templates found, read, scanned and compiled once (private to render)

struct RenderedFile {
    std::filesystem::path path;  // relative to the output directory
    std::string content;
    bool executable = false;
};

// The files of one stage of a recipe.
struct RenderedJob {
    std::string stage;  // "train", "validate", "prepare-data"
    catalog::Scheduler scheduler = catalog::Scheduler::local;
    std::filesystem::path entrypoint;  // the main job file (sbatch script, job.yaml, run.sh)
    std::vector<RenderedFile> files;
    std::string dependency;  // "afterok" etc. on the previous stage; empty for the first
    int array_size = 0;      // Slurm array jobs (data preparation); 0 = not an array
};

struct RenderOptions {
    std::vector<std::filesystem::path> template_dirs;  // first match wins: user dirs before shipped
    // Values the submission supplies and a dry run leaves as placeholders:
    // the run directory and the run id. Defaults keep dry-run output byte-stable.
    std::string run_dir = "${TRAINBENCH_RUN_DIR}";
    std::string run_id = "dryrun";
    std::string stage;  // render only this stage; empty = all
    // Reused across renders (a sweep's points): each template is read and compiled once.
    // Not for two threads at once. Null: render() makes one from template_dirs.
    std::shared_ptr<TemplateEngine> engine;
};

// An engine over `dirs` (first match wins) for RenderOptions::engine.
[[nodiscard]] std::shared_ptr<TemplateEngine> make_template_engine(const std::vector<std::filesystem::path>& dirs);

// Renders every stage of the recipe. Throws InputError (template errors name
// the template file and tag).
[[nodiscard]] std::vector<RenderedJob> render(const recipe::Recipe& recipe, const RenderOptions& options);

// The stages render() renders: the recipe's, or one stage {name: train, kind: train}.
[[nodiscard]] std::vector<recipe::Stage> effective_stages(const recipe::Recipe& recipe);

// The template context of one stage: every value a template can place, all
// decisions already taken (docs/templates.md lists each key). Values are raw
// text except the keys of pre_escaped_keys(). Throws InputError for values
// that cannot be rendered safely (e.g. a newline in a #SBATCH value).
[[nodiscard]] nlohmann::ordered_json build_context(const recipe::Recipe& recipe, const RenderOptions& options,
                                                   const recipe::Stage& stage);

// One program a stage runs, as its framework receives it: the entry point and its
// arguments in plain form (run-time values as ${VAR}), no launcher (srun, torchrun) in front.
struct LaunchCommand {
    std::string stage;    // "train", "validate", ...
    std::string kind;     // the stage's kind
    std::string program;  // "nemo", "megatron-lm", "metaseq", "nccl-tests", "tinygpt", "custom", "command"
    std::string version;  // the framework profile's version; empty = the catalog's only/any profile
    std::vector<std::string> argv;
    std::string config_file;               // a config delivered with the job (relative to the stage's files)
    std::vector<std::string> config_keys;  // that config's keys, flat
    nlohmann::ordered_json config_values;  // a TOML config's flat keys with their values (TorchTitan); null if none
};

// The commands of every stage (or options.stage), as rendered.
[[nodiscard]] std::vector<LaunchCommand> launch_commands(const recipe::Recipe& recipe, const RenderOptions& options);

// Checks every rendered command against the profile of its framework version in the
// catalog: each argument (Megatron-LM, metaseq, nccl-tests) or Hydra override (NeMo)
// must exist in that version, and each override must have the form Hydra accepts for
// the delivered config (`key=` for a key it has, `+key=` for one it lacks). Problems
// are errors located at the recipe key that produced them (launch.extra_args for the
// recipe's own arguments, framework_version for trainbench's).
void check_launch(const recipe::Recipe& recipe, const catalog::Catalog& catalog, Diagnostics& diagnostics);

// Context keys (dotted; "launch_lines.line_sh" for list items) whose values
// the context builder already made safe for the output they are meant for:
// the only names a raw tag ({{{x}}} or {{&x}}) may use. Integer keys are safe
// anywhere; *_sh keys are shell text; *_yaml keys are YAML text.
[[nodiscard]] const std::vector<std::string>& pre_escaped_keys();

// A unified diff of two texts ("--- a\n+++ b\n@@ ... @@" hunks with `context`
// lines), or "" when they are equal. Used by `render --compare`.
[[nodiscard]] std::string unified_diff(std::string_view a, std::string_view b, const std::string& a_name,
                                       const std::string& b_name, int context = 3);

}  // namespace trainbench::render
