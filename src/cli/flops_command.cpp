// trainbench flops --model NAME: a model's FLOPs per sample and per token under
// every dated convention; with --tokens-per-gpu and --tflops-per-gpu (a published
// pair that does not say its convention), the conventions that reproduce it.
#include "cli/app.hpp"

#include <trainbench/pipeline.hpp>
#include <trainbench/report.hpp>

#include <fmt/format.h>

namespace trainbench::cli {

namespace {

int run_flops(const pipeline::FlopsRequest& o, Context& ctx) {
    const pipeline::Flops f = pipeline::flops(ctx.services(), o);
    if (ctx.options.json) {
        print_json(ctx, f.json.dump(2));
        return 0;
    }
    ctx.out << fmt::format(
                   "{} at sequence {}, TP {} (vocabulary padded to a multiple of {} x TP where a "
                   "convention pads it)\n\n",
                   f.input.model.name, f.input.seq(), f.input.tensor_parallel, f.input.vocab_divisible_by)
            << report::fitted_table(f.listing.header, f.listing.rows);
    if (f.pair)
        ctx.out << "\n"
                << (f.reproducing.empty()
                        ? fmt::format("no convention reproduces {:g} TFLOPS/GPU at {:g} tokens/s/GPU "
                                      "within {:g} %",
                                      o.tflops_per_gpu, o.tokens_per_gpu, o.tolerance_pct)
                        : fmt::format("reproduces {:g} TFLOPS/GPU at {:g} tokens/s/GPU within {:g} %: {}",
                                      o.tflops_per_gpu, o.tokens_per_gpu, o.tolerance_pct,
                                      quoted_list(f.reproducing, " and ")))
                << "\n";
    return 0;
}

}  // namespace

void setup_flops_command(CLI::App& root, Context& ctx) {
    auto o = std::make_shared<pipeline::FlopsRequest>();
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
