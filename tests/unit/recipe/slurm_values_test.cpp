// Values passed to Slurm and Pyxis verbatim: time limits in every form sbatch
// accepts (and only those), Pyxis image references, host lists, extra #SBATCH
// directives and srun arguments, env unset; each refused at its key.
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace trainbench::recipe {
namespace {

TEST(SlurmTime, EveryFormSbatchAcceptsParses) {
    EXPECT_EQ(parse_slurm_time("90"), 90 * 60);          // minutes
    EXPECT_EQ(parse_slurm_time("90:30"), 90 * 60 + 30);  // minutes:seconds
    EXPECT_EQ(parse_slurm_time("48:00:00"), 48 * 3600);  // hours:minutes:seconds
    EXPECT_EQ(parse_slurm_time("1:00:00"), 3600);
    EXPECT_EQ(parse_slurm_time("2-12"), 2 * 86400 + 12 * 3600);  // days-hours
    EXPECT_EQ(parse_slurm_time("2-12:30"), 2 * 86400 + 12 * 3600 + 1800);
    EXPECT_EQ(parse_slurm_time("2-12:30:15"), 2 * 86400 + 12 * 3600 + 1815);
    EXPECT_EQ(parse_slurm_time("0"), 0);
    EXPECT_EQ(parse_slurm_time("UNLIMITED"), 0);
    EXPECT_EQ(parse_slurm_time("INFINITE"), 0);
}

TEST(SlurmTime, OutOfRangeFieldsAndOtherTextAreRefused) {
    for (const char* bad : {"99:99:99", "10:60:00", "10:00:60", "1-24:00:00", "1-5:61", "90:60", "1:2:3:4", "", "1h",
                            "-1", "1-", "01:00:00; rm -rf /", "1 day"})
        EXPECT_FALSE(parse_slurm_time(bad)) << bad;
    EXPECT_EQ(slurm_time_problem(""), "");  // unset
    EXPECT_NE(slurm_time_problem("99:99:99").find("invalid Slurm time limit '99:99:99'"), std::string::npos);
}

TEST(SlurmTime, FormatsAsSbatchWritesIt) {
    EXPECT_EQ(format_slurm_time(3600 + 20 * 60 * 3), "02:00:00");
    EXPECT_EQ(format_slurm_time(86400 + 61), "1-00:01:01");
}

TEST(PyxisImage, ASquashfsPathWithoutSlashOrDotIsARegistryNameToPyxis) {
    EXPECT_NE(pyxis_image_problem("apps/foo.sqsh"), "");
    EXPECT_NE(pyxis_image_problem("nemo+24.05.sqsh"), "");
    EXPECT_EQ(pyxis_image_problem("./apps/foo.sqsh"), "");
    EXPECT_EQ(pyxis_image_problem("/data/stage/nemo+24.05.sqsh"), "");
    EXPECT_EQ(pyxis_image_problem("nvcr.io/nvidia/pytorch:22.06-py3"), "");
    EXPECT_EQ(pyxis_image_problem("nvcr.io#nvidia/nemo:24.05"), "");
}

TEST(SlurmKnobs, HostListsDirectivesAndSrunArgumentsAreChecked) {
    EXPECT_EQ(hostlist_problem("gpu-[1-4,7],gpu-9"), "");
    EXPECT_NE(hostlist_problem("gpu-1;reboot"), "");
    EXPECT_NE(hostlist_problem("gpu-1 gpu-2"), "");
    EXPECT_EQ(sbatch_directive_problem("--gres-flags=enforce-binding"), "");
    EXPECT_EQ(sbatch_directive_problem("--comment=seed000"), "");
    EXPECT_NE(sbatch_directive_problem("--comment=a b"), "");
    EXPECT_NE(sbatch_directive_problem("--comment=a\n#SBATCH --nodes=99"), "");
    EXPECT_NE(sbatch_directive_problem("gres-flags=enforce-binding"), "");
    EXPECT_NE(sbatch_directive_problem("--time=1:00:00").find("set slurm.time instead"), std::string::npos);
    EXPECT_EQ(srun_argument_problem("--cpu-bind=mask_cpu:0x1,0x2"), "");
    EXPECT_NE(srun_argument_problem("--mpi=pmix\n"), "");
    EXPECT_NE(srun_argument_problem("rm"), "");
}

std::filesystem::path write(const std::string& name, const std::string& body,
                            const std::string& container = "container: {image: nvcr.io/nvidia/nemo:24.05}\n") {
    std::filesystem::path dir = std::filesystem::temp_directory_path() / "tb-slurm-values-test";
    std::filesystem::create_directories(dir);
    std::filesystem::path file = dir / (name + ".yaml");
    std::ofstream(file) << "version: 1\nname: " << name
                        << "\ntarget: azure-ndm-a100-v4\nmodel: gpt3-126m\nframework: nemo\nnodes: 1\n"
                           "batch: {micro: 4, global: 256}\n"
                        << container << body;
    return file;
}

TEST(SlurmKnobs, BadValuesAreLocatedErrorsAtTheirKeys) {
    auto f = write("bad-knobs",
                   "slurm:\n  time: \"99:99:99\"\n  exclude: \"gpu-1; touch /tmp/x\"\n"
                   "  directives: [\"--nodes=8\", \"--comment=ok\"]\n  srun_args: [\"--mpi=pmix\", \"oops\"]\n");
    std::string p = test::problems(f);
    EXPECT_NE(p.find("bad-knobs.yaml:10:9: error: 'slurm.time': invalid Slurm time limit '99:99:99'"),
              std::string::npos)
        << p;
    EXPECT_NE(p.find("'slurm.exclude': 'gpu-1; touch /tmp/x' is not a Slurm host list"), std::string::npos) << p;
    EXPECT_NE(p.find("'slurm.directives[0]': #SBATCH --nodes is written by trainbench; set nodes instead"),
              std::string::npos)
        << p;
    EXPECT_EQ(p.find("directives[1]"), std::string::npos) << p;
    EXPECT_NE(p.find("slurm.srun_args[1]"), std::string::npos) << p;
    std::string stages = test::problems(
        write("bad-stage-time",
              "stages:\n  - {name: train, kind: train, time: \"25:00\"}\n  - {name: t2, kind: train, time: 1-99}\n"));
    EXPECT_NE(stages.find("invalid Slurm time limit '1-99'"), std::string::npos) << stages;
    EXPECT_NE(stages.find("stages[1].time"), std::string::npos) << stages;
    EXPECT_EQ(stages.find("stages[0].time"), std::string::npos) << stages;
}

TEST(SlurmKnobs, APyxisImagePathThatPyxisWouldPullIsRefused) {
    std::string p = test::problems(write("bad-image", "", "container: {image: apps/nemo.sqsh}\n"));
    EXPECT_NE(p.find("container image 'apps/nemo.sqsh' names a squashfs file"), std::string::npos) << p;
    std::string stage = test::problems(
        write("bad-stage-image",
              "stages:\n  - name: validate\n    kind: validate\n    options: {dcgm: {image: dcgm.sqsh, time: "
              "\"1:00:00\"}, nccl: {time: \"00:61:00\"}}\n"));
    EXPECT_NE(stage.find("'dcgm.image': container image 'dcgm.sqsh'"), std::string::npos) << stage;
    EXPECT_NE(stage.find("'nccl.time': invalid Slurm time limit '00:61:00'"), std::string::npos) << stage;
}

TEST(SlurmKnobs, NullRemovesAnInheritedEnvironmentVariable) {
    Recipe r = test::load(write("unset", "env: {NCCL_TOPO_FILE: null, NCCL_DEBUG: INFO}\n"));
    ASSERT_EQ(r.env_unset, std::vector<std::string>{"NCCL_TOPO_FILE"});
    for (const auto& [k, v] : r.env) EXPECT_NE(k, "NCCL_TOPO_FILE");
    // The resolved recipe keeps the removal (a run's recipe.resolved.yaml loads the same).
    EXPECT_NE(to_yaml(r).find("NCCL_TOPO_FILE: null"), std::string::npos) << to_yaml(r);
}

}  // namespace
}  // namespace trainbench::recipe
