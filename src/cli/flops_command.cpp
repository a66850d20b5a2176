// trainbench flops --model NAME: a model's FLOPs per sample and per token under
// every dated convention; with --tokens-per-gpu and --tflops-per-gpu (a published
// pair that does not say its convention), the conventions that reproduce it.
#include "cli/app.hpp"

#include <trainbench/pipeline.hpp>
#include <trainbench/report.hpp>

#include <fmt/format.h>

namespace trainbench::cli {

namespace {

struct FlopsOptions {
    std::string model;
    int seq = 0;
    int tensor_parallel = 1;
    int vocab_divisible_by = 128;
    double tokens_per_gpu = 0;
    double tflops_per_gpu = 0;
    double tolerance_pct = 0.5;
};

int run_flops(const FlopsOptions& o, Context& ctx) {
    const catalog::Model* m = ctx.catalog_without_targets(o.model).find_model(o.model);
    if (!m)
        throw UsageError(fmt::format("unknown model '{}'", o.model),
                         did_you_mean(o.model, ctx.catalog_without_targets(o.model).model_names()));
    analysis::FlopsInput in;
    in.model = *m;
    in.seq_length = o.seq;
    in.tensor_parallel = o.tensor_parallel;
    in.vocab_divisible_by = o.vocab_divisible_by;
    if (in.seq() <= 0) throw UsageError(fmt::format("model '{}' has no sequence length", o.model), "give --seq N");
    const bool pair = o.tokens_per_gpu > 0 || o.tflops_per_gpu > 0;
    if (pair && !(o.tokens_per_gpu > 0 && o.tflops_per_gpu > 0))
        throw UsageError("a published pair needs both --tokens-per-gpu and --tflops-per-gpu");
    std::vector<analysis::ConventionMatch> matches;
    if (pair) matches = analysis::match_conventions(in, o.tokens_per_gpu, o.tflops_per_gpu, o.tolerance_pct / 100);
    const report::Listing listing = report::flops_listing(in, pair ? &matches : nullptr);
    if (ctx.options.json) {
        nlohmann::ordered_json j = {{"model", m->name},
                                    {"seq_length", in.seq()},
                                    {"tensor_parallel", in.tensor_parallel},
                                    {"vocab_divisible_by", in.vocab_divisible_by}};
        if (pair)
            j["published"] = {{"tokens_per_s_per_gpu", o.tokens_per_gpu},
                              {"tflops_per_gpu", o.tflops_per_gpu},
                              {"tolerance", o.tolerance_pct / 100}};
        j["conventions"] = listing.json;
        print_json(ctx, j.dump(2));
        return 0;
    }
    ctx.out << fmt::format(
                   "{} at sequence {}, TP {} (vocabulary padded to a multiple of {} x TP where a "
                   "convention pads it)\n\n",
                   m->name, in.seq(), in.tensor_parallel, in.vocab_divisible_by)
            << report::fitted_table(listing.header, listing.rows);
    if (pair) {
        std::vector<std::string> names;
        for (const auto& x : matches)
            if (x.within) names.emplace_back(x.convention->name);
        ctx.out << "\n"
                << (names.empty()
                        ? fmt::format("no convention reproduces {:g} TFLOPS/GPU at {:g} tokens/s/GPU "
                                      "within {:g} %",
                                      o.tflops_per_gpu, o.tokens_per_gpu, o.tolerance_pct)
                        : fmt::format("reproduces {:g} TFLOPS/GPU at {:g} tokens/s/GPU within {:g} %: {}",
                                      o.tflops_per_gpu, o.tokens_per_gpu, o.tolerance_pct, quoted_list(names, " and ")))
                << "\n";
    }
    return 0;
}

}  // namespace

void setup_flops_command(CLI::App& root, Context& ctx) {
    auto o = std::make_shared<FlopsOptions>();
    CLI::App* cmd = root.add_subcommand(
        "flops", "A model's FLOPs under every dated convention; which conventions reproduce a published pair");
    cmd->add_option("--model", o->model, "Catalog model")->required();
    cmd->add_option("--seq", o->seq, "Sequence length (default: the model's)")->check(CLI::PositiveNumber);
    cmd->add_option("--tp", o->tensor_parallel, "Tensor parallel size (Megatron pads the vocabulary with it)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--vocab-divisible-by", o->vocab_divisible_by,
                    "Megatron's --make-vocab-size-divisible-by (default 128)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--tokens-per-gpu", o->tokens_per_gpu, "A published tokens/s/GPU")->check(CLI::PositiveNumber);
    cmd->add_option("--tflops-per-gpu", o->tflops_per_gpu, "The TFLOPS/GPU published with it")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--tolerance", o->tolerance_pct, "How close, in percent (default 0.5)")->check(CLI::PositiveNumber);
    cmd->footer(R"(A convention is a FLOPs formula as one framework counted it between two dates
('trainbench list conventions'; docs/metrics.md). With a published (tokens/s/GPU, TFLOPS/GPU)
pair, each convention's TFLOPS/GPU at that throughput is printed, and the ones within the
tolerance are named.

Examples:
  trainbench flops --model gpt3-175b --tp 4
  trainbench flops --model gpt3-175b --tp 4 --tokens-per-gpu 782 --tflops-per-gpu 842
  trainbench flops --model deepseek-v3 --seq 4096 --json)");
    cmd->callback([o, &ctx] { ctx.action = [o, &ctx] { return run_flops(*o, ctx); }; });
}

}  // namespace trainbench::cli
