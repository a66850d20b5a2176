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
void setup_plan_command(CLI::App& root, Context& ctx);
void setup_flops_command(CLI::App& root, Context& ctx);
void setup_sweep_command(CLI::App& root, Context& ctx);
void setup_report_command(CLI::App& root, Context& ctx);
void setup_compare_command(CLI::App& root, Context& ctx);
void setup_submit_command(CLI::App& root, Context& ctx);
void setup_status_command(CLI::App& root, Context& ctx);
void setup_cancel_command(CLI::App& root, Context& ctx);
void setup_logs_command(CLI::App& root, Context& ctx);
void setup_wait_command(CLI::App& root, Context& ctx);
void setup_run_command(CLI::App& root, Context& ctx);
void setup_watch_command(CLI::App& root, Context& ctx);
void setup_history_command(CLI::App& root, Context& ctx);
void setup_tag_command(CLI::App& root, Context& ctx);
void setup_regress_command(CLI::App& root, Context& ctx);

const std::vector<CommandInfo>& command_table() {
    static const std::vector<CommandInfo> table = {
        {"list", "List catalog targets, models, GPUs, FLOPs conventions, published references, or the shipped recipes",
         setup_list_command},
        {"show", "Print the fully resolved recipe, with --origin the source of each value", setup_show_command},
        {"validate", "Check recipes: schema, parallelism, batch, precision, memory fit", setup_validate_command},
        {"render", "Render a recipe's job files (Slurm, Kubernetes/Helm, local) without submitting",
         setup_render_command},
        {"parse",
         "Read training logs and dump the decoded series (DLLogger, TensorBoard, Megatron, NeMo, fairseq, nccl-tests)",
         setup_parse_command},
        {"plan",
         "Estimate before spending GPU hours: FLOPs, memory, checkpoint, step time, days; --search ranks TP/PP/MBS",
         setup_plan_command},
        {"flops", "A model's FLOPs under every dated convention; which ones reproduce a published pair",
         setup_flops_command},
        {"sweep", "Expand a sweep (base recipe + matrix/zip/exclude): --dry-run preview, resumable submission, status",
         setup_sweep_command},
        {"report", "Step time, throughput, TFLOPS/GPU and MFU of a run or logs, checked against expectations",
         setup_report_command},
        {"compare", "Runs or log files side by side, with relative differences", setup_compare_command},
        {"submit", "Submit a recipe's stages to its scheduler in a fresh run directory", setup_submit_command},
        {"status", "State of runs (all by default), one scheduler query per backend", setup_status_command},
        {"cancel", "Cancel a run's unfinished jobs", setup_cancel_command},
        {"logs", "Print a run's logs; -f follows them", setup_logs_command},
        {"wait", "Wait until a run ends, with a live status line", setup_wait_command},
        {"run", "Submit, wait, then report", setup_run_command},
        {"watch", "Follow a running run's training: step, step time, tokens/s, MFU, ETA", setup_watch_command},
        {"history", "Recorded results over time (table, JSON, CSV, HTML trend plots)", setup_history_command},
        {"tag", "Tag a recorded run (good = the default regress baseline)", setup_tag_command},
        {"regress", "Is a run slower than its baseline beyond noise? Exit 5 when it is", setup_regress_command},
    };
    return table;
}

}  // namespace trainbench::cli
