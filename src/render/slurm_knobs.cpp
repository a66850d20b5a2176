#include "render/slurm_knobs.hpp"

#include <fmt/format.h>

namespace trainbench::render {

using nlohmann::ordered_json;

std::string validate_job_time(const recipe::ValidateOptions& v) {
    long long total = 0;
    if (v.dcgm.enabled) {
        auto t = recipe::parse_slurm_time(v.dcgm.time);
        if (v.dcgm.time.empty() || !t || *t == 0) return {};
        total += *t;
    }
    if (v.nccl.enabled) {
        auto t = recipe::parse_slurm_time(v.nccl.time);
        if (v.nccl.time.empty() || !t || *t == 0) return {};
        long long runs = (v.nccl.all_nodes ? 1 : 0) + (v.nccl.pairwise ? 2 : 0);
        total += *t * runs * static_cast<long long>(v.nccl.tests.size());
    }
    return total > 0 ? recipe::format_slurm_time(total) : std::string();
}

void add_slurm_knobs(const recipe::Recipe& r, const recipe::Stage& stage, ordered_json& c) {
    if (!c.contains("slurm")) return;
    ordered_json& s = c["slurm"];
    const recipe::Slurm& k = r.slurm;
    for (const auto& [key, value] : {std::pair<const char*, const std::string&>{"nodelist", k.nodelist},
                                     {"exclude", k.exclude},
                                     {"reservation", k.reservation}}) {
        s[key] = value;
        s[std::string("has_") + key] = !value.empty();
        s[std::string(key) + "_sbatch"] = value;  // for #SBATCH lines: checked at load, never shell-quoted
    }
    ordered_json directives = ordered_json::array();
    for (const std::string& d : k.directives) directives.push_back({{"text", d}});
    s["directives"] = directives;
    std::string time = stage.time;
    if (time.empty() && stage.kind == "validate") time = validate_job_time(recipe::validate_options(r, stage));
    if (!time.empty()) {
        s["time"] = time;
        s["has_time"] = true;
    }
    if (!stage.mem.empty()) {
        s["mem"] = stage.mem;
        s["has_mem"] = true;
    }
    ordered_json unset = ordered_json::array();
    for (const std::string& name : r.env_unset) unset.push_back(name);
    c["env_unset"] = unset;
    c["has_env_unset"] = !unset.empty();
}

}  // namespace trainbench::render
