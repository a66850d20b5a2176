// Private to the Kubernetes backend: streaming rank 0's training container log into the run
// directory, and writing back the files the launch script copied into it.
#pragma once

#include "backend/common.hpp"

#include <string>
#include <vector>

namespace trainbench::backend {

// Appends what rank 0's training container printed since the last call to
// run_dir/logs/<stage>/training-0.log (`base` is kubectl with its --context/--namespace).
// True when it wrote new lines; false also when kubectl could not read the log (no pod
// yet, or the pod is gone).
bool follow_training_log(const Runner& run, std::vector<std::string> base, const JobQuery& job);

// Writes the files between the launch script's markers in training-0.log (its DLLogger
// log) and, where the launch script names one, the standard-output file of metrics.path.
void export_log_files(const JobQuery& job);

}  // namespace trainbench::backend
