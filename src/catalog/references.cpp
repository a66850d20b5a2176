// Published references: recipes/catalog/references/<publication>.yaml. A file is
// one publication (a performance table at one release): the keys every row
// shares at the top, then `rows`, each of which may override them.
#include "catalog/catalog_yaml.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace fs = std::filesystem;

namespace trainbench::catalog {

namespace {

// The keys a row reads, in order; a file's top level gives defaults for the shared ones.
void read_shared(yaml::MapReader& r, Reference& x) {
    r.read("source", x.source);
    r.read("publisher", x.publisher);
    r.read("release", x.release);
    r.read("framework", x.framework);
    r.read("system", x.system);
    r.read("gpu", x.gpu);
    r.read("precision", x.precision);
    r.read("convention", x.convention);
    r.read("why", x.why);
    r.read("explained", x.explained);
    r.read("note", x.note);
}

void read_row(yaml::MapReader& r, Reference& x) {
    read_shared(r, x);
    r.read("id", x.id);
    r.read("model", x.model);
    r.read("published_model", x.published_model);
    r.read("gpus", x.gpus, 1);
    r.read("global_batch", x.global_batch, 1);
    r.read("micro_batch", x.micro_batch, 1);
    r.read("seq_length", x.seq_length, 1);
    r.read("tp", x.tensor, 1);
    r.read("pp", x.pipeline, 1);
    r.read("cp", x.context, 1);
    r.read("vp", x.virtual_pipeline, 0);
    r.read("ep", x.expert, 1);
    r.read("tokens_per_s_per_gpu", x.tokens_per_s_per_gpu, 0.0);
    r.read("tflops_per_gpu", x.tflops_per_gpu, 0.0);
}

std::vector<std::string> gpu_keys(const Catalog& cat) {
    std::vector<std::string> keys;
    for (const auto& [name, g] : cat.gpus()) {
        keys.push_back(name);
        keys.push_back(g.family);
    }
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    return keys;
}

void check_row(const Reference& x, const std::string& key, const Catalog& cat, Diagnostics& d) {
    auto need = [&](bool ok, const char* field, const char* expected) {
        if (!ok) d.error(x.where, yaml::join_key(key, field), "required key is missing", expected);
    };
    need(!x.id.empty(), "id", "a unique name, e.g. 'nemo-24.07-gpt3-175b-h100x512-fp8'");
    need(!x.source.empty(), "source", "where it is published (a URL, or repository@commit:file)");
    need(x.gpus > 0, "gpus", "the GPU count, an integer >= 1");
    need(x.global_batch > 0, "global_batch", "an integer >= 1");
    need(x.seq_length > 0, "seq_length", "an integer >= 1");
    need(x.tokens_per_s_per_gpu > 0, "tokens_per_s_per_gpu", "a number > 0");
    need(x.tflops_per_gpu > 0, "tflops_per_gpu", "a number > 0");
    const std::vector<std::string> models = cat.model_names();
    if (std::find(models.begin(), models.end(), x.model) == models.end())
        d.error(x.where, yaml::join_key(key, "model"), fmt::format("unknown model '{}'", x.model),
                "a model of recipes/catalog/models/", yaml::suggest(x.model, models));
    const std::vector<std::string> gpus = gpu_keys(cat);
    if (std::find(gpus.begin(), gpus.end(), x.gpu) == gpus.end())
        d.error(x.where, yaml::join_key(key, "gpu"), fmt::format("unknown GPU '{}'", x.gpu),
                "a GPU name or family of recipes/catalog/gpus.yaml", yaml::suggest(x.gpu, gpus));
    if (!parse_precision(x.precision))
        d.error(x.where, yaml::join_key(key, "precision"), fmt::format("unknown precision '{}'", x.precision),
                quoted_list(precision_names()), yaml::suggest(x.precision, precision_names()));
    const std::vector<std::string>& conventions = flops_convention_names();
    if (std::find(conventions.begin(), conventions.end(), x.convention) == conventions.end())
        d.error(x.where, yaml::join_key(key, "convention"), fmt::format("unknown FLOPs convention '{}'", x.convention),
                quoted_list(conventions), yaml::suggest(x.convention, conventions));
}

void load_file(const fs::path& file, const Catalog& cat, std::map<std::string, Reference>& out, Diagnostics& d) {
    const std::string display = file.string();
    yaml::Node root = yaml::parse_file(file, display, d);
    if (root.is_null()) return;
    yaml::MapReader top(root, {}, d);
    if (!top.valid()) return;
    Reference shared;
    read_shared(top, shared);
    const yaml::Node* rows = top.require("rows", "a list of published rows");
    top.finish();
    if (!rows) return;
    if (!rows->is_sequence()) {
        yaml::type_error(d, *rows, "rows", "a list of published rows");
        return;
    }
    for (std::size_t i = 0; i < rows->items.size(); ++i) {
        const std::string key = fmt::format("rows[{}]", i);
        yaml::MapReader r(rows->items[i], key, d);
        if (!r.valid()) continue;
        Reference x = shared;
        x.where = rows->items[i].where;
        read_row(r, x);
        r.finish();
        check_row(x, key, cat, d);
        if (out.count(x.id) && out[x.id].where.file == x.where.file)
            d.error(x.where, yaml::join_key(key, "id"), fmt::format("duplicate reference id '{}'", x.id),
                    "ids unique across the references");
        out[x.id] = std::move(x);
    }
}

}  // namespace

std::vector<Reference> load_references(const std::vector<fs::path>& recipe_dirs, const Catalog& catalog) {
    Diagnostics d;
    std::map<std::string, Reference> by_id;
    for (const fs::path& dir : recipe_dirs) {
        std::error_code ec;
        const fs::path refs = dir / "catalog" / "references";
        if (!fs::is_directory(refs, ec)) continue;
        std::vector<fs::path> files;
        for (const auto& e : fs::directory_iterator(refs, ec))
            if (e.is_regular_file(ec) && (e.path().extension() == ".yaml" || e.path().extension() == ".yml"))
                files.push_back(e.path());
        std::sort(files.begin(), files.end());
        for (const fs::path& f : files) load_file(f, catalog, by_id, d);
    }
    d.throw_if_errors("invalid published references");
    std::vector<Reference> out;
    for (auto& [id, x] : by_id) out.push_back(std::move(x));
    return out;
}

}  // namespace trainbench::catalog
