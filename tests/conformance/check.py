#!/usr/bin/env python3
"""Conformance of trainbench's launch lines with the upstream programs they start.

Renders each recipe (every stage), takes every command it launches and checks it against the
oracle of the program and version the recipe names (oracles.py, read from shared/reference at
run time):

  megatron-lm          pretrain_gpt.py flags: megatron/training/arguments.py (strict parse_args)
  megatron-preprocess  tools/preprocess_data.py flags
  metaseq              metaseq/cli/train.py flags for the --task/--arch/--optimizer/... chosen
  nccl-tests           *_perf flags: getopt_long in src/common.cu
  nemo-preprocess      preprocess_data_for_megatron.py flags
  torchrun, srun       the launchers' own options in every rendered shell file: torchrun against the
                       installed torch's argparse (Debian python3-torch), srun against srun(1) of the
                       installed Slurm (Debian slurm-client)
  megatron-bridge      scripts/performance/run_script.py: its real argparse parser (imported), each
                       key=value it leaves against the config keys the scripts set, and the per-GPU
                       configuration the arguments name (bridge_oracle.py)
  nemo                 Hydra 1.3 compose() of the delivered config (or NeMo's megatron_gpt_config
                       when none is delivered) with the overrides; then every key: exp_manager.*
                       against ExpManagerConfig (NeMo merges it into that structured config),
                       the others against megatron_gpt_config's keys and the seed configs' keys
  torchtitan           TorchTitan 0.2.2's own ConfigManager.parse_args (the torchtitan==0.2.2 wheel's
                       manager.py over the reference's job_config.py, tyro for the overrides) on the
                       delivered TOML and the command line; each TOML value against its field's type;
                       the model flavour's shape (the wheel's flavour tables) against the recipe's model;
                       at b5bcd76c (main, config functions) the registry function and the flags through
                       tyro with manager.py's rules over the reference's dataclasses, and what the
                       function sets that no flag changes (flavour, converters, activation
                       checkpointing) against the recipe (torchtitan_main_check.py)

Prints one line per rejected argument or key,
  REJECTED <recipe> <stage> <program>: '<arg>' is not an argument of ... (why)
and a summary line `conformance: N commands checked, M rejected`; exits 1 when M > 0, 2 when a
recipe cannot be rendered.

  check.py recipes/aws-p4d/gpt3-126m.yaml
  check.py --all recipes/                      # every shipped recipe
  check.py recipes/aws-p4d/gpt3-126m.yaml -s launch.extra_args='[model.no_such_key=1]'
"""
from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import launches  # noqa: E402
import nemo_hydra  # noqa: E402
import nemo_profile  # noqa: E402
import oracles  # noqa: E402
import torchtitan_check  # noqa: E402
import torchtitan_main_check  # noqa: E402

# The binary and -s overrides of this run (the TorchTitan check reads the recipe's model with `show`).
RUN = {"binary": "", "sets": []}


class Report:
    def __init__(self, verbose: bool = False):
        self.verbose = verbose
        self.checked = 0
        self.unchecked = 0
        self.rejected: list[str] = []
        self.rejected_commands = 0
        self.notes: list[str] = []

    def reject(self, stage: launches.Stage, program: str, message: str) -> None:
        line = f"REJECTED {stage.file} {stage.stage} {program}: {message}"
        self.rejected.append(line)
        print(line, flush=True)

    def note(self, stage: launches.Stage, program: str, message: str) -> None:
        line = f"note: {stage.file} {stage.stage} {program}: {message}"
        if line not in self.notes:
            self.notes.append(line)
            print(line, file=sys.stderr)

    def info(self, message: str) -> None:
        if self.verbose:
            print(message, file=sys.stderr)


# --- argparse / getopt programs ----------------------------------------------------------------

NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")


def _describe(oracle: oracles.ArgOracle) -> str:
    return oracle.describe()


def check_args(argv: list[str], oracle: oracles.ArgOracle) -> list[str]:
    """Walk argv[1:] the way argparse (or GNU getopt_long) would; return the problems."""
    problems: list[str] = []
    what = _describe(oracle)
    negative_options = any(NEGATIVE_NUMBER.match(s) for o in oracle.options for s in o.strings)
    seen: set[str] = set()
    stray: list[str] = []
    after_flag: dict[int, str] = {}  # index in stray -> the zero-argument option it follows
    words = argv[1:]

    def is_option(word: str) -> bool:
        if oracle.getopt:
            return word.startswith("-") and word != "-"
        if not word.startswith("-") or word == "-":
            return False
        return not (NEGATIVE_NUMBER.match(word) and not negative_options)

    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word == "--" and not oracle.getopt:
            stray += words[i:]
            break
        if not is_option(word):
            stray.append(word)
            continue
        if oracle.getopt and not word.startswith("--") and len(word) > 2:
            # a cluster of short options: -hb8 = -h -b 8
            j = 1
            while j < len(word):
                opt, _ = oracle.lookup("-" + word[j])
                if opt is None:
                    problems.append(f"'{word}' is not an argument of {what}: no option -{word[j]}")
                    break
                seen.add(opt.dest)
                if opt.takes_value:
                    if j + 1 == len(word):
                        if i >= len(words):
                            problems.append(f"'{word}' needs a value ({what})")
                        i += 1
                    break
                j += 1
            continue
        opt, how = oracle.lookup(word)
        if opt is None:
            hint = f" ({how})" if how else ""
            problems.append(f"'{word}' is not an argument of {what}{hint}")
            # skip its likely value so it is not also reported as a stray word
            if i < len(words) and not is_option(words[i]) and "=" not in word:
                i += 1
            continue
        seen.add(opt.dest)
        if word.startswith("--"):
            attached = "=" in word                       # --name=value
            values = [word.split("=", 1)[1]] if attached else []
        else:
            attached = word not in opt.strings           # -x5: short option, value attached
            values = [word[2:]] if attached else []
        if attached and not opt.takes_value:
            problems.append(f"'{word}': {opt.strings[0]} takes no value ({what})")
            continue
        if opt.takes_value and not attached and not (oracle.getopt and opt.nargs == "?"):
            if oracle.getopt:  # required_argument: the next word, whatever it is (optional_argument: attached only)
                if i < len(words):
                    values.append(words[i])
                    i += 1
                else:
                    problems.append(f"'{word}' needs a value ({what})")
            else:
                n = opt.nargs
                if n is None or isinstance(n, int):
                    count = 1 if n is None else n
                    while count and i < len(words) and not is_option(words[i]):
                        values.append(words[i])
                        i += 1
                        count -= 1
                    if count:
                        problems.append(f"'{word}' needs {1 if n is None else n} value(s) ({what})")
                elif n == "?":
                    if i < len(words) and not is_option(words[i]):
                        values.append(words[i])
                        i += 1
                elif n in ("*", "+"):
                    while i < len(words) and not is_option(words[i]):
                        values.append(words[i])
                        i += 1
                    if n == "+" and not values:
                        problems.append(f"'{word}' needs at least one value ({what})")
        if not opt.takes_value and i < len(words) and not is_option(words[i]):
            after_flag[len(stray)] = word  # the next word is left over (argparse) or ignored (getopt)
        for v in values:
            problem = value_problem(opt, v)
            if problem:
                problems.append(f"'{word} {v}': {problem} ({what})" if v not in word else f"'{word}': {problem} ({what})")
    # words no option consumed: positionals (argparse), or ignored (getopt permutes them away)
    slots = [p for p in oracle.positionals]
    capacity = sum(10**9 if p.nargs in ("*", "+") else (p.nargs if isinstance(p.nargs, int) else 1)
                   for p in slots)
    if oracle.getopt:
        for n, w in enumerate(stray):
            flag = f"; {after_flag[n]} takes no value" if n in after_flag else ""
            problems.append(f"'{w}' is not an option of {what}: getopt leaves it and the program ignores it{flag}")
    elif len(stray) > capacity:
        for n, w in enumerate(stray[capacity:], capacity):
            if n in after_flag:
                problems.append(f"'{after_flag[n]} {w}': {after_flag[n]} takes no value, so '{w}' is an "
                                f"unrecognized positional word ({what})")
            else:
                problems.append(f"'{w}' is not an argument of {what} (unrecognized positional word)")
    for opt in oracle.options:
        if opt.required and opt.dest not in seen:
            problems.append(f"{opt.strings[0]} is required by {what} but not given")
    return problems


INT_STRTOL = re.compile(r"^\s*[+-]?(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$")
C_DOUBLE = r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|0[xX][0-9a-fA-F.]+(?:[pP][+-]?\d+)?|inf(?:inity)?|nan)"
LEADING_DIGITS = re.compile(r"^\s*[+-]?\d")
NCCL_SIZE = re.compile(r"^\s*" + C_DOUBLE + r"\s*(?:[GgMmKk].*)?$", re.I)


def value_problem(opt: oracles.Option, value: str) -> str | None:
    """Whether the parser takes `value` for `opt`: None when it does, else what it expects.
    argparse converts with the option's type (int(), float(): run here, as argparse does) and
    then tests choices; nccl-tests reads sizes with parsesize() and integers with strtol()."""
    if "$" in value:
        return None  # a run-time value (${TRAINBENCH_RUN_DIR}, $NNODES): not known here
    kind = opt.type
    converted: object = value
    try:
        if kind == "int":
            converted = int(value)
        elif kind == "float":
            converted = float(value)
    except ValueError:
        return f"{value!r} is not {'an' if kind == 'int' else 'a'} {kind}: {opt.strings[0]} takes type={kind}"
    if kind == "strtol" and not INT_STRTOL.match(value):
        read = "the leading digits" if LEADING_DIGITS.match(value) else "0"
        return f"{value!r} is not an integer: {opt.strings[0]} is read with strtol(), which takes {read} from it"
    if kind == "size" and not NCCL_SIZE.match(value):
        return f"{value!r} is not a size: {opt.strings[0]} takes a number with an optional K, M or G suffix (parsesize)"
    if opt.choices:
        allowed = opt.choices
        if kind in ("int", "float"):
            try:
                allowed = tuple(str(type(converted)(c)) for c in opt.choices)
                value = str(converted)
            except ValueError:
                pass
        if value not in allowed:
            near = [c for c in opt.choices if c.lower() == value.lower()] or difflib.get_close_matches(
                value, opt.choices, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            return f"{value!r} is not one of {opt.strings[0]}'s choices {{{', '.join(opt.choices)}}}{hint}"
    return None


def check_arg_command(report: Report, stage: launches.Stage, cmd: launches.Command, reference: Path) -> None:
    try:
        oracle = oracles.arg_oracle(cmd.program, cmd.version, cmd.argv, reference)
    except (oracles.OracleError, KeyError) as e:
        report.reject(stage, cmd.program, f"no oracle for {cmd.program} version {cmd.version!r}: {e}")
        return
    for note in oracle.notes:
        report.note(stage, cmd.program, note)
    for comp in oracle.unknown_components:
        report.reject(stage, cmd.program, f"'{comp}' has no definition in the reference ({_describe(oracle)}), "
                                          "so its flags cannot be checked")
    for problem in check_args(cmd.argv, oracle):
        report.reject(stage, cmd.program, problem)


# --- the launchers (torchrun, srun) --------------------------------------------------------------

def check_launcher_command(report: Report, stage: launches.Stage, cmd: launches.Command, reference: Path) -> None:
    """torchrun against Debian's python3-torch (the installed torch's argparse), srun against the
    installed Slurm's srun(1). torch 1.13 spells its options with underscores; the seeds'
    containers run torch >= 2 (NGC PyTorch 23.xx and later), whose torchrun also takes the
    hyphenated spelling (gpu-recipes@24ba6df's own chart passes --nproc-per-node): a hyphenated
    word is checked as its underscore form and noted. Pyxis's --container-* options belong to a
    SPANK plugin that is not installed here: noted, not checked."""
    try:
        oracle = oracles.arg_oracle(cmd.program, cmd.version, cmd.argv, reference)
    except oracles.OracleError as e:
        report.note(stage, cmd.program, f"not checked: {e}")
        return
    argv = [cmd.argv[0]]
    table = oracle.table()
    for word in cmd.argv[1:]:
        name, eq, value = word.partition("=")
        if cmd.program == "srun" and name.startswith(oracles.PYXIS_PREFIXES):
            report.note(stage, "srun", f"'{name}' is an option of the Pyxis SPANK plugin, which is not installed "
                                       "here: not checked")
            continue
        if cmd.program == "torchrun" and name.startswith("--") and name not in table:
            underscore = "--" + name[2:].replace("-", "_")
            if underscore in table:
                report.note(stage, "torchrun", f"'{name}' is torch >= 2's spelling of {underscore} ({oracle.describe()} "
                                               "has only the latter)")
                word = underscore + eq + value
        argv.append(word)
    for problem in check_args(argv, oracle):
        report.reject(stage, cmd.program, problem)


# --- NeMo (Hydra) -------------------------------------------------------------------------------

def _split_hydra_argv(argv: list[str]) -> tuple[dict[str, str], list[str], list[str]]:
    """(--config-path/--config-name values, overrides, unknown flags)."""
    flags: dict[str, str] = {}
    overrides: list[str] = []
    unknown: list[str] = []
    words = argv[1:]
    i = 0
    long_names = {"--config-path": "config_path", "-cp": "config_path", "--config-name": "config_name",
                  "-cn": "config_name", "--config-dir": "config_dir", "-cd": "config_dir"}
    while i < len(words):
        w = words[i]
        i += 1
        name, eq, value = w.partition("=")
        if name in long_names:
            if not eq:
                value = words[i] if i < len(words) else ""
                i += 1
            flags[long_names[name]] = value
        elif w.startswith("-"):
            unknown.append(w)
        else:
            overrides.append(w)
    return flags, overrides, unknown


def _find_config(stage_dir: Path, cmd: launches.Command, flags: dict[str, str]) -> Path | None:
    name = cmd.config_name or flags.get("config_name")
    if not name:
        return None
    candidates = [name] if name.endswith((".yaml", ".yml")) else [name + ".yaml", name]
    directory = cmd.config_dir or flags.get("config_path")
    if directory and "$" not in directory and not os.path.isabs(directory):
        for c in candidates:
            if (stage_dir / directory / c).is_file():
                return stage_dir / directory / c
    for c in candidates:  # a run-time path: the file is delivered somewhere in the stage directory
        found = sorted(stage_dir.rglob(c))
        if found:
            return found[0]
    return None


def nemo_effective(stage: launches.Stage, cmd: launches.Command, reference: Path,
                   known: dict[str, str] | None = None, ref_name: str | None = None):
    """Compose a NeMo command as NeMo would. Returns (config, problems, source description).
    ref_name: another NeMo checkout than the version's (the NeMo@v2.0.0 cross-check)."""
    flags, overrides, unknown = _split_hydra_argv(cmd.argv)
    problems = [f"'{w}' is a Hydra command-line flag that changes what the job does; not expected" for w in unknown]
    overrides = [nemo_hydra.neutralize(o, known) for o in overrides]
    version = cmd.version or stage.framework_version
    root = reference / ref_name if ref_name else oracles.nemo_ref(version, reference)[0]
    if flags.get("config_path") and not (flags.get("config_name") or cmd.config_name):
        # --config-path alone: @hydra_runner's own config_name, megatron_gpt_config
        flags["config_name"] = "megatron_gpt_config"
    if flags.get("config_name") or cmd.config_name:
        cfg_file = _find_config(stage.stage_dir, cmd, flags)
        if cfg_file is None:
            return None, problems + [f"the config {cmd.config_name or flags.get('config_name')!r} "
                                     f"is not in the rendered stage directory {stage.stage_dir}"], ""
        cfg, failures = nemo_hydra.compose_each(cfg_file.parent, cfg_file.name, overrides)
        source = f"the delivered {cfg_file.relative_to(stage.stage_dir)}"
    else:
        gpt = oracles.gpt_config_path(version, reference, ref_name)
        with nemo_hydra.nemo_default_conf(gpt) as conf:
            cfg, failures = nemo_hydra.compose_each(conf, "megatron_gpt_config", overrides)
        source = f"{root.name} {oracles.GPT_CONFIG.rsplit('/', 1)[1]}"
    for override, error in failures:
        problems.append(f"'{override}' does not compose onto {source} with Hydra 1.3: {error}")
    return cfg, problems, source


def check_nemo_command(report: Report, stage: launches.Stage, cmd: launches.Command, reference: Path,
                       ref_name: str | None = None) -> None:
    from omegaconf import OmegaConf

    version = cmd.version or stage.framework_version
    try:
        keys = oracles.nemo_key_sets(version, reference, ref_name)
        root, notes = oracles.nemo_ref(version, reference)
        if ref_name:
            root, notes = reference / ref_name, []
    except oracles.OracleError as e:
        report.reject(stage, "nemo", f"no oracle for NeMo {version!r}: {e}")
        return
    for note in notes + keys.notes:
        report.note(stage, "nemo", note)
    if ref_name is None and version in oracles.NEMO_CROSS_CHECK:
        _cross_check(report, stage, cmd, reference, oracles.NEMO_CROSS_CHECK[version])
    cfg, problems, source = nemo_effective(stage, cmd, reference, ref_name=ref_name)
    for p in problems:
        report.reject(stage, "nemo", p)
    if cfg is None:
        return
    flat = oracles.flatten_keys(OmegaConf.to_container(cfg, resolve=False))
    schema = {f.key: f for f in keys.exp_manager}
    rules = nemo_profile.key_rules(version, reference, ref_name)
    parents = {k.rsplit(".", 1)[0] for k in rules if "." in k}
    # maps NeMo takes whole (an empty {} default): any sub-key; a null default is a leaf
    open_prefixes = {k for k, r in rules.items() if r.type == "map" and k not in parents and not k.startswith("exp_manager.")}
    exp_ok = True
    em_where = f"ExpManagerConfig ({root.name} {oracles.EXP_MANAGER})"
    seeds = ", ".join(sorted({f for files in keys.launcher.values() for f in files})) or "none"
    for key in sorted(flat):
        parts = key.split(".")
        if parts[0] == "exp_manager":
            sub = ".".join(parts[1:])
            verdict = _schema_verdict(sub, schema)
            if verdict == "ok":
                continue
            if verdict.startswith("opaque:"):
                report.note(stage, "nemo", f"'{key}' is under {verdict[7:]}, which is not in the reference "
                                           f"({oracles.EXP_MANAGER}); not checked")
                continue
            exp_ok = False
            report.reject(stage, "nemo", f"'{key}' is not an argument of NeMo {version}: {verdict} of {em_where}, "
                                         "and exp_manager() merges its section into that structured config")
            continue
        if key in rules:
            problem = nemo_profile.value_problem(rules[key], flat[key])
            if problem:
                report.reject(stage, "nemo", f"'{key}={_hydra_text(flat[key])}': {problem} (NeMo {version})")
            continue
        if any(key.startswith(p + ".") for p in open_prefixes):
            continue
        leaf = next((".".join(parts[:n]) for n in range(len(parts) - 1, 0, -1)
                     if ".".join(parts[:n]) in rules and ".".join(parts[:n]) not in parents), None)
        why = (f"{leaf} is a leaf ({rules[leaf].type}{', null by default' if rules[leaf].nullable else ''}): "
               "NeMo reads a value there, not sub-keys" if leaf else
               f"not a key of {root.name} {oracles.GPT_CONFIG.rsplit('/', 1)[1]} nor of the seed configs ({seeds})")
        report.reject(stage, "nemo", f"'{key}' is not an argument of NeMo {version}: {why}")
    if exp_ok and "exp_manager" in cfg:
        # what exp_manager() does: resolve, then merge into OmegaConf.structured(ExpManagerConfig)
        nemo_hydra.register_resolvers()
        try:
            section = OmegaConf.create(OmegaConf.to_container(cfg.exp_manager, resolve=True))
            OmegaConf.merge(OmegaConf.structured(oracles.exp_manager_structured(version, reference, ref_name)), section)
        except Exception as e:  # noqa: BLE001
            report.reject(stage, "nemo", f"the exp_manager section does not merge into {em_where}: "
                                         f"{nemo_hydra.first_line(e)}")


def _hydra_text(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _cross_check(report: Report, stage: launches.Stage, cmd: launches.Command, reference: Path, ref_name: str) -> None:
    """The same check against a later NeMo release: its rejections are notes (does the result
    still hold one release later?), not failures."""
    if not (reference / ref_name).is_dir():
        return
    shadow = Report()
    shadow.reject = lambda s, p, m: shadow.rejected.append(m)  # type: ignore[method-assign]
    shadow.note = lambda s, p, m: None  # type: ignore[method-assign]
    check_nemo_command(shadow, stage, cmd, reference, ref_name)
    for message in shadow.rejected:
        report.note(stage, "nemo", f"cross-check with {ref_name}: {message}")


def _schema_verdict(sub: str, schema: dict[str, oracles.SchemaField]) -> str:
    if sub in schema:
        return "ok"
    parts = sub.split(".")
    for n in range(len(parts) - 1, 0, -1):
        parent = schema.get(".".join(parts[:n]))
        if parent is None:
            continue
        if parent.kind == "open":
            return "ok"
        if parent.kind == "opaque":
            return f"opaque:{parent.type_name}"
        if parent.kind == "leaf":
            return f"{'.'.join(parts[:n])} is a {parent.type_name} field, it has no sub-keys"
        return f"not a field of {parent.type_name}"
    return "not a field"


# --- TorchTitan ---------------------------------------------------------------------------------

def _recipe_shown(stage: launches.Stage) -> dict:
    """The recipe as trainbench resolves it (`show --json`, with this run's -s overrides)."""
    import json
    import subprocess

    sets = [w for s in RUN["sets"] for w in ("-s", s)]
    res = subprocess.run([RUN["binary"], "--json", "show", stage.file, *sets], capture_output=True, text=True,
                         check=False)
    return json.loads(res.stdout) if res.returncode == 0 else {}


def _recipe_model(stage: launches.Stage) -> dict:
    return _recipe_shown(stage).get("model", {})


def check_torchtitan_command(report: Report, stage: launches.Stage, cmd: launches.Command, reference: Path) -> None:
    import tomllib

    program = f"torchtitan {cmd.version or stage.framework_version}"
    if (cmd.version or stage.framework_version) == torchtitan_main_check.VERSION:
        check_torchtitan_main_command(report, stage, cmd, reference)
        return
    if (cmd.version or stage.framework_version) != torchtitan_check.VERSION:
        report.reject(stage, program, f"no TorchTitan oracle for version {cmd.version!r}")
        return
    found = sorted(stage.stage_dir.rglob("torchtitan.toml"))
    if not found:
        report.reject(stage, program, f"no delivered torchtitan.toml in {stage.stage_dir}")
        return
    argv = list(cmd.argv)
    if argv[:2] == ["-m", "torchtitan.train"]:
        argv = argv[2:]
    for i, word in enumerate(argv):
        if word in ("--job.config_file", "--job.config-file") and i + 1 < len(argv):
            argv[i + 1] = str(found[0])
    try:
        config, why = torchtitan_check.parse(reference, argv)
        if config is None:
            report.reject(stage, program, f"ConfigManager.parse_args refuses it: {why}")
            return
        with open(found[0], "rb") as f:
            toml = tomllib.load(f)
        for problem in torchtitan_check.type_problems(reference, toml):
            report.reject(stage, program, f"{found[0].name}: {problem}")
        shape = torchtitan_check.flavor_shape(reference, config.model.name, config.model.flavor)
        if shape is None:
            report.reject(stage, program, f"TorchTitan {torchtitan_check.VERSION} defines no flavour "
                                          f"{config.model.flavor!r} of model {config.model.name!r}")
            return
        model = _recipe_model(stage)
        for problem in torchtitan_check.shape_problems(shape, model):
            report.reject(stage, program, f"flavour {config.model.name} {config.model.flavor} against model "
                                          f"{model.get('name', '?')!r}: {problem}")
    except torchtitan_check.SetupError as e:
        report.reject(stage, program, f"cannot run TorchTitan's parser: {e}")


def check_torchtitan_main_command(report: Report, stage: launches.Stage, cmd: launches.Command,
                                  reference: Path) -> None:
    program = f"torchtitan {torchtitan_main_check.VERSION}"
    argv = list(cmd.argv)
    if argv[:2] == ["-m", "torchtitan.train"]:
        argv = argv[2:]
    try:
        for problem in torchtitan_main_check.problems(reference, argv, _recipe_shown(stage)):
            report.reject(stage, program, problem)
    except torchtitan_main_check.SetupError as e:
        report.reject(stage, program, f"cannot run TorchTitan's parser: {e}")


# --- driver -------------------------------------------------------------------------------------

def check_bridge_command(report: Report, stage: launches.Stage, cmd: launches.Command, reference: Path) -> None:
    import bridge_oracle  # noqa: PLC0415

    try:
        problems = bridge_oracle.command_problems(cmd.argv, cmd.version, reference)
    except oracles.OracleError as e:
        problems = [f"no oracle for megatron-bridge version {cmd.version!r}: {e}"]
    for problem in problems:
        report.reject(stage, cmd.program, problem)


CHECKERS = {
    "nemo": check_nemo_command,
    "megatron-bridge": check_bridge_command,
    "megatron-lm": check_arg_command, "megatron-preprocess": check_arg_command,
    "metaseq": check_arg_command, "nccl-tests": check_arg_command, "nemo-preprocess": check_arg_command,
    "torchtitan": check_torchtitan_command,
}


def recipes_under(directory: Path) -> list[Path]:
    """Recipe files under a recipes/ folder: not the catalog, not the shared bases."""
    out = []
    for p in sorted(directory.rglob("*.yaml")):
        rel = p.relative_to(directory).parts
        if "catalog" in rel or "common" in rel:
            continue
        out.append(p)
    return out


def check_recipes(recipes: list[str], binary: str, reference: Path, sets: list[str], report: Report,
                  render_root: Path, prefer_argv: bool = True, validate: bool = True,
                  inject: list[str] | None = None) -> bool:
    ok = True
    for n, recipe in enumerate(recipes):
        out = render_root / f"{n:03d}"
        try:
            stages = launches.render_recipe(binary, recipe, out, sets, prefer_argv, validate)
        except launches.RenderError as e:
            print(f"ERROR {recipe}: {e}", file=sys.stderr)
            ok = False
            continue
        for stage in stages:
            for cmd in launches.launcher_commands(stage.stage_dir, "installed", "installed"):
                report.checked += 1
                before = len(report.rejected)
                check_launcher_command(report, stage, cmd, reference)
                if len(report.rejected) > before:
                    report.rejected_commands += 1
                report.info(f"checked {stage.file} {stage.stage}: {cmd.program} ({len(cmd.argv) - 1} words) from {cmd.where}")
            for cmd in stage.commands:
                for item in inject or []:
                    program, _, word = item.partition("=")
                    if program == cmd.program:
                        cmd.argv.append(word)
                checker = CHECKERS.get(cmd.program)
                if checker is None:
                    report.unchecked += 1
                    report.info(f"skip {stage.file} {stage.stage}: {cmd.program} {' '.join(cmd.argv[:1])}")
                    continue
                report.checked += 1
                before = len(report.rejected)
                checker(report, stage, cmd, reference)
                if len(report.rejected) > before:
                    report.rejected_commands += 1
                report.info(f"checked {stage.file} {stage.stage}: {cmd.program} {cmd.version} "
                            f"({len(cmd.argv) - 1} words, {len(report.rejected) - before} rejected) from {cmd.where}")
    return ok


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("recipes", nargs="*", help="recipe files")
    p.add_argument("--all", metavar="DIR", help="every recipe under DIR (not catalog/ or common/)")
    p.add_argument("-s", "--set", dest="sets", action="append", default=[], help="passed to trainbench render")
    p.add_argument("--binary", default=os.environ.get("TRAINBENCH_BINARY") or str(HERE.parent.parent / "build/trainbench"))
    p.add_argument("--reference", help="the shared/reference folder (default: $TRAINBENCH_SHARED_DIR/reference)")
    p.add_argument("--render-dir", help="render here (kept) instead of a temporary folder")
    p.add_argument("--files", action="store_true", help="read the rendered files even if `render --argv` exists")
    p.add_argument("--no-validate", action="store_true", help="render with --no-validate (trainbench's own checks off)")
    p.add_argument("--inject", action="append", default=[], metavar="PROGRAM=WORD",
                   help="test hook: append WORD to the argv of every PROGRAM command read (e.g. nemo=+model.x=1)")
    p.add_argument("-v", "--verbose", action="store_true", help="one line per checked command on stderr")
    args = p.parse_args(argv)
    recipes = list(args.recipes)
    if args.all:
        recipes += [str(r) for r in recipes_under(Path(args.all))]
    if not recipes:
        p.error("no recipes (give files or --all DIR)")
    if not (os.path.isfile(args.binary) and os.access(args.binary, os.X_OK)):
        print(f"check.py: error: no trainbench binary at {args.binary} (--binary or TRAINBENCH_BINARY)", file=sys.stderr)
        return 2
    try:
        reference = oracles.reference_dir(args.reference)
    except oracles.OracleError as e:
        print(f"check.py: error: {e}", file=sys.stderr)
        return 2
    report = Report(args.verbose)
    RUN["binary"], RUN["sets"] = args.binary, list(args.sets)
    with tempfile.TemporaryDirectory(prefix="tb-conformance-") as tmp:
        root = Path(args.render_dir) if args.render_dir else Path(tmp)
        ok = check_recipes(recipes, args.binary, reference, args.sets, report, root, not args.files,
                           not args.no_validate, args.inject)
    print(f"conformance: {report.checked} commands checked, {len(report.rejected)} rejected"
          f" (in {report.rejected_commands} commands; {report.unchecked} other commands not checked;"
          f" {len(recipes)} recipes)")
    if not ok:
        return 2
    return 1 if report.rejected else 0


if __name__ == "__main__":
    sys.exit(main())
