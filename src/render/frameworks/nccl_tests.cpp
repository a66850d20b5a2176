// nccl-tests: the validation stage's bandwidth tests, one command per test binary.
#include "render/frameworks/framework.hpp"

namespace trainbench::render {

namespace {

// The nccl-tests release whose options the validation stage passes (its profile:
// recipes/catalog/frameworks/nccl-tests-2.19.6.yaml).
constexpr const char* k_nccl_tests_version = "2.19.6";

}  // namespace

std::vector<nlohmann::ordered_json> nccl_tests_commands(const nlohmann::ordered_json& validate) {
    std::vector<nlohmann::ordered_json> out;
    for (const auto& test : validate.at("tests")) {
        nlohmann::ordered_json argv = nlohmann::ordered_json::array({test.at("name")});
        for (const auto& a : validate.at("nccl_args")) argv.push_back(a);
        out.push_back({{"program", "nccl-tests"},
                       {"version", k_nccl_tests_version},
                       {"argv", argv},
                       {"config_file", ""},
                       {"config_keys", nlohmann::ordered_json::array()}});
    }
    return out;
}

}  // namespace trainbench::render
