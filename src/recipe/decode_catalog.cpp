// Decoding the sections that name catalog entries: target, model, framework_version.
#include "recipe/loading.hpp"
#include "recipe/schema.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace trainbench::recipe {

void Decoder::decode_target(MapReader& top) {
    const Node* n = top.require("target", "a target of recipes/catalog/targets/ or {base: <target>, ...}");
    if (!n) return;
    std::vector<std::string> names = m_cat.target_names();
    auto lookup = [&](const Node& name_node, const std::string& key) -> bool {
        auto name = yaml::as_string(name_node, key, m_d);
        if (!name) return false;
        const catalog::Target* t = m_cat.find_target(*name);
        if (!t) {
            m_d.error(name_node.where, key, fmt::format("unknown target '{}'", *name),
                      fmt::format("one of {}", quoted_list(names)), did_you_mean(*name, names));
            return false;
        }
        m_r.target = *t;
        m_r.target_name = *name;
        return true;
    };
    if (n->is_scalar()) {
        lookup(*n, "target");
    } else if (n->is_map()) {
        MapReader tr(*n, "target", m_d);
        const Node* base = tr.require("base", "the catalog target this one edits");
        tr.allow("name");
        bool ok = base && lookup(*base, "target.base");
        catalog::Target scratch;
        catalog::read_target_fields(tr, ok ? m_r.target : scratch, m_cat.gpu_names());
        tr.finish();
    } else {
        yaml::type_error(m_d, *n, "target", "a target name or {base: <target>, ...}");
    }
    if (!m_r.target_name.empty()) {
        if (const catalog::Gpu* g = m_cat.find_gpu(m_r.target.gpu)) m_r.gpu = *g;
    }
}

void Decoder::decode_model(MapReader& top) {
    const Node* n = top.require("model", "a model of recipes/catalog/models/ or {base: <model>, layers: ...}");
    if (!n) return;
    std::vector<std::string> names = m_cat.model_names();
    auto lookup = [&](const Node& name_node, const std::string& key) -> bool {
        auto name = yaml::as_string(name_node, key, m_d);
        if (!name) return false;
        const catalog::Model* m = m_cat.find_model(*name);
        if (!m) {
            m_d.error(name_node.where, key, fmt::format("unknown model '{}'", *name),
                      fmt::format("one of {}", quoted_list(names)), did_you_mean(*name, names));
            return false;
        }
        m_r.model = *m;
        m_r.model_name = *name;
        return true;
    };
    if (n->is_scalar()) {
        lookup(*n, "model");
    } else if (n->is_map()) {
        MapReader mr(*n, "model", m_d);
        const Node* base = mr.get("base");
        bool ok = true;
        if (base) {
            ok = lookup(*base, "model.base");
        } else {
            m_r.model = catalog::Model{};
            m_r.model.name = "custom";
            m_r.model.family = "custom";
            m_r.model.where = n->where;
        }
        std::string name;
        if (mr.read("name", name)) m_r.model.name = name;
        catalog::read_model_fields(mr, m_r.model);
        mr.finish();
        if (ok) catalog::check_model(m_r.model, n->where, "model", m_d);
    } else {
        yaml::type_error(m_d, *n, "model", "a model name or {base: <model>, ...}");
    }
}

// framework_version names a profile of recipes/catalog/frameworks/ (NeMo needs one:
// its job's config file starts from the profile's configuration).
void Decoder::decode_framework_version(MapReader& top) {
    const Node* n = top.get("framework_version");
    std::vector<std::string> versions = m_cat.framework_versions(m_r.framework);
    if (!n) return;  // default_framework_version() picks one once the container is known
    auto v = yaml::as_string(*n, "framework_version", m_d);
    if (!v) return;
    m_r.framework_version = *v;
    m_r.profile = m_cat.find_framework(m_r.framework, *v);
    if (!m_r.profile) {
        if (versions.empty())
            m_d.error(n->where, "framework_version",
                      fmt::format("framework '{}' has no versions in the catalog", m_r.framework),
                      "no framework_version", "remove framework_version, or add a profile under catalog/frameworks/");
        else
            m_d.error(n->where, "framework_version", fmt::format("no profile of {} version '{}'", m_r.framework, *v),
                      fmt::format("one of {}", quoted_list(versions)), did_you_mean(*v, versions));
    }
}

// No framework_version: the version whose profile lists the recipe's container image,
// else the newest the catalog has (`show` prints which).
void Decoder::default_framework_version() {
    if (!m_r.framework_version.empty()) return;
    std::vector<std::string> versions = m_cat.framework_versions(m_r.framework);
    const catalog::FrameworkKind* kind = catalog::find_framework_kind(m_r.framework);
    if (versions.empty() || (!(kind && kind->version_from_image) && versions.size() > 1)) return;
    std::string chosen = versions.back();
    for (const std::string& v : versions) {
        auto p = m_cat.find_framework(m_r.framework, v);
        if (std::find(p->containers.begin(), p->containers.end(), m_r.container.image) != p->containers.end())
            chosen = v;
    }
    m_r.framework_version = chosen;
    m_r.profile = m_cat.find_framework(m_r.framework, chosen);
}

}  // namespace trainbench::recipe
