#!/usr/bin/env bash
# The engineering gates (docs/development.md), each runnable alone:
#   scripts/gates.sh [format] [tidy] [sanitize] [coverage] [package]   (default: all)
# format    clang-format --dry-run -Werror over every first-party C++ file
# tidy      clang-tidy with the checks in .clang-tidy over src/ (needs build/compile_commands.json)
# sanitize  ASan+UBSan+coverage build in build-asan/ (or $ASAN_BUILD_DIR), unit tests and parser
#           corpus under it
# coverage  line coverage of that build (gcovr); fails below the floor in .ci/coverage-floor
# package   .deb from build/ (cpack), its declared dependencies; with --install (root; CI does
#           this on its fresh machine) installs it with apt, checks the installed binary finds
#           its shipped recipes, the man page and the bash completion, and removes it again
set -euo pipefail
cd "$(dirname "$0")/.."
asan_dir=${ASAN_BUILD_DIR:-build-asan}
install_deb=0
gates=()
for a in "$@"; do
  case "$a" in
    --install) install_deb=1 ;;
    *) gates+=("$a") ;;
  esac
done
[ "${#gates[@]}" -eq 0 ] && gates=(format tidy sanitize coverage package)

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
      if [ ! -f "$asan_dir"/build.ninja ]; then
        # -g1: line tables are all a sanitizer report needs; PCH: see CMakeLists.txt.
        cmake -S . -B "$asan_dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DTRAINBENCH_WERROR=ON \
              -DTRAINBENCH_SANITIZE=ON -DTRAINBENCH_COVERAGE=ON -DTRAINBENCH_PCH=ON >/dev/null
      fi
      cmake --build "$asan_dir" -j"$(nproc)"
      export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
      (cd "$asan_dir" && ctest --output-on-failure -j2 -L unit)
      ;;
    coverage)
      echo "gate: coverage"
      floor=$(cat .ci/coverage-floor)
      # (no -j: gcovr 5.2 hangs instead of failing when a parallel worker hits an error)
      gcovr -r . --object-directory "$asan_dir" --filter 'src/' --print-summary \
        --fail-under-line "$floor" --txt "$asan_dir/coverage.txt"
      tail -3 "$asan_dir/coverage.txt"
      ;;
    package)
      echo "gate: package"
      scripts/build.sh >/dev/null
      rm -f build/trainbench_*.deb
      (cd build && cpack -G DEB >/dev/null)
      deb=$(ls build/trainbench_*.deb)
      echo "$deb: $(dpkg-deb -f "$deb" Version) Depends: $(dpkg-deb -f "$deb" Depends)"
      dpkg-deb -f "$deb" Depends | grep -q libyaml-cpp || { echo "package: no shared-library dependencies declared" >&2; exit 1; }
      contents=$(dpkg-deb -c "$deb")
      for f in ./usr/bin/trainbench ./usr/share/man/man1/trainbench.1.gz \
               ./usr/share/bash-completion/completions/trainbench \
               ./usr/share/trainbench/recipes/catalog/gpus.yaml ./usr/share/trainbench/templates/slurm/job.sbatch \
               ./usr/share/trainbench/workloads/tinygpt/train.py; do
        grep -q " $f\$" <<<"$contents" || { echo "package: $f missing from $deb" >&2; exit 1; }
      done
      if [ "$install_deb" = 1 ]; then
        apt-get install -y -qq "./$deb" >/dev/null
        trap 'apt-get remove -y -qq trainbench >/dev/null 2>&1 || true' EXIT
        (
          cd /tmp
          /usr/bin/trainbench --version
          # (outputs captured first: `grep -q` closing a pipe early would fail it under pipefail)
          listed=$(/usr/bin/trainbench list recipes --names)
          grep -qx 'recipes/local/tinygpt.yaml' <<<"$listed" || { echo "package: shipped recipes not found" >&2; exit 1; }
          /usr/bin/trainbench validate --all /usr/share/trainbench/recipes >/dev/null
          [ "$(man -w trainbench)" = /usr/share/man/man1/trainbench.1.gz ] || { echo "package: man -w trainbench" >&2; exit 1; }
          # the completion as bash-completion loads it: subcommands after `trainbench va`
          completed=$(bash -c 'source /usr/share/bash-completion/bash_completion
                   COMP_WORDS=(trainbench va); COMP_CWORD=1; COMP_LINE="trainbench va"; COMP_POINT=13
                   _completion_loader trainbench; _trainbench; printf "%s\n" "${COMPREPLY[@]}"')
          grep -qx validate <<<"$completed" || { echo "package: completion gave '$completed'" >&2; exit 1; }
        )
        apt-get remove -y -qq trainbench >/dev/null
        trap - EXIT
        echo "package: installed, checked and removed $deb"
      fi
      ;;
    *) echo "gates.sh: unknown gate '$gate'" >&2; exit 2 ;;
  esac
done
