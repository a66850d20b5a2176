// The framework table: one row per framework (to add one, see framework.hpp).
#include "render/frameworks/framework.hpp"

#include <algorithm>
#include <array>

namespace trainbench::render {

namespace {

constexpr std::array<std::string_view, 1> k_torchtitan_main{"b5bcd76c"};

// Each row names its fields (framework.hpp says what each means); a field left out is false,
// empty or null. A new framework is one more row here, never a branch elsewhere.
constexpr std::array k_frameworks{std::to_array<Framework>({
    {.name = "nemo",
     .template_key = "nemo",
     .one_task_per_gpu = true,
     .python = "python3",
     .torchrun_on_kubernetes = true,
     .nsys = true,
     .hydra = true,
     .model_problems = &nemo_model_problems,
     .env = &nemo_env,
     .launch = &nemo_launch},
    {.name = "megatron-lm",
     .template_key = "megatron_lm",
     .python = "python3",
     .torchrun_per_node = true,
     .torchrun_on_kubernetes = true,
     .block_scaled = true,
     .model_problems = &megatron_model_problems,
     .env = &megatron_lm_env,
     .launch = &megatron_lm_launch},
    {.name = "metaseq",
     .template_key = "metaseq",
     .one_task_per_gpu = true,
     .python = "python3",
     .torchrun_on_kubernetes = true,
     .model_problems = &gpt_only_model_problems,
     .launch = &metaseq_launch},
    {.name = "tinygpt",
     .template_key = "tinygpt",
     .one_task_per_gpu = true,
     .python = "/usr/bin/python3",
     .own_rank_loop = true,
     .model_problems = &gpt_only_model_problems,
     .launch = &tinygpt_launch},
    // the user's own command: any model, any precision the GPU has
    {.name = "custom", .template_key = "custom", .block_scaled = true, .launch = &custom_launch},
    {.name = "megatron-bridge",
     .template_key = "megatron_bridge",
     .python = "python3",
     .torchrun_per_node = true,
     .torchrun_on_kubernetes = true,
     .cli_overrides = true,
     .block_scaled = true,
     .model_problems = &megatron_bridge_problems,
     .env = &megatron_bridge_env,
     .launch = &megatron_bridge_launch},
    {.name = "torchtitan",
     .template_key = "torchtitan",
     .python = "python3",
     .torchrun_per_node = true,
     .torchrun_on_kubernetes = true,
     .tyro_flags = true,
     .block_scaled = true,
     .model_problems = &torchtitan_problems,
     .env = &torchtitan_env,
     .launch = &torchtitan_launch},
    // main after TOML: a registry function and `--section.option` flags (torchtitan_main.cpp)
    {.name = "torchtitan",
     .versions = k_torchtitan_main,
     .template_key = "torchtitan",
     .python = "python3",
     .torchrun_per_node = true,
     .torchrun_on_kubernetes = true,
     .tyro_flags = true,
     .block_scaled = true,
     .model_problems = &torchtitan_main_problems,
     .env = &torchtitan_main_env,
     .launch = &torchtitan_main_launch},
})};

}  // namespace

const Framework* find_framework(std::string_view name, std::string_view version) {
    const Framework* any_version = nullptr;
    for (const Framework& f : k_frameworks) {
        if (f.name != name) continue;
        if (std::find(f.versions.begin(), f.versions.end(), version) != f.versions.end()) return &f;
        if (f.versions.empty()) any_version = &f;
    }
    return any_version;
}

std::vector<std::string> framework_names() {
    std::vector<std::string> out;
    for (const Framework& f : k_frameworks)
        if (std::find(out.begin(), out.end(), f.name) == out.end()) out.emplace_back(f.name);
    return out;
}

std::vector<std::string> framework_template_keys() {
    std::vector<std::string> out;
    for (const Framework& f : k_frameworks)
        if (std::find(out.begin(), out.end(), f.template_key) == out.end()) out.emplace_back(f.template_key);
    return out;
}

}  // namespace trainbench::render
