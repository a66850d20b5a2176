#!/usr/bin/env bash
# The main job on the embedded default: sets up, builds, then runs the local
# tinygpt recipe (a real GPT-style pre-training loop on this machine's CPU),
# waits for it and prints its report.
#   scripts/quickstart.sh [extra trainbench run arguments...]   e.g. -s steps=50
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
exec "${BUILD_DIR:-build}/trainbench" run recipes/local/tinygpt.yaml "$@"
