// Private to pipeline: what a report reads of an MLPerf Training log that the other formats
// give directly, its step time and its model (mlperf_steps.cpp).
#pragma once

#include <trainbench/analysis.hpp>
#include <trainbench/metrics.hpp>

#include <optional>
#include <string>

namespace trainbench::pipeline::detail {

// The catalog model an MLPerf log's submission_benchmark stands for (mlperf_logging's
// benchmark_meta.py names: llama31_8b -> llama3.1-8b); nullopt for any other log or benchmark.
[[nodiscard]] std::optional<std::string> mlperf_model(const metrics::LogData& log);

// An MLPerf log times blocks, not steps: its step records are each block's mean step time
// (analysis::block_step_samples) over the global batch (the request's, else the log's
// global_batch_size), and, unless a window was asked for, the window is every block. False
// when `log` is no MLPerf log; InputError when it gives no global batch.
bool take_mlperf_steps(const metrics::LogData& log, analysis::AnalysisRequest& req);

}  // namespace trainbench::pipeline::detail
