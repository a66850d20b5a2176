// Private to analysis: the figures a report uses are finite numbers, or the report is refused
// where they come from (the log and the step), never stored or printed as NaN or an infinity.
#pragma once

#include <trainbench/analysis.hpp>

namespace trainbench::analysis::detail {

// Step times are finite positive numbers: one in the window that is not (NaN, an infinity, a
// negative or zero time) throws InputError naming the log and the step (up to 5 listed); outside
// the window it is a warning added to `findings` (the window's figures do not use it).
void check_step_times(const AnalysisRequest& request, const StepWindow& window, std::vector<Finding>& findings);

// tokens/s, TFLOPS/GPU and MFU from the window's mean must be finite too (steps of 4e-320 s
// overflow tokens/s): InputError otherwise.
void check_derived(const RunSummary& s, const Provenance& p);

}  // namespace trainbench::analysis::detail
