#!/usr/bin/env bash
# Conformance of every launch line with the real programs: each shipped recipe is rendered (every
# stage) and each command it runs is checked against the oracle of its program and version,
# read at test time from the unmodified upstream sources in shared/reference
# (tests/conformance/check.py: Megatron-LM arguments.py, metaseq's options and dataclasses,
# nccl-tests' getopt table, NeMo's Hydra configs composed with real Hydra 1.3.2 and
# ExpManagerConfig). Then it shows that the check has teeth: recipes with a deliberately wrong
# argument for NeMo 22.06/23.07, metaseq and Megatron-LM must be rejected. selftest.py does the
# same for every oracle and checker on its own (nccl-tests included).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../conformance/test_env.sh"

# 0. The oracles and checkers on their own (each must reject a bad argument of its program).
if ! "$python" tests/conformance/selftest.py; then
    fail=1
fi

# 1. Every shipped recipe, every stage: no rejected argument or key.
if ! "$python" tests/conformance/check.py --all recipes/ >"$tmp/all.txt" 2>"$tmp/all.err"; then
    echo "FAIL: trainbench renders launch lines the real programs reject:"
    sed 's/^/    /' "$tmp/all.txt"
    grep -v '^note:' "$tmp/all.err" | sed 's/^/    /' || true
    fail=1
else
    tail -n 1 "$tmp/all.txt"
fi

# 2. Teeth: a recipe that extends a shipped one with wrong arguments in launch.extra_args must be
# rejected for them. It is rendered with --no-validate: trainbench's own validation may refuse
# such a recipe, and the point here is that the conformance check refuses it too. If trainbench
# cannot render it at all, the words are appended to the base recipe's rendered command instead
# (check.py --inject).
# bad NAME BASE PROGRAM NEEDLE WORD...
bad() {
    local name=$1 base=$2 program=$3 needle=$4
    shift 4
    local recipe=$tmp/$name.yaml out rc=0 list="" w inject=()
    for w in "$@"; do
        list+="${list:+, }\"$w\""
        inject+=(--inject "$program=$w")
    done
    printf 'version: 1\nname: conformance-%s\nextends: [%s]\nlaunch:\n  extra_args: [%s]\n' \
        "$name" "$src/$base" "$list" >"$recipe"
    out=$("$python" tests/conformance/check.py --no-validate "$recipe" 2>&1) || rc=$?
    if (( rc == 2 )); then
        echo "note: $name: trainbench does not render $recipe; injecting into $base's command instead"
        rc=0
        out=$("$python" tests/conformance/check.py "${inject[@]}" "$base" 2>&1) || rc=$?
    fi
    if (( rc == 0 )); then
        echo "FAIL: $name: check.py accepted $* in $base's $program command"
        fail=1
    elif ! grep '^REJECTED' <<<"$out" | grep -q -F -- "$needle"; then
        echo "FAIL: $name: no REJECTED line for $needle; check.py said:"
        printf '    %s\n' "${out//$'\n'/$'\n'    }"
        fail=1
    else
        echo "ok: $name: $(grep '^REJECTED' <<<"$out" | grep -F -- "$needle" | head -n 1 | cut -c1-220)"
    fi
    # trainbench itself refuses the same recipe before anything is submitted: `validate` exits 3
    # with an error located in the recipe file that names the word.
    rc=0
    out=$("$bin" validate "$recipe" 2>&1) || rc=$?
    if (( rc != 3 )) || ! grep -q -F -- "${needle#\'}" <<<"$out" || ! grep -q "^$recipe:[0-9]*:[0-9]*: error:" <<<"$out"; then
        echo "FAIL: $name: trainbench validate exited $rc without a located error naming ${needle#\'}:"
        printf '    %s\n' "${out//$'\n'/$'\n'    }"
        fail=1
    else
        echo "ok: $name: validate: $(grep -F -- "${needle#\'}" <<<"$out" | head -n 1 | cut -c1-200)"
    fi
}
# NeMo 22.06 (NeMo 1.11): no context parallelism, so the key is not in its config
bad nemo-2206-cp recipes/azure-ndm-a100-v4/gpt3-126m.yaml nemo "'model.context_parallel_size" \
    model.context_parallel_size=1
# NeMo: a key that composes (with +) but that NeMo does not read
bad nemo-2307-key recipes/aws-p4d/gpt3-126m.yaml nemo "'model.no_such_key'" +model.no_such_key=1
# NeMo 22.06: exp_manager is merged into ExpManagerConfig, which has no DLLogger logger in 1.11
bad nemo-2206-exp recipes/azure-ndm-a100-v4/gpt3-126m.yaml nemo "'exp_manager.create_dllogger_logger'" \
    ++exp_manager.create_dllogger_logger=True
# metaseq: --sample-break-mode belongs to streaming_language_modeling, not the benchmark's dummy_lm
bad metaseq-sbm recipes/azure-a100-metaseq/opt-125m-smoke.yaml metaseq "'--sample-break-mode'" \
    --task dummy_lm --sample-break-mode none
# Megatron-LM: a flag arguments.py does not define (parse_args is strict, allow_abbrev=False)
bad megatron-flag recipes/azure-nd-h100-v5/gpt3-175b-smoke.yaml megatron-lm "'--no-such-flag'" --no-such-flag
# Values, as the programs' own parsers read them: argparse type=int, a store_true flag given a
# value, NeMo keys against the type of their upstream default and the version's enumerations
bad megatron-int recipes/azure-nd-h100-v5/gpt3-175b-smoke.yaml megatron-lm "'banana' is not an int" \
    --num-layers banana
bad megatron-flag-value recipes/azure-nd-h100-v5/gpt3-175b-smoke.yaml megatron-lm "takes no value" \
    --use-flash-attn yes
# Megatron-Core d98e8a64 (today's recipes): a flag e958b2ca had and d98e8a64 removed, and values
# outside the choices of its config dataclasses (argument_utils.py turns them into flags)
bad megatron-d98-removed recipes/gcp-a4/mixtral-8x7b-fp8.yaml megatron-lm "'--moe-use-legacy-grouped-gemm'" \
    --moe-use-legacy-grouped-gemm
bad megatron-d98-dispatcher recipes/azure-nd-gb200-v6/deepseek-v3-mxfp8.yaml megatron-lm "'alltoal'" \
    --moe-token-dispatcher-type alltoal
bad megatron-d98-fp8-recipe recipes/gcp-a3-ultra/llama3.1-70b-fp8.yaml megatron-lm "'tensorwyse'" --fp8-recipe tensorwyse
bad nemo-2206-int recipes/azure-ndm-a100-v4/gpt3-126m.yaml nemo "is not an integer" model.micro_batch_size=banana
bad nemo-2307-precision recipes/aws-p4d/gpt3-126m.yaml nemo "did you mean 'bf16'" trainer.precision=bf17
bad nemo-2307-null-leaf recipes/aws-p4d/gpt3-126m.yaml nemo "'model.tokenizer.vocab_file.bogus'" \
    +model.tokenizer.vocab_file.bogus=1

# TorchTitan 0.2.2: a key, a value and a section, as `--section.key` overrides after the TOML
# (tyro, in TorchTitan's own ConfigManager) ...
bad titan-key recipes/aws-p5/llama3.1-8b-torchtitan-smoke.yaml torchtitan "--training.stepz" --training.stepz 5
bad titan-value recipes/aws-p5/llama3.1-8b-torchtitan-smoke.yaml torchtitan "banana" --training.gc_freq banana
bad titan-section recipes/aws-p5/llama3.1-8b-torchtitan-smoke.yaml torchtitan "--trainin.gc_freq" --trainin.gc_freq 5
# ... and in the TOML itself, through the recipe's framework_config (ConfigManager._dict_to_dataclass
# refuses a key its dataclass lacks; each value against its field's annotation)
# bad_config NAME BASE NEEDLE YAML-LINE
bad_config() {
    local name=$1 base=$2 needle=$3 line=$4 recipe=$tmp/$1.yaml out rc=0
    printf 'version: 1\nname: conformance-%s\nextends: [%s]\nframework_config:\n  %s\n' \
        "$name" "$src/$base" "$line" >"$recipe"
    out=$("$python" tests/conformance/check.py --no-validate "$recipe" 2>&1) || rc=$?
    if (( rc != 1 )) || ! grep '^REJECTED' <<<"$out" | grep -q -F -- "$needle"; then
        echo "FAIL: $name: check.py (exit $rc) did not reject $line with $needle:"
        printf '    %s\n' "${out//$'\n'/$'\n'    }"
        fail=1
    else
        echo "ok: $name: $(grep '^REJECTED' <<<"$out" | grep -F -- "$needle" | head -n 1 | cut -c1-220)"
    fi
    rc=0
    out=$("$bin" validate "$recipe" 2>&1) || rc=$?
    if (( rc != 3 )) || ! grep -q -F -- "$needle" <<<"$out" || ! grep -q "^$recipe:5:[0-9]*: error:" <<<"$out"; then
        echo "FAIL: $name: trainbench validate exited $rc without an error at $recipe:5 naming $needle:"
        printf '    %s\n' "${out//$'\n'/$'\n'    }"
        fail=1
    else
        echo "ok: $name: validate: $(grep -F -- "$needle" <<<"$out" | head -n 1 | cut -c1-200)"
    fi
}
bad_config titan-toml-key recipes/aws-p5/llama3.1-8b-torchtitan-smoke.yaml "stepz" "training.stepz: 5"
bad_config titan-toml-value recipes/aws-p5/llama3.1-8b-torchtitan-smoke.yaml "max_norm" "training.max_norm: big"
bad_config titan-toml-section recipes/aws-p5/llama3.1-8b-torchtitan-smoke.yaml "trainin" "trainin.gc_freq: 5"
# TorchTitan b5bcd76c (main, config functions): a flag, a value and a section as tyro refuses them
# over the reference's dataclasses with manager.py's rules; a function that is not the recipe's
main=recipes/aws-p5/llama3.1-8b-torchtitan-main-smoke.yaml
bad titan-main-flag "$main" torchtitan "--training.max-nrom" --training.max-nrom 0.5
bad titan-main-value "$main" torchtitan "banana" --training.gc-freq banana
bad titan-main-section "$main" torchtitan "--checkpoint.interval" --checkpoint.interval 5
# a function other than the recipe's: the suite compares what the function sets (flavour,
# activation checkpointing) with the recipe; validate refuses --config in launch.extra_args
rc=0
out=$("$python" tests/conformance/check.py --inject torchtitan=--config --inject torchtitan=llama3_70b "$main" 2>&1) ||
    rc=$?
if (( rc != 1 )) || ! grep '^REJECTED' <<<"$out" | grep -q -F "checkpoints activations with FullAC"; then
    echo "FAIL: titan-main-function: check.py (exit $rc) accepted --config llama3_70b for the 8B recipe:"
    printf '    %s\n' "${out//$'\n'/$'\n'    }"
    fail=1
else
    echo "ok: titan-main-function: $(grep '^REJECTED' <<<"$out" | grep -F FullAC | head -n 1 | cut -c1-220)"
fi
printf 'version: 1\nname: conformance-titan-main-function\nextends: [%s]\nlaunch:\n  extra_args: [--config, llama3_70b]\n' \
    "$src/$main" >"$tmp/titan-main-function.yaml"
rc=0
out=$("$bin" validate "$tmp/titan-main-function.yaml" 2>&1) || rc=$?
if (( rc != 3 )) || ! grep -q "^$tmp/titan-main-function.yaml:5:[0-9]*: error: .*'--config' comes from the recipe" <<<"$out"; then
    echo "FAIL: titan-main-function: validate exited $rc without a located error at --config:"
    printf '    %s\n' "${out//$'\n'/$'\n'    }"
    fail=1
else
    echo "ok: titan-main-function: validate: $(grep -F -- "--config" <<<"$out" | head -n 1 | cut -c1-200)"
fi
# ... and through framework_config (its keys become flags)
bad_config titan-main-key "$main" "trainin" "trainin.gc_freq: 5"
bad_config titan-main-config-value "$main" "big" "training.max_norm: big"

# nccl-tests: a recipe cannot give -g a word (nccl.gpus_per_rank is an integer: validate refuses
# it), so the words are appended to the rendered validate command (check.py --inject).
rc=0
out=$("$python" tests/conformance/check.py --inject nccl-tests=-g --inject nccl-tests=notanumber \
    recipes/azure-ndm-a100-v4/gpt3-126m.yaml 2>&1) || rc=$?
if (( rc != 1 )) || ! grep '^REJECTED' <<<"$out" | grep -q "'notanumber' is not an integer"; then
    echo "FAIL: nccl-tests -g notanumber was not rejected (check.py exited $rc):"
    printf '    %s\n' "${out//$'\n'/$'\n'    }"
    fail=1
else
    echo "ok: nccl-tests-g: $(grep '^REJECTED' <<<"$out" | grep "notanumber" | head -n 1 | cut -c1-220)"
fi
printf 'version: 1\nname: conformance-nccl-g\nextends: [%s]\nstages:\n  - {name: validate, kind: validate, options: {nccl: {gpus_per_rank: notanumber}}}\n  - {name: train, kind: train}\n' \
    "$src/recipes/azure-ndm-a100-v4/gpt3-126m.yaml" >"$tmp/nccl-g.yaml"
rc=0
out=$("$bin" validate "$tmp/nccl-g.yaml" 2>&1) || rc=$?
if (( rc != 3 )) || ! grep -q "^$tmp/nccl-g.yaml:[0-9]*:[0-9]*: error: .*gpus_per_rank" <<<"$out"; then
    echo "FAIL: trainbench validate did not refuse nccl.gpus_per_rank: notanumber with a located error (exit $rc):"
    printf '    %s\n' "${out//$'\n'/$'\n'    }"
    fail=1
else
    echo "ok: nccl-tests-g: validate: $(grep gpus_per_rank <<<"$out" | head -n 1 | cut -c1-200)"
fi

if (( fail )); then
    exit 1
fi
echo "ok: every launch line of the shipped recipes conforms; wrong arguments are rejected"
