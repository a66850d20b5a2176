// trainbench parse: read training logs and dump what the parsers decoded
// (series, parameters, nccl-tests rows), for users and for debugging parsers.
#include "cli/app.hpp"

#include <trainbench/pipeline.hpp>
#include <trainbench/report.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace trainbench::cli {

namespace {

struct ParseCommandOptions {
    pipeline::ParseRequest request;
    bool csv = false;
    bool points = false;
};

int run_parse(const ParseCommandOptions& opts, Context& ctx) {
    if (opts.csv && ctx.options.json)
        throw UsageError("--csv and --json cannot be combined", "choose one output format");
    const pipeline::ParsedLogs parsed = pipeline::parse_logs(opts.request);
    const metrics::LogData& d = parsed.data;
    const auto& st = d.stats;
    if (!ctx.options.quiet) {
        ctx.err << fmt::format("trainbench: parsed {} file{} ({}) as {}: {} records, {} skipped, {} corrupt{}\n",
                               d.files.size(), d.files.size() == 1 ? "" : "s",
                               human_bytes(static_cast<double>(st.bytes)), d.format, st.records, st.skipped, st.corrupt,
                               st.truncated_tail ? ", incomplete last record" : "");
        for (const std::string& w : parsed.warnings) ctx.warn(w);
    }
    if (ctx.options.json)
        report::write_log_data_json(ctx.out, d);
    else if (opts.csv)
        report::write_log_data_csv(ctx.out, d);
    else
        report::write_log_data_text(ctx.out, d, opts.points);
    return 0;
}

}  // namespace

void setup_parse_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<ParseCommandOptions>();
    CLI::App* cmd = root.add_subcommand(
        "parse", "Read training logs (DLLogger, TensorBoard, Megatron, NeMo, fairseq, nccl-tests) and dump the series");
    cmd->add_option("files", opts->request.files, "Log files, or TensorBoard directories")->required();
    std::vector<std::string> format_names{"auto"};
    for (const auto& f : metrics::formats()) format_names.push_back(f.name);
    cmd->add_option("-f,--format", opts->request.format, "Log format (default: detected from content and file name)")
        ->check(CLI::IsMember(format_names));
    cmd->add_option("-t,--tags", opts->request.tags,
                    "Keep only these series (source or canonical names, comma-separated)");
    cmd->add_flag("--csv", opts->csv,
                  "CSV on stdout: series,source_name,step,value,wall_time (nccl-tests: one row per size)");
    cmd->add_flag("--points", opts->points, "Also print every step (one column per series)");
    cmd->add_option("-j,--threads", opts->request.threads,
                    "Threads for one large DLLogger, TensorBoard, Megatron-Bridge or TorchTitan file (64 MiB and "
                    "more; same result as one thread). Default: one per core, at most 4; 1 reads sequentially")
        ->check(CLI::Range(0u, 64u));
    std::string footer = R"TXT(Examples:
  trainbench parse dllogger.json
  trainbench parse logs/tensorboard/ --tags "train_step_timing in s,reduced_train_loss" --csv
  trainbench parse slurm-1234.out --format megatron --points
  trainbench parse all_reduce.log --json

Formats:)TXT";
    std::size_t width = 0;  // the longest name ("megatron-bridge") sets the column
    for (const auto& f : metrics::formats()) width = std::max(width, f.name.size());
    for (const auto& f : metrics::formats()) footer += fmt::format("\n  {:<{}}  {}", f.name, width, f.description);
    cmd->footer(footer);
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_parse(*opts, ctx); }; });
}

}  // namespace trainbench::cli
