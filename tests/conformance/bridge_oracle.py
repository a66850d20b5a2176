"""Megatron-Bridge's performance scripts as the conformance suite's oracle.

The files run from shared/reference/Megatron-Bridge@<commit>/scripts/performance (nothing is
copied): upstream_stubs answers the imports that are not in the reference (nemo_run, torch,
megatron.bridge, transformer_engine, the scripts' utils.datasets) with stand-ins.

  parser()          argument_parser.parse_cli_args(): the real argparse parser. nemo_run only
                    names a default directory in a help text.
  override_keys()   the config keys the performance scripts themselves set on the
                    ConfigContainer (`cfg.model.seq_length = 8192`, `recipe.train.train_iters =
                    50`, ...: every attribute assignment through `cfg`/`recipe` in run_script.py,
                    utils/*.py and configs/*/*.py, read with `ast`), each typed by the literals
                    assigned to it. Megatron-Bridge's ConfigContainer (src/megatron/bridge/
                    training/config.py) is not in the reference at 06f25c22: these keys exist
                    (the scripts set them), other keys may exist too and are refused here.
  effective()       run_script.main() itself (parse_known_args, get_perf_optimized_recipe,
                    set_cli_overrides, set_user_overrides, set_post_overrides) on an argv, with
                    `pretrain` replaced by a function that keeps the config. The library recipes
                    (megatron.bridge.recipes.*) are not in the reference: a stand-in config whose
                    sections keep what the scripts set (an unset field reads None) takes their
                    place, so the effective configuration is every key the scripts set, the
                    per-GPU workload base configuration included. Stand-ins for the Bridge
                    functions the scripts call (not in the reference): Hydra-style overrides are
                    parsed with Hydra's own override parser and must name a key already set;
                    apply_flex_dispatcher_backend records the backend; the precision recipes
                    record their name; the mock dataset records its sequence length.
"""
from __future__ import annotations

import ast
import contextlib
import functools
import io
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import oracles  # noqa: E402
import upstream_stubs  # noqa: E402

BRIDGE_REFS = {"06f25c22": "Megatron-Bridge@06f25c22"}
UPSTREAM = {"Megatron-Bridge@06f25c22": ("NVIDIA-NeMo/Megatron-Bridge", "06f25c227ef9d3d9b22e5561fb9f46e1cbdab7e2")}
PACKAGE = {"06f25c22": "0.4.2"}
CONTAINERS = {"06f25c22": ["nvcr.io/nvidia/nemo:26.04.01"]}
STUBS = ["nemo_run", "megatron", "torch", "transformer_engine", "wandb", "utils.datasets", "numpy"]
CONFIG_BASES = {"cfg", "recipe"}


def scripts_dir(version: str, reference: Path | None = None) -> Path:
    ref = reference or oracles.reference_dir()
    if version not in BRIDGE_REFS:
        raise oracles.OracleError(f"no Megatron-Bridge reference for version {version!r} (known: {', '.join(BRIDGE_REFS)})")
    oracles._need(ref / BRIDGE_REFS[version] / "scripts/performance/run_script.py")
    return ref / BRIDGE_REFS[version] / "scripts/performance"


# ---------------------------------------------------------------------------------------------
# importing the scripts

class Section:
    """A stand-in config section: keeps what is set; a field nobody set reads None."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return None


class CommOverlapConfig(Section):
    pass


def stand_in_config() -> Section:
    """What a library recipe would return, as far as the scripts read it before setting it."""
    return Section(
        model=Section(cuda_graph_impl="none"), train=Section(), ddp=Section(use_megatron_fsdp=False, nccl_ub=False),
        optimizer=Section(optimizer="adam", use_precision_aware_optimizer=False), scheduler=Section(),
        logger=Section(), checkpoint=Section(), rerun_state_machine=Section(), rng=Section(), dataset=Section(),
        tokenizer=Section(), dist=Section(), comm_overlap=CommOverlapConfig(), mixed_precision=Section())


def _flex_backend(model, backend, *a, **k):
    # run_script's --moe_flex_dispatcher_backend defaults to -1 (not given), which the scripts
    # pass on too: taken here as no change (the real function is not in the reference)
    if backend in (None, -1):
        return
    model.moe_flex_dispatcher_backend = backend
    model.moe_token_dispatcher_type = "flex"


def _mock_dataset(**kw):
    return Section(kind="mock", sequence_length=kw.get("seq_length"))


def _hydra_overrides(conf, overrides):
    """Each override as Hydra's parser reads it, onto a key the config already has."""
    from hydra.core.override_parser.overrides_parser import OverridesParser  # noqa: PLC0415
    from omegaconf import OmegaConf  # noqa: PLC0415

    for o in OverridesParser.create().parse_overrides(overrides):
        key = o.key_or_group
        if OmegaConf.select(conf, key, default="__absent__") == "__absent__":
            raise ValueError(f"override {o.input_line!r}: the config has no key {key!r}")
        OmegaConf.update(conf, key, o.value(), merge=False)
    return conf


def _to_dict(obj):
    if isinstance(obj, Section):
        return {k: _to_dict(v) for k, v in obj.__dict__.items()}
    if isinstance(obj, (list, tuple)):
        return [_to_dict(v) for v in obj]
    return obj if isinstance(obj, (int, float, str, bool, type(None))) else repr(type(obj).__name__)


def _apply(section, values, excluded=None):
    for k, v in values.items():
        if isinstance(v, dict) and isinstance(getattr(section, k), Section):
            _apply(getattr(section, k), v)
        else:
            setattr(section, k, v)


@functools.lru_cache(maxsize=None)
def _modules(version: str, reference: Path | None):
    """run_script, argument_parser and the config families, imported once."""
    root = scripts_dir(version, reference)
    sys.path.insert(0, str(root))
    for key in [k for k in sys.modules if k.split(".")[0] in {*upstream_stubs.STUBBED, "nemo_run", "utils", "configs"}]:
        del sys.modules[key]
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, upstream_stubs._StubFinder)]
    # modules the config families import that the reference does not keep (the fine-tuning ones)
    absent = [f"configs.{init.parent.name}.{node.module}" for init in sorted(root.glob("configs/*/__init__.py"))
              for node in ast.walk(oracles._parse(init))
              if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module
              and not (init.parent / f"{node.module}.py").is_file()]
    sys.meta_path.insert(0, upstream_stubs._StubFinder(STUBS + absent, set(), {}))
    import argument_parser  # noqa: PLC0415
    import utils.overrides as overrides  # noqa: PLC0415
    import utils.precision as precision  # noqa: PLC0415

    overrides.CommOverlapConfig = CommOverlapConfig
    overrides.TokenizerConfig = Section
    overrides.apply_flex_dispatcher_backend = _flex_backend
    overrides.apply_moe_token_drop = lambda model, **k: model
    overrides.set_deepseek_v3_pipeline_model_parallel_layout = (
        lambda model, layout=None: setattr(model, "pipeline_model_parallel_layout", layout or "deepseek_v3 default"))
    overrides.create_mock_dataset_config = _mock_dataset
    overrides.create_omegaconf_dict_config = lambda recipe: (__import__("omegaconf").OmegaConf.create(_to_dict(recipe)), {})
    overrides.parse_hydra_overrides = _hydra_overrides
    overrides.apply_overrides = _apply
    for name in [n for n in vars(precision) if n.startswith("bf16_")]:
        setattr(precision, name, functools.partial(Section, recipe=name))
    import run_script  # noqa: PLC0415

    return argument_parser, run_script


def _family(version: str, family: str, reference: Path | None = None):
    """configs.<family>, with the library recipes it calls answered by the stand-in config."""
    _modules(version, reference)
    import importlib  # noqa: PLC0415

    module = importlib.import_module(f"configs.{family}")
    for mod in [m for n, m in list(sys.modules.items()) if n.startswith(f"configs.{family}")]:
        for name, value in list(vars(mod).items()):
            if name.endswith("_pretrain_config") and isinstance(value, upstream_stubs._Any):
                setattr(mod, name, stand_in_config)
            elif name == "CommOverlapConfig":
                setattr(mod, name, CommOverlapConfig)
    return module


def parser(version: str, reference: Path | None = None):
    return _modules(version, reference)[0].parse_cli_args()


class ParseError(Exception):
    pass


def parse(version: str, argv: list[str], reference: Path | None = None):
    """(args, the words parse_known_args leaves) as run_script.py parses argv; ParseError with
    argparse's own message when it refuses the argv."""
    p = parser(version, reference)
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            return p.parse_known_args(argv)
    except SystemExit as e:
        raise ParseError(err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else str(e)) from None


def workload_base_config(version: str, args, reference: Path | None = None):
    """The per-GPU configuration run_script.py starts from (utils.utils.get_workload_base_config),
    and the recipe builder it calls; ValueError as upstream raises it."""
    _family(version, args.model_family_name, reference)
    import utils.utils as uu  # noqa: PLC0415

    import logging  # noqa: PLC0415

    logging.disable(logging.WARNING)  # upstream warns when it falls back from config variant v2 to v1
    try:
        base = uu.get_workload_base_config(args.model_family_name, args.model_recipe_name, args.gpu, args.compute_dtype,
                                           args.task, args.config_variant)
    finally:
        logging.disable(logging.NOTSET)
    module = sys.modules[f"configs.{args.model_family_name}"]
    builder = f"{args.model_recipe_name}_{args.task}_config_{args.gpu}"
    if not hasattr(module, builder):
        raise ValueError(f"configs.{args.model_family_name} has no recipe builder {builder}()")
    return base


def effective(version: str, argv: list[str], reference: Path | None = None) -> dict[str, Any]:
    """The configuration run_script.main() hands to pretrain() for this argv, flat."""
    _, run_script = _modules(version, reference)
    args, _ = parse(version, argv, reference)
    _family(version, args.model_family_name, reference)
    kept: dict[str, Any] = {}
    run_script.pretrain = lambda config, forward_step_func: kept.setdefault("config", config)
    saved = sys.argv
    sys.argv = ["run_script.py", *argv]
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            run_script.main()
    finally:
        sys.argv = saved
    return oracles.flatten_keys(_to_dict(kept["config"]))


# ---------------------------------------------------------------------------------------------
# the config keys the scripts set

def _chain(node: ast.AST) -> list[str] | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id in CONFIG_BASES and len(parts) >= 2:
        return list(reversed(parts))
    return None


def _literal_type(node: ast.AST) -> str | None:
    value = oracles._literal(node)
    if value is None and not (isinstance(node, ast.Constant) and node.value is None):
        return "?"  # not a literal
    return {bool: "bool", int: "int", float: "float", str: "str", list: "list", tuple: "list",
            type(None): "null"}.get(type(value), "?")


@functools.lru_cache(maxsize=None)
def override_keys(version: str, reference: Path | None = None) -> dict[str, tuple[str, bool, str]]:
    """key -> (type, nullable, file:line of its first assignment)."""
    root = scripts_dir(version, reference)
    seen: dict[str, list[str]] = {}
    where: dict[str, str] = {}
    files = [root / "run_script.py", *sorted((root / "utils").glob("*.py")), *sorted((root / "configs").glob("*/*.py"))]
    for path in files:
        for node in ast.walk(oracles._parse(path)):
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            else:
                continue
            for t in targets:
                chain = _chain(t)
                if chain:
                    key = ".".join(chain)
                    seen.setdefault(key, []).append(_literal_type(value))
                    where.setdefault(key, oracles._where(path, node, root.parent.parent))
    out = {}
    for key, types in seen.items():
        nullable = "null" in types
        known = {t for t in types if t not in ("null", "?")}
        if known == {"int", "float"}:
            known = {"float"}
        out[key] = (known.pop() if len(known) == 1 else "any", nullable, where[key])
    return out


def _sections(keys) -> set[str]:
    return {k.split(".")[0] for k in keys}


# ---------------------------------------------------------------------------------------------
# the profile

def profile_yaml(version: str, reference: Path | None = None) -> str:
    ref = reference or oracles.reference_dir()
    folder = BRIDGE_REFS[version]
    repo, commit = UPSTREAM[folder]
    p = parser(version, ref)
    options: list[oracles.Option] = []
    for a in p._actions:
        if not a.option_strings:
            continue
        zero = a.nargs == 0
        type_name = None if zero else {int: "int", float: "float", str: "str", None: "str"}.get(
            a.type, getattr(a.type, "__name__", "str"))
        if type_name == "<lambda>":
            type_name = "lambda"
        action = type(a).__name__.removeprefix("_").replace("Action", "").lower() if zero else None
        action = {"storetrue": "store_true", "storefalse": "store_false", "help": "help"}.get(action, action)
        choices = None if a.choices is None else tuple(str(c) for c in a.choices)
        nargs = a.nargs if a.nargs not in (None, 0) else None
        options.append(oracles.Option(tuple(a.option_strings), a.dest, action, nargs, choices, type=type_name))
    keys = override_keys(version, ref)
    rules = {}
    for o in options:
        for name in o.strings:
            if name in ("-h", "--help") or name in rules:
                continue
            rules[name] = (oracles.value_spec(None, o.action) if not o.takes_value
                           else oracles.value_spec(o.type or "str", None, o.nargs, o.choices))
    for key, (type_name, nullable, _) in keys.items():
        rules[key] = oracles.value_spec(type_name, nullable=nullable)
    title = f"Megatron-Bridge {PACKAGE[version]} ({version}, container nemo:{CONTAINERS[version][0].rsplit(':', 1)[1]})"
    names = sorted({s for o in options for s in o.strings} | set(keys))
    out = [f"# Megatron-Bridge {version}: a framework profile, what scripts/performance/run_script.py accepts.",
           f"# Megatron-Bridge {PACKAGE[version]}, branch llmb-r0.4.1: the commit dgxc-benchmarking@841f5466 pins for every",
           "# Megatron-Bridge workload (container nvcr.io/nvidia/nemo:26.04.01).",
           f"# Generated by `tests/conformance/oracles.py profile megatron-bridge {version}` from {repo}",
           f"# at {commit}, scripts/performance (unmodified upstream copies in shared/reference/{folder}).",
           "#   keys:    the options of argument_parser.parse_cli_args() (the real parser, imported;",
           "#            run_script.py calls parse_known_args()), and the config keys the words it leaves",
           "#            may override (key=value, set_cli_overrides): the keys the performance scripts set",
           "#            on the ConfigContainer themselves (tests/conformance/bridge_oracle.py; the",
           "#            ConfigContainer class is not in the reference at this commit)",
           "#   values:  per option, what the parser takes (`action=NAME`: no value; int, float, str;",
           "#            another name: a converter that is not checked) with `nargs=N` and `choices=A|B`;",
           "#            per config key, the type of the literals the scripts assign to it (any: none)",
           "# Argument names and values, in trainbench's format. Regenerate instead of editing.",
           "framework: megatron-bridge",
           f"version: {oracles._yaml_str(version)}",
           f"title: {oracles._yaml_str(title)}",
           f"schema: {oracles._yaml_str(f'Megatron-Bridge {PACKAGE[version]} ({version}) scripts/performance/run_script.py')}",
           f"containers: [{', '.join(CONTAINERS[version])}]",
           "writes: [megatron-bridge]",
           "keys:"]
    out += [f"  - {oracles._yaml_str(k)}" for k in names]
    out += oracles.values_block(rules)
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# the conformance check of one rendered command

_TYPES = {"int": (int,), "float": (int, float), "bool": (bool,), "str": (str,), "list": (list,)}


def _type_problem(value: Any, type_name: str, nullable: bool) -> str | None:
    if value is None:
        return None if nullable or type_name == "any" else "null where the scripts assign a value"
    wanted = _TYPES.get(type_name)
    if wanted is None:
        return None
    if isinstance(value, bool) and bool not in wanted:
        return f"{value!r} is a bool where the scripts assign {type_name}"
    if not isinstance(value, wanted):
        return f"{value!r} is not {type_name} (the type the scripts assign to it)"
    return None


def command_problems(argv: list[str], version: str, reference: Path | None = None) -> list[str]:
    """What Megatron-Bridge's run_script.py at `version` refuses in argv (argv[0] is the script):
    the real parser's verdict, each word parse_known_args() leaves as a config override (Hydra's
    parser, a key the scripts set, a value of the type they assign), and the per-GPU
    configuration and recipe builder the arguments name."""
    from hydra.core.override_parser.overrides_parser import OverridesParser  # noqa: PLC0415

    what = f"Megatron-Bridge {version} scripts/performance/run_script.py"
    try:
        args, rest = parse(version, argv[1:], reference)
    except ParseError as e:
        return [f"the parser of {what} refuses the command line: {e}"]
    problems = []
    keys = override_keys(version, reference)
    for word in rest:
        if word.startswith("-") or "=" not in word:
            problems.append(f"'{word}' is not an argument of {what}; parse_known_args() leaves it and "
                            "set_cli_overrides() cannot read it as key=value")
            continue
        try:
            override = OverridesParser.create().parse_overrides([word])[0]
        except Exception as e:  # noqa: BLE001 (Hydra's parse errors have several types)
            problems.append(f"'{word}': Hydra's override parser refuses it: {e}")
            continue
        key = override.key_or_group
        if key not in keys:
            import difflib  # noqa: PLC0415

            near = difflib.get_close_matches(key, keys, n=1)
            problems.append(f"'{key}' is not a config key {what} sets" + (f" (did you mean '{near[0]}'?)" if near else ""))
            continue
        type_name, nullable, _ = keys[key]
        bad = _type_problem(override.value(), type_name, nullable)
        if bad:
            problems.append(f"'{word}': {bad} ({keys[key][2]})")
    try:
        workload_base_config(version, args, reference)
    except ValueError as e:
        problems.append(f"{what} has no per-GPU configuration for these arguments: {e}")
    return problems
