// The peak TFLOPS an MFU divides by. Every figure comes from the catalog's GPU
// (recipes/catalog/gpus.yaml: the datasheet dense peaks and the tables of the tools that
// compute MFU); this file only chooses among them. Sources: docs/metrics.md "Peaks".
#include <trainbench/analysis.hpp>

#include <fmt/format.h>

namespace trainbench::analysis {

namespace {

// The catalog's table of NVIDIA's published dense figures (the datasheet sparse value / 2,
// rounded as NVIDIA's own benchmarking prints them), which every convention but gpu-recipes
// divides by where the GPU has one.
constexpr std::string_view k_nvidia_table = "nvidia";

std::string note_text(const catalog::PeakNote& note) {
    if (note.clock.empty()) return note.source;
    return fmt::format("{}; {}", note.source, note.clock);
}

}  // namespace

PeakTable peak_table_of(std::string_view convention) {
    if (convention == "gpu-recipes") return {"gpu-recipes", true};
    return {k_nvidia_table, false};
}

namespace {

Peak from_catalog(const PeakRequest& request, Peak peak) {
    const catalog::Gpu& gpu = *request.gpu;
    const std::string_view tool = request.tool.empty() ? peak_table_of(request.convention).tool : request.tool;
    const bool strict = request.tool.empty() ? peak_table_of(request.convention).strict : true;
    if (const double* v = gpu.tool_peak(tool, request.precision)) {
        peak.tflops = *v;
        peak.source = gpu.tool_peaks.at(std::string(tool)).source;
        return peak;
    }
    if (strict) {
        std::vector<std::string> has;
        if (auto t = gpu.tool_peaks.find(std::string(tool)); t != gpu.tool_peaks.end())
            for (const auto& [p, v] : t->second.tflops) has.emplace_back(catalog::to_string(p));
        throw InputError(
            fmt::format("{} has no peak for GPU '{}' at precision '{}'; for this GPU it has {}", tool,
                        request.gpu_family, peak.precision,
                        has.empty() ? std::string("none") : quoted_list(has, " and ")),
            fmt::format("give the peak with --peak TFLOPS, or use another --flops convention (the table is "
                        "tool_peaks.{} of '{}' in recipes/catalog/gpus.yaml)",
                        tool, gpu.name));
    }
    auto it = gpu.peak_tflops_dense.find(request.precision);
    if (it == gpu.peak_tflops_dense.end())
        throw InputError(fmt::format("GPU '{}' has no {} peak; its precisions are {}", gpu.name, peak.precision,
                                     gpu.peak_tflops_dense.empty() ? std::string("none in the catalog")
                                                                   : quoted_list(gpu.precision_names(), " and ")),
                         "give the peak with --peak TFLOPS, use one of its precisions (--precision), or add "
                         "peak_tflops to the GPU in the catalog");
    peak.tflops = it->second;
    auto note = gpu.peak_notes.find(request.precision);
    peak.source = note != gpu.peak_notes.end() && !note->second.source.empty()
                      ? note_text(note->second)
                      : std::string("the catalog's dense peak for this GPU (recipes/catalog/gpus.yaml)");
    return peak;
}

}  // namespace

Peak resolve_peak(const PeakRequest& request) {
    Peak peak;
    peak.gpu = request.gpu_family;
    peak.precision = std::string(catalog::to_string(request.precision));
    if (request.override_tflops) {
        if (!(*request.override_tflops > 0))
            throw UsageError(
                fmt::format("the peak must be a positive number of TFLOPS, not '{}'", *request.override_tflops));
        peak.tflops = *request.override_tflops;
        peak.source = "given on the command line (--peak)";
        return peak;
    }
    if (request.gpu_family == "cpu") {
        if (!request.measured_tflops || !(*request.measured_tflops > 0))
            throw InputError("GPU 'cpu' has no catalog peak and the log has no 'peak_tflops_measured' record",
                             "the tinygpt workload writes it at start; otherwise give --peak TFLOPS");
        peak.tflops = *request.measured_tflops;
        peak.source = "measured on this machine by the workload's matmul calibration";
        return peak;
    }
    if (!request.gpu)
        throw InputError(
            fmt::format("no peak TFLOPS known for GPU '{}': it is not a GPU of the catalog", request.gpu_family),
            "give --gpu with a GPU of `trainbench list gpus`, or the peak with --peak TFLOPS");
    return from_catalog(request, std::move(peak));
}

}  // namespace trainbench::analysis
