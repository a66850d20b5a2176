#include <trainbench/core.hpp>

#include <cstdlib>
#include <unistd.h>

namespace fs = std::filesystem;

namespace trainbench {

std::string_view version() {
    return TRAINBENCH_VERSION;
}

static fs::path self_executable() {
    std::error_code ec;
    fs::path p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path{} : p;
}

// The data root: $TRAINBENCH_HOME, else the source tree when the binary runs
// from its build directory, else the installed share/trainbench next to bin/.
static fs::path data_root() {
    if (const char* home = std::getenv("TRAINBENCH_HOME"); home && *home) return home;
    std::error_code ec;
    fs::path exe = self_executable();
    if (!exe.empty()) {
        // <prefix>/bin/trainbench -> <prefix>/share/trainbench (relocatable installs, .deb)
        fs::path installed = exe.parent_path().parent_path() / "share" / "trainbench";
        if (fs::is_directory(installed / "recipes", ec)) return installed;
    }
    fs::path source = TRAINBENCH_SOURCE_DIR;
    if (!exe.empty() && fs::is_directory(source / "recipes", ec)) {
        // Only trust the compiled-in source dir when the binary lives below it (a build tree).
        std::string e = exe.string(), s = source.string();
        if (e.rfind(s, 0) == 0) return source;
    }
    fs::path compiled = TRAINBENCH_DATADIR;
    if (fs::is_directory(compiled / "recipes", ec)) return compiled;
    if (fs::is_directory(source / "recipes", ec)) return source;
    return compiled;
}

static std::vector<fs::path> env_paths(const char* name) {
    std::vector<fs::path> out;
    const char* v = std::getenv(name);
    if (!v || !*v) return out;
    std::string s = v;
    std::size_t start = 0;
    while (start <= s.size()) {
        std::size_t end = s.find(':', start);
        if (end == std::string::npos) end = s.size();
        if (end > start) out.emplace_back(s.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

DataDirs default_data_dirs(const std::optional<fs::path>& recipes_flag, const std::optional<fs::path>& templates_flag) {
    DataDirs dirs;
    fs::path root = data_root();
    // Catalog directories: shipped first, user ones later (later ones override by name).
    dirs.recipes.push_back(root / "recipes");
    for (const fs::path& p : env_paths("TRAINBENCH_RECIPES")) dirs.recipes.push_back(p);
    if (recipes_flag) dirs.recipes.push_back(*recipes_flag);
    // Template directories: first match wins, so user ones come first.
    if (templates_flag) dirs.templates.push_back(*templates_flag);
    for (const fs::path& p : env_paths("TRAINBENCH_TEMPLATES")) dirs.templates.push_back(p);
    dirs.templates.push_back(root / "templates");
    std::vector<fs::path> workloads = env_paths("TRAINBENCH_WORKLOADS");
    dirs.workloads = workloads.empty() ? root / "workloads" : workloads.front();
    return dirs;
}

}  // namespace trainbench
