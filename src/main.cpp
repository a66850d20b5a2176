// trainbench: declarative LLM pre-training benchmarks. Everything lives in the
// libraries; main only hands the arguments to the CLI.
#include <trainbench/cli.hpp>

#include <iostream>

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    return trainbench::cli::run(args, std::cout, std::cerr);
}
