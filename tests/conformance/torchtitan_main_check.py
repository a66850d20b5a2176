"""TorchTitan main at b5bcd76c, run on trainbench's rendered launch line.

At b5bcd76c `torchtitan.train` takes `--module <module> --config <function>` (ConfigManager.
_load_config, torchtitan/config/manager.py) and tyro parses every other word over the function's
`Trainer.Config`. The reference (shared/reference/torchtitan@b5bcd76c) holds manager.py, trainer.py,
configs.py, metrics.py and llama3's config_registry.py and __init__.py, not the rest of the package,
so this check runs what those files can run, unmodified, their other imports stand-ins
(upstream_stubs):

- --module must name llama3 (the one registry of the reference) and --config a function of its
  config_registry.py that returns a Trainer.Config;
- the other words are parsed by the real tyro (the venv's, the version torchtitan 0.2.2 pins) with
  manager.py's own registry rules (ConfigManager.register_tyro_rules: list[str] as one A,B word),
  over a Trainer.Config of the fields trainer.py declares whose dataclasses the reference has
  (configs.py's sections, metrics.py's MetricsProcessor.Config, the str fields), each section's
  default what the function's `Trainer.Config(...)` call gives it. A flag of another section, an
  unknown flag or a value of the wrong type is refused as tyro refuses it;
- every flag is spelled as tyro's help spells it (tyro's own parser lists them; it reads
  underscores alike, trainbench renders the help's spelling);
- what no flag sets is read from the function with `ast` and compared with the recipe: the model
  flavour (model_registry("8B") -> the `_8b` builder of llama3/__init__.py: layers, dim, heads,
  kv heads, vocab, the FFN size compute_ffn_hidden_dim gives), the converters (precision) and the
  activation checkpointing class (recompute granularity), and the tokenizer folder the function
  names against the --hf-assets-path given.
"""
from __future__ import annotations

import ast
import contextlib
import dataclasses
import importlib.util
import io
import sys
import types
from pathlib import Path

import oracles
import upstream_stubs

VERSION = "b5bcd76c"
REF = "torchtitan@b5bcd76c"
MODULE = "llama3"
CONVERTER_PRECISION = {"Float8LinearConverter": "fp8", "MXFP8LinearConverter": "mxfp8",
                       "NVFP4LinearConverter": "nvfp4"}
AC_GRANULARITY = {"SelectiveAC": "selective", "FullAC": "full"}


class SetupError(Exception):
    """tyro is missing, or the reference lacks what this check reads."""


_LOADED: dict[str, types.ModuleType] = {}


def _load(ref: Path) -> dict[str, types.ModuleType]:
    """configs.py, metrics.py and manager.py of the reference, their imports stand-ins (tyro real)."""
    if _LOADED:
        return _LOADED
    try:
        import tyro  # noqa: F401, PLC0415
    except ImportError as e:
        raise SetupError("tyro is not installed in this Python (tests/conformance/venv.sh installs it)") from e
    with _stand_ins():
        for name, rel in (("torchtitan.config.configs", "torchtitan/config/configs.py"),
                          ("torchtitan.components.metrics", "torchtitan/components/metrics.py"),
                          ("torchtitan.config.manager", "torchtitan/config/manager.py")):
            spec = importlib.util.spec_from_file_location(name, ref / REF / rel)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            _LOADED[name] = module
        _LOADED["torchtitan.config.manager"].ConfigManager()  # registers its tyro rules, as train.py's does
    return _LOADED


@contextlib.contextmanager
def _stand_ins():
    """torch and the rest of torchtitan as stand-ins (manager.py's rules import some at parse time)."""
    own = {"torchtitan.config.configs", "torchtitan.components.metrics", "torchtitan.config.manager"}
    finder = upstream_stubs._StubFinder(["torch", "torchtitan"], own, {})
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def _registry(ref: Path) -> dict[str, ast.FunctionDef]:
    tree = oracles._parse(ref / REF / "torchtitan/models/llama3/config_registry.py")
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef) and n.returns is not None
            and ast.unparse(n.returns) == "Trainer.Config"}


def _base(fn: ast.FunctionDef, registry: dict[str, ast.FunctionDef]) -> ast.FunctionDef | None:
    """The registry function `fn` derives from (`config = llama3_8b()`), if any."""
    for node in fn.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Name) and node.value.func.id in registry:
            return registry[node.value.func.id]
    return None


def _trainer_call(fn: ast.FunctionDef, registry: dict[str, ast.FunctionDef]) -> ast.Call | None:
    """The function's `Trainer.Config(...)` call, or that of the function it derives from."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "Trainer.Config":
            return node
    base = _base(fn, registry)
    return _trainer_call(base, registry) if base else None


def _model_registry_call(fn: ast.FunctionDef, registry: dict[str, ast.FunctionDef]) -> ast.Call | None:
    """The last model_registry(...) call of the function (a derived one may replace the model)."""
    calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call) and ast.unparse(n.func) == "model_registry"]
    if calls:
        return calls[-1]
    base = _base(fn, registry)
    return _model_registry_call(base, registry) if base else None


def function_facts(ref: Path, name: str) -> dict:
    """What the registry function sets that no flag changes: flavour, converters, AC class,
    hf_assets_path."""
    registry = _registry(ref)
    fn = registry[name]
    mr = _model_registry_call(fn, registry)
    flavor = ast.literal_eval(mr.args[0]) if mr is not None and mr.args else None
    converters = sorted({ast.unparse(n.func).split(".")[0] for n in ast.walk(mr) if isinstance(n, ast.Call)
                         and ast.unparse(n.func).endswith(".Config")}) if mr is not None else []
    call = _trainer_call(fn, registry)
    kwargs = {k.arg: k.value for k in call.keywords} if call is not None else {}
    ac = kwargs.get("activation_checkpoint")
    ac_class = ast.unparse(ac.func).split(".")[0] if isinstance(ac, ast.Call) else None
    hf = kwargs.get("hf_assets_path")
    return {"flavor": flavor, "converters": converters, "ac": ac_class,
            "hf_assets_path": hf.value if isinstance(hf, ast.Constant) else None}


def _section_defaults(ref: Path, name: str, mods: dict) -> dict:
    """The sections the function's Trainer.Config(...) call sets whose classes the reference has."""
    registry = _registry(ref)
    call = _trainer_call(registry[name], registry)
    configs, metrics = mods["torchtitan.config.configs"], mods["torchtitan.components.metrics"]
    names = {"TrainingConfig": configs.TrainingConfig, "ParallelismConfig": configs.ParallelismConfig,
             "CompileConfig": configs.CompileConfig, "MetricsProcessor": metrics.MetricsProcessor}
    out = {}
    for kw in call.keywords if call is not None else []:
        used = {n.id for n in ast.walk(kw.value) if isinstance(n, ast.Name)}
        if used and used <= set(names):
            out[kw.arg] = eval(compile(ast.Expression(kw.value), "<registry>", "eval"), dict(names))  # noqa: S307
        elif isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
            out[kw.arg] = kw.value.value
    return out


def root_class(ref: Path, mods: dict) -> type:
    """Trainer.Config's tyro options whose dataclasses the reference has (model_spec suppressed)."""
    trainer = oracles._parse(ref / REF / "torchtitan/trainer.py")
    cls = next(n for n in ast.walk(trainer) if isinstance(n, ast.ClassDef) and n.name == "Trainer")
    config = next(n for n in cls.body if isinstance(n, ast.ClassDef) and n.name == "Config")
    configs, metrics = mods["torchtitan.config.configs"], mods["torchtitan.components.metrics"]
    known = {"TrainingConfig": configs.TrainingConfig, "ParallelismConfig": configs.ParallelismConfig,
             "CompileConfig": configs.CompileConfig, "CommConfig": configs.CommConfig,
             "DebugConfig": configs.DebugConfig, "MetricsProcessor.Config": metrics.MetricsProcessor.Config}
    fields = []
    for node in config.body:
        if not isinstance(node, ast.AnnAssign) or not isinstance(node.target, ast.Name):
            continue
        ann = ast.unparse(node.annotation)
        if ann == "str":
            fields.append((node.target.id, str, dataclasses.field(default=ast.literal_eval(node.value))))
        elif ann in known:
            fields.append((node.target.id, known[ann], dataclasses.field(default_factory=known[ann])))
    return dataclasses.make_dataclass("Config", fields, kw_only=True)


def parse(ref: Path, argv: list[str]) -> tuple[object | None, str, str]:
    """(config, function name, why refused): --module/--config taken off as _load_config does,
    the rest through tyro with manager.py's rules."""
    import tyro  # noqa: PLC0415

    mods = _load(ref)
    module = function = None
    rest: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        if word in ("--module", "--config") and i + 1 < len(argv):
            module, function = (argv[i + 1], function) if word == "--module" else (module, argv[i + 1])
            i += 2
            continue
        if word.startswith(("--module=", "--config=")):
            value = word.split("=", 1)[1]
            module, function = (value, function) if word.startswith("--module=") else (module, value)
        else:
            rest.append(word)
        i += 1
    if module != MODULE:
        return None, "", f"--module {module!r}: the reference holds the config registry of {MODULE!r} only"
    registry = _registry(ref)
    if function not in registry:
        return None, "", f"--config {function!r} is not a function of {MODULE}'s config_registry.py " \
                         f"(one of {', '.join(registry)})"
    root = root_class(ref, mods)
    defaults = _section_defaults(ref, function, mods)
    default = root(**{k: v for k, v in defaults.items() if k in {f.name for f in dataclasses.fields(root)}})
    manager = mods["torchtitan.config.manager"]
    err = io.StringIO()
    try:
        with _stand_ins(), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            config = tyro.cli(root, args=rest, default=default, registry=manager.custom_registry)
        return config, function, ""
    except SystemExit:
        return None, function, " ".join(err.getvalue().split())[:400] or "tyro refused the command line"
    except (ValueError, TypeError) as e:
        return None, function, " ".join(str(e).split())


def tyro_spellings(ref: Path) -> set[str]:
    """Every option as tyro's help spells it (hyphens, --a.no-b), from tyro's own parser."""
    import warnings

    import tyro  # noqa: PLC0415

    mods = _load(ref)
    with _stand_ins(), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # get_parser: still in tyro 1.0
        parser = tyro.extras.get_parser(root_class(ref, mods), registry=mods["torchtitan.config.manager"].custom_registry)
    return {o for a in parser._actions for o in a.option_strings} | {"--module", "--config"}


def _ffn(dim: int, multiple_of: int, multiplier: float | None) -> int:
    """The Llama FFN size (2/3 of 4*dim, times the multiplier, rounded up to multiple_of): the
    formula the flavour's compute_ffn_hidden_dim call names; its module is not in the reference."""
    hidden = int(2 * (4 * dim) / 3)
    if multiplier is not None:
        hidden = int(multiplier * hidden)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


def flavor_shape(ref: Path, flavor: str) -> dict | None:
    """The shape llama3/__init__.py's builder of the flavour gives, in trainbench's model keys."""
    tree = oracles._parse(ref / REF / "torchtitan/models/llama3/__init__.py")
    table = next((n.value for n in tree.body if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == "llama3_configs" for t in n.targets)), None)
    if table is None:
        raise SetupError("no llama3_configs in the reference's models/llama3/__init__.py")
    builders = {ast.literal_eval(k): v.id for k, v in zip(table.keys, table.values)}
    if flavor not in builders:
        return None
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == builders[flavor])
    values = {}
    for node in fn.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            with contextlib.suppress(ValueError):
                values[node.targets[0].id] = ast.literal_eval(node.value)
    ffn_call = next(n for n in ast.walk(fn) if isinstance(n, ast.Call) and ast.unparse(n.func) == "compute_ffn_hidden_dim")
    kw = {k.arg: ast.literal_eval(k.value) for k in ffn_call.keywords}
    return {"layers": values["n_layers"], "hidden": values["dim"], "heads": values["n_heads"],
            "kv_heads": values["n_kv_heads"], "vocab": values["vocab_size"],
            "ffn": _ffn(values["dim"], kw["multiple_of"], kw.get("ffn_dim_multiplier"))}


def problems(ref: Path, argv: list[str], recipe: dict) -> list[str]:
    """Everything wrong with the launch line, for a recipe as `show --json` prints it."""
    config, function, why = parse(ref, argv)
    if config is None:
        return [f"TorchTitan {VERSION} refuses it: {why}"]
    spelled = tyro_spellings(ref)
    out = [f"{w.split('=', 1)[0]} is spelled {w.split('=', 1)[0].replace('_', '-')} in tyro's help (tyro reads "
           "both; trainbench renders tyro's spelling)" for w in argv
           if w.startswith("--") and w.split("=", 1)[0] not in spelled]
    facts = function_facts(ref, function)
    model = recipe.get("model", {})
    shape = flavor_shape(ref, facts["flavor"])
    if shape is None:
        out.append(f"{function} builds flavour {facts['flavor']!r}, which llama3_configs lacks")
    else:
        for key, want in shape.items():
            have = model.get(key, model.get("heads") if key == "kv_heads" else None)
            if have != want:
                out.append(f"{function} flavour {facts['flavor']}: {key} {want}, the recipe's model has {have}")
    precisions = [CONVERTER_PRECISION[c] for c in facts["converters"] if c in CONVERTER_PRECISION]
    want_precision = precisions[0] if precisions else "bf16"
    have_precision = recipe.get("precision")
    if have_precision != want_precision and not (want_precision == "bf16" and have_precision in ("fp32", "tf32")):
        out.append(f"{function} trains in {want_precision} (converters {facts['converters']}), "
                   f"the recipe asks {have_precision}")
    granularity = AC_GRANULARITY.get(facts["ac"] or "", facts["ac"])
    have_ac = recipe.get("recompute", {}).get("granularity")
    if granularity != have_ac:
        out.append(f"{function} checkpoints activations with {facts['ac']}, the recipe asks {have_ac!r}")
    folder = (facts["hf_assets_path"] or "").rstrip("/").rsplit("/", 1)[-1]
    if not str(config.hf_assets_path).endswith("/" + folder):
        out.append(f"--hf-assets-path {config.hf_assets_path}: {function} reads the tokenizer from {folder}")
    return out
