// plan: the planning arithmetic behind `trainbench plan` and the sweep
// estimates. FLOPs per step per convention, memory breakdown, checkpoint size
// and write time, estimated step time at an assumed MFU, days and GPU-hours,
// and the TP/PP/micro-batch search. It reads no files: it works on a loaded
// recipe with the FLOPs conventions and peaks of analysis.
#pragma once

#include <trainbench/catalog.hpp>
#include <trainbench/recipe.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace trainbench::plan {

struct FlopsRow {
    std::string convention;
    std::optional<double> per_sample;
    std::optional<double> per_step;  // per_sample * global batch
    std::string note;                // the formula's note or why it does not apply
    bool hardware_flops_like = false;
};

struct CheckpointTier {
    std::string label;         // "AMLFS 40" or "--fs-bandwidth"
    double bandwidth_gbs = 0;  // GB/s (1e9 bytes/s)
    double write_seconds = 0;
};

struct PlanOptions {
    double assume_mfu = 0.4;
    double train_tokens = 300e9;
    std::vector<double> fs_bandwidth_gbs;  // empty: the seed 002 tiers (19.2, 64, 128, 256 GB/s)
};

struct Plan {
    std::string recipe_name;
    std::string model;
    std::string target;
    std::string gpu;
    int nodes = 0;
    int gpus = 0;
    int tensor = 1, pipeline = 1, data_parallel = 0, micro = 1, global = 1;
    int seq_length = 0;
    double parameters = 0;
    std::vector<FlopsRow> flops;       // every convention
    std::string convention;            // the recipe's (metrics.flops), used for the estimate
    recipe::MemoryEstimate memory;     // the recipe as written
    double activations_selective = 0;  // bytes per GPU with selective recompute
    double total_without_distributed_optimizer = 0;
    double total_with_distributed_optimizer = 0;
    double optimizer_without_distributed_optimizer = 0;
    double optimizer_with_distributed_optimizer = 0;
    double checkpoint_bytes = 0;  // parameters * 14 (see checkpoint_bytes_per_parameter)
    std::vector<CheckpointTier> checkpoint_tiers;
    std::optional<double> peak_tflops;  // dense peak per GPU at the recipe's precision
    std::string peak_source;
    double assume_mfu = 0.4;
    std::optional<double> step_time_s;  // flops per step / (gpus * peak * mfu)
    double tokens_per_step = 0;
    double train_tokens = 0;
    std::optional<double> days_to_train;
    std::optional<double> gpu_hours_to_train;
    std::optional<double> gpu_hours_recipe;  // the recipe's own steps
    std::vector<std::string> notes;
};

// Bytes one checkpoint holds per parameter with mixed-precision Adam:
// 2 (bf16/fp16 weights) + 4 (fp32 master weights) + 4 + 4 (Adam moments) = 14;
// gradients are not saved. GPT-3 175B: 2.2 TiB (seed 002: "about 2.3 TiB").
[[nodiscard]] double checkpoint_bytes_per_parameter(catalog::Precision precision);

// The seed 002 AMLFS tiers: 19.2, 64, 128 and 256 GB/s.
[[nodiscard]] const std::vector<CheckpointTier>& default_fs_tiers();

[[nodiscard]] Plan make_plan(const recipe::Recipe& recipe, const PlanOptions& options = {});
[[nodiscard]] nlohmann::ordered_json to_json(const Plan& plan);

// Estimated seconds per step at `mfu` under the recipe's FLOPs convention;
// nothing when the convention or the peak does not apply.
[[nodiscard]] std::optional<double> estimate_step_time(const recipe::Recipe& recipe, double mfu);

// One candidate configuration of `plan --search`.
struct Candidate {
    int tensor = 1, pipeline = 1, micro = 1;
    int virtual_pipeline = 0;  // model chunks per pipeline rank; 0 = not interleaved
    int context = 1;
    int expert = 1;
    int expert_tensor = 1;        // the tensor size of the expert layers (the tensor size unless set)
    std::string pipeline_layout;  // "" = the layers split evenly
    bool sequence_parallel = false;
    double memory_per_gpu = 0;  // bytes
    double capacity = 0;
    double headroom = 0;                // 1 - memory / capacity
    double relative_efficiency = 1;     // pipeline bubble x tensor-parallel x micro-batch factors
    std::optional<double> step_time_s;  // at assume_mfu * relative_efficiency
    double score = 0;                   // tokens/s estimate (or the efficiency when no peak)
};

struct SearchOptions {
    double assume_mfu = 0.4;
    double min_headroom = 0.0;  // drop candidates with less free memory than this fraction
};

// Valid configurations of the recipe's model on its target at its node count (everything
// else as the recipe says) over tensor (powers of two up to 8, inside the NVLink domain),
// pipeline (the divisors of the GPUs), virtual pipeline (none, 2-6, 8 and the recipe's own), context (powers of two
// leaving at least 1024 tokens per GPU), expert (powers of two dividing the experts), expert
// tensor (the tensor size, or 1) and micro batch (1, 2, 4, 8) sizes; layers that do not split
// evenly get the layout that counts the embedding, the loss and the MTP layers as layers.
// Best first: highest estimated throughput, then most memory headroom.
[[nodiscard]] std::vector<Candidate> search(const recipe::Recipe& recipe, const SearchOptions& options = {});

// What one run of a recipe costs at `mfu`: GPUs, memory per GPU against the
// capacity, the step time and the GPU-hours of the recipe's steps (nothing
// when the FLOPs convention or the peak does not apply).
struct RunEstimate {
    int gpus = 0;
    double memory = 0;    // bytes per GPU
    double capacity = 0;  // bytes per GPU
    std::optional<double> step_time_s;
    std::optional<double> gpu_hours;
};
[[nodiscard]] RunEstimate estimate_run(const recipe::Recipe& recipe, double mfu);

}  // namespace trainbench::plan
