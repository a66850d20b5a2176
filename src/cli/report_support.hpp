// Private to the CLI: the options `report` and `compare` share: what a bare
// log lacks (pipeline::SummaryOptions) and where the report goes.
#pragma once

#include "cli/app.hpp"

#include <trainbench/pipeline.hpp>

#include <string>

namespace trainbench::cli {

struct ReportFlags : pipeline::SummaryOptions {
    bool csv = false;
    bool markdown = false;
    std::string html;  // file
};

// Adds the shared options to a subcommand (report, compare).
void add_report_flags(CLI::App* command, ReportFlags& flags);

}  // namespace trainbench::cli
