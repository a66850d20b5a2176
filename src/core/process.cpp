#include <trainbench/core.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <set>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace trainbench {

namespace {

struct Pipe {
    int fd[2] = {-1, -1};
    Pipe() {
        if (::pipe2(fd, O_CLOEXEC) != 0) throw RuntimeError(fmt::format("pipe: {}", std::strerror(errno)));
    }
    ~Pipe() { close_both(); }
    Pipe(const Pipe&) = delete;
    Pipe& operator=(const Pipe&) = delete;
    void close_end(int i) {
        if (fd[i] >= 0) ::close(fd[i]);
        fd[i] = -1;
    }
    void close_both() {
        close_end(0);
        close_end(1);
    }
};

std::vector<std::string> build_environment(const ProcessRequest& r) {
    std::set<std::string> drop(r.env_unset.begin(), r.env_unset.end());
    for (const auto& [k, v] : r.env_set) drop.insert(k);
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e) {
        std::string_view entry(*e);
        std::string name(entry.substr(0, entry.find('=')));
        if (!drop.count(name)) env.emplace_back(entry);
    }
    for (const auto& [k, v] : r.env_set) env.push_back(k + "=" + v);
    return env;
}

class SystemProcessRunner final : public ProcessRunner {
public:
    ProcessResult run(const ProcessRequest& request) override {
        if (request.argv.empty()) throw RuntimeError("empty command");
        Pipe in, out, err;
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, in.fd[0], 0);
        posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
        posix_spawn_file_actions_adddup2(&actions, err.fd[1], 2);
        if (request.cwd) posix_spawn_file_actions_addchdir_np(&actions, request.cwd->c_str());
        posix_spawnattr_t attr;
        posix_spawnattr_init(&attr);
        // Own process group, so a timeout can end the whole tree.
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
        posix_spawnattr_setpgroup(&attr, 0);
        sigset_t none, defaults;
        sigemptyset(&none);
        sigemptyset(&defaults);
        sigaddset(&defaults, SIGINT);
        sigaddset(&defaults, SIGTERM);
        sigaddset(&defaults, SIGPIPE);
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setsigdefault(&attr, &defaults);

        std::vector<std::string> env = build_environment(request);
        std::vector<char*> envp;
        for (std::string& e : env) envp.push_back(e.data());
        envp.push_back(nullptr);
        std::vector<std::string> args = request.argv;
        std::vector<char*> argv;
        for (std::string& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);

        pid_t pid = -1;
        int rc = ::posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attr);
        if (rc != 0)
            throw RuntimeError(fmt::format("cannot run '{}': {}", request.argv[0], std::strerror(rc)),
                               "is it installed and on PATH?");
        in.close_end(0);
        out.close_end(1);
        err.close_end(1);

        ProcessResult result;
        std::string_view to_write = request.stdin_data ? std::string_view(*request.stdin_data) : std::string_view{};
        if (to_write.empty()) in.close_end(1);
        ::fcntl(in.fd[1] >= 0 ? in.fd[1] : out.fd[0], F_SETFL, O_NONBLOCK);

        auto deadline = request.timeout ? std::chrono::steady_clock::now() + *request.timeout
                                        : std::chrono::steady_clock::time_point::max();
        bool killed = false;
        char buf[65536];
        while (out.fd[0] >= 0 || err.fd[0] >= 0) {
            pollfd fds[3];
            int n = 0;
            int idx_out = -1, idx_err = -1, idx_in = -1;
            if (out.fd[0] >= 0) {
                fds[n] = {out.fd[0], POLLIN, 0};
                idx_out = n++;
            }
            if (err.fd[0] >= 0) {
                fds[n] = {err.fd[0], POLLIN, 0};
                idx_err = n++;
            }
            if (in.fd[1] >= 0) {
                fds[n] = {in.fd[1], POLLOUT, 0};
                idx_in = n++;
            }
            int wait_ms = 200;
            if (request.timeout) {
                auto left =
                    std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now())
                        .count();
                wait_ms = static_cast<int>(std::max<long long>(0, std::min<long long>(left, 200)));
            }
            int pr = ::poll(fds, static_cast<nfds_t>(n), wait_ms);
            if (pr < 0 && errno != EINTR) break;
            if (request.timeout && !killed && std::chrono::steady_clock::now() >= deadline) {
                ::kill(-pid, SIGTERM);
                killed = true;
                result.timed_out = true;
                deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
            } else if (killed && std::chrono::steady_clock::now() >= deadline) {
                ::kill(-pid, SIGKILL);
            }
            if (pr <= 0) continue;
            auto drain = [&](int idx, Pipe& p, std::string& sink) {
                if (idx < 0 || !(fds[idx].revents & (POLLIN | POLLHUP | POLLERR))) return;
                ssize_t r = ::read(p.fd[0], buf, sizeof buf);
                if (r > 0)
                    sink.append(buf, static_cast<std::size_t>(r));
                else if (r == 0 || errno != EINTR)
                    p.close_end(0);
            };
            drain(idx_out, out, result.out);
            drain(idx_err, err, result.err);
            if (idx_in >= 0 && (fds[idx_in].revents & (POLLOUT | POLLERR | POLLHUP))) {
                ssize_t w = ::write(in.fd[1], to_write.data(), to_write.size());
                if (w > 0) to_write.remove_prefix(static_cast<std::size_t>(w));
                if (w < 0 && errno != EAGAIN && errno != EINTR) to_write = {};
                if (to_write.empty()) in.close_end(1);
            }
        }
        in.close_end(1);
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (WIFEXITED(status))
            result.exit_code = WEXITSTATUS(status);
        else if (WIFSIGNALED(status))
            result.exit_code = 128 + WTERMSIG(status);
        return result;
    }
};

}  // namespace

ProcessRunner& system_process_runner() {
    static SystemProcessRunner runner;
    return runner;
}

bool program_on_path(std::string_view name) {
    auto executable = [](const std::string& p) {
        struct stat st {};
        return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
    };
    if (name.find('/') != std::string_view::npos) return executable(std::string(name));
    const char* path = std::getenv("PATH");
    std::string_view rest = path ? path : "/usr/local/bin:/usr/bin:/bin";
    while (!rest.empty()) {
        std::size_t colon = rest.find(':');
        std::string_view dir = rest.substr(0, colon);
        if (!dir.empty() && executable(fmt::format("{}/{}", dir, name))) return true;
        if (colon == std::string_view::npos) break;
        rest.remove_prefix(colon + 1);
    }
    return false;
}

}  // namespace trainbench
