// The framework table: one row per framework (to add one, see framework.hpp).
#include "render/frameworks/framework.hpp"

#include <array>

namespace trainbench::render {

namespace {

constexpr std::array<Framework, 5> k_frameworks{{
    {"nemo", true, &nemo_launch},
    {"megatron-lm", false, &megatron_lm_launch},
    {"metaseq", true, &metaseq_launch},
    {"tinygpt", true, &tinygpt_launch},
    {"custom", false, &custom_launch},
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
