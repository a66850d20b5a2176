// Context of the validate stage: DCGM diagnostics per node and nccl-tests over
// all nodes and node pairs, as seed 000's cluster_validation.sh runs them.
// nccl-tests are an MPI build (make MPI=1 with HPC-X's Open MPI), so each run
// is `srun --mpi=pmix`: without it every rank would start as its own
// singleton communicator and report no bus bandwidth.
#include "render/stage_context.hpp"

#include <fmt/format.h>

#include <algorithm>

using nlohmann::ordered_json;

namespace trainbench::render {

namespace {

// Builds nccl-tests once into DIR (arguments: DIR REPO REF HPCX), as the seed's
// build-nccl-tests.sh does: HPC-X loaded, `make MPI=1` against its Open MPI. The
// tree is built beside DIR and moved into place, so a run that finds DIR finds it whole.
constexpr const char* k_build_script =
    "set -eo pipefail; dir=$1; repo=$2; ref=$3; hpcx=$4; "
    "if [ -x \"$dir/build/all_reduce_perf\" ]; then exit 0; fi; "
    "if [ -n \"$hpcx\" ]; then source \"$hpcx/hpcx-init.sh\"; hpcx_load; fi; "
    "tmp=$dir.tmp.${SLURM_JOB_ID:-$$}; rm -rf \"$tmp\"; mkdir -p \"$(dirname \"$dir\")\"; "
    "git clone --quiet --depth 1 --branch \"$ref\" \"$repo\" \"$tmp\"; "
    "make -C \"$tmp\" -j \"$(nproc)\" MPI=1 MPI_HOME=\"${HPCX_MPI_DIR:-${MPI_HOME:-/usr/local/mpi}}\"; "
    "mv -T \"$tmp\" \"$dir\" 2>/dev/null || rm -rf \"$tmp\"; "
    "test -x \"$dir/build/all_reduce_perf\"";

// Runs "$@" with HPC-X's environment (its Open MPI and UCX libraries) loaded.
constexpr const char* k_hpcx_script = "source \"$1/hpcx-init.sh\" && hpcx_load && shift && exec \"$@\"";

std::string nccl_image_of(const recipe::Recipe& r, const recipe::NcclTestOptions& n) {
    if (!n.build_path.empty()) return {};
    if (!n.build_image.empty()) return n.build_image;
    std::string runtime = r.container.runtime.empty() ? r.target.container_runtime : r.container.runtime;
    return (runtime == "pyxis" || runtime == "enroot") ? r.container.image : std::string();
}

std::string binary_of(const recipe::NcclTestOptions& n, const std::string& test) {
    if (!n.build_path.empty()) return n.build_path + "/" + test;
    if (!n.build_dir.empty()) return n.build_dir + "/build/" + test;
    return test;
}

std::vector<ShellWord> dcgm_srun(const recipe::DcgmOptions& d, const std::string& log_dir) {
    // Explicit task counts: the job's own SLURM_NTASKS (one per GPU) must not leak into these steps.
    std::vector<ShellWord> w{"srun", "--ntasks-per-node=1", word_with_var("--ntasks=", "TB_NODE_COUNT")};
    if (!d.time.empty()) w.emplace_back("--time=" + d.time);
    for (ShellWord& f : container_flags(d.image, {})) w.push_back(std::move(f));
    // One file per task (rank i runs on node i: block distribution); renamed to the node's name after.
    w.emplace_back("--output=" + log_dir + "/dcgm-task-%t.txt");
    for (const std::string& a : {d.binary, std::string("diag"), std::string("-r"), std::to_string(d.level)})
        w.emplace_back(a);
    return w;
}

std::vector<ShellWord> nccl_srun(const recipe::NcclTestOptions& n, int ranks_per_node, const std::string& image,
                                 const std::vector<std::string>& mounts) {
    std::vector<ShellWord> w{"srun", fmt::format("--ntasks-per-node={}", ranks_per_node)};
    if (n.mpi != "none") w.emplace_back("--mpi=" + n.mpi);
    if (!n.time.empty()) w.emplace_back("--time=" + n.time);
    if (!n.mem.empty()) w.emplace_back("--mem=" + n.mem);
    for (ShellWord& f : container_flags(image, mounts)) w.push_back(std::move(f));
    return w;
}

std::vector<ShellWord> nccl_args(const recipe::NcclTestOptions& n) {
    std::vector<ShellWord> args{"-b", n.min_bytes,
                                "-e", n.max_bytes,
                                "-f", std::to_string(n.step_factor),
                                "-g", std::to_string(n.gpus_per_rank)};
    if (n.iters > 0) {
        args.emplace_back("-n");
        args.emplace_back(std::to_string(n.iters));
    }
    return args;
}

// Kubernetes: ssh options for the pods (Open MPI's plm_rsh_args and the script's own calls).
// Pods come and go under the same names, so their host keys are neither checked nor kept.
std::vector<ShellWord> k8s_rsh_args(const recipe::NcclTestOptions& n) {
    return {"-p", std::to_string(n.ssh_port),     "-o", "StrictHostKeyChecking=no",
            "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"};
}

// Kubernetes: mpirun from pod 0, each pod reached over ssh by its name behind the headless
// Service (kept whole: orte_keep_fqdn_hostnames), daemons started by mpirun itself
// (plm_rsh_no_tree_spawn: pods do not ssh to each other), TCP for Open MPI's own traffic.
std::vector<ShellWord> k8s_mpirun(const recipe::NcclTestOptions& n) {
    std::string rsh_args;
    for (const ShellWord& w : k8s_rsh_args(n)) rsh_args += (rsh_args.empty() ? "" : " ") + w.plain();
    std::vector<ShellWord> w{"mpirun",
                             "--allow-run-as-root",
                             "--bind-to",
                             "none",
                             "--mca",
                             "plm_rsh_args",
                             rsh_args,
                             "--mca",
                             "plm_rsh_no_tree_spawn",
                             "true",
                             "--mca",
                             "orte_keep_fqdn_hostnames",
                             "t",
                             "--mca",
                             "btl",
                             "tcp,self"};
    for (const std::string& a : n.mpirun_args) w.emplace_back(a);
    return w;
}

// The keys of the Kubernetes validation (templates/frameworks/validate-k8s.sh).
void add_k8s_keys(const recipe::ValidateOptions& v, ordered_json& out) {
    const recipe::NcclTestOptions& n = v.nccl;
    std::vector<ShellWord> dcgm{v.dcgm.binary, "diag", "-r", std::to_string(v.dcgm.level)};
    std::vector<ShellWord> sshd;
    for (const std::string& a : n.sshd) sshd.emplace_back(a);
    out["k8s_ssh_port"] = n.ssh_port;
    out["k8s_rsh_args_sh"] = join_shell(k8s_rsh_args(n));
    out["k8s_mpirun_sh"] = join_shell(k8s_mpirun(n));
    // one word for ssh, which hands it to the pod's shell
    out["k8s_dcgm_remote_sh"] = ShellWord(join_shell(dcgm)).shell();
    out["k8s_sshd_sh"] = sshd.empty() ? std::string(":") : join_shell(sshd);
}

}  // namespace

ordered_json validate_context(const recipe::Recipe& r, const recipe::ValidateOptions& v, const std::string& log_dir,
                              int gpus_per_node) {
    const recipe::NcclTestOptions& n = v.nccl;
    const std::string image = nccl_image_of(r, n);
    std::vector<std::string> mounts = r.target.default_mounts;
    std::vector<std::string> extra = n.mounts;
    // The build happens beside DIR and is moved into place: the parent directory is what the container sees.
    const std::string build_parent = n.build_dir.substr(0, n.build_dir.rfind('/'));
    if (!n.build_dir.empty() && !build_parent.empty()) extra.push_back(build_parent + ":" + build_parent);
    if (!n.hpcx_path.empty() && !image.empty() && n.hpcx_path != "/opt/hpcx")
        extra.push_back(n.hpcx_path + ":" + n.hpcx_path);  // HPC-X from the host (images ship it under /opt/hpcx)
    for (const std::string& m : extra)
        if (std::find(mounts.begin(), mounts.end(), m) == mounts.end()) mounts.push_back(m);
    const int ranks_per_node = std::max(1, std::max(1, gpus_per_node) / std::max(1, n.gpus_per_rank));
    std::vector<ShellWord> hpcx;
    if (!n.hpcx_path.empty()) hpcx = {"bash", "-c", k_hpcx_script, "tb-hpcx", n.hpcx_path};
    ordered_json tests = ordered_json::array();
    for (const std::string& t : n.tests) {
        std::vector<ShellWord> program = hpcx;
        program.emplace_back(binary_of(n, t));
        tests.push_back({{"name", t},
                         {"binary_sh", join_shell(program)},
                         {"checked", t == "all_reduce_perf"},
                         {"file_prefix", t == "all_reduce_perf" ? std::string("nccl") : t}});
    }
    std::vector<ShellWord> build{"srun", "--nodes=1", "--ntasks=1", "--ntasks-per-node=1"};
    for (ShellWord& f : container_flags(image, mounts)) build.push_back(std::move(f));
    for (const std::string& a :
         {std::string("bash"), std::string("-c"), std::string(k_build_script), std::string("tb-build-nccl-tests"),
          n.build_dir, n.build_repo, n.build_ref, n.hpcx_path})
        build.emplace_back(a);
    const std::vector<ShellWord> args = nccl_args(n);
    ordered_json out = {{"nodes", v.nodes},
                        {"dcgm_enabled", v.dcgm.enabled},
                        {"dcgm_level", v.dcgm.level},
                        {"dcgm_srun_sh", join_shell(dcgm_srun(v.dcgm, log_dir))},
                        {"nccl_enabled", n.enabled},
                        {"nccl_srun_sh", join_shell(nccl_srun(n, ranks_per_node, image, mounts))},
                        {"nccl_args_sh", join_shell(args)},
                        {"nccl_args", plain_words(args)},
                        {"mpi", n.mpi},
                        {"has_build", n.enabled && !n.build_dir.empty()},
                        {"build_srun_sh", join_shell(build)},
                        {"build_check_sh", ShellWord(n.build_dir + "/build/all_reduce_perf").shell()},
                        {"build_parent_sh", ShellWord(build_parent.empty() ? std::string("/") : build_parent).shell()},
                        {"ranks_per_node", ranks_per_node},
                        {"pair_tasks", 2 * ranks_per_node},
                        {"tests", tests},
                        {"all_nodes", n.all_nodes},
                        {"pairwise", n.pairwise},
                        {"threshold_gbs", fmt::format("{}", n.busbw_threshold_gbs)},
                        {"has_threshold", n.busbw_threshold_gbs > 0},
                        {"env", env_json(n.env)},
                        {"has_env", !n.env.empty()}};
    add_k8s_keys(v, out);
    return out;
}

}  // namespace trainbench::render
