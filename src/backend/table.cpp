// The backend table: the one list of backends and the factory that picks one by name.
// To add a backend: its file with a make_<name>_backend factory, and one row here (a field
// left out is false).
#include <trainbench/backend.hpp>
#include <trainbench/core.hpp>

#include <fmt/format.h>

#include <memory>

namespace trainbench::backend {

std::unique_ptr<Backend> make_slurm_backend(const BackendOptions& options);
std::unique_ptr<Backend> make_kubernetes_backend(const BackendOptions& options);
std::unique_ptr<Backend> make_local_backend(const BackendOptions& options);

const std::vector<BackendInfo>& backend_table() {
    static const std::vector<BackendInfo> table = {
        {.name = "slurm",
         .description = "sbatch/squeue/scontrol/sacct/scancel against the Slurm cluster of SLURM_CONF",
         .factory = make_slurm_backend},
        {.name = "kubernetes",
         .description = "kubectl apply/get/logs/delete against the current (or --context) cluster",
         .factory = make_kubernetes_backend,
         .logs_go_with_jobs = true},
        {.name = "local",
         .description = "the job script as a process group on this machine",
         .factory = make_local_backend,
         .jobs_end_with_run = true},
    };
    return table;
}

std::unique_ptr<Backend> make_backend(std::string_view name, ProcessRunner& runner, BackendOptions options) {
    options.runner = &runner;
    std::vector<std::string> names;
    for (const BackendInfo& b : backend_table()) {
        if (name == b.name) return b.factory(options);
        names.emplace_back(b.name);
    }
    throw UsageError(fmt::format("unknown backend '{}' (known: {})", name, quoted_list(names, " and ")),
                     did_you_mean(name, names));
}

}  // namespace trainbench::backend
