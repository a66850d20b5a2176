// NVLink-domain placement: which nodes of a job must share one NVLink domain (GB200/GB300
// NVL72: 18 nodes of 4 GPUs). Slurm's topology/block plugin places an allocation in segments
// of `--segment` nodes, each inside one block; Kubernetes keeps a Job in one domain with a
// required pod affinity on the domain's node label, and a larger queued Job in Kueue slices.
#include "recipe/schema.hpp"

#include <trainbench/recipe.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace trainbench::recipe {

namespace {

// The nodes when they fit one domain of `domain` nodes, else the largest divisor of them
// that does (Megatron-Bridge 067f987d scripts/performance/utils/executors.py, lines 168-177:
// `segment = nodes` up to 18, else the largest candidate from 18 down that divides nodes).
int domain_segment(int nodes, int domain) {
    if (nodes < 1 || domain < 1) return 0;
    if (nodes <= domain) return nodes;
    for (int s = domain; s > 1; --s)
        if (nodes % s == 0) return s;
    return 1;
}

}  // namespace

int slurm_segment(const Recipe& r) {
    if (r.target.scheduler != catalog::Scheduler::slurm) return 0;
    if (r.slurm.segment > 0) return r.slurm.segment;
    if (!r.target.slurm.block_topology) return 0;
    return domain_segment(r.nodes, r.target.nvlink_domain_nodes);
}

int kubernetes_domain_slice(const Recipe& r) {
    if (r.target.scheduler != catalog::Scheduler::kubernetes || r.target.kubernetes.nvlink_domain_label.empty())
        return 0;
    return domain_segment(r.nodes, r.target.nvlink_domain_nodes);
}

void validate_placement(const Recipe& r, Diagnostics& d) {
    const int segment = r.slurm.segment;
    if (segment <= 0) return;
    const SourceLocation where = origin_of(r, "slurm.segment");
    if (r.nodes > 0 && r.nodes % segment != 0)
        d.error(where, "slurm.segment", fmt::format("{} nodes are not divisible by segments of {}", r.nodes, segment),
                "a segment size that divides the nodes (sbatch refuses the job otherwise)");
    const int domain = r.target.nvlink_domain_nodes;
    if (domain > 0 && segment > domain)
        d.error(where, "slurm.segment",
                fmt::format("a segment of {} nodes does not fit in an NVLink domain of {} nodes of target '{}'",
                            segment, domain, r.target.name),
                fmt::format("at most {}", domain));
}

void validate_recompute_modules(const Recipe& r, Diagnostics& d) {
    const std::vector<std::string>& modules = r.recompute.modules;
    if (modules.empty()) return;
    const SourceLocation where = origin_of(r, "recompute.modules");
    // Megatron-LM d98e8a64 megatron/core/transformer/transformer_config.py, recompute_modules
    static const std::vector<std::string> known = {"core_attn", "moe_act", "layernorm",     "mla_up_proj",
                                                   "mlp",       "moe",     "shared_experts"};
    if (!framework_kind(r).megatron_arguments)
        d.error(where, "recompute.modules", fmt::format("framework '{}' takes no recompute modules", r.framework),
                "recompute.modules only with framework megatron-lm (--recompute-modules)");
    if (r.recompute.granularity != "selective")
        d.error(where, "recompute.modules",
                fmt::format("recompute modules with granularity '{}'", r.recompute.granularity),
                "recompute: {granularity: selective, modules: [...]}");
    for (const std::string& m : modules)
        if (std::find(known.begin(), known.end(), m) == known.end())
            d.error(where, "recompute.modules", fmt::format("unknown recompute module '{}'", m),
                    fmt::format("one of {}", quoted_list(known)), did_you_mean(m, known));
}

}  // namespace trainbench::recipe
