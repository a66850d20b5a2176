// Small hand-built models and inputs shared by the analysis tests.
#pragma once

#include <trainbench/analysis.hpp>

#include <string>

namespace trainbench::analysis::testing {

inline catalog::Model gpt_model(std::string name, int layers, int hidden, int heads, int seq = 2048,
                                std::string family = "gpt3") {
    catalog::Model m;
    m.name = std::move(name);
    m.family = std::move(family);
    m.layers = layers;
    m.hidden = hidden;
    m.heads = heads;
    m.seq_length = seq;
    m.vocab = 50257;
    return m;
}

inline catalog::Model gpt3_175b() {
    return gpt_model("gpt3-175b", 96, 12288, 96);
}

// The seed document's step (gpu-recipes README, step 47).
inline constexpr double k_seed_step = 25.115550994873047;

}  // namespace trainbench::analysis::testing
