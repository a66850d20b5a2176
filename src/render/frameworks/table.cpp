// The framework table: one row per framework (to add one, see framework.hpp).
#include "render/frameworks/framework.hpp"

#include <array>

namespace trainbench::render {

namespace {

// name, template_key, one_task_per_gpu, python, torchrun_per_node, torchrun_on_kubernetes,
// own_rank_loop, nsys, hydra, env, launch
constexpr std::array<Framework, 5> k_frameworks{{
    {"nemo", "nemo", true, "python3", false, true, false, true, true, &nemo_env, &nemo_launch},
    {"megatron-lm", "megatron_lm", false, "python3", true, true, false, false, false, &megatron_lm_env,
     &megatron_lm_launch},
    {"metaseq", "metaseq", true, "python3", false, true, false, false, false, nullptr, &metaseq_launch},
    {"tinygpt", "tinygpt", true, "/usr/bin/python3", false, false, true, false, false, nullptr, &tinygpt_launch},
    {"custom", "custom", false, "", false, false, false, false, false, nullptr, &custom_launch},
}};

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
