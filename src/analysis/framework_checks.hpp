// Private to analysis: the framework's own printed TFLOPS/GPU and MFU (Megatron-Bridge's
// "GPU utilization", TorchTitan's tflops and mfu) against trainbench's figure under that
// framework's FLOPs convention and peak, as cross-check rows; a disagreement is a finding.
#pragma once

#include <trainbench/analysis.hpp>

namespace trainbench::analysis::detail {

// Relative difference beyond which the framework's figure and trainbench's disagree. Both
// compute the same formula from the same step time: what is left is the framework's rounding
// (one decimal of TFLOPS, of milliseconds) and, for TorchTitan, a step time read from log
// timestamps.
inline constexpr double k_framework_tolerance = 0.01;

// Appends the rows (and their findings) for `s` (derived figures filled) when the log is one
// that prints its own figures; nothing otherwise.
void framework_cross_checks(const AnalysisRequest& request, const Inputs& in, RunSummary& s);

}  // namespace trainbench::analysis::detail
