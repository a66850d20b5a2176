// An MLPerf Training log's step time and model (mlperf_steps.hpp).
#include "pipeline/mlperf_steps.hpp"

#include <trainbench/core.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace trainbench::pipeline::detail {

namespace {

// The run's global batch: the request's (flags, recipe), else the log's global_batch_size (a key
// every MLPerf Training log gives before run_start) when it is a positive integer; 0 when neither.
int global_batch(const metrics::LogData& log, const analysis::Inputs& in) {
    if (in.global_batch > 0) return in.global_batch;
    const std::optional<double> v = log.parameter_number("global_batch_size");
    if (!v || !(*v >= 1 && *v <= std::numeric_limits<int>::max()) || std::floor(*v) != *v) return 0;
    return static_cast<int>(*v);
}

}  // namespace

std::optional<std::string> mlperf_model(const metrics::LogData& log) {
    static const std::map<std::string, std::string, std::less<>> models = {
        {"gpt3", "gpt3-175b"},
        {"llama31_8b", "llama3.1-8b"},
        {"llama31_405b", "llama3.1-405b"},
        {"deepseekv3_671b", "deepseek-v3"},
    };
    if (log.format != "mlperf") return std::nullopt;
    const std::optional<std::string> benchmark = log.parameter_text("submission_benchmark");
    auto it = benchmark ? models.find(*benchmark) : models.end();
    if (it == models.end()) return std::nullopt;
    return it->second;
}

bool take_mlperf_steps(const metrics::LogData& log, analysis::AnalysisRequest& req) {
    if (log.format != "mlperf") return false;
    const int batch = global_batch(log, req.inputs);
    if (batch <= 0)
        throw InputError(fmt::format("an MLPerf log times blocks of training, not steps, and this one gives no "
                                     "usable global batch size to turn a block into steps (global_batch_size: {})",
                                     log.parameter_text("global_batch_size").value_or("not logged")),
                         "give it with --global-batch N (a positive integer)");
    req.provenance.step_source = fmt::format(
        "MLPerf blocks: block_stop - block_start over (samples in the block / global batch {}), one record per "
        "block, at the log's samples_count",
        batch);
    req.step_records = analysis::block_step_samples(log, batch);
    // MLPerf scores the whole run: unless asked otherwise, the window is every block.
    if (req.inputs.window_origin == "default" && !req.step_records.empty()) {
        const auto [lo, hi] = std::minmax_element(
            req.step_records.begin(), req.step_records.end(),
            [](const analysis::StepSample& a, const analysis::StepSample& b) { return a.step < b.step; });
        req.inputs.window = {lo->step, hi->step, {}};
        req.inputs.window_origin = "every MLPerf block (samples_count)";
    }
    return true;
}

}  // namespace trainbench::pipeline::detail
