// core/signals.hpp: Ctrl-C and SIGTERM as a flag that long loops check.
// Part of core's public header: include <trainbench/core.hpp>.
#pragma once

namespace trainbench {

// Installs SIGINT/SIGTERM handlers that set a flag; long-running loops call
// check_interrupted() which throws InterruptedError once the flag is set.
void install_interrupt_handlers();
[[nodiscard]] bool interrupted();
void check_interrupted();

}  // namespace trainbench
