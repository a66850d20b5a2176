// Private to recipe: the steps of loading a recipe, one file each.
//   extends.cpp    the `extends` chain (and the directories it may read from)
//   overrides.cpp  `-s key=value` overrides applied to the merged tree
//   decode*.cpp    the merged tree decoded into a Recipe, section by section (Decoder)
//   origins.cpp    where each value of the Recipe was set
//   load.cpp       the entry points that run these steps in order
#pragma once

#include <trainbench/recipe.hpp>
#include <trainbench/yaml.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace trainbench::recipe {

// ---------------------------------------------------------------- extends (extends.cpp)

// The directories `extends` may read from (canonical), for the top recipe `top`.
std::vector<std::filesystem::path> allowed_roots(const std::filesystem::path& top,
                                                 const std::vector<std::filesystem::path>& extra);

// The YAML tree of `file` with its `extends` chain merged in (bases first, later wins).
// `stack` and `stack_names` hold the files being read (for cycles), `from` where `file` was named.
yaml::Node load_tree(const std::filesystem::path& file, const std::string& display,
                     std::vector<std::filesystem::path>& stack, std::vector<std::string>& stack_names, Diagnostics& d,
                     const SourceLocation& from, const std::vector<std::filesystem::path>& roots);

// ---------------------------------------------------------------- overrides (overrides.cpp)

// Sets `o.key` (a dotted path) in `root` to `o.value`, typed as YAML; problems go to `d`.
void apply_override(yaml::Node& root, const Override& o, Diagnostics& d);

// ---------------------------------------------------------------- decoding (decode*.cpp)

// Decodes the merged recipe tree into a Recipe, resolving catalog references and filling
// the defaults that depend on other sections. One member per section of the recipe.
class Decoder {
public:
    Decoder(const catalog::Catalog& cat, Recipe& r, Diagnostics& d) : m_cat(cat), m_r(r), m_d(d) {}

    void decode(const yaml::Node& root);  // decode.cpp

private:
    using MapReader = yaml::MapReader;
    using Node = yaml::Node;

    // decode.cpp: the scalar sections and those that only fill plain fields
    void decode_version_and_name(MapReader& top);
    void decode_parallelism_and_batch(MapReader& top);
    void decode_recompute(MapReader& top);
    void decode_profiling(MapReader& top);
    void decode_launch(MapReader& top);
    void decode_framework_config(MapReader& top);
    void flatten_config(const Node& n, const std::string& prefix);
    void decode_data(MapReader& top);
    void decode_container(MapReader& top);
    void decode_env(MapReader& top);

    // decode_catalog.cpp: the sections that name catalog entries
    void decode_target(MapReader& top);
    void decode_model(MapReader& top);
    void decode_framework_version(MapReader& top);
    void default_framework_version();

    // decode_metrics.cpp: how figures are measured and what they are expected to be
    void decode_metrics(MapReader& top);
    void decode_named_window(const Node& w);
    void default_flops_convention();
    void decode_expect(MapReader& top);

    // decode_jobs.cpp: the schedulers' settings and the job's stages
    void decode_slurm(MapReader& top);
    void decode_slurm_knobs(MapReader& sr, Slurm& s);
    void decode_kubernetes(MapReader& top);
    void decode_stages(MapReader& top);
    bool read_checked(MapReader& r, std::string_view key, std::string& out, std::string (*problem)(std::string_view),
                      std::string_view expected);
    void read_checked_list(MapReader& r, std::string_view key, std::vector<std::string>& out,
                           std::string (*problem)(std::string_view), std::string_view expected);

    const catalog::Catalog& m_cat;
    Recipe& m_r;
    Diagnostics& m_d;
    bool m_flops_given = false;  // the recipe names metrics.flops
};

// ---------------------------------------------------------------- origins (origins.cpp)

// Records in `out` where each value of the tree `n` (at `key`) was set.
void record_origins(const yaml::Node& n, const std::string& key, std::map<std::string, SourceLocation>& out);

// Locates the values that came from a catalog entry (target, model) rather than the recipe;
// runs once `r.resolved` is filled.
void record_catalog_origins(Recipe& r);

}  // namespace trainbench::recipe
