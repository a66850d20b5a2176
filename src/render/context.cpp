// build_context: every decision about a job, taken once in C++ so templates
// only place values (docs/templates.md lists each key).
#include "render/escape.hpp"
#include "render/frameworks/framework.hpp"
#include "render/kubernetes_context.hpp"
#include "render/launch_context.hpp"
#include "render/shell_word.hpp"
#include "render/slurm_knobs.hpp"
#include "render/stage_context.hpp"

#include <trainbench/render.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

using nlohmann::ordered_json;

namespace trainbench::render {

namespace {

// ---------------------------------------------------------------- constants
constexpr const char* k_k8s_config_dir = "/etc/trainbench";  // the ConfigMap's mount

// The framework a train stage runs (an unknown name cannot be rendered); null for other stages.
const Framework* stage_framework(const recipe::Recipe& r, const recipe::Stage& stage) {
    if (stage.kind != "train") return nullptr;
    const Framework* fw = find_framework(r.framework, r.framework_version);
    if (!fw)
        throw InputError(fmt::format("framework '{}' cannot be rendered", r.framework),
                         did_you_mean(r.framework, framework_names()));
    return fw;
}

void check_directive_value(const std::string& key, const std::string& value) {
    if (has_control_char(value))
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
        "kubernetes.network_env.line_sh",
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
        "validate.k8s_ssh_port",
        "validate.k8s_rsh_args_sh",
        "validate.k8s_mpirun_sh",
        "validate.k8s_dcgm_remote_sh",
        "validate.k8s_sshd_sh",
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

// Names that become job names, directories and shell words must be plain words.
void check_plain_names(const recipe::Recipe& r, const recipe::Stage& stage, const RenderOptions& options) {
    if (r.name.empty() || !std::all_of(r.name.begin(), r.name.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        }))
        throw InputError(fmt::format("recipe name '{}' cannot name a job: use [a-z0-9._-]", r.name));
    if (stage.name.empty() || !std::all_of(stage.name.begin(), stage.name.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
        }))
        throw InputError(fmt::format("stage name '{}' cannot name a log directory: use [a-z0-9_-]", stage.name));
    if (has_control_char(options.run_id) || options.run_id.find('/') != std::string::npos)
        throw InputError(fmt::format("run id '{}' is not a plain word", options.run_id));
    // recipe::validate_recipe reports this with its location; a recipe rendered unvalidated stops here.
    if (std::string problem = recipe::metrics_path_problem(r.metrics.path); !problem.empty()) throw InputError(problem);
}

StageShape stage_shape(const recipe::Recipe& r, const recipe::Stage& stage, const Framework* fw) {
    StageShape s;
    s.slurm_validate = r.target.scheduler == catalog::Scheduler::slurm && stage.kind == "validate";
    s.k8s_validate =
        r.target.scheduler == catalog::Scheduler::kubernetes && stage.kind == "validate" && !stage_has_command(stage);
    s.slurm_prepare = r.target.scheduler == catalog::Scheduler::slurm && stage.kind == "prepare-data";
    // Started once per GPU by the scheduler (srun tasks, or our own rank loop locally)
    // rather than once per node by torchrun.
    s.per_gpu = stage.kind != "train" || (fw != nullptr && fw->one_task_per_gpu);
    // Frameworks that log to standard output (Megatron, Metaseq) write it to
    // logs/<stage>/<metrics.path> when the recipe names a file for that source.
    const catalog::LogFormat* format = catalog::find_log_format(r.metrics.source);
    if (format && format->stdout_log && !r.metrics.path.empty())
        s.stdout_file = "logs/" + stage.name + "/" + r.metrics.path;
    return s;
}

// Nodes, tasks and GPUs of the job, and where its files are: what the framework renders from.
Facts job_facts(const recipe::Recipe& r, const recipe::Stage& stage, const StageShape& s) {
    const catalog::Scheduler scheduler = r.target.scheduler;
    const int gpus_per_node = r.gpus_per_node_effective();
    // Validation covers options.nodes (default the recipe's); each data-preparation array task is one node.
    // On Kubernetes too, validation spans options.nodes.
    const bool k8s_validate = scheduler == catalog::Scheduler::kubernetes && stage.kind == "validate";
    const int nodes = s.slurm_validate || k8s_validate ? std::max(1, recipe::validate_options(r, stage).nodes)
                                                       : (s.slurm_prepare ? 1 : std::max(1, r.nodes));
    const bool requests_gpus = r.gpu.family != "cpu" && gpus_per_node > 0 && !s.slurm_prepare;
    const int tasks_per_node = s.slurm_prepare ? 1 : (s.per_gpu ? std::max(1, gpus_per_node) : 1);
    const std::string log_dir = "logs/" + stage.name;
    // Where the framework's metrics log goes: logs/<stage>/<metrics.path> when the
    // recipe names one (relative to the stage's log directory), else the default.
    const bool dllogger_source = r.metrics.source == "dllogger" || r.metrics.source == "auto";
    std::string dllogger_file =
        log_dir + "/" + (dllogger_source && !r.metrics.path.empty() ? r.metrics.path : "dllogger.json");
    // Files delivered with the job (a NeMo config) are read where the job runs: from the run
    // directory's copy of the rendered stage, or from the ConfigMap's mount on Kubernetes.
    ShellWord config_dir = scheduler == catalog::Scheduler::kubernetes
                               ? ShellWord(k_k8s_config_dir)
                               : word_with_var("", k_run_dir_var, "/rendered/" + stage.name);
    const int world_size = nodes * std::max(1, gpus_per_node);
    return Facts{r,       stage,         scheduler,  nodes,     gpus_per_node, tasks_per_node, requests_gpus,
                 log_dir, dllogger_file, config_dir, world_size};
}

// framework_is: which partial the templates include (one key per framework, then the stage kinds).
ordered_json framework_is(const Facts& f, const StageShape& s) {
    const bool train = f.stage.kind == "train";
    const bool prepare_data = s.slurm_prepare && !prepare_is_custom(f.stage);
    ordered_json is = ordered_json::object();
    for (const std::string& key : framework_template_keys()) is[key] = false;
    if (const Framework* fw = find_framework(f.r.framework, f.r.framework_version); fw && train)
        is[std::string(fw->template_key)] = true;
    is["command"] = !train && !s.slurm_validate && !s.k8s_validate && !prepare_data;
    is["validate"] = s.slurm_validate;
    is["validate_k8s"] = s.k8s_validate;
    is["prepare_data"] = prepare_data;
    return is;
}

// The job's identity, sizes and files.
void add_job(const Facts& f, const StageShape& s, const Framework* fw, const RenderOptions& options, ordered_json& c) {
    const recipe::Recipe& r = f.r;
    c["recipe_name"] = r.name;
    c["stage"] = f.stage.name;
    c["stage_kind"] = f.stage.kind;
    c["framework"] = r.framework;
    c["framework_is"] = framework_is(f, s);
    c["scheduler"] = std::string(catalog::to_string(f.scheduler));
    c["target_name"] = r.target.name;
    c["model_name"] = r.model.name.empty() ? r.model_name : r.model.name;
    c["precision"] = std::string(catalog::to_string(r.precision));
    c["run_id"] = options.run_id;
    c["job_name"] =
        r.slurm.job_name_prefix + r.name + (f.stage.name == "train" ? "" : "-" + f.stage.name) + "-" + options.run_id;
    c["nodes"] = f.nodes;
    c["gpus_per_node"] = f.gpus_per_node;
    c["total_gpus"] = f.nodes * f.gpus_per_node;
    c["requests_gpus"] = f.requests_gpus;
    c["tasks_per_node"] = f.tasks_per_node;
    c["total_tasks"] = f.nodes * f.tasks_per_node;
    c["one_task_per_gpu"] = s.per_gpu;
    c["steps"] = r.steps;
    c["log_dir"] = f.log_dir;
    c["dllogger_file"] = f.dllogger_file;
    const std::string& metrics_file = s.stdout_file.empty() ? f.dllogger_file : s.stdout_file;
    c["metrics_dir"] = metrics_file.substr(0, metrics_file.rfind('/'));
    c["stdout_file"] = s.stdout_file;
    c["has_stdout_file"] = !s.stdout_file.empty();
    c["status_started"] = "status/" + f.stage.name + ".started";
    c["status_exit"] = "status/" + f.stage.name + ".exit";
    c["run_dir_sh"] = ShellWord().var(k_run_dir_var).shell();
    c["needs_workloads"] = fw != nullptr && fw->own_rank_loop;
    c["has_dependency"] = !f.stage.dependency.empty();
    c["dependency"] = f.stage.dependency;
}

// Slurm directives: recipe values over the target's defaults.
ordered_json slurm_directives(const Facts& f, const StageShape& s) {
    const recipe::Recipe& r = f.r;
    const catalog::SlurmDefaults& d = r.target.slurm;
    auto pick = [](const std::string& a, const std::string& b) { return a.empty() ? b : a; };
    std::string partition = pick(r.slurm.partition, d.partition);
    std::string account = pick(r.slurm.account, d.account);
    std::string time = pick(r.slurm.time, d.time);
    std::string mem = pick(r.slurm.mem, d.mem);
    int cpus = r.slurm.cpus_per_task > 0 ? r.slurm.cpus_per_task : d.cpus_per_task;
    bool exclusive = r.slurm.exclusive.value_or(d.exclusive);
    bool use_gres = r.slurm.use_gres.value_or(d.use_gres);
    // NVLink-domain segments (topology/block) for a job over the recipe's nodes; a
    // data-preparation array or a validation over other nodes has none.
    const int segment = !s.slurm_prepare && f.nodes == r.nodes ? recipe::slurm_segment(r) : 0;
    for (const auto& [k, v] :
         std::vector<std::pair<std::string, std::string>>{{"slurm.partition", partition},
                                                          {"slurm.account", account},
                                                          {"slurm.qos", r.slurm.qos},
                                                          {"slurm.time", time},
                                                          {"slurm.mem", mem},
                                                          {"slurm.constraint", r.slurm.constraint},
                                                          {"slurm.network", r.slurm.network},
                                                          {"slurm.job_name_prefix", r.slurm.job_name_prefix}})
        check_directive_value(k, v);
    return {{"partition", partition},
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
            {"segment", segment},
            {"has_segment", segment > 0},
            {"cpus_per_task", cpus},
            {"has_cpus_per_task", cpus > 0},
            {"gpus_per_node_directive", f.requests_gpus && !use_gres},
            {"gres_directive", f.requests_gpus && use_gres},
            {"output", f.log_dir + (s.slurm_prepare ? "/slurm-%A_%a.out" : "/slurm-%j.out")},
            {"error", f.log_dir + (s.slurm_prepare ? "/slurm-%A_%a.err" : "/slurm-%j.err")}};
}

ContainerPlan container_plan(const recipe::Recipe& r) {
    ContainerPlan p;
    p.runtime = r.container.runtime.empty() ? r.target.container_runtime : r.container.runtime;
    p.pyxis = (p.runtime == "pyxis" || p.runtime == "enroot") && !r.container.image.empty() &&
              r.target.scheduler == catalog::Scheduler::slurm;
    p.mounts = r.target.default_mounts;
    for (const std::string& m : r.container.mounts)
        if (std::find(p.mounts.begin(), p.mounts.end(), m) == p.mounts.end()) p.mounts.push_back(m);
    return p;
}

ordered_json container_json(const recipe::Recipe& r, const ContainerPlan& p) {
    ordered_json mount_list = ordered_json::array();
    for (const std::string& m : p.mounts) mount_list.push_back(m);
    return {{"enabled", p.pyxis || (r.target.scheduler == catalog::Scheduler::kubernetes)},
            {"pyxis", p.pyxis},
            {"runtime", p.runtime},
            {"image", r.container.image},
            {"mounts", mount_list},
            {"mount_home", r.container.mount_home}};
}

// Environment: the target's tuning env, the framework's, then the recipe's; a later
// entry with the same name replaces the value in place.
catalog::EnvList job_env(const recipe::Recipe& r, const Framework* fw) {
    catalog::EnvList env = r.target.env;
    auto set_env = [&env](const std::string& name, const std::string& value) {
        auto it = std::find_if(env.begin(), env.end(), [&](const auto& e) { return e.first == name; });
        if (it != env.end())
            it->second = value;
        else
            env.emplace_back(name, value);
    };
    if (fw && fw->env)
        for (const auto& [k, v] : fw->env(r)) set_env(k, v);
    if (!r.target.topology_file.empty()) set_env("NCCL_TOPO_FILE", r.target.topology_file);
    for (const auto& [k, v] : r.env) set_env(k, v);
    for (const std::string& name : r.env_unset) std::erase_if(env, [&](const auto& e) { return e.first == name; });
    return env;
}

// env, env_refs: each variable with its shell text; `${env:NAME}` values come from the
// submitting environment and are never written to disk.
void add_env(const catalog::EnvList& env, ordered_json& c) {
    ordered_json env_list = ordered_json::array();
    ordered_json env_refs = ordered_json::array();
    for (const auto& [name, value] : env) {
        if (!is_variable_name(name))
            throw InputError(fmt::format("environment variable name '{}' is not a valid name", name),
                             "use letters, digits and '_', not starting with a digit");
        std::optional<std::string> ref = recipe::env_reference(value);
        if (ref && !is_variable_name(*ref))
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
}

}  // namespace

// Every decision about one stage's job, in the order the context lists them.
ordered_json build_context(const recipe::Recipe& recipe_in, const RenderOptions& options, const recipe::Stage& stage) {
    // 1. The recipe as this stage sees it: data.kind "prepared" reads the prepare-data stage's output.
    std::optional<recipe::Recipe> with_data;
    if (recipe_in.data.kind == "prepared") {
        with_data = recipe_in;
        with_data->data = recipe::effective_data(recipe_in);
    }
    const recipe::Recipe& r = with_data ? *with_data : recipe_in;
    // 2. Names that become job names, paths and shell words are plain.
    check_plain_names(r, stage, options);
    // 3. The job's shape (nodes, tasks, log files) and its framework (train stages).
    const Framework* fw = stage_framework(r, stage);
    const StageShape shape = stage_shape(r, stage, fw);
    const Facts f = job_facts(r, stage, shape);
    // 4. Identity, sizes, files; the scheduler's directives; the stage kind's own values.
    ordered_json c = ordered_json::object();
    add_job(f, shape, fw, options, c);
    c["slurm"] = slurm_directives(f, shape);
    add_stage_context(r, stage, f.scheduler, f.gpus_per_node, c);
    add_slurm_knobs(r, stage, c);
    // 5. Container and environment.
    const ContainerPlan container = container_plan(r);
    c["container"] = container_json(r, container);
    add_env(job_env(r, fw), c);
    // 6. The launch command: srun, launcher, the framework's program; files it needs and checks before it.
    const FrameworkLaunch launch = stage_program(f, fw);
    const std::vector<ShellWord> runner = runner_words(f, shape, container);
    const std::vector<ShellWord> launcher = launcher_words(f, fw, r.profiling.nsys && fw && fw->nsys);
    add_launch(runner, launcher, launch.program, c);
    add_delivered_files_and_preflight(launch, runner, fw, c);
    c["commands"] = stage_commands(f, shape, launch, c);
    // 7. Local: how many processes the local script starts itself; Kubernetes objects.
    // (the shipped workload on GPUs: torchrun starts them, see gpu_workload_launcher)
    c["local"] = {{"spawn_ranks", fw != nullptr && fw->own_rank_loop && !f.requests_gpus},
                  {"world_size", f.world_size},
                  {"master_addr", "127.0.0.1"}};
    c["kubernetes"] = kubernetes_json(r, stage, options.run_id);
    // A stage's own image (validate: nccl.build.image; prepare-data: image) on Kubernetes.
    if (const std::string image = kubernetes_stage_image(r, stage); !image.empty()) c["container"]["image"] = image;
    return c;
}

}  // namespace trainbench::render
