#!/usr/bin/env bash
# Hostile recipes (tests/data/recipes/hostile/ and generated ones) are rejected with a located
# error, never crash, never show a file outside the recipe trees, and stay within 64 MiB of
# memory (GNU time's peak RSS) and 1 s of wall time each (the target; a hang is killed at 10 s):
# the YAML alias bomb, extends of
# /etc/passwd (direct and through ../), nesting past the limit, a 5 MiB file, one 5 MiB line,
# and random bytes; and sweep files (hostile/sweeps/, `sweep --dry-run`): a base of
# /etc/shadow (direct and through ../) and an alias bomb.
set -euo pipefail
bin=${TRAINBENCH_BINARY:?set TRAINBENCH_BINARY}
src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
[[ -x /usr/bin/time ]] || { echo "skip: GNU time (/usr/bin/time) is not installed" >&2; exit 125; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
limit_kb=$((64 * 1024))
# The time limit is the target itself, 1 s per input. Headroom: the slowest input (the alias
# bombs) took 0.21 s here at load average 18 on the 2 cores (2026-11-27), the others 0.02-0.08 s,
# so a loaded CI machine has about 5x before a correct build fails, while a rejection that got
# slower than the promise fails the test.
limit_s=1.0

# Generated inputs: too large a file, one huge line, random bytes.
{ printf 'version: 1\nname: big\n'; head -c $((5 * 1024 * 1024)) /dev/zero | tr '\0' '#'; printf '\n'; } >"$work/huge_file.yaml"
echo "more than a recipe or catalog file may be" >"$work/huge_file.expected"
{ printf 'version: 1\nname: "'; head -c $((5 * 1024 * 1024)) /dev/zero | tr '\0' 'a'; printf '"\n'; } >"$work/long_line.yaml"
echo "more than a recipe or catalog file may be" >"$work/long_line.expected"
head -c 4096 /dev/urandom >"$work/random_bytes.yaml"
echo "error:" >"$work/random_bytes.expected"
cp "$src"/tests/data/recipes/hostile/*.yaml "$src"/tests/data/recipes/hostile/*.expected "$work/"
# Sweep files (their base is read like an extends) are replayed with `sweep --dry-run`.
mkdir -p "$work/sweeps"
for f in "$src"/tests/data/recipes/hostile/sweeps/*.yaml; do
    name=sweep_$(basename "$f" .yaml)
    cp "$f" "$work/sweeps/$name.yaml"
    sed "s/^[a-z_]*\.yaml:/$name.yaml:/" "${f%.yaml}.expected" >"$work/sweeps/$name.expected"
done

for recipe in "$work"/*.yaml "$work"/sweeps/*.yaml; do
    name=$(basename "$recipe" .yaml)
    dir=$(dirname "$recipe")
    command=(validate "$name.yaml")
    [[ $name == sweep_* ]] && command=(sweep "$name.yaml" --dry-run)
    rc=0
    ( cd "$dir" && exec /usr/bin/time -f '%M %e' -o "$work/$name.time" timeout 10 "$bin" "${command[@]}" ) \
        >"$work/$name.out" 2>"$work/$name.err" || rc=$?
    # (GNU time writes "Command exited with non-zero status N" first when the command fails)
    read -r rss_kb seconds < <(tail -n 1 "$work/$name.time") || { rss_kb=0; seconds='?'; }
    out=$(cat "$work/$name.out" "$work/$name.err")
    if (( rc != 3 )); then
        echo "FAIL: $name: exit $rc, want 3 (invalid input)"; fail=1
    elif ! grep -q -F -- "$(cat "$dir/$name.expected")" <<<"$out"; then
        echo "FAIL: $name: no '$(cat "$dir/$name.expected")' in:"; head -c 2000 <<<"$out"; echo; fail=1
    elif ! grep -q "$name.yaml:[0-9]*:[0-9]*: error:" <<<"$out"; then
        echo "FAIL: $name: the error is not located (file:line:column):"; head -c 2000 <<<"$out"; fail=1
    elif grep -qE "root:|daemon:" <<<"$out"; then
        echo "FAIL: $name: the output shows the content of /etc/passwd or /etc/shadow"; fail=1
    elif (( rss_kb > limit_kb )); then
        echo "FAIL: $name: peak RSS ${rss_kb} KiB, more than 64 MiB"; fail=1
    elif ! awk -v s="$seconds" -v l="$limit_s" 'BEGIN { exit !(s ~ /^[0-9.]+$/ && s + 0 <= l) }'; then
        echo "FAIL: $name: took ${seconds} s, more than the ${limit_s} s limit"; fail=1
    else
        echo "ok: $name: exit 3 in ${seconds} s, peak RSS $((rss_kb / 1024)) MiB: $(grep -m1 'error:' <<<"$out" | cut -c1-150)"
    fi
done
exit $fail
