// recipe: the declarative description of one benchmark. Loading resolves
// `extends` (a list; later wins; paths relative to the file), catalog
// references (`target: aws-p4d-24xlarge`, `model: gpt3-175b`) and `-s key=value`
// overrides (typed like the field they set), and records for every value the
// file/line/column or override that set it. Validation checks the schema
// (unknown keys are errors, with did-you-mean) and the semantics (parallelism
// divides the GPUs, batch divides, precision supported, memory fits) and
// reports every problem at once.
//
// docs/recipes.md is the reference of the language.
#pragma once

#include <trainbench/catalog.hpp>
#include <trainbench/core.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace trainbench::recipe {

struct Parallelism {
    int tensor = 1;
    int pipeline = 1;
    int virtual_pipeline = 0;  // virtual pipeline stages per rank; 0 = not interleaved
    int context = 1;
    int expert = 1;
    bool sequence_parallel = false;
    int expert_tensor = 0;  // tensor parallel size of the expert layers; 0 = the same as tensor
    // Megatron-Core's --pipeline-model-parallel-layout: which layers each (virtual) pipeline
    // stage holds, "Et*4|(tttt|)*14tmL" (E embedding, t decoder layer, m MTP layer, L loss;
    // stages split by '|'); "" = the layers split evenly. See pipeline_stages().
    std::string pipeline_layout{};
};

struct Batch {
    int micro = 1;
    int global = 1;
};

// Activation recomputation (Megatron/NeMo "activations checkpointing").
struct Recompute {
    std::string granularity = "none";  // "none", "selective", "full"
    std::string method = "block";      // "block" or "uniform" (full only)
    int num_layers = 0;                // layers recomputed per pipeline stage (full only)
    // selective only: Megatron-Core's --recompute-modules ("core_attn", "mlp", "moe_act",
    // "mla_up_proj", ...); empty = the framework's default (core attention)
    std::vector<std::string> modules{};
};

struct DataPrefix {
    double weight = 1.0;
    std::string prefix;  // Megatron .bin/.idx prefix
};

struct Data {
    std::string kind = "mock";         // "mock", "prefixes" or "prepared" (a prepare-data stage's output)
    std::vector<DataPrefix> prefixes;  // kind == prefixes
    std::string tokenizer = "gpt2-bpe";
    std::string vocab_file;
    std::string merge_file;
};

struct Container {
    std::string runtime = "none";     // "pyxis", "enroot", "none" (default: the target's)
    std::string image;                // registry image or .sqsh path
    std::vector<std::string> mounts;  // "host:container[:ro]"
    bool mount_home = false;          // pyxis: false renders --no-container-mount-home
    // pyxis: variables whose host value overrides the image's and reaches the entrypoint
    // (srun --container-env=NAME,...)
    std::vector<std::string> env;
};

struct Profiling {
    bool nsys = false;
    int start_step = 0;
    int end_step = 0;
    std::vector<int> ranks{0};
};

struct Metrics {
    std::string source = "auto";  // "auto", "dllogger", "tensorboard", "megatron", "nemo", "metaseq", "nccl-tests"
    std::string path;             // log file or glob, relative to the run's log directory; empty = framework default
    int window_start = 10;        // inclusive step window for the mean
    int window_end = 30;
    std::string window_name;         // a named window ("dgxc", named_windows()), "" for [START, END]
    std::string flops = "megatron";  // FLOPs convention (analysis module)
};

// A step window known by name: `metrics.window: dgxc`, `report --window dgxc`.
struct NamedWindow {
    std::string_view name;
    int start = 0;  // inclusive
    int end = 0;
    std::string_view source;  // whose window it is
};
[[nodiscard]] const std::vector<NamedWindow>& named_windows();
[[nodiscard]] const NamedWindow* find_named_window(std::string_view name);
[[nodiscard]] std::vector<std::string> named_window_names();

// One stated figure: value±tolerance, or min/max bounds.
struct Expectation {
    std::string figure;  // "step_time_s", "mfu", "tflops_per_gpu", "tokens_per_s", ...
    std::optional<double> value;
    std::optional<double> tolerance;     // absolute, or relative when tolerance_is_relative
    bool tolerance_is_relative = false;  // "5%" in the recipe
    std::optional<double> min;
    std::optional<double> max;
    SourceLocation where;
};

struct Slurm {
    std::string partition;
    std::string account;
    std::string qos;
    std::string time;  // "HH:MM:SS" or "D-HH:MM:SS"
    std::optional<bool> exclusive;
    std::string mem;
    std::optional<bool> use_gres;
    std::string constraint;
    std::string network;  // #SBATCH --network (e.g. "sharp" for SHARP-enabled jobs)
    std::string job_name_prefix = "trainbench-";
    int cpus_per_task = 0;
    std::string nodelist;                 // #SBATCH --nodelist (a Slurm host list)
    std::string exclude;                  // #SBATCH --exclude
    std::string reservation;              // #SBATCH --reservation
    std::vector<std::string> directives;  // extra "#SBATCH <directive>" lines ("--gres-flags=enforce-binding")
    std::vector<std::string> srun_args;   // extra arguments of the training srun ("--mpi=pmix")
    // #SBATCH --segment (topology/block): nodes per segment, each segment in one block;
    // 0 = derived from the target (slurm_segment below).
    int segment = 0;
};

struct Kubernetes {
    std::string namespace_name;
    std::string queue;  // Kueue LocalQueue name; empty = none
    std::string service_account;
    std::vector<std::string> image_pull_secrets;
    std::map<std::string, std::string> node_selector;
    std::string results_pvc;          // overrides the target's (catalog::KubernetesDefaults)
    std::string results_bucket;       // overrides the target's
    std::string install = "kubectl";  // how `submit` creates the objects: "kubectl" (apply) or "helm" (install)
};

// How the framework is started. For `custom`, `command` is the whole argv.
struct Launch {
    std::vector<std::string> command;     // framework "custom": argv of the training command
    std::string entrypoint;               // framework script, e.g. /opt/NeMo/.../megatron_gpt_pretraining.py
    std::string workdir;                  // e.g. Megatron-LM checkout
    std::vector<std::string> extra_args;  // appended to the framework's argument list
    std::string log_format;               // custom: which parser reads its log
};

struct Stage {
    std::string name;                    // "validate", "prepare-data", "train"
    std::string kind;                    // same names; the stage's template family
    std::string dependency = "afterok";  // on the previous stage
    nlohmann::ordered_json options;      // stage-specific settings (validated per kind)
    std::string time;                    // the stage's job time limit (replaces slurm.time)
    std::string mem;                     // the stage's job memory (replaces slurm.mem)
    SourceLocation where;
};

struct Recipe {
    int version = 1;
    std::string name;
    std::string description;
    std::filesystem::path file;  // the recipe file given on the command line

    std::string target_name;
    std::string model_name;
    catalog::Target target;  // resolved (catalog entry, possibly with inline edits)
    catalog::Model model;
    catalog::Gpu gpu;

    std::string framework = "nemo";  // "nemo", "megatron-lm", "metaseq", "tinygpt", "custom"
    std::string framework_version;   // "22.06", "e958b2ca", ...: names the profile launch lines are checked against
    std::shared_ptr<const catalog::FrameworkProfile> profile;  // the catalog's profile of that version, if any
    // Settings of the framework's own configuration with no first-class recipe key, as
    // flat dotted keys ("model.optim.lr": 1.2e-4): NeMo config keys, written into the
    // config file the job gets. Checked against the profile.
    nlohmann::ordered_json framework_config = nlohmann::ordered_json::object();
    int nodes = 1;
    int gpus_per_node = 0;  // 0 = the target's
    Parallelism parallelism;
    Batch batch;
    catalog::Precision precision = catalog::Precision::bf16;
    int steps = 50;
    Recompute recompute;
    bool distributed_optimizer = true;
    Data data;
    Container container;
    catalog::EnvList env;                // recipe env, after the target's tuning env
    std::vector<std::string> env_unset;  // `env: {NAME: null}`: removed from the target's env, unset in the job
    Profiling profiling;
    Metrics metrics;
    std::vector<Expectation> expectations;
    Slurm slurm;
    Kubernetes kubernetes;
    Launch launch;
    std::vector<Stage> stages;  // empty = one "train" stage

    // The fully resolved recipe as an ordered JSON tree (what `show` prints)
    // and where each leaf came from, keyed by dotted path ("parallelism.tensor").
    nlohmann::ordered_json resolved;
    std::map<std::string, SourceLocation> origins;

    [[nodiscard]] int gpus_per_node_effective() const {
        return gpus_per_node > 0 ? gpus_per_node : target.gpus_per_node;
    }
    [[nodiscard]] int total_gpus() const { return nodes * gpus_per_node_effective(); }
    // total GPUs / (tensor * pipeline * context); 0 when it does not divide.
    [[nodiscard]] int data_parallel() const;
};

// One "-s key=value" from the command line.
struct Override {
    std::string key;
    std::string value;
    std::string text;  // as typed, for origins and messages
};
// Parses "a.b=c"; throws UsageError on a missing '=' or empty key.
[[nodiscard]] Override parse_override(std::string_view text);

struct LoadOptions {
    std::vector<Override> overrides;
    // Directories `extends` may also read from (--recipes); see RecipeSource::read.
    std::vector<std::filesystem::path> recipe_roots;
};

// Loads, merges extends, resolves catalog references, applies overrides and
// checks the schema. Throws InputError with every diagnostic on failure.
[[nodiscard]] Recipe load_recipe(const std::filesystem::path& file, const catalog::Catalog& catalog,
                                 const LoadOptions& options = {});

// ---------------------------------------------------------------- Slurm values
// Checks of values passed to Slurm and Pyxis verbatim (src/recipe/slurm_values.cpp):
// each returns the problem in words, or "" when the value is fine.
// sbatch --time in seconds (0 = no limit; every form sbatch accepts); nullopt when invalid.
[[nodiscard]] std::optional<long long> parse_slurm_time(std::string_view text);
[[nodiscard]] std::string format_slurm_time(long long seconds);  // "D-HH:MM:SS" / "HH:MM:SS"
[[nodiscard]] std::string slurm_time_problem(std::string_view text);
[[nodiscard]] const char* slurm_time_forms();
// Pyxis reads an image that does not start with '/' or '.' as a registry image.
[[nodiscard]] std::string pyxis_image_problem(std::string_view image);
[[nodiscard]] std::string hostlist_problem(std::string_view list);
[[nodiscard]] std::string slurm_name_problem(std::string_view name);
[[nodiscard]] std::string sbatch_directive_problem(std::string_view directive);
[[nodiscard]] std::string srun_argument_problem(std::string_view argument);

// Per-GPU memory estimate (bytes), shown by validate and plan.
struct MemoryEstimate {
    double parameters = 0;          // whole model
    double parameters_per_gpu = 0;  // after tensor and pipeline sharding (largest stage)
    double weights = 0;             // bytes per GPU
    double gradients = 0;
    double optimizer = 0;    // with the distributed optimizer sharded over data parallel
    double activations = 0;  // with the recipe's recompute setting
    double activations_no_recompute = 0;
    double activations_full_recompute = 0;
    double total = 0;
    double capacity = 0;  // the GPU's memory
    [[nodiscard]] bool fits() const { return total <= capacity; }
};
[[nodiscard]] MemoryEstimate estimate_memory(const Recipe& recipe);

// ---------------------------------------------------------------- NVLink-domain placement
// (src/recipe/placement.cpp; docs/recipes.md "NVLink domains")
// The nodes of one segment of the job for Slurm's topology/block plugin (#SBATCH --segment):
// the recipe's slurm.segment; else, on a target whose Slurm has block topology, the nodes
// when they fit one NVLink domain, otherwise the largest divisor of the nodes that does (the
// rule of Megatron-Bridge's scripts/performance/utils/executors.py for GB200); 0 = none.
[[nodiscard]] int slurm_segment(const Recipe& recipe);
// The nodes a Kubernetes Job keeps in one NVLink domain (the target's nvlink_domain_label):
// all of them when they fit one domain, else slices as slurm_segment; 0 = no placement.
[[nodiscard]] int kubernetes_domain_slice(const Recipe& recipe);
// slurm.segment divides the nodes and fits an NVLink domain.
void validate_placement(const Recipe& recipe, Diagnostics& diagnostics);
// recompute.modules: Megatron-LM's module names, with selective recompute only.
void validate_recompute_modules(const Recipe& recipe, Diagnostics& diagnostics);

// ---------------------------------------------------------------- pipeline stages
// (src/recipe/pipeline_layout.cpp) What each virtual pipeline stage holds, in Megatron-Core's
// order (virtual stage j = chunk k * pipeline + rank r: rank r holds stages r, r + p, ...).
struct PipelineStage {
    int first_layer = 0;  // index of its first decoder layer
    int layers = 0;       // decoder layers
    int mtp = 0;          // multi-token prediction layers
    bool embedding = false;
    bool loss = false;  // the output layer and the loss
};
// A layout string expanded to its stages ("(t|)*2tL" -> {"t", "t", "tL"}); the problem in
// words in `problem` (and nullopt) when it does not parse.
[[nodiscard]] std::optional<std::vector<std::string>> expand_pipeline_layout(std::string_view layout,
                                                                             std::string& problem);
// The stages of the recipe: its pipeline_layout, else the model's layers split evenly over
// pipeline x max(1, virtual_pipeline) stages (the embedding on the first, the loss and the MTP
// layers on the last). Empty when the layout does not parse.
[[nodiscard]] std::vector<PipelineStage> pipeline_stages(const Recipe& recipe);
// pipeline_layout parses, has pipeline x virtual_pipeline stages, the model's layers, one
// embedding first and one loss last (Megatron-LM only).
void validate_pipeline_layout(const Recipe& recipe, Diagnostics& diagnostics);

// Semantic checks (parallelism, batch, precision, fit to target, memory).
// Adds every problem to `diagnostics`, located at the key that set the value.
void validate_recipe(const Recipe& recipe, Diagnostics& diagnostics);

// A recipe file read and parsed once (extends merged, nothing decoded yet),
// to load many variants from without re-reading any file (sweeps): each
// load_recipe(source, ...) applies its overrides to a copy of the tree.
// True when `target` is inside the directories a file `from` may name: `from`'s own tree (its
// folder and the recipes tree it belongs to), the recipe directories ($TRAINBENCH_RECIPES, the
// shipped recipes) and `extra` (--recipes). `extends` and a sweep's `base` are confined so.
[[nodiscard]] bool inside_recipe_roots(const std::filesystem::path& from, const std::filesystem::path& target,
                                       const std::vector<std::filesystem::path>& extra = {});

class RecipeSource {
public:
    // Reads `file` and its extends chain. Throws InputError when the file is
    // missing or unparsable; problems in extends are reported by load_recipe.
    // `extends` reads only inside the recipe's own tree (its directory, and the
    // recipes tree it belongs to: the nearest ancestor with a catalog/ or common/
    // folder, else the directory above; never the file system's root), the shipped
    // and $TRAINBENCH_RECIPES directories, and `roots`;
    // anything else is a located error that shows nothing of the file.
    [[nodiscard]] static RecipeSource read(const std::filesystem::path& file,
                                           const std::vector<std::filesystem::path>& roots = {});
    [[nodiscard]] const std::filesystem::path& file() const { return m_file; }
    struct Tree;  // private (src/recipe)
    [[nodiscard]] const Tree& tree() const { return *m_tree; }

private:
    std::filesystem::path m_file;
    std::shared_ptr<const Tree> m_tree;
};
[[nodiscard]] Recipe load_recipe(const RecipeSource& source, const catalog::Catalog& catalog,
                                 const LoadOptions& options = {});

// ---------------------------------------------------------------- stage options
// Each stage kind's `options` schema (src/recipe/stages.cpp; docs/stages.md).
// validate_stage_options reports unknown keys (with did-you-mean), wrong types
// and bad values, located at the key; the *_options readers return typed
// values with defaults filled in (they assume a validated recipe and fall
// back to defaults on bad values).
struct DcgmOptions {
    bool enabled = true;
    int level = 3;                 // dcgmi diag -r LEVEL (1 quick, 2 medium, 3 long)
    std::string binary = "dcgmi";  // the dcgmi program (a path replaces it: stand-ins in tests)
    std::string image;             // container image to run dcgmi in (pyxis); empty = on the host
    std::string time;              // the DCGM step's time limit (srun --time)
};
struct NcclTestOptions {
    bool enabled = true;
    std::vector<std::string> tests{"all_reduce_perf"};
    std::string min_bytes = "8";     // -b
    std::string max_bytes = "8G";    // -e
    int step_factor = 2;             // -f
    int iters = 0;                   // -n; 0 = nccl-tests' default
    int gpus_per_rank = 1;           // -g
    bool pairwise = true;            // one 2-node run per node pair (seed 000)
    bool all_nodes = true;           // one run over every node
    double busbw_threshold_gbs = 0;  // 0 = the target's nccl_busbw_threshold_gbs
    std::string build_path;          // directory holding the nccl-tests binaries (build.path)
    std::string build_image;         // or a container image that has them (build.image)
    std::string build_dir;           // build nccl-tests here once (make MPI=1), in build_image
    std::string build_repo = "https://github.com/NVIDIA/nccl-tests.git";
    std::string build_ref = "v2.19.6";
    std::string hpcx_path;            // HPC-X loaded (hpcx-init.sh, hpcx_load) for the build and the runs
    std::string mpi = "pmix";         // srun --mpi=...: the ranks of an MPI build start as one job; "none"
    std::vector<std::string> mounts;  // container mounts for the nccl-tests runs
    catalog::EnvList env;             // exported before the nccl-tests runs
    std::string mem;                  // each nccl-tests step's memory (srun --mem)
    std::string time;                 // each nccl-tests run's time limit (srun --time)
    // Kubernetes: pod 0 starts the ranks with mpirun over ssh into every pod of the Job.
    int ssh_port = 222;                                          // sshd's port in the pods (the GKE TCPXO images: 222)
    std::vector<std::string> sshd{"service", "ssh", "restart"};  // starts sshd in each pod
    std::vector<std::string> mpirun_args;                        // more mpirun arguments
};
struct ValidateOptions {
    int nodes = 0;         // nodes validated; 0 = the recipe's
    int reuse_hours = 24;  // a passed validation of the same nodes this recent is reused; 0 = never
    DcgmOptions dcgm;
    NcclTestOptions nccl;
};
struct PrepareDataOptions {
    std::string dataset;     // "pile", "slimpajama", "custom"
    std::string data_dir;    // downloads and extracted files
    std::string output_dir;  // Megatron .bin/.idx prefixes; default data_dir (pile), data_dir/preprocessed (slimpajama)
    std::string image;       // container image the steps run in; default the recipe's (Pyxis), else the host
    std::vector<std::string> mounts;
    catalog::EnvList env;
    std::string time;
    std::string partition;
    int nodes = 0;           // array throttle (%N): tasks running at once; 0 = no limit
    int tasks_per_node = 1;  // preprocessing workers per array task
    bool download = true, extract = true, concat = true, preprocess = true;
    bool rm_downloaded = false, rm_extracted = false;
    std::string tokenizer_type = "GPT2BPETokenizer";
    std::string vocab_file, merge_file;      // default data_dir/bpe/{vocab.json,merges.txt}
    std::string url, vocab_url, merges_url;  // download sources
    int retries = 8;                         // download attempts per file (throttling, server errors)
    int retry_delay = 10;                    // seconds before the first retry; doubled each time (at most 300)
    std::string nemo_dir;                    // NeMo in the image (preprocess_data_for_megatron.py)
    // pile
    std::string shards = "0-1";  // "0-29", "0,3,5-7": Pile shard numbers = array indices
    // slimpajama
    int chunks = 72;               // concatenated chunks = array tasks
    int valid_test_chunks = 15;    // chunks held out for validation and for test each
    int download_chunks = 10;      // chunk1..chunkN of the source
    int download_shards = 6000;    // example_train_0..N-1 per source chunk
    std::string launcher_version;  // informational
    std::vector<std::string> preprocess_mounts;
    int gpus_per_node = 0;  // informational (CPU nodes)
    // custom
    std::vector<std::string> command;  // argv run by each array task (SLURM_ARRAY_TASK_ID set)
    int array = 0;                     // custom: array size; 0 = not an array
    std::vector<DataPrefix> prefixes;  // custom: the prefixes it produces (for data.kind prepared)
};

void validate_stage_options(const Recipe& recipe, Diagnostics& diagnostics);
// The values a job is rendered from, checked where the recipe gives them (job_values.cpp):
// metrics.path, `${env:NAME}` references, #SBATCH values, Kubernetes results storage and image.
void validate_job_values(const Recipe& recipe, Diagnostics& diagnostics);
// metrics.path is relative to the stage's log directory and stays inside it: the problem in
// words, or "" when the path is fine ("" is fine: the framework's default file).
[[nodiscard]] std::string metrics_path_problem(std::string_view path);
// NAME of an env value written "${env:NAME}" (taken from the submitting environment at
// submit time, never written to disk); nullopt for a literal value.
[[nodiscard]] std::optional<std::string> env_reference(std::string_view value);
[[nodiscard]] ValidateOptions validate_options(const Recipe& recipe, const Stage& stage);
[[nodiscard]] PrepareDataOptions prepare_data_options(const Recipe& recipe, const Stage& stage);
// The Pile shard list "0-1,5" as numbers (sorted, unique); throws InputError when malformed.
[[nodiscard]] std::vector<int> parse_shards(const std::string& shards);
// The prefixes a prepare-data stage produces (training data of `data.kind: prepared`).
[[nodiscard]] std::vector<DataPrefix> prepared_prefixes(const Recipe& recipe, const PrepareDataOptions& options);
// The recipe's data with `kind: prepared` resolved to its prepare-data stage's prefixes (unchanged otherwise).
[[nodiscard]] Data effective_data(const Recipe& recipe);

// load_recipe + validate_recipe; throws InputError when either finds errors.
[[nodiscard]] Recipe load_valid_recipe(const std::filesystem::path& file, const catalog::Catalog& catalog,
                                       const LoadOptions& options = {});

// The recipe files under `dir` (*.yaml, *.yml, sorted), skipping the catalog
// (any folder named `catalog`) and partial bases (any folder named `common`).
// A `dir` that is itself a file is returned as is.
[[nodiscard]] std::vector<std::filesystem::path> find_recipe_files(const std::filesystem::path& dir);

// The resolved recipe as YAML text (keys in schema order), optionally with a
// "# file:line" comment naming the origin of every value (show --origin).
[[nodiscard]] std::string to_yaml(const Recipe& recipe, bool with_origins = false);

}  // namespace trainbench::recipe
