// The one submit path: `submit`, `run` and every point of a sweep go through
// submit_recipe, so secrets, the run id in the rendered files and the journal
// of a failed render are the same for all three.
#include <trainbench/backend.hpp>
#include <trainbench/pipeline.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>

namespace fs = std::filesystem;

namespace trainbench::pipeline {

std::map<std::string, std::string> submit_secrets(const recipe::Recipe& r) {
    catalog::EnvList all_env = r.target.env;
    all_env.insert(all_env.end(), r.env.begin(), r.env.end());
    for (const std::string& name : r.env_unset) std::erase_if(all_env, [&](const auto& e) { return e.first == name; });
    return run::secret_environment(all_env);
}

namespace {

run::RunMetadata run_metadata(const recipe::Recipe& r, const SubmitRequest& request) {
    run::RunMetadata meta;
    meta.recipe_name = r.name;
    meta.recipe_file = request.recipe_file;
    meta.target = r.target_name.empty() ? r.target.name : r.target_name;
    meta.backend = std::string(catalog::to_string(r.target.scheduler));
    if (r.target.scheduler == catalog::Scheduler::kubernetes) {
        meta.kube_context = request.kube_context;
        meta.kube_namespace = !request.kube_namespace.empty() ? request.kube_namespace : r.kubernetes.namespace_name;
    }
    meta.resolved_yaml = recipe::to_yaml(r);
    return meta;
}

// Warns when a Slurm recipe's run store is on a node-local file system.
void check_store_is_shared(const Services& services, const recipe::Recipe& r, const SubmitRequest& request) {
    if (r.target.scheduler != catalog::Scheduler::slurm || !request.on_warning) return;
    run::StoreFilesystem store_fs = run::store_filesystem(services.runs_root);
    if (store_fs.shared) return;
    request.on_warning(fmt::format(
        "the run store '{}' is on a node-local file system ({}): the {}-node job changes into its run directory "
        "on the compute nodes, which cannot see it there; put the store on a shared file system (NFS, Lustre, "
        "GPFS, ...) with --runs DIR or TRAINBENCH_RUNS",
        services.runs_root.string(), store_fs.type, r.nodes));
}

// Renders with the run's directory and id and writes the files into the run; a failure is
// journaled ("render failed: ...") before it is thrown, so the run says why it has no job.
std::vector<render::RenderedJob> render_into_run(const Services& services, const recipe::Recipe& r,
                                                 const SubmitRequest& request, run::RunInfo& info,
                                                 const std::vector<run::StageReuse>& reused, run::SubmitOptions& so) {
    try {
        render::RenderOptions ro;
        ro.template_dirs = services.dirs.templates;
        ro.run_dir = info.dir.string();
        ro.run_id = info.run_id;
        ro.stage = request.stage;
        std::vector<render::RenderedJob> jobs = render::render(r, ro);
        if (jobs.empty())
            throw InputError(request.stage.empty() ? "the recipe renders no stage"
                                                   : fmt::format("no stage '{}' in the recipe", request.stage));
        if (!request.stage.empty()) jobs.front().dependency.clear();  // one stage on its own
        jobs = run::apply_reuse(info, jobs, reused, so);
        run::write_rendered(info, jobs);
        return jobs;
    } catch (const Error& e) {
        nlohmann::ordered_json ev;
        ev["event"] = "finished";
        ev["state"] = "FAILED";
        ev["detail"] = fmt::format("render failed: {}", e.what());
        run::append_event(info.dir, ev);
        throw;
    }
}

// A recipe on a local target with real GPUs needs them on this machine: checked before the
// run exists, so a machine without them fails at once and leaves nothing behind.
// TRAINBENCH_LOCAL_GPUS=N states the count where the device nodes are not in /dev.
void check_local_gpus(const recipe::Recipe& r) {
    if (r.target.scheduler != catalog::Scheduler::local || r.gpu.family == "cpu") return;
    const int wanted = std::max(1, r.gpus_per_node_effective());
    backend::LocalGpus gpus = backend::probe_local_gpus();
    if (const char* stated = std::getenv("TRAINBENCH_LOCAL_GPUS"); stated != nullptr && *stated != '\0') {
        char* end = nullptr;
        const long n = std::strtol(stated, &end, 10);
        if (*end != '\0' || n < 0 || n > 1024)
            throw UsageError(fmt::format("TRAINBENCH_LOCAL_GPUS='{}' is not a number of GPUs", stated),
                             "unset it, or give a count such as 8");
        gpus.count = static_cast<int>(n);
        gpus.evidence = fmt::format("TRAINBENCH_LOCAL_GPUS={}", n);
    }
    if (gpus.count >= wanted) return;
    const std::string target = r.target_name.empty() ? r.target.name : r.target_name;
    std::string seen = gpus.count == 0 ? "no NVIDIA GPU" : fmt::format("{} NVIDIA GPU(s)", gpus.count);
    if (!gpus.names.empty()) seen += fmt::format(" ({})", quoted_list(gpus.names, " and "));
    throw RuntimeError(
        fmt::format("recipe '{}' runs on {} NVIDIA GPU(s) of this machine (target '{}', GPU '{}'), and this "
                    "machine has {}: {}",
                    r.name, wanted, target, r.gpu.name, seen, gpus.evidence),
        gpus.count == 0 ? "run it on a machine with an NVIDIA GPU and its driver (the device nodes /dev/nvidia<N> "
                          "in this container); recipes/local/tinygpt.yaml is the workload on this CPU"
                        : "lower gpus_per_node (-s gpus_per_node=N, with a global batch that it divides)");
}

}  // namespace

run::RunInfo submit_recipe(const Services& services, const recipe::Recipe& r, const SubmitRequest& request) {
    // 1. The GPUs of a local GPU target, then the secrets: nothing is created when one is missing.
    check_local_gpus(r);
    std::map<std::string, std::string> secrets = submit_secrets(r);
    // 2. The stages an earlier run already did (a validated cluster, prepared data).
    check_store_is_shared(services, r, request);
    ProcessRunner& runner = services.processes();
    std::vector<run::StageReuse> reused;
    if (request.stage.empty()) {
        std::vector<std::string> notes;
        reused = run::plan_reuse(services.runs_root, r, request.reuse, run::default_backend_provider(), runner, notes);
        if (request.on_note)
            for (const std::string& n : notes) request.on_note(n);
    }
    // 3. A fresh run directory; the caller records it before anything is submitted.
    run::RunInfo info = run::RunStore(services.runs_root).create(run_metadata(r, request), runner);
    try {
        if (request.on_created) request.on_created(info);
    } catch (const Error& e) {
        run::discard_run(info.dir, e.what());
        throw;
    }
    // 4. Render with the run's id and directory, into the run.
    run::SubmitOptions so;
    std::vector<render::RenderedJob> jobs = render_into_run(services, r, request, info, reused, so);
    // 5. Submit the stages in order, with their dependencies and the secrets in their environment only.
    so.job_name_prefix = r.slurm.job_name_prefix;
    so.workloads = services.dirs.workloads;
    so.secrets = std::move(secrets);
    if (request.on_reused) request.on_reused(reused);
    run::submit_stages(info, jobs, run::default_backend_provider(), runner, so);
    // 6. Later runs may reuse what this one's shared stages do.
    run::record_shared_stages(services.runs_root, r, info);
    return info;
}

}  // namespace trainbench::pipeline
