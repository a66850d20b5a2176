#!/usr/bin/env bash
# The main job on the embedded default: sets up, builds, then runs the local
# tinygpt recipe (a real GPT-style pre-training loop on this machine's CPU),
# waits for it and prints its report, then a summary line of what ran and what
# was skipped (the tests, and their skip summary, are scripts/test.sh's).
#   scripts/quickstart.sh [extra trainbench run arguments...]   e.g. -s steps=50
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
rc=0
"${BUILD_DIR:-build}/trainbench" run recipes/local/tinygpt.yaml "$@" || rc=$?
if ((rc == 0)); then result="COMPLETED and reported (above)"; else result="FAILED (exit $rc, above)"; fi
echo "== quickstart summary: setup, build, trainbench run recipes/local/tinygpt.yaml: $result;" \
    "tests: none run here, so none skipped (scripts/test.sh runs them and names every skip)" >&2
exit "$rc"
