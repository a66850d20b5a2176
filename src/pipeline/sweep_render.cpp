// Rendering a sweep's points to disk (pipeline::render_points): compiled templates per
// thread, files written without a sync each, one sync, one rename per point.
#include "pipeline/file_modes.hpp"

#include <trainbench/pipeline.hpp>
#include <trainbench/render.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <mutex>
#include <sys/stat.h>
#include <thread>
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
    fs::path m_root, m_stage;
    std::vector<std::string> m_entries;
    std::mutex m_mutex;
};

void write_new_file(const fs::path& path, std::string_view data, fs::perms mode) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
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
    if (::fchmod(fd, static_cast<mode_t>(mode)) != 0 || ::close(fd) != 0)
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

DirectoryBatch::DirectoryBatch(fs::path root) : m_root(std::move(root)) {
    std::error_code ec;
    fs::create_directories(m_root, ec);
    if (ec) throw RuntimeError(fmt::format("cannot create directory '{}': {}", m_root.string(), ec.message()));
    m_stage = m_root / fmt::format(".trainbench-staging.{}", ::getpid());
    fs::remove_all(m_stage, ec);
    fs::create_directory(m_stage, ec);
    if (ec) throw RuntimeError(fmt::format("cannot create directory '{}': {}", m_stage.string(), ec.message()));
}

DirectoryBatch::~DirectoryBatch() {
    std::error_code ec;
    fs::remove_all(m_stage, ec);
}

void DirectoryBatch::add(const std::string& entry, const fs::path& relative, std::string_view content, fs::perms mode) {
    const fs::path target = m_stage / entry / relative;
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    if (ec)
        throw RuntimeError(
            fmt::format("cannot create directory '{}': {}", target.parent_path().string(), ec.message()));
    write_new_file(target, content, mode);
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
    return n;
}

constexpr std::size_t k_points_per_thread = 32;  // fewer points are not worth a second thread

unsigned render_threads(std::size_t points) {
    const unsigned cores = std::clamp(std::thread::hardware_concurrency(), 1u, 2u);
    return static_cast<unsigned>(std::clamp<std::size_t>(points / k_points_per_thread, 1, cores));
}

}  // namespace

std::size_t render_points(const sweep::Expansion& x, const std::vector<fs::path>& dirs, const fs::path& output) {
    std::vector<const sweep::Point*> points;
    for (const sweep::Point& p : x.points)
        if (p.valid) points.push_back(&p);
    DirectoryBatch batch(output);
    std::atomic<std::size_t> next{0}, files{0};
    std::atomic<bool> failed{false};
    const unsigned n = render_threads(points.size());
    std::vector<std::exception_ptr> errors(n);
    auto work = [&](unsigned t) {
        try {
            render::RenderOptions ro;
            ro.template_dirs = dirs;
            ro.engine = render::make_template_engine(dirs);  // this thread's compiled templates
            for (std::size_t i = next++; i < points.size() && !failed; i = next++) {
                check_interrupted();
                const sweep::Point& p = *points[i];
                for (const render::RenderedJob& job : render::render(*p.recipe, ro))
                    for (const render::RenderedFile& f : job.files) {
                        batch.add(p.name, fs::path(job.stage) / f.path, f.content,
                                  f.executable ? k_script_mode : k_file_mode);
                        ++files;
                    }
            }
        } catch (...) {
            errors[t] = std::current_exception();
            failed = true;
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < n; ++t) pool.emplace_back(work, t);
    work(0);
    for (std::thread& th : pool) th.join();
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
    batch.commit();
    return files;
}

}  // namespace trainbench::pipeline
