// Helpers every framework's launch builder uses.
#include "render/frameworks/framework.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace trainbench::render {

std::vector<ShellWord> group(ShellWord w) {
    return {std::move(w)};
}

std::string argument_key(const std::string& word) {
    std::string w = word;
    if (w.rfind("--", 0) != 0) {
        std::size_t first = w.find_first_not_of("+~");
        w.erase(0, first == std::string::npos ? w.size() : first);
    }
    return w.substr(0, w.find('='));
}

void append_args(std::vector<ShellWord>& out, const Args& args, const std::vector<std::string>& extra) {
    std::vector<std::string> extra_keys;
    for (const std::string& e : extra)
        if (e.rfind("-", 0) == 0 || e.find('=') != std::string::npos) extra_keys.push_back(argument_key(e));
    for (const std::vector<ShellWord>& g : args) {
        if (g.empty()) continue;
        std::string key = argument_key(g.front().plain());
        if (std::find(extra_keys.begin(), extra_keys.end(), key) != extra_keys.end()) continue;
        out.insert(out.end(), g.begin(), g.end());
    }
    for (const std::string& word : extra) out.emplace_back(word);
}

ShellWord run_path(const std::string& relative) {
    return word_with_var("", k_run_dir_var, "/" + relative);
}

ShellWord nodes_word(const Facts& f, const std::string& prefix) {
    if (f.scheduler == catalog::Scheduler::kubernetes) return word_with_var(prefix, "NNODES");
    return ShellWord(prefix + std::to_string(f.nodes));
}

int data_parallel_size(const recipe::Recipe& r, int total_gpus) {
    int model =
        std::max(1, r.parallelism.tensor) * std::max(1, r.parallelism.pipeline) * std::max(1, r.parallelism.context);
    return std::max(1, total_gpus / model);
}

std::string entry_point(const recipe::Recipe& r, const std::string& fallback_workdir,
                        const std::string& fallback_entry) {
    std::string e = r.launch.entrypoint.empty() ? fallback_entry : r.launch.entrypoint;
    std::string workdir = r.launch.workdir.empty() ? fallback_workdir : r.launch.workdir;
    if (!e.empty() && e.front() != '/' && !workdir.empty()) e = workdir + "/" + e;
    return e;
}

std::string number_text(double v) {
    if (std::floor(v) == v && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<long long>(v));
    return fmt::format("{}", v);
}

std::string py_bool(bool b) {
    return b ? "True" : "False";
}

}  // namespace trainbench::render
