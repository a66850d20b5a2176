#!/usr/bin/env bash
# Configures and builds trainbench into build/ (or $BUILD_DIR). Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${BUILD_DIR:-build}"
if [ ! -f "$build_dir/build.ninja" ]; then
  # The project's gate: warnings are errors here (a user's plain cmake build leaves them warnings).
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRAINBENCH_WERROR=ON "$@" >/dev/null
fi
cmake --build "$build_dir" -j"$(nproc)"
