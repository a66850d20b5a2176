// cli: the command line. One file per command under src/cli/; this header is
// the only entry point main() and the in-process CLI tests use.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace trainbench {
class ProcessRunner;
}  // namespace trainbench

namespace trainbench::cli {

// Parses `args` (without the program name), runs the command, prints the
// product to `out` and diagnostics to `err`, and returns the exit code
// (docs/cli.md). Never throws: every error is caught here, once.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// The same, with every external program (schedulers, kubectl, helm, job scripts) started
// through `processes` instead of the system's runner: the CLI tests drive commands on fakes.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, ProcessRunner& processes);

}  // namespace trainbench::cli
