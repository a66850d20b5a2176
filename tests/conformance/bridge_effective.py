#!/usr/bin/env python3
"""The effective configuration of each Megatron-Bridge recipe against the release's own, key by key.

trainbench's side: run_script.main() of the recipe's Megatron-Bridge version (shared/reference,
run with stand-ins for what the reference lacks: bridge_oracle.py) on the rendered train
command's arguments (`trainbench render --argv`), up to the config it hands to pretrain().

The release's side: the same run_script.main() on the arguments that select the release's own
per-GPU configuration and nothing else: -m/-mr/-g/-c/-cv/--task as trainbench's command gives
them, and -ng the GPU count that configuration names (WorkloadBaseConfig.num_gpus), as dgxc's
launch.sh runs a workload without overrides (its --max_steps 50 is the scripts' default). That
is scripts/performance/configs/<family>/*_workload_base_configs.py applied by the release's own
code, with the builders' fixed settings (sequence length, vocabulary, precision recipe).

Every differing key is printed with both values; bridge_intended_differences.yaml (recipe file ->
{key: reason}) lists the intended ones. An unlisted difference, a listed one that does not
occur, and a recipe that does not render fail.

  bridge_effective.py                           # every Megatron-Bridge recipe under recipes/
  bridge_effective.py RECIPE --show             # also print both configurations
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bridge_oracle  # noqa: E402
import check  # noqa: E402
import effective_config  # noqa: E402
import launches  # noqa: E402
import oracles  # noqa: E402

REPO = HERE.parent.parent
INTENDED = HERE / "bridge_intended_differences.yaml"


def _is_bridge(path: Path, seen: set[Path]) -> bool:
    """framework: megatron-bridge in the file or a file it extends."""
    if path in seen or not path.is_file():
        return False
    seen.add(path)
    text = path.read_text(encoding="utf-8")
    if re.search(r"^framework:\s*megatron-bridge\s*$", text, re.M):
        return True
    ext = re.search(r"^extends:\s*(.*)$", text, re.M)
    return bool(ext) and any(_is_bridge((path.parent / item).resolve(), seen)
                             for item in re.findall(r"[^\[\],\s]+\.ya?ml", ext.group(1)))


def bridge_recipes(directory: Path) -> list[Path]:
    return [p for p in check.recipes_under(directory) if _is_bridge(p.resolve(), set())]


def release_argv(version: str, argv: list[str], reference: Path) -> list[str]:
    args, _ = bridge_oracle.parse(version, argv, reference)
    base = bridge_oracle.workload_base_config(version, args, reference)
    return ["--model_family_name", args.model_family_name, "--model_recipe_name", args.model_recipe_name,
            "--gpu", args.gpu, "--compute_dtype", args.compute_dtype, "--config_variant", args.config_variant,
            "--task", args.task, "--num_gpus", str(base.num_gpus)]


def compare(key: str, cmd: launches.Command, wanted: dict[str, str], reference: Path, show: bool) -> tuple[int, int, int]:
    argv = cmd.argv[1:]
    ours = bridge_oracle.effective(cmd.version, argv, reference)
    theirs_argv = release_argv(cmd.version, argv, reference)
    theirs = bridge_oracle.effective(cmd.version, theirs_argv, reference)
    print(f"== {key} (Megatron-Bridge {cmd.version})")
    print(f"   release:    run_script.py {' '.join(theirs_argv)}")
    print(f"   trainbench: run_script.py + {len(argv)} argv words ({cmd.where})")
    if show:
        print(json.dumps({"release": theirs, "trainbench": ours}, indent=1, default=str))
    unlisted = listed = stale = 0
    found = effective_config.diff(theirs, ours)
    for k, a, b in found:
        if k in wanted:
            listed += 1
            print(f"   intended   {k}: release {effective_config._show(a)}, trainbench {effective_config._show(b)} ({wanted[k]})")
        else:
            unlisted += 1
            print(f"DIFFERENT {key} {k}: release {effective_config._show(a)}, trainbench {effective_config._show(b)}")
    for k in sorted(set(wanted) - {k for k, _, _ in found}):
        stale += 1
        print(f"NOT-DIFFERENT {key} {k}: listed in {INTENDED.name} ({wanted[k]}) but both are "
              f"{effective_config._show(ours.get(k, effective_config.MISSING))}")
    return unlisted, listed, stale


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("recipes", nargs="*", help="Megatron-Bridge recipe files (default: every one under recipes/)")
    p.add_argument("--recipes-dir", default=str(REPO / "recipes"))
    p.add_argument("--intended", default=None, help="the list of intended differences")
    p.add_argument("--binary", default=os.environ.get("TRAINBENCH_BINARY") or str(REPO / "build/trainbench"))
    p.add_argument("--reference")
    p.add_argument("--show", action="store_true", help="also print both effective configurations (JSON)")
    args = p.parse_args(argv)
    global INTENDED
    INTENDED = Path(args.intended) if args.intended else INTENDED
    ref = oracles.reference_dir(args.reference)
    recipes = [Path(r) for r in args.recipes] or bridge_recipes(Path(args.recipes_dir))
    intended = effective_config.load_intended(INTENDED)
    unlisted = listed = stale = errors = 0
    keys = set()
    with tempfile.TemporaryDirectory(prefix="tb-bridge-effective-") as tmp:
        for n, recipe in enumerate(recipes):
            key = os.path.relpath(recipe.resolve(), REPO) if recipe.resolve().is_relative_to(REPO) else str(recipe)
            keys.add(key)
            try:
                stages = launches.render_recipe(args.binary, str(recipe), Path(tmp) / f"{n:03d}")
            except launches.RenderError as e:
                print(f"ERROR {key}: {e}")
                errors += 1
                continue
            train = [c for s in stages if s.kind == "train" for c in s.commands if c.program == "megatron-bridge"]
            if not train:
                print(f"ERROR {key}: no Megatron-Bridge train command in the render")
                errors += 1
                continue
            try:
                u, li, st = compare(key, train[0], intended.get(key, {}), ref, args.show)
            except Exception as e:  # noqa: BLE001 (an upstream failure on this argv is the finding)
                print(f"ERROR {key}: run_script.py fails on the command: {type(e).__name__}: {e}")
                errors += 1
                continue
            unlisted, listed, stale = unlisted + u, listed + li, stale + st
    if not args.recipes:
        for k in sorted(set(intended) - keys):
            stale += 1
            print(f"NOT-DIFFERENT {k}: listed in {INTENDED.name} but not a Megatron-Bridge recipe here")
    print(f"effective config: {len(recipes)} recipes, {unlisted} unlisted differences, {listed} intended, "
          f"{stale} listed but not different, {errors} errors")
    return 1 if unlisted or stale or errors else 0


if __name__ == "__main__":
    sys.exit(main())
