// The command table: one row per command, each implemented in <name>_command.cpp.
#include "cli/app.hpp"

namespace trainbench::cli {

// Each command file defines its setup function.
// (declarations are kept next to the table so adding a command is one place)
void setup_parse_command(CLI::App& root, Context& ctx);

const std::vector<CommandInfo>& command_table() {
    static const std::vector<CommandInfo> table = {
        {"parse", "Read training logs and dump the decoded series (DLLogger, TensorBoard, Megatron, NeMo, fairseq, nccl-tests)", setup_parse_command},
    };
    return table;
}

}  // namespace trainbench::cli
