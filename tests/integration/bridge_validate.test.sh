#!/usr/bin/env bash
# `trainbench validate` on Megatron-Bridge recipes: the shipped ones pass; a broken flag, config
# override key and value each fail with exit 3 and a located error (file:line:column of the
# launch.extra_args item) with a did-you-mean, and so does an H200 target without `--gpu h100`
# (at the recipe's target key, naming what the published A3 Ultra recipe passes). Nothing is
# rendered for a refused recipe.
set -euo pipefail
bin=${TRAINBENCH_BINARY:-}
if [[ -z $bin || ! -x $bin ]]; then
    echo "skip: TRAINBENCH_BINARY is not set to the built CLI" >&2
    exit 125
fi
src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
cd "$src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

mapfile -t shipped < <(ls recipes/*/*bridge*.yaml | grep -v /common/)
if ! out=$("$bin" validate "${shipped[@]}" 2>&1); then
    echo "FAIL: the shipped Megatron-Bridge recipes do not validate:"
    sed 's/^/    /' <<<"$out"
    fail=1
fi

# bad NAME, extra_args (YAML flow list), what the error must say
check() {
    local name=$1 args=$2 needle=$3 base=${4:-recipes/azure-nd-gb200-v6/llama3.1-8b-bridge-fp8.yaml}
    printf 'version: 1\nname: %s\nextends: [%s]\nlaunch:\n  extra_args: %s\n' "$name" "$src/$base" "$args" >"$tmp/$name.yaml"
    local rc=0
    out=$("$bin" validate "$tmp/$name.yaml" 2>&1) || rc=$?
    if (( rc != 3 )) || ! grep -qF -- "$needle" <<<"$out"; then
        echo "FAIL: validate $name: exit $rc (want 3), want '$needle' in:"
        sed 's/^/    /' <<<"$out"
        fail=1
    fi
    rc=0
    "$bin" render "$tmp/$name.yaml" -o "$tmp/out-$name" >/dev/null 2>&1 || rc=$?
    if (( rc != 3 )) || [[ -e $tmp/out-$name ]]; then
        echo "FAIL: render $name: exit $rc (want 3), or it wrote $tmp/out-$name"
        fail=1
    fi
}
check flag '[--tensor_model_paralel_size, "2"]' \
    "$tmp/flag.yaml:5:16: error: 'launch.extra_args[0]': '--tensor_model_paralel_size' is not an argument of Megatron-Bridge"
check flag-hint '[--tensor_model_paralel_size, "2"]' "did you mean '--tensor_model_parallel_size'?"
check key '[model.seq_lenght=8192]' "$tmp/key.yaml:5:16: error: 'launch.extra_args[0]': 'model.seq_lenght' is not a config key"
check key-hint '[model.seq_lenght=8192]' "did you mean 'model.seq_length'?"
check value '[train.train_iters=fifty]' "'train.train_iters=fifty': 'fifty' is not an integer"
check choice '[--compute_dtype, fp8_cx]' "did you mean 'fp8_cs'?"
check h200 '[]' "error: 'target': Megatron-Bridge 0.4.2 (06f25c22, container nemo:26.04.01): --gpu takes h100" \
    recipes/gcp-a3-ultra/llama3.1-70b-bridge-fp8.yaml

if (( fail )); then
    exit 1
fi
echo "ok: Megatron-Bridge recipes validate; a bad flag, key, value, choice and an H200 target are refused (exit 3, located)"
