// The `extends` chain: reading a recipe's bases (later wins), only from the recipe trees.
#include "recipe/loading.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fs = std::filesystem;

namespace trainbench::recipe {

using yaml::Node;

namespace {

std::string display_of(const fs::path& p) {
    return p.lexically_normal().string();
}

bool inside(const fs::path& file, const std::vector<fs::path>& roots) {
    for (const fs::path& root : roots) {
        auto [r, f] = std::mismatch(root.begin(), root.end(), file.begin(), file.end());
        if (r == root.end()) return true;
    }
    return false;
}

}  // namespace

// The directories `extends` may read from (canonical): the top recipe's directory, the
// recipes tree it belongs to (the nearest ancestor holding catalog/ or common/, else the
// directory above the recipe's), the data directories ($TRAINBENCH_RECIPES, the shipped
// recipes) and the caller's roots.
std::vector<fs::path> allowed_roots(const fs::path& top, const std::vector<fs::path>& extra) {
    std::vector<fs::path> roots;
    std::error_code ec;
    auto add = [&](const fs::path& p) {
        fs::path c = fs::weakly_canonical(p, ec);
        if (!ec && !c.empty()) roots.push_back(c);
    };
    fs::path dir = fs::weakly_canonical(top, ec).parent_path();
    add(dir);
    bool tree = false;
    for (fs::path p = dir; !p.empty() && p != p.root_path(); p = p.parent_path()) {
        if (fs::is_directory(p / "catalog", ec) || fs::is_directory(p / "common", ec)) {
            add(p);
            tree = true;
            break;
        }
    }
    // A folder of recipe folders without a catalog (bases next to the recipe's folder):
    // the parent, unless that is the file system's root.
    if (!tree && dir.has_parent_path() && dir.parent_path() != dir.root_path()) add(dir.parent_path());
    for (const fs::path& p : default_data_dirs().recipes) add(p);
    for (const fs::path& p : extra) add(p);
    return roots;
}

Node load_tree(const fs::path& file, const std::string& display, std::vector<fs::path>& stack,
               std::vector<std::string>& stack_names, Diagnostics& d, const SourceLocation& from,
               const std::vector<fs::path>& roots) {
    Node root = yaml::parse_file(file, display, d, from);
    if (root.is_null()) return root;
    if (!root.is_map()) {
        yaml::type_error(d, root, {}, "a map of recipe keys");
        return Node{};
    }
    yaml::Entry* ext = root.find_entry("extends");
    if (!ext) return root;
    Node ext_value = ext->value;
    root.erase("extends");
    std::vector<const Node*> entries;
    if (ext_value.is_scalar()) {
        entries.push_back(&ext_value);
    } else if (ext_value.is_sequence()) {
        for (const Node& i : ext_value.items) entries.push_back(&i);
    } else if (!ext_value.is_null()) {
        yaml::type_error(d, ext_value, "extends", "a file path or a list of file paths");
    }
    Node base = Node::make_map(root.where);
    for (const Node* e : entries) {
        if (!e->is_scalar() || e->scalar.empty()) {
            yaml::type_error(d, *e, "extends", "a file path (relative to this file)");
            continue;
        }
        fs::path target = file.parent_path() / e->scalar;
        std::string target_display = display_of(fs::path(display).parent_path() / e->scalar);
        std::error_code ec;
        if (!fs::is_regular_file(target, ec)) {
            d.error(e->where, "extends", fmt::format("extends file '{}' not found", e->scalar), "an existing YAML file",
                    fmt::format("paths are relative to the file that extends; resolved to '{}'", target_display));
            continue;
        }
        fs::path canonical = fs::weakly_canonical(target, ec);
        if (!inside(canonical, roots)) {
            // Never read (or quote) a file outside the recipe trees: a recipe from a pull
            // request must not be able to print /etc/passwd through an error message.
            d.error(e->where, "extends",
                    fmt::format("extends '{}' is outside the recipe's directory tree and the recipe directories",
                                e->scalar),
                    "a recipe under the recipe's own tree, the catalog, or a directory given with --recipes",
                    "pass its directory with --recipes DIR (or $TRAINBENCH_RECIPES) if it is meant to be used");
            continue;
        }
        if (std::find(stack.begin(), stack.end(), canonical) != stack.end()) {
            std::string chain;
            auto it = std::find(stack.begin(), stack.end(), canonical);
            for (auto i = static_cast<std::size_t>(it - stack.begin()); i < stack_names.size(); ++i)
                chain += stack_names[i] + " -> ";
            chain += target_display;
            d.error(e->where, "extends", fmt::format("extends cycle: {}", chain), {},
                    "remove one of the extends entries");
            continue;
        }
        if (stack.size() > 32) {
            d.error(e->where, "extends", "extends chain is too deep", "at most 32 levels");
            continue;
        }
        stack.push_back(canonical);
        stack_names.push_back(target_display);
        Node sub = load_tree(target, target_display, stack, stack_names, d, e->where, roots);
        stack.pop_back();
        stack_names.pop_back();
        if (sub.is_map()) yaml::merge(base, sub);
    }
    yaml::merge(base, root);
    return base;
}

bool inside_recipe_roots(const fs::path& from, const fs::path& target, const std::vector<fs::path>& extra) {
    std::error_code ec;
    return inside(fs::weakly_canonical(target, ec), allowed_roots(from, extra));
}

}  // namespace trainbench::recipe
