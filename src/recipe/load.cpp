// Loading a recipe: the steps of recipe/loading.hpp in order, and finding recipe files.
#include "recipe/loading.hpp"
#include "recipe/schema.hpp"

#include <trainbench/recipe.hpp>
#include <trainbench/yaml.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace fs = std::filesystem;

namespace trainbench::recipe {

using yaml::Node;

int Recipe::data_parallel() const {
    int model_parallel = parallelism.tensor * parallelism.pipeline * parallelism.context;
    int total = total_gpus();
    if (model_parallel <= 0 || total <= 0 || total % model_parallel != 0) return 0;
    return total / model_parallel;
}

struct RecipeSource::Tree {
    Node root;
    Diagnostics diagnostics;  // problems found while reading (reported by every load)
};

RecipeSource RecipeSource::read(const fs::path& file, const std::vector<fs::path>& roots) {
    auto tree = std::make_shared<Tree>();
    std::string display = file.string();
    std::vector<fs::path> stack;
    std::vector<std::string> stack_names;
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
        throw InputError(fmt::format("recipe '{}' not found", display), "give the path of a recipe YAML file");
    stack.push_back(fs::weakly_canonical(file, ec));
    stack_names.push_back(display);
    tree->root = load_tree(file, display, stack, stack_names, tree->diagnostics, {}, allowed_roots(file, roots));
    if (tree->diagnostics.has_errors() && tree->root.is_null())
        tree->diagnostics.throw_if_errors(fmt::format("invalid recipe '{}'", display));
    RecipeSource source;
    source.m_file = file;
    source.m_tree = std::move(tree);
    return source;
}

Recipe load_recipe(const fs::path& file, const catalog::Catalog& catalog, const LoadOptions& options) {
    return load_recipe(RecipeSource::read(file, options.recipe_roots), catalog, options);
}

Recipe load_recipe(const RecipeSource& source, const catalog::Catalog& catalog, const LoadOptions& options) {
    const fs::path& file = source.file();
    std::string display = file.string();
    Diagnostics d = source.tree().diagnostics;
    Node root = source.tree().root;
    for (const Override& o : options.overrides) apply_override(root, o, d);

    Recipe r;
    r.file = file;
    Decoder(catalog, r, d).decode(root);
    record_origins(root, {}, r.origins);
    r.resolved = to_json(r);
    record_catalog_origins(r);
    d.throw_if_errors(fmt::format("invalid recipe '{}'", display));
    return r;
}

Recipe load_valid_recipe(const fs::path& file, const catalog::Catalog& catalog, const LoadOptions& options) {
    Recipe r = load_recipe(file, catalog, options);
    Diagnostics d;
    validate_recipe(r, d);
    d.throw_if_errors(fmt::format("invalid recipe '{}'", file.string()));
    return r;
}

std::vector<fs::path> find_recipe_files(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    if (fs::is_regular_file(dir, ec)) return {dir};
    if (!fs::is_directory(dir, ec)) return out;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
    for (; it != end; it.increment(ec)) {
        if (ec) break;
        const fs::path& p = it->path();
        std::string leaf = p.filename().string();
        if (it->is_directory(ec)) {
            if (leaf == "catalog" || leaf == "common" || (!leaf.empty() && leaf[0] == '.'))
                it.disable_recursion_pending();
            continue;
        }
        std::string ext = p.extension().string();
        if (ext == ".yaml" || ext == ".yml") out.push_back(p);
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace trainbench::recipe
