#!/usr/bin/env bash
# The engineering gates (docs/development.md), each runnable alone:
#   scripts/gates.sh [format] [tidy] [sanitize] [coverage]     (default: all)
# format    clang-format --dry-run -Werror over every first-party C++ file
# tidy      clang-tidy with the checks in .clang-tidy over src/ (needs build/compile_commands.json)
# sanitize  ASan+UBSan+coverage build in build-asan/, unit tests and parser corpus under it
# coverage  line coverage of that build (gcovr); fails below the floor in .ci/coverage-floor
set -euo pipefail
cd "$(dirname "$0")/.."
gates=("$@")
[ "${#gates[@]}" -eq 0 ] && gates=(format tidy sanitize coverage)

cxx_files() { git ls-files -- 'src/*.cpp' 'src/*.hpp' 'include/*.hpp' 'tests/*.cpp' 'tests/*.hpp' 'bench/*.cpp' 'fuzz/*.cpp'; }

for gate in "${gates[@]}"; do
  case "$gate" in
    format)
      echo "gate: format"
      cxx_files | xargs -r clang-format --dry-run -Werror
      ;;
    tidy)
      echo "gate: clang-tidy"
      [ -f build/compile_commands.json ] || scripts/build.sh >/dev/null
      git ls-files -- 'src/*.cpp' | xargs -r -P "$(nproc)" -n 4 clang-tidy -p build --quiet --extra-arg=-Wno-unknown-warning-option
      ;;
    sanitize)
      echo "gate: sanitizers (ASan + UBSan)"
      if [ ! -f build-asan/build.ninja ]; then
        cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTRAINBENCH_SANITIZE=ON -DTRAINBENCH_COVERAGE=ON >/dev/null
      fi
      cmake --build build-asan -j"$(nproc)"
      export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
      (cd build-asan && ctest --output-on-failure -j2 -L unit)
      ;;
    coverage)
      echo "gate: coverage"
      floor=$(cat .ci/coverage-floor)
      gcovr -r . --object-directory build-asan --filter 'src/' --txt-summary --print-summary \
        --fail-under-line "$floor" -o build-asan/coverage.txt
      tail -3 build-asan/coverage.txt
      ;;
    *) echo "gates.sh: unknown gate '$gate'" >&2; exit 2 ;;
  esac
done
