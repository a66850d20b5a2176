# shellcheck shell=bash
# Shared by the GPU tests (sourced; not a test itself): skips (125) with a message naming
# what is missing unless this machine has an NVIDIA GPU and a `python3` whose PyTorch sees it.
source "$(dirname "$0")/runs_lib.sh"
PYTHON=${TRAINBENCH_PYTHON:-python3}
if ! ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
    echo "skip: no NVIDIA GPU on this machine (no /dev/nvidia<N> device node); this test needs one"
    exit 125
fi
if ! "$PYTHON" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
    echo "skip: $PYTHON has no PyTorch that sees the NVIDIA GPU (torch.cuda.is_available()); set TRAINBENCH_PYTHON"
    exit 125
fi
# shellcheck disable=SC2034 # used by the tests that source this file
SRC=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
