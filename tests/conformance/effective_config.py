#!/usr/bin/env python3
"""The effective NeMo config of each NeMo seed recipe against the seed's own, key by key.

trainbench's side: the recipe's rendered train command composed the way NeMo composes it (the
delivered config, or NeMo's megatron_gpt_config.yaml when none is delivered, with the command's
Hydra overrides; see check.py), interpolations resolved, the exp_manager section merged into
ExpManagerConfig as NeMo's exp_manager() does.

The seed's side, from shared/reference (nothing is copied):
  22.06 (seed 000)  NeMo-Framework-Launcher@eec62ab4 conf/config.yaml composed with
                    training=gpt3/<size> (the size of the recipe's model: the launcher's own
                    conf/training/gpt3/<size>.yaml) and the seed document's command (SEED_COMMANDS
                    below, cited), cfg.training minus `run`, bignlp_path a dummy, the `multiply`
                    resolver registered, resolved
  23.07 (seed 001)  the same with NeMo-Framework-Launcher@23.07/launcher_scripts/conf/config.yaml
                    (launcher_scripts_path a dummy)
  24.07 (seed 004)  gpu-recipes@24ba6df gpt3-175b-256gpus-fp8.yaml composed with the overrides the
                    chart's pod command adds (read from nemo-launcher-job.yaml: +trainer.num_nodes,
                    +exp_manager.version, +exp_manager.dllogger_logger_kwargs.json_file) and the
                    seed document's --set workload.arguments (quoted in the recipe's header),
                    NNODES from values.yaml workload.gpus
$NN and $NUM_NODES are the recipe's node count. The micro batch, tensor and pipeline sizes are
never taken from the recipe: they are the size config's unless the document's own command sets
them.

Every differing key is printed with both values. Differences that are meant (benchmark-only
settings) are listed in intended_differences.yaml (recipe file -> {key: reason}); a difference
that is not listed fails, and so does a listed one that does not occur.

  effective_config.py                       # every NeMo recipe under recipes/
  effective_config.py recipes/aws-p4d/gpt3-126m.yaml --show   # also print both configs
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import check  # noqa: E402
import launches  # noqa: E402
import nemo_hydra  # noqa: E402
import oracles  # noqa: E402

REPO = HERE.parent.parent
INTENDED = HERE / "intended_differences.yaml"

LAUNCHERS = {  # version -> (config dir, the root key its ??? path is)
    "22.06": ("NeMo-Framework-Launcher@eec62ab4/conf", "bignlp_path"),
    "23.07": ("NeMo-Framework-Launcher@23.07/launcher_scripts/conf", "launcher_scripts_path"),
}
GPU_RECIPES_CONFIG = "gpu-recipes@24ba6df/src/frameworks/nemo-configs/gpt3-175b-256gpus-fp8.yaml"
GPU_RECIPES_JOB = "gpu-recipes@24ba6df/src/helm-charts/nemo-training/templates/nemo-launcher-job.yaml"
GPU_RECIPES_VALUES = "gpu-recipes@24ba6df/training/a3mega/GPT3-175B/nemo-pretraining-gke/values.yaml"
DUMMY_PATH = "/seed"
NODE_VARIABLES = ("NN", "NUM_NODES", "NNODES")


# --- the seed's command, from the recipe headers -------------------------------------------------

def header(path: Path, joined: bool = True) -> str:
    """The leading comment block, '#' removed: one line (joined) or its lines."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line[1:])
    return (" " if joined else "\n").join(lines)


def extends_of(path: Path) -> list[Path]:
    m = re.search(r"^extends:\s*(.*)$", path.read_text(encoding="utf-8"), re.M)
    if not m:
        return []
    return [(path.parent / item).resolve() for item in re.findall(r"[^\[\],\s]+\.ya?ml", m.group(1))]


def seed_command(path: Path) -> tuple[list[str], list[str]]:
    """24.07: the `--set workload.arguments="{...}"` of the seed document's helm command that the
    recipe's header quotes (inherited through `extends`), and the files it came from."""
    for p in [path.resolve()] + _ancestors(path):
        m = re.search(r"workload\.arguments=\"?\{([^}]*)\}", header(p))
        if m:
            source = str(p.relative_to(REPO)) if p.is_relative_to(REPO) else str(p)
            return [w.strip() for w in m.group(1).split(",") if w.strip()], [source]
    return [], []


def _ancestors(path: Path) -> list[Path]:
    out = []
    for parent in extends_of(path.resolve()):
        if "common" in parent.parts:
            continue
        out += [parent] + _ancestors(parent)
    return out


def _substitute(value: str, nodes: int) -> str:
    for var in NODE_VARIABLES:
        value = re.sub(r"\$\{?" + var + r"\}?(?![\w])", str(nodes), value)
    return value


# The seeds' own commands, from the seed documents (facts; the per-size values are not here: they
# are the launcher's conf/training/gpt3/<size>.yaml, which the command selects).
#   22.06, seed 000 (Azure/woc-benchmarking apps/AI/NeMo/README.md, "Run NeMo Megatron"):
#     python3 main.py training=gpt3/126m training.run.name=... training.run.time_limit="10:00:00"
#       training.trainer.num_nodes=$NN training.trainer.max_steps=200 training.trainer.log_every_n_steps=1
#       training.exp_manager.resume_if_exists=False training.model.micro_batch_size=4
#       training.model.tensor_model_parallel_size=1 training.model.pipeline_model_parallel_size=1
#       training.model.activations_checkpoint_num_layers=0
#     "The following arguments must be changed accordingly to the benchmark you want to run (model,
#     name, number of nodes, MBS, TP and PP)": for another size, MBS/TP/PP are its size config's.
#     Its edits: conf/config.yaml data_dir: /shared/data/NeMo, and "only two shards with a 0.5
#     weight each" in every conf/training/gpt3/*.yaml (data_prefix).
#   23.07, seed 001 (aws-samples/awsome-distributed-training 3.test_cases/2.nemo-launcher @ 4319f132,
#     1.bmk-pretrain-gpt3.sh, run by bmk-pretrain-gpt3-126m2.sh (MAX_STEPS=40) and
#     bmk-pretrain-gpt3-5b2.sh (MAX_STEPS=20), both NUM_NODES=2):
#     main.py stages=[training] training=gpt3/$MODEL_SIZE training.trainer.num_nodes=$NUM_NODES
#       training.trainer.max_steps=$MAX_STEPS training.trainer.val_check_interval=$MAX_STEPS
#       training.trainer.limit_val_batches=0.0 training.exp_manager.create_checkpoint_callback=False
#       training.exp_manager.resume_if_exists=False training.model.data.data_impl=mock
#       training.model.data.data_prefix=[]
#     and for 5b (bmk-pretrain-gpt3-5b2.sh's MODEL_ARGS, "When node_count < 8, needs full
#     activations checkpointing"): training.model.activations_checkpoint_granularity=full
#       training.model.activations_checkpoint_method=block training.model.activations_checkpoint_num_layers=1
SEED_COMMANDS: dict[str, dict[str, Any]] = {
    "22.06": {
        "root": ["data_dir=/shared/data/NeMo"],
        "common": ["trainer.num_nodes=$NN", "trainer.max_steps=200", "trainer.log_every_n_steps=1",
                   "exp_manager.resume_if_exists=False", "model.activations_checkpoint_num_layers=0",
                   "model.data.data_prefix=[0.5,${data_dir}/my-gpt3_00_text_document,0.5,"
                   "${data_dir}/my-gpt3_01_text_document]"],
        "sizes": {"126m": ["model.micro_batch_size=4", "model.tensor_model_parallel_size=1",
                           "model.pipeline_model_parallel_size=1"]},
    },
    "23.07": {
        "root": [],
        "common": ["trainer.num_nodes=$NN", "trainer.max_steps=$MAX_STEPS", "trainer.val_check_interval=$MAX_STEPS",
                   "trainer.limit_val_batches=0.0", "exp_manager.create_checkpoint_callback=False",
                   "exp_manager.resume_if_exists=False", "model.data.data_impl=mock", "model.data.data_prefix=[]"],
        "sizes": {"5b": ["model.activations_checkpoint_granularity=full", "model.activations_checkpoint_method=block",
                         "model.activations_checkpoint_num_layers=1"]},
        "max_steps": {"126m": 40, "5b": 20},
    },
}


def model_size(recipe_model: str) -> str:
    """gpt3-126m -> 126m: the launcher's conf/training/gpt3/<size>.yaml."""
    m = re.fullmatch(r"gpt3-(\w+)", recipe_model)
    if not m:
        raise SystemExit(f"model {recipe_model!r} has no launcher size config (conf/training/gpt3/<size>.yaml)")
    return m.group(1)


def seed_config_launcher(version: str, size: str, nodes: int, ref: Path) -> tuple[dict, str]:
    """The launcher's config.yaml composed with training=gpt3/<size> and the seed document's command
    ($NN: the recipe's node count): what main.py hands to the training job."""
    from omegaconf import OmegaConf

    conf, root_key = LAUNCHERS[version]
    cmd = SEED_COMMANDS[version]
    if not (ref / conf / "training" / "gpt3" / f"{size}.yaml").is_file():
        raise SystemExit(f"no {conf}/training/gpt3/{size}.yaml in the reference")
    steps = cmd.get("max_steps", {}).get(size)
    words = [f"training=gpt3/{size}", f"{root_key}={DUMMY_PATH}", *cmd["root"]]
    for w in cmd["common"] + cmd["sizes"].get(size, []):
        if "$MAX_STEPS" in w:
            if steps is None:
                continue  # no script of the document runs this size
            w = w.replace("$MAX_STEPS", str(steps))
        words.append("training." + _substitute(w, nodes))
    nemo_hydra.register_resolvers()
    cfg = nemo_hydra.compose(ref / conf, "config", words)
    training = OmegaConf.to_container(cfg.training, resolve=True)  # in the context of the root
    training.pop("run", None)
    what = f"{conf.split('/')[0]} config.yaml + " + " ".join(words) + f" (seed document's command, {size}.yaml)"
    return training, what


def seed_config_gpu_recipes(path: Path, ref: Path) -> tuple[dict, str]:
    from omegaconf import OmegaConf
    import yaml

    job = (ref / GPU_RECIPES_JOB).read_text(encoding="utf-8")
    values = yaml.safe_load((ref / GPU_RECIPES_VALUES).read_text(encoding="utf-8"))
    m = re.search(r"\$nodes\s*:=\s*div\s+\.Values\.workload\.gpus\s+(\d+)", job)
    if not m:
        raise SystemExit(f"{GPU_RECIPES_JOB}: no `$nodes := div .Values.workload.gpus N`")
    nnodes = max(1, int(values["workload"]["gpus"]) // int(m.group(1)))
    # the pod command: the Hydra overrides between --config-name=... and the workload arguments
    block = job[job.index('--config-name='):job.index("range $root.Values.workload.arguments", job.index('--config-name='))]
    chart = [_unquote_all(w) for w in re.findall(r"^\s*(\+\S+=\S+)\s*\\\s*$", block, re.M)]
    workload, sources = seed_command(path)
    workload = list(values["workload"].get("arguments") or []) + workload
    words = [nemo_hydra.neutralize(w, {"NNODES": str(nnodes)}) for w in chart + workload]
    nemo_hydra.register_resolvers()
    config = ref / GPU_RECIPES_CONFIG
    cfg = nemo_hydra.compose(config.parent, config.name, words)
    out = OmegaConf.to_container(cfg, resolve=True)
    out.pop("run", None)
    what = f"gpu-recipes {config.name} + " + " ".join(words) + (f" (from {', '.join(sources)})" if sources else "")
    return out, what


def _unquote_all(word: str) -> str:
    return word.replace('"', "")


# --- trainbench's side ---------------------------------------------------------------------

def trainbench_config(stage: launches.Stage, cmd: launches.Command, ref: Path, nodes: int,
                      gpus_per_node: int) -> tuple[dict | None, list[str], str]:
    from omegaconf import OmegaConf

    known = {"NNODES": str(nodes), "GPUS_PER_NODE": str(gpus_per_node)}
    cfg, problems, source = check.nemo_effective(stage, cmd, ref, known)
    if cfg is None:
        return None, problems, source
    nemo_hydra.register_resolvers()
    try:
        out = OmegaConf.to_container(cfg, resolve=True)
    except Exception as e:  # noqa: BLE001
        return None, problems + [f"interpolations do not resolve: {nemo_hydra.first_line(e)}"], source
    return out, problems, source


def merge_exp_manager(cfg: dict, version: str, ref: Path) -> str | None:
    """exp_manager() merges the section into ExpManagerConfig: do that, so defaults and types are
    NeMo's on both sides. Returns an error text if NeMo would refuse the section."""
    from omegaconf import OmegaConf

    if "exp_manager" not in cfg:
        return None
    try:
        schema = OmegaConf.structured(oracles.exp_manager_structured(version, ref))
        cfg["exp_manager"] = OmegaConf.to_container(OmegaConf.merge(schema, cfg["exp_manager"]), resolve=True)
        return None
    except Exception as e:  # noqa: BLE001
        return nemo_hydra.first_line(e)


# --- comparing ----------------------------------------------------------------------------------

MISSING = object()


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or (isinstance(a, bool) and isinstance(b, bool) and a == b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _show(v: Any) -> str:
    if v is MISSING:
        return "(absent)"
    return json.dumps(v, default=str)


def diff(seed: dict, mine: dict) -> list[tuple[str, Any, Any]]:
    a = oracles.flatten_keys(seed)
    b = oracles.flatten_keys(mine)
    out = []
    for key in sorted(set(a) | set(b)):
        va, vb = a.get(key, MISSING), b.get(key, MISSING)
        if va is MISSING or vb is MISSING or not _same(va, vb):
            out.append((key, va, vb))
    return out


def load_intended(path: Path) -> dict[str, dict[str, str]]:
    import yaml

    if not path.is_file():
        return {}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise SystemExit(f"{path}: expected a map of recipe file -> {{key: reason}}")
    out: dict[str, dict[str, str]] = {}
    for recipe, entries in data.items():
        if entries is None:
            entries = {}
        if not isinstance(entries, dict):
            raise SystemExit(f"{path}: {recipe}: expected a map of key -> reason")
        for key, reason in entries.items():
            if not isinstance(reason, str) or not reason.strip():
                raise SystemExit(f"{path}: {recipe}: {key}: the reason must be a non-empty string")
        out[str(recipe)] = {str(k): v for k, v in entries.items()}
    return out


def nemo_recipes(recipes_dir: Path) -> list[Path]:
    out = []
    for r in check.recipes_under(recipes_dir):
        if re.search(r"^framework:\s*nemo\b", r.read_text(encoding="utf-8"), re.M) or any(
                "nemo-" in p.name for p in _all_extends(r)):
            out.append(r)
    return out


def _all_extends(path: Path) -> list[Path]:
    out = []
    for p in extends_of(path.resolve()):
        out += [p] + _all_extends(p)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("recipes", nargs="*", help="NeMo recipe files (default: every one under recipes/)")
    p.add_argument("--recipes-dir", default=str(REPO / "recipes"))
    p.add_argument("--intended", default=str(INTENDED), help="the list of intended differences")
    p.add_argument("--binary", default=os.environ.get("TRAINBENCH_BINARY") or str(REPO / "build/trainbench"))
    p.add_argument("--reference")
    p.add_argument("--show", action="store_true", help="also print both effective configs (JSON)")
    args = p.parse_args(argv)
    ref = oracles.reference_dir(args.reference)
    recipes = [Path(r) for r in args.recipes] or nemo_recipes(Path(args.recipes_dir))
    intended = load_intended(Path(args.intended))
    unlisted = stale = errors = listed = 0
    with tempfile.TemporaryDirectory(prefix="tb-effective-") as tmp:
        for n, recipe in enumerate(recipes):
            key = os.path.relpath(recipe.resolve(), REPO) if recipe.resolve().is_relative_to(REPO) else str(recipe)
            try:
                stages = launches.render_recipe(args.binary, str(recipe), Path(tmp) / f"{n:03d}")
            except launches.RenderError as e:
                print(f"ERROR {key}: {e}")
                errors += 1
                continue
            train = [(s, c) for s in stages if s.kind == "train" for c in s.commands if c.program == "nemo"]
            if not train:
                print(f"ERROR {key}: no NeMo train command in the render")
                errors += 1
                continue
            stage, cmd = train[0]
            version = cmd.version or stage.framework_version
            shown = json.loads(launches._run([args.binary, "--json", "show", str(recipe)]).stdout or "{}")
            shown = shown.get("recipe", shown)
            nodes, gpn = int(shown.get("nodes", 1)), int(shown.get("gpus_per_node", 8))
            try:
                if version in LAUNCHERS:
                    model = shown.get("model", {})
                    name = model.get("base", model.get("name", "")) if isinstance(model, dict) else str(model)
                    seed, seed_what = seed_config_launcher(version, model_size(name), nodes, ref)
                elif version == "24.07":
                    seed, seed_what = seed_config_gpu_recipes(recipe, ref)
                else:
                    print(f"ERROR {key}: no seed config for NeMo {version!r}")
                    errors += 1
                    continue
            except Exception as e:  # noqa: BLE001
                print(f"ERROR {key}: the seed's config does not compose: {nemo_hydra.first_line(e)}")
                errors += 1
                continue
            mine, problems, source = trainbench_config(stage, cmd, ref, nodes, gpn)
            print(f"== {key} (NeMo {version})")
            print(f"   seed:       {seed_what}")
            print(f"   trainbench: {source} + {len(cmd.argv) - 1} argv words ({cmd.where})")
            for problem in problems:
                print(f"   note: trainbench's command: {problem}")
            if mine is None:
                print(f"ERROR {key}: no effective config for trainbench's command")
                errors += 1
                continue
            for side, cfg in (("seed", seed), ("trainbench", mine)):
                err = merge_exp_manager(cfg, version, ref)
                if err:
                    print(f"   note: {side}'s exp_manager does not merge into ExpManagerConfig: {err}")
            if args.show:
                print(json.dumps({"seed": seed, "trainbench": mine}, indent=1, default=str))
            wanted = intended.get(key, {})
            found = diff(seed, mine)
            for k, a, b in found:
                if k in wanted:
                    listed += 1
                    print(f"   intended   {k}: seed {_show(a)}, trainbench {_show(b)} ({wanted[k]})")
                else:
                    unlisted += 1
                    print(f"DIFFERENT {key} {k}: seed {_show(a)}, trainbench {_show(b)}")
            for k in sorted(set(wanted) - {k for k, _, _ in found}):
                stale += 1
                print(f"NOT-DIFFERENT {key} {k}: listed in {Path(args.intended).name} ({wanted[k]}) but both are "
                      f"{_show(oracles.flatten_keys(mine).get(k, MISSING))}")
    for k in sorted(set(intended) - {os.path.relpath(Path(r).resolve(), REPO) for r in recipes}):
        if not args.recipes:
            stale += 1
            print(f"NOT-DIFFERENT {k}: listed in {Path(args.intended).name} but not a NeMo recipe here")
    print(f"effective config: {len(recipes)} recipes, {unlisted} unlisted differences, {listed} intended, "
          f"{stale} listed but not different, {errors} errors")
    return 1 if unlisted or stale or errors else 0


if __name__ == "__main__":
    sys.exit(main())
