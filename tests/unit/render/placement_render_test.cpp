// Today's targets: the gIB network stack of GKE A3 Ultra / A4, Kueue's topology-aware
// scheduling annotations, and NVLink-domain placement (Slurm --segment under topology/block,
// Kubernetes pod affinity or Kueue slices on the domain's node label).
#include "render_test_support.hpp"

#include <trainbench/render.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

using namespace trainbench;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

render::RenderOptions shipped() {
    render::RenderOptions o;
    o.template_dirs = {render_test::shipped_templates()};
    return o;
}

std::string file(const recipe::Recipe& r, const std::string& path) {
    std::string seen;
    const std::vector<render::RenderedJob> jobs = render::render(r, shipped());
    for (const render::RenderedFile& f : jobs.at(0).files) {
        if (f.path == path) return f.content;
        seen += " " + f.path.string();
    }
    throw std::runtime_error("no file " + path + " among" + seen);
}

YAML::Node job_of(const recipe::Recipe& r) {
    return YAML::LoadAll(file(r, "manifests.yaml")).at(2);
}

recipe::Recipe gke(const std::string& stack) {
    recipe::Recipe r = render_test::base_recipe("megatron-lm");
    r.target.scheduler = catalog::Scheduler::kubernetes;
    r.target.container_runtime = "containerd";
    r.container.runtime = "containerd";
    r.target.kubernetes.host_network = true;
    r.target.kubernetes.network_stack = stack;
    r.target.kubernetes.nccl_plugin_image = "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib:v1.1.0";
    r.target.kubernetes.network_env = {{"NCCL_SOCKET_IFNAME", "eth0,eth1"},
                                       {"NCCL_TUNER_CONFIG_PATH", "/usr/local/gib/configs/tuner_config_a3u.txtpb"}};
    r.target.env = {{"NCCL_PLUGIN_PATH", "/usr/local/gib/lib64"}};
    return r;
}

recipe::Recipe nvl72_slurm(int nodes) {
    recipe::Recipe r = render_test::base_recipe("megatron-lm");
    r.target.gpus_per_node = 4;
    r.target.nvlink_domain_nodes = 18;
    r.target.slurm.block_topology = true;
    r.gpus_per_node = 4;
    r.nodes = nodes;
    return r;
}

}  // namespace

TEST(Placement, GibInstallsThePluginAndExportsTheTargetsNetworkEnvAfterItsScript) {
    recipe::Recipe r = gke("gib");
    YAML::Node pod = job_of(r)["spec"]["template"]["spec"];
    ASSERT_TRUE(pod["initContainers"]) << file(r, "manifests.yaml");
    YAML::Node init = pod["initContainers"][0];
    EXPECT_EQ(init["name"].as<std::string>(), "nccl-plugin-installer");
    EXPECT_EQ(init["image"].as<std::string>(), r.target.kubernetes.nccl_plugin_image);
    EXPECT_THAT(init["args"][0].as<std::string>(), HasSubstr("cp -R /var/lib/gib/. /target/usr/local/gib"));
    EXPECT_EQ(init["volumeMounts"][0]["mountPath"].as<std::string>(), "/target/usr/local/gib");
    ASSERT_EQ(pod["containers"].size(), 1u);  // no TCPXO receive-datapath sidecar
    YAML::Node training = pod["containers"][0];
    EXPECT_TRUE(training["securityContext"]["privileged"].as<bool>());
    bool mounted = false;
    for (const auto& m : training["volumeMounts"])
        mounted =
            mounted || (m["name"].as<std::string>() == "gib" && m["mountPath"].as<std::string>() == "/usr/local/gib");
    EXPECT_TRUE(mounted);
    bool volume = false;
    for (const auto& v : pod["volumes"]) volume = volume || (v["name"].as<std::string>() == "gib" && v["emptyDir"]);
    EXPECT_TRUE(volume);
    // The launch script sources gIB's script, then exports the overrides (order matters: the
    // script sets NCCL_SOCKET_IFNAME itself).
    const std::string launch = file(r, "launch.sh");
    std::size_t source = launch.find("source /usr/local/gib/scripts/set_nccl_env.sh\n");
    std::size_t ifname = launch.find("export NCCL_SOCKET_IFNAME=eth0,eth1\n");
    std::size_t tuner = launch.find("export NCCL_TUNER_CONFIG_PATH=/usr/local/gib/configs/tuner_config_a3u.txtpb\n");
    ASSERT_NE(source, std::string::npos) << launch;
    ASSERT_NE(ifname, std::string::npos) << launch;
    ASSERT_NE(tuner, std::string::npos) << launch;
    EXPECT_LT(source, ifname);
    EXPECT_LT(ifname, tuner);
    EXPECT_THAT(launch, HasSubstr("export LD_LIBRARY_PATH=\"${NCCL_PLUGIN_PATH:-/usr/local/gib/lib64}:"));
    EXPECT_THAT(launch, Not(HasSubstr("/semaphore")));
    // The chart carries the same choice.
    YAML::Node values = YAML::Load(file(r, "chart/values.yaml"));
    EXPECT_TRUE(values["gib"]["enabled"].as<bool>());
    EXPECT_EQ(values["gib"]["pluginImage"].as<std::string>(), r.target.kubernetes.nccl_plugin_image);
    EXPECT_TRUE(values["privileged"].as<bool>());
    EXPECT_FALSE(values["tcpxo"]["enabled"].as<bool>());
    EXPECT_THAT(file(r, "chart/templates/job.yaml"), HasSubstr("{{- if .Values.gib.enabled }}"));
}

TEST(Placement, AHostNetworkWithoutAStackIsNotPrivilegedAndHasNoInitContainer) {
    recipe::Recipe r = gke("");
    r.target.kubernetes.network_env.clear();
    YAML::Node pod = job_of(r)["spec"]["template"]["spec"];
    EXPECT_FALSE(pod["initContainers"]);
    EXPECT_FALSE(pod["containers"][0]["securityContext"]);
    EXPECT_THAT(file(r, "launch.sh"), Not(HasSubstr("set_nccl_env.sh")));
}

TEST(Placement, KueueTopologyAnnotationsOnlyWithAQueue) {
    recipe::Recipe r = gke("gib");
    r.target.kubernetes.topology_request = {{"kueue.x-k8s.io/podset-preferred-topology", "kubernetes.io/hostname"}};
    EXPECT_FALSE(job_of(r)["spec"]["template"]["metadata"]["annotations"]);
    r.kubernetes.queue = "a3ultra";
    YAML::Node job = job_of(r);
    EXPECT_EQ(job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"].as<std::string>(), "a3ultra");
    EXPECT_TRUE(job["spec"]["suspend"].as<bool>());
    EXPECT_EQ(job["spec"]["template"]["metadata"]["annotations"]["kueue.x-k8s.io/podset-preferred-topology"]
                  .as<std::string>(),
              "kubernetes.io/hostname");
    YAML::Node values = YAML::Load(file(r, "chart/values.yaml"));
    EXPECT_EQ(values["podAnnotations"]["kueue.x-k8s.io/podset-preferred-topology"].as<std::string>(),
              "kubernetes.io/hostname");
}

TEST(Placement, AKubernetesJobInOneNvlinkDomainRequiresItsPodsOnOneLabelValue) {
    recipe::Recipe r = gke("");
    r.target.gpus_per_node = 4;
    r.gpus_per_node = 4;
    r.target.nvlink_domain_nodes = 18;
    r.target.kubernetes.nvlink_domain_label = "nvidia.com/gpu.clique";
    r.nodes = 16;
    YAML::Node job = job_of(r);
    YAML::Node term =
        job["spec"]["template"]["spec"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0];
    ASSERT_TRUE(term) << file(r, "manifests.yaml");
    EXPECT_EQ(term["topologyKey"].as<std::string>(), "nvidia.com/gpu.clique");
    EXPECT_EQ(term["labelSelector"]["matchLabels"]["job-name"].as<std::string>(),
              job["metadata"]["name"].as<std::string>());
    EXPECT_EQ(YAML::Load(file(r, "chart/values.yaml"))["nvlinkDomainLabel"].as<std::string>(), "nvidia.com/gpu.clique");

    // Larger than a domain: no pod affinity (it could never be met); with a queue, Kueue slices
    // of the largest node count dividing the Job that fits a domain.
    r.nodes = 32;
    EXPECT_FALSE(job_of(r)["spec"]["template"]["spec"]["affinity"]);
    EXPECT_FALSE(job_of(r)["spec"]["template"]["metadata"]["annotations"]);
    r.kubernetes.queue = "gb200";
    YAML::Node annotations = job_of(r)["spec"]["template"]["metadata"]["annotations"];
    EXPECT_EQ(annotations["kueue.x-k8s.io/podset-slice-required-topology"].as<std::string>(), "nvidia.com/gpu.clique");
    EXPECT_EQ(annotations["kueue.x-k8s.io/podset-slice-size"].as<std::string>(), "16");
    r.nodes = 36;
    EXPECT_EQ(
        job_of(r)["spec"]["template"]["metadata"]["annotations"]["kueue.x-k8s.io/podset-slice-size"].as<std::string>(),
        "18");
}

TEST(Placement, SlurmBlockTopologyAsksForSegmentsThatFitAnNvlinkDomain) {
    // Megatron-Bridge's rule: all the nodes up to a domain, else the largest divisor <= 18.
    for (auto [nodes, segment] : std::vector<std::pair<int, int>>{
             {1, 1}, {2, 2}, {16, 16}, {18, 18}, {32, 16}, {36, 18}, {64, 16}, {128, 16}, {19, 1}}) {
        recipe::Recipe r = nvl72_slurm(nodes);
        EXPECT_EQ(recipe::slurm_segment(r), segment) << nodes << " nodes";
        EXPECT_THAT(file(r, "job.sbatch"), HasSubstr("#SBATCH --segment=" + std::to_string(segment) + "\n"));
    }
    recipe::Recipe r = nvl72_slurm(64);
    r.slurm.segment = 8;  // the recipe's own
    EXPECT_THAT(file(r, "job.sbatch"), HasSubstr("#SBATCH --segment=8\n"));
    r = nvl72_slurm(64);
    r.target.slurm.block_topology = false;  // a cluster without topology/block: no --segment
    EXPECT_EQ(recipe::slurm_segment(r), 0);
    EXPECT_THAT(file(r, "job.sbatch"), Not(HasSubstr("--segment")));
}

TEST(Placement, ASegmentMustDivideTheNodesAndFitTheDomain) {
    recipe::Recipe r = nvl72_slurm(64);
    r.slurm.segment = 24;
    Diagnostics d;
    recipe::validate_placement(r, d);
    std::string all = d.format();
    EXPECT_THAT(all, HasSubstr("'slurm.segment': 64 nodes are not divisible by segments of 24"));
    EXPECT_THAT(all, HasSubstr("a segment of 24 nodes does not fit in an NVLink domain of 18 nodes"));
    r.slurm.segment = 16;
    Diagnostics ok;
    recipe::validate_placement(r, ok);
    EXPECT_FALSE(ok.has_errors()) << ok.format();
}

TEST(Placement, MegatronGetsTheLayoutAndTheRecomputeModules) {
    recipe::Recipe r = render_test::base_recipe("megatron-lm");
    r.parallelism.pipeline = 2;
    r.parallelism.virtual_pipeline = 2;
    r.parallelism.pipeline_layout = "Et*2|t*3|t*3|t*4L";
    r.recompute.granularity = "selective";
    r.recompute.modules = {"mla_up_proj", "mlp"};
    const std::string job = file(r, "job.sbatch");
    EXPECT_THAT(job, HasSubstr("--pipeline-model-parallel-layout 'Et*2|t*3|t*3|t*4L'"));
    EXPECT_THAT(job, Not(HasSubstr("--num-layers-per-virtual-pipeline-stage")));
    EXPECT_THAT(job, HasSubstr("--recompute-granularity selective \\\n    --recompute-modules mla_up_proj mlp"));
}
