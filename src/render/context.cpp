// build_context: every decision about a job, taken once in C++ so templates
// only place values (docs/templates.md lists each key).
#include "render/escape.hpp"
#include "render/frameworks/framework.hpp"
#include "render/shell_word.hpp"
#include "render/slurm_knobs.hpp"
#include "render/stage_context.hpp"

#include <trainbench/render.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>

using nlohmann::ordered_json;

namespace trainbench::render {

namespace {

// ---------------------------------------------------------------- constants
// Seed 004 (AI-Hypercomputer/gpu-recipes @ 24ba6df, values.yaml): the TCPXO
// NCCL plugin and the receive-datapath manager (RxDM) that go with it.
constexpr const char* k_tcpxo_plugin_image =
    "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/nccl-plugin-gpudirecttcpx-dev:v1.0.3";
constexpr const char* k_tcpxo_daemon_image = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.9";
constexpr int k_k8s_master_port = 6002;  // seed 004
// The nccl-tests release whose options the validation stage passes (its profile:
// recipes/catalog/frameworks/nccl-tests-2.19.6.yaml).
constexpr const char* k_nccl_tests_version = "2.19.6";
constexpr const char* k_k8s_run_dir = "/workspace/trainbench-run";
constexpr const char* k_k8s_config_dir = "/etc/trainbench";  // the ConfigMap's mount

bool valid_identifier(std::string_view s) {
    if (s.empty() || (s.front() >= '0' && s.front() <= '9')) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
}

bool has_control(std::string_view s) {
    return std::any_of(s.begin(), s.end(), [](char c) {
        auto u = static_cast<unsigned char>(c);
        return u < 0x20 || u == 0x7f;
    });
}

// The `${env:NAME}` form of a recipe env value: the variable comes from the
// submitting environment at submit time and is never written to disk.
std::optional<std::string> env_reference(std::string_view value) {
    constexpr std::string_view open = "${env:";
    if (value.size() > open.size() + 1 && value.substr(0, open.size()) == open && value.back() == '}') {
        return std::string(value.substr(open.size(), value.size() - open.size() - 1));
    }
    return std::nullopt;
}

// The program and its arguments (no launcher prefix).
// The program a stage runs and what goes with it (no launcher prefix).
FrameworkLaunch stage_program(const Facts& f) {
    const recipe::Recipe& r = f.r;
    FrameworkLaunch out;
    std::vector<ShellWord>& w = out.program;
    if (f.stage.kind != "train") {
        // Non-training stages run the command their options give (validate defaults to nccl-tests).
        if (f.stage.options.is_object() && f.stage.options.contains("command") &&
            f.stage.options["command"].is_array()) {
            for (const auto& word : f.stage.options["command"])
                w.emplace_back(word.is_string() ? word.get<std::string>() : word.dump());
            return out;
        }
        if (f.stage.kind == "validate") {
            // nccl-tests over the allocation (the seeds' cluster validation), from options.nccl.
            ordered_json nccl =
                f.stage.options.is_object() && f.stage.options.contains("nccl") && f.stage.options["nccl"].is_object()
                    ? f.stage.options["nccl"]
                    : ordered_json::object();
            auto text = [&nccl](const char* key, const std::string& fallback) {
                if (!nccl.contains(key)) return fallback;
                const ordered_json& v = nccl[key];
                return v.is_string() ? v.get<std::string>() : v.dump();
            };
            w.emplace_back(text("test", "all_reduce_perf"));
            // On Kubernetes each pod runs one process: over all of its node's GPUs (-g).
            const std::string per_rank = f.scheduler == catalog::Scheduler::kubernetes
                                             ? std::to_string(std::max(1, f.gpus_per_node))
                                             : std::string("1");
            for (const auto& [flag, key, fallback] :
                 std::vector<std::tuple<std::string, const char*, std::string>>{{"-b", "min_bytes", "8"},
                                                                                {"-e", "max_bytes", "8G"},
                                                                                {"-f", "step_factor", "2"},
                                                                                {"-g", "gpus_per_rank", per_rank}}) {
                w.emplace_back(flag);
                w.emplace_back(text(key, fallback));
            }
            return out;
        }
        // A stage kind whose schema is not defined yet and that names no command:
        // the job fails at once and says so (it never runs something unintended).
        for (const char* word : {"sh", "-c", "echo \"trainbench: $1\" >&2; exit 2", "trainbench"}) w.emplace_back(word);
        w.emplace_back(
            fmt::format("stage '{}' (kind '{}') has no command: set its options.command", f.stage.name, f.stage.kind));
        return out;
    }
    const Framework* fw = find_framework(r.framework);
    if (!fw)
        throw InputError(fmt::format("framework '{}' cannot be rendered", r.framework),
                         did_you_mean(r.framework, framework_names()));
    return fw->launch(f);
}

// Whether the program is started once per GPU by the scheduler (srun tasks,
// or our own rank loop locally) rather than once per node by torchrun.
bool one_task_per_gpu(const recipe::Recipe& r, const recipe::Stage& stage) {
    if (stage.kind != "train") return true;
    const Framework* fw = find_framework(r.framework);
    return fw != nullptr && fw->one_task_per_gpu;
}

// The interpreter/launcher words before the program, per scheduler.
std::vector<ShellWord> launcher_words(const Facts& f, bool nsys) {
    const recipe::Recipe& r = f.r;
    std::vector<ShellWord> w;
    bool python_program = f.stage.kind == "train" && r.framework != "custom";
    if (!python_program) return w;
    if (f.scheduler == catalog::Scheduler::kubernetes && r.framework != "tinygpt") {
        // One torchrun per pod (seed 004), under nsys when profiling (as on Slurm): the
        // report goes to the run directory, which the target keeps on a PVC or bucket.
        if (nsys) {
            for (const char* word :
                 {"nsys", "profile", "-s", "none", "-t", "nvtx,cuda", "--capture-range=cudaProfilerApi",
                  "--capture-range-end=stop", "--force-overwrite", "true", "-o"})
                w.emplace_back(word);
            w.push_back(run_path(f.log_dir + "/nsys-node").var("NODE_RANK"));
        }
        w.emplace_back("torchrun");
        w.push_back(word_with_var("--nproc-per-node=", "GPUS_PER_NODE"));
        w.push_back(word_with_var("--nnodes=", "NNODES"));
        w.push_back(word_with_var("--node-rank=", "NODE_RANK"));
        w.push_back(word_with_var("--rdzv-id=", "JOB_IDENTIFIER"));
        w.push_back(word_with_var("--master-addr=", "MASTER_ADDR"));
        w.push_back(word_with_var("--master-port=", "MASTER_PORT"));
        return w;
    }
    if (r.framework == "megatron-lm") {
        // Seed 002: one task per node, torchrun starts the GPU ranks.
        w.emplace_back("torchrun");
        w.emplace_back("--nproc_per_node");
        w.emplace_back(std::to_string(f.gpus_per_node));
        w.emplace_back("--nnodes");
        w.push_back(nodes_word(f, ""));
        w.emplace_back("--rdzv_id");
        w.push_back(word_with_var("", f.scheduler == catalog::Scheduler::slurm ? "SLURM_JOB_ID" : "TRAINBENCH_RUN_ID"));
        w.emplace_back("--rdzv_backend");
        w.emplace_back("c10d");
        w.emplace_back("--rdzv_endpoint");
        w.push_back(ShellWord().var("MASTER_ADDR").lit(":").var("MASTER_PORT"));
        return w;
    }
    if (nsys) {
        for (const char* word : {"nsys", "profile", "-s", "none", "-t", "nvtx,cuda", "--capture-range=cudaProfilerApi",
                                 "--capture-range-end=stop", "--force-overwrite", "true", "-o"})
            w.emplace_back(word);
        w.push_back(run_path(f.log_dir + "/nsys-%p"));
    }
    w.emplace_back(r.framework == "tinygpt" ? "/usr/bin/python3" : "python3");
    w.emplace_back("-u");
    return w;
}

std::vector<std::string> shell_texts(const std::vector<ShellWord>& words) {
    std::vector<std::string> out;
    for (const ShellWord& w : words) out.push_back(w.shell());
    return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i > 0) out += sep;
        out += parts[i];
    }
    return out;
}

void check_directive_value(const std::string& key, const std::string& value) {
    if (has_control(value))
        throw InputError(
            fmt::format("'{}' contains a control character (newline or tab), which a #SBATCH line "
                        "cannot hold: '{}'",
                        key, value));
}

}  // namespace

bool prepare_is_custom(const recipe::Stage& stage) {
    return stage.options.is_object() && stage.options.value("dataset", std::string()) == "custom";
}

std::vector<recipe::Stage> effective_stages(const recipe::Recipe& recipe) {
    if (!recipe.stages.empty()) return recipe.stages;
    recipe::Stage train;
    train.name = "train";
    train.kind = "train";
    train.dependency.clear();
    return {train};
}

const std::vector<std::string>& pre_escaped_keys() {
    static const std::vector<std::string> keys = {
        // integers (safe in any output)
        "nodes",
        "gpus_per_node",
        "total_gpus",
        "tasks_per_node",
        "total_tasks",
        "steps",
        "slurm.cpus_per_task",
        "kubernetes.master_port",
        // Slurm host lists, checked at load (recipe::hostlist_problem: letters, digits, "-_.,[]"):
        // sbatch reads #SBATCH lines itself and would keep shell quotes as part of the value
        "slurm.nodelist_sbatch",
        "slurm.exclude_sbatch",
        "validate.build_check_sh",
        "validate.build_parent_sh",
        "validate.build_srun_sh",
        // shell text made by the context builder
        "env.value_sh",
        "launch_lines.line_sh",
        "launch_command_sh",
        "runner_lines.line_sh",
        "preflight.check_sh",
        "kubernetes.config_files.content_yaml",
        "run_dir_sh",
        // stages (stage_context.cpp)
        "array_spec_sh",
        "array_size",
        "validate.dcgm_srun_sh",
        "validate.nccl_srun_sh",
        "validate.nccl_args_sh",
        "validate.tests.binary_sh",
        "validate.env.value_sh",
        "validate.ranks_per_node",
        "validate.pair_tasks",
        "validate.dcgm_level",
        "prepare.srun_sh",
        "prepare.preprocess_srun_sh",
        "prepare.preprocess_sh",
        "prepare.env.value_sh",
        "prepare.chunks",
        "prepare.tasks_per_node",
        "prepare.download_chunks",
        "prepare.download_shards",
        // YAML text made by the context builder
        "kubernetes.launch_script_yaml",
        "kubernetes.training_config_yaml",
    };
    return keys;
}

namespace {

// A Kubernetes stage's own part of the context: the Job it waits for (stages after the first
// are created suspended, naming it; `trainbench status/wait` releases them, docs/stages.md),
// its own environment (validate: nccl.env; prepare-data: env) and image (validate:
// nccl.build.image; prepare-data: image), else the recipe's.
void add_kubernetes_stage(const recipe::Recipe& r, const recipe::Stage& stage,
                          const std::function<std::string(const std::string&)>& object_name, ordered_json& c) {
    std::string after;
    const std::vector<recipe::Stage> all_stages = effective_stages(r);
    for (std::size_t i = 1; i < all_stages.size(); ++i)
        if (all_stages[i].name == stage.name && stage.dependency != "none") after = object_name(all_stages[i - 1].name);
    const bool queued = !r.kubernetes.queue.empty();
    catalog::EnvList own_env;
    std::string image;
    if (stage.kind == "validate") {
        recipe::ValidateOptions v = recipe::validate_options(r, stage);
        own_env = v.nccl.env;
        image = v.nccl.build_image;
    }
    if (stage.kind == "prepare-data") {
        recipe::PrepareDataOptions p = recipe::prepare_data_options(r, stage);
        own_env = p.env;
        image = p.image;
    }
    ordered_json stage_env = ordered_json::array();
    for (const auto& [name, value] : own_env) stage_env.push_back({{"name", name}, {"value", value}});
    ordered_json& k = c["kubernetes"];
    k["after"] = after;
    k["has_after"] = !after.empty();
    k["dependency"] = stage.dependency;
    k["suspend"] = queued || !after.empty();
    // Kueue admits a Job that carries its queue label: a waiting stage gets it when released.
    k["queue_label"] = queued && after.empty();
    k["stage_env"] = stage_env;
    if (r.target.scheduler == catalog::Scheduler::kubernetes && !image.empty()) c["container"]["image"] = image;
}

}  // namespace

ordered_json build_context(const recipe::Recipe& recipe_in, const RenderOptions& options, const recipe::Stage& stage) {
    // data.kind "prepared": the training stage reads the prepare-data stage's output.
    std::optional<recipe::Recipe> with_data;
    if (recipe_in.data.kind == "prepared") {
        with_data = recipe_in;
        with_data->data = recipe::effective_data(recipe_in);
    }
    const recipe::Recipe& r = with_data ? *with_data : recipe_in;
    if (r.name.empty() || !std::all_of(r.name.begin(), r.name.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        }))
        throw InputError(fmt::format("recipe name '{}' cannot name a job: use [a-z0-9._-]", r.name));
    if (stage.name.empty() || !std::all_of(stage.name.begin(), stage.name.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
        }))
        throw InputError(fmt::format("stage name '{}' cannot name a log directory: use [a-z0-9_-]", stage.name));
    if (has_control(options.run_id) || options.run_id.find('/') != std::string::npos)
        throw InputError(fmt::format("run id '{}' is not a plain word", options.run_id));

    const catalog::Scheduler scheduler = r.target.scheduler;
    const int gpus_per_node = r.gpus_per_node_effective();
    const bool slurm_validate = scheduler == catalog::Scheduler::slurm && stage.kind == "validate";
    const bool slurm_prepare = scheduler == catalog::Scheduler::slurm && stage.kind == "prepare-data";
    // Validation covers options.nodes (default the recipe's); each data-preparation array task is one node.
    const bool k8s_validate = scheduler == catalog::Scheduler::kubernetes && stage.kind == "validate";
    const int nodes = slurm_validate || k8s_validate ? std::max(1, recipe::validate_options(r, stage).nodes)
                                                     : (slurm_prepare ? 1 : std::max(1, r.nodes));
    const bool requests_gpus = r.gpu.family != "cpu" && gpus_per_node > 0 && !slurm_prepare;
    const bool per_gpu = one_task_per_gpu(r, stage);
    const int slots = std::max(1, gpus_per_node);
    const int tasks_per_node = slurm_prepare ? 1 : (per_gpu ? slots : 1);
    const std::string log_dir = "logs/" + stage.name;
    // Where the framework's metrics log goes: logs/<stage>/<metrics.path> when the
    // recipe names one (relative to the stage's log directory), else the default.
    std::string metrics_path = r.metrics.path;
    if (metrics_path.find("..") != std::string::npos || (!metrics_path.empty() && metrics_path.front() == '/') ||
        has_control(metrics_path))
        throw InputError(
            fmt::format("metrics.path '{}' must be a relative path inside the log directory", metrics_path));
    const bool dllogger_source = r.metrics.source == "dllogger" || r.metrics.source == "auto";
    std::string dllogger_file =
        log_dir + "/" + (dllogger_source && !metrics_path.empty() ? metrics_path : "dllogger.json");
    // Frameworks that log to standard output (Megatron, Metaseq) write it to
    // logs/<stage>/<metrics.path> when the recipe names a file for that source.
    bool stdout_source = r.metrics.source == "megatron" || r.metrics.source == "metaseq" || r.metrics.source == "nemo";
    std::string stdout_file = stdout_source && !metrics_path.empty() ? log_dir + "/" + metrics_path : std::string();
    // Files delivered with the job (a NeMo config) are read where the job runs: from the run
    // directory's copy of the rendered stage, or from the ConfigMap's mount on Kubernetes.
    ShellWord config_dir = scheduler == catalog::Scheduler::kubernetes
                               ? ShellWord(k_k8s_config_dir)
                               : word_with_var("", k_run_dir_var, "/rendered/" + stage.name);
    const int world_size = nodes * std::max(1, gpus_per_node);
    Facts f{r,       stage,         scheduler,  nodes,     gpus_per_node, tasks_per_node, requests_gpus,
            log_dir, dllogger_file, config_dir, world_size};

    ordered_json c = ordered_json::object();
    c["recipe_name"] = r.name;
    c["stage"] = stage.name;
    c["stage_kind"] = stage.kind;
    c["framework"] = r.framework;
    const bool train = stage.kind == "train";
    c["framework_is"] = {{"nemo", train && r.framework == "nemo"},
                         {"megatron_lm", train && r.framework == "megatron-lm"},
                         {"metaseq", train && r.framework == "metaseq"},
                         {"tinygpt", train && r.framework == "tinygpt"},
                         {"custom", train && r.framework == "custom"},
                         {"command", !train && !slurm_validate && !(slurm_prepare && !prepare_is_custom(stage))},
                         {"validate", slurm_validate},
                         {"prepare_data", slurm_prepare && !prepare_is_custom(stage)}};
    c["scheduler"] = std::string(catalog::to_string(scheduler));
    c["target_name"] = r.target.name;
    c["model_name"] = r.model.name.empty() ? r.model_name : r.model.name;
    c["precision"] = std::string(catalog::to_string(r.precision));
    c["run_id"] = options.run_id;
    std::string prefix = r.slurm.job_name_prefix;
    std::string job_name = prefix + r.name + (stage.name == "train" ? "" : "-" + stage.name) + "-" + options.run_id;
    c["job_name"] = job_name;
    c["nodes"] = nodes;
    c["gpus_per_node"] = gpus_per_node;
    c["total_gpus"] = nodes * gpus_per_node;
    c["requests_gpus"] = requests_gpus;
    c["tasks_per_node"] = tasks_per_node;
    c["total_tasks"] = nodes * tasks_per_node;
    c["one_task_per_gpu"] = per_gpu;
    c["steps"] = r.steps;
    c["log_dir"] = log_dir;
    c["dllogger_file"] = dllogger_file;
    auto parent = [](const std::string& path) { return path.substr(0, path.rfind('/')); };
    c["metrics_dir"] = parent(stdout_file.empty() ? dllogger_file : stdout_file);
    c["stdout_file"] = stdout_file;
    c["has_stdout_file"] = !stdout_file.empty();
    c["status_started"] = "status/" + stage.name + ".started";
    c["status_exit"] = "status/" + stage.name + ".exit";
    c["run_dir_sh"] = ShellWord().var(k_run_dir_var).shell();
    c["needs_workloads"] = stage.kind == "train" && r.framework == "tinygpt";
    c["has_dependency"] = !stage.dependency.empty();
    c["dependency"] = stage.dependency;

    // Slurm directives: recipe values over the target's defaults.
    {
        const catalog::SlurmDefaults& d = r.target.slurm;
        auto pick = [](const std::string& a, const std::string& b) { return a.empty() ? b : a; };
        std::string partition = pick(r.slurm.partition, d.partition);
        std::string account = pick(r.slurm.account, d.account);
        std::string time = pick(r.slurm.time, d.time);
        std::string mem = pick(r.slurm.mem, d.mem);
        int cpus = r.slurm.cpus_per_task > 0 ? r.slurm.cpus_per_task : d.cpus_per_task;
        bool exclusive = r.slurm.exclusive.value_or(d.exclusive);
        bool use_gres = r.slurm.use_gres.value_or(d.use_gres);
        for (const auto& [k, v] :
             std::vector<std::pair<std::string, std::string>>{{"slurm.partition", partition},
                                                              {"slurm.account", account},
                                                              {"slurm.qos", r.slurm.qos},
                                                              {"slurm.time", time},
                                                              {"slurm.mem", mem},
                                                              {"slurm.constraint", r.slurm.constraint},
                                                              {"slurm.network", r.slurm.network},
                                                              {"slurm.job_name_prefix", prefix}})
            check_directive_value(k, v);
        c["slurm"] = {{"partition", partition},
                      {"has_partition", !partition.empty()},
                      {"account", account},
                      {"has_account", !account.empty()},
                      {"qos", r.slurm.qos},
                      {"has_qos", !r.slurm.qos.empty()},
                      {"time", time},
                      {"has_time", !time.empty()},
                      {"mem", mem},
                      {"has_mem", !mem.empty()},
                      {"exclusive", exclusive},
                      {"constraint", r.slurm.constraint},
                      {"has_constraint", !r.slurm.constraint.empty()},
                      {"network", r.slurm.network},
                      {"has_network", !r.slurm.network.empty()},
                      {"cpus_per_task", cpus},
                      {"has_cpus_per_task", cpus > 0},
                      {"gpus_per_node_directive", requests_gpus && !use_gres},
                      {"gres_directive", requests_gpus && use_gres},
                      {"output", log_dir + (slurm_prepare ? "/slurm-%A_%a.out" : "/slurm-%j.out")},
                      {"error", log_dir + (slurm_prepare ? "/slurm-%A_%a.err" : "/slurm-%j.err")}};
    }
    add_stage_context(r, stage, scheduler, gpus_per_node, c);
    add_slurm_knobs(r, stage, c);

    // Container: the recipe's, else the target's runtime; mounts = target defaults + recipe + the run dir.
    std::string runtime = r.container.runtime.empty() ? r.target.container_runtime : r.container.runtime;
    bool slurm_container = (runtime == "pyxis" || runtime == "enroot") && !r.container.image.empty() &&
                           scheduler == catalog::Scheduler::slurm;
    std::vector<std::string> mounts = r.target.default_mounts;
    for (const std::string& m : r.container.mounts)
        if (std::find(mounts.begin(), mounts.end(), m) == mounts.end()) mounts.push_back(m);
    {
        ordered_json mount_list = ordered_json::array();
        for (const std::string& m : mounts) mount_list.push_back(m);
        c["container"] = {{"enabled", slurm_container || (scheduler == catalog::Scheduler::kubernetes)},
                          {"pyxis", slurm_container},
                          {"runtime", runtime},
                          {"image", r.container.image},
                          {"mounts", mount_list},
                          {"mount_home", r.container.mount_home}};
    }

    // Environment: the target's tuning env, the framework's, then the recipe's; a later
    // entry with the same name replaces the value in place.
    catalog::EnvList env = r.target.env;
    auto set_env = [&env](const std::string& name, const std::string& value) {
        auto it = std::find_if(env.begin(), env.end(), [&](const auto& e) { return e.first == name; });
        if (it != env.end())
            it->second = value;
        else
            env.emplace_back(name, value);
    };
    if (stage.kind == "train" && (r.framework == "nemo" || r.framework == "megatron-lm") &&
        (r.parallelism.tensor > 1 || r.parallelism.context > 1 || r.framework == "megatron-lm"))
        set_env("CUDA_DEVICE_MAX_CONNECTIONS", "1");
    if (!r.target.topology_file.empty()) set_env("NCCL_TOPO_FILE", r.target.topology_file);
    for (const auto& [k, v] : r.env) set_env(k, v);
    for (const std::string& name : r.env_unset) std::erase_if(env, [&](const auto& e) { return e.first == name; });
    ordered_json env_list = ordered_json::array();
    ordered_json env_refs = ordered_json::array();
    for (const auto& [name, value] : env) {
        if (!valid_identifier(name))
            throw InputError(fmt::format("environment variable name '{}' is not a valid name", name),
                             "use letters, digits and '_', not starting with a digit");
        std::optional<std::string> ref = env_reference(value);
        if (ref && !valid_identifier(*ref))
            throw InputError(fmt::format("env '{}': '{}' does not name a variable", name, value),
                             "write \"${env:NAME}\" with a valid variable name");
        std::string value_sh =
            ref ? fmt::format("\"${{{}:?{} must be set in the submitting environment}}\"", *ref, *ref)
                : shell_escape(value);
        env_list.push_back({{"name", name},
                            {"value", ref ? std::string() : value},
                            {"is_ref", ref.has_value()},
                            {"ref", ref.value_or("")},
                            {"value_sh", value_sh}});
        if (ref) env_refs.push_back(*ref);
    }
    c["env"] = env_list;
    c["has_env"] = !env_list.empty();
    c["env_refs"] = env_refs;
    c["has_env_refs"] = !env_refs.empty();

    // The launch command.
    FrameworkLaunch launch = stage_program(f);
    const std::vector<ShellWord> program = launch.program;
    const std::vector<ShellWord> launcher = launcher_words(f, r.profiling.nsys && r.framework == "nemo");
    std::vector<ShellWord> runner;  // srun and its flags (Slurm only)
    if (scheduler == catalog::Scheduler::slurm) {
        runner.emplace_back("srun");
        runner.emplace_back("--kill-on-bad-exit=1");
        if (!stdout_file.empty()) runner.emplace_back("--output=" + stdout_file);
        if (slurm_container) {
            runner.emplace_back("--container-image=" + r.container.image);
            ShellWord m("--container-mounts=");
            for (std::size_t i = 0; i < mounts.size(); ++i) m.lit((i ? "," : "") + mounts[i]);
            m.lit(mounts.empty() ? "" : ",").var(k_run_dir_var).lit(":").var(k_run_dir_var);
            runner.push_back(m);
            runner.push_back(word_with_var("--container-workdir=", k_run_dir_var));
            if (!r.container.mount_home) runner.emplace_back("--no-container-mount-home");
            // container.env: these variables keep their host (job) value inside the container.
            if (!r.container.env.empty()) runner.emplace_back("--container-env=" + join(r.container.env, ","));
        }
        for (const std::string& a : r.slurm.srun_args) runner.emplace_back(a);
    }
    {
        // Layout: runner flags one per line, launcher on one line with the program, args one per line.
        std::vector<std::string> runner_t = shell_texts(runner), launcher_t = shell_texts(launcher),
                                 program_t = shell_texts(program);
        ordered_json lines = ordered_json::array();
        std::vector<std::string> texts;
        if (!runner_t.empty()) {
            texts.push_back(runner_t.front());
            for (std::size_t i = 1; i < runner_t.size(); ++i) texts.push_back("  " + runner_t[i]);
        }
        std::vector<std::string> head_words = launcher_t;
        std::vector<std::string> rest;
        if (!program_t.empty()) {
            head_words.push_back(program_t.front());
            rest.assign(program_t.begin() + 1, program_t.end());
        }
        // torchrun's own options: keep flag and value together on one line each.
        std::string indent = texts.empty() ? "" : "  ";
        std::string line;
        for (std::size_t i = 0; i < head_words.size(); ++i) {
            line += (line.empty() ? indent : " ") + head_words[i];
        }
        if (!line.empty()) texts.push_back(line);
        std::string arg_indent = indent + "  ";
        for (std::size_t i = 0; i < rest.size(); ++i) {
            const std::string& w = rest[i];
            bool flag = w.size() > 2 && w[0] == '-' && w[1] == '-' && w.find('=') == std::string::npos;
            std::string l = arg_indent + w;
            while (flag && i + 1 < rest.size() &&
                   !(rest[i + 1].size() > 1 && rest[i + 1][0] == '-' &&
                     !(rest[i + 1][1] >= '0' && rest[i + 1][1] <= '9'))) {
                l += " " + rest[++i];
            }
            texts.push_back(l);
        }
        for (std::size_t i = 0; i < texts.size(); ++i)
            lines.push_back({{"line_sh", i + 1 < texts.size() ? texts[i] + " \\" : texts[i]}});
        c["launch_lines"] = lines;
        ordered_json argv = ordered_json::array();
        for (const auto* part : {&launcher, &program})
            for (const ShellWord& w : *part) argv.push_back(w.plain());
        c["launch_argv"] = argv;
        std::vector<std::string> cmd;
        for (const auto* part : {&launcher, &program}) {
            std::vector<std::string> t = shell_texts(*part);
            cmd.insert(cmd.end(), t.begin(), t.end());
        }
        c["launch_command_sh"] = join(cmd, " ");
    }

    // Files delivered with the job (render() adds them to the stage's files), and the
    // checks the job makes before it starts the framework.
    {
        ordered_json files = ordered_json::array();
        for (const RenderedFile& file : launch.files)
            files.push_back({{"path", file.path.string()}, {"content", file.content}});
        c["delivered_files"] = files;
        c["config_file"] = launch.config_file;
        ordered_json checks = ordered_json::array();
        for (const auto& [module, why] : launch.requires_modules) {
            // On Slurm the check runs in the job's container, on one task.
            std::vector<ShellWord> check;
            for (std::size_t i = 0; i < runner.size(); ++i) {
                check.push_back(runner[i]);
                if (i == 0) {
                    check.emplace_back("--nodes=1");
                    check.emplace_back("--ntasks=1");
                }
            }
            check.emplace_back(r.framework == "tinygpt" ? "/usr/bin/python3" : "python3");
            check.emplace_back("-c");
            check.emplace_back("import " + module);
            std::string message = fmt::format(
                "trainbench: the container image lacks the Python package '{}', which {} needs; use an image "
                "that has it (container.image) or another metrics.source",
                module, why);
            checks.push_back({{"check_sh", join(shell_texts(check), " ") + " >/dev/null 2>&1 || { echo " +
                                               shell_escape(message) + " >&2; exit 3; }"}});
        }
        c["preflight"] = checks;
        c["has_preflight"] = !checks.empty();
    }

    // The programs this stage runs, as their frameworks receive them (checked against the
    // framework profiles by check_launch, printed by `render --argv`).
    {
        ordered_json commands = ordered_json::array();
        auto plain = [](const std::vector<ShellWord>& words) {
            ordered_json out = ordered_json::array();
            for (const ShellWord& w : words) out.push_back(w.plain());
            return out;
        };
        if (stage.kind == "train") {
            commands.push_back({{"program", r.framework},
                                {"version", r.framework_version},
                                {"argv", plain(program)},
                                {"config_file", launch.config_file},
                                {"config_keys", launch.config_keys}});
        } else if (slurm_validate && c["validate"].value("nccl_enabled", false)) {
            for (const auto& test : c["validate"]["tests"]) {
                ordered_json argv = ordered_json::array({test["name"]});
                for (const auto& a : c["validate"]["nccl_args"]) argv.push_back(a);
                commands.push_back({{"program", "nccl-tests"},
                                    {"version", k_nccl_tests_version},
                                    {"argv", argv},
                                    {"config_file", ""},
                                    {"config_keys", ordered_json::array()}});
            }
        } else if (slurm_prepare && c["prepare"].value("preprocess", false) && !prepare_is_custom(stage)) {
            // The NeMo that tokenizes: the container's release (the last YY.MM in the image name:
            // "nemo:24.05", "nemo+24.05.sqsh"), else the recipe's own NeMo.
            std::string image = c["prepare"].value("image", std::string());
            std::string version = r.framework == "nemo" ? r.framework_version : std::string();
            auto digit = [&image](std::size_t i) { return image[i] >= '0' && image[i] <= '9'; };
            for (std::size_t i = 0; i + 5 <= image.size(); ++i)
                if (digit(i) && digit(i + 1) && image[i + 2] == '.' && digit(i + 3) && digit(i + 4) &&
                    (i == 0 || !digit(i - 1)) && (i + 5 == image.size() || !digit(i + 5)))
                    version = image.substr(i, 5);
            commands.push_back({{"program", "nemo-preprocess"},
                                {"version", version},
                                {"argv", c["prepare"]["preprocess_argv"]},
                                {"config_file", ""},
                                {"config_keys", ordered_json::array()}});
        } else if (!program.empty()) {
            commands.push_back({{"program", "command"},
                                {"version", ""},
                                {"argv", plain(program)},
                                {"config_file", ""},
                                {"config_keys", ordered_json::array()}});
        }
        c["commands"] = commands;
    }

    // Local: how many processes the local script starts itself.
    c["local"] = {{"spawn_ranks", stage.kind == "train" && r.framework == "tinygpt"},
                  {"world_size", world_size},
                  {"master_addr", "127.0.0.1"}};

    // Kubernetes.
    {
        const catalog::KubernetesDefaults& kd = r.target.kubernetes;
        std::string ns = r.kubernetes.namespace_name.empty() ? kd.namespace_name : r.kubernetes.namespace_name;
        // Object names keep the recipe name's start (`kubectl get pods | grep gpt3` finds them)
        // and end in the run's short id, so two runs never collide; pod hostnames are
        // "<name>-<index>", so 52 characters leave room for the index.
        const std::string short_id =
            options.run_id.size() > 6 ? options.run_id.substr(options.run_id.size() - 6) : options.run_id;
        const std::string unique = "-" + dns_label(short_id, 16);
        auto object_name = [&](const std::string& stage_name) {
            std::string head = dns_label(r.name + (stage_name == "train" ? "" : "-" + stage_name), 200);
            if (head.size() + unique.size() > 52) head.resize(52 - unique.size());
            while (!head.empty() && head.back() == '-') head.pop_back();
            return head + unique;
        };
        const std::string k8s_name = object_name(stage.name);
        const std::string results_pvc = r.kubernetes.results_pvc.empty() ? kd.results_pvc : r.kubernetes.results_pvc;
        const std::string results_bucket =
            r.kubernetes.results_bucket.empty() ? kd.results_bucket : r.kubernetes.results_bucket;
        if (!results_pvc.empty() && !results_bucket.empty())
            throw InputError(fmt::format("recipe '{}' sets both kubernetes.results_pvc and results_bucket", r.name),
                             "keep the run directory on one of them");
        ordered_json gates = ordered_json::array();
        for (const std::string& g : kd.scheduling_gates) gates.push_back({{"name", g}});
        ordered_json selectors = ordered_json::array();
        std::map<std::string, std::string> node_selector = kd.node_selector;
        for (const auto& [k, v] : r.kubernetes.node_selector) node_selector[k] = v;
        for (const auto& [k, v] : node_selector) selectors.push_back({{"key", k}, {"value", v}});
        ordered_json secrets = ordered_json::array();
        for (const std::string& s : r.kubernetes.image_pull_secrets) secrets.push_back({{"name", s}});
        bool tcpxo = kd.network_stack == "tcpxo";
        c["kubernetes"] = {{"name", k8s_name},
                           {"namespace", ns.empty() ? std::string("default") : ns},
                           {"gpu_resource", kd.gpu_resource},
                           {"shm_size", kd.shm_size},
                           {"host_network", kd.host_network},
                           {"network_stack", kd.network_stack},
                           {"tcpxo", tcpxo},
                           {"tcpxo_plugin_image", tcpxo ? k_tcpxo_plugin_image : ""},
                           {"tcpxo_daemon_image", tcpxo ? k_tcpxo_daemon_image : ""},
                           {"master_addr", k8s_name + "-0." + k8s_name},
                           {"master_port", k_k8s_master_port},
                           {"run_dir", k_k8s_run_dir},
                           {"queue", r.kubernetes.queue},
                           {"has_queue", !r.kubernetes.queue.empty()},
                           {"service_account", r.kubernetes.service_account},
                           {"has_service_account", !r.kubernetes.service_account.empty()},
                           {"image_pull_secrets", secrets},
                           {"has_image_pull_secrets", !secrets.empty()},
                           {"node_selector", selectors},
                           {"has_node_selector", !selectors.empty()},
                           {"scheduling_gates", gates},
                           {"has_scheduling_gates", !gates.empty()},
                           {"results_pvc", results_pvc},
                           {"results_bucket", results_bucket},
                           {"has_results_pvc", !results_pvc.empty()},
                           {"has_results_bucket", !results_bucket.empty()},
                           {"results_emptydir", results_pvc.empty() && results_bucket.empty()},
                           {"results_subpath", "trainbench-runs/" + dns_label(r.name, 200) + "/" + options.run_id},
                           {"secret_name", k8s_name + "-env"},
                           {"chart_name", dns_label("trainbench-" + r.name, 53)},
                           {"chart_description",
                            fmt::format("{} ({} on {}), rendered by trainbench", r.name, r.framework, r.target.name)},
                           {"launch_script_yaml", ""},
                           {"training_config_yaml", ""},
                           {"config_files", ordered_json::array()}};
        add_kubernetes_stage(r, stage, object_name, c);
        if (scheduler == catalog::Scheduler::kubernetes && r.container.image.empty())
            throw InputError(fmt::format("recipe '{}' runs on Kubernetes but sets no container.image", r.name),
                             "set container: {image: ...}");
    }
    return c;
}

}  // namespace trainbench::render
