#include <trainbench/core.hpp>

#include <atomic>
#include <csignal>

namespace trainbench {

namespace {
std::atomic<int> g_signal{0};  // the one process-wide flag a signal handler may touch

extern "C" void on_signal(int sig) {
    g_signal.store(sig);
}
}  // namespace

void install_interrupt_handlers() {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: blocking waits return EINTR and notice the flag
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

bool interrupted() {
    return g_signal.load() != 0;
}

void check_interrupted() {
    if (interrupted()) throw InterruptedError();
}

}  // namespace trainbench
