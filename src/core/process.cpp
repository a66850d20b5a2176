#include <trainbench/core.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <list>
#include <poll.h>
#include <set>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace trainbench {

long ProcessRunner::start(const ProcessRequest& request, const DetachedOutput&) {
    throw RuntimeError(fmt::format("cannot start '{}' in the background: this process runner only runs commands",
                                   request.argv.empty() ? std::string() : request.argv[0]));
}

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

// How one process is spawned: its file actions and attributes, destroyed with it.
class Spawn {
public:
    Spawn() {
        posix_spawn_file_actions_init(&m_actions);
        posix_spawnattr_init(&m_attr);
    }
    ~Spawn() {
        posix_spawn_file_actions_destroy(&m_actions);
        posix_spawnattr_destroy(&m_attr);
    }
    Spawn(const Spawn&) = delete;
    Spawn& operator=(const Spawn&) = delete;

    void dup_to(int fd, int target) { posix_spawn_file_actions_adddup2(&m_actions, fd, target); }
    void open_as(int target, const std::string& path, int flags) {
        m_paths.push_back(path);  // posix_spawn reads the path when it spawns
        posix_spawn_file_actions_addopen(&m_actions, target, m_paths.back().c_str(), flags, 0644);
    }
    void chdir(const std::filesystem::path& dir) {
        m_paths.push_back(dir.string());
        posix_spawn_file_actions_addchdir_np(&m_actions, m_paths.back().c_str());
    }
    void close_from(int fd) { posix_spawn_file_actions_addclosefrom_np(&m_actions, fd); }
    // `group_flag` (POSIX_SPAWN_SETPGROUP or POSIX_SPAWN_SETSID): the child leads a group of its own;
    // its signal mask is empty and `defaults` are back to their default actions.
    void own_group(short group_flag, std::initializer_list<int> defaults) {
        posix_spawnattr_setflags(&m_attr,
                                 static_cast<short>(group_flag | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF));
        posix_spawnattr_setpgroup(&m_attr, 0);
        sigset_t none, set;
        sigemptyset(&none);
        sigemptyset(&set);
        for (int s : defaults) sigaddset(&set, s);
        posix_spawnattr_setsigmask(&m_attr, &none);
        posix_spawnattr_setsigdefault(&m_attr, &set);
    }
    // Spawns `request.argv` (found on PATH) with the request's environment; 0 and the pid, or errno.
    int spawn(const ProcessRequest& request, pid_t& pid) {
        std::vector<std::string> env = build_environment(request);
        std::vector<char*> envp;
        for (std::string& e : env) envp.push_back(e.data());
        envp.push_back(nullptr);
        std::vector<std::string> args = request.argv;
        std::vector<char*> argv;
        for (std::string& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        return ::posix_spawnp(&pid, argv[0], &m_actions, &m_attr, argv.data(), envp.data());
    }

private:
    posix_spawn_file_actions_t m_actions;
    posix_spawnattr_t m_attr;
    std::list<std::string> m_paths;
};

// The exit status of a child as an exit code (128+signal when a signal ended it).
int wait_for_exit(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
}

// Feeds stdin and drains stdout/stderr of a running child until both close,
// ending its process group (SIGTERM, then SIGKILL 5 s later) at the timeout.
class Capture {
public:
    Capture(const ProcessRequest& request, pid_t pid, Pipe& in, Pipe& out, Pipe& err)
        : m_request(request), m_pid(pid), m_in(in), m_out(out), m_err(err) {
        m_to_write = request.stdin_data ? std::string_view(*request.stdin_data) : std::string_view{};
        if (m_to_write.empty()) m_in.close_end(1);
        ::fcntl(m_in.fd[1] >= 0 ? m_in.fd[1] : m_out.fd[0], F_SETFL, O_NONBLOCK);
        m_deadline = request.timeout ? std::chrono::steady_clock::now() + *request.timeout
                                     : std::chrono::steady_clock::time_point::max();
    }

    void run(ProcessResult& result) {
        while (m_out.fd[0] >= 0 || m_err.fd[0] >= 0) {
            int ready = poll_once();
            if (ready < 0 && errno != EINTR) break;
            enforce_timeout(result);
            if (ready <= 0) continue;
            drain(m_idx_out, m_out, result.out);
            drain(m_idx_err, m_err, result.err);
            feed();
        }
        m_in.close_end(1);
    }

private:
    int poll_once() {
        int n = 0;
        m_idx_out = m_idx_err = m_idx_in = -1;
        auto add = [&](int fd, short events, int& idx) {
            if (fd < 0) return;
            m_fds[n] = {fd, events, 0};
            idx = n++;
        };
        add(m_out.fd[0], POLLIN, m_idx_out);
        add(m_err.fd[0], POLLIN, m_idx_err);
        add(m_in.fd[1], POLLOUT, m_idx_in);
        int wait_ms = 200;
        if (m_request.timeout) {
            auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(m_deadline - std::chrono::steady_clock::now())
                    .count();
            wait_ms = static_cast<int>(std::max<long long>(0, std::min<long long>(left, 200)));
        }
        return ::poll(m_fds, static_cast<nfds_t>(n), wait_ms);
    }

    void enforce_timeout(ProcessResult& result) {
        auto now = std::chrono::steady_clock::now();
        if (m_request.timeout && !m_killed && now >= m_deadline) {
            ::kill(-m_pid, SIGTERM);
            m_killed = true;
            result.timed_out = true;
            m_deadline = now + std::chrono::seconds(5);
        } else if (m_killed && now >= m_deadline) {
            ::kill(-m_pid, SIGKILL);
        }
    }

    void drain(int idx, Pipe& p, std::string& sink) {
        if (idx < 0 || !(m_fds[idx].revents & (POLLIN | POLLHUP | POLLERR))) return;
        ssize_t r = ::read(p.fd[0], m_buf, sizeof m_buf);
        if (r > 0)
            sink.append(m_buf, static_cast<std::size_t>(r));
        else if (r == 0 || errno != EINTR)
            p.close_end(0);
    }

    void feed() {
        if (m_idx_in < 0 || !(m_fds[m_idx_in].revents & (POLLOUT | POLLERR | POLLHUP))) return;
        ssize_t w = ::write(m_in.fd[1], m_to_write.data(), m_to_write.size());
        if (w > 0) m_to_write.remove_prefix(static_cast<std::size_t>(w));
        if (w < 0 && errno != EAGAIN && errno != EINTR) m_to_write = {};
        if (m_to_write.empty()) m_in.close_end(1);
    }

    const ProcessRequest& m_request;
    pid_t m_pid;
    Pipe &m_in, &m_out, &m_err;
    std::string_view m_to_write;
    std::chrono::steady_clock::time_point m_deadline;
    bool m_killed = false;
    pollfd m_fds[3]{};
    int m_idx_out = -1, m_idx_err = -1, m_idx_in = -1;
    char m_buf[65536];
};

class SystemProcessRunner final : public ProcessRunner {
public:
    ProcessResult run(const ProcessRequest& request) override {
        if (request.argv.empty()) throw RuntimeError("empty command");
        Pipe in, out, err;
        pid_t pid = -1;
        {
            Spawn spawn;
            spawn.dup_to(in.fd[0], 0);
            spawn.dup_to(out.fd[1], 1);
            spawn.dup_to(err.fd[1], 2);
            if (request.cwd) spawn.chdir(*request.cwd);
            // Own process group, so a timeout can end the whole tree.
            spawn.own_group(POSIX_SPAWN_SETPGROUP, {SIGINT, SIGTERM, SIGPIPE});
            if (int rc = spawn.spawn(request, pid); rc != 0)
                throw RuntimeError(fmt::format("cannot run '{}': {}", request.argv[0], std::strerror(rc)),
                                   "is it installed and on PATH?");
        }
        in.close_end(0);
        out.close_end(1);
        err.close_end(1);
        ProcessResult result;
        Capture(request, pid, in, out, err).run(result);
        result.exit_code = wait_for_exit(pid);
        return result;
    }

    long start(const ProcessRequest& request, const DetachedOutput& output) override {
        if (request.argv.empty()) throw RuntimeError("empty command");
        if (request.stdin_data || request.timeout)
            throw RuntimeError(
                fmt::format("cannot start '{}' in the background with input or a time limit", request.argv[0]));
        Spawn spawn;
        spawn.open_as(0, "/dev/null", O_RDONLY);
        spawn.open_as(1, output.stdout_file.string(), O_WRONLY | O_CREAT | O_APPEND);
        spawn.open_as(2, output.stderr_file.string(), O_WRONLY | O_CREAT | O_APPEND);
        if (request.cwd) spawn.chdir(*request.cwd);
        // The process outlives this one: it must not keep trainbench's lock files locked.
        spawn.close_from(3);
        // Its own session: it outlives this process and a terminal's Ctrl-C and hang-up.
        spawn.own_group(POSIX_SPAWN_SETSID, {SIGINT, SIGTERM, SIGPIPE, SIGHUP});
        pid_t pid = -1;
        if (int rc = spawn.spawn(request, pid); rc != 0)
            throw RuntimeError(fmt::format("cannot start '{}': {}", request.argv[0], std::strerror(rc)));
        return pid;
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
