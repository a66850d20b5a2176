"""What TorchTitan main at b5bcd76c takes on its command line, with what each flag takes, and the
trainbench framework profile (recipes/catalog/frameworks/torchtitan-b5bcd76c.yaml) made from it.

At b5bcd76c a run is `-m torchtitan.train --module <module> --config <function> [--section.option
...]`: ConfigManager._load_config (torchtitan/config/manager.py) takes --module and --config off
the command line and calls the function of <module>'s config_registry.py; tyro parses the other
words over the returned `Trainer.Config` (torchtitan/trainer.py). Read at run time, with Python's
`ast`, from the unmodified upstream files in shared/reference/torchtitan@b5bcd76c:

- `module` and `config` from manager.py (the two options it strips), `config`'s choices the
  functions of torchtitan/models/llama3/config_registry.py (the one registry of the reference);
- every field of `Trainer.Config` that tyro makes an option: a `str` field is `--field`, a field
  whose dataclass is in the reference (configs.py's TrainingConfig, ParallelismConfig,
  CompileConfig, CommConfig, DebugConfig; metrics.py's MetricsProcessor.Config) is a section of
  `--section.field` options; a field annotated `tyro.conf.Suppress` (model_spec) is none. The
  sections whose dataclasses the reference lacks (profiler, tokenizer, dataloader, optimizer,
  lr_scheduler, checkpoint, activation_checkpoint, validator, override, loss) are not listed:
  their flags cannot be checked here, so a recipe cannot set them.

Nothing upstream is copied. tyro spells a field with hyphens in its help (manager.py calls
tyro.cli without use_underscores) and reads underscores alike; a bool is `--a.b` / `--a.no-b`.
The profile lists each key as its dataclass path (underscores), the form framework_config uses.

    oracles.py profile torchtitan b5bcd76c   # prints the profile (through torchtitan_profile.py)
"""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import oracles
import torchtitan_profile

VERSION = "b5bcd76c"
REF = "torchtitan@b5bcd76c"
UPSTREAM = ("pytorch/torchtitan", "b5bcd76c66d0acb1a08b176d9639425bc55e0b2a (2026-08-21, main)")
TRAINER = "torchtitan/trainer.py"
CONFIGS = "torchtitan/config/configs.py"
METRICS = "torchtitan/components/metrics.py"
MANAGER = "torchtitan/config/manager.py"
REGISTRY = "torchtitan/models/llama3/config_registry.py"


def _class(tree: ast.Module, dotted: str) -> ast.ClassDef | None:
    """A class by its dotted name ("MetricsProcessor.Config"), nested classes included."""
    body: list[ast.stmt] = tree.body
    found = None
    for part in dotted.split("."):
        found = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == part), None)
        if found is None:
            return None
        body = found.body
    return found


def _suppressed(annotation: ast.AST) -> bool:
    """Annotated[..., tyro.conf.Suppress]."""
    return (isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name)
            and annotation.value.id == "Annotated" and "Suppress" in ast.unparse(annotation.slice))


def registry_functions(ref: Path) -> list[str]:
    """The config functions of llama3's config_registry.py: top-level defs returning Trainer.Config."""
    tree = oracles._parse(ref / REF / REGISTRY)
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.returns is not None
            and ast.unparse(n.returns) == "Trainer.Config"]


def _manager_options(ref: Path) -> list[str]:
    """The options ConfigManager._load_config strips (its `arg == "--x"` comparisons)."""
    path = ref / REF / MANAGER
    method = _class(oracles._parse(path), "ConfigManager")
    load = next((n for n in method.body if isinstance(n, ast.FunctionDef) and n.name == "_load_config"), None)
    if load is None:
        raise oracles.OracleError(f"{path}: no ConfigManager._load_config")
    out = []
    for node in ast.walk(load):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id == "arg":
            for c in node.comparators:
                if isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value.startswith("--"):
                    out.append(c.value[2:])
    if sorted(out) != ["config", "module"]:
        raise oracles.OracleError(f"{path}: _load_config strips {out}, not --module and --config")
    return out


def key_rules(ref: Path) -> tuple[dict[str, torchtitan_profile.KeyRule], list[str], list[str]]:
    """Every flag (as its dataclass path) with its rule, the sections listed, the sections left out."""
    trainer_path = ref / REF / TRAINER
    config = _class(oracles._parse(trainer_path), "Trainer.Config")
    if config is None:
        raise oracles.OracleError(f"{trainer_path}: no class Trainer.Config")
    sources = {CONFIGS: oracles._parse(ref / REF / CONFIGS), METRICS: oracles._parse(ref / REF / METRICS)}
    rules: dict[str, torchtitan_profile.KeyRule] = {}
    for option in _manager_options(ref):
        rules[option] = torchtitan_profile.KeyRule("str", origin=f"{REF}/{MANAGER}")
    rules["config"].choices = tuple(registry_functions(ref))
    sections, missing = [], []
    for node in config.body:
        if not isinstance(node, ast.AnnAssign) or not isinstance(node.target, ast.Name):
            continue
        name, ann = node.target.id, node.annotation
        if _suppressed(ann):
            continue
        if isinstance(ann, ast.Name) and ann.id == "str":
            rules[name] = torchtitan_profile._rule(ann, oracles._where(trainer_path, node, ref))
            continue
        dotted = ast.unparse(ann)
        found = [(path, cls) for path, tree in sources.items() if (cls := _class(tree, dotted)) is not None]
        if not found:
            missing.append(name)
            continue
        path, cls = found[0]
        sections.append(name)
        for field in cls.body:
            if isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name) \
                    and not _suppressed(field.annotation):
                rules[f"{name}.{field.target.id}"] = torchtitan_profile._rule(
                    field.annotation, oracles._where(ref / REF / path, field, ref))
    return rules, sections, missing


def profile_yaml(reference: Path | None = None) -> str:
    ref = reference or oracles.reference_dir()
    rules, sections, missing = key_rules(ref)
    repo, at = UPSTREAM
    wrap = lambda text, first="#   ", rest="#            ": textwrap.wrap(  # noqa: E731
        text, 100, initial_indent=first, subsequent_indent=rest)
    out = [f"# TorchTitan {VERSION}: a framework profile, the options of `-m torchtitan.train` at main after TOML.",
           "# A run is --module <module> --config <config_registry function>, then --section.option flags",
           "# (frozen, not removed: torchtitan/config/README.md at this commit).",
           f"# Generated by `tests/conformance/oracles.py profile torchtitan {VERSION}` from {repo}",
           f"# at {at}, files",
           f"# {MANAGER}, {TRAINER}, {CONFIGS},",
           f"# {METRICS}, {REGISTRY}",
           f"# (unmodified upstream copies in shared/reference/{REF}).",
           *wrap("keys:    module and config (ConfigManager._load_config), config's choices the functions of "
                 "the llama3 config registry; every tyro option of Trainer.Config as its dataclass path: "
                 f"top-level str fields and the fields of the sections {', '.join(sections)}. tyro spells them "
                 "with hyphens (--training.max-norm; it reads underscores alike), a bool --a.b / --a.no-b, a "
                 "list[str] one comma-separated word (manager.py's list_str_rule)."),
           *wrap(f"Not listed (their dataclasses are not in the reference): {', '.join(missing)}; "
                 "model_spec is tyro.conf.Suppress."),
           *wrap("values:  per key, its annotation: int, float (float | int: a number), bool, str, list, any, "
                 "`nullable` for `| None` (tyro reads the word None), `choices=` a Literal's strings."),
           "# Regenerate instead of editing.",
           "framework: torchtitan",
           f"version: {oracles._yaml_str(VERSION)}",
           f"title: {oracles._yaml_str(f'TorchTitan {VERSION} (main 2026-08-21; config functions and CLI flags)')}",
           f"schema: {oracles._yaml_str(f'TorchTitan {VERSION} Trainer.Config')}",
           "writes: [torchtitan]",
           "keys:"]
    out += [f"  - {oracles._yaml_str(k)}" for k in sorted(rules)]
    out += oracles.values_block({k: r.spec() for k, r in rules.items()})
    return "\n".join(out) + "\n"
