"""What TorchTitan v0.2.2 reads from its TOML job config, with what each key takes, and the
trainbench framework profile (recipes/catalog/frameworks/torchtitan-0.2.2.yaml) made from it.

Read at run time, with Python's `ast`, from the unmodified upstream
shared/reference/torchtitan@v0.2.2/torchtitan/config/job_config.py: every field of `JobConfig`,
each nested dataclass field being a TOML table (`[training]`, `[quantize.linear.float8]`), each
other field a key of that table with the type its annotation says. Nothing upstream is copied.

    oracles.py profile torchtitan 0.2.2      # prints the profile (oracles.py dispatches here)
"""
from __future__ import annotations

import ast
import dataclasses
import textwrap
from pathlib import Path

import oracles

REFS = {"0.2.2": "torchtitan@v0.2.2"}
UPSTREAM = ("pytorch/torchtitan", "tag v0.2.2, 73a0e6979dd10b6b1904098eb3c8f62c18ab87ce")
JOB_CONFIG = "torchtitan/config/job_config.py"
ROOT = "JobConfig"


@dataclasses.dataclass
class KeyRule:
    """One TOML key: its type as the annotation says (int, float, bool, str, list, any), whether
    None is a value, the Literal choices, and where upstream declares it."""
    type: str
    nullable: bool = False
    choices: tuple[str, ...] = ()
    origin: str = ""

    def spec(self) -> str:
        return oracles.value_spec(self.type, choices=self.choices or None, nullable=self.nullable)


def _dataclasses(tree: ast.Module) -> dict[str, ast.ClassDef]:
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and any(
                (isinstance(d, ast.Name) and d.id == "dataclass")
                or (isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id == "dataclass")
                for d in node.decorator_list):
            out[node.name] = node
    return out


def _members(node: ast.AST) -> list[ast.AST]:
    """The members of `A | B | None` (PEP 604 unions), else [node]."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _members(node.left) + _members(node.right)
    return [node]


def _rule(annotation: ast.AST, where: str) -> KeyRule:
    members = _members(annotation)
    nullable = any(isinstance(m, ast.Constant) and m.value is None for m in members)
    kinds: list[str] = []
    choices: tuple[str, ...] = ()
    for m in members:
        if isinstance(m, ast.Constant) and m.value is None:
            continue
        if isinstance(m, ast.Name) and m.id in ("int", "float", "bool", "str"):
            kinds.append(m.id)
        elif isinstance(m, ast.Subscript) and isinstance(m.value, ast.Name) and m.value.id == "list":
            kinds.append("list")
        elif isinstance(m, ast.Subscript) and isinstance(m.value, ast.Name) and m.value.id == "Literal":
            elts = m.slice.elts if isinstance(m.slice, ast.Tuple) else [m.slice]
            values = [e.value for e in elts if isinstance(e, ast.Constant)]
            if len(values) != len(elts) or not all(isinstance(v, str) for v in values):
                raise oracles.OracleError(f"{where}: a Literal of non-strings, which this reader does not type")
            kinds.append("str")
            choices = tuple(values)
        else:
            raise oracles.OracleError(f"{where}: annotation {ast.unparse(m)!r} is not one this reader types")
    kind = kinds[0] if len(set(kinds)) == 1 else ""
    if set(kinds) == {"float", "int"}:
        kind = "float"  # a number: an int is a float too
    elif not kind:
        kind = "any"  # list[str] | str: a value, not a table
    return KeyRule(kind, nullable, choices, where)


def key_rules(version: str, reference: Path | None = None) -> tuple[dict[str, KeyRule], list[str]]:
    """Every TOML key of JobConfig (flat: "quantize.linear.float8.recipe_name") with its rule, and
    the tables (sections) in declaration order."""
    ref = reference or oracles.reference_dir()
    if version not in REFS:
        raise oracles.OracleError(f"no TorchTitan profile for {version!r} (known: {', '.join(REFS)})")
    path = ref / REFS[version] / JOB_CONFIG
    classes = _dataclasses(oracles._parse(path))
    if ROOT not in classes:
        raise oracles.OracleError(f"{path}: no dataclass {ROOT}")
    rules: dict[str, KeyRule] = {}
    tables: list[str] = []

    def walk(cls: str, prefix: str) -> None:
        for node in classes[cls].body:
            if not isinstance(node, ast.AnnAssign) or not isinstance(node.target, ast.Name):
                continue
            name = prefix + node.target.id
            ann = node.annotation
            if isinstance(ann, ast.Name) and ann.id in classes:
                tables.append(name)
                walk(ann.id, name + ".")
            else:
                if not prefix:
                    raise oracles.OracleError(f"{path}:{node.lineno}: {ROOT}.{name} is not a table")
                rules[name] = _rule(ann, oracles._where(path, node, ref))

    walk(ROOT, "")
    return rules, tables


def profile_yaml(version: str, reference: Path | None = None) -> str:
    ref = reference or oracles.reference_dir()
    if version == "b5bcd76c":  # main after TOML: command-line options, not TOML keys
        import torchtitan_main_profile  # noqa: PLC0415 (it imports this module)

        return torchtitan_main_profile.profile_yaml(ref)
    rules, tables = key_rules(version, ref)
    repo, at = UPSTREAM
    wrap = lambda text, first="#   ", rest="#            ": textwrap.wrap(  # noqa: E731
        text, 100, initial_indent=first, subsequent_indent=rest)
    out = [f"# TorchTitan {version}: a framework profile, the keys its TOML job config (--job.config_file) takes.",
           "# The last TorchTitan release with TOML job configs (TOML was removed on 2026-02-23, 9810191b).",
           f"# Generated by `tests/conformance/oracles.py profile torchtitan {version}` from {repo}",
           f"# at {at}, file {JOB_CONFIG}",
           f"# (an unmodified upstream copy in shared/reference/{REFS[version]}).",
           *wrap("keys:    every field of JobConfig's dataclasses, flat: a dataclass field is a TOML table "
                 f"({len(tables)} of them, [job] ... [quantize.grouped_mm.mx]), any other field a key of its "
                 "table. ConfigManager._dict_to_dataclass refuses a key its dataclass lacks."),
           *wrap("values:  per key, its annotation: int, float (float | int: a number), bool, str, list, any "
                 "(list[str] | str), `nullable` for `| None`, `choices=` a Literal's strings."),
           "# Regenerate instead of editing.",
           "framework: torchtitan",
           f"version: {oracles._yaml_str(version)}",
           f"title: {oracles._yaml_str(f'TorchTitan {version} (tag v{version}, 73a0e697; TOML job configs)')}",
           f"schema: {oracles._yaml_str(f'TorchTitan {version} JobConfig')}",
           "writes: [torchtitan]",
           "keys:"]
    out += [f"  - {oracles._yaml_str(k)}" for k in sorted(rules)]
    out += oracles.values_block({k: r.spec() for k, r in rules.items()})
    return "\n".join(out) + "\n"
