// A fresh directory under the system temp dir (mkdtemp: unique across processes and threads),
// removed with everything in it when the object goes out of scope.
#pragma once

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

namespace trainbench::testing {

class TempDir {
public:
    // `prefix` names the directory (tb-<prefix>-XXXXXX) so a leftover one says which test made it.
    explicit TempDir(std::string_view prefix = "test") {
        std::string tmpl =
            (std::filesystem::temp_directory_path() / ("tb-" + std::string(prefix) + "-XXXXXX")).string();
        if (::mkdtemp(tmpl.data()) == nullptr)
            throw std::filesystem::filesystem_error("mkdtemp", tmpl, std::error_code(errno, std::generic_category()));
        m_path = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    [[nodiscard]] const std::filesystem::path& path() const { return m_path; }
    // Writes `text` to path()/name (its folders made first); returns the file's path.
    std::filesystem::path write(const std::string& name, std::string_view text) const {
        const std::filesystem::path p = m_path / name;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << text;
        return p;
    }

private:
    std::filesystem::path m_path;
};

}  // namespace trainbench::testing
