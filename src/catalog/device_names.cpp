// The catalog GPU of a device name as the CUDA driver reports it
// (torch.cuda.get_device_name, nvidia-smi --query-gpu=name): gpus.yaml's device_names.
#include <trainbench/catalog.hpp>

#include <fmt/format.h>

#include <cctype>

namespace trainbench::catalog {

namespace {

// Lower case, trimmed, runs of blanks as one space.
std::string normalised(std::string_view text) {
    std::string out;
    bool blank = false;
    for (char c : text) {
        if (std::isspace(static_cast<unsigned char>(c))) {
            blank = !out.empty();
            continue;
        }
        if (blank) out += ' ';
        blank = false;
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

// Glob with '*' only (iterative, with backtracking to the last star).
bool glob_match(std::string_view pattern, std::string_view text) {
    std::size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
    while (t < text.size()) {
        if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            resume = t;
        } else if (p < pattern.size() && pattern[p] == text[t]) {
            ++p;
            ++t;
        } else if (star != std::string_view::npos) {
            p = star + 1;
            t = ++resume;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

std::string join_names(const std::vector<std::string>& items) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
    return out;
}

}  // namespace

bool device_name_matches(std::string_view pattern, std::string_view device_name) {
    return glob_match(normalised(pattern), normalised(device_name));
}

const Gpu& Catalog::gpu_for_device(std::string_view device_name, std::string_view seen_in) const {
    std::vector<const Gpu*> hits;
    std::vector<std::string> known;
    for (const auto& [name, gpu] : m_gpus) {
        bool hit = false;
        for (const std::string& pattern : gpu.device_names) {
            known.push_back(fmt::format("'{}' ({})", pattern, name));
            hit = hit || device_name_matches(pattern, device_name);
        }
        if (hit) hits.push_back(&gpu);
    }
    if (hits.size() == 1) return *hits.front();
    if (hits.size() > 1)
        throw InputError(fmt::format("the GPU '{}' ({}) matches the device_names of both '{}' and '{}' in the catalog",
                                     device_name, seen_in, hits[0]->name, hits[1]->name),
                         "make the device_names patterns of the catalog's GPUs disjoint");
    const bool mig = normalised(device_name).find(" mig ") != std::string::npos;
    throw InputError(
        fmt::format("the GPU '{}' ({}) is not in the catalog: no GPU lists that name in its device_names "
                    "(recipes/catalog/gpus.yaml); the catalog knows {}",
                    device_name, seen_in, known.empty() ? std::string("none") : join_names(known)),
        mig ? "a MIG instance has a share of its GPU's peak, which no datasheet gives: report with --gpu NAME "
              "--peak TFLOPS"
            : "add the name to the device_names of its GPU (with that GPU's datasheet dense peaks) in a catalog "
              "gpus.yaml, or give the GPU with --gpu NAME");
}

}  // namespace trainbench::catalog
