// The values of `show` (a resolved recipe), `parse` (what the log parsers decoded) and `list`
// (the catalog, the shipped recipes, the FLOPs conventions and the published references).
#include "pipeline/points_in_memory.hpp"

#include <trainbench/pipeline.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

namespace trainbench::pipeline {

ShownRecipe show_recipe(const Services& services, const std::string& file, const std::vector<std::string>& overrides,
                        bool origins) {
    const recipe::LoadOptions load = load_options(services, overrides);
    const recipe::Recipe r = load_checked_recipe(services.catalog(), file, load, RecipeChecks::none);
    ShownRecipe out{recipe::to_yaml(r, origins), r.resolved};
    if (origins) {
        nlohmann::ordered_json where = nlohmann::ordered_json::object();
        for (const auto& [k, at] : r.origins) where[k] = at.to_string();
        out.json = {{"recipe", r.resolved}, {"origins", where}};
    }
    return out;
}

ParsedLogs parse_logs(const ParseRequest& q) {
    metrics::ParseOptions po;
    po.format = q.format;
    po.threads = q.threads;
    po.spill_after = detail::k_points_in_memory;  // `parse` writes every point out
    for (const std::string& t : q.tags) {
        std::stringstream ss(t);
        std::string item;
        while (std::getline(ss, item, ','))
            if (!item.empty()) po.tags.push_back(item);
    }
    const std::vector<std::filesystem::path> paths(q.files.begin(), q.files.end());
    ParsedLogs out{metrics::parse_logs(paths, po), {}};
    const metrics::ParseStats& st = out.data.stats;
    out.warnings = st.warnings;
    const std::uint64_t problems = st.corrupt + (st.truncated_tail ? 1 : 0);
    if (problems > st.warnings.size() && !st.warnings.empty())
        out.warnings.push_back(fmt::format("(only the first {} warnings are shown)", st.warnings.size()));
    const metrics::LogData& d = out.data;
    if (d.series.empty() && (!d.nccl || d.nccl->rows.empty()) && d.parameters.empty())
        out.warnings.push_back("no metrics found" + std::string(po.tags.empty() ? "" : " (check --tags)"));
    return out;
}

report::Listing list_catalog(const Services& services, std::string_view what) {
    if (what == "conventions") return report::convention_listing();
    const std::vector<std::string> names{"targets", "models",      "frameworks", "recipes",
                                         "gpus",    "conventions", "references"};
    if (std::find(names.begin(), names.end(), what) == names.end())
        throw UsageError(fmt::format("cannot list '{}'", what), did_you_mean(what, names));
    const catalog::Catalog& cat = services.catalog();
    if (what == "gpus") return report::gpu_listing(cat);
    if (what == "targets") return report::target_listing(cat);
    if (what == "models") return report::model_listing(cat);
    if (what == "frameworks") return report::framework_listing(cat);
    if (what == "references") {
        const std::vector<catalog::Reference> rows = published_references(services);
        std::vector<analysis::ReferenceCheck> checks;
        for (const catalog::Reference& r : rows)
            checks.push_back(analysis::check_reference(r, *cat.find_model(r.model)));
        return report::reference_listing(rows, checks);
    }
    return report::recipe_listing(cat, services.dirs.recipes);
}

}  // namespace trainbench::pipeline
