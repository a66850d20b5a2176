// GPUs: recipes/catalog/gpus.yaml. Each GPU's dense peaks per precision with the source and
// clock of each figure, and the peaks the tools that compute MFU divide by (gpu-recipes,
// TorchTitan, dgxc-benchmarking, NVIDIA's published rounding). This file is the one source of
// peaks: analysis resolves a peak only from what the catalog gives it.
#include "catalog/catalog_yaml.hpp"

#include <trainbench/catalog.hpp>

#include <fmt/format.h>

namespace trainbench::catalog {

std::vector<std::string> Gpu::precision_names() const {
    std::vector<std::string> out;
    for (const std::string& n : catalog::precision_names())
        if (supports(*parse_precision(n))) out.push_back(n);
    return out;
}

const double* Gpu::tool_peak(std::string_view tool, Precision p) const {
    auto t = tool_peaks.find(std::string(tool));
    if (t == tool_peaks.end()) return nullptr;
    auto it = t->second.tflops.find(p);
    return it == t->second.tflops.end() ? nullptr : &it->second;
}

namespace {

// {bf16: 989, fp8: 1979, ...}: TFLOPS per precision (0 = none).
std::map<Precision, double> read_peaks(yaml::MapReader& r, const std::string& key, Diagnostics& d) {
    std::map<Precision, double> out;
    const yaml::Node* p = r.get(key);
    if (!p) return out;
    yaml::MapReader pr(*p, r.key_path(key), d);
    for (const std::string& prec : precision_names()) {
        double v = 0;
        if (pr.read(prec, v, 0.0) && v > 0) out[*parse_precision(prec)] = v;
    }
    pr.finish();
    return out;
}

void read_notes(yaml::MapReader& r, Gpu& g, Diagnostics& d) {
    PeakNote all;
    r.read("peak_source", all.source);
    r.read("peak_clock", all.clock);
    std::map<Precision, PeakNote> given;
    if (const yaml::Node* n = r.get("peak_notes")) {
        yaml::MapReader nr(*n, r.key_path("peak_notes"), d);
        for (const std::string& prec : precision_names()) {
            const yaml::Node* one = nr.get(prec);
            if (!one) continue;
            yaml::MapReader pr(*one, nr.key_path(prec), d);
            PeakNote note = all;
            pr.read("source", note.source);
            pr.read("clock", note.clock);
            pr.finish();
            if (!g.supports(*parse_precision(prec)))
                d.error(one->where, nr.key_path(prec), fmt::format("a note for {}, which has no peak", prec),
                        "a precision of peak_tflops");
            given[*parse_precision(prec)] = note;
        }
        nr.finish();
    }
    // (a peak without a source is reported as "the catalog's dense peak"; the shipped GPUs give one
    // for every figure, which the catalog tests check)
    for (const auto& [p, v] : g.peak_tflops_dense) {
        PeakNote note = given.count(p) ? given.at(p) : all;
        if (!note.source.empty()) g.peak_notes[p] = std::move(note);
    }
}

void read_tool_peaks(yaml::MapReader& r, Gpu& g, Diagnostics& d) {
    const yaml::Node* n = r.get("tool_peaks");
    if (!n) return;
    std::string key = r.key_path("tool_peaks");
    if (!n->is_map()) {
        yaml::type_error(d, *n, key, "a map of tool name -> {source, tflops}");
        return;
    }
    for (const yaml::Entry& e : n->entries) {
        yaml::MapReader tr(e.value, yaml::join_key(key, e.key), d);
        if (!tr.valid()) continue;
        ToolPeaks t;
        if (!tr.read("source", t.source) || t.source.empty())
            tr.require("source", "where the tool's peak table is (file, function or page)");
        t.tflops = read_peaks(tr, "tflops", d);
        tr.finish();
        for (const auto& [p, v] : t.tflops)
            if (!g.supports(p))
                d.error(e.value.where, yaml::join_key(tr.path(), "tflops"),
                        fmt::format("a {} peak for a GPU that has no {} (its precisions: {})", to_string(p),
                                    to_string(p), quoted_list(g.precision_names(), " and ")),
                        "a precision of peak_tflops");
        g.tool_peaks[e.key] = std::move(t);
    }
}

void load_gpu(const yaml::Node& node, std::string name, const SourceLocation& name_where, Catalog& cat,
              Diagnostics& d) {
    yaml::MapReader r(node, name, d);
    if (!r.valid()) return;
    Gpu g;
    g.name = std::move(name);
    g.where = name_where;
    r.allow("name");
    r.read("display_name", g.display_name);
    r.read("family", g.family);
    r.read("memory_gib", g.memory_gib, 0.0);
    r.read("memory_bandwidth_gbs", g.memory_bandwidth_gbs, 0.0);
    g.peak_tflops_dense = read_peaks(r, "peak_tflops", d);
    read_notes(r, g, d);
    read_tool_peaks(r, g, d);
    r.read("device_names", g.device_names);
    r.finish();
    if (g.family.empty()) d.error(g.where, yaml::join_key(g.name, "family"), "required key is missing", "e.g. 'h100'");
    cat.add_gpu(std::move(g));
}

}  // namespace

namespace detail {

void load_gpus(const std::filesystem::path& file, Catalog& cat, Diagnostics& d) {
    std::string display = file.string();
    yaml::Node root = yaml::parse_file(file, display, d);
    if (root.is_null()) return;
    if (root.is_map()) {
        for (const yaml::Entry& e : root.entries) load_gpu(e.value, e.key, e.key_where, cat, d);
    } else if (root.is_sequence()) {
        for (std::size_t i = 0; i < root.items.size(); ++i) {
            const yaml::Node& item = root.items[i];
            const yaml::Node* name = item.is_map() ? item.find("name") : nullptr;
            if (!name || !name->is_scalar()) {
                d.error(item.where, fmt::format("[{}].name", i), "a GPU needs a name", "a string");
                continue;
            }
            load_gpu(item, name->scalar, item.where, cat, d);
        }
    } else {
        yaml::type_error(d, root, {}, "a map of GPU name -> fields");
    }
}

}  // namespace detail

}  // namespace trainbench::catalog
