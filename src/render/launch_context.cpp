// The launch command of a stage's job: the scheduler's runner (srun), the launcher (python,
// torchrun, nsys) and the program; its lines as the templates place them, the files delivered
// with it, the checks before it and the programs it runs (`render --argv`).
#include "render/launch_context.hpp"

#include "render/escape.hpp"
#include "render/frameworks/framework.hpp"
#include "render/shell_word.hpp"
#include "render/stage_context.hpp"

#include <trainbench/render.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

using nlohmann::ordered_json;

namespace trainbench::render {

namespace {

// The command a stage other than train runs: its options.command, nccl-tests for
// validate, else a command that fails at once and says why.
std::vector<ShellWord> stage_command(const recipe::Stage& stage, const std::string& gpus_per_rank) {
    std::vector<ShellWord> w;
    if (stage_has_command(stage)) {
        for (const auto& word : stage.options["command"])
            w.emplace_back(word.is_string() ? word.get<std::string>() : word.dump());
        return w;
    }
    if (stage.kind == "validate") {
        // nccl-tests over the allocation (the seeds' cluster validation), from options.nccl.
        ordered_json nccl =
            stage.options.is_object() && stage.options.contains("nccl") && stage.options["nccl"].is_object()
                ? stage.options["nccl"]
                : ordered_json::object();
        auto text = [&nccl](const char* key, const std::string& fallback) {
            if (!nccl.contains(key)) return fallback;
            const ordered_json& v = nccl[key];
            return v.is_string() ? v.get<std::string>() : v.dump();
        };
        w.emplace_back(text("test", "all_reduce_perf"));
        for (const auto& [flag, key, fallback] :
             std::vector<std::tuple<std::string, const char*, std::string>>{{"-b", "min_bytes", "8"},
                                                                            {"-e", "max_bytes", "8G"},
                                                                            {"-f", "step_factor", "2"},
                                                                            {"-g", "gpus_per_rank", gpus_per_rank}}) {
            w.emplace_back(flag);
            w.emplace_back(text(key, fallback));
        }
        return w;
    }
    // A stage kind whose schema is not defined yet and that names no command:
    // the job fails at once and says so (it never runs something unintended).
    for (const char* word : {"sh", "-c", "echo \"trainbench: $1\" >&2; exit 2", "trainbench"}) w.emplace_back(word);
    w.emplace_back(
        fmt::format("stage '{}' (kind '{}') has no command: set its options.command", stage.name, stage.kind));
    return w;
}

// "nsys profile ... -o <report>": profiling.nsys around the launcher.
void append_nsys(std::vector<ShellWord>& w, ShellWord report) {
    for (const char* word : {"nsys", "profile", "-s", "none", "-t", "nvtx,cuda", "--capture-range=cudaProfilerApi",
                             "--capture-range-end=stop", "--force-overwrite", "true", "-o"})
        w.emplace_back(word);
    w.push_back(std::move(report));
}

// One torchrun per pod (seed 004), under nsys when profiling (as on Slurm): the
// report goes to the run directory, which the target keeps on a PVC or bucket.
std::vector<ShellWord> kubernetes_torchrun(const Facts& f, bool nsys) {
    std::vector<ShellWord> w;
    if (nsys) append_nsys(w, run_path(f.log_dir + "/nsys-node").var("NODE_RANK"));
    w.emplace_back("torchrun");
    w.push_back(word_with_var("--nproc-per-node=", "GPUS_PER_NODE"));
    w.push_back(word_with_var("--nnodes=", "NNODES"));
    w.push_back(word_with_var("--node-rank=", "NODE_RANK"));
    w.push_back(word_with_var("--rdzv-id=", "JOB_IDENTIFIER"));
    w.push_back(word_with_var("--master-addr=", "MASTER_ADDR"));
    w.push_back(word_with_var("--master-port=", "MASTER_PORT"));
    return w;
}

// Seed 002: one task per node, torchrun starts the GPU ranks.
std::vector<ShellWord> torchrun_per_node(const Facts& f) {
    std::vector<ShellWord> w;
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

// The shipped workload on GPUs: `python3` from PATH (the interpreter whose PyTorch has CUDA,
// not the system's CPU one); locally with several GPUs, torchrun (torch.distributed.run)
// starts one rank per GPU. Under Slurm srun starts the ranks (one task per GPU).
std::vector<ShellWord> gpu_workload_launcher(const Facts& f) {
    std::vector<ShellWord> w;
    w.emplace_back("python3");
    w.emplace_back("-u");
    if (f.scheduler == catalog::Scheduler::local && f.gpus_per_node > 1) {
        for (const char* word : {"-m", "torch.distributed.run", "--standalone", "--nnodes=1"}) w.emplace_back(word);
        w.emplace_back("--nproc-per-node=" + std::to_string(f.gpus_per_node));
    }
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

// Layout: runner flags one per line, launcher on one line with the program, args one per
// line (a flag keeps its values on its line).
std::vector<std::string> launch_line_texts(const std::vector<std::string>& runner_t,
                                           const std::vector<std::string>& launcher_t,
                                           const std::vector<std::string>& program_t) {
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
    for (std::size_t i = 0; i < head_words.size(); ++i) line += (line.empty() ? indent : " ") + head_words[i];
    if (!line.empty()) texts.push_back(line);
    std::string arg_indent = indent + "  ";
    for (std::size_t i = 0; i < rest.size(); ++i) {
        const std::string& w = rest[i];
        bool flag = w.size() > 2 && w[0] == '-' && w[1] == '-' && w.find('=') == std::string::npos;
        std::string l = arg_indent + w;
        // a flag keeps its values; an option or a config override (key=value) starts a line
        auto starts_line = [](const std::string& n) {
            bool option = n.size() > 1 && n[0] == '-' && !(n[1] >= '0' && n[1] <= '9');
            return option || (!n.empty() && n[0] != '-' && n.find('=') != std::string::npos);
        };
        while (flag && i + 1 < rest.size() && !starts_line(rest[i + 1])) l += " " + rest[++i];
        texts.push_back(l);
    }
    return texts;
}

ordered_json command_json(const std::string& program, const std::string& version, ordered_json argv,
                          const std::string& config_file = {}, const std::vector<std::string>& config_keys = {},
                          const ordered_json& config_values = ordered_json::object()) {
    ordered_json out = {{"program", program},
                        {"version", version},
                        {"argv", std::move(argv)},
                        {"config_file", config_file},
                        {"config_keys", ordered_json(config_keys)}};
    if (!config_values.empty()) out["config_values"] = config_values;
    return out;
}

}  // namespace

// Whether the stage names its own command (options.command), which replaces what its kind runs.
bool stage_has_command(const recipe::Stage& stage) {
    return stage.options.is_object() && stage.options.contains("command") && stage.options["command"].is_array();
}

// The program a stage runs and what goes with it (no launcher prefix).
FrameworkLaunch stage_program(const Facts& f, const Framework* fw) {
    if (!fw) {
        FrameworkLaunch out;
        // On Kubernetes each pod runs one process: over all of its node's GPUs (-g).
        out.program = stage_command(f.stage, f.scheduler == catalog::Scheduler::kubernetes
                                                 ? std::to_string(std::max(1, f.gpus_per_node))
                                                 : std::string("1"));
        return out;
    }
    return fw->launch(f);
}

// The interpreter/launcher words before the program, per scheduler (none for a
// stage's own command or a program that is not Python).
std::vector<ShellWord> launcher_words(const Facts& f, const Framework* fw, bool nsys) {
    if (!fw || fw->python.empty()) return {};
    if (fw->own_rank_loop && f.requests_gpus) return gpu_workload_launcher(f);
    if (f.scheduler == catalog::Scheduler::kubernetes && fw->torchrun_on_kubernetes)
        return kubernetes_torchrun(f, nsys);
    if (fw->torchrun_per_node) return torchrun_per_node(f);
    std::vector<ShellWord> w;
    if (nsys) append_nsys(w, run_path(f.log_dir + "/nsys-%p"));
    w.emplace_back(std::string(fw->python));
    w.emplace_back("-u");
    return w;
}

// srun and its flags (Slurm only): output file, Pyxis container, the recipe's srun arguments.
std::vector<ShellWord> runner_words(const Facts& f, const StageShape& s, const ContainerPlan& container) {
    const recipe::Recipe& r = f.r;
    std::vector<ShellWord> runner;
    if (f.scheduler != catalog::Scheduler::slurm) return runner;
    runner.emplace_back("srun");
    runner.emplace_back("--kill-on-bad-exit=1");
    if (!s.stdout_file.empty()) runner.emplace_back("--output=" + s.stdout_file);
    if (container.pyxis) {
        runner.emplace_back("--container-image=" + r.container.image);
        ShellWord m("--container-mounts=");
        for (std::size_t i = 0; i < container.mounts.size(); ++i) m.lit((i ? "," : "") + container.mounts[i]);
        m.lit(container.mounts.empty() ? "" : ",").var(k_run_dir_var).lit(":").var(k_run_dir_var);
        runner.push_back(m);
        runner.push_back(word_with_var("--container-workdir=", k_run_dir_var));
        if (!r.container.mount_home) runner.emplace_back("--no-container-mount-home");
        // container.env: these variables keep their host (job) value inside the container.
        if (!r.container.env.empty()) runner.emplace_back("--container-env=" + join(r.container.env, ","));
    }
    for (const std::string& a : r.slurm.srun_args) runner.emplace_back(a);
    return runner;
}

// launch_lines, launch_argv, launch_command_sh: the command as the templates place it.
void add_launch(const std::vector<ShellWord>& runner, const std::vector<ShellWord>& launcher,
                const std::vector<ShellWord>& program, ordered_json& c) {
    std::vector<std::string> texts =
        launch_line_texts(shell_texts(runner), shell_texts(launcher), shell_texts(program));
    ordered_json lines = ordered_json::array();
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
void add_delivered_files_and_preflight(const FrameworkLaunch& launch, const std::vector<ShellWord>& runner,
                                       const Framework* fw, ordered_json& c) {
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
        check.emplace_back(fw && !fw->python.empty() ? std::string(fw->python) : std::string("python3"));
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
ordered_json stage_commands(const Facts& f, const StageShape& s, const FrameworkLaunch& launch, const ordered_json& c) {
    const recipe::Recipe& r = f.r;
    ordered_json commands = ordered_json::array();
    if (f.stage.kind == "train") {
        commands.push_back(command_json(r.framework, r.framework_version, plain_words(launch.program),
                                        launch.config_file, launch.config_keys, launch.config_values));
    } else if ((s.slurm_validate || s.k8s_validate) && c.at("validate").value("nccl_enabled", false)) {
        for (ordered_json& command : nccl_tests_commands(c.at("validate"))) commands.push_back(std::move(command));
    } else if (s.slurm_prepare && c.at("prepare").value("preprocess", false) && !prepare_is_custom(f.stage)) {
        const ordered_json& prepare = c.at("prepare");
        // (not prepare.value("image", ...): GCC 12 reports a false -Wnull-dereference in its inlined body)
        const auto image = prepare.find("image");
        const std::string& image_name =
            image != prepare.end() && image->is_string() ? image->get_ref<const std::string&>() : std::string();
        commands.push_back(
            command_json("nemo-preprocess", nemo_preprocess_version(r, image_name), prepare.at("preprocess_argv")));
    } else if (!launch.program.empty()) {
        commands.push_back(command_json("command", "", plain_words(launch.program)));
    }
    return commands;
}

}  // namespace trainbench::render
