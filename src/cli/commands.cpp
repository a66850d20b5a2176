// The command table: one row per command, each implemented in <name>_command.cpp.
#include "cli/app.hpp"

namespace trainbench::cli {

// Each command file defines its setup function.
// (declarations are kept next to the table so adding a command is one place)
void setup_list_command(CLI::App& root, Context& ctx);
void setup_show_command(CLI::App& root, Context& ctx);
void setup_validate_command(CLI::App& root, Context& ctx);
void setup_render_command(CLI::App& root, Context& ctx);
void setup_parse_command(CLI::App& root, Context& ctx);

const std::vector<CommandInfo>& command_table() {
    static const std::vector<CommandInfo> table = {
        {"list", "List catalog targets, models, GPUs, or the shipped recipes", setup_list_command},
        {"show", "Print the fully resolved recipe, with --origin the source of each value", setup_show_command},
        {"validate", "Check recipes: schema, parallelism, batch, precision, memory fit", setup_validate_command},
        {"render", "Render a recipe's job files (Slurm, Kubernetes/Helm, local) without submitting", setup_render_command},
        {"parse", "Read training logs and dump the decoded series (DLLogger, TensorBoard, Megatron, NeMo, fairseq, nccl-tests)", setup_parse_command},
    };
    return table;
}

}  // namespace trainbench::cli
