// The template engine: kainjow mustache plus what it lacks. Templates are
// files found in an ordered list of directories (a user's --templates
// directory first, so it overrides shipped templates file by file). Values
// are escaped for the output kind of the template's file name. Before
// rendering, every tag is checked against the context: a name the context
// does not have is an InputError naming the template file, line and tag.
#pragma once

#include "render/escape.hpp"
#include "render/template_scan.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace trainbench::render {

class TemplateEngine {
public:
    explicit TemplateEngine(std::vector<std::filesystem::path> dirs);
    ~TemplateEngine();
    TemplateEngine(const TemplateEngine&) = delete;
    TemplateEngine& operator=(const TemplateEngine&) = delete;

    // The file for a template path such as "slurm/job.sbatch"; first directory wins.
    [[nodiscard]] std::optional<std::filesystem::path> find(const std::filesystem::path& relative) const;
    // Relative paths ("slurm/job.sbatch", ...) of every template file under
    // <dir>/<family>/ in any directory, sorted and without duplicates.
    [[nodiscard]] std::vector<std::filesystem::path> list(const std::filesystem::path& family) const;

    // Renders the template file at `relative`. The escape is chosen from its
    // extension, or given explicitly.
    [[nodiscard]] std::string render(const std::filesystem::path& relative,
                                     const nlohmann::ordered_json& context) const;
    [[nodiscard]] std::string render(const std::filesystem::path& relative, const nlohmann::ordered_json& context,
                                     OutputKind kind) const;

    // Renders every template file in `relatives` with one context, converted for the engine
    // once (the files of one family); each escaped for its own extension.
    [[nodiscard]] std::vector<std::string> render_all(const std::vector<std::filesystem::path>& relatives,
                                                      const nlohmann::ordered_json& context) const;

    // Renders template text held in memory (tests); `display_name` names it in errors.
    [[nodiscard]] std::string render_text(const std::string& text, const std::string& display_name, OutputKind kind,
                                          const nlohmann::ordered_json& context) const;

    [[nodiscard]] const std::vector<std::filesystem::path>& dirs() const { return m_dirs; }

private:
    struct Source {
        std::string text;
        std::string display;  // the file path shown in messages
    };
    struct Compiled;
    struct EngineData;
    [[nodiscard]] std::string render_source(const Source& source, OutputKind kind,
                                            const nlohmann::ordered_json& context, EngineData& data) const;
    const Source& load(const std::filesystem::path& relative) const;
    void check(const Source& source, const nlohmann::ordered_json& context) const;
    [[nodiscard]] const ScanResult& scan(const std::string& text) const;
    [[nodiscard]] std::vector<std::filesystem::path> list_files(const std::filesystem::path& family) const;
    Compiled& compile(const std::string& text, const std::string& display_name) const;
    [[nodiscard]] bool changes_delimiters(const std::string& text) const;
    [[nodiscard]] std::optional<std::string> inline_partials(const std::string& prepared, int depth) const;

    // Everything below is read or computed once per engine (one render, or a whole sweep).
    std::vector<std::filesystem::path> m_dirs;
    mutable std::map<std::string, Source> m_cache;
    mutable std::map<std::string, std::optional<std::filesystem::path>> m_found;
    mutable std::map<std::string, std::vector<std::filesystem::path>> m_lists;
    mutable std::unordered_map<std::string, ScanResult> m_scans;                    // by template text
    mutable std::unordered_map<std::string, std::unique_ptr<Compiled>> m_compiled;  // by template text
    mutable std::unordered_set<std::uint64_t> m_checked;  // template text and context shape that passed the check
};

// Names of every value a context offers ("nodes", "slurm.partition",
// "env.name" for list items), for did-you-mean hints and docs.
[[nodiscard]] std::vector<std::string> context_names(const nlohmann::ordered_json& context);

}  // namespace trainbench::render
