// This machine's NVIDIA GPUs, as the local backend's jobs can use them: checked before a
// run on the local GPU target exists (pipeline::submit_recipe), so a machine without
// them fails at once (exit 4) instead of leaving a run whose job could never start.
#include <trainbench/backend.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

namespace fs = std::filesystem;

namespace trainbench::backend {

namespace {

// "nvidia0", "nvidia12": a GPU's character device (nvidiactl, nvidia-uvm, ... are not GPUs).
bool is_gpu_node(const std::string& name) {
    constexpr std::string_view prefix = "nvidia";
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return false;
    return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix.size()), name.end(),
                       [](char c) { return c >= '0' && c <= '9'; });
}

// "Model: \t NVIDIA H100 80GB HBM3" of the driver's information file.
std::string model_of(const fs::path& information) {
    std::ifstream in(information);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("Model:", 0) != 0) continue;
        std::string value = line.substr(6);
        const auto first = value.find_first_not_of(" \t");
        const auto last = value.find_last_not_of(" \t\r");
        return first == std::string::npos ? std::string() : value.substr(first, last - first + 1);
    }
    return {};
}

}  // namespace

LocalGpus probe_local_gpus(const fs::path& dev, const fs::path& driver_gpus) {
    LocalGpus out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dev, ec))
        if (is_gpu_node(e.path().filename().string())) ++out.device_nodes;
    std::vector<fs::path> infos;
    for (const auto& e : fs::directory_iterator(driver_gpus, ec)) infos.push_back(e.path() / "information");
    std::sort(infos.begin(), infos.end());
    for (const fs::path& info : infos)
        if (std::string model = model_of(info); !model.empty()) out.names.push_back(model);
    out.count = out.device_nodes;
    out.evidence = fmt::format("{} {}/nvidia<N> device node(s)", out.device_nodes, dev.string());
    if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"); visible != nullptr) {
        out.visible_devices_set = true;
        out.visible_devices = visible;
        int listed = 0;
        std::string item;
        for (char c : out.visible_devices + ",") {
            if (c != ',') {
                item += c;
                continue;
            }
            if (item.find_first_not_of(" ") != std::string::npos) ++listed;
            item.clear();
        }
        // "-1" or "NoDevFiles" hide every GPU, as an empty list does.
        if (out.visible_devices.find("-1") == 0 || out.visible_devices == "NoDevFiles") listed = 0;
        out.count = std::min(out.count, listed);
        out.evidence += fmt::format(", CUDA_VISIBLE_DEVICES='{}'", out.visible_devices);
    }
    return out;
}

}  // namespace trainbench::backend
