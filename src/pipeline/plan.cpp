// `plan`: a recipe's estimates before any GPU hour is spent (FLOPs, memory, checkpoint, step
// time, days), or with `search` the TP/PP/VP/CP/EP/micro-batch configurations ranked.
#include <trainbench/pipeline.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace trainbench::pipeline {

namespace {

void check_request(const PlanRequest& q) {
    if (!(q.assume_mfu > 0 && q.assume_mfu <= 1))
        throw UsageError(fmt::format("--assume-mfu {} is not in (0, 1]", q.assume_mfu), "e.g. --assume-mfu 0.4");
    if (!(q.tokens > 0)) throw UsageError("--tokens must be positive", "e.g. --tokens 300e9");
    for (double bw : q.fs_bandwidth)
        if (!(bw > 0))
            throw UsageError(fmt::format("--fs-bandwidth {} is not positive", bw), "GB/s, e.g. --fs-bandwidth 19.2");
}

}  // namespace

PlanResult plan_recipe(const Services& services, const PlanRequest& q) {
    check_request(q);
    const recipe::LoadOptions load = load_options(services, q.overrides);
    PlanResult out{load_checked_recipe(services.catalog(), q.recipe, load, RecipeChecks::none), {}, {}, {}, {}};
    // The recipe's own rules are shown with the plan, which is made all the same.
    recipe::validate_recipe(out.recipe, out.diagnostics);
    if (q.search) {
        plan::SearchOptions so;
        so.assume_mfu = q.assume_mfu;
        so.min_headroom = q.min_headroom;
        out.candidates = plan::search(out.recipe, so);
        const auto top = static_cast<std::size_t>(std::max(q.top, 0));
        out.json = report::search_json(out.recipe, out.candidates, top, q.assume_mfu);
        return out;
    }
    plan::PlanOptions po;
    po.assume_mfu = q.assume_mfu;
    po.train_tokens = q.tokens;
    po.fs_bandwidth_gbs = q.fs_bandwidth;
    out.plan = plan::make_plan(out.recipe, po);
    out.json = plan::to_json(*out.plan);
    nlohmann::ordered_json validation = nlohmann::ordered_json::array();
    for (const Diagnostic& x : out.diagnostics.sorted()) validation.push_back(x.format());
    out.json["validation"] = validation;
    return out;
}

}  // namespace trainbench::pipeline
