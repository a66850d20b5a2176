#!/usr/bin/env python3
"""Command-line oracles of the upstream programs, read mechanically from the reference sources.

Every set this module returns is extracted at run time from the unmodified upstream files in
shared/reference/ (see its README.md): Python sources are read with `ast` (nothing upstream is
imported or executed), C with a regular expression, YAML with OmegaConf. Nothing upstream is
copied into this repository; only the rules of the readers are written here.

    oracles.py args megatron-lm e958b2ca            # pretrain_gpt.py flags
    oracles.py args megatron-preprocess e958b2ca     # tools/preprocess_data.py flags
    oracles.py args metaseq f7ffa5f --task dummy_lm  # metaseq/cli/train.py flags (+ --arch ...)
    oracles.py args nccl-tests 2.19.6                # *_perf flags
    oracles.py args nemo-preprocess 22.06            # preprocess_data_for_megatron.py flags
    oracles.py args torchrun -                       # Debian python3-torch's torchrun
    oracles.py args srun -                           # `srun --help` of the installed Slurm
    oracles.py keys nemo 22.06                       # Hydra keys NeMo reads (see nemo_key_sets)
    oracles.py keys exp-manager 24.07                # ExpManagerConfig as dotted keys
    oracles.py keys launcher 23.07                   # the seed's launcher/gpu-recipes config keys
    oracles.py -v args ...                           # with kind, nargs, choices and origin
    oracles.py profile megatron-lm e958b2ca          # a trainbench framework profile (YAML)
    oracles.py profile nemo 23.07                    # ... of NeMo (nemo_profile.py)

The reference folder is $TRAINBENCH_SHARED_DIR/reference (default: ../shared/reference next to
the repository), or --reference DIR.
"""
from __future__ import annotations

import argparse
import ast
import dataclasses
import functools
import os
import re
import sys
import textwrap
from pathlib import Path
from typing import Any, Iterable, Iterator

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

# Which upstream checkout is the oracle for which version a recipe names (reference/README.md).
NEMO_REFS = {"22.06": "NeMo@v1.11.0", "23.07": "NeMo@v1.20.0", "24.07": "NeMo@r2.0.0rc1"}
# The NeMo 2.0 final release: a cross-check that the 24.07 result still holds (not a seed).
NEMO_CROSS_CHECK = {"24.07": "NeMo@v2.0.0"}
# Container tags that have no checkout of their own: the nearest one stands in, and says so.
NEMO_NEAREST = {"24.05": "24.07"}
MEGATRON_REFS = {"e958b2ca": "Megatron-LM@e958b2ca", "878d65f": "Megatron-LM@878d65f",
                 "d98e8a64": "Megatron-LM@d98e8a64"}
METASEQ_REFS = {"f7ffa5f": "metaseq@f7ffa5f"}
NCCL_TESTS_REFS = {"2.19.6": "nccl-tests@v2.19.6", "v2.19.6": "nccl-tests@v2.19.6"}
# Upstream repository and ref of each reference folder (reference/README.md), for profile headers.
UPSTREAM = {
    "Megatron-LM@e958b2ca": ("NVIDIA/Megatron-LM", "e958b2ca145172d5816a755b02d61a3ae0a8b3e4"),
    "Megatron-LM@878d65f": ("NVIDIA/Megatron-LM", "878d65fe006b07ccef715ccc5ab521afb94e78a8"),
    "Megatron-LM@d98e8a64": ("NVIDIA/Megatron-LM", "d98e8a64ddf34856e74b24714e3bedb2f5a39553"),
    "metaseq@f7ffa5f": ("facebookresearch/metaseq", "f7ffa5fd61cf90f498a36d365c13dd7f1a912ff7"),
    "nccl-tests@v2.19.6": ("NVIDIA/nccl-tests", "tag v2.19.6, a0b82b2260cf5152b9f8c061bbf7eaf0ba096432"),
}
# The seeds' own training configurations (their keys are ones NeMo of that version reads).
LAUNCHER_CONFIGS = {
    "22.06": ["NeMo-Framework-Launcher@eec62ab4/conf/training/gpt3/*.yaml"],
    "23.07": ["NeMo-Framework-Launcher@23.07/launcher_scripts/conf/training/gpt3/*.yaml"],
    "24.07": ["gpu-recipes@24ba6df/src/frameworks/nemo-configs/gpt3-175b-256gpus-fp8.yaml",
              "gpu-recipes@24ba6df/src/frameworks/nemo-configs/llama3-70b-fp8.yaml"],
}
GPT_CONFIG = "examples/nlp/language_modeling/conf/megatron_gpt_config.yaml"
EXP_MANAGER = "nemo/utils/exp_manager.py"
NEMO_PREPROCESS = "scripts/nlp_language_modeling/preprocess_data_for_megatron.py"


class OracleError(Exception):
    """The reference does not have (or no longer matches) what an extractor reads."""


def reference_dir(explicit: str | os.PathLike | None = None) -> Path:
    if explicit:
        path = Path(explicit)
    else:
        shared = os.environ.get("TRAINBENCH_SHARED_DIR") or str(REPO.parent / "shared")
        path = Path(shared) / "reference"
    if not path.is_dir():
        raise OracleError(f"no reference folder at {path} (set TRAINBENCH_SHARED_DIR)")
    return path.resolve()


def _need(path: Path) -> Path:
    if not path.is_file():
        raise OracleError(f"reference file missing: {path}")
    return path


@functools.lru_cache(maxsize=None)
def _parse(path: Path) -> ast.Module:
    return ast.parse(_need(path).read_text(encoding="utf-8"), filename=str(path))


def _where(path: Path, node: ast.AST, root: Path | None = None) -> str:
    shown = path.relative_to(root) if root and path.is_relative_to(root) else path
    return f"{shown}:{getattr(node, 'lineno', '?')}"


# ---------------------------------------------------------------------------------------------
# argparse options, as a parser built from the source would have them

ZERO_ARG_ACTIONS = {"store_true", "store_false", "store_const", "append_const", "count", "help", "version",
                    "BooleanOptionalAction"}
# The value types a check can verify (argparse type=, a dataclass field's type, the C parser's
# reader): the text must convert. Other types (a custom function, an enum the reference lacks) are
# recorded by name and not checked.
CHECKED_TYPES = {"int", "float", "str", "bool", "size", "strtol"}


@dataclasses.dataclass
class Option:
    """One add_argument call (or what gen_parser_from_dataclass would make of a field)."""

    strings: tuple[str, ...]          # option strings ('--foo', '-f'); empty for a positional
    dest: str
    action: str | None = None         # 'store_true', ... or None (store)
    nargs: Any = None                 # None, '?', '*', '+', int
    choices: tuple[str, ...] | None = None
    origin: str = ""                  # file:line of the call or field
    required: bool = False
    type: str | None = None           # 'int', 'float', 'str', ... as the parser converts the value


    @property
    def takes_value(self) -> bool:
        return self.action not in ZERO_ARG_ACTIONS

    @property
    def kind(self) -> str:
        if not self.takes_value:
            return self.action or "flag"
        return "value" if self.nargs is None else f"nargs={self.nargs}"


@dataclasses.dataclass
class ArgOracle:
    """What one program's argument parser accepts."""

    program: str
    version: str
    options: list[Option]
    positionals: list[Option]
    allow_abbrev: bool = False        # argparse's default True: unique prefixes of long options
    sources: list[str] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    getopt: bool = False              # GNU getopt_long rules instead of argparse's
    components: dict[str, str | None] = dataclasses.field(default_factory=dict)  # metaseq choices
    unknown_components: list[str] = dataclasses.field(default_factory=list)  # no oracle for these
    label: str = ""                   # how messages name it (default: program, version, sources)

    def describe(self) -> str:
        return self.label or f"{self.program} {self.version} ({', '.join(self.sources)})"

    def table(self) -> dict[str, Option]:
        """Option string -> option. The first registration wins (argparse raises on a conflict
        and metaseq's gen_parser_from_dataclass swallows that error)."""
        table: dict[str, Option] = {}
        for opt in self.options:
            for s in opt.strings:
                table.setdefault(s, opt)
        return table

    def lookup(self, word: str) -> tuple[Option | None, str]:
        """Resolve an option word ('--foo' or '--foo=1' or '-x5') the way the parser does.
        Returns (option, explanation); option None means the parser rejects the word."""
        table = self.table()
        name = word.split("=", 1)[0] if word.startswith("--") else word
        if name in table:
            return table[name], ""
        if self.getopt:
            return self._getopt_lookup(word, table)
        if word.startswith("-") and not word.startswith("--") and len(word) > 2:
            # argparse: '-x5' is '-x' with the value 5 (single-dash option with attached value)
            if word[:2] in table and table[word[:2]].takes_value:
                return table[word[:2]], ""
        if self.allow_abbrev and name.startswith("--"):
            hits = sorted({s for s in table if s.startswith(name)})
            if len(hits) == 1:
                return table[hits[0]], f"abbreviation of {hits[0]}"
            if len(hits) > 1:
                return None, f"ambiguous abbreviation ({', '.join(hits)})"
        return None, ""

    def _getopt_lookup(self, word: str, table: dict[str, Option]) -> tuple[Option | None, str]:
        if word.startswith("--"):
            name = word.split("=", 1)[0]
            hits = sorted({s for s in table if s.startswith("--") and s.startswith(name)})
            if len(hits) == 1:  # getopt_long accepts a unique prefix of a long option
                return table[hits[0]], f"abbreviation of {hits[0]}"
            return None, "ambiguous abbreviation" if hits else ""
        if len(word) > 2 and word[:2] in table and table[word[:2]].takes_value:
            return table[word[:2]], ""  # '-b8': short option with its argument attached
        return None, ""


class _CallWalker:
    """Collects add_argument calls reachable from one function, following calls to functions of
    the same module and to functions imported from modules present in the reference checkout."""

    def __init__(self, root: Path, on_call=None):
        self.root = root
        self.options: list[Option] = []
        self.positionals: list[Option] = []
        self.unresolved: list[str] = []
        self.seen: set[tuple[Path, str]] = set()
        self.on_call = on_call  # extra hook: (walker, path, call) -> bool (handled)
        self.function: ast.FunctionDef | None = None  # the function being walked (for the hook)

    def module_functions(self, path: Path) -> dict[str, tuple[Path, ast.FunctionDef]]:
        tree = _parse(path)
        funcs: dict[str, tuple[Path, ast.FunctionDef]] = {}
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                funcs[node.name] = (path, node)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                target = self.root / (node.module.replace(".", "/") + ".py")
                if target.is_file():
                    imported = {n.name: n.asname or n.name for n in node.names}
                    for fnode in _parse(target).body:
                        if isinstance(fnode, ast.FunctionDef) and fnode.name in imported:
                            funcs[imported[fnode.name]] = (target, fnode)
        return funcs

    def walk(self, path: Path, func: str) -> None:
        funcs = self.module_functions(path)
        if func not in funcs:
            raise OracleError(f"{path}: no function {func}()")
        self._walk_function(*funcs[func])

    def _walk_function(self, path: Path, fn: ast.FunctionDef) -> None:
        if (path, fn.name) in self.seen:
            return
        self.seen.add((path, fn.name))
        funcs = self.module_functions(path)
        side_parsers = _side_parsers(fn)
        outer, self.function = self.function, fn
        try:
            self._walk_body(path, fn, funcs, side_parsers)
        finally:
            self.function = outer

    def _walk_body(self, path: Path, fn: ast.FunctionDef, funcs, side_parsers: set[str]) -> None:
        for node in _in_source_order(fn):
            if not isinstance(node, ast.Call):
                continue
            if self.on_call and self.on_call(self, path, node):
                continue
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr == "add_argument":
                if isinstance(f.value, ast.Name) and f.value.id in side_parsers:
                    continue  # a throw-away parser of its own (metaseq's usr_parser)
                self.add_argument(path, node)
            elif isinstance(f, ast.Name) and f.id in funcs:
                self._walk_function(*funcs[f.id])

    def add_argument(self, path: Path, call: ast.Call) -> None:
        strings = []
        for a in call.args:
            if isinstance(a, ast.Constant) and isinstance(a.value, str):
                strings.append(a.value)
            else:
                self.unresolved.append(_where(path, call, self.root))
                return
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        action = _literal(kw.get("action"))
        if action is None and kw.get("action") is not None:
            action = _dotted(kw["action"]).split(".")[-1] or "custom"  # argparse.BooleanOptionalAction
        if action == "BooleanOptionalAction":  # argparse adds the --no- form of each long string
            strings += ["--no-" + s[2:] for s in strings if s.startswith("--")]
        nargs = _literal(kw.get("nargs"))
        type_name = _type_name(kw.get("type"))
        choices = _literal(kw.get("choices"))
        if not isinstance(choices, (list, tuple)):
            choices = None
        dest = _literal(kw.get("dest"))
        origin = _where(path, call, self.root)
        if strings and not strings[0].startswith("-"):
            self.positionals.append(Option((), dest or strings[0], action, nargs, _strs(choices), origin,
                                           type=type_name))
            return
        if dest is None:
            longs = [s for s in strings if s.startswith("--")]
            dest = (longs or strings)[0].lstrip("-").replace("-", "_")
        required = _literal(kw.get("required")) is True
        self.options.append(Option(tuple(strings), dest, action, nargs, _strs(choices), origin, required,
                                   None if action in ZERO_ARG_ACTIONS else type_name or "str"))


def _type_name(node: ast.AST | None) -> str | None:
    """argparse's type= as a name: 'int', 'float', 'str', a function's name, 'lambda'."""
    if node is None:
        return None
    if isinstance(node, ast.Lambda):
        return "lambda"
    return _dotted(node) or ast.unparse(node)


def _side_parsers(fn: ast.FunctionDef) -> set[str]:
    """Local names bound to an ArgumentParser(...) that the function neither returns nor passes
    on: a second, separate parser (e.g. to pre-parse --user-dir), not the one being built."""
    created = {t.id for node in ast.walk(fn) if isinstance(node, ast.Assign)
               and isinstance(node.value, ast.Call)
               and _dotted(node.value.func).split(".")[-1] == "ArgumentParser"
               for t in node.targets if isinstance(t, ast.Name)}
    if len(created) < 2:
        return set()
    returned = {n.id for node in ast.walk(fn) if isinstance(node, ast.Return) and node.value is not None
                for n in ast.walk(node.value) if isinstance(n, ast.Name)}
    return created - returned


def _strs(values) -> tuple[str, ...] | None:
    return None if values is None else tuple(str(v) for v in values)


def _literal(node: ast.AST | None) -> Any:
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _in_source_order(fn: ast.AST) -> Iterator[ast.AST]:
    """Depth-first, in source order (ast.walk is breadth-first)."""
    for child in ast.iter_child_nodes(fn):
        yield child
        yield from _in_source_order(child)


def _parser_kwargs(path: Path, func: str) -> dict[str, Any]:
    """Keyword arguments of the argparse.ArgumentParser(...) call inside a function."""
    for node in _parse(path).body:
        if isinstance(node, ast.FunctionDef) and node.name == func:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Call) and _dotted(sub.func) in ("argparse.ArgumentParser", "ArgumentParser"):
                    return {k.arg: _literal(k.value) for k in sub.keywords if k.arg}
    raise OracleError(f"{path}: no ArgumentParser(...) in {func}()")


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _help_option(parser_kwargs: dict[str, Any]) -> list[Option]:
    if parser_kwargs.get("add_help", True) is False:
        return []
    return [Option(("-h", "--help"), "help", "help", origin="argparse add_help")]


def _argparse_oracle(root: Path, program: str, version: str, path: Path, func: str,
                     parser_func: str | None = None) -> ArgOracle:
    walker = _CallWalker(root)
    walker.walk(path, func)
    if walker.unresolved:
        raise OracleError(f"add_argument calls with non-literal option strings: {walker.unresolved}")
    kwargs = _parser_kwargs(path, parser_func or func)
    return ArgOracle(
        program, version, _help_option(kwargs) + walker.options, walker.positionals,
        allow_abbrev=kwargs.get("allow_abbrev", True) is not False,
        sources=[str(path.relative_to(root.parent))])


@functools.lru_cache(maxsize=None)
def megatron_args(version: str, reference: Path | None = None) -> ArgOracle:
    """pretrain_gpt.py: megatron.training.arguments.parse_args() with pretrain_gpt's
    extra_args_provider (if it passes one) and allow_abbrev as the parser sets it. From d98e8a64
    on, most groups are made by ArgumentGroupFactory(Config).build_group() from dataclass fields
    (megatron_factory_options() emulates it on the ast)."""
    ref = reference or reference_dir()
    root = ref / MEGATRON_REFS[version]
    args_py = _need(root / "megatron/training/arguments.py")
    factory = _MegatronFactory(root)
    walker = _CallWalker(root, factory.on_call)
    walker.walk(args_py, "parse_args")
    if walker.unresolved:
        raise OracleError(f"add_argument calls with non-literal option strings: {walker.unresolved}")
    kwargs = _parser_kwargs(args_py, "parse_args")
    oracle = ArgOracle("megatron-lm", version, _help_option(kwargs) + walker.options, walker.positionals,
                       allow_abbrev=kwargs.get("allow_abbrev", True) is not False,
                       sources=[str(args_py.relative_to(root.parent))])
    oracle.notes += factory.notes
    oracle.sources += sorted(factory.files_used)
    # The entry script's extra_args_provider adds its own options: passed to pretrain() (e958b2ca,
    # 878d65f) or to parse_and_validate_args() (d98e8a64). e958b2ca passes none; 878d65f and
    # d98e8a64 pass `add_modelopt_args if has_nvidia_modelopt else None`, imported from
    # megatron/post_training/arguments.py, which is not in the reference: the oracle then accepts
    # only arguments.py's options (conservative: it may reject a ModelOpt flag, never accept a
    # flag that does not exist) and says so.
    entry = _need(root / "pretrain_gpt.py")
    for node in ast.walk(_parse(entry)):
        if isinstance(node, ast.Call) and _dotted(node.func) in ("pretrain", "parse_and_validate_args"):
            if _dotted(node.func) == "pretrain" and len(node.args) > 5:
                raise OracleError(f"{entry}: pretrain() passes extra_args_provider by position; extend megatron_args()")
            provider = next((k.value for k in node.keywords if k.arg == "extra_args_provider"), None)
            if provider is None:
                continue
            extra = _CallWalker(root)
            funcs = extra.module_functions(entry)
            for name in sorted({n.id for n in ast.walk(provider) if isinstance(n, ast.Name)}):
                if name in funcs:
                    extra._walk_function(*funcs[name])
                elif name[0].islower() and not name.startswith("has_"):
                    oracle.notes.append(f"{entry.relative_to(ref)}: {_dotted(node.func)}(extra_args_provider=...) may add "
                                        f"the options of {name}(), which is not in the reference; they are not accepted here")
            oracle.options += extra.options
    # parse_args() is strict (parser.parse_args()) unless ignore_unknown_args, which the entry
    # script does not pass.
    oracle.sources.append(str(entry.relative_to(ref)))
    return oracle


class _TypeInference(Exception):
    """ArgumentGroupFactory._extract_type raises TypeInferenceError for this annotation."""


class _MegatronFactory:
    """ArgumentGroupFactory (megatron/training/argument_utils.py, d98e8a64), emulated on the ast:
    `ArgumentGroupFactory(Config, exclude=[...]).build_group(parser, ...)` adds one argument per
    dataclass field of Config (bases first, `init=False` and excluded fields skipped):
    `--field-name` (dest field_name), the type from the annotation (Optional[X] -> X, list[X] ->
    nargs '+', Literal[...] -> choices and the choices' type, an Enum -> its member names), a bool
    field is `store_true` when its default == False, else `store_false` named `--no-X` and
    `--disable-X`; the field's metadata["argparse_meta"] (arg_names, dest, type, nargs, choices,
    ...) overrides all of that. The dataclasses are read from every megatron/**/*.py in the
    reference checkout."""

    def __init__(self, root: Path):
        self.root = root
        self.notes: list[str] = []
        self.files_used: set[str] = set()
        self._index: DataclassIndex | None = None
        self._enums: dict[str, tuple[str, ...]] = {}

    def index(self) -> DataclassIndex:
        if self._index is None:
            files = sorted(p for p in self.root.glob("megatron/**/*.py"))
            self._index = DataclassIndex(files, self.root)
            for path in files:
                for node in _parse(path).body:
                    if isinstance(node, ast.ClassDef) and any(_dotted(b).split(".")[-1] in ("Enum", "IntEnum", "StrEnum")
                                                              for b in node.bases):
                        self._enums[node.name] = tuple(
                            t.id for st in node.body if isinstance(st, ast.Assign)
                            for t in st.targets if isinstance(t, ast.Name) and not t.id.startswith("_"))
        return self._index

    def on_call(self, walker: _CallWalker, path: Path, call: ast.Call) -> bool:
        f = call.func
        if not (isinstance(f, ast.Attribute) and f.attr == "build_group"):
            return False
        made = f.value
        if isinstance(made, ast.Name) and walker.function is not None:
            made = _assigned(walker.function, made.id)
        if not (isinstance(made, ast.Call) and _dotted(made.func).split(".")[-1] == "ArgumentGroupFactory"):
            raise OracleError(f"{_where(path, call, self.root)}: build_group() on something that is not an "
                              "ArgumentGroupFactory(...); extend _MegatronFactory")
        cls = _dotted(made.args[0]) if made.args else ""
        exclude_node = next((k.value for k in made.keywords if k.arg == "exclude"), None)
        if isinstance(exclude_node, ast.Name) and walker.function is not None:
            exclude_node = _assigned(walker.function, exclude_node.id)
        exclude = _literal(exclude_node) if exclude_node is not None else []
        if not isinstance(exclude, (list, tuple)):
            raise OracleError(f"{_where(path, made, self.root)}: exclude= is not a literal list")
        walker.options += self.options(cls.split(".")[-1], set(exclude))
        return True

    def options(self, cls: str, exclude: set[str]) -> list[Option]:
        index = self.index()
        if cls not in index.classes:
            raise OracleError(f"dataclass {cls} (ArgumentGroupFactory) is not in the reference files under {self.root}")
        out = []
        for f in index.all_fields(cls):
            if f.name in exclude or _literal(f.field_kwargs().get("init")) is False:
                continue
            self.files_used.add(f"{self.root.name}/{f.origin.rsplit(':', 1)[0]}")
            out.append(self.field_option(cls, f))
        return out

    def field_option(self, cls: str, f: Field) -> Option:
        kw: dict[str, Any] = {"arg_names": ["--" + f.name.replace("_", "-")], "dest": f.name}
        meta = _argparse_meta(f)
        try:
            kw.update(self.extract_type(f.annotation))
            if kw.get("type") == "bool":
                kw["action"] = "store_true" if _default_is_false(f) else "store_false"
                kw.pop("type")
                if kw["action"] == "store_false":
                    kw["arg_names"] = ["--no-" + f.name.replace("_", "-"), "--disable-" + f.name.replace("_", "-")]
        except _TypeInference as e:
            if meta is None:
                raise OracleError(f"{f.origin}: {cls}.{f.name}: ArgumentGroupFactory cannot infer an argparse type "
                                  f"from {ast.unparse(f.annotation)} ({e}) and the field has no argparse_meta") from e
        for key, value in (meta or {}).items():
            if key == "type":
                kw["type"] = _type_name(value) if isinstance(value, ast.AST) else str(value)
            elif key == "choices":
                kw["choices"] = tuple(str(c) for c in value) if isinstance(value, (list, tuple)) else "unknown"
            else:
                kw[key] = value
        names = kw["arg_names"]
        if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
            raise OracleError(f"{f.origin}: argparse_meta arg_names is not a literal list of strings")
        action = kw.get("action")
        choices = kw.get("choices")
        type_name = None if action in ZERO_ARG_ACTIONS else kw.get("type", "str")
        if choices == "unknown":
            choices = None
            self.notes.append(f"{f.origin}: the choices of {names[0]} are computed at run time; its values are "
                              "not checked")
        elif type_name and type_name.startswith("enum:") and choices is None:
            self.notes.append(f"{f.origin}: {names[0]} takes a member name of {type_name[5:]}, which is not in the "
                              "reference; its values are not checked")
        return Option(tuple(names), str(kw.get("dest", f.name)), action, kw.get("nargs"),
                      choices if isinstance(choices, tuple) else None, f.origin,
                      _literal(kw.get("required")) is True if isinstance(kw.get("required"), ast.AST) else bool(kw.get("required")),
                      type_name)

    def extract_type(self, node: ast.AST | None) -> dict[str, Any]:
        """ArgumentGroupFactory._extract_type on an annotation."""
        self.index()
        if node is None:
            raise _TypeInference("no annotation")
        members = _union_members(node)
        if members is not None:  # Optional[X], Union[...], X | None
            if len(members) >= 2 and _is_none(members[1]):
                return self.extract_type(members[0])
            raise _TypeInference(f"Unions not supported by argparse: {ast.unparse(node)}")
        if isinstance(node, ast.Subscript):
            head = _dotted(node.value).split(".")[-1]
            args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
            if head in ("list", "List"):
                if len(args) != 1:
                    raise _TypeInference("Multi-type lists not supported by argparse")
                kw = self.extract_type(args[0])
                kw["nargs"] = "+"
                return kw
            if head == "Literal":
                values = [_literal(a) for a in args]
                kinds = {type(v).__name__ for v in values}
                if len(kinds) != 1:
                    raise OracleError(f"Literal with choices of several types: {ast.unparse(node)}")
                return {"type": kinds.pop(), "choices": tuple(str(v) for v in values)}
            raise _TypeInference(f"Unsupported type: {ast.unparse(node)}")
        name = _dotted(node)
        short = name.split(".")[-1]
        if short in self._enums:
            return {"type": f"enum:{short}", "choices": self._enums[short]}
        if short in ("int", "float", "str", "bool"):
            return {"type": short}
        # a class the reference does not define (an Enum such as AttnBackend, or torch.dtype):
        # argparse converts with it, and the oracle cannot tell which texts convert
        return {"type": f"enum:{short}" if short[:1].isupper() and "." not in name else name or ast.unparse(node)}


def _union_members(node: ast.AST) -> list[ast.AST] | None:
    """The members of Optional[X] (X, None), Union[A, B] or A | B, in order; None otherwise."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return (_union_members(node.left) or [node.left]) + (_union_members(node.right) or [node.right])
    if isinstance(node, ast.Subscript):
        head = _dotted(node.value).split(".")[-1]
        args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head == "Optional":
            return [args[0], ast.Constant(None)]
        if head == "Union":
            return args
    return None


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None or _dotted(node) == "NoneType"


def _default_is_false(f: Field) -> bool:
    """`attribute.default == False` as ArgumentGroupFactory tests it: a default_factory or no
    default leaves MISSING (not False); None is not False; 0 is."""
    kw = f.field_kwargs()
    if kw and "default" not in kw:
        return False
    node = f.default_node()
    if node is None:
        return False
    value = _literal(node)
    return value is not None and not isinstance(value, str) and value == False  # noqa: E712


def _argparse_meta(f: Field) -> dict[str, Any] | None:
    """field(metadata={"argparse_meta": {...}}) with literal values, or the ast of a value that is
    not a literal (type=str is a Name, choices=[... for ...] a comprehension)."""
    meta = f.field_kwargs().get("metadata")
    if not isinstance(meta, ast.Dict):
        return None
    for k, v in zip(meta.keys, meta.values):
        if _literal(k) == "argparse_meta" and isinstance(v, ast.Dict):
            out = {}
            for mk, mv in zip(v.keys, v.values):
                value = _literal(mv)
                out[str(_literal(mk))] = value if value is not None or _is_none(mv) else mv
            return out
    return None


def _assigned(fn: ast.FunctionDef, name: str) -> ast.AST | None:
    """The value last assigned to a local name in a function."""
    value = None
    for node in _in_source_order(fn):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            value = node.value
    return value


@functools.lru_cache(maxsize=None)
def megatron_preprocess_args(version: str, reference: Path | None = None) -> ArgOracle:
    ref = reference or reference_dir()
    root = ref / MEGATRON_REFS[version]
    return _argparse_oracle(root, "megatron-preprocess", version, root / "tools/preprocess_data.py", "get_args")


def nemo_ref(version: str, reference: Path) -> tuple[Path, list[str]]:
    """The NeMo checkout for a container version, with a note when a nearest one stands in."""
    notes = []
    if version in NEMO_REFS:
        ref = NEMO_REFS[version]
    elif version in NEMO_NEAREST:
        ref = NEMO_REFS[NEMO_NEAREST[version]]
        notes.append(f"no NeMo checkout for {version} in the reference; {ref} stands in")
    else:
        raise OracleError(f"no NeMo oracle for version {version!r} (known: {', '.join(NEMO_REFS)})")
    return reference / ref, notes


@functools.lru_cache(maxsize=None)
def nemo_preprocess_args(version: str, reference: Path | None = None) -> ArgOracle:
    ref = reference or reference_dir()
    root, notes = nemo_ref(version, ref)
    oracle = _argparse_oracle(root, "nemo-preprocess", version, _need(root / NEMO_PREPROCESS), "get_args")
    oracle.notes += notes
    return oracle


# ---------------------------------------------------------------------------------------------
# nccl-tests: getopt_long in src/common.cu

@functools.lru_cache(maxsize=None)
def nccl_tests_args(version: str = "2.19.6", reference: Path | None = None) -> ArgOracle:
    ref = reference or reference_dir()
    path = _need(ref / NCCL_TESTS_REFS[version] / "src/common.cu")
    text = path.read_text(encoding="utf-8")
    call = re.search(r'getopt_long\(\s*argc\s*,\s*argv\s*,\s*"([^"]*)"', text)
    table = re.search(r"struct\s+option\s+longopts\[\]\s*=\s*\{(.*?)\n\s*\};", text, re.S)
    if not call or not table:
        raise OracleError(f"{path}: no getopt_long option string or longopts[] table")
    line_of = lambda pos: text.count("\n", 0, pos) + 1  # noqa: E731
    shortopts = call.group(1)
    short: dict[str, bool] = {}  # letter -> takes an argument
    i = 0
    while i < len(shortopts):
        letter = shortopts[i]
        colons = len(shortopts[i + 1:]) - len(shortopts[i + 1:].lstrip(":"))
        short[letter] = colons >= 1  # 'x::' (optional argument) only attached; treated as value
        i += 1 + colons
    readers = _nccl_tests_readers(text, call.start(), _need(ref / NCCL_TESTS_REFS[version] / "src/common.h"))
    options: list[Option] = []
    by_letter: dict[str, list[str]] = {}
    for m in re.finditer(r'\{\s*"([^"]+)"\s*,\s*(\w+)\s*,\s*[^,]+,\s*\'(.)\'\s*\}', table.group(1)):
        name, has_arg, letter = m.groups()
        by_letter.setdefault(letter, []).append("--" + name)
        takes = has_arg != "no_argument"
        kind, choices = readers.get(letter, ("?", None)) if takes else (None, None)
        options.append(Option(("--" + name,), name, None if takes else "store_true", None, choices,
                              f"{path.relative_to(ref)}:{line_of(table.start(1) + m.start())}", type=kind))
    for letter, takes in short.items():
        kind, choices = readers.get(letter, ("?", None)) if takes else (None, None)
        options.append(Option(("-" + letter,), by_letter.get(letter, ["-" + letter])[0].lstrip("-"),
                              None if takes else "store_true", None, choices,
                              f"{path.relative_to(ref)}:{line_of(call.start())} optstring", type=kind))
    notes = []
    unmatched = sorted(set(by_letter) - set(short))
    if unmatched:
        notes.append(f"longopts whose short letter is not in the optstring: {unmatched}")
    return ArgOracle("nccl-tests", version, options, [], getopt=True,
                     sources=[str(path.relative_to(ref))], notes=notes)


def _nccl_tests_readers(text: str, switch_at: int, header: Path) -> dict[str, tuple[str, tuple[str, ...] | None]]:
    """How the option switch of src/common.cu reads each letter's optarg: 'size' (parsesize: a
    number with an optional K/M/G suffix, refused when it does not parse), 'strtol' (strtol(optarg,
    NULL, 0): nccl-tests takes whatever leading integer there is, 0 for none, so only a whole
    integer is a value it really reads), 'str' (strdup), or the names ncclstringtoop /
    ncclstringtotype look up (the first test_opnames[] / test_typenames[] of common.cu, every
    #if branch in, plus "all"; common.h falls back to sum/float for another word)."""
    readers: dict[str, tuple[str, tuple[str, ...] | None]] = {}
    htext = header.read_text(encoding="utf-8")

    def names(array: str, lookup: str) -> tuple[str, ...]:
        m = re.search(array + r"\[[^\]]*\]\s*=\s*\{(.*?)\};", text, re.S)
        if not m:
            raise OracleError(f"nccl-tests: no {array}[] in src/common.cu")
        found = re.findall(r'"([^"]+)"', m.group(1))
        f = re.search(r"static int " + lookup + r"\s*\(.*?\n\}", htext, re.S)
        return tuple(found + (re.findall(r'strcmp\(str, "([^"]+)"\)', f.group(0)) if f else []))

    for m in re.finditer(r"case '(.)':(.*?)break;", text[switch_at:], re.S):  # the option switch
        letter, body = m.groups()
        if "parsesize(optarg)" in body:
            readers[letter] = ("size", None)
        elif "ncclstringtoop(optarg)" in body:
            readers[letter] = ("str", names("test_opnames", "ncclstringtoop"))
        elif "ncclstringtotype(optarg)" in body:
            readers[letter] = ("str", names("test_typenames", "ncclstringtotype"))
        elif "strtol(optarg" in body:
            readers[letter] = ("strtol", None)
        elif "strdup(optarg)" in body:
            readers[letter] = ("str", None)
    return readers


# ---------------------------------------------------------------------------------------------
# the launchers in front of the programs: torchrun (Debian's python3-torch) and srun (Slurm)

TORCHRUN_PY = Path("/usr/lib/python3/dist-packages/torch/distributed/run.py")
# Options of the Pyxis SPANK plugin (NVIDIA/pyxis): srun has them only where pyxis is installed.
PYXIS_PREFIXES = ("--container-", "--no-container-")


@functools.lru_cache(maxsize=None)
def torchrun_args(run_py: Path = TORCHRUN_PY) -> ArgOracle:
    """torchrun = torch.distributed.run: get_args_parser() of the installed torch, read with ast.
    Its actions `env` (takes a value, defaults from PET_* variables) and `check_env` (nargs=0, a
    flag) come from torch/distributed/argparse_util.py."""
    root = run_py.parents[2]  # .../dist-packages
    if not run_py.is_file():
        raise OracleError(f"no torchrun source at {run_py} (Debian's python3-torch)")
    oracle = _argparse_oracle(root, "torchrun", _torch_version(root), run_py, "get_args_parser")
    util = run_py.parent / "argparse_util.py"
    flags = set()
    for node in _parse(_need(util)).body:
        if isinstance(node, ast.ClassDef) and any(
                isinstance(k, ast.keyword) and k.arg == "nargs" and _literal(k.value) == 0 for k in ast.walk(node)):
            flags.add(node.name)
    for opt in oracle.options:
        if opt.action in flags:
            opt.action, opt.type = "store_const", None  # nargs=0: a flag
    oracle.label = f"torchrun (torch {oracle.version}, {run_py})"
    return oracle


def _torch_version(root: Path) -> str:
    version_py = root / "torch" / "version.py"
    for node in _parse(_need(version_py)).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets):
            return str(_literal(node.value))
    return "?"


SRUN_MAN = Path("/usr/share/man/man1/srun.1.gz")


@functools.lru_cache(maxsize=None)
def srun_args(man: Path = SRUN_MAN) -> ArgOracle:
    """srun's options as the installed Slurm documents them in srun(1) (Debian's slurm-client): each
    `.TP` entry `-x, --long=<arg>` takes a value, `--long[=<arg>]` an optional one (attached only),
    `--long` none. `srun --help` (with a minimal slurm.conf in a temporary folder: srun needs one to
    start, and --help contacts nothing) must list no option the manual lacks. srun parses with
    getopt_long (unique prefixes of long options are taken)."""
    import gzip
    import shutil
    import subprocess
    import tempfile

    srun = shutil.which("srun")
    if not srun or not man.is_file():
        raise OracleError(f"srun or its manual {man} is not installed (Debian's slurm-client)")
    text = gzip.decompress(man.read_bytes()).decode("utf-8", "replace")
    options = []
    for m in re.finditer(r"^\.TP\n(\\fB\\-.*)$", text, re.M):
        line = re.sub(r"\\f[BIR]", "", m.group(1)).replace("\\-", "-")
        e = re.match(r"^(-\w)?(?:, )?(--[\w-]+)?(\[=|=)?", line)
        if not e or not (e.group(1) or e.group(2)):
            continue
        strings = tuple(x for x in (e.group(1), e.group(2)) if x)
        dest = (e.group(2) or e.group(1)).lstrip("-")
        where = f"{man}:{text.count(chr(10), 0, m.start()) + 2}"
        if e.group(3) == "[=":
            options.append(Option(strings, dest, None, "?", origin=where, type="str"))
        elif e.group(3) == "=" or (e.group(1) and not e.group(2) and "<" in line):
            options.append(Option(strings, dest, None, None, origin=where, type="str"))
        else:
            options.append(Option(strings, dest, "store_true", origin=where))
    with tempfile.TemporaryDirectory() as tmp:
        conf = Path(tmp) / "slurm.conf"
        conf.write_text("ClusterName=oracle\nSlurmctldHost=localhost\n", encoding="utf-8")
        env = {**os.environ, "SLURM_CONF": str(conf)}
        helptext = subprocess.run([srun, "--help"], capture_output=True, text=True, env=env, check=False).stdout
        version = subprocess.run([srun, "--version"], capture_output=True, text=True, env=env, check=False).stdout.split()
    documented = {x for o in options for x in o.strings}
    missing = sorted(set(re.findall(r"^\s{1,8}(?:-\w, )?(--[\w-]+)", helptext, re.M)) - documented)
    if len(options) < 50 or missing:
        raise OracleError(f"srun(1) gives {len(options)} options; `srun --help` also lists {missing}")
    oracle = ArgOracle("srun", version[-1] if version else "?", options, [], getopt=True,
                       sources=[str(man), srun])
    oracle.label = f"srun ({' '.join(version) or srun}: srun(1), srun --help)"
    return oracle


# ---------------------------------------------------------------------------------------------
# dataclasses (metaseq configs, NeMo's ExpManagerConfig), read with ast

@dataclasses.dataclass
class Field:
    name: str
    annotation: ast.AST | None
    value: ast.AST | None  # the right-hand side: a literal, field(...), II(...), Cls(), ...
    origin: str

    def field_kwargs(self) -> dict[str, ast.AST]:
        if isinstance(self.value, ast.Call) and _dotted(self.value.func) in ("field", "dataclasses.field"):
            return {k.arg: k.value for k in self.value.keywords if k.arg}
        return {}

    def default_node(self) -> ast.AST | None:
        """The default value expression; None for MISSING (no default)."""
        kw = self.field_kwargs()
        if kw or (isinstance(self.value, ast.Call) and _dotted(self.value.func) in ("field", "dataclasses.field")):
            if "default" in kw:
                return kw["default"]
            if "default_factory" in kw:
                factory = kw["default_factory"]
                # default_factory=lambda: X() / default_factory=X
                if isinstance(factory, ast.Lambda):
                    return factory.body
                return ast.Call(func=factory, args=[], keywords=[])
            return None
        return self.value

    def metadata(self) -> dict[str, Any]:
        meta = self.field_kwargs().get("metadata")
        if isinstance(meta, ast.Dict):
            out = {}
            for k, v in zip(meta.keys, meta.values):
                key = _literal(k)
                if isinstance(key, str):
                    out[key] = _literal(v) if _literal(v) is not None else v
            return out
        return {}


@dataclasses.dataclass
class DataclassDef:
    name: str
    bases: list[str]
    fields: list[Field]
    path: Path
    node: ast.ClassDef


class DataclassIndex:
    """The @dataclass classes of a set of files, their fields (own and inherited) in order, and
    the module-level names those files assign (for ChoiceEnum constants and the like)."""

    def __init__(self, files: Iterable[Path], root: Path):
        self.root = root
        self.classes: dict[str, DataclassDef] = {}
        self.assigns: dict[str, ast.AST] = {}
        for path in files:
            tree = _parse(path)
            for node in tree.body:
                if isinstance(node, ast.ClassDef) and any(
                        _dotted(d.func if isinstance(d, ast.Call) else d) in ("dataclass", "dataclasses.dataclass")
                        for d in node.decorator_list):
                    fields = [Field(s.target.id, s.annotation, s.value, _where(path, s, root))
                              for s in node.body
                              if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
                    self.classes.setdefault(node.name, DataclassDef(
                        node.name, [_dotted(b) for b in node.bases], fields, path, node))
                elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    self.assigns.setdefault(node.targets[0].id, node.value)

    def all_fields(self, name: str) -> list[Field]:
        """Fields in dataclass order: bases first; a redefinition keeps the base's position."""
        cls = self.classes[name]
        fields: dict[str, Field] = {}
        for base in cls.bases:
            if base.split(".")[-1] in self.classes:
                for f in self.all_fields(base.split(".")[-1]):
                    fields[f.name] = f
        for f in cls.fields:
            fields[f.name] = f
        return list(fields.values())

    def is_subclass(self, name: str, base: str) -> bool:
        if name == base:
            return True
        cls = self.classes.get(name)
        return bool(cls) and any(self.is_subclass(b.split(".")[-1], base) for b in cls.bases)

    def positional_args(self, name: str) -> list[str]:
        """MetaseqDataclass.positional_args(): the literal list its method returns."""
        for cls_name in [name] + self._ancestors(name):
            cls = self.classes.get(cls_name)
            if not cls:
                continue
            for item in cls.node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "positional_args":
                    for sub in ast.walk(item):
                        if isinstance(sub, ast.Return):
                            value = _literal(sub.value)
                            if isinstance(value, list):
                                return [str(v) for v in value]
        return []

    def _ancestors(self, name: str) -> list[str]:
        out = []
        for b in self.classes.get(name, DataclassDef(name, [], [], Path(), ast.ClassDef())).bases:
            b = b.split(".")[-1]
            out += [b] + self._ancestors(b)
        return out


def _annotation_parts(node: ast.AST | None) -> tuple[str, list[ast.AST]]:
    """('Optional', [inner]) for Optional[X]; ('List', [...]); ('bool', []); ..."""
    if node is None:
        return "", []
    if isinstance(node, ast.Subscript):
        inner = node.slice
        args = list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]
        return _dotted(node.value).split(".")[-1], args
    if isinstance(node, ast.Call):
        return _dotted(node.func).split(".")[-1] + "()", list(node.args)
    if isinstance(node, ast.Constant) and node.value is None:
        return "None", []
    return _dotted(node).split(".")[-1], []


def _strip_optional(node: ast.AST | None) -> ast.AST | None:
    """metaseq interpret_dc_type: Optional[X] / Union[X, None] -> X."""
    head, args = _annotation_parts(node)
    if head == "Optional" and args:
        return args[0]
    if head == "Union" and len(args) == 2 and _annotation_parts(args[1])[0] == "None":
        return args[0]
    return node


# --- metaseq: gen_parser_from_dataclass, emulated on the ast -----------------------------------

METASEQ_FILES = [
    "metaseq/dataclass/configs.py", "metaseq/dataclass/constants.py", "metaseq/options.py",
    "metaseq/benchmark/dummy_lm.py", "metaseq/tasks/streaming_language_modeling.py",
    "metaseq/models/transformer_lm.py", "metaseq/optim/adam.py",
    "metaseq/optim/lr_scheduler/polynomial_decay_schedule.py",
    "metaseq/criterions/vocab_parallel_cross_entropy.py",
]
# the registry decorators and the --flag each one's choice comes from
METASEQ_REGISTRY_DECORATORS = {
    "register_task": "task", "register_optimizer": "optimizer",
    "register_lr_scheduler": "lr_scheduler", "register_criterion": "criterion",
    "register_bpe": "bpe", "register_tokenizer": "tokenizer",
}


class MetaseqSource:
    def __init__(self, root: Path):
        self.root = root
        self.files = [_need(root / f) for f in METASEQ_FILES]
        self.index = DataclassIndex(self.files, root)
        # registered components: kind -> name -> (dataclass name or None, class node, path)
        self.registry: dict[str, dict[str, tuple[str | None, ast.ClassDef, Path]]] = {}
        # architectures: arch name -> (model name, path)
        self.archs: dict[str, tuple[str, Path]] = {}
        # models: name -> (dataclass name or None, class node, path)
        self.models: dict[str, tuple[str | None, ast.ClassDef, Path]] = {}
        for path in self.files:
            for node in _parse(path).body:
                for deco in getattr(node, "decorator_list", []):
                    if not isinstance(deco, ast.Call):
                        continue
                    name = _dotted(deco.func).split(".")[-1]
                    args = [_literal(a) for a in deco.args]
                    kw = {k.arg: k.value for k in deco.keywords if k.arg}
                    dc = _dotted(kw["dataclass"]) if "dataclass" in kw else None
                    if name in METASEQ_REGISTRY_DECORATORS and isinstance(node, ast.ClassDef):
                        self.registry.setdefault(METASEQ_REGISTRY_DECORATORS[name], {})[args[0]] = (dc, node, path)
                    elif name == "register_model" and isinstance(node, ast.ClassDef):
                        self.models[args[0]] = (dc, node, path)
                    elif name == "register_model_architecture":
                        self.archs[args[1]] = (args[0], path)

    def choice_enum(self, node: ast.AST | None) -> tuple[str, ...] | None:
        """Choices of a ChoiceEnum([...]) annotation or a constant assigned one."""
        if isinstance(node, ast.Name) and node.id in self.index.assigns:
            node = self.index.assigns[node.id]
        if isinstance(node, ast.Call) and _dotted(node.func).split(".")[-1] == "ChoiceEnum":
            values = _literal(node.args[0]) if node.args else None
            if isinstance(values, (list, tuple)):
                return tuple(str(v) for v in values)
            return ()  # choices computed at run time (e.g. get_available_activation_fns())
        return None

    def dataclass_options(self, cls_name: str, delete_default: bool = False) -> list[Option]:
        """metaseq.dataclass.utils.gen_parser_from_dataclass(parser, Cls()) as option list."""
        idx = self.index
        if cls_name not in idx.classes:
            raise OracleError(f"metaseq dataclass {cls_name} is not in the reference files")
        positional = idx.positional_args(cls_name)
        out: list[Option] = []
        for f in idx.all_fields(cls_name):
            if f.name == "_name":
                continue  # private member, skip
            ann = f.annotation
            ann_name = _dotted(ann).split(".")[-1] if ann is not None else ""
            if ann_name in idx.classes and idx.is_subclass(ann_name, "MetaseqDataclass"):
                out += self.dataclass_options(ann_name, delete_default)
                continue
            default = f.default_node()
            meta = f.metadata()
            help_text = meta.get("help")
            default_str = _interpolation(default)
            if default_str is not None and help_text is None:
                continue  # "a field with a name that will be added elsewhere"
            inner = _strip_optional(ann)
            head, _ = _annotation_parts(inner)
            choices = self.choice_enum(inner)
            text = ast.unparse(inner) if inner is not None else ""
            action = None
            if default_str is not None:
                # a '${...}' default: gen_parser_from_dataclass sets neither type nor choices nor
                # an action, so argparse takes one word as a str
                type_name, choices = "str", None
            elif "List" in text or "Tuple" in text:
                type_name = next((f"eval_str_list({t})" for t in ("int", "float", "str") if t in text), "?")
            elif choices is not None:
                type_name = "str"
            elif head == "bool":
                dflt = _literal(default) if default is not None else None
                action = "store_false" if dflt is True else "store_true"
                type_name = None
            else:
                type_name = "str" if head in ("Any", "") else head
            nargs = "?" if meta.get("argparse_const") is not None else None
            if f.name in positional:
                out.append(Option((), f.name, action, nargs, choices or None, f.origin, type=type_name))
                continue
            strings = ["--" + f.name.replace("_", "-")]
            alias = meta.get("argparse_alias")
            if isinstance(alias, str):
                strings.append(alias)
            # MISSING default -> required=True (a '${...}' default is dropped instead)
            required = default is None and default_str is None
            out.append(Option(tuple(strings), f.name, action, nargs, choices or None, f.origin, required, type_name))
        return out


def _interpolation(node: ast.AST | None) -> str | None:
    """'${x}' for II('x') or a '${...}' string literal default, else None."""
    if isinstance(node, ast.Call) and _dotted(node.func).split(".")[-1] == "II" and node.args:
        return "${" + str(_literal(node.args[0])) + "}"
    value = _literal(node)
    if isinstance(value, str) and value.startswith("${"):
        return value
    return None


METASEQ_COMPONENT_FLAGS = {  # registry kind -> the flag that selects it
    "task": "--task", "arch": "--arch", "optimizer": "--optimizer",
    "lr_scheduler": "--lr-scheduler", "criterion": "--criterion", "bpe": "--bpe", "tokenizer": "--tokenizer",
}


def metaseq_components(argv: list[str]) -> dict[str, str | None]:
    """The component choices in an argv (argparse: the last occurrence wins; '--x=y' too)."""
    wanted = {flag: kind for kind, flag in METASEQ_COMPONENT_FLAGS.items()}
    wanted["-a"] = "arch"
    found: dict[str, str | None] = {}
    for i, word in enumerate(argv):
        name, eq, value = word.partition("=")
        if name in wanted:
            found[wanted[name]] = value if eq else (argv[i + 1] if i + 1 < len(argv) else None)
    return found


def metaseq_args(version: str, components: dict[str, str | None] | None = None,
                 reference: Path | None = None) -> ArgOracle:
    return _metaseq_args(version, tuple(sorted((components or {}).items())), reference)


@functools.lru_cache(maxsize=None)
def _metaseq_args(version: str, component_items: tuple, reference: Path | None) -> ArgOracle:
    """metaseq/cli/train.py: options.get_training_parser() then parse_args_and_arch(), which adds
    the --arch model's, the --task's and each registry choice's dataclass options before a strict
    parse_args(). `components` are the choices in the argv (metaseq_components())."""
    ref = reference or reference_dir()
    root = ref / METASEQ_REFS[version]
    src = MetaseqSource(root)
    components = dict(component_items)
    options_py = root / "metaseq/options.py"
    notes: list[str] = []
    registries = _metaseq_registry_names(src)

    def on_call(walker: _CallWalker, path: Path, call: ast.Call) -> bool:
        name = _dotted(call.func).split(".")[-1]
        if name == "gen_parser_from_dataclass" and len(call.args) >= 2 and isinstance(call.args[1], ast.Call):
            walker.options += src.dataclass_options(_dotted(call.args[1].func))
            return True
        if name == "add_argument" and call.args and isinstance(call.args[0], ast.BinOp):
            # get_parser(): parser.add_argument("--" + registry_name.replace("_", "-"), ...)
            # for every registry; the registry names are MetaseqConfig's component fields.
            for reg in registries:
                walker.options.append(Option(("--" + reg.replace("_", "-"),), reg, origin=_where(path, call, root),
                                             type="str"))
            return True
        return False

    walker = _CallWalker(root, on_call)
    walker.walk(options_py, "get_training_parser")
    if walker.unresolved:
        raise OracleError(f"metaseq: unresolved add_argument calls {walker.unresolved}")
    base = walker.options
    # defaults of the component flags when the argv has none
    default_task = _default_arg(options_py, "get_training_parser", "default_task")
    comp: dict[str, str | None] = {"task": components.get("task") or default_task}
    if not components.get("task"):
        notes.append(f"--task not given: the default {default_task!r} (options.get_training_parser)")
    for kind in ("arch", *registries):
        comp[kind] = components.get(kind)
        if not comp[kind] and kind in ("arch", "optimizer", "lr_scheduler", "criterion"):
            # the registries' defaults (e.g. lr_scheduler 'fixed') live in files the reference
            # does not have: no flags are added for them here (conservative)
            notes.append(f"{METASEQ_COMPONENT_FLAGS[kind]} not given: its default adds no flags in this oracle")
    extra: list[Option] = []
    unknown: list[str] = []
    # 1. the model-specific group: ARCH_MODEL_REGISTRY[arch].add_args(group)
    if comp.get("arch"):
        model = src.archs.get(comp["arch"])
        if not model:
            unknown.append(f"--arch {comp['arch']}")
        else:
            dc = _metaseq_model_dataclass(src, model[0])
            if dc:
                extra += src.dataclass_options(dc, delete_default=True)
    # 2. TASK_REGISTRY[task].add_args(parser)
    task = comp["task"]
    if task not in src.registry.get("task", {}):
        unknown.append(f"--task {task}")
    elif src.registry["task"][task][0]:
        extra += src.dataclass_options(src.registry["task"][task][0])
    # 3. every registry whose choice is set: its dataclass
    for kind in registries:
        choice = comp.get(kind)
        if not choice:
            continue
        entry = src.registry.get(kind, {}).get(choice)
        if entry is None:
            unknown.append(f"--{kind.replace('_', '-')} {choice}")
        elif entry[0]:
            extra += src.dataclass_options(entry[0])
        elif any(isinstance(n, ast.FunctionDef) and n.name == "add_args" for n in entry[1].body):
            raise OracleError(f"{entry[2]}: {entry[1].name}.add_args is not read by this oracle")
    every = base + extra
    oracle = ArgOracle("metaseq", version, _help_option({}) + [o for o in every if o.strings],
                       walker.positionals + [o for o in every if not o.strings], allow_abbrev=False,
                       sources=[str(f.relative_to(ref)) for f in src.files], notes=notes,
                       components=comp, unknown_components=unknown)
    chosen = ", ".join(f"{METASEQ_COMPONENT_FLAGS[k]} {v}" for k, v in comp.items() if v)
    oracle.label = (f"metaseq {version} metaseq/cli/train.py with {chosen} "
                    f"({root.name}: options.py get_training_parser + parse_args_and_arch's component dataclasses)")
    return oracle


def _metaseq_registry_names(src: MetaseqSource) -> list[str]:
    """MetaseqConfig's component fields (typed Any) other than model and task: metaseq sets up one
    registry per component (optimizer, lr_scheduler, criterion, bpe, tokenizer)."""
    fields = src.index.all_fields("MetaseqConfig")
    return [f.name for f in fields if _dotted(f.annotation) == "Any" and f.name not in ("model", "task")]


def _metaseq_model_dataclass(src: MetaseqSource, model: str) -> str | None:
    """A model's dataclass: register_model(..., dataclass=X), or, when its add_args only calls
    Other.add_args(parser), Other's."""
    if model not in src.models:
        raise OracleError(f"metaseq model {model} is not in the reference files")
    dc, node, _ = src.models[model]
    if dc:
        return dc
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name == "add_args":
            for sub in ast.walk(item):
                if isinstance(sub, ast.Call) and _dotted(sub.func).endswith(".add_args"):
                    other = _dotted(sub.func).rsplit(".", 1)[0]
                    for name, (odc, onode, _) in src.models.items():
                        if onode.name == other:
                            return odc or _metaseq_model_dataclass(src, name)
    return None


def _default_arg(path: Path, func: str, arg: str) -> Any:
    for node in _parse(path).body:
        if isinstance(node, ast.FunctionDef) and node.name == func:
            names = [a.arg for a in node.args.args]
            defaults = node.args.defaults
            offset = len(names) - len(defaults)
            if arg in names and names.index(arg) >= offset:
                return _literal(defaults[names.index(arg) - offset])
    raise OracleError(f"{path}: {func}() has no default for {arg}")


# --- NeMo: ExpManagerConfig ----------------------------------------------------------------

@dataclasses.dataclass
class SchemaField:
    key: str             # dotted, relative to exp_manager
    kind: str            # 'leaf', 'node' (a known nested dataclass), 'open' (Dict/Any: any sub-key),
    #                      'opaque' (a dataclass that is not in the reference: sub-keys unverifiable)
    type_name: str
    origin: str


@functools.lru_cache(maxsize=None)
def exp_manager_schema(version: str, reference: Path | None = None, ref_name: str | None = None) -> list[SchemaField]:
    """ExpManagerConfig and the dataclasses it nests, as dotted keys under exp_manager."""
    ref = reference or reference_dir()
    root = ref / ref_name if ref_name else nemo_ref(version, ref)[0]
    path = _need(root / EXP_MANAGER)
    index = DataclassIndex([path], root)
    if "ExpManagerConfig" not in index.classes:
        raise OracleError(f"{path}: no ExpManagerConfig dataclass")
    out: list[SchemaField] = []

    def visit(cls: str, prefix: str, stack: tuple[str, ...]) -> None:
        for f in index.all_fields(cls):
            key = f"{prefix}{f.name}"
            inner = _strip_optional(f.annotation)
            head, args = _annotation_parts(inner)
            type_text = ast.unparse(f.annotation) if f.annotation is not None else "?"
            if head in index.classes and head not in stack:
                out.append(SchemaField(key, "node", type_text, f.origin))
                visit(head, key + ".", stack + (head,))
            elif head in ("Dict", "dict", "Any", "DictConfig"):
                out.append(SchemaField(key, "open", type_text, f.origin))
            elif head and head[0].isupper() and head not in ("List", "Tuple", "Union", "Optional"):
                out.append(SchemaField(key, "opaque", type_text, f.origin))
            else:
                out.append(SchemaField(key, "leaf", type_text, f.origin))

    visit("ExpManagerConfig", "", ("ExpManagerConfig",))
    return out


@functools.lru_cache(maxsize=None)
def exp_manager_structured(version: str, reference: Path | None = None, ref_name: str | None = None):
    """A Python dataclass equivalent to ExpManagerConfig (field names, types, defaults), built
    from the ast with dataclasses.make_dataclass, for OmegaConf.structured(): what NeMo's
    exp_manager() merges the user's exp_manager section into. Types that are not in the reference
    file (MLFlowParams, DLLoggerParams, ...) become Any (their sub-keys are not checked)."""
    import typing

    ref = reference or reference_dir()
    root = ref / ref_name if ref_name else nemo_ref(version, ref)[0]
    path = _need(root / EXP_MANAGER)
    index = DataclassIndex([path], root)
    built: dict[str, type] = {}
    simple = {"str": str, "int": int, "float": float, "bool": bool}

    def py_type(node: ast.AST | None):
        head, args = _annotation_parts(node)
        if head == "Optional" and args:
            return typing.Optional[py_type(args[0])]
        if head in simple:
            return simple[head]
        if head in ("List", "list") and args:
            return typing.List[py_type(args[0])]
        if head in ("Dict", "dict"):
            return typing.Dict[typing.Any, typing.Any]
        if head in index.classes:
            return build(head)
        return typing.Any

    def default_of(f: Field, typ):
        node = f.default_node()
        if node is None:
            return dataclasses.MISSING, None
        if isinstance(node, ast.Call):
            head = _dotted(node.func).split(".")[-1]
            if head in index.classes:
                cls = build(head)
                return dataclasses.MISSING, cls
            if head[:1].isupper():
                return None, None  # an instance of a class not in the file (DLLoggerParams())
        value = _const_eval(node)
        if value is _UNKNOWN:
            return _SourceText(ast.unparse(node)), None  # e.g. signal.SIGKILL
        return value, None

    def build(name: str):
        if name in built:
            return built[name]
        spec = []
        for f in index.all_fields(name):
            typ = py_type(f.annotation)
            default, factory = default_of(f, typ)
            if isinstance(default, _SourceText):
                typ, default = typing.Any, str(default)  # not a literal: kept as its source text
            if factory is not None:
                spec.append((f.name, typ, dataclasses.field(default_factory=factory)))
            elif default is dataclasses.MISSING:
                spec.append((f.name, typ))
            elif isinstance(default, (list, dict)):
                spec.append((f.name, typ, dataclasses.field(default_factory=lambda d=default: type(d)(d))))
            else:
                spec.append((f.name, typ, dataclasses.field(default=default)))
        # fields without defaults must come first for make_dataclass; keep the order otherwise
        spec.sort(key=lambda s: len(s) != 2)
        built[name] = dataclasses.make_dataclass(name, spec)
        return built[name]

    return build("ExpManagerConfig")


_UNKNOWN = object()


class _SourceText(str):
    """A default that is not a literal (signal.SIGKILL), kept as its source text."""


def _const_eval(node: ast.AST) -> Any:
    """A literal, or arithmetic over literals (60.0 * 60.0); _UNKNOWN otherwise."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        pass
    if isinstance(node, ast.BinOp):
        left, right = _const_eval(node.left), _const_eval(node.right)
        if left is _UNKNOWN or right is _UNKNOWN:
            return _UNKNOWN
        ops = {ast.Mult: lambda a, b: a * b, ast.Add: lambda a, b: a + b,
               ast.Sub: lambda a, b: a - b, ast.Div: lambda a, b: a / b}
        if type(node.op) in ops:
            return ops[type(node.op)](left, right)
    return _UNKNOWN


# --- NeMo: Hydra key sets --------------------------------------------------------------------

def flatten_keys(node: Any, prefix: str = "") -> dict[str, Any]:
    """Dotted leaf keys of a (plain) config: dicts are walked, lists and scalars are leaves.
    An empty dict is a leaf too (an open container)."""
    out: dict[str, Any] = {}
    if isinstance(node, dict) and (node or not prefix):
        for k, v in node.items():
            out.update(flatten_keys(v, f"{prefix}{k}."))
    else:
        out[prefix[:-1]] = node
    return out


@functools.lru_cache(maxsize=None)
def load_yaml_keys(path: Path) -> dict[str, Any]:
    """Flattened keys of a YAML file as OmegaConf reads it, interpolations unresolved; the Hydra
    defaults list is not config."""
    from omegaconf import OmegaConf

    cfg = OmegaConf.to_container(OmegaConf.load(_need(path)), resolve=False)
    cfg.pop("defaults", None)
    return flatten_keys(cfg)


def gpt_config_path(version: str, reference: Path | None = None, ref_name: str | None = None) -> Path:
    ref = reference or reference_dir()
    root = ref / ref_name if ref_name else nemo_ref(version, ref)[0]
    return _need(root / GPT_CONFIG)


def launcher_config_paths(version: str, reference: Path | None = None) -> list[Path]:
    ref = reference or reference_dir()
    if version not in LAUNCHER_CONFIGS:
        return []
    paths: list[Path] = []
    for pattern in LAUNCHER_CONFIGS[version]:
        found = sorted(ref.glob(pattern))
        if not found:
            raise OracleError(f"no launcher config matches {ref / pattern}")
        paths += found
    return paths


@dataclasses.dataclass
class NemoKeys:
    """What NeMo of one version reads from its Hydra config, by origin."""

    version: str
    gpt: dict[str, Any]                   # megatron_gpt_config.yaml leaf keys -> default
    launcher: dict[str, set[str]]         # seed config keys -> the files that have them
    exp_manager: list[SchemaField]
    notes: list[str]

    def model_trainer_keys(self) -> set[str]:
        return set(self.gpt) | set(self.launcher)

    def open_prefixes(self) -> set[str]:
        """Keys under which any sub-key is fine: null or empty containers in the configs (e.g.
        model.tokenizer.model: null, which users fill in) and tp_overlap's config group target."""
        out = {k for k, v in self.gpt.items() if v is None or v == {}}
        return out


@functools.lru_cache(maxsize=None)
def nemo_key_sets(version: str, reference: Path | None = None, ref_name: str | None = None) -> NemoKeys:
    ref = reference or reference_dir()
    notes: list[str] = []
    if ref_name is None:
        _, notes = nemo_ref(version, ref)
    gpt = load_yaml_keys(gpt_config_path(version, ref, ref_name))
    launcher: dict[str, set[str]] = {}
    for path in launcher_config_paths(NEMO_NEAREST.get(version, version), ref):
        for key in load_yaml_keys(path):
            launcher.setdefault(key, set()).add(str(path.relative_to(ref)))
    return NemoKeys(version, gpt, launcher, exp_manager_schema(version, ref, ref_name), notes)


# ---------------------------------------------------------------------------------------------
# trainbench framework profiles (recipes/catalog/frameworks/<framework>-<version>.yaml)

# Registry defaults of metaseq components whose registry files the reference does not hold:
# setup_registry("--lr-scheduler", ..., default="inverse_sqrt") in metaseq/optim/lr_scheduler/
# __init__.py and setup_registry("--criterion", ..., default="cross_entropy") in
# metaseq/criterions/__init__.py at f7ffa5f (--optimizer is required=True: no default).
METASEQ_REGISTRY_DEFAULTS = {"f7ffa5f": {"lr_scheduler": "inverse_sqrt", "criterion": "cross_entropy"}}

# How profiles name each program (trainbench prints "'--x' is not an argument of <schema>").
# program -> (title, schema, what the profile lists, log formats the program writes)
PROFILE_TEXT = {
    "megatron-lm": ("Megatron-LM {v}", "Megatron-LM {v}'s pretrain_gpt.py",
                    "the arguments pretrain_gpt.py accepts", ["megatron", "tensorboard"]),
    "metaseq": ("metaseq {v}", "metaseq {v}'s metaseq/cli/train.py",
                "the arguments metaseq/cli/train.py accepts", ["metaseq", "tensorboard"]),
    "nccl-tests": ("nccl-tests {v}", "nccl-tests {v}'s *_perf programs",
                   "the options every *_perf program accepts", ["nccl-tests"]),
}
# Why trainbench has a profile of this version (the first header line after the title).
PROFILE_ABOUT = {
    ("megatron-lm", "e958b2ca"): "Seed 002: the commit ai-infrastructure-on-azure 2d36da6's 00-setup_environment.sh checks out.",
    ("megatron-lm", "878d65f"): "The commit the SHARP update (ai-infrastructure-on-azure 77e7526) checks out; it adds --use-sharp.",
    ("megatron-lm", "d98e8a64"): "Megatron-Core 0.20 (main of 2026-08-22): today's workloads (Llama 3.1, Mixtral, DeepSeek-V3, Qwen3 MoE).",
    ("metaseq", "f7ffa5f"): "Seed 003: metaseq HEAD of 2023-06-08, which contains the a1a4e733 the document asks for.",
    ("nccl-tests", "2.19.6"): "The validate stages' nccl-tests (the newest tag); their commands are checked against it.",
}


def _option_names(options: Iterable[Option]) -> list[str]:
    return sorted({s for o in options for s in o.strings})


def metaseq_profile(version: str, reference: Path | None = None) -> tuple[list[str], dict[str, dict[str, Any]], list[str],
                                                                          list[Option]]:
    """Common options, then per component choice (--task, --arch, --optimizer, --lr-scheduler,
    --criterion) the options that choice adds, as parse_args_and_arch() would; notes; and every
    option met (the common ones first) with its type."""
    ref = reference or reference_dir()
    root = ref / METASEQ_REFS[version]
    src = MetaseqSource(root)
    base = metaseq_args(version, {}, ref)
    common = set(_option_names(base.options))
    every: list[Option] = list(base.options) + list(base.positionals)
    choices: dict[str, dict[str, Any]] = {}
    notes: list[str] = []
    default_task = _default_arg(root / "metaseq/options.py", "get_training_parser", "default_task")
    defaults = {"task": default_task, **METASEQ_REGISTRY_DEFAULTS.get(version, {})}
    kinds = {"task": sorted(src.registry.get("task", {})), "arch": sorted(src.archs)}
    for kind in ("optimizer", "lr_scheduler", "criterion"):
        kinds[kind] = sorted(src.registry.get(kind, {}))
    for kind, names in kinds.items():
        flag = METASEQ_COMPONENT_FLAGS[kind]
        entry: dict[str, Any] = {}
        if kind in defaults:
            entry["default"] = defaults[kind]
            if defaults[kind] not in names:
                notes.append(f"{flag} defaults to {defaults[kind]!r}, which is not in the reference files: "
                             f"without {flag} only the common arguments are listed")
        for name in names:
            oracle = metaseq_args(version, {kind: name}, ref)
            entry[name] = sorted(set(_option_names(oracle.options)) - common)
            every += oracle.options + oracle.positionals
        choices[flag] = entry
    return sorted(common), choices, notes, every


def value_spec(type_name: str | None, action: str | None = None, nargs: Any = None,
               choices: Iterable[str] | None = None, nullable: bool = False) -> str:
    """A `values:` entry, one scalar (profiles stay quick to read): `TYPE` or `action=NAME`, then
    `nargs=N`, `nullable`, `choices=A|B|C` (a choice may hold neither a space nor a `|`)."""
    parts = [f"action={action}"] if action else [type_name or "str"]
    if nargs is not None and not action:
        parts.append(f"nargs={nargs}")
    if nullable:
        parts.append("nullable")
    if choices:
        bad = [c for c in choices if " " in c or "|" in c or not c]
        if bad:
            raise OracleError(f"choices {bad} cannot be written in a profile's values (space or '|')")
        parts.append("choices=" + "|".join(choices))
    return " ".join(parts)


def _values_yaml(options: Iterable[Option]) -> list[str]:
    """`values:` lines: one per option string (the first registration wins)."""
    rules: dict[str, str] = {}
    for o in options:
        for name in o.strings:
            if name in rules or name in ("-h", "--help"):
                continue
            if not o.takes_value:
                rules[name] = value_spec(None, o.action)
            else:
                rules[name] = value_spec(o.type or "str", None, o.nargs, o.choices)
    return values_block(rules)


def values_block(rules: dict[str, str]) -> list[str]:
    """The `values:` section: one YAML block scalar, a line `NAME SPEC` per argument or key (one
    node for the whole table, so a profile of a thousand arguments is read in no time)."""
    bad = [k for k in rules if not k or " " in k or "#" in k]
    if bad:
        raise OracleError(f"names {bad} cannot be written in a profile's values")
    return ["values: |   # NAME SPEC per line (see above)"] + [f"  {k} {v}" for k, v in sorted(rules.items())]


def _yaml_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def profile_yaml(program: str, version: str, reference: Path | None = None) -> str:
    """A trainbench framework profile: every argument the program of that version accepts."""
    ref = reference or reference_dir()
    if program not in PROFILE_TEXT:
        raise OracleError(f"no profile for program {program!r} (known: {', '.join(PROFILE_TEXT)})")
    title, schema, what, writes = (t.format(v=version) if isinstance(t, str) else t for t in PROFILE_TEXT[program])
    folder = {"megatron-lm": MEGATRON_REFS, "metaseq": METASEQ_REFS, "nccl-tests": NCCL_TESTS_REFS}[program][version]
    repo, commit = UPSTREAM[folder]
    choices: dict[str, dict[str, Any]] = {}
    if program == "metaseq":
        keys, choices, notes, options = metaseq_profile(version, ref)
        sources = [str(Path(f).relative_to(folder)) for f in metaseq_args(version, {}, ref).sources]
        how = ["keys:    options.get_training_parser() (argparse options and the config dataclasses it adds)",
               "choices: what parse_args_and_arch() adds for each --arch / --task / --optimizer /",
               "         --lr-scheduler / --criterion in these files (their registered dataclasses);",
               "         `default` is the choice metaseq uses when the flag is absent"]
    else:
        oracle = arg_oracle(program, version, [], ref)
        keys, notes = _option_names(oracle.options), list(oracle.notes)
        options = oracle.options + oracle.positionals
        sources = [str(Path(f).relative_to(folder)) for f in oracle.sources]
        how = {"megatron-lm": ["keys:    every add_argument reachable from arguments.py parse_args() (a strict",
                               "         ArgumentParser(allow_abbrev=False)) and pretrain_gpt.py's extra_args_provider",
                               *(["         and every field ArgumentGroupFactory(Config).build_group() turns into a flag",
                                  "         (--field-name; --no-X/--disable-X for a bool defaulting True; argparse_meta",
                                  "         arg_names; minus the exclude lists)"] if len(sources) > 2 else [])],
               "nccl-tests": ["keys:    the getopt_long option string (short options) and longopts[] (long options)"]}[program]
    about = PROFILE_ABOUT.get((program, version))
    out = [f"# {title}: a framework profile, {what}.",
           *([f"# {about}"] if about else []),
           f"# Generated by `tests/conformance/oracles.py profile {program} {version}` from {repo}",
           *textwrap.wrap(f"at {commit}, files {', '.join(sources)} (unmodified upstream copies in "
                          f"shared/reference/{folder}).", 98, initial_indent="# ", subsequent_indent="# "),
           *(f"#   {line}" for line in how),
           *(line for n in notes for line in textwrap.wrap(n, 96, initial_indent="# note: ",
                                                           subsequent_indent="#       ")),
           "#   values:  per argument, what the parser takes: `action=NAME` (no value), else its type as the",
           "#            parser converts it (int, float: Python's int()/float(); size: nccl-tests' parsesize;",
           "#            strtol: an integer for C's strtol; str: any text; another name: a converter that is",
           "#            not checked), then `nargs=N` and `choices=A|B`",
           "# Argument names and values, in trainbench's format. Regenerate instead of editing.",
           f"framework: {program}",
           f"version: {_yaml_str(version)}",
           f"title: {_yaml_str(title)}",
           f"schema: {_yaml_str(schema)}",
           f"writes: [{', '.join(writes)}]",
           "keys:"]
    out += [f"  - {_yaml_str(k)}" for k in keys]
    if program == "nccl-tests":
        out.append('parser: "getopt"   # GNU getopt_long: a value is the next word, whatever it is')
    positionals = sorted({o.dest for o in options if not o.strings})
    if positionals:
        out.append(f"positionals: [{', '.join(_yaml_str(p) for p in positionals)}]")
    if choices:
        out.append("choices:")
        for flag, entry in choices.items():
            out.append(f"  {_yaml_str(flag)}:")
            for name, value in entry.items():
                if name == "default":
                    out.append(f"    default: {_yaml_str(value)}")
                elif not value:
                    out.append(f"    {_yaml_str(name)}: []")
                else:
                    out.append(f"    {_yaml_str(name)}:")
                    out += [f"      - {_yaml_str(k)}" for k in value]
    out += _values_yaml(options)  # last: trainbench reads this block itself, without the YAML parser
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# command line

def arg_oracle(program: str, version: str, argv: list[str] | None = None,
               reference: Path | None = None) -> ArgOracle:
    if program == "megatron-lm":
        return megatron_args(version, reference)
    if program == "megatron-preprocess":
        return megatron_preprocess_args(version, reference)
    if program == "metaseq":
        return metaseq_args(version, metaseq_components(argv or []), reference)
    if program == "nccl-tests":
        return nccl_tests_args(version, reference)
    if program == "nemo-preprocess":
        return nemo_preprocess_args(version, reference)
    if program == "torchrun":
        return torchrun_args()
    if program == "srun":
        return srun_args()
    raise OracleError(f"no argument oracle for program {program!r}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--reference", help="the shared/reference folder")
    p.add_argument("-v", "--verbose", action="store_true", help="also kind, choices and origin")
    sub = p.add_subparsers(dest="what", required=True)
    a = sub.add_parser("args", help="the flags a program accepts")
    a.add_argument("program", choices=["megatron-lm", "megatron-preprocess", "metaseq", "nccl-tests", "nemo-preprocess",
                                       "torchrun", "srun"])
    a.add_argument("version")
    for kind, flag in METASEQ_COMPONENT_FLAGS.items():
        a.add_argument(flag, dest=f"comp_{kind}", help=f"metaseq: the {kind} component")
    pr = sub.add_parser("profile", help="a trainbench framework profile (recipes/catalog/frameworks/)")
    pr.add_argument("program", choices=sorted([*PROFILE_TEXT, "nemo", "megatron-bridge", "torchtitan"]))
    pr.add_argument("version")
    k = sub.add_parser("keys", help="Hydra config keys")
    k.add_argument("set", choices=["nemo", "gpt-config", "exp-manager", "launcher"])
    k.add_argument("version", help="NeMo container version (22.06, 23.07, 24.07) or a checkout (NeMo@v2.0.0)")
    args = p.parse_args(argv)
    try:
        ref = reference_dir(args.reference)
        if args.what == "profile":
            if args.program == "nemo":
                import nemo_profile  # noqa: PLC0415 (it imports this module)

                sys.stdout.write(nemo_profile.profile_yaml(args.version, ref))
            elif args.program == "megatron-bridge":
                import bridge_oracle  # noqa: PLC0415 (it imports this module)

                sys.stdout.write(bridge_oracle.profile_yaml(args.version, ref))
            elif args.program == "torchtitan":
                import torchtitan_profile  # noqa: PLC0415 (it imports this module)

                sys.stdout.write(torchtitan_profile.profile_yaml(args.version, ref))
            else:
                sys.stdout.write(profile_yaml(args.program, args.version, ref))
            return 0
        if args.what == "args":
            comps = [w for kind in METASEQ_COMPONENT_FLAGS
                     if getattr(args, f"comp_{kind}")
                     for w in (METASEQ_COMPONENT_FLAGS[kind], getattr(args, f"comp_{kind}"))]
            oracle = arg_oracle(args.program, args.version, comps, ref)
            for note in oracle.notes:
                print(f"# {note}", file=sys.stderr)
            for opt in oracle.options:
                if args.verbose:
                    choices = f"\tchoices={','.join(opt.choices)}" if opt.choices else ""
                    print(f"{' '.join(opt.strings)}\t{opt.kind}\tdest={opt.dest}{choices}\t{opt.origin}")
                else:
                    print("\n".join(opt.strings))
            for pos in oracle.positionals:
                print(f"<{pos.dest}>" + (f"\tpositional\t{pos.origin}" if args.verbose else ""))
            return 0
        ref_name = args.version if "@" in args.version else None
        version = args.version if not ref_name else next(
            (v for v, r in {**NEMO_REFS, **NEMO_CROSS_CHECK}.items() if r == ref_name), args.version)
        if args.set == "exp-manager":
            for f in exp_manager_schema(version, ref, ref_name):
                print(f"exp_manager.{f.key}" + (f"\t{f.kind}\t{f.type_name}\t{f.origin}" if args.verbose else ""))
        elif args.set == "gpt-config":
            for key, value in load_yaml_keys(gpt_config_path(version, ref, ref_name)).items():
                print(key + (f"\t{value!r}" if args.verbose else ""))
        elif args.set == "launcher":
            for path in launcher_config_paths(version, ref):
                for key in load_yaml_keys(path):
                    print(key + (f"\t{path.relative_to(ref)}" if args.verbose else ""))
        else:
            keys = nemo_key_sets(version, ref, ref_name)
            rows = {k: "megatron_gpt_config" for k in keys.gpt}
            for key, files in keys.launcher.items():
                rows.setdefault(key, ",".join(sorted(files)))
            for f in keys.exp_manager:
                rows.setdefault(f"exp_manager.{f.key}", f"ExpManagerConfig {f.kind}")
            for key in sorted(rows):
                print(key + (f"\t{rows[key]}" if args.verbose else ""))
        return 0
    except OracleError as e:
        print(f"oracles.py: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    import signal

    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `oracles.py ... | head` ends quietly
    sys.exit(main())
