// Peak dense TFLOPS per (GPU family, precision), per convention where the
// tools differ. Sources: docs/metrics.md "Peaks".
#include <trainbench/analysis.hpp>

#include <fmt/format.h>

namespace trainbench::analysis {

using catalog::Precision;

const std::vector<PeakRow>& peak_table() {
    static const std::vector<PeakRow> rows = {
        // NVIDIA's dense values as NVIDIA publishes them (sparse datasheet value / 2,
        // rounded as DGX Cloud benchmarking and the MaxText READMEs print them).
        {"default", "a100", Precision::bf16, 312},
        {"default", "a100", Precision::fp16, 312},
        {"default", "a100", Precision::tf32, 156},
        {"default", "a100", Precision::fp32, 19.5},
        {"default", "h100", Precision::bf16, 989},
        {"default", "h100", Precision::fp16, 989},
        {"default", "h100", Precision::fp8, 1979},
        {"default", "h100", Precision::tf32, 494.7},
        {"default", "h100", Precision::fp32, 66.9},
        {"default", "h200", Precision::bf16, 989},
        {"default", "h200", Precision::fp16, 989},
        {"default", "h200", Precision::fp8, 1979},
        {"default", "h200", Precision::tf32, 494.7},
        {"default", "h200", Precision::fp32, 66.9},
        {"default", "b200", Precision::bf16, 2250},
        {"default", "b200", Precision::fp16, 2250},
        {"default", "b200", Precision::fp8, 4500},
        // gpu-recipes src/data_defs.py MAX_TFLOPS, verbatim (GPUs only).
        {"gpu-recipes", "h100", Precision::bf16, 989},
        {"gpu-recipes", "h100", Precision::fp8, 1978},
        {"gpu-recipes", "h200", Precision::bf16, 989},
        {"gpu-recipes", "h200", Precision::fp8, 1978},
        {"gpu-recipes", "a100", Precision::bf16, 312},
        {"gpu-recipes", "b200", Precision::bf16, 2250},
        {"gpu-recipes", "b200", Precision::fp8, 4500},
    };
    return rows;
}

namespace {

std::vector<std::string> pairs_of(std::string_view table) {
    std::vector<std::string> out;
    for (const PeakRow& r : peak_table())
        if (r.table == table) out.push_back(fmt::format("{}/{}", r.gpu, catalog::to_string(r.precision)));
    return out;
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
    const bool gpu_recipes = request.convention == "gpu-recipes";
    const std::string_view table = gpu_recipes ? "gpu-recipes" : "default";
    for (const PeakRow& r : peak_table()) {
        if (r.table == table && r.gpu == request.gpu_family && r.precision == request.precision) {
            peak.tflops = r.tflops;
            peak.source = gpu_recipes ? "gpu-recipes data_defs.py MAX_TFLOPS"
                                      : "NVIDIA dense peak (datasheet sparse value / 2, as NVIDIA publishes it)";
            return peak;
        }
    }
    if (gpu_recipes)
        throw InputError(fmt::format("gpu-recipes has no peak for GPU '{}' at precision '{}'; its table has {}",
                                     request.gpu_family, peak.precision, quoted_list(pairs_of("gpu-recipes"), " and ")),
                         "give the peak with --peak TFLOPS, or use another --flops convention");
    if (request.catalog_tflops && *request.catalog_tflops > 0) {
        peak.tflops = *request.catalog_tflops;
        peak.source = "the catalog's dense peak for this GPU (recipes/catalog/gpus.yaml)";
        return peak;
    }
    throw InputError(fmt::format("no peak TFLOPS known for GPU '{}' at precision '{}'; the table has {}",
                                 request.gpu_family, peak.precision, quoted_list(pairs_of("default"), " and ")),
                     "give the peak with --peak TFLOPS, or add peak_tflops to the GPU in the catalog");
}

}  // namespace trainbench::analysis
