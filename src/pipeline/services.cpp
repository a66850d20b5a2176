// The services a use case reaches the outside world through (pipeline.hpp).
#include <trainbench/pipeline.hpp>

#include <stdexcept>

namespace trainbench::pipeline {

ProcessRunner& Services::processes() const {
    // A programming error, not a user's: every caller (the CLI's Context, the tests) sets one.
    if (runner == nullptr) throw std::logic_error("pipeline::Services without a process runner");
    return *runner;
}

}  // namespace trainbench::pipeline
