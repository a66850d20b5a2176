#!/usr/bin/env bash
# Sets up (Debian packages, test tools), builds and runs every test: unit tests,
# golden tests and the integration tests against a real localhost Slurm cluster
# (started and stopped by the test suite itself).
#   scripts/test.sh [ctest arguments...]     e.g. scripts/test.sh -L unit
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
scripts/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j2 "$@"
