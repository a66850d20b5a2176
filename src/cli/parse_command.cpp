// trainbench parse: read training logs and dump what the parsers decoded
// (series, parameters, nccl-tests rows), for users and for debugging parsers.
#include "cli/app.hpp"

#include <trainbench/pipeline.hpp>
#include <trainbench/report.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

namespace trainbench::cli {

namespace {

constexpr std::size_t k_points_in_memory = 1 << 16;  // per series: 1.5 MiB

struct ParseCommandOptions {
    std::vector<std::string> files;
    std::string format = "auto";
    std::vector<std::string> tags;
    bool csv = false;
    bool points = false;
    unsigned threads = 0;
};

int run_parse(const ParseCommandOptions& opts, Context& ctx) {
    if (opts.csv && ctx.options.json)
        throw UsageError("--csv and --json cannot be combined", "choose one output format");
    metrics::ParseOptions po;
    po.format = opts.format;
    po.threads = opts.threads;
    // Every point is written out, so a long series waits in a temporary file, not in memory.
    po.spill_after = k_points_in_memory;
    for (const std::string& t : opts.tags) {
        std::stringstream ss(t);
        std::string item;
        while (std::getline(ss, item, ','))
            if (!item.empty()) po.tags.push_back(item);
    }
    std::vector<std::filesystem::path> paths(opts.files.begin(), opts.files.end());
    metrics::LogData d = metrics::parse_logs(paths, po);

    const auto& st = d.stats;
    if (!ctx.options.quiet) {
        ctx.err << fmt::format("trainbench: parsed {} file{} ({}) as {}: {} records, {} skipped, {} corrupt{}\n",
                               d.files.size(), d.files.size() == 1 ? "" : "s",
                               human_bytes(static_cast<double>(st.bytes)), d.format, st.records, st.skipped, st.corrupt,
                               st.truncated_tail ? ", incomplete last record" : "");
        for (const std::string& w : st.warnings) ctx.warn(w);
        std::uint64_t problems = st.corrupt + (st.truncated_tail ? 1 : 0);
        if (problems > st.warnings.size() && !st.warnings.empty())
            ctx.warn(fmt::format("(only the first {} warnings are shown)", st.warnings.size()));
        if (d.series.empty() && (!d.nccl || d.nccl->rows.empty()) && d.parameters.empty())
            ctx.warn("no metrics found" + std::string(po.tags.empty() ? "" : " (check --tags)"));
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
    cmd->add_option("files", opts->files, "Log files, or TensorBoard directories")->required();
    std::vector<std::string> format_names{"auto"};
    for (const auto& f : metrics::formats()) format_names.push_back(f.name);
    cmd->add_option("-f,--format", opts->format, "Log format (default: detected from content and file name)")
        ->check(CLI::IsMember(format_names));
    cmd->add_option("-t,--tags", opts->tags, "Keep only these series (source or canonical names, comma-separated)");
    cmd->add_flag("--csv", opts->csv,
                  "CSV on stdout: series,source_name,step,value,wall_time (nccl-tests: one row per size)");
    cmd->add_flag("--points", opts->points, "Also print every step (one column per series)");
    cmd->add_option("-j,--threads", opts->threads,
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
