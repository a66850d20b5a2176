"""What NeMo of one container version reads from its Hydra config, with what each key takes, and
the trainbench framework profile (recipes/catalog/frameworks/nemo-<version>.yaml) made from it.

All of it is read at run time from shared/reference (oracles.py's readers; OmegaConf and Hydra for
the YAML): the keys of NeMo's megatron_gpt_config.yaml, of the seed configurations and of
ExpManagerConfig; each key's type from its upstream defaults; the enumerations the config's own
comments list. Two facts are not in the reference and are written here with their source: the
precision values PyTorch Lightning's Trainer accepts in the release each container ships, and the
container names, log formats and titles of each version (trainbench's own statement about it).

    oracles.py profile nemo 23.07      # prints the profile (oracles.py dispatches here)
"""
from __future__ import annotations

import ast
import dataclasses
import functools
import re
import textwrap
from pathlib import Path
from typing import Any

import oracles

# Trainer(precision=...) values of the Lightning release in each container (the key's enumeration;
# NeMo passes trainer.precision to the Trainer). Not in shared/reference; from Lightning's sources:
#   PyTorch Lightning 1.x (NeMo 1.11, container 22.06): pytorch_lightning/utilities/enums.py
#     PrecisionType: "16", "32", "64", "bf16", "mixed" (PrecisionType.supported_type, ints compare
#     equal to their text).
#   Lightning 2.0 (NeMo 1.20, 23.07): lightning/fabric/plugins/precision/precision.py
#     _PRECISION_INPUT = Literal[64, 32, 16] | Literal["64", "32", "16", "bf16"] |
#     Literal["16-mixed", "bf16-mixed", "32-true", "64-true"].
#   Lightning 2.2+ (NeMo 2.0.0rc1, 24.07): the same plus "16-true", "bf16-true",
#     "transformer-engine", "transformer-engine-float16".
PRECISION_SOURCE = {
    "22.06": ("PyTorch Lightning 1.x PrecisionType", ("16", "32", "64", "bf16", "mixed")),
    "23.07": ("Lightning 2.0 _PRECISION_INPUT", ("16", "32", "64", "bf16", "16-mixed", "bf16-mixed", "32-true",
                                                 "64-true")),
    "24.07": ("Lightning 2.2 _PRECISION_INPUT", ("16", "32", "64", "bf16", "16-mixed", "bf16-mixed", "32-true",
                                                 "64-true", "16-true", "bf16-true", "transformer-engine",
                                                 "transformer-engine-float16")),
}

# Trainer arguments whose Lightning type is wider than the YAML default shows (both 1.x and 2.x
# Trainer.__init__): `Optional[Union[int, float]]` for the batch limits and val_check_interval (an
# int counts batches, a float is a fraction: the seed 001 command passes limit_val_batches=0.0),
# `Union[List[int], str, int]` for devices. Not in shared/reference; from Lightning's sources.
LIGHTNING_TYPES = {
    "trainer.limit_train_batches": "float", "trainer.limit_val_batches": "float",
    "trainer.limit_test_batches": "float", "trainer.limit_predict_batches": "float",
    "trainer.val_check_interval": "float", "trainer.overfit_batches": "float", "trainer.devices": "any",
}

# trainbench's statement about each version: what it is called, which images ship it, which logs
# it writes (and the Python package a log needs in the image), and why it is here.
NEMO_FACTS: dict[str, dict[str, Any]] = {
    "22.06": {
        "nemo": "1.11", "container": "bignlp-training:22.06", "seed": "000",
        "containers": ["nvcr.io/ea-bignlp/bignlp-training:22.06-hotfix.01-py3",
                       "nvcr.io/ea-bignlp/bignlp-training:22.06-py3"],
        "writes": ["tensorboard", "nemo"], "format_modules": {},
        "about": ["NeMo 1.11 has no DLLogger logger in exp_manager: it writes TensorBoard events and the progress line."],
    },
    "23.07": {
        "nemo": "1.20", "container": "nemofw-training:23.07", "seed": "001",
        "containers": ["nvcr.io/ea-bignlp/nemofw-training:23.07-py3"],
        "writes": ["tensorboard", "nemo", "dllogger"], "format_modules": {"dllogger": "dllogger"},
        "about": ["exp_manager.create_dllogger_logger exists in 1.20; it needs the dllogger package in the image."],
    },
    "24.07": {
        "nemo": "2.0.0rc1", "container": "nemo:24.07", "seed": "004",
        "containers": ["nvcr.io/nvidia/nemo:24.07"],
        "writes": ["tensorboard", "nemo", "dllogger"], "format_modules": {"dllogger": "dllogger"},
        "about": ["DLLogger: the seed image adds the dllogger package to nemo:24.07 (src/docker/nemo-24.07/requirements.in);",
                  "the stock image may lack it, so a job that logs with DLLogger checks for it first."],
    },
}

# The seed's configuration a job's config file starts from: the launcher's config.yaml composed
# with training=<choice> (its `???` root a dummy), or a gpu-recipes config on its own.
SEED_CONFIG = {
    "22.06": ("NeMo-Framework-Launcher@eec62ab4/conf", "bignlp_path", "gpt3/126m"),
    "23.07": ("NeMo-Framework-Launcher@23.07/launcher_scripts/conf", "launcher_scripts_path", "gpt3/126m"),
    "24.07": ("gpu-recipes@24ba6df/src/frameworks/nemo-configs/gpt3-175b-256gpus-fp8.yaml", None, None),
}
DUMMY_ROOT = "/nonexistent-launcher-root"


@dataclasses.dataclass
class KeyRule:
    """What NeMo takes at one key: the type of its upstream defaults (int, float, bool, str, list,
    map; any: only null defaults, so a scalar or a list), whether null is allowed, and the
    enumeration where the sources give one."""

    type: str
    nullable: bool = False
    choices: tuple[str, ...] | None = None
    origin: str = ""

    def spec(self) -> str:
        return oracles.value_spec(self.type, None, None, self.choices, self.nullable)


# --- types of the upstream defaults --------------------------------------------------------------

def _kind(value: Any) -> str | None:
    """The type a default says a key takes; None for null and for a bare interpolation."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return None if re.fullmatch(r"\$\{[^}]*\}", value.strip()) else "str"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "map"
    return None


def _merge(kinds: set[str]) -> str:
    if not kinds:
        return "any"
    if kinds == {"int", "float"}:
        return "float"  # a float key written as 1 somewhere
    return kinds.pop() if len(kinds) == 1 else "any"


def comment_choices(path: Path) -> dict[str, tuple[str, ...]]:
    """Enumerations the YAML's own comments give for a key: `key: v # 'a' or 'b'`,
    `# 'a', 'b', not used with ...`, `# ... Options ['a', 'b']`, `# Options are 'a', 'b'`,
    `# Available options are 'a', 'b', and 'c'`: the quoted words of a list at the start of the
    comment or after "options are" / "Options"."""
    out: dict[str, tuple[str, ...]] = {}
    stack: list[tuple[int, str]] = []
    quoted_list = r"\[?\s*('[^']+'(?:\s*(?:,\s*and|,\s*or|,|or|and)\s*'[^']+')+)"
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^(\s*)([A-Za-z_][\w]*)\s*:(.*)$", line)
        if not m:
            continue
        indent = len(m.group(1))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        key = ".".join([k for _, k in stack] + [m.group(2)])
        rest = m.group(3)
        value, _, comment = rest.partition("#")
        if not value.strip():
            stack.append((indent, m.group(2)))
        c = re.match(r"\s*" + quoted_list, comment) or re.search(r"options(?:\s+are)?:?\s*" + quoted_list, comment, re.I)
        if c:
            out[key] = tuple(re.findall(r"'([^']+)'", c.group(1)))
    return out


def _seed_paths(version: str, ref: Path) -> list[Path]:
    return oracles.launcher_config_paths(oracles.NEMO_NEAREST.get(version, version), ref)


@functools.lru_cache(maxsize=None)
def key_rules(version: str, reference: Path | None = None, ref_name: str | None = None) -> dict[str, KeyRule]:
    """Every key NeMo of `version` reads (megatron_gpt_config.yaml, the seed configurations,
    ExpManagerConfig) with what it takes."""
    ref = reference or oracles.reference_dir()
    keys = oracles.nemo_key_sets(version, ref, ref_name)
    gpt_path = oracles.gpt_config_path(version, ref, ref_name)
    seen: dict[str, list[tuple[Any, str]]] = {}
    for key, value in keys.gpt.items():
        seen.setdefault(key, []).append((value, str(gpt_path.relative_to(ref))))
    for path in _seed_paths(version, ref):
        for key, value in oracles.load_yaml_keys(path).items():
            if not key.startswith("run."):
                seen.setdefault(key, []).append((value, str(path.relative_to(ref))))
    for key, value, origin in group_keys(gpt_path, ref):
        seen.setdefault(key, []).append((value, origin))
    comments = comment_choices(gpt_path)
    rules: dict[str, KeyRule] = {}
    for key, values in seen.items():
        kinds = {k for k in (_kind(v) for v, _ in values) if k}
        rule = KeyRule(_merge(kinds), any(v is None for v, _ in values), comments.get(key), values[0][1])
        rules[key] = rule
    parents = {k.rsplit(".", 1)[0] for k in rules if "." in k}
    for key, rule in rules.items():
        if key in parents and rule.type == "any":
            rule.type = "map"  # only null defaults here, sub-keys elsewhere (a config group's package)
    for f in keys.exp_manager:
        rules.setdefault(f"exp_manager.{f.key}", _schema_rule(f))
    for key, kind in LIGHTNING_TYPES.items():
        if key in rules:
            rules[key].type, rules[key].origin = kind, "Lightning's Trainer"
    if "trainer.precision" in rules:
        name, values = PRECISION_SOURCE[oracles.NEMO_NEAREST.get(version, version)]
        rules["trainer.precision"] = KeyRule("any", False, values, name)
    return rules


def group_keys(gpt_path: Path, ref: Path) -> list[tuple[str, Any, str]]:
    """Keys a config group of megatron_gpt_config's defaults list puts under its package
    (`optional tp_overlap@model.ub_tp_comm_overlap_cfg` in r2.0.0rc1): each option file's keys."""
    from omegaconf import OmegaConf

    cfg = OmegaConf.to_container(OmegaConf.load(gpt_path), resolve=False)
    out = []
    for entry in cfg.get("defaults") or []:
        if not isinstance(entry, dict):
            continue
        for name in entry:
            m = re.fullmatch(r"(?:optional\s+)?(\w+)@([\w.]+)", str(name))
            if not m:
                continue
            for option in sorted((gpt_path.parent / m.group(1)).glob("*.yaml")):
                for key, value in oracles.load_yaml_keys(option).items():
                    out.append((f"{m.group(2)}.{key}", value, str(option.relative_to(ref))))
    return out


def _schema_rule(f: oracles.SchemaField) -> KeyRule:
    """An ExpManagerConfig field's rule from its annotation (Optional[X] allows null)."""
    node = ast.parse(f.type_name, mode="eval").body if f.type_name != "?" else None
    inner = oracles._strip_optional(node)
    nullable = inner is not node
    head, _ = oracles._annotation_parts(inner)
    kind = {"int": "int", "float": "float", "bool": "bool", "str": "str", "List": "list", "list": "list",
            "Dict": "map", "dict": "map", "Tuple": "list"}.get(head, "any")
    if f.kind in ("node", "open", "opaque"):
        kind = "map"
    return KeyRule(kind, nullable, None, f.origin)


def open_keys(version: str, reference: Path | None = None) -> list[str]:
    """Keys under which any sub-key is taken: ExpManagerConfig's Dict/Any fields and its fields of
    a class the reference does not have (their sub-keys cannot be checked)."""
    ref = reference or oracles.reference_dir()
    return sorted(f"exp_manager.{f.key}" for f in oracles.exp_manager_schema(version, ref) if f.kind in ("open", "opaque"))


# --- the seed's configuration ----------------------------------------------------------------

def _job_value(value: Any) -> Any:
    """A launcher path does not exist in a trainbench job: a file keeps its base name (the
    tokenizer files), a directory becomes null, a list of them (the data blend) becomes []."""
    if isinstance(value, str) and value.startswith(DUMMY_ROOT):
        base = value.rstrip("/").rsplit("/", 1)[-1]
        return base if "." in base else None
    if isinstance(value, list) and any(isinstance(v, str) and v.startswith(DUMMY_ROOT) for v in value):
        return []
    return value


def seed_config(version: str, reference: Path | None = None) -> dict[str, Any]:
    """The seed's configuration, interpolations resolved, flat, in file order, `run` removed."""
    import nemo_hydra
    from omegaconf import OmegaConf

    ref = reference or oracles.reference_dir()
    where, root_key, choice = SEED_CONFIG[version]
    nemo_hydra.register_resolvers()
    if root_key:
        cfg = nemo_hydra.compose(ref / where, "config", [f"training={choice}", f"{root_key}={DUMMY_ROOT}"])
        tree = OmegaConf.to_container(cfg.training, resolve=True)
    else:
        tree = OmegaConf.to_container(OmegaConf.load(ref / where), resolve=True)
        tree.pop("defaults", None)
    tree.pop("run", None)
    return {k: _job_value(v) for k, v in oracles.flatten_keys(tree).items()}


# --- the profile -----------------------------------------------------------------------------

def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    if isinstance(value, dict) and not value:
        return "{}"
    return oracles._yaml_str(str(value))


def profile_yaml(version: str, reference: Path | None = None) -> str:
    ref = reference or oracles.reference_dir()
    if version not in NEMO_FACTS:
        raise oracles.OracleError(f"no NeMo profile for {version!r} (known: {', '.join(NEMO_FACTS)})")
    facts = NEMO_FACTS[version]
    nemo_root, _ = oracles.nemo_ref(version, ref)
    where, root_key, choice = SEED_CONFIG[version]
    config = seed_config(version, ref)
    rules = key_rules(version, ref)
    seeds = ", ".join(str(p.relative_to(ref)) for p in _seed_paths(version, ref))
    seed_text = (f"{where.split('/')[0]} conf/training/{choice}.yaml composed with its config.yaml (the run section "
                 "and the launcher's own paths dropped)" if root_key else f"{where} (the run section dropped)")
    precision_name, _ = PRECISION_SOURCE[version]
    title = f"NeMo {facts['nemo']} (container {facts['container']})"
    schema = f"NeMo {facts['nemo']}'s megatron_gpt_config (container {facts['container']})"
    out = [f"# NeMo {version}: NeMo {facts['nemo']} in {facts['containers'][-1]} (seed {facts['seed']}), a framework profile.",
           f"# Generated by `tests/conformance/oracles.py profile nemo {version}` from shared/reference:",
           *_wrap(f"config  the seed's configuration: {seed_text}, interpolations resolved, as flat keys. "
                  "The config file a job gets starts from it; trainbench then sets shape, parallelism, batch, "
                  "precision, steps, logging and data (docs/seeds.md).", "#   ", "#           "),
           *_wrap(f"keys    the other keys NeMo {facts['nemo']} reads: {nemo_root.name} {oracles.GPT_CONFIG}, the seed "
                  f"configurations ({seeds}), and exp_manager's ExpManagerConfig dataclass ({oracles.EXP_MANAGER}; "
                  "strict: an unknown exp_manager key stops the job).", "#   ", "#           "),
           *_wrap("open_keys  ExpManagerConfig fields typed Dict/Any or with a class the reference lacks: any sub-key.",
                  "#   ", "#           "),
           *_wrap("values  per key, the type of its upstream defaults (int, float, bool, str, list, map; any: only "
                  "null defaults, so not a map), `nullable` when a default is null, and `choices=` the enumeration the "
                  f"config's own comment lists; trainer.precision: the values of {precision_name}, and the "
                  "batch limits, val_check_interval and devices as Lightning's Trainer types them (Lightning's "
                  "sources, not in the reference).", "#   ", "#           "),
           *(f"# {line}" for line in facts["about"]),
           "# Regenerate instead of editing.",
           "framework: nemo",
           f"version: {oracles._yaml_str(version)}",
           f"schema: {oracles._yaml_str(schema)}",
           f"title: {oracles._yaml_str(title)}",
           f"containers: [{', '.join(facts['containers'])}]",
           f"writes: [{', '.join(facts['writes'])}]"]
    if facts["format_modules"]:
        modules = ", ".join(f"{k}: {v}" for k, v in facts["format_modules"].items())
        out.append(f"format_modules: {{{modules}}}   # the Python package each log format needs in the image")
    out.append("config:   # the seed's configuration (see above)")
    out += [f"  {k}: {_scalar(v)}" for k, v in config.items()]
    out.append("keys:     # further keys this version reads")
    out += [f"  - {k}" for k in sorted(set(rules) - set(config))]
    out.append("open_keys:   # maps that take any sub-key")
    out += [f"  - {k}" for k in open_keys(version, ref)]
    out += oracles.values_block({k: r.spec() for k, r in rules.items()})
    return "\n".join(out) + "\n"


def _wrap(text: str, first: str, rest: str) -> list[str]:
    return textwrap.wrap(text, 100, initial_indent=first, subsequent_indent=rest)


def value_problem(rule: KeyRule, value: Any) -> str | None:
    """Whether NeMo takes `value` (as OmegaConf holds it after Hydra's compose) at a key with this
    rule: None when it does, else what it expects. An interpolation or a run-time variable is not
    known here and passes."""
    if isinstance(value, str) and ("$" in value or re.search(r"__\w+__", value)):
        return None  # a run-time variable (nemo_hydra.neutralize writes $X as __X__) or an interpolation
    names = {"int": "an integer", "float": "a number", "bool": "true or false", "str": "a string",
             "list": "a list", "map": "a map", "any": "a value (not a map)"}
    expected = names.get(rule.type, rule.type) + (" or null" if rule.nullable else "")
    if value is None:
        return None if rule.nullable or rule.type == "any" else f"null is not {expected}"
    fits = {"int": isinstance(value, int) and not isinstance(value, bool),
            "float": isinstance(value, (int, float)) and not isinstance(value, bool),
            "bool": isinstance(value, bool), "str": isinstance(value, str), "list": isinstance(value, list),
            "map": isinstance(value, dict), "any": not isinstance(value, dict)}.get(rule.type, True)
    if not fits:
        return f"{value!r} is not {expected} (the type of the upstream default, {rule.origin})"
    if rule.choices and not isinstance(value, (list, dict)):
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        if text not in rule.choices:
            import difflib

            near = [c for c in rule.choices if c.lower() == text.lower()] or difflib.get_close_matches(
                text, rule.choices, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            return f"{text!r} is not one of {{{', '.join(rule.choices)}}} ({rule.origin}){hint}"
    return None
