// Checks of the values a job is rendered from that the recipe alone decides: each reported
// where the recipe (or its target) sets it, so `validate` finds what `render` would refuse.
#include "recipe/schema.hpp"

#include <trainbench/recipe.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace trainbench::recipe {

namespace {

// `${env:NAME}` values name a variable of the submitting environment.
void check_env_references(const Recipe& r, Diagnostics& d) {
    for (const auto& [name, value] : r.env) {
        const std::optional<std::string> ref = env_reference(value);
        if (ref && !is_variable_name(*ref))
            d.error(origin_of(r, "env." + name), "env." + name, fmt::format("'{}' does not name a variable", value),
                    "\"${env:NAME}\" with letters, digits and '_', not starting with a digit");
    }
}

// #SBATCH lines hold one value each: no newline or tab in what the recipe passes to them.
void check_directive_values(const Recipe& r, Diagnostics& d) {
    const Slurm& s = r.slurm;
    for (const auto& [key, value] :
         std::vector<std::pair<std::string, std::string>>{{"slurm.partition", s.partition},
                                                          {"slurm.account", s.account},
                                                          {"slurm.qos", s.qos},
                                                          {"slurm.time", s.time},
                                                          {"slurm.mem", s.mem},
                                                          {"slurm.constraint", s.constraint},
                                                          {"slurm.network", s.network},
                                                          {"slurm.job_name_prefix", s.job_name_prefix}})
        if (has_control_char(value))
            d.error(origin_of(r, key), key, fmt::format("'{}' contains a control character (newline or tab)", value),
                    "one line: an #SBATCH line cannot hold a newline or tab");
}

// On Kubernetes the run directory lives on one of a PVC and a bucket, and the pods need an image.
void check_kubernetes(const Recipe& r, Diagnostics& d) {
    const catalog::KubernetesDefaults& kd = r.target.kubernetes;
    const std::string& pvc = r.kubernetes.results_pvc.empty() ? kd.results_pvc : r.kubernetes.results_pvc;
    const std::string& bucket = r.kubernetes.results_bucket.empty() ? kd.results_bucket : r.kubernetes.results_bucket;
    if (!pvc.empty() && !bucket.empty()) {
        std::string key = r.kubernetes.results_bucket.empty() ? "kubernetes.results_pvc" : "kubernetes.results_bucket";
        d.error(origin_of(r, key), key,
                fmt::format("the run directory would be on both PVC '{}' and bucket '{}'", pvc, bucket),
                "one of kubernetes.results_pvc and kubernetes.results_bucket", "keep the run directory on one of them");
    }
    if (r.target.scheduler == catalog::Scheduler::kubernetes && r.container.image.empty())
        d.error(origin_of(r, "container"), "container.image",
                fmt::format("target '{}' runs on Kubernetes, whose pods need an image", r.target.name),
                "a container image", "set container: {image: ...}");
}

}  // namespace

std::optional<std::string> env_reference(std::string_view value) {
    constexpr std::string_view open = "${env:";
    if (value.size() <= open.size() + 1 || value.substr(0, open.size()) != open || value.back() != '}')
        return std::nullopt;
    return std::string(value.substr(open.size(), value.size() - open.size() - 1));
}

std::string metrics_path_problem(std::string_view path) {
    if (path.find("..") != std::string_view::npos || (!path.empty() && path.front() == '/') || has_control_char(path))
        return fmt::format("metrics.path '{}' must be a relative path inside the log directory", path);
    return {};
}

void validate_job_values(const Recipe& r, Diagnostics& d) {
    if (std::string problem = metrics_path_problem(r.metrics.path); !problem.empty())
        d.error(origin_of(r, "metrics.path"), "metrics.path", problem,
                "a path relative to the stage's log directory (logs/<stage>/), without '..'");
    check_env_references(r, d);
    check_directive_values(r, d);
    check_kubernetes(r, d);
}

}  // namespace trainbench::recipe
