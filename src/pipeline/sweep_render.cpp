// Rendering a sweep's points to disk (pipeline::SweepRenderer) as they expand: compiled
// templates per worker, files written without a sync each, one sync, one rename per point.
#include "pipeline/file_modes.hpp"

#include <trainbench/pipeline.hpp>
#include <trainbench/render.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <mutex>
#include <optional>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace trainbench::pipeline {

namespace {

// Many directories of files ("entries": the points) made durable with one sync
// instead of one per file: files are written under a staging directory in `root`,
// commit() syncs the file system once and renames each entry into place (an entry
// that exists is replaced whole), then syncs `root`. A crash leaves each entry whole
// or absent; entries not committed are removed. add() may be called from several threads.
class DirectoryBatch {
public:
    explicit DirectoryBatch(fs::path root);
    ~DirectoryBatch();
    DirectoryBatch(const DirectoryBatch&) = delete;
    DirectoryBatch& operator=(const DirectoryBatch&) = delete;
    void add(const std::string& entry, const fs::path& relative, std::string_view content, fs::perms mode);
    std::size_t commit();  // returns the number of entries made visible

private:
    void make_directories(const fs::path& dir);

    fs::path m_root, m_stage;
    mode_t m_umask = 0;
    std::vector<std::string> m_entries;
    std::set<fs::path> m_made;  // directories under m_stage made so far
    std::mutex m_mutex;
};

// Created with its mode; changed after only where the umask took bits away from it.
void write_new_file(const fs::path& path, std::string_view data, fs::perms mode, mode_t umask) {
    const auto want = static_cast<mode_t>(mode);
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, want);
    if (fd < 0) throw RuntimeError(fmt::format("cannot create '{}': {}", path.string(), std::strerror(errno)));
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int saved = errno;
            ::close(fd);
            throw RuntimeError(fmt::format("cannot write '{}': {}", path.string(), std::strerror(saved)));
        }
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    if (((want & umask) != 0 && ::fchmod(fd, want) != 0) || ::close(fd) != 0)
        throw RuntimeError(fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno)));
}

void sync_path(const fs::path& path, bool whole_file_system) {
    int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) throw RuntimeError(fmt::format("cannot open '{}': {}", path.string(), std::strerror(errno)));
    int rc = whole_file_system ? ::syncfs(fd) : ::fsync(fd);
    int saved = errno;
    ::close(fd);
    if (rc != 0) throw RuntimeError(fmt::format("cannot sync '{}': {}", path.string(), std::strerror(saved)));
}

// The process's umask as Linux reports it (/proc/self/status "Umask:", since 4.7), read
// without changing it: umask(0) and back would let another thread create a file with
// mode 0 meanwhile. Unknown: every bit, so every file gets its mode set explicitly.
mode_t process_umask() {
    std::FILE* f = std::fopen("/proc/self/status", "re");
    if (!f) return 0777;
    mode_t mask = 0777;
    char line[256];
    while (std::fgets(line, sizeof line, f)) {
        unsigned value = 0;
        if (std::sscanf(line, "Umask: %o", &value) == 1) {
            mask = static_cast<mode_t>(value) & 0777;
            break;
        }
    }
    std::fclose(f);
    return mask;
}

DirectoryBatch::DirectoryBatch(fs::path root) : m_root(std::move(root)) {
    std::error_code ec;
    fs::create_directories(m_root, ec);
    if (ec) throw RuntimeError(fmt::format("cannot create directory '{}': {}", m_root.string(), ec.message()));
    m_stage = m_root / fmt::format(".trainbench-staging.{}", ::getpid());
    m_umask = process_umask();
    fs::remove_all(m_stage, ec);
    fs::create_directory(m_stage, ec);
    if (ec) throw RuntimeError(fmt::format("cannot create directory '{}': {}", m_stage.string(), ec.message()));
    m_made.insert(m_stage);
}

DirectoryBatch::~DirectoryBatch() {
    std::error_code ec;
    fs::remove_all(m_stage, ec);
}

// The directories of a file under the staging directory, each made once (no stat of what
// this batch made itself).
void DirectoryBatch::make_directories(const fs::path& dir) {
    {
        std::lock_guard lock(m_mutex);
        if (m_made.count(dir) != 0) return;
    }
    if (dir != m_stage) make_directories(dir.parent_path());
    if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
        throw RuntimeError(fmt::format("cannot create directory '{}': {}", dir.string(), std::strerror(errno)));
    std::lock_guard lock(m_mutex);
    m_made.insert(dir);
}

void DirectoryBatch::add(const std::string& entry, const fs::path& relative, std::string_view content, fs::perms mode) {
    const fs::path target = m_stage / entry / relative;
    make_directories(target.parent_path());
    write_new_file(target, content, mode, m_umask);
    std::lock_guard lock(m_mutex);
    if (m_entries.empty() || m_entries.back() != entry) m_entries.push_back(entry);
}

std::size_t DirectoryBatch::commit() {
    std::lock_guard lock(m_mutex);
    std::sort(m_entries.begin(), m_entries.end());
    m_entries.erase(std::unique(m_entries.begin(), m_entries.end()), m_entries.end());
    sync_path(m_stage, true);  // every staged file is on disk before any entry becomes visible
    std::error_code ec;
    for (const std::string& entry : m_entries) {
        const fs::path target = m_root / entry;
        const fs::path old = m_stage / fmt::format(".replaced.{}", entry);
        // An entry rendered before is replaced whole: moved aside, then removed.
        const bool existed = fs::exists(fs::symlink_status(target, ec));
        if (existed && ::rename(target.c_str(), old.c_str()) != 0)
            throw RuntimeError(fmt::format("cannot replace '{}': {}", target.string(), std::strerror(errno)));
        if (::rename((m_stage / entry).c_str(), target.c_str()) != 0)
            throw RuntimeError(fmt::format("cannot rename into '{}': {}", target.string(), std::strerror(errno)));
    }
    sync_path(m_root, false);
    std::size_t n = m_entries.size();
    m_entries.clear();
    m_made = {m_stage};  // the entries moved out with their directories
    return n;
}

}  // namespace

struct SweepRenderer::Impl {
    std::vector<fs::path> dirs;
    fs::path output;
    std::once_flag made;
    std::optional<DirectoryBatch> batch;  // made on first use: nothing is created before a point renders
    std::vector<std::optional<render::RenderOptions>> workers;  // made by each worker on first use
    std::atomic<std::size_t> files{0};
    Impl(std::vector<fs::path> d, fs::path out, unsigned n)
        : dirs(std::move(d)), output(std::move(out)), workers(std::max(n, 1u)) {}
    DirectoryBatch& directory() {
        std::call_once(made, [this] { batch.emplace(output); });
        return *batch;
    }
};

SweepRenderer::SweepRenderer(std::vector<fs::path> template_dirs, const fs::path& output, unsigned workers)
    : m(std::make_unique<Impl>(std::move(template_dirs), output, workers)) {}

SweepRenderer::~SweepRenderer() = default;

void SweepRenderer::render(const sweep::Point& point, const recipe::Recipe& recipe, unsigned worker) {
    check_interrupted();
    std::optional<render::RenderOptions>& ro = m->workers.at(worker);
    if (!ro) {
        ro.emplace();
        ro->template_dirs = m->dirs;
        ro->engine = render::make_template_engine(m->dirs);  // this worker's compiled templates
    }
    for (const render::RenderedJob& job : render::render(recipe, *ro))
        for (const render::RenderedFile& f : job.files) {
            m->directory().add(point.name, fs::path(job.stage) / f.path, f.content,
                               f.executable ? k_script_mode : k_file_mode);
            ++m->files;
        }
}

std::size_t SweepRenderer::commit() {
    m->directory().commit();
    return m->files;
}

}  // namespace trainbench::pipeline
