// Loading a recipe the way every use case does (load, validate, check the launch lines), and
// `validate`: every recipe checked, with its memory estimate.
#include <trainbench/pipeline.hpp>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace trainbench::pipeline {

recipe::LoadOptions load_options(const Services& services, const std::vector<std::string>& overrides) {
    recipe::LoadOptions load;
    load.recipe_roots = services.dirs.recipes;
    for (const std::string& s : overrides) load.overrides.push_back(recipe::parse_override(s));
    return load;
}

recipe::Recipe load_checked_recipe(const catalog::Catalog& catalog, const fs::path& file,
                                   const recipe::LoadOptions& load, RecipeChecks checks, Diagnostics* kept) {
    recipe::Recipe r = recipe::load_recipe(file, catalog, load);
    if (checks == RecipeChecks::none) return r;
    Diagnostics d;
    recipe::validate_recipe(r, d);
    // What each framework would receive, against its version's profile (a recipe whose own
    // rules fail is not rendered for it).
    if (checks == RecipeChecks::launch && !d.has_errors()) render::check_launch(r, catalog, d);
    d.throw_if_errors(fmt::format("invalid recipe '{}'", file.string()));
    if (kept) kept->merge(d);
    return r;
}

recipe::Recipe load_for_submit(const Services& services, const fs::path& file,
                               const std::vector<std::string>& overrides) {
    return load_checked_recipe(services.catalog(), file, load_options(services, overrides));
}

std::vector<RenderInput> find_recipes(const std::vector<std::string>& files, const std::vector<std::string>& dirs,
                                      std::string_view command) {
    std::vector<RenderInput> inputs;
    for (const std::string& r : files) inputs.push_back({r, {}});
    for (const std::string& dir : dirs) {
        std::error_code ec;
        if (!fs::exists(dir, ec)) throw UsageError(fmt::format("--all: '{}' does not exist", dir));
        for (const fs::path& f : recipe::find_recipe_files(dir))
            inputs.push_back({f, fs::relative(f, dir).replace_extension()});
    }
    if (inputs.empty())
        throw UsageError("no recipe given", fmt::format("trainbench {} RECIPE... or --all DIR", command));
    return inputs;
}

namespace {

RecipeCheck check_one(const catalog::Catalog& catalog, const fs::path& file, const recipe::LoadOptions& load) {
    RecipeCheck c;
    c.file = file;
    try {
        const recipe::Recipe r = load_checked_recipe(catalog, file, load, RecipeChecks::launch, &c.diagnostics);
        c.ok = true;
        c.name = r.name;
        c.gpus = r.total_gpus();
        c.data_parallel = r.data_parallel();
        c.gpu = r.gpu.name;
        c.memory = recipe::estimate_memory(r);
        c.memory_checked = r.gpu.family != "cpu" && c.memory.capacity > 0;
    } catch (const InputError& e) {
        c.ok = false;
        c.error = e.what();
        c.diagnostics = e.diagnostics();
    }
    return c;
}

}  // namespace

ValidateResult validate_recipes(const Services& services, const ValidateRequest& request,
                                const std::function<void(const RecipeCheck&)>& each) {
    const recipe::LoadOptions load = load_options(services, request.overrides);
    const std::vector<RenderInput> inputs = find_recipes(request.files, request.all, "validate");
    const catalog::Catalog& catalog = services.catalog();
    ValidateResult result;
    for (const RenderInput& input : inputs) {
        check_interrupted();
        RecipeCheck c = check_one(catalog, input.file, load);
        if (!c.ok) ++result.failed;
        if (each) each(c);
        result.recipes.push_back(std::move(c));
    }
    return result;
}

}  // namespace trainbench::pipeline
