// Values that go to Slurm and Pyxis verbatim: time limits in every form sbatch
// accepts, container image references as Pyxis reads them, host lists, extra
// #SBATCH directives and srun arguments. Each check returns the problem in
// words (empty when the value is fine), so recipe keys and stage options give
// the same message at their own location.
#include <trainbench/recipe.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace trainbench::recipe {

namespace {

std::optional<long long> number(std::string_view s) {
    if (s.empty() || s.size() > 9 ||
        !std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        return std::nullopt;
    long long v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    while (true) {
        std::size_t p = s.find(sep, start);
        out.push_back(s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
        if (p == std::string_view::npos) return out;
        start = p + 1;
    }
}

// The fields after the leading one: hours < 24 after days, minutes and seconds < 60.
bool in_range(const std::vector<long long>& fields, bool after_days) {
    for (std::size_t i = 1; i < fields.size(); ++i)
        if (fields[i] >= 60) return false;
    return !(after_days && !fields.empty() && fields[0] >= 24);  // D-HH too: hours below 24
}

}  // namespace

// sbatch --time: "minutes", "minutes:seconds", "hours:minutes:seconds", "days-hours",
// "days-hours:minutes", "days-hours:minutes:seconds"; 0, UNLIMITED and INFINITE mean no limit.
std::optional<long long> parse_slurm_time(std::string_view text) {
    if (text == "UNLIMITED" || text == "INFINITE" || text == "unlimited" || text == "infinite") return 0;
    long long days = 0;
    std::string_view rest = text;
    bool has_days = false;
    if (std::size_t dash = text.find('-'); dash != std::string_view::npos) {
        auto d = number(text.substr(0, dash));
        if (!d) return std::nullopt;
        days = *d;
        rest = text.substr(dash + 1);
        has_days = true;
    }
    std::vector<long long> fields;
    for (std::string_view part : split(rest, ':')) {
        auto n = number(part);
        if (!n) return std::nullopt;
        fields.push_back(*n);
    }
    if (fields.size() > 3 || !in_range(fields, has_days)) return std::nullopt;
    long long seconds = 0;
    if (has_days) {  // days-hours[:minutes[:seconds]]
        const std::array<long long, 3> unit{3600, 60, 1};
        for (std::size_t i = 0; i < fields.size(); ++i) seconds += fields[i] * unit[i];
        return days * 86400 + seconds;
    }
    if (fields.size() == 1) return fields[0] * 60;              // minutes
    if (fields.size() == 2) return fields[0] * 60 + fields[1];  // minutes:seconds
    return fields[0] * 3600 + fields[1] * 60 + fields[2];       // hours:minutes:seconds
}

std::string format_slurm_time(long long seconds) {
    long long days = seconds / 86400, rest = seconds % 86400;
    std::string hms = fmt::format("{:02}:{:02}:{:02}", rest / 3600, rest % 3600 / 60, rest % 60);
    return days > 0 ? fmt::format("{}-{}", days, hms) : hms;
}

std::string slurm_time_problem(std::string_view text) {
    if (text.empty() || parse_slurm_time(text)) return {};  // empty: unset
    return fmt::format("invalid Slurm time limit '{}'", text);
}

const char* slurm_time_forms() {
    return "minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS (minutes and seconds below 60, hours below 24 "
           "after days), or UNLIMITED";
}

// Pyxis takes an image that starts with '.' or '/' as a squashfs file and anything
// else as an enroot URI ([USER@][REGISTRY#]IMAGE[:TAG]): "apps/foo.sqsh" would be pulled
// from a registry as the image "apps/foo.sqsh".
std::string pyxis_image_problem(std::string_view image) {
    if (image.empty() || image.front() == '/' || image.front() == '.') return {};
    for (std::string_view ext : {".sqsh", ".squashfs", ".sqfs"}) {
        if (image.size() > ext.size() && image.substr(image.size() - ext.size()) == ext)
            return fmt::format(
                "container image '{}' names a squashfs file, but Pyxis reads an image that does not start "
                "with '/' or '.' as a registry image",
                image);
    }
    if (std::any_of(image.begin(), image.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }))
        return fmt::format("container image '{}' contains white space", image);
    return {};
}

// Slurm host lists: "gpu-[1-4,7],gpu-9" ("" = unset).
std::string hostlist_problem(std::string_view list) {
    bool ok = std::all_of(list.begin(), list.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == ',' ||
               c == '[' || c == ']';
    });
    return ok ? std::string() : fmt::format("'{}' is not a Slurm host list", list);
}

std::string slurm_name_problem(std::string_view name) {
    bool ok = std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == ',';
    });
    return ok ? std::string() : fmt::format("'{}' is not a Slurm name (letters, digits, '-', '_', '.', ',')", name);
}

namespace {

// Options trainbench writes itself, and the recipe key that sets each.
const std::vector<std::pair<std::string, std::string>>& managed_options() {
    static const std::vector<std::pair<std::string, std::string>> opts = {{"job-name", "slurm.job_name_prefix"},
                                                                          {"output", "(the run directory's logs)"},
                                                                          {"error", "(the run directory's logs)"},
                                                                          {"nodes", "nodes"},
                                                                          {"ntasks-per-node", "gpus_per_node"},
                                                                          {"array", "the prepare-data stage"},
                                                                          {"dependency", "the stage's dependency"},
                                                                          {"partition", "slurm.partition"},
                                                                          {"account", "slurm.account"},
                                                                          {"qos", "slurm.qos"},
                                                                          {"time", "slurm.time"},
                                                                          {"mem", "slurm.mem"},
                                                                          {"exclusive", "slurm.exclusive"},
                                                                          {"constraint", "slurm.constraint"},
                                                                          {"nodelist", "slurm.nodelist"},
                                                                          {"exclude", "slurm.exclude"},
                                                                          {"reservation", "slurm.reservation"},
                                                                          {"network", "slurm.network"},
                                                                          {"chdir", "(the run directory)"},
                                                                          {"wrap", "(the rendered job script)"}};
    return opts;
}

std::string option_word_problem(std::string_view word, std::string_view what) {
    if (word.size() < 2 || word[0] != '-')
        return fmt::format("{} '{}' is not an option (it must start with '-')", what, word);
    for (char c : word) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            return fmt::format("{} '{}' contains a control character", what, word);
    }
    return {};
}

}  // namespace

std::string sbatch_directive_problem(std::string_view directive) {
    if (std::string p = option_word_problem(directive, "#SBATCH directive"); !p.empty()) return p;
    if (std::any_of(directive.begin(), directive.end(), [](char c) {
            return std::isspace(static_cast<unsigned char>(c)) || c == '"' || c == '\'' || c == '\\';
        }))
        return fmt::format("#SBATCH directive '{}' contains white space, a quote or a backslash", directive);
    if (directive.rfind("--", 0) == 0) {
        std::string_view name = directive.substr(2, directive.find('=') - 2);
        for (const auto& [opt, key] : managed_options())
            if (name == opt) return fmt::format("#SBATCH --{} is written by trainbench; set {} instead", opt, key);
    }
    return {};
}

std::string srun_argument_problem(std::string_view argument) {
    return option_word_problem(argument, "srun argument");
}

}  // namespace trainbench::recipe
