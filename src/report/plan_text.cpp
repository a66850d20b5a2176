// What `trainbench plan` prints: the plan of one recipe and the ranked
// TP/PP/micro-batch configurations of --search.
#include <trainbench/report.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace trainbench::report {

namespace {

constexpr double k_tib = k_gib * 1024.0;

std::string gib(double bytes) {
    return fmt::format("{:.2f} GiB", bytes / k_gib);
}

std::string flops_table(const plan::Plan& p) {
    TextTable t{{{"convention", 20, Align::left, ""},
                 {"per sample", 14, Align::right, " "},
                 {"per step", 14, Align::right, " "},
                 {"note", 0, Align::left, "  "}},
                "  "};
    std::vector<std::vector<std::string>> rows;
    for (const plan::FlopsRow& f : p.flops)
        rows.push_back({f.convention, optional_cell(f.per_sample, "{:.4e}"), optional_cell(f.per_step, "{:.4e}"),
                        (f.hardware_flops_like ? "[hardware FLOPs] " : "") + f.note});
    return t.render(rows);
}

std::string memory_text(const plan::Plan& p) {
    const recipe::MemoryEstimate& m = p.memory;
    std::string out =
        fmt::format("\nmemory per GPU (estimate; {:.4g} parameters on the largest stage):\n", m.parameters_per_gpu);
    out += fmt::format("  weights                 {:>12}\n", gib(m.weights));
    out += fmt::format("  gradients               {:>12}\n", gib(m.gradients));
    out +=
        fmt::format("  optimizer               {:>12}   (distributed optimizer: {}; without: {})\n", gib(m.optimizer),
                    gib(p.optimizer_with_distributed_optimizer), gib(p.optimizer_without_distributed_optimizer));
    out += fmt::format("  activations             {:>12}   (no recompute: {}; selective: {}; full: {})\n",
                       gib(m.activations), gib(m.activations_no_recompute), gib(p.activations_selective),
                       gib(m.activations_full_recompute));
    out += fmt::format("  total                   {:>12}   of {} ({}); with distributed optimizer {}, without {}\n",
                       gib(m.total), gib(m.capacity), m.fits() ? "fits" : "DOES NOT FIT",
                       gib(p.total_with_distributed_optimizer), gib(p.total_without_distributed_optimizer));
    return out;
}

std::string checkpoint_and_estimate_text(const plan::Plan& p) {
    std::string out = fmt::format(
        "\ncheckpoint: {:.3f} TiB ({:.3g} bytes; {:g} bytes/parameter: weights + fp32 master + Adam m, v)\n",
        p.checkpoint_bytes / k_tib, p.checkpoint_bytes, p.parameters > 0 ? p.checkpoint_bytes / p.parameters : 0.0);
    for (const plan::CheckpointTier& t : p.checkpoint_tiers)
        out +=
            fmt::format("  {:<12} {:>7g} GB/s  write {:>7.2f} min\n", t.label, t.bandwidth_gbs, t.write_seconds / 60.0);
    out += fmt::format("\nestimate at MFU {:g} ({} FLOPs, peak {}):\n", p.assume_mfu, p.convention,
                       p.peak_tflops ? fmt::format("{:g} TFLOPS/GPU, {}", *p.peak_tflops, p.peak_source) : "unknown");
    out += fmt::format("  step time               {}\n", optional_cell(p.step_time_s, "{:.3f} s"));
    out += fmt::format("  tokens per step         {:.0f}\n", p.tokens_per_step);
    out += fmt::format("  days to train {:.3g} tokens  {}\n", p.train_tokens, optional_cell(p.days_to_train, "{:.2f}"));
    out += fmt::format("  GPU-hours (those tokens) {}\n", optional_cell(p.gpu_hours_to_train, "{:.0f}"));
    out += fmt::format("  GPU-hours (recipe steps) {}\n", optional_cell(p.gpu_hours_recipe, "{:.2f}"));
    for (const std::string& n : p.notes) out += "note: " + n + '\n';
    return out;
}

}  // namespace

std::string plan_text(const plan::Plan& p) {
    std::string out =
        fmt::format("plan for '{}': model {}, target {} ({}), {} node{} x {} = {} GPUs\n", p.recipe_name, p.model,
                    p.target, p.gpu, p.nodes, p.nodes == 1 ? "" : "s", p.nodes > 0 ? p.gpus / p.nodes : 0, p.gpus);
    out += fmt::format("parallelism: TP {} PP {} DP {}; micro batch {}, global batch {}, sequence {}\n", p.tensor,
                       p.pipeline, p.data_parallel, p.micro, p.global, p.seq_length);
    out += fmt::format("parameters: {:.4g} ({:.3f} B)\n\n", p.parameters, p.parameters / 1e9);
    out += "FLOPs per step (forward + backward, global batch):\n";
    return out + flops_table(p) + memory_text(p) + checkpoint_and_estimate_text(p);
}

std::string search_text(const recipe::Recipe& r, const std::vector<plan::Candidate>& all, std::size_t top) {
    const std::size_t n = std::min(all.size(), top);
    std::string out =
        fmt::format("{} valid TP/PP/VP/CP/EP/micro-batch configurations of {} on {} x {} ({} GPUs); top {}:\n",
                    all.size(), r.model_name, r.nodes, r.target_name, r.total_gpus(), n);
    TextTable t{{{"rank", 4, Align::right, ""},
                 {"tp", 3, Align::right, " "},
                 {"pp", 3, Align::right, " "},
                 {"vp", 3, Align::right, " "},
                 {"cp", 3, Align::right, " "},
                 {"ep", 4, Align::right, " "},
                 {"etp", 4, Align::right, " "},
                 {"mbs", 4, Align::right, " "},
                 {"sp", 3, Align::right, " "},
                 {"mem/GPU", 11, Align::right, " "},
                 {"headroom", 9, Align::right, " "},
                 {"rel. eff.", 10, Align::right, " "},
                 {"step time", 11, Align::right, " "},
                 {"tokens/s", 12, Align::right, " "}}};
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> layouts;
    for (std::size_t i = 0; i < n; ++i) {
        const plan::Candidate& c = all[i];
        rows.push_back({std::to_string(i + 1), std::to_string(c.tensor), std::to_string(c.pipeline),
                        c.virtual_pipeline > 0 ? std::to_string(c.virtual_pipeline) : "-", std::to_string(c.context),
                        std::to_string(c.expert), std::to_string(c.expert_tensor), std::to_string(c.micro),
                        c.sequence_parallel ? "on" : "off", fmt::format("{:.1f} GiB", c.memory_per_gpu / k_gib),
                        fmt::format("{:.1f}%", c.headroom * 100.0), fmt::format("{:.3f}", c.relative_efficiency),
                        optional_cell(c.step_time_s, "{:.3f} s"),
                        c.step_time_s ? fmt::format("{:.0f}", c.score) : std::string("-")});
        if (!c.pipeline_layout.empty()) layouts.push_back(fmt::format("{}: {}", i + 1, c.pipeline_layout));
    }
    out += t.render(rows);
    for (const std::string& l : layouts) out += "pipeline layout of " + l + '\n';
    return out;
}

nlohmann::ordered_json search_json(const recipe::Recipe& r, const std::vector<plan::Candidate>& all, std::size_t top,
                                   double assume_mfu) {
    using nlohmann::ordered_json;
    const std::size_t n = std::min(all.size(), top);
    ordered_json a = ordered_json::array();
    for (std::size_t i = 0; i < n; ++i) {
        const plan::Candidate& c = all[i];
        a.push_back({{"rank", i + 1},
                     {"tensor", c.tensor},
                     {"pipeline", c.pipeline},
                     {"virtual_pipeline", c.virtual_pipeline},
                     {"context", c.context},
                     {"expert", c.expert},
                     {"expert_tensor", c.expert_tensor},
                     {"pipeline_layout", c.pipeline_layout},
                     {"micro", c.micro},
                     {"sequence_parallel", c.sequence_parallel},
                     {"memory_per_gpu_bytes", c.memory_per_gpu},
                     {"capacity_bytes", c.capacity},
                     {"headroom", c.headroom},
                     {"relative_efficiency", c.relative_efficiency},
                     {"step_time_s", c.step_time_s ? ordered_json(*c.step_time_s) : ordered_json(nullptr)},
                     {"tokens_per_s", c.step_time_s ? ordered_json(c.score) : ordered_json(nullptr)}});
    }
    return {{"recipe", r.name},
            {"model", r.model_name},
            {"target", r.target_name},
            {"nodes", r.nodes},
            {"gpus", r.total_gpus()},
            {"assume_mfu", assume_mfu},
            {"valid_configurations", all.size()},
            {"candidates", a}};
}

}  // namespace trainbench::report
