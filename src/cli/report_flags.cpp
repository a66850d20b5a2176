// The options `report` and `compare` share.
#include "cli/report_support.hpp"

#include <trainbench/pipeline.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace trainbench::cli {

void add_report_flags(CLI::App* cmd, ReportFlags& f) {
    cmd->add_option("--model", f.model, "Catalog model (bare logs), e.g. gpt3-175b");
    cmd->add_option("--gpus", f.gpus, "Total number of GPUs (bare logs)")->check(CLI::PositiveNumber);
    cmd->add_option("--gpu", f.gpu, "GPU: catalog name or family (a100, h100, h200, b200, gb200, gb300, b300, cpu)");
    cmd->add_option("--precision", f.precision,
                    "Precision the peak is taken at: bf16, fp16, fp8, mxfp8, nvfp4, tf32, fp32");
    cmd->add_option("--global-batch", f.global_batch, "Global batch size in sequences (bare logs)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--seq", f.seq, "Sequence length (default: the model's)")->check(CLI::PositiveNumber);
    cmd->add_option("--tp", f.tensor_parallel, "Tensor parallel size (pads the vocabulary for megatron conventions)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--window", f.window,
                    "Inclusive step window START:END for the mean, or a named one: dgxc (35:44, dgxc-benchmarking's) "
                    "(default 10:30 or the recipe's)");
    cmd->add_option("--flops", f.flops,
                    "FLOPs convention (default: the one the run's framework version prints): " +
                        fmt::format("{}", fmt::join(analysis::flops_convention_names(), ", ")) +
                        " ('trainbench list conventions')");
    cmd->add_option("--format", f.format, "Log format of bare logs (default: detected)");
    cmd->add_option("--peak", f.peak, "Peak TFLOPS per GPU for MFU (overrides the catalog's peak)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--tokens", f.tokens, "Tokens for the days-to-train figure (default 300e9)")
        ->check(CLI::PositiveNumber);
    cmd->add_flag("--csv", f.csv, "CSV on stdout");
    cmd->add_flag("--markdown", f.markdown, "Markdown on stdout");
    cmd->add_option("--html", f.html, "Write a self-contained HTML report to FILE");
}

}  // namespace trainbench::cli
