#!/usr/bin/env bash
# Creates (once) the Python venv of the conformance suite and prints its python's path.
#
#   python=$(tests/conformance/venv.sh) && "$python" tests/conformance/check.py ...
#
# The venv lives at ${TRAINBENCH_CACHE:-$HOME/.cache/trainbench}/conformance-venv-<hash>, where
# <hash> is the first 12 hex digits of the sha256 of requirements.txt and requirements-nodeps.txt
# (packages installed without their dependencies: torchtitan's config code), so a change of the pins
# makes a new venv and a re-run with the same pins only checks that it is complete. It is built
# with Debian's /usr/bin/python3 (not a pyenv or conda python that may be first on PATH); when its
# venv module is missing (Debian's python3-venv), the script installs that package if it runs
# as root, as on CI. Everything but the final path goes to stderr.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
requirements=$here/requirements.txt
nodeps=$here/requirements-nodeps.txt   # installed without their dependencies
python=${TRAINBENCH_CONFORMANCE_PYTHON:-/usr/bin/python3}
cache=${TRAINBENCH_CACHE:-${HOME:-/tmp}/.cache/trainbench}
hash=$(cat "$requirements" "$nodeps" | sha256sum | cut -c1-12)
venv=$cache/conformance-venv-$hash
stamp=$venv/.trainbench-complete

log() { printf 'venv.sh: %s\n' "$*" >&2; }

if [[ -f $stamp && -x $venv/bin/python ]]; then
    echo "$venv/bin/python"
    exit 0
fi

if [[ ! -x $python ]]; then
    log "error: $python is not there (set TRAINBENCH_CONFORMANCE_PYTHON to a Python 3.11 interpreter)"
    exit 1
fi

# Debian splits ensurepip off into python3-venv: without it `python3 -m venv` fails half-way.
if ! "$python" -c 'import ensurepip, venv' 2>/dev/null; then
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
        log "installing python3-venv (Debian's venv module)"
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2
    else
        log "error: $python has no venv/ensurepip module; install Debian's python3-venv"
        exit 1
    fi
fi

mkdir -p "$cache"
# Build next to the final place and rename, so an interrupted run never leaves a venv that
# looks complete; two concurrent runs each build their own and the first rename wins.
tmp=$(mktemp -d "$cache/.conformance-venv-$hash.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
log "creating $venv"
"$python" -m venv "$tmp" >&2
"$tmp/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements" >&2
"$tmp/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -r "$nodeps" >&2
"$tmp/bin/python" -c 'import hydra, omegaconf; print("venv.sh: hydra-core", hydra.__version__, "omegaconf", omegaconf.__version__)' >&2
touch "$tmp/.trainbench-complete"
# The venv is used through bin/python only (python -m pip, never pip's launcher scripts, whose
# shebangs name the temporary path), and a venv's python finds its prefix from pyvenv.cfg next to
# it, so the renamed venv works as built.
if [[ -f $stamp ]]; then
    log "another run finished $venv first; using it"
else
    rm -rf "$venv"    # an incomplete leftover of an interrupted run
    mv -T "$tmp" "$venv"
    trap - EXIT
fi
echo "$venv/bin/python"
