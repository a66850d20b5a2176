#!/usr/bin/env bash
# `trainbench render` over every shipped recipe: the tree is byte-identical across two
# renders and equal to the golden files (render --compare), a changed golden copy is
# reported with a unified diff and exit 5, and every rendered shell script passes
# `bash -n` and shellcheck.
set -euo pipefail

bin=${TRAINBENCH_BINARY:-}
src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
if [[ -z $bin || ! -x $bin ]]; then
    echo "skip: TRAINBENCH_BINARY is not set to the built CLI"
    exit 125
fi
if ! command -v shellcheck >/dev/null; then
    echo "skip: shellcheck is not installed (scripts/setup.sh --test)"
    exit 125
fi
cd "$src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# 1. Two renders of every recipe give identical trees.
# (a failing render says why here, rather than ending the script silently under set -e)
for side in a b; do
    if ! "$bin" render --all recipes -o "$tmp/$side" >"$tmp/$side.txt" 2>&1; then
        echo "FAIL: render --all recipes ($side) failed:"; tail -n 20 "$tmp/$side.txt"; exit 1
    fi
done
if ! diff -r "$tmp/a" "$tmp/b" >/dev/null; then
    echo "FAIL: two renders differ"; diff -r "$tmp/a" "$tmp/b" | head -20; fail=1
fi
n=$(find "$tmp/a" -type f | wc -l)
if (( n < 50 )); then echo "FAIL: only $n files rendered"; cat "$tmp/a.txt"; fail=1; fi
grep -q "recipes: .* ok, 0 failed" "$tmp/a.txt" || { echo "FAIL: summary line missing"; cat "$tmp/a.txt"; fail=1; }

# 2. The render equals the committed golden files; a changed copy is a diff and exit 5.
if ! out=$("$bin" render --all recipes --compare tests/golden/render 2>&1); then
    echo "FAIL: render differs from tests/golden/render:"; echo "$out" | head -40; fail=1
fi
cp -r tests/golden/render "$tmp/golden"
# (sed reads all of sort's output: head -1 would exit first, and with more than a pipe buffer
# of paths pipefail would count sort's SIGPIPE as the test's failure)
f=$(find "$tmp/golden" -name job.sbatch | LC_ALL=C sort | sed -n 1p)
sed -i 's/^#SBATCH --nodes=.*/#SBATCH --nodes=999/' "$f"
set +e
out=$("$bin" render --all recipes --compare "$tmp/golden" 2>&1)
rc=$?
set -e
if (( rc != 5 )); then echo "FAIL: --compare of a changed copy exited $rc, expected 5"; fail=1; fi
if ! grep -q '^-#SBATCH --nodes=999' <<<"$out" || ! grep -q '^@@ ' <<<"$out"; then
    echo "FAIL: --compare printed no unified diff:"; echo "$out" | head -20; fail=1
fi

# 3. Every rendered script passes bash -n and shellcheck.
checked=0
while IFS= read -r -d '' script; do
    checked=$((checked + 1))
    if ! bash -n "$script"; then echo "FAIL: bash -n $script"; fail=1; fi
    if ! shellcheck -s bash "$script"; then echo "FAIL: shellcheck $script"; fail=1; fi
done < <(find "$tmp/a" \( -name '*.sh' -o -name '*.sbatch' \) -print0)
if (( checked < 20 )); then echo "FAIL: only $checked scripts checked"; fail=1; fi

# 4. --stdout prints the main job file of one recipe, and a bad recipe exits 3.
"$bin" render recipes/local/tinygpt.yaml --stdout >"$tmp/main.sh"
head -1 "$tmp/main.sh" | grep -q '^#!/bin/bash' || { echo "FAIL: --stdout did not print the script"; fail=1; }
printf 'version: 1\nname: Bad Name\n' >"$tmp/bad.yaml"
set +e
"$bin" render "$tmp/bad.yaml" -o "$tmp/bad" >/dev/null 2>&1
rc=$?
set -e
if (( rc != 3 )); then echo "FAIL: an invalid recipe exited $rc, expected 3"; fail=1; fi

echo "checked $checked scripts, $n files"
exit $fail
