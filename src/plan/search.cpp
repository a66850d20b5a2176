// plan --search: the TP/PP/VP/CP/EP/ETP/micro-batch configurations of a recipe's model on its
// target at its node count that validate and fit, ranked by a throughput heuristic.
#include <trainbench/plan.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace trainbench::plan {

namespace {

std::vector<int> powers_of_two_up_to(int limit) {
    std::vector<int> v;
    for (int x = 1; x <= limit; x *= 2) v.push_back(x);
    return v;
}

// A layout that counts the embedding, the loss and the MTP layers as one slot each in the
// pipeline split (Megatron's --account-for-embedding/loss-in-pipeline-split, and Megatron-Bridge's
// DeepSeek-V3 layouts) when the layers alone do not divide into pipeline x virtual stages.
std::string accounted_layout(int layers, int mtp, int stages) {
    const int slots = layers + 2 + mtp;
    if (stages < 2 || slots % stages != 0) return {};
    const int k = slots / stages;
    const int last_layers = k - 1 - mtp;
    if (k < 2 || last_layers < 0) return {};
    auto times = [](const char* symbol, int n) {
        return n == 0 ? std::string() : n == 1 ? std::string(symbol) : fmt::format("{}*{}", symbol, n);
    };
    std::string out = "E" + times("t", k - 1) + "|";
    if (stages > 2) out += fmt::format("({}|)*{}", times("t", k), stages - 2);
    return out + times("t", last_layers) + times("m", mtp) + "L";
}

// The pipeline layout of a candidate: none when the layers split evenly, the recipe's own when it
// fits this pipeline, else an accounted one; nullopt when there is none.
std::optional<std::string> layout_for(const recipe::Recipe& r, int pp, int vp) {
    const int stages = pp * std::max(1, vp);
    const int layers = r.model.layers;
    if (r.model.mtp_layers == 0 && layers % stages == 0) return std::string();
    if (!r.parallelism.pipeline_layout.empty() && pp == r.parallelism.pipeline && vp == r.parallelism.virtual_pipeline)
        return r.parallelism.pipeline_layout;
    if (pp == 1 && vp == 0) return std::string();
    std::string acc = accounted_layout(layers, r.model.mtp_layers, stages);
    if (acc.empty()) return std::nullopt;
    return acc;
}

// The ranking heuristic (a ranking, not a prediction; docs/sweeps.md): the 1F1B pipeline
// bubble (p-1)/(m*v) with m micro-batches per step and v model chunks per rank; about 8% per
// tensor-parallel doubling (an all-reduce per layer), 5% per context-parallel doubling (the
// ring exchange of K and V), 3% per expert-parallel doubling (all-to-all) and 15% more when the
// expert group leaves the NVLink domain; experts that get few tokens per micro-batch and small
// micro-batches underuse the GPU; recomputation repeats forward work.
double relative_efficiency(const recipe::Recipe& c, int dp, int nvlink) {
    const recipe::Parallelism& p = c.parallelism;
    const double microbatches = static_cast<double>(c.batch.global) / (dp * c.batch.micro);
    const double bubble = (p.pipeline - 1) / (microbatches * std::max(1, p.virtual_pipeline));
    const double tp_factor = std::pow(0.92, std::log2(static_cast<double>(p.tensor)));
    const double cp_factor = std::pow(0.95, std::log2(static_cast<double>(p.context)));
    const int etp = p.expert_tensor > 0 ? p.expert_tensor : p.tensor;
    double ep_factor = std::pow(0.97, std::log2(static_cast<double>(p.expert)));
    if (p.expert * etp > nvlink) ep_factor *= 0.85;
    // MoE: a rank's experts get s*b*k*EP/E tokens each per micro-batch; grouped GEMMs of few
    // rows run far below peak (half way at 128 rows here).
    double moe_factor = 1.0;
    if (c.model.is_moe()) {
        const double per_expert = c.model.seq_length / double(p.context) * c.batch.micro * c.model.moe_top_k *
                                  p.expert / double(c.model.experts);
        moe_factor = per_expert / (per_expert + 128.0);
    }
    const int mbs = c.batch.micro;
    const double mbs_factor = mbs >= 4 ? 1.0 : mbs == 2 ? 0.95 : 0.88;
    const double recompute_factor = c.recompute.granularity == "full"        ? 0.75
                                    : c.recompute.granularity == "selective" ? 0.97
                                                                             : 1.0;
    return tp_factor * cp_factor * ep_factor * moe_factor * mbs_factor * recompute_factor / (1.0 + bubble);
}

// A candidate when it validates and leaves the headroom asked for.
std::optional<Candidate> evaluate(recipe::Recipe& c, const recipe::Recipe& r, const SearchOptions& options,
                                  int nvlink) {
    const recipe::Parallelism& p = c.parallelism;
    const int total = c.total_gpus();
    const int dp = total / (p.tensor * p.pipeline * p.context);
    const int etp = p.expert_tensor > 0 ? p.expert_tensor : p.tensor;
    // cheap checks first: most combinations fail one of them
    if (dp < 1 || c.batch.global % (dp * c.batch.micro) != 0) return std::nullopt;
    if (c.model.is_moe() && total % (p.expert * etp * p.pipeline) != 0) return std::nullopt;
    const int layers_in_chunk = c.model.layers / (p.pipeline * std::max(1, p.virtual_pipeline));
    if (p.virtual_pipeline > 0 && layers_in_chunk < 1) return std::nullopt;
    if (c.recompute.granularity == "full") {
        const int per_stage = (c.model.layers + p.pipeline - 1) / p.pipeline;
        if (c.recompute.num_layers > per_stage) c.recompute.num_layers = per_stage;
    }
    Diagnostics d;
    recipe::validate_recipe(c, d);
    if (d.has_errors()) return std::nullopt;
    const recipe::MemoryEstimate m = recipe::estimate_memory(c);
    Candidate k;
    k.tensor = p.tensor;
    k.pipeline = p.pipeline;
    k.virtual_pipeline = p.virtual_pipeline;
    k.context = p.context;
    k.expert = p.expert;
    k.expert_tensor = etp;
    k.pipeline_layout = p.pipeline_layout;
    k.micro = c.batch.micro;
    k.sequence_parallel = p.sequence_parallel;
    k.memory_per_gpu = m.total;
    k.capacity = m.capacity;
    k.headroom = m.capacity > 0 ? 1.0 - m.total / m.capacity : 0;
    if (k.headroom < options.min_headroom) return std::nullopt;
    k.relative_efficiency = relative_efficiency(c, dp, nvlink);
    k.step_time_s = estimate_step_time(c, options.assume_mfu * k.relative_efficiency);
    k.score = k.step_time_s ? static_cast<double>(r.batch.global) * r.model.seq_length / *k.step_time_s
                            : k.relative_efficiency;
    return k;
}

}  // namespace

std::vector<Candidate> search(const recipe::Recipe& r, const SearchOptions& options) {
    std::vector<Candidate> out;
    const int gpn = r.gpus_per_node_effective();
    const int total = r.total_gpus();
    const catalog::Model& m = r.model;
    const int layers = std::max(1, m.layers);
    // Tensor parallelism stays inside the NVLink domain: a node, or an NVL72 rack.
    const int nvlink = gpn * std::max(1, r.target.nvlink_domain_nodes);
    const std::vector<int> tps = powers_of_two_up_to(std::min(8, nvlink));
    std::vector<int> vps{0, 2, 3, 4, 5, 6, 8};
    // and the recipe's own (a published row may interleave more deeply: Mixtral 8x22B's VP14)
    if (std::find(vps.begin(), vps.end(), r.parallelism.virtual_pipeline) == vps.end())
        vps.push_back(r.parallelism.virtual_pipeline);
    std::vector<int> cps{1};
    for (int c = 2; c <= 16; c *= 2)
        if (m.seq_length % (2 * c) == 0 && m.seq_length / c >= 1024) cps.push_back(c);
    std::vector<int> eps{1};
    if (m.is_moe())
        for (int e = 2; e <= m.experts; e *= 2)
            if (m.experts % e == 0) eps.push_back(e);
    for (int tp : tps) {
        std::vector<int> etps{0};
        if (m.is_moe() && tp > 1) etps.push_back(1);
        for (int pp = 1; pp <= layers && tp * pp <= total; ++pp) {
            if (total % (tp * pp) != 0) continue;
            for (int vp : vps) {
                if (vp > 0 && pp < 2) continue;
                std::optional<std::string> layout = layout_for(r, pp, vp);
                if (!layout) continue;
                for (int cp : cps) {
                    if (total % (tp * pp * cp) != 0) continue;
                    for (int ep : eps) {
                        for (int etp : etps) {
                            for (int mbs : {1, 2, 4, 8}) {
                                recipe::Recipe c = r;
                                c.parallelism.tensor = tp;
                                c.parallelism.pipeline = pp;
                                c.parallelism.virtual_pipeline = vp;
                                c.parallelism.pipeline_layout = *layout;
                                c.parallelism.context = cp;
                                c.parallelism.expert = ep;
                                c.parallelism.expert_tensor = etp;
                                c.parallelism.sequence_parallel = tp > 1 && r.parallelism.sequence_parallel;
                                c.batch.micro = mbs;
                                if (auto k = evaluate(c, r, options, nvlink)) out.push_back(*k);
                            }
                        }
                    }
                }
            }
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
        if (a.score != b.score) return a.score > b.score;
        return a.headroom > b.headroom;
    });
    return out;
}

}  // namespace trainbench::plan
