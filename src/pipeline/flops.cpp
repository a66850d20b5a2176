// `flops`: a model's FLOPs under every convention, and which ones reproduce a published pair.
#include <trainbench/pipeline.hpp>

#include <fmt/format.h>

namespace trainbench::pipeline {

Flops flops(const Services& services, const FlopsRequest& o) {
    const catalog::Catalog& cat =
        services.catalog_without_targets ? services.catalog_without_targets(o.model) : services.catalog();
    const catalog::Model* m = cat.find_model(o.model);
    if (!m) throw UsageError(fmt::format("unknown model '{}'", o.model), did_you_mean(o.model, cat.model_names()));
    Flops out;
    analysis::FlopsInput& in = out.input;
    in.model = *m;
    in.seq_length = o.seq;
    in.tensor_parallel = o.tensor_parallel;
    in.vocab_divisible_by = o.vocab_divisible_by;
    if (in.seq() <= 0) throw UsageError(fmt::format("model '{}' has no sequence length", o.model), "give --seq N");
    out.pair = o.tokens_per_gpu > 0 || o.tflops_per_gpu > 0;
    if (out.pair && !(o.tokens_per_gpu > 0 && o.tflops_per_gpu > 0))
        throw UsageError("a published pair needs both --tokens-per-gpu and --tflops-per-gpu");
    std::vector<analysis::ConventionMatch> matches;
    if (out.pair) matches = analysis::match_conventions(in, o.tokens_per_gpu, o.tflops_per_gpu, o.tolerance_pct / 100);
    for (const auto& x : matches)
        if (x.within) out.reproducing.emplace_back(x.convention->name);
    out.listing = report::flops_listing(in, out.pair ? &matches : nullptr);
    out.json = {{"model", m->name},
                {"seq_length", in.seq()},
                {"tensor_parallel", in.tensor_parallel},
                {"vocab_divisible_by", in.vocab_divisible_by}};
    if (out.pair)
        out.json["published"] = {{"tokens_per_s_per_gpu", o.tokens_per_gpu},
                                 {"tflops_per_gpu", o.tflops_per_gpu},
                                 {"tolerance", o.tolerance_pct / 100}};
    out.json["conventions"] = out.listing.json;
    return out;
}

}  // namespace trainbench::pipeline
