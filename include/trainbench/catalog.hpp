// catalog: the named things a recipe refers to. GPUs (memory, dense peak
// TFLOPS per precision), targets (one kind of cluster node and how to reach
// it) and models (an architecture). All of it is shipped as YAML under
// recipes/catalog/ and loaded through the same located YAML reader as recipes,
// so a broken catalog file gets the same file:line:column errors.
#pragma once

#include <trainbench/core.hpp>
#include <trainbench/yaml.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainbench::catalog {

// Training precisions. fp8 is Hopper-style FP8 (per-tensor scaling); mxfp8 (MX blocks of 32 with
// E8M0 scales) and nvfp4 (NVIDIA FP4, blocks of 16) are Blackwell's block-scaled formats.
enum class Precision { bf16, fp16, fp8, mxfp8, nvfp4, tf32, fp32 };
[[nodiscard]] std::string_view to_string(Precision p);
[[nodiscard]] std::optional<Precision> parse_precision(std::string_view s);
[[nodiscard]] const std::vector<std::string>& precision_names();

enum class Scheduler { slurm, kubernetes, local };
[[nodiscard]] std::string_view to_string(Scheduler s);
[[nodiscard]] std::optional<Scheduler> parse_scheduler(std::string_view s);

// Ordered NAME=value pairs (order is kept so renders are byte-stable).
using EnvList = std::vector<std::pair<std::string, std::string>>;

// Where a dense peak comes from: the publication and the clock/power it assumes.
struct PeakNote {
    std::string source;  // "NVIDIA H100 datasheet (SXM5): 1,979 TFLOPS with sparsity / 2"
    std::string clock;   // "1,830 MHz boost, 700 W" (the conditions the figure holds at)
};

// The peaks one tool (or publication) divides by, which may round or differ from the datasheet:
// gpu-recipes' MAX_TFLOPS, TorchTitan's get_peak_flops, the dgxc-benchmarking README table, ...
struct ToolPeaks {
    std::string source;                  // where the table is ("gpu-recipes src/utils/.../data_defs.py MAX_TFLOPS")
    std::map<Precision, double> tflops;  // dense TFLOPS per precision; absent = the tool has none
};

struct Gpu {
    std::string name;          // catalog key, e.g. "h100-sxm-80gb"
    std::string display_name;  // "NVIDIA H100 SXM5 80GB"
    std::string family;        // "a100", "h100", "h200", "b200", "gb200", "cpu" (the key the FLOPs tools use)
    double memory_gib = 0;     // usable device memory
    double memory_bandwidth_gbs = 0;
    std::map<Precision, double> peak_tflops_dense;  // vendor dense values; absent = unsupported
    // The names the CUDA driver gives this GPU ("NVIDIA H100 80GB HBM3"), as patterns
    // (device_name_matches): how a log that names its device is mapped to the catalog.
    std::vector<std::string> device_names;
    std::map<Precision, PeakNote> peak_notes;     // the source and clock of each dense value
    std::map<std::string, ToolPeaks> tool_peaks;  // tool name -> the peaks that tool uses
    SourceLocation where;

    [[nodiscard]] bool supports(Precision p) const { return peak_tflops_dense.count(p) != 0; }
    // The precisions it supports, as names in precision order ("bf16", "fp16", ...).
    [[nodiscard]] std::vector<std::string> precision_names() const;
    // A tool's peak for a precision; nullptr when the tool has none for this GPU.
    [[nodiscard]] const double* tool_peak(std::string_view tool, Precision p) const;
};

// Whether the device name a driver reports matches a device_names pattern: case-insensitive,
// leading/trailing blanks ignored and runs of blanks equal, '*' matching any text.
[[nodiscard]] bool device_name_matches(std::string_view pattern, std::string_view device_name);

struct SlurmDefaults {
    std::string partition;  // empty: let the cluster choose
    std::string account;
    bool exclusive = true;
    std::string mem = "0";  // "--mem=0": all memory of the node
    bool use_gres = false;  // --gres=gpu:N instead of --gpus-per-node=N
    std::string time = "01:00:00";
    int cpus_per_task = 0;  // 0: not set
    // The cluster schedules with Slurm's topology/block plugin, one block per NVLink domain
    // (Target::nvlink_domain_nodes): jobs ask for `--segment` so that each segment of the
    // allocation lies in one domain (Slurm >= 23.11; docs/recipes.md).
    bool block_topology = false;
};

struct KubernetesDefaults {
    std::string namespace_name = "default";
    std::string gpu_resource = "nvidia.com/gpu";
    std::string shm_size = "250Gi";
    bool host_network = false;
    std::string network_stack;  // "tcpxo", "tcpx", "gib" (GPUDirect RDMA over RoCE) or "" (none)
    // The NCCL plugin's installer image (an init container copies the plugin into the pod);
    // gib needs one, tcpxo has seed 004's by default.
    std::string nccl_plugin_image;
    // Variables the launch script exports after the network stack's own environment script
    // (gIB: /usr/local/gib/scripts/set_nccl_env.sh), so they override what it sets.
    EnvList network_env;
    std::string queue;  // the Kueue LocalQueue a recipe uses unless it names its own; "" = none
    // Pod annotations for Kueue's topology-aware scheduling, rendered when the Job has a queue
    // (gpu-recipes: kueue.x-k8s.io/podset-preferred-topology: kubernetes.io/hostname).
    std::map<std::string, std::string> topology_request;
    // The node label whose value names a node's NVLink domain (nvidia.com/gpu.clique on GB200/
    // GB300, set by NVIDIA's GPU feature discovery); with Target::nvlink_domain_nodes, a Job that
    // fits one domain gets a required pod affinity on it, a larger queued one Kueue slices.
    std::string nvlink_domain_label;
    std::map<std::string, std::string> node_selector;
    // Pod scheduling gates the cluster's own controller lifts (GKE's topology-aware
    // placement: gke.io/topology-aware-auto-scheduling).
    std::vector<std::string> scheduling_gates;
    // Where the run directory of a pod lives (results that outlive the pod): a
    // PersistentVolumeClaim's name, or a GCS bucket mounted with the gcsfuse CSI driver;
    // neither = an emptyDir (trainbench then keeps only what the pod's log carries).
    std::string results_pvc;
    std::string results_bucket;
};

struct Target {
    std::string name;  // "aws-p4d-24xlarge"
    std::string description;
    std::string cloud;     // "azure", "aws", "gcp", "local"
    std::string instance;  // "p4d.24xlarge"
    Scheduler scheduler = Scheduler::slurm;
    int gpus_per_node = 8;
    int cpus_per_node = 0;
    double host_memory_gib = 0;
    std::string gpu;                          // Gpu::name
    std::string fabric;                       // "infiniband-hdr", "infiniband-ndr", "efa", "roce", "tcpxo", "none"
    std::string container_runtime;            // "pyxis", "enroot", "containerd", "none"
    EnvList env;                              // network tuning environment
    std::string topology_file;                // NCCL_TOPO_FILE on the node, if any
    std::vector<std::string> default_mounts;  // "host:container" (e.g. /opt/microsoft)
    double nccl_busbw_threshold_gbs = 0;      // all_reduce bus bandwidth a healthy pair reaches
    // Nodes that share one NVLink domain (GB200/GB300 NVL72: 18 nodes of 4 GPUs); 0 = the node
    // alone. Placement keeps each segment of a job inside one domain (Slurm --segment,
    // Kubernetes pod affinity / Kueue slices; see SlurmDefaults and KubernetesDefaults).
    int nvlink_domain_nodes = 0;
    SlurmDefaults slurm;
    KubernetesDefaults kubernetes;
    SourceLocation where;
};

// The GPT-2 BPE tokenizer's vocabulary, unpadded (GPT-3 uses the same tokenizer):
// what a job or a log that names no vocabulary is taken to use.
inline constexpr int k_gpt2_vocab = 50257;

struct Model {
    std::string name;    // "gpt3-175b"
    std::string family;  // "gpt3", "opt", "llama", "mixtral", "deepseek", "qwen3", "tinygpt"
    std::string description;
    std::string source;  // where the architecture is published (a config.json, a recipe), cited
    int layers = 0;
    int hidden = 0;
    int heads = 0;
    int kv_heads = 0;  // 0 = same as heads (MHA)
    int ffn = 0;       // 0 = 4 * hidden (the FFN of the dense layers)
    int seq_length = 2048;
    int vocab = 0;                     // unpadded tokenizer vocabulary (k_gpt2_vocab for GPT-2 BPE)
    std::string activation = "gelu";   // "gelu", "swiglu" or "relu"
    std::string position = "learned";  // "learned" or "rope"
    bool tied_embeddings = true;
    int experts = 0;  // MoE routed experts, 0 = dense
    int moe_top_k = 0;

    // ---- today's architectures (every field's default is the GPT-3 behaviour)
    std::string norm = "layernorm";   // "layernorm" or "rmsnorm"
    double norm_epsilon = 0;          // 0 = the framework's default (1e-5)
    int max_position_embeddings = 0;  // 0 = seq_length
    int head_dim = 0;                 // attention head size (kv_channels); 0 = hidden / heads
    bool qk_norm = false;             // normalization of queries and keys (Qwen3; MLA's latent norms)
    bool linear_bias = true;          // biases in every linear layer (GPT-3); false for Llama and after
    bool qkv_bias = false;            // a bias on the QKV projection only (with linear_bias false)
    // RoPE (position "rope")
    double rope_theta = 0;              // the rotary base; 0 = 10000
    std::string rope_scaling = "none";  // "none", "llama3" (Llama 3.1) or "yarn" (DeepSeek-V3)
    double rope_scaling_factor = 0;
    double rope_low_freq_factor = 0;      // llama3
    double rope_high_freq_factor = 0;     // llama3
    int rope_original_max_positions = 0;  // llama3, yarn: the context the base model was trained at
    double rope_beta_fast = 0;            // yarn
    double rope_beta_slow = 0;            // yarn
    double rope_mscale = 0;               // yarn
    double rope_mscale_all_dim = 0;       // yarn
    // Mixture of experts (experts > 0)
    int moe_ffn = 0;                             // FFN size of one routed expert; 0 = ffn
    int moe_shared_experts = 0;                  // experts every token goes through
    int moe_shared_ffn = 0;                      // FFN size of one shared expert; 0 = moe_ffn
    int moe_dense_layers = 0;                    // the first N layers are dense (DeepSeek first_k_dense_replace)
    int moe_layer_freq = 1;                      // layer i (i >= moe_dense_layers) has experts when i % freq == 0
    std::string moe_score_function = "softmax";  // router scores: "softmax" or "sigmoid"
    double moe_top_k_scaling = 0;                // routed output scaled by this (DeepSeek-V3 2.5); 0 = none
    int moe_groups = 0;                          // node-limited routing: expert groups (DeepSeek-V3 n_group)
    int moe_group_top_k = 0;                     // groups each token may use (topk_group)
    bool moe_expert_bias = false;                // aux-loss-free load balancing: a per-expert bias on the scores
    // Attention: "mha" (with kv_heads < heads: GQA/MQA) or "mla" (multi-latent attention)
    std::string attention = "mha";
    int q_lora_rank = 0;       // MLA: query compression rank; 0 = queries not compressed
    int kv_lora_rank = 0;      // MLA: key/value compression rank
    int qk_head_dim = 0;       // MLA: per-head query/key size without RoPE (qk_nope_head_dim)
    int qk_rope_head_dim = 0;  // MLA: per-head query/key size with RoPE
    int v_head_dim = 0;        // MLA: per-head value size
    int mtp_layers = 0;        // multi-token prediction modules (DeepSeek-V3 num_nextn_predict_layers)

    SourceLocation where;
    // Where each key present in the model's YAML was read (for located shape errors).
    std::map<std::string, SourceLocation> key_where;

    [[nodiscard]] int ffn_size() const { return ffn > 0 ? ffn : 4 * hidden; }
    // The vocabulary a job is rendered with: GPT-2's when the model names none.
    [[nodiscard]] int vocab_size() const { return vocab > 0 ? vocab : k_gpt2_vocab; }
    [[nodiscard]] int kv_head_count() const { return kv_heads > 0 ? kv_heads : heads; }
    [[nodiscard]] int head_size() const { return head_dim > 0 ? head_dim : (heads > 0 ? hidden / heads : 0); }
    [[nodiscard]] int max_positions() const {
        return max_position_embeddings > 0 ? max_position_embeddings : seq_length;
    }
    [[nodiscard]] bool is_moe() const { return experts > 0; }
    [[nodiscard]] bool is_mla() const { return attention == "mla"; }
    [[nodiscard]] int expert_ffn_size() const { return moe_ffn > 0 ? moe_ffn : ffn_size(); }
    [[nodiscard]] int shared_expert_ffn_size() const { return moe_shared_ffn > 0 ? moe_shared_ffn : expert_ffn_size(); }
    // Whether layer i (0-based) has experts: none on a dense model.
    [[nodiscard]] bool is_moe_layer(int i) const {
        return experts > 0 && i >= moe_dense_layers && i % std::max(1, moe_layer_freq) == 0;
    }
    // How many of the layers have experts.
    [[nodiscard]] int moe_layer_count() const;
    // The location of `key` in the model's YAML, else the model's own.
    [[nodiscard]] const SourceLocation& location_of(const std::string& key) const {
        auto it = key_where.find(key);
        return it == key_where.end() ? where : it->second;
    }
};

// ---------------------------------------------------------------- frameworks, log formats, FLOPs conventions
// The names recipes may give, written once here (src/catalog/frameworks.cpp). The modules
// that implement them keep tables of their own with the same names, which tests compare
// with these: render's framework table, metrics' format table, analysis' conventions.

// A flag whose value is a directory trainbench puts in each run's own directory, so that
// launch.extra_args may not set it (two runs would share it).
struct OwnedOutput {
    std::string_view flag;   // "--save"
    std::string_view where;  // "checkpoints in each run's own directory (...)"
};

// A training framework a recipe may name, with the log format its training log is read
// as, the FLOPs convention a recipe gets when it gives no metrics.flops, and what the
// recipe module needs to know of it (validate_recipe and the memory estimate read these
// fields, never a framework's name). A field left out is false, empty or the default.
struct FrameworkKind {
    std::string_view name;        // recipe `framework`: "nemo", "megatron-lm", ...
    std::string_view log_format;  // "" = the recipe says (launch.log_format, framework custom)
    std::string_view flops;       // the default metrics.flops
    // framework_config sets keys of the version's configuration (NeMo's Hydra config)
    bool config_keys = false;
    // With no framework_version, the version whose profile lists the container image (else
    // a framework with several versions needs the recipe to name one).
    bool version_from_image = false;
    // launch.command is the whole training command and launch.log_format its log (custom);
    // every other framework builds its command and refuses launch.command.
    bool own_command = false;
    // Megatron-LM's command line: a pipeline layout (--pipeline-model-parallel-layout),
    // recompute modules, and the flags the memory estimate reads (--grad-reduce-in-bf16,
    // --fp8-param-gather) from launch.extra_args.
    bool megatron_arguments = false;
    bool pipeline_parallel = true;  // parallelism.pipeline may exceed 1
    bool context_parallel = true;   // parallelism.context may exceed 1
    int min_gpus_per_node = 1;      // its launcher needs at least this many
    // On a GPU, the precisions it trains in (empty = any the GPU has).
    std::vector<Precision> gpu_precisions = {};
    // The memory estimate: attention through fused kernels (Transformer Engine, flash
    // attention) that never store the scores on a GPU; parameters and gradients sharded over
    // the data-parallel ranks (FSDP); gradients kept and reduced in bf16.
    bool fused_attention = false;
    bool shards_parameters = false;
    bool bf16_gradients = false;  // gradients reduced in bf16 (else fp32 unless Megatron-LM's flag says)
    std::vector<OwnedOutput> owned_outputs = {};
};
[[nodiscard]] const std::vector<FrameworkKind>& framework_kinds();
[[nodiscard]] const FrameworkKind* find_framework_kind(std::string_view name);
[[nodiscard]] std::vector<std::string> framework_kind_names();

// A log format metrics parses.
struct LogFormat {
    std::string_view name;  // "dllogger", "megatron", ...
    bool stdout_log;        // the framework prints it to standard output (a job log, not its own file)
};
[[nodiscard]] const std::vector<LogFormat>& log_formats();
[[nodiscard]] const LogFormat* find_log_format(std::string_view name);
[[nodiscard]] std::vector<std::string> log_format_names();
// The FLOPs conventions analysis implements: the dated names, then the undated aliases.
[[nodiscard]] const std::vector<std::string>& flops_convention_names();
// The FLOPs convention a framework version prints (its own formula at its date), the
// metrics.flops of a recipe that names none; the kind's default for a version not listed.
[[nodiscard]] std::string_view default_flops_convention(std::string_view framework, std::string_view version);

// What one argument or config key takes (a profile's `values:` entry), as the upstream
// parser or config reader of that version reads it.
struct ValueRule {
    // "int", "float" (argparse: Python's int()/float() of the word; NeMo: the YAML/Hydra type of
    // the upstream default, an int being a float too), "str", "bool", "list", "size" (nccl-tests'
    // parsesize: a number with an optional K/M/G suffix), "strtol" (an integer C's strtol reads
    // whole), "any" (NeMo: a scalar or a list, not a map); another name is a converter that is
    // not checked (Megatron-LM's moe_freq_type, an enum the sources do not define).
    std::string type;
    std::vector<std::string> choices;  // the values allowed, as text; empty = any of the type
    std::string action;                // an argparse action that takes no value ("store_true"); empty = a value
    std::string nargs;                 // argparse nargs ("?", "*", "+", "3"); empty = exactly one value
    bool nullable = false;             // NeMo: null is allowed (the upstream default is null)

    [[nodiscard]] bool takes_value() const { return action.empty(); }
};

// Why a value does not fit a ValueRule.
struct ValueProblem {
    std::string message;   // "'banana' is not an int"
    std::string expected;  // "an int (argparse type=int)"
    std::string hint;      // a did-you-mean for choices, or ""
};

// Whether Python's int() / float() takes the text (as argparse type=int/float converts a word;
// Hydra's integers and floats are the same texts).
[[nodiscard]] bool is_python_int(std::string_view text);
[[nodiscard]] bool is_python_float(std::string_view text);

// What one version of a training framework accepts (recipes/catalog/frameworks/
// <framework>-<version>.yaml), generated from its sources by tests/conformance/oracles.py:
// the config keys (NeMo) or command-line arguments (Megatron-LM, metaseq, nccl-tests) that
// exist in that version with what each takes, and for NeMo the seed's configuration that
// the job's config file starts from. `validate` checks every rendered launch line against it.
struct FrameworkProfile {
    std::string framework;                              // "nemo", "megatron-lm", "metaseq", "nccl-tests"
    std::string version;                                // "22.06", "e958b2ca", ...
    std::string title;                                  // "NeMo 1.11 (container bignlp-training:22.06)"
    std::string schema;                                 // what the keys are: "NeMo 1.11's megatron_gpt_config"
    std::vector<std::string> containers;                // images that ship this version
    std::vector<std::string> writes;                    // log formats this version writes
    std::map<std::string, std::string> format_modules;  // log format -> Python module it needs in the image
    nlohmann::ordered_json config = nlohmann::ordered_json::object();  // flat "a.b.c" -> value (nemo)
    std::vector<std::string> keys;       // every key or argument it accepts (sorted; config keys included)
    std::vector<std::string> open_keys;  // maps that take any sub-key (e.g. exp_manager.wandb_logger_kwargs)
    // Arguments that exist only with a choice: "--task" -> "dummy_lm" -> its arguments (metaseq).
    std::map<std::string, std::map<std::string, std::vector<std::string>>> choices;
    std::map<std::string, std::string> choice_defaults;  // "--arch" -> the value used when absent
    std::map<std::string, ValueRule> values;             // argument or key -> what it takes (absent: not known)
    std::vector<std::string> positionals;                // argparse positionals (a left-over word may fill one)
    bool getopt = false;                                 // a C getopt_long parser (nccl-tests), not argparse
    SourceLocation where;

    // Whether `key` exists in this version (directly, under an open map, or with one of `chosen`).
    [[nodiscard]] bool knows(std::string_view key, const std::map<std::string, std::string>& chosen = {}) const;
    // The keys a near miss is suggested from (keys plus every choice's arguments).
    [[nodiscard]] std::vector<std::string> all_keys() const;
    // The rule of an argument or key; null when the profile has none.
    [[nodiscard]] const ValueRule* rule(std::string_view key) const;
    // A command-line word given to `key`, converted as the parser converts it (no problem when
    // the word holds a shell variable: its value is known at run time only).
    [[nodiscard]] std::optional<ValueProblem> check_word(std::string_view key, std::string_view word) const;
    // A config value (framework_config's YAML, a Hydra override's value) for `key`.
    [[nodiscard]] std::optional<ValueProblem> check_config(std::string_view key,
                                                           const nlohmann::ordered_json& value) const;
};

struct FrameworkSlot;  // a profile, or the file it is read from on first use (frameworks.cpp)

// What Catalog::load reads: everything, or everything but the targets (a report of bare logs
// needs GPUs and models only; its target files are then neither read nor checked).
enum class CatalogParts { all, without_targets };

// The loaded catalog. Later directories override earlier ones by name, so a
// user's own catalog directory can redefine a shipped target.
class Catalog {
public:
    // Loads <dir>/catalog/{gpus.yaml,targets/*.yaml,models/*.yaml,frameworks/*.yaml} of every dir.
    // Collects every problem of the parts it reads and throws InputError at the end.
    // `only_model` (with CatalogParts::without_targets): the one model file read, for a report
    // that names its model; the other model files are listed by name (model_names()) but
    // neither read nor checked, and find_model() of one of them throws std::logic_error.
    [[nodiscard]] static Catalog load(const std::vector<std::filesystem::path>& recipe_dirs,
                                      CatalogParts parts = CatalogParts::all, std::string_view only_model = {});

    [[nodiscard]] const Gpu* find_gpu(std::string_view name) const;
    // The GPU whose device_names matches `device_name` (as the CUDA driver names it). Throws
    // InputError naming the name seen (`seen_in` says where) and the names the catalog knows
    // when no GPU lists it, or when two do: never another GPU's peak.
    [[nodiscard]] const Gpu& gpu_for_device(std::string_view device_name, std::string_view seen_in) const;
    [[nodiscard]] const Target* find_target(std::string_view name) const;
    [[nodiscard]] const Model* find_model(std::string_view name) const;
    // The profile of `framework` at `version`; null when there is none. Shared, so
    // recipes (and a sweep's thousands of them) hold it without copying.
    [[nodiscard]] std::shared_ptr<const FrameworkProfile> find_framework(std::string_view framework,
                                                                         std::string_view version) const;
    // The versions of `framework` that have a profile (sorted).
    [[nodiscard]] std::vector<std::string> framework_versions(std::string_view framework) const;

    [[nodiscard]] std::vector<std::string> gpu_names() const;
    [[nodiscard]] std::vector<std::string> target_names() const;
    [[nodiscard]] std::vector<std::string> model_names() const;
    [[nodiscard]] const std::map<std::string, Gpu>& gpus() const { return m_gpus; }
    // (the target accessors throw std::logic_error on a catalog loaded without its targets)
    [[nodiscard]] const std::map<std::string, Target>& targets() const;
    [[nodiscard]] bool has_targets() const { return m_has_targets; }
    // (throws std::logic_error on a catalog loaded with only one of its models)
    [[nodiscard]] const std::map<std::string, Model>& models() const;

    void add_gpu(Gpu g) { m_gpus[g.name] = std::move(g); }
    void add_target(Target t) { m_targets[t.name] = std::move(t); }
    void add_model(Model m) { m_models[m.name] = std::move(m); }
    void add_framework(FrameworkProfile p);
    // Registers a profile file (<framework>-<version>.yaml); it is read on first use, so a
    // command that needs no profile does not pay for parsing them at start-up.
    void add_framework_file(const std::filesystem::path& file);
    // Every profile (reads the ones not read yet).
    [[nodiscard]] std::vector<std::shared_ptr<const FrameworkProfile>> frameworks() const;

private:
    std::map<std::string, Gpu> m_gpus;
    std::map<std::string, Target> m_targets;
    bool m_has_targets = true;
    std::map<std::string, Model> m_models;
    std::set<std::string> m_unread_models;                               // listed, not read (load's only_model)
    std::map<std::string, std::shared_ptr<FrameworkSlot>> m_frameworks;  // "<framework>@<version>"
};

// ---------------------------------------------------------------- reading entities
// The same functions read a catalog file and an inline edit in a recipe
// (`target: {base: aws-p4d-24xlarge, gpus_per_node: 4}`), so both get the same
// keys, types and messages.

// Reads the Target fields present in the map into `t` (absent keys keep their
// value). `gpu_names` checks the gpu reference (did-you-mean on a near miss).
void read_target_fields(yaml::MapReader& r, Target& t, const std::vector<std::string>& gpu_names);
// Reads the Model fields present in the map into `m`.
void read_model_fields(yaml::MapReader& r, Model& m);
// Shape checks of a model (positive sizes, hidden divisible by heads, ...).
void check_model(const Model& m, const SourceLocation& where, const std::string& key, Diagnostics& d);
// The container runtimes a target or recipe may name (for messages and docs).
[[nodiscard]] const std::vector<std::string>& container_runtime_names();

// ---------------------------------------------------------------- published references
// A published training-throughput figure (recipes/catalog/references/*.yaml): one row of a
// vendor's performance table, with the configuration it ran and the FLOPs convention its
// TFLOPS column used. `report --reference ID` compares a run with it (docs/metrics.md).
struct Reference {
    std::string id;               // "nemo-24.07-gpt3-175b-h100x512-fp8"
    std::string source;           // where it is published: a URL, or repository@commit:file
    std::string publisher;        // "NVIDIA"
    std::string release;          // "NeMo 24.07", "Megatron-Bridge 26.08 (NeMo container 26.08)"
    std::string framework;        // the framework that ran it ("nemo", "megatron-bridge")
    std::string model;            // catalog model
    std::string published_model;  // the name in the table ("GPT3-175B")
    std::string system;           // "DGX-H100"
    std::string gpu;              // catalog GPU name or family ("h100", "gb200")
    int gpus = 0;
    std::string precision;  // as trainbench names it ("fp8", "mxfp8")
    int global_batch = 0;
    int micro_batch = 0;
    int seq_length = 0;
    int tensor = 1, pipeline = 1, context = 1, virtual_pipeline = 0, expert = 1;  // 0 VP = not interleaved
    double tokens_per_s_per_gpu = 0;
    double tflops_per_gpu = 0;
    std::string convention;  // the FLOPs convention of its TFLOPS column, as trainbench names it
    std::string why;         // how that convention was decided (the release's date, a formula that reproduces it)
    std::string explained;   // when trainbench does not reproduce it within 0.5 %: why (docs/metrics.md)
    std::string note;
    SourceLocation where;
};

// Every reference row of <dir>/catalog/references/*.yaml of every dir (a later directory's
// row replaces an earlier one of the same id). Checks the model against the catalog, the
// convention against flops_convention_names() and the numbers; throws InputError with
// every problem located.
[[nodiscard]] std::vector<Reference> load_references(const std::vector<std::filesystem::path>& recipe_dirs,
                                                     const Catalog& catalog);

}  // namespace trainbench::catalog
