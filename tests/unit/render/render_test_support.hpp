// Shared helpers of the render tests: recipes built in code (no loader), a
// temporary directory, and running a rendered script under bash.
#pragma once

#include "support/shipped_catalog.hpp"
#include "support/source_dir.hpp"
#include "support/temp_dir.hpp"

#include <trainbench/catalog.hpp>
#include <trainbench/core.hpp>
#include <trainbench/recipe.hpp>

#include <filesystem>
#include <string>

namespace render_test {

namespace fs = std::filesystem;
using trainbench::testing::source_dir;
using trainbench::testing::TempDir;

inline fs::path shipped_templates() {
    return source_dir() / "templates";
}

using trainbench::testing::shipped_catalog;

inline trainbench::catalog::Target slurm_target() {
    trainbench::catalog::Target t;
    t.name = "test-slurm";
    t.scheduler = trainbench::catalog::Scheduler::slurm;
    t.gpus_per_node = 8;
    t.gpu = "a100-sxm4-80gb";
    t.container_runtime = "pyxis";
    t.env = {{"NCCL_IB_TIMEOUT", "22"}, {"NCCL_DEBUG", "WARN"}};
    t.default_mounts = {"/opt/microsoft:/opt/microsoft"};
    t.slurm.partition = "gpu";
    t.slurm.time = "01:00:00";
    return t;
}

inline trainbench::recipe::Recipe base_recipe(const std::string& framework = "nemo") {
    trainbench::recipe::Recipe r;
    r.name = "test-recipe";
    r.framework = framework;
    r.target = slurm_target();
    r.target_name = r.target.name;
    r.gpu.name = "a100-sxm4-80gb";
    r.gpu.family = "a100";
    r.model.name = "gpt3-126m";
    r.model.layers = 12;
    r.model.hidden = 768;
    r.model.heads = 12;
    r.model.seq_length = 2048;
    r.model.vocab = 50257;
    r.model_name = "gpt3-126m";
    r.nodes = 2;
    r.batch = {4, 256};
    r.steps = 40;
    r.container.runtime = "pyxis";
    r.container.image = "nvcr.io/nvidia/nemo:24.07";
    r.container.mounts = {"/fsx:/fsx"};
    r.metrics.source = "dllogger";
    if (framework == "nemo") {
        r.framework_version = "24.07";
        r.profile = shipped_catalog().find_framework("nemo", "24.07");
    }
    return r;
}

// A recipe for this machine: local target, CPU, custom command.
inline trainbench::recipe::Recipe local_recipe(std::vector<std::string> command) {
    trainbench::recipe::Recipe r = base_recipe("custom");
    r.target = trainbench::catalog::Target{};
    r.target.name = "local";
    r.target.scheduler = trainbench::catalog::Scheduler::local;
    r.target.gpus_per_node = 1;
    r.target.gpu = "cpu";
    r.target.container_runtime = "none";
    r.gpu.family = "cpu";
    r.nodes = 1;
    r.container = {};
    r.launch.command = std::move(command);
    return r;
}

// Runs `script` (a file) under bash with the given environment; returns the result.
inline trainbench::ProcessResult run_bash(const fs::path& script, std::map<std::string, std::string> env,
                                          const fs::path& cwd) {
    trainbench::ProcessRequest req;
    req.argv = {"bash", script.string()};
    req.env_set = std::move(env);
    req.cwd = cwd;
    req.timeout = std::chrono::milliseconds(30000);
    return trainbench::system_process_runner().run(req);
}

}  // namespace render_test
