#include "cli/run_support.hpp"

#include "cli/live_progress.hpp"
#include "cli/stage_reuse.hpp"

#include <trainbench/pipeline.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace trainbench::cli {

void add_kube_flags(CLI::App* cmd, std::string& context, std::string& ns) {
    cmd->add_option("--context", context, "Kubernetes: the kubectl context (default: the current one)");
    cmd->add_option("--namespace", ns, "Kubernetes: the namespace (default: the recipe's)");
}

void add_wait_options(CLI::App* cmd, WaitArgs& args, const std::string& interval_help) {
    cmd->add_option("RUN", args.run, "Run directory, run id or short id prefix")->required();
    cmd->add_option("--timeout", args.timeout, "Give up after SECONDS (exit 4); 0 = never")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--interval", args.interval, interval_help)->check(CLI::PositiveNumber);
}

int wait_for_named_run(Context& ctx, const WaitArgs& args, bool events_to_stdout) {
    std::vector<run::RunInfo> runs = load_runs(ctx, {args.run});
    return wait_for_run(ctx, runs.front(), args.timeout, args.interval, events_to_stdout);
}

run::RunInfo submit_recipe(Context& ctx, const SubmitArgs& args) {
    pipeline::Services services = ctx.services();
    recipe::Recipe r = pipeline::load_for_submit(services, args.recipe, args.overrides);
    pipeline::SubmitRequest request;
    request.recipe_file = args.recipe;
    request.stage = args.stage;
    request.kube_context = args.kube_context;
    request.kube_namespace = args.kube_namespace;
    request.reuse = args.reuse;
    request.on_note = [&ctx](const std::string& note) { ctx.err << "trainbench: " << note << '\n'; };
    request.on_warning = [&ctx](const std::string& warning) { ctx.warn(warning); };
    request.on_reused = [&ctx](const std::vector<run::StageReuse>& reused) { print_reused(ctx, reused); };
    return pipeline::submit_recipe(services, r, request);
}

std::vector<run::RunInfo> load_runs(Context& ctx, const std::vector<std::string>& refs) {
    return pipeline::load_runs(ctx.services(), refs);
}

namespace {

std::string stage_summary(const run::RunInfo& run) {
    std::string out;
    for (const run::StageState& s : run.stages) {
        if (!out.empty()) out += " ";
        std::string state =
            s.job_id.empty() ? (s.submitting ? "?" : "-") : std::string(backend::to_string(s.status.state));
        out += fmt::format("{}:{}", s.name, s.job_id.empty() ? state : fmt::format("{}={}", s.job_id, state));
    }
    return out;
}

}  // namespace

void print_run_table(Context& ctx, const std::vector<run::RunInfo>& runs) {
    if (ctx.options.json) {
        ordered_json arr = ordered_json::array();
        for (const run::RunInfo& r : runs) arr.push_back(r.to_json());
        print_json(ctx, arr.dump(2));
        return;
    }
    if (runs.empty()) {
        ctx.err << "no runs under '" << ctx.runs_root().string() << "'\n";
        return;
    }
    std::vector<std::vector<std::string>> rows = {{"RUN", "RECIPE", "BACKEND", "STATE", "JOBS", "CREATED", "DETAIL"}};
    for (const run::RunInfo& r : runs)
        rows.push_back({r.short_id, r.recipe_name, r.backend, r.state(), stage_summary(r), r.created, r.detail()});
    std::vector<std::size_t> width(rows[0].size(), 0);
    for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            if (i + 1 == row.size())
                line += row[i];
            else
                line += fmt::format("{:<{}}  ", row[i], width[i]);
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        ctx.out << line << '\n';
    }
}

void print_submitted(Context& ctx, const run::RunInfo& run) {
    if (ctx.options.json) {
        print_json(ctx, run.to_json().dump(2));
        return;
    }
    ctx.out << fmt::format("submitted run {} ({})\n", run.short_id, run.dir.string());
    for (const run::StageState& s : run.stages)
        ctx.out << fmt::format("  stage {}: {} job {}\n", s.name, run.backend, s.job_id.empty() ? "-" : s.job_id);
}

int wait_for_run(Context& ctx, run::RunInfo& run, double timeout_s, double interval_s, bool events_to_stdout) {
    ProgressDisplay progress(ctx, events_to_stdout);
    const bool live = ctx.err_is_tty && !ctx.options.quiet;
    std::string last;
    pipeline::WaitOptions options;
    options.timeout_s = timeout_s;
    options.interval_s = interval_s;
    options.on_warning = [&ctx](const std::string& warning) { ctx.warn(warning); };
    pipeline::WaitResult waited = pipeline::wait_run(ctx.services(), run, options, [&](const pipeline::WaitTick& t) {
        if (t.progress) progress.show(*t.progress);
        std::string line = fmt::format("{} {} {}", t.run.short_id, t.run.state(), t.run.detail());
        while (!line.empty() && line.back() == ' ') line.pop_back();
        if (live)
            ctx.err << "\r\033[K" << line << "  [" << human_duration(t.elapsed_s) << "]"
                    << (progress.last().empty() ? "" : "  " + progress.last()) << std::flush;
        else if (line != last && !ctx.options.quiet)
            ctx.err << "trainbench: " << line << '\n';
        last = line;
    });
    run = waited.run;
    if (live) ctx.err << '\n';
    if (waited.timed_out)
        throw RuntimeError(fmt::format("timed out after {} waiting for run '{}' (still {})", human_duration(timeout_s),
                                       run.short_id, run.state()),
                           fmt::format("'trainbench wait {}' continues waiting", run.short_id));
    if (!waited.collect_error.empty()) ctx.err << "trainbench: warning: " << waited.collect_error << '\n';
    if (ctx.options.json)
        print_json(ctx, run.to_json().dump(2));
    else
        ctx.out << run.short_id << ' ' << run.state() << '\n';
    if (run.state() == "COMPLETED") return 0;
    std::string detail = run.detail();
    throw RuntimeError(
        fmt::format("run '{}' ended {}{}", run.short_id, run.state(), detail.empty() ? "" : ": " + detail),
        fmt::format("the logs: trainbench logs {}", run.short_id));
}

}  // namespace trainbench::cli
