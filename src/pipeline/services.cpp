// The services a use case reaches the outside world through (pipeline.hpp).
#include <trainbench/pipeline.hpp>

#include <stdexcept>

namespace trainbench::pipeline {

ProcessRunner& Services::processes() const {
    // A programming error, not a user's: every caller (the CLI's Context, the tests) sets one.
    if (runner == nullptr) throw std::logic_error("pipeline::Services without a process runner");
    return *runner;
}

std::unique_ptr<results::Store> Services::results_store(results::Access access) const {
    return results::open_store(results::default_location(results_location, runs_root), access);
}

}  // namespace trainbench::pipeline
