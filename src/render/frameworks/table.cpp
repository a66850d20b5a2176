// The framework table: one row per framework (to add one, see framework.hpp).
#include "render/frameworks/framework.hpp"

#include <array>

namespace trainbench::render {

namespace {

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
     .env = &nemo_env,
     .launch = &nemo_launch},
    {.name = "megatron-lm",
     .template_key = "megatron_lm",
     .python = "python3",
     .torchrun_per_node = true,
     .torchrun_on_kubernetes = true,
     .env = &megatron_lm_env,
     .launch = &megatron_lm_launch},
    {.name = "metaseq",
     .template_key = "metaseq",
     .one_task_per_gpu = true,
     .python = "python3",
     .torchrun_on_kubernetes = true,
     .launch = &metaseq_launch},
    {.name = "tinygpt",
     .template_key = "tinygpt",
     .one_task_per_gpu = true,
     .python = "/usr/bin/python3",
     .own_rank_loop = true,
     .launch = &tinygpt_launch},
    {.name = "custom", .template_key = "custom", .launch = &custom_launch},
    {.name = "torchtitan",
     .template_key = "torchtitan",
     .python = "python3",
     .torchrun_per_node = true,
     .torchrun_on_kubernetes = true,
     .toml = true,
     .env = &torchtitan_env,
     .launch = &torchtitan_launch},
})};

}  // namespace

const Framework* find_framework(std::string_view name) {
    for (const Framework& f : k_frameworks)
        if (f.name == name) return &f;
    return nullptr;
}

std::vector<std::string> framework_names() {
    std::vector<std::string> out;
    for (const Framework& f : k_frameworks) out.emplace_back(f.name);
    return out;
}

}  // namespace trainbench::render
