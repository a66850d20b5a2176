// analysis: turning parsed step times into figures of merit that can be
// trusted and compared. FLOPs per sample under named conventions (each one a
// row of a table: gpu-recipes, megatron, megatron-2024, nemo, narayanan2021),
// the GPU peak each convention divides by, step-time statistics over an
// inclusive step window with warm-up detection, derived throughput figures,
// expectation checks, and a cross-check of the configuration a log declares
// against the one the user or recipe gave. Everything ends in one value type,
// RunSummary, that the report module formats.
//
// Formulas, sources and test vectors: docs/metrics.md.
//
// analysis depends on metrics (LogData) and recipe/catalog value types only;
// it never prints and never reads files.
#pragma once

#include <trainbench/catalog.hpp>
#include <trainbench/core.hpp>
#include <trainbench/metrics.hpp>
#include <trainbench/recipe.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainbench::analysis {

// ---------------------------------------------------------------- FLOPs
// The architecture the FLOPs formulas read: every field any convention needs.
// flops_shape() is the one mapping from a catalog model to it.
struct FlopsShape {
    std::string name;    // the model's name: gpu-recipes keys on it, NeMo picks its formula by it
    std::string family;  // catalog family ("gpt3", "llama", "mixtral", "qwen3", "deepseek", ...)
    int layers = 0;
    int hidden = 0;
    int heads = 0;
    int kv_heads = 0;                // query groups; 0 = heads (multi-head attention)
    int head_dim = 0;                // kv_channels; 0 = hidden / heads
    int ffn = 0;                     // dense MLP width; 0 = 4 * hidden
    int vocab = 0;                   // tokenizer vocabulary, unpadded
    bool gated_mlp = false;          // SwiGLU: three h x f GEMMs instead of two
    bool tied_embeddings = false;    // the output layer is the input embedding
    bool rms_norm = false;           // RMSNorm (a weight) rather than LayerNorm (weight and bias)
    bool linear_bias = false;        // linear layers carry biases (GPT-3, OPT)
    bool qkv_bias = false;           // only the QKV projection carries a bias (Qwen2)
    bool learned_positions = false;  // a learned position table (GPT-3, OPT) rather than RoPE
    int max_positions = 0;           // its rows: the model's sequence length
    bool qk_norm = false;            // per-head RMSNorm of q and k (Qwen3)
    // Mixture of experts.
    int experts = 0;      // routed experts; 0 = dense
    int top_k = 0;        // experts each token is routed to
    int moe_ffn = 0;      // one routed expert's FFN width; 0 = ffn
    int shared_ffn = 0;   // the shared experts' FFN width, all of them together; 0 = none
    int dense_first = 0;  // leading layers with a dense MLP (DeepSeek-V3: 3)
    int moe_every = 1;    // after them, layer i is MoE when i % moe_every == 0 (Megatron's --moe-layer-freq)
    // Multi-head latent attention (DeepSeek); kv_lora_rank 0 = none.
    int q_lora_rank = 0;  // 0 = a full-rank query projection
    int kv_lora_rank = 0;
    int qk_head_dim = 0;       // the per-head query/key part without RoPE
    int qk_rope_head_dim = 0;  // the RoPE part
    int v_head_dim = 0;
    int mtp_layers = 0;  // multi-token prediction depth

    [[nodiscard]] bool mla() const { return kv_lora_rank > 0; }
    [[nodiscard]] int ffn_size() const { return ffn > 0 ? ffn : 4 * hidden; }
    [[nodiscard]] int groups() const { return kv_heads > 0 ? kv_heads : heads; }
    [[nodiscard]] int kv_channels() const { return head_dim > 0 ? head_dim : hidden / heads; }
    [[nodiscard]] int expert_ffn() const { return moe_ffn > 0 ? moe_ffn : ffn_size(); }
    // Layer i's MLP is routed (1) or dense (0), as Megatron's moe_layer_freq list.
    [[nodiscard]] std::vector<int> moe_pattern() const;
};

// The catalog model as the formulas read it.
[[nodiscard]] FlopsShape flops_shape(const catalog::Model& model);

// What a FLOPs formula needs besides the architecture.
struct FlopsInput {
    catalog::Model model;             // name (gpu-recipes keys on it), family, shape
    int seq_length = 0;               // 0 = model.seq_length
    int tensor_parallel = 1;          // Megatron pads the vocabulary to a multiple of divisor * TP
    int vocab_divisible_by = 128;     // --make-vocab-size-divisible-by
    std::optional<FlopsShape> shape;  // given: used instead of flops_shape(model) (tests, bare shapes)

    [[nodiscard]] int seq() const { return seq_length > 0 ? seq_length : model.seq_length; }
    [[nodiscard]] FlopsShape architecture() const { return shape ? *shape : flops_shape(model); }
};

// FLOPs of one sample (one sequence), forward + backward.
struct FlopsResult {
    double per_sample = 0;
    int vocab_used = 0;   // the vocabulary size the formula used (padded or fixed); 0 = n/a
    std::string formula;  // the expression evaluated, for the report
    std::string note;     // anything the user should know ("constant from its table", ...)
};

using FlopsFunction = FlopsResult (*)(const FlopsInput&);

// Where a convention's formula is written: one upstream function at one commit.
struct ConventionSource {
    std::string_view repository;  // "NVIDIA/Megatron-LM", or a paper
    std::string_view file;        // "megatron/training/training.py"
    std::string_view function;    // "num_floating_point_operations"
    std::string_view commit;      // full commit, tag, or "" for a paper
    std::string_view date;        // the commit's date, YYYY-MM-DD
};

// One dated FLOPs convention: a formula as one framework counted it between two dates.
struct FlopsConvention {
    std::string_view name;         // "megatron-2025-03", ...: the family and the date it took this form
    std::string_view description;  // one line for --help and the report
    FlopsFunction per_sample;
    bool hardware_flops_like = false;  // counts recomputation (narayanan2021): not model FLOPs
    std::string_view framework;        // "Megatron-LM", "NeMo", "gpu-recipes", ...
    std::string_view from;             // first day of this form (YYYY-MM-DD), "" = unknown
    std::string_view until;            // last day of this form, "" = still current at the source commit
    std::string_view versions;         // the framework versions that print it
    std::string_view covers;           // "GQA, gated MLP, MoE (top-k, shared, dense-first), MLA, MTP"
    std::vector<ConventionSource> sources;
    bool causal = false;  // the s^2 attention term is halved for the causal mask

    [[nodiscard]] std::string date_range() const;  // "2025-03-06 ..", "2024-04-03 .. 2025-03-05"
};

// An undated name kept for recipes and scripts written before the dated ones.
struct ConventionAlias {
    std::string_view name;    // "megatron"
    std::string_view target;  // "megatron-2025-03"
    std::string_view why;     // one line for the docs and `list conventions`
};

// The table of conventions, in documentation order (dated names only).
[[nodiscard]] const std::vector<FlopsConvention>& flops_conventions();
[[nodiscard]] const std::vector<ConventionAlias>& flops_convention_aliases();
// Every name a recipe or --flops may give: the dated names, then the aliases.
[[nodiscard]] std::vector<std::string> flops_convention_names();
// The convention a name (dated or alias) stands for. Throws InputError naming
// the known conventions (with did-you-mean).
[[nodiscard]] const FlopsConvention& find_flops_convention(std::string_view name);
// The alias `name` is, or nullptr for a dated name.
[[nodiscard]] const ConventionAlias* find_flops_alias(std::string_view name);
// gpu-recipes' conventions average DLLogger records as its tool does and divide by its peaks.
[[nodiscard]] bool is_gpu_recipes_convention(std::string_view name);

// gpu-recipes' MODEL_FLOPS_PER_SAMPLE, verbatim (data_defs.py at 2e1fd5ef, unchanged since 534ed01).
[[nodiscard]] const std::map<std::string, double>& gpu_recipes_model_flops();
// The same table as it was at 24ba6df (2024-10-21): fewer models, the same values.
[[nodiscard]] const std::map<std::string, double>& gpu_recipes_model_flops_2024();

// Megatron's padded vocabulary: ceil(v / (divisor * tp)) * divisor * tp.
[[nodiscard]] int padded_vocab(int vocab, int divisible_by, int tensor_parallel);

// One model's FLOPs under every convention (those that cannot count it say why).
struct ConventionValue {
    const FlopsConvention* convention = nullptr;
    std::optional<FlopsResult> flops;  // nullopt: the convention cannot count this model
    std::string problem;               // why not
};
[[nodiscard]] std::vector<ConventionValue> flops_under_every_convention(const FlopsInput& input);

// A published (tokens/s/GPU, TFLOPS/GPU) pair without a stated convention: the
// conventions whose FLOPs per token reproduce it within `tolerance` (0.005 = 0.5 %).
struct ConventionMatch {
    const FlopsConvention* convention = nullptr;
    double tflops_per_gpu = 0;  // what the convention gives at the published tokens/s/GPU
    double difference = 0;      // (this - published) / published
    bool within = false;
};
[[nodiscard]] std::vector<ConventionMatch> match_conventions(const FlopsInput& input, double tokens_per_s_per_gpu,
                                                             double tflops_per_gpu, double tolerance = 0.005);

// ---------------------------------------------------------------- peaks
struct Peak {
    std::string gpu;        // GPU family key ("h100", "cpu")
    std::string precision;  // "bf16", "fp8", ...
    double tflops = 0;      // dense TFLOPS per GPU used as the MFU denominator
    std::string source;     // where the number comes from, said in every report
    // A GPU run's own calibration (the log's peak_tflops_measured, in this precision), shown
    // beside the datasheet's: MFU is given against both. Unset for CPU runs, whose peak is it.
    std::optional<double> measured_tflops;
    std::string measured_source;
};

struct PeakRequest {
    std::string convention;  // peaks differ per convention where tools differ
    std::string gpu_family;  // "h100", "a100", "cpu", ... (the name the report shows)
    catalog::Precision precision = catalog::Precision::bf16;
    std::optional<double> override_tflops;  // --peak from the user
    std::optional<double> measured_tflops;  // cpu: the workload's matmul calibration (peak_tflops_measured)
    // The catalog's GPU: its dense peaks and the tool tables (recipes/catalog/gpus.yaml), the one
    // source of every peak. nullptr = no catalog GPU: only --peak (or a CPU's measurement) resolves.
    const catalog::Gpu* gpu = nullptr;
    std::string tool;  // the tool table to divide by; "" = the convention's (peak_table_of)
};

// The convention name a PeakRequest carries for `convention` (a dated name or an
// alias): "gpu-recipes" for gpu-recipes' conventions (its tool's peak table), else the name.
[[nodiscard]] std::string peak_convention(std::string_view convention);

// The table of a GPU's catalog entry a convention divides by: a tool table (`tool_peaks.<tool>`),
// and whether the convention takes that table only (gpu-recipes: exactly its tool's numbers) or
// falls back to the GPU's datasheet dense peak where the table has none.
struct PeakTable {
    std::string_view tool;
    bool strict = false;
};
[[nodiscard]] PeakTable peak_table_of(std::string_view convention);

// The peak for (convention, GPU, precision), from the catalog's GPU only. Throws InputError for
// a GPU or precision the catalog does not give (naming what it does), never returns zero and
// never takes another GPU's figure.
[[nodiscard]] Peak resolve_peak(const PeakRequest& request);

// ---------------------------------------------------------------- step statistics
// {step, seconds}: a step-time series point or a gpu-recipes record (metrics::StepRecord).
using StepSample = metrics::StepRecord;

struct StepWindow {
    std::int64_t start = 10;  // inclusive
    std::int64_t end = 30;    // inclusive
    std::string name{};       // a named window (recipe::named_windows(): "dgxc"), "" for START:END
};
// "10:30" -> {10, 30}; a window's name ("dgxc") -> its steps and name; throws UsageError on
// anything else (end < start too, with did-you-mean for a name).
[[nodiscard]] StepWindow parse_window(std::string_view text);

struct StepStats {
    StepWindow window;
    std::size_t count = 0;  // records used
    double mean = 0;        // arithmetic mean over records in the window
    double median = 0;
    double min = 0;
    double max = 0;
    double p10 = 0;  // linear interpolation between order statistics
    double p90 = 0;
    double stddev = 0;  // sample standard deviation (n-1); 0 for one record
    std::vector<std::int64_t> steps_used;
    std::size_t total_records = 0;  // in the whole log
    std::int64_t first_step = 0;    // of the whole log
    std::int64_t last_step = 0;
    std::vector<std::int64_t> warmup_steps;  // leading steps slower than the steady state
    std::int64_t steady_state_from = 0;      // first step after warm-up
    double steady_state_median = 0;          // median of the second half of the log
    bool window_includes_warmup = false;
};

// Statistics of the records whose step lies in [window.start, window.end]
// (records, not unique steps: a duplicated step counts twice, as gpu-recipes
// does). Throws InputError when no record falls in the window, naming the
// steps the log has.
[[nodiscard]] StepStats step_statistics(const std::vector<StepSample>& records, StepWindow window);
// The same of a parsed step-time series (one record per step, in step order), read in a few
// passes (PointReader) instead of held in memory: for a series spilled to a temporary file
// (metrics::ParseOptions::spill_after), memory stays bounded whatever the log's length.
[[nodiscard]] StepStats step_statistics_streamed(const metrics::Series& series, StepWindow window);

// Warm-up: the leading steps whose time exceeds the steady-state median (the
// median of the second half of the records) by more than `threshold` (0.2 =
// 20%). Returns the index of the first steady-state record.
inline constexpr double k_warmup_threshold = 0.2;  // 20% above the steady-state median
[[nodiscard]] std::size_t detect_warmup(const std::vector<StepSample>& records, double threshold = k_warmup_threshold);

// The step-time series of a parsed log (metrics::names::step_time_s), one record per step.
[[nodiscard]] std::vector<StepSample> step_samples(const metrics::LogData& log);
// Same, releasing the series from `log` as it goes (a large log's memory is not held twice).
[[nodiscard]] std::vector<StepSample> take_step_samples(metrics::LogData& log);
// An MLPerf log times blocks of training, not steps: one record per block, its mean step time
// (block_time_s over block_samples / global_batch), at the block's stop as the log indexes it
// (its samples_count). Empty when no block has both series.
[[nodiscard]] std::vector<StepSample> block_step_samples(const metrics::LogData& log, int global_batch);

// ---------------------------------------------------------------- inputs
// A configuration value and where it came from ("--gpus", "recipe", "log
// cfg/global_batch_size", "catalog").
template <class T>
struct Given {
    std::optional<T> value;
    std::string origin;
    [[nodiscard]] bool has() const { return value.has_value(); }
};

struct Inputs {
    std::string label;     // run id or log file name
    catalog::Model model;  // model.name empty = unknown
    std::string model_origin;
    int gpus = 0;
    std::string gpus_origin;
    std::string gpu_family;  // "h100", "cpu"
    std::string gpu_name;    // catalog name or the family
    std::string gpu_origin;  // where the GPU came from when not the recipe/flags: "log gpu_device_name ..."
    catalog::Precision precision = catalog::Precision::bf16;
    std::string precision_origin;
    int global_batch = 0;
    std::string global_batch_origin;
    int seq_len = 0;
    std::string seq_len_origin;
    int tensor_parallel = 1;
    int pipeline_parallel = 1;
    int virtual_pipeline = -1;  // -1 = unknown (0 = not interleaved)
    int context_parallel = 0;   // 0 = unknown
    int expert_parallel = 0;    // 0 = unknown
    int micro_batch = 0;
    StepWindow window;
    std::string window_origin;
    std::string convention = "megatron";
    std::string convention_origin;
    std::optional<double> peak_override;      // --peak
    double train_tokens = 300e9;              // for days_to_train
    std::optional<catalog::Gpu> catalog_gpu;  // the catalog's GPU: the source of the peak
};

// ---------------------------------------------------------------- cross-check
// One configuration key the log declares, compared with what was given.
struct CrossCheck {
    std::string key;      // "global_batch", "tensor_parallel", ...
    std::string log_key;  // "cfg/global_batch_size"
    std::string logged;   // the log's value
    std::string given;    // flags/recipe value ("" when nothing was given)
    std::string origin;   // where `given` came from
    bool match = true;
};

// Keys a DLLogger PARAMETER record (NeMo cfg/..., trainer/..., or bare names)
// may declare, mapped to our names. First hit wins.
struct DeclaredConfig {
    std::map<std::string, std::string> values;    // our key -> logged value text
    std::map<std::string, std::string> log_keys;  // our key -> the log's key
    [[nodiscard]] std::optional<double> number(const std::string& key) const;
};
[[nodiscard]] DeclaredConfig declared_config(const metrics::LogData& log);

// Fills gaps in `inputs` from the log (origin "log <key>"), then compares
// every declared key with what was given. Mismatches have match == false.
[[nodiscard]] std::vector<CrossCheck> cross_check(Inputs& inputs, const DeclaredConfig& declared);

// ---------------------------------------------------------------- expectations
struct ExpectationResult {
    std::string figure;
    std::optional<double> actual;
    bool passed = false;
    std::string rule;     // "25.1 ± 5% [23.845, 26.355]", ">= 0.35"
    std::string message;  // "" when passed; else why
    SourceLocation where;
};

// Figures an expectation may name (the numeric fields of Derived/StepStats).
[[nodiscard]] const std::vector<std::string>& expectation_figures();

// ---------------------------------------------------------------- summary
struct Derived {
    double tokens_per_step = 0;
    double tokens_per_s = 0;
    double tokens_per_s_per_gpu = 0;
    double samples_per_s = 0;
    double flops_per_sample = 0;
    double flops_per_step = 0;
    double tflops_per_gpu = 0;
    double mfu = 0;
    std::optional<double> mfu_measured;  // tflops_per_gpu / Peak::measured_tflops, when measured
    double train_tokens = 0;
    double days_to_train = 0;
};

struct Provenance {
    std::string tool_version;
    std::string log_format;
    std::vector<std::string> log_files;
    std::uint64_t records = 0;
    std::uint64_t skipped = 0;
    std::uint64_t corrupt = 0;
    std::string step_source;  // "records" (gpu-recipes) or "series"
    std::string run_dir;      // empty for bare logs
    std::string run_id;
    std::string recipe_name;
    std::string recipe_file;
    std::string created;  // run.json's creation time
    std::string git_commit;
};

struct Finding {
    Severity severity = Severity::warning;
    std::string message;
};

struct SeriesPoint {
    std::int64_t step = 0;
    double value = 0;
};

// The run's figures under one more convention (`report --conventions`).
struct ConventionFigures {
    const FlopsConvention* convention = nullptr;
    std::optional<FlopsResult> flops;  // nullopt: the convention cannot count this model (problem says why)
    std::string problem;
    double tflops_per_gpu = 0;
    std::optional<Peak> peak;  // the peak that convention divides by, when one is known
    double mfu = 0;
};

// A published row as trainbench reproduces it: its FLOPs per token under the row's
// convention times its tokens/s/GPU, against its TFLOPS/GPU.
struct ReferenceCheck {
    std::string convention;                // the dated convention the row used
    std::optional<double> tflops_per_gpu;  // trainbench's; nullopt when the convention cannot count the model
    double difference = 0;                 // (trainbench - published) / published
    bool within = false;                   // |difference| <= 0.5 %
    std::string problem;
};
[[nodiscard]] ReferenceCheck check_reference(const catalog::Reference& row, const catalog::Model& model);

// One configuration key of a run against a published row.
struct ConfigDifference {
    std::string key;  // "tensor_parallel", "gpus", ...
    std::string run;  // "" when the run does not say
    std::string row;
};

// A run as a percentage of a published row (`report --reference ID`).
struct ReferenceComparison {
    catalog::Reference row;
    ReferenceCheck reproduced;   // the row's own figures, reproduced
    double row_step_time_s = 0;  // GBS * seq / (tokens/s/GPU * GPUs)
    double step_time_pct = 0;    // run / row * 100 (below 100: faster)
    double tokens_per_s_per_gpu_pct = 0;
    std::optional<double> run_tflops;  // the run under the row's convention
    double tflops_pct = 0;
    std::vector<ConfigDifference> differences;  // keys that differ, or the run does not say
};

struct RunSummary {
    Inputs inputs;
    std::string convention;        // the dated convention inputs.convention stands for
    std::string convention_alias;  // the undated name it was given as ("megatron"), or ""
    std::string convention_description;
    std::string convention_dates;  // "2025-03-06 .. "
    bool hardware_flops_like = false;
    FlopsResult flops;
    Peak peak;
    StepStats stats;
    Derived derived;
    std::vector<ExpectationResult> expectations;
    std::vector<CrossCheck> cross_checks;
    std::vector<Finding> findings;
    Provenance provenance;
    std::vector<SeriesPoint> step_times;           // every step of the log (plots)
    std::vector<SeriesPoint> loss;                 // loss per step (plots), may be empty
    std::string resolved_recipe;                   // YAML text for the HTML report; empty for bare logs
    std::vector<ConventionFigures> conventions;    // report --conventions: every convention
    std::optional<ReferenceComparison> reference;  // report --reference ID

    [[nodiscard]] bool expectations_passed() const;
    // A named figure (expectation_figures()), nullopt for unknown names.
    [[nodiscard]] std::optional<double> figure(std::string_view name) const;
};

// Derived figures from a mean step time (formula order as gpu-recipes:
// F_sample * B / t / N / 1e12).
[[nodiscard]] Derived derive(double step_time_s, double flops_per_sample, int global_batch, int seq_len, int gpus,
                             double peak_tflops, double train_tokens);

// Checks each expectation against the summary. Throws InputError for a figure
// that does not exist (located, with did-you-mean).
[[nodiscard]] std::vector<ExpectationResult> check_expectations(const RunSummary& summary,
                                                                const std::vector<recipe::Expectation>& expectations);

// The series of a log format that hold the framework's own printed figures (Megatron-Bridge:
// tflops_per_gpu; TorchTitan: tflops_per_gpu, mfu_pct; MLPerf: throughput), which a report cross-checks against
// its own; empty for other formats.
[[nodiscard]] const std::vector<std::string>& framework_figure_series(std::string_view format);

struct AnalysisRequest {
    Inputs inputs;
    std::vector<StepSample> step_records;  // what the window mean is taken over
    // Instead of step_records: the log's step-time series, read in passes where it is used
    // (a report of a spilled parse: its points are not all in memory). Must outlive analyse().
    const metrics::Series* step_series = nullptr;
    const metrics::LogData* log = nullptr;  // for declared config, loss, measured peak
    std::vector<recipe::Expectation> expectations;
    Provenance provenance;
    std::string resolved_recipe;
    // Fill RunSummary::step_times (every step, for plots and JSON); off when the
    // output shows figures only, so a long log's steps are not held twice.
    bool plot_series = true;
};

// The summary's run under every convention (report --conventions).
[[nodiscard]] std::vector<ConventionFigures> figures_under_every_convention(const RunSummary& summary);
// The summary's run as a percentage of a published row (report --reference).
// `row_model`: the row's catalog model (the row is reproduced with it).
[[nodiscard]] ReferenceComparison compare_with_reference(const RunSummary& summary, const catalog::Reference& row,
                                                         const catalog::Model& row_model);

// The whole analysis: fills gaps from the log and cross-checks, picks the
// convention and peak, computes statistics and derived figures, checks
// expectations. Throws InputError (UsageError for missing flags) with a hint
// naming the flag that would fix it.
[[nodiscard]] RunSummary analyse(AnalysisRequest request);

// ---------------------------------------------------------------- cluster validation
// The validate stage's results (src/analysis/cluster_validation.cpp;
// docs/stages.md): DCGM diagnostics per node and nccl-tests runs over all
// nodes and node pairs, judged against a bus bandwidth threshold.

struct DcgmCheck {
    std::string name;    // "PCIe", "SM Stress"
    std::string result;  // "Pass", "Fail", "Skip", "Warn"
    std::string detail;  // the rest of the cell ("All", "GPU: 0") and any following message rows
};
struct DcgmNodeResult {
    std::string node;  // from the file name dcgm-<node>.txt
    std::string file;
    std::vector<DcgmCheck> checks;
    bool parsed = false;  // the output held a result table
    bool passed = false;  // parsed and no check failed
};
// Parses the text table `dcgmi diag -r N` prints.
[[nodiscard]] DcgmNodeResult parse_dcgm_diag(std::string_view text);

struct NcclRunCheck {
    std::string file;
    std::string test;                // "all_reduce_perf"
    std::vector<std::string> nodes;  // the pair (from nccl-<a>-<b>.txt); empty for the all-nodes run
    bool all_nodes = false;
    std::vector<metrics::NcclRow> rows;
    std::uint64_t largest_size = 0;       // bytes of the largest message size
    std::optional<double> largest_busbw;  // its out-of-place busbw, GB/s
    std::optional<double> avg_busbw;
    bool passed = false;
    std::string problem;  // why it failed ("no result rows", "180 GB/s below ...")
};

struct ClusterValidation {
    double threshold_gbs = 0;        // 0 = none: a run passes when it produced rows without errors
    std::vector<std::string> nodes;  // nodes.txt, else the union of the pairs
    std::vector<DcgmNodeResult> dcgm;
    std::vector<NcclRunCheck> runs;          // the all-nodes run first, then pairs in file order
    std::vector<std::string> bad_nodes;      // failed DCGM, or in failing pairs only (at least one)
    std::vector<std::string> suspect_nodes;  // in some failing and some passing pairs
    bool passed = false;
    bool empty() const { return dcgm.empty() && runs.empty(); }
};

// Judges one nccl-tests result against the threshold (out-of-place busbw of the largest size).
[[nodiscard]] NcclRunCheck check_nccl_run(const metrics::NcclResult& result, double threshold_gbs);
// Reads a validate stage's log directory (dcgm-*.txt, nccl-*.txt, <test>-*.txt, nodes.txt).
[[nodiscard]] ClusterValidation analyse_cluster_validation(const std::filesystem::path& log_dir, double threshold_gbs);

}  // namespace trainbench::analysis
