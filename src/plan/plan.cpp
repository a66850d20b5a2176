// Planning arithmetic: FLOPs per convention, memory breakdown, checkpoint
// size and write time, estimated step time at an assumed MFU; the TP/PP/MBS search.
#include <trainbench/analysis.hpp>
#include <trainbench/plan.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace trainbench::plan {

double checkpoint_bytes_per_parameter(catalog::Precision precision) {
    // Megatron/NeMo distributed checkpoints hold the model weights in the
    // training precision and the optimizer state: fp32 master weights and
    // Adam's two fp32 moments. fp32/tf32 training has no separate master copy.
    bool full = precision == catalog::Precision::fp32 || precision == catalog::Precision::tf32;
    return full ? 4.0 + 8.0 : 2.0 + 4.0 + 8.0;
}

const std::vector<CheckpointTier>& default_fs_tiers() {
    static const std::vector<CheckpointTier> tiers = {
        {"AMLFS 40", 19.2, 0}, {"AMLFS 125", 64, 0}, {"AMLFS 250", 128, 0}, {"AMLFS 500", 256, 0}};
    return tiers;
}

namespace {

analysis::FlopsInput flops_input(const recipe::Recipe& r) {
    analysis::FlopsInput in;
    in.model = r.model;
    in.seq_length = r.model.seq_length;
    in.tensor_parallel = r.parallelism.tensor;
    return in;
}

std::optional<analysis::Peak> peak_of(const recipe::Recipe& r, const std::string& convention) {
    analysis::PeakRequest req;
    req.convention = analysis::peak_convention(convention);
    req.gpu_family = r.gpu.family;
    req.precision = r.precision;
    if (!r.gpu.name.empty()) req.gpu = &r.gpu;
    try {
        return analysis::resolve_peak(req);
    } catch (const Error&) {
        // A tool table without this GPU/precision (gpu-recipes has no A100 FP16): the estimate
        // uses the GPU's datasheet dense peak instead, and says so.
        auto it = r.gpu.peak_tflops_dense.find(r.precision);
        if (it == r.gpu.peak_tflops_dense.end()) return std::nullopt;
        analysis::Peak p;
        p.gpu = r.gpu.family;
        p.precision = std::string(catalog::to_string(r.precision));
        p.tflops = it->second;
        p.source = "catalog gpus.yaml";
        return p;
    }
}

std::optional<double> flops_per_sample(const recipe::Recipe& r, const std::string& convention) {
    try {
        const analysis::FlopsConvention& c = analysis::find_flops_convention(convention);
        return c.per_sample(flops_input(r)).per_sample;
    } catch (const Error&) {
        return std::nullopt;
    }
}

// The convention the estimate uses: the recipe's, else megatron when the
// recipe's has no formula for this model (e.g. gpu-recipes' fixed table).
std::string estimate_convention(const recipe::Recipe& r) {
    const std::string conv = flops_per_sample(r, r.metrics.flops) ? r.metrics.flops : "megatron";
    return std::string(analysis::find_flops_convention(conv).name);  // the dated name the table rows carry
}

std::optional<double> step_time_at(const recipe::Recipe& r, double mfu) {
    if (!(mfu > 0)) return std::nullopt;
    std::string conv = estimate_convention(r);
    auto fs = flops_per_sample(r, conv);
    auto peak = peak_of(r, conv);
    int gpus = r.total_gpus();
    if (!fs || !peak || !(peak->tflops > 0) || gpus <= 0) return std::nullopt;
    return *fs * r.batch.global / (static_cast<double>(gpus) * peak->tflops * 1e12 * mfu);
}

}  // namespace

std::optional<double> estimate_step_time(const recipe::Recipe& recipe, double mfu) {
    return step_time_at(recipe, mfu);
}

Plan make_plan(const recipe::Recipe& r, const PlanOptions& options) {
    Plan p;
    p.recipe_name = r.name;
    p.model = r.model_name.empty() ? r.model.name : r.model_name;
    p.target = r.target_name.empty() ? r.target.name : r.target_name;
    p.gpu = r.gpu.name;
    p.nodes = r.nodes;
    p.gpus = r.total_gpus();
    p.tensor = r.parallelism.tensor;
    p.pipeline = r.parallelism.pipeline;
    p.data_parallel = r.data_parallel();
    p.micro = r.batch.micro;
    p.global = r.batch.global;
    p.seq_length = r.model.seq_length;
    p.assume_mfu = options.assume_mfu;
    p.memory = recipe::estimate_memory(r);
    p.parameters = p.memory.parameters;

    for (const analysis::FlopsConvention& c : analysis::flops_conventions()) {
        FlopsRow row;
        row.convention = std::string(c.name);
        row.hardware_flops_like = c.hardware_flops_like;
        try {
            analysis::FlopsResult fr = c.per_sample(flops_input(r));
            row.per_sample = fr.per_sample;
            row.per_step = fr.per_sample * r.batch.global;
            row.note = fr.note;
        } catch (const Error& e) {
            row.note = e.what();
        }
        p.flops.push_back(std::move(row));
    }
    p.convention = estimate_convention(r);
    if (!flops_per_sample(r, r.metrics.flops))
        p.notes.push_back(
            fmt::format("the recipe's FLOPs convention '{}' has no formula for this model: estimates use '{}'",
                        r.metrics.flops, p.convention));

    recipe::Recipe variant = r;
    variant.recompute.granularity = "selective";
    p.activations_selective = recipe::estimate_memory(variant).activations;
    variant = r;
    variant.distributed_optimizer = true;
    recipe::MemoryEstimate with = recipe::estimate_memory(variant);
    variant.distributed_optimizer = false;
    recipe::MemoryEstimate without = recipe::estimate_memory(variant);
    p.total_with_distributed_optimizer = with.total;
    p.total_without_distributed_optimizer = without.total;
    p.optimizer_with_distributed_optimizer = with.optimizer;
    p.optimizer_without_distributed_optimizer = without.optimizer;

    p.checkpoint_bytes = p.parameters * checkpoint_bytes_per_parameter(r.precision);
    if (options.fs_bandwidth_gbs.empty()) {
        p.checkpoint_tiers = default_fs_tiers();
    } else {
        for (double bw : options.fs_bandwidth_gbs) p.checkpoint_tiers.push_back({fmt::format("{:g} GB/s", bw), bw, 0});
    }
    for (CheckpointTier& t : p.checkpoint_tiers)
        t.write_seconds = t.bandwidth_gbs > 0 ? p.checkpoint_bytes / (t.bandwidth_gbs * 1e9) : 0;

    if (auto peak = peak_of(r, p.convention)) {
        p.peak_tflops = peak->tflops;
        p.peak_source = peak->source;
    }
    p.step_time_s = step_time_at(r, options.assume_mfu);
    p.tokens_per_step = static_cast<double>(r.batch.global) * r.model.seq_length;
    p.train_tokens = options.train_tokens;
    if (p.step_time_s && p.tokens_per_step > 0) {
        double seconds = options.train_tokens / p.tokens_per_step * *p.step_time_s;
        p.days_to_train = seconds / 86400.0;
        p.gpu_hours_to_train = seconds / 3600.0 * p.gpus;
        p.gpu_hours_recipe = *p.step_time_s * r.steps / 3600.0 * p.gpus;
    } else {
        p.notes.push_back("no step-time estimate: no FLOPs formula or no peak for this model and GPU");
    }
    if (!p.memory.fits())
        p.notes.push_back(fmt::format("estimated memory {} per GPU exceeds the GPU's {}", human_bytes(p.memory.total),
                                      human_bytes(p.memory.capacity)));
    return p;
}

nlohmann::ordered_json to_json(const Plan& p) {
    using J = nlohmann::ordered_json;
    auto opt = [](const std::optional<double>& v) { return v ? J(*v) : J(nullptr); };
    J j;
    j["recipe"] = p.recipe_name;
    j["model"] = p.model;
    j["target"] = p.target;
    j["gpu"] = p.gpu;
    j["nodes"] = p.nodes;
    j["gpus"] = p.gpus;
    j["parallelism"] = {{"tensor", p.tensor}, {"pipeline", p.pipeline}, {"data", p.data_parallel}};
    j["batch"] = {{"micro", p.micro}, {"global", p.global}};
    j["seq_length"] = p.seq_length;
    j["parameters"] = p.parameters;
    J flops = J::array();
    for (const FlopsRow& f : p.flops)
        flops.push_back({{"convention", f.convention},
                         {"per_sample", opt(f.per_sample)},
                         {"per_step", opt(f.per_step)},
                         {"hardware_flops_like", f.hardware_flops_like},
                         {"note", f.note}});
    j["flops"] = flops;
    j["estimate_convention"] = p.convention;
    const recipe::MemoryEstimate& m = p.memory;
    j["memory_per_gpu_bytes"] = {{"parameters_per_gpu", m.parameters_per_gpu},
                                 {"weights", m.weights},
                                 {"gradients", m.gradients},
                                 {"optimizer", m.optimizer},
                                 {"activations", m.activations},
                                 {"activations_no_recompute", m.activations_no_recompute},
                                 {"activations_selective_recompute", p.activations_selective},
                                 {"activations_full_recompute", m.activations_full_recompute},
                                 {"total", m.total},
                                 {"capacity", m.capacity},
                                 {"fits", m.fits()},
                                 {"optimizer_with_distributed_optimizer", p.optimizer_with_distributed_optimizer},
                                 {"optimizer_without_distributed_optimizer", p.optimizer_without_distributed_optimizer},
                                 {"total_with_distributed_optimizer", p.total_with_distributed_optimizer},
                                 {"total_without_distributed_optimizer", p.total_without_distributed_optimizer}};
    J tiers = J::array();
    for (const CheckpointTier& t : p.checkpoint_tiers)
        tiers.push_back({{"label", t.label}, {"bandwidth_gbs", t.bandwidth_gbs}, {"write_seconds", t.write_seconds}});
    j["checkpoint"] = {
        {"bytes", p.checkpoint_bytes},
        {"bytes_per_parameter", p.parameters > 0 ? p.checkpoint_bytes / p.parameters : 0.0},
        {"accounting", "weights in the training precision + fp32 master weights + Adam m and v; no gradients"},
        {"write_times", tiers}};
    j["estimate"] = {{"assume_mfu", p.assume_mfu},
                     {"peak_tflops_per_gpu", opt(p.peak_tflops)},
                     {"peak_source", p.peak_source},
                     {"step_time_s", opt(p.step_time_s)},
                     {"tokens_per_step", p.tokens_per_step},
                     {"train_tokens", p.train_tokens},
                     {"days_to_train", opt(p.days_to_train)},
                     {"gpu_hours_to_train", opt(p.gpu_hours_to_train)},
                     {"gpu_hours_recipe_steps", opt(p.gpu_hours_recipe)}};
    j["notes"] = p.notes;
    return j;
}

RunEstimate estimate_run(const recipe::Recipe& r, double mfu) {
    RunEstimate e;
    e.gpus = r.total_gpus();
    const recipe::MemoryEstimate m = recipe::estimate_memory(r);
    e.memory = m.total;
    e.capacity = m.capacity;
    e.step_time_s = estimate_step_time(r, mfu);
    if (e.step_time_s) e.gpu_hours = static_cast<double>(e.gpus) * r.steps * *e.step_time_s / 3600.0;
    return e;
}

}  // namespace trainbench::plan
