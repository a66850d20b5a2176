// `trainbench list`: the catalog (GPUs, targets, models, framework versions)
// and the shipped recipes, each as rows of a table and as JSON.
#include <trainbench/recipe.hpp>
#include <trainbench/report.hpp>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace trainbench::report {

namespace {

using Row = std::vector<std::string>;

std::string num(double v) {
    return v == 0 ? "-" : fmt::format("{:g}", v);
}

}  // namespace

namespace {

std::string peak_list(const std::map<catalog::Precision, double>& peaks) {
    std::string out;
    for (const auto& [p, v] : peaks)
        out += fmt::format("{}{} {}", out.empty() ? "" : ", ", catalog::to_string(p), num(v));
    return out;
}

// The sources of one GPU's peaks: one line per datasheet figure, one per tool table.
void gpu_notes(const std::string& name, const catalog::Gpu& g, std::vector<std::string>& notes,
               nlohmann::ordered_json& peaks, nlohmann::ordered_json& tools) {
    for (const auto& [p, v] : g.peak_tflops_dense) {
        const std::string prec(catalog::to_string(p));
        auto it = g.peak_notes.find(p);
        const catalog::PeakNote note = it == g.peak_notes.end() ? catalog::PeakNote{} : it->second;
        const std::string source = note.source.empty() ? "the catalog's dense peak (no source given)" : note.source;
        notes.push_back(fmt::format("{} {} {}: {}{}", name, prec, num(v), source,
                                    note.clock.empty() ? "" : " [" + note.clock + "]"));
        peaks[prec] = {{"tflops", v}, {"source", note.source}, {"clock", note.clock}};
    }
    for (const auto& [tool, t] : g.tool_peaks) {
        notes.push_back(fmt::format("{} {} table: {} ({})", name, tool, peak_list(t.tflops), t.source));
        nlohmann::ordered_json tf = nlohmann::ordered_json::object();
        for (const auto& [p, v] : t.tflops) tf[std::string(catalog::to_string(p))] = v;
        tools[tool] = {{"source", t.source}, {"tflops", tf}};
    }
}

}  // namespace

Listing gpu_listing(const catalog::Catalog& cat) {
    Listing out;
    nlohmann::ordered_json& j = out.json;
    std::vector<Row>& rows = out.rows;
    for (const auto& entry : cat.gpus()) {
        const std::string& name = entry.first;
        const catalog::Gpu& g = entry.second;
        auto peak = [&g](catalog::Precision p) {
            auto it = g.peak_tflops_dense.find(p);
            return it == g.peak_tflops_dense.end() ? 0.0 : it->second;
        };
        using catalog::Precision;
        rows.push_back({name, g.family, num(g.memory_gib), num(peak(Precision::bf16)), num(peak(Precision::fp16)),
                        num(peak(Precision::fp8)), num(peak(Precision::mxfp8)), num(peak(Precision::nvfp4)),
                        num(peak(Precision::tf32)), num(peak(Precision::fp32)), g.display_name});
        nlohmann::ordered_json peaks = nlohmann::ordered_json::object();
        for (const auto& [p, v] : g.peak_tflops_dense) peaks[std::string(catalog::to_string(p))] = v;
        nlohmann::ordered_json sources = nlohmann::ordered_json::object();
        nlohmann::ordered_json tools = nlohmann::ordered_json::object();
        gpu_notes(name, g, out.notes, sources, tools);
        j.push_back({{"name", name},
                     {"display_name", g.display_name},
                     {"family", g.family},
                     {"memory_gib", g.memory_gib},
                     {"memory_bandwidth_gbs", g.memory_bandwidth_gbs},
                     {"peak_tflops_dense", peaks},
                     {"peak_sources", sources},
                     {"tool_peaks", tools},
                     {"file", g.where.to_string()}});
    }
    out.header = {"GPU",   "FAMILY", "MEMORY_GIB", "BF16", "FP16",       "FP8",
                  "MXFP8", "NVFP4",  "TF32",       "FP32", "DESCRIPTION"};
    if (!out.notes.empty())
        out.notes.insert(out.notes.begin(), "Sources of the dense peaks (TFLOPS) and the tool tables:");
    return out;
}

Listing target_listing(const catalog::Catalog& cat) {
    Listing out;
    nlohmann::ordered_json& j = out.json;
    std::vector<Row>& rows = out.rows;
    for (const auto& [name, t] : cat.targets()) {
        rows.push_back({name, std::string(catalog::to_string(t.scheduler)), std::to_string(t.gpus_per_node), t.gpu,
                        t.fabric, t.container_runtime, t.description});
        j.push_back({{"name", name},
                     {"description", t.description},
                     {"cloud", t.cloud},
                     {"instance", t.instance},
                     {"scheduler", std::string(catalog::to_string(t.scheduler))},
                     {"gpus_per_node", t.gpus_per_node},
                     {"gpu", t.gpu},
                     {"fabric", t.fabric},
                     {"container_runtime", t.container_runtime},
                     {"env_count", t.env.size()},
                     {"file", t.where.file}});
    }
    out.header = {"TARGET", "SCHEDULER", "GPUS", "GPU", "FABRIC", "CONTAINER", "DESCRIPTION"};
    return out;
}

Listing model_listing(const catalog::Catalog& cat) {
    Listing out;
    nlohmann::ordered_json& j = out.json;
    std::vector<Row>& rows = out.rows;
    for (const auto& [name, m] : cat.models()) {
        rows.push_back({name, m.family, std::to_string(m.layers), std::to_string(m.hidden), std::to_string(m.heads),
                        std::to_string(m.kv_head_count()), std::to_string(m.ffn_size()),
                        m.is_moe() ? fmt::format("{}/{}", m.moe_top_k, m.experts) : std::string("-"),
                        std::to_string(m.seq_length), std::to_string(m.vocab), m.source.empty() ? "-" : m.source});
        j.push_back({{"name", name},
                     {"family", m.family},
                     {"layers", m.layers},
                     {"hidden", m.hidden},
                     {"heads", m.heads},
                     {"kv_heads", m.kv_head_count()},
                     {"ffn", m.ffn_size()},
                     {"seq_length", m.seq_length},
                     {"vocab", m.vocab},
                     {"activation", m.activation},
                     {"position", m.position},
                     {"experts", m.experts},
                     {"moe_top_k", m.moe_top_k},
                     {"attention", m.attention},
                     {"source", m.source},
                     {"file", m.where.file}});
    }
    out.header = {"MODEL", "FAMILY",        "LAYERS", "HIDDEN", "HEADS", "KV_HEADS",
                  "FFN",   "TOP_K/EXPERTS", "SEQ",    "VOCAB",  "SOURCE"};
    return out;
}

Listing framework_listing(const catalog::Catalog& cat) {
    Listing out;
    nlohmann::ordered_json& j = out.json;
    std::vector<Row>& rows = out.rows;
    for (const auto& p : cat.frameworks()) {
        std::string writes;
        for (const std::string& w : p->writes) writes += (writes.empty() ? "" : ",") + w;
        rows.push_back(
            {p->framework, p->version, std::to_string(p->all_keys().size()), writes.empty() ? "-" : writes, p->title});
        j.push_back({{"framework", p->framework},
                     {"version", p->version},
                     {"title", p->title},
                     {"schema", p->schema},
                     {"containers", p->containers},
                     {"writes", p->writes},
                     {"keys", p->all_keys().size()},
                     {"config_keys", p->config.size()},
                     {"file", p->where.file}});
    }
    out.header = {"FRAMEWORK", "VERSION", "KEYS", "WRITES", "DESCRIPTION"};
    return out;
}

Listing recipe_listing(const catalog::Catalog& cat, const std::vector<fs::path>& recipe_dirs) {
    Listing out;
    nlohmann::ordered_json& j = out.json;
    std::vector<Row>& rows = out.rows;
    for (const fs::path& dir : recipe_dirs) {
        for (const fs::path& file : recipe::find_recipe_files(dir)) {
            std::string shown = file.lexically_relative(dir.parent_path()).string();
            try {
                recipe::Recipe r = recipe::load_recipe(file, cat);
                rows.push_back({shown, r.name, r.target_name, r.model.name, r.framework, std::to_string(r.nodes),
                                std::to_string(r.total_gpus())});
                j.push_back({{"path", file.string()},
                             {"name", r.name},
                             {"target", r.target_name},
                             {"model", r.model.name},
                             {"framework", r.framework},
                             {"nodes", r.nodes},
                             {"gpus", r.total_gpus()},
                             {"valid", true}});
            } catch (const InputError& e) {
                rows.push_back({shown, "(invalid)", "-", "-", "-", "-", "-"});
                j.push_back({{"path", file.string()}, {"valid", false}, {"error", e.what()}});
            }
        }
    }
    out.header = {"RECIPE", "NAME", "TARGET", "MODEL", "FRAMEWORK", "NODES", "GPUS"};
    return out;
}

}  // namespace trainbench::report
