#!/usr/bin/env bash
# The effective NeMo config of every NeMo seed recipe equals the seed's own, key by key, except
# the differences listed with a reason in tests/conformance/intended_differences.yaml
# (tests/conformance/effective_config.py: the seed's side is the launcher's own
# conf/training/gpt3/<size>.yaml at the seed's version (or gpu-recipes' config) in
# shared/reference with the seed document's command, trainbench's from the rendered job with real
# Hydra 1.3.2). First it shows that the comparison has teeth: an empty list of
# intended differences must fail, and so must a listed difference that does not occur.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../conformance/test_env.sh"
recipe=recipes/aws-p4d/gpt3-126m.yaml

# 1. Teeth. With nothing listed, the run directory alone differs from the seed's results_dir.
: >"$tmp/empty.yaml"
if out=$("$python" tests/conformance/effective_config.py "$recipe" --intended "$tmp/empty.yaml" 2>&1); then
    echo "FAIL: effective_config.py passed $recipe with no intended differences listed"
    fail=1
elif ! grep -q "^DIFFERENT $recipe exp_manager.explicit_log_dir: " <<<"$out"; then
    echo "FAIL: effective_config.py did not report exp_manager.explicit_log_dir for $recipe:"
    printf '    %s\n' "${out//$'\n'/$'\n'    }"
    fail=1
fi
# A listed difference that does not occur (trainer.devices is 8 on both sides) is reported.
printf '%s:\n  trainer.devices: "deliberately wrong entry"\n' "$recipe" >"$tmp/stale.yaml"
if out=$("$python" tests/conformance/effective_config.py "$recipe" --intended "$tmp/stale.yaml" 2>&1) ||
    ! grep -q "^NOT-DIFFERENT $recipe trainer.devices: " <<<"$out"; then
    echo "FAIL: effective_config.py did not report the stale entry trainer.devices for $recipe:"
    printf '    %s\n' "${out//$'\n'/$'\n'    }"
    fail=1
fi

# The seed's side is the launcher's own size config, whatever the recipe says: a recipe that
# extends the 40B one with another micro batch differs from conf/training/gpt3/40b.yaml (MBS 1).
printf 'version: 1\nname: effective-mbs\nextends: [%s]\nbatch: {micro: 2}\n' "$src/recipes/azure-ndm-a100-v4/gpt3-40b.yaml" \
    >"$tmp/mbs.yaml"
if out=$("$python" tests/conformance/effective_config.py "$tmp/mbs.yaml" --intended "$tmp/empty.yaml" 2>&1) ||
    ! grep -q "^DIFFERENT $tmp/mbs.yaml model.micro_batch_size: seed 1, trainbench 2" <<<"$out"; then
    echo "FAIL: effective_config.py did not compare the micro batch with the launcher's gpt3/40b.yaml:"
    printf '    %s\n' "${out//$'\n'/$'\n'    }"
    fail=1
fi

# 2. Every NeMo recipe against its seed.
if ! "$python" tests/conformance/effective_config.py >"$tmp/all.txt" 2>&1; then
    echo "FAIL: effective configs differ from the seeds' beyond tests/conformance/intended_differences.yaml:"
    grep -E '^(DIFFERENT|NOT-DIFFERENT|ERROR|==|   (seed|trainbench|note))|^effective config:' "$tmp/all.txt" | sed 's/^/    /'
    fail=1
else
    tail -n 1 "$tmp/all.txt"
fi

if (( fail )); then
    exit 1
fi
echo "ok: every NeMo recipe's effective config is the seed's but for the listed, intended differences"
