// Private to the CLI: `sweep --dry-run -o DIR` writes every valid point's job files.
#pragma once

#include <trainbench/sweep.hpp>

#include <cstddef>
#include <filesystem>
#include <vector>

namespace trainbench::cli {

// Renders every valid point of `x` to <output>/<point name>/<stage>/<file>: each
// template read and compiled once per thread, points rendered on up to two
// threads, files written without a sync each, then one sync and one rename per
// point (a crash leaves a point whole or absent; a point rendered before is
// replaced whole). Returns the number of files written.
std::size_t render_points(const sweep::Expansion& x, const std::filesystem::path& output,
                          const std::vector<std::filesystem::path>& template_dirs);

}  // namespace trainbench::cli
