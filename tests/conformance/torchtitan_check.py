"""TorchTitan v0.2.2's own config parser, run on trainbench's rendered TOML and launch line.

The parser is the real one: `ConfigManager.parse_args` of torchtitan/config/manager.py from the
`torchtitan==0.2.2` wheel that venv.sh installs (no dependencies: the config code needs tyro and
tomllib only), over the dataclasses of the unmodified shared/reference/torchtitan@v0.2.2
torchtitan/config/job_config.py (the wheel's copy must be byte-identical to it, or the check
stops). torch, which job_config.py imports for a log message, is a stand-in (upstream_stubs). It
reads the TOML with tomllib, refuses a key its dataclass lacks (`_dict_to_dataclass`), and parses
the `--section.key` overrides with tyro as `torchtitan.train` does. TorchTitan does not check the
types of TOML values (a dataclass takes what it is given); this module checks each value against
its field's annotation, as the field will be used.

The flavour tables (`llama3_args`, `qwen3_args`) are in the wheel's models/*/__init__.py, which the
reference folder lacks; they are read with `ast` (their modules import torch and torchao) and the
rendered model is compared with trainbench's catalog model of the recipe.
"""
from __future__ import annotations

import ast
import contextlib
import dataclasses
import importlib.metadata
import importlib.util
import io
import math
import sys
import tomllib
import types
import typing
from pathlib import Path

import upstream_stubs

VERSION = "0.2.2"
REF = "torchtitan@v0.2.2"
# models/<name>/__init__.py: the flavour table's variable
FLAVOR_TABLES = {"llama3": "llama3_args", "qwen3": "qwen3_args"}


class SetupError(Exception):
    """The installed wheel is missing or is not the release of the reference."""


def wheel_file(relative: str) -> Path:
    try:
        dist = importlib.metadata.distribution("torchtitan")
    except importlib.metadata.PackageNotFoundError as e:
        raise SetupError("torchtitan is not installed in this Python (tests/conformance/venv.sh installs 0.2.2)") from e
    if dist.version != VERSION:
        raise SetupError(f"torchtitan {dist.version} is installed, not {VERSION}")
    path = Path(str(dist.locate_file(relative)))
    if not path.is_file():
        raise SetupError(f"the torchtitan wheel has no {relative}")
    return path


def _load(name: str, path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_MANAGER: types.ModuleType | None = None
# Kept here, not looked up in sys.modules: other checkers of the same process unload the stand-in
# modules they made (every "torch*" name), which would take this one with them.
_JOB_CONFIG: types.ModuleType | None = None


def manager(reference: Path) -> types.ModuleType:
    """torchtitan.config.manager, over the reference's job_config.py, torch a stand-in."""
    global _MANAGER, _JOB_CONFIG
    if _MANAGER is not None:
        return _MANAGER
    ref_job_config = reference / REF / "torchtitan/config/job_config.py"
    if wheel_file("torchtitan/config/job_config.py").read_bytes() != ref_job_config.read_bytes():
        raise SetupError(f"the installed wheel's job_config.py differs from {ref_job_config}")
    own = {"torchtitan.tools.logging", "torchtitan.config.job_config", "torchtitan.config.manager"}
    sys.meta_path.insert(0, upstream_stubs._StubFinder(["torch", "torchtitan"], own, {}))
    _load("torchtitan.tools.logging", wheel_file("torchtitan/tools/logging.py"))
    _JOB_CONFIG = _load("torchtitan.config.job_config", ref_job_config)
    _MANAGER = _load("torchtitan.config.manager", wheel_file("torchtitan/config/manager.py"))
    return _MANAGER


def parse(reference: Path, argv: list[str]) -> tuple[object | None, str]:
    """ConfigManager().parse_args(argv): the JobConfig, or None and why it was refused."""
    m = manager(reference)
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            return m.ConfigManager().parse_args(argv), ""
    except SystemExit:
        return None, " ".join(err.getvalue().split())[:400] or "tyro refused the command line"
    except (ValueError, tomllib.TOMLDecodeError, FileNotFoundError, TypeError) as e:
        return None, " ".join(str(e).split())


# --- the types of TOML values -------------------------------------------------------------------

def _fits(value, tp) -> bool:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, a) for a in typing.get_args(tp))
    if origin is typing.Literal:
        return value in typing.get_args(tp)
    if origin is list:
        (item,) = typing.get_args(tp) or (object,)
        return isinstance(value, list) and all(_fits(v, item) for v in value)
    if tp is type(None):
        return value is None
    if tp is bool:
        return isinstance(value, bool)
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if tp is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if tp is str:
        return isinstance(value, str)
    return True


def type_problems(reference: Path, toml: dict) -> list[str]:
    """Each TOML value against its field's annotation in JobConfig (unknown keys are the parser's)."""
    manager(reference)
    job_config = _JOB_CONFIG
    out: list[str] = []

    def walk(cls, data: dict, prefix: str) -> None:
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            if f.name not in data:
                continue
            value, tp, key = data[f.name], hints[f.name], prefix + f.name
            if dataclasses.is_dataclass(tp):
                if isinstance(value, dict):
                    walk(tp, value, key + ".")
                else:
                    out.append(f"[{key}] is a table of {tp.__name__}; the TOML gives {value!r}")
            elif not _fits(value, tp):
                out.append(f"{key} = {value!r} is not {_type_text(tp)} ({cls.__name__}.{f.name})")

    walk(job_config.JobConfig, toml, "")
    return out


def _type_text(tp) -> str:
    return str(tp).replace("typing.", "").replace("<class '", "").replace("'>", "")


# --- flavours -----------------------------------------------------------------------------------

def _call_kwargs(node: ast.Call) -> dict:
    out = {}
    for kw in node.keywords:
        if isinstance(kw.value, ast.Call):
            out[kw.arg] = _call_kwargs(kw.value)
        else:
            out[kw.arg] = ast.literal_eval(kw.value)
    return out


def flavors(model_name: str) -> dict[str, dict]:
    """The flavour table of models/<model_name>/__init__.py: flavour -> the arguments it sets."""
    table = FLAVOR_TABLES.get(model_name)
    if not table:
        return {}
    tree = ast.parse(wheel_file(f"torchtitan/models/{model_name}/__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == table for t in node.targets):
            return {ast.literal_eval(k): _call_kwargs(v) for k, v in zip(node.value.keys, node.value.values)}
    raise SetupError(f"no {table} in the wheel's models/{model_name}/__init__.py")


def _defaults(path: Path, cls: str) -> dict:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            return {n.target.id: ast.literal_eval(n.value) for n in node.body
                    if isinstance(n, ast.AnnAssign) and isinstance(n.value, ast.Constant)}
    raise SetupError(f"no class {cls} in {path}")


def flavor_shape(reference: Path, model_name: str, flavor: str) -> dict | None:
    """The shape of a flavour in trainbench's catalog keys (None: no such flavour)."""
    table = flavors(model_name)
    if flavor not in table:
        return None
    a = table[flavor]
    if model_name == "llama3":
        d = _defaults(reference / REF / "torchtitan/models/llama3/model/args.py", "TransformerModelArgs")
        a = {**d, **a}
        # FeedForward (models/llama3/model/model.py): 2/3 of 4*dim, times the multiplier, rounded up
        hidden = int(2 * (4 * a["dim"]) / 3)
        if a.get("ffn_dim_multiplier") is not None:
            hidden = int(a["ffn_dim_multiplier"] * hidden)
        ffn = a["multiple_of"] * ((hidden + a["multiple_of"] - 1) // a["multiple_of"])
        return {"layers": a["n_layers"], "hidden": a["dim"], "heads": a["n_heads"],
                "kv_heads": a.get("n_kv_heads") or a["n_heads"], "ffn": ffn, "vocab": a["vocab_size"],
                "rope_theta": a["rope_theta"]}
    d = _defaults(wheel_file(f"torchtitan/models/{model_name}/model/args.py"), "Qwen3ModelArgs")
    a = {**d, **a}
    moe = a.get("moe_args", {}) if a.get("moe_enabled") else {}
    return {"layers": a["n_layers"], "hidden": a["dim"], "heads": a["n_heads"], "kv_heads": a["n_kv_heads"],
            "head_dim": a["head_dim"], "ffn": a["hidden_dim"], "vocab": a["vocab_size"],
            "rope_theta": a["rope_theta"], "experts": moe.get("num_experts", 0), "moe_top_k": moe.get("top_k", 0),
            "moe_ffn": a.get("moe_inter_dim", 0) if moe else 0, "qk_norm": a.get("qk_norm", False),
            "tied_embeddings": a.get("enable_weight_tying", False)}


def shape_problems(shape: dict, model: dict) -> list[str]:
    """The flavour's shape against the catalog model (a YAML mapping of recipes/catalog/models/)."""
    out = []
    for key, want in shape.items():
        have = model.get(key, 0 if key != "kv_heads" else model.get("heads"))
        if isinstance(want, bool):
            have = bool(model.get(key, key == "tied_embeddings" and True))
        if key == "rope_theta" and isinstance(have, (int, float)) and math.isclose(have, want):
            continue
        if have != want:
            out.append(f"{key}: the flavour has {want}, the model {have}")
    return out
