"""The launch lines of rendered recipes: one record per stage with the commands it runs.

Two sources, the same records:

1. `trainbench render RECIPE --argv` (JSON on stdout, one object per stage:
   {"recipe", "file", "stage", "kind", "framework", "framework_version",
    "commands": [{"program", "version", "argv", "config_dir"?, "config_name"?}]}).
   Used whenever the binary has the option.
2. Until then, the rendered files (`trainbench render RECIPE -o DIR`): every `srun ...` command of
   a Slurm job.sbatch (shell words, line continuations joined), and the `launch_argv:` list of a
   Kubernetes training-config.yaml; the framework version is the resolved recipe's
   framework_version (`trainbench --json show`) or else comes from its `extends` chain
   (recipes/common/<framework>-<version>.yaml), the program from the entry script's name.

Either way the stage's rendered directory is there too (DIR/<stage>/), so a command's
config_dir (relative to it) can be read.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import oracles


@dataclasses.dataclass
class Command:
    program: str                      # nemo, megatron-lm, metaseq, nccl-tests, nemo-preprocess, megatron-preprocess, other
    version: str
    argv: list[str]                   # argv[0] is the entry (script or binary)
    config_dir: str | None = None     # relative to the stage directory
    config_name: str | None = None
    where: str = ""                   # file (and line) the command was read from


@dataclasses.dataclass
class Stage:
    recipe: str                       # the recipe's name
    file: str                         # the recipe file
    stage: str
    kind: str
    framework: str
    framework_version: str
    commands: list[Command]
    stage_dir: Path                   # the rendered files of this stage


class RenderError(Exception):
    pass


def _run(cmd: list[str], cwd: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


def render_recipe(binary: str, recipe: str, out_dir: Path, sets: list[str] | None = None,
                  prefer_argv: bool = True, validate: bool = True) -> list[Stage]:
    """Render one recipe into out_dir and return its stages with their launch commands.
    validate=False passes --no-validate (trainbench's own semantic checks off)."""
    set_args = [w for s in (sets or []) for w in ("-s", s)] + ([] if validate else ["--no-validate"])
    res = _run([binary, "render", recipe, "-o", str(out_dir), *set_args])
    if res.returncode != 0:
        raise RenderError(f"trainbench render {recipe} failed ({res.returncode}): {res.stderr.strip()}")
    if prefer_argv:
        res = _run([binary, "render", recipe, "--argv", *set_args])
        if res.returncode == 0:
            return _stages_from_argv_json(json.loads(res.stdout), out_dir)
        if res.returncode != 2:  # 2: usage (the option does not exist yet)
            raise RenderError(f"trainbench render {recipe} --argv failed ({res.returncode}): {res.stderr.strip()}")
    return _stages_from_files(binary, recipe, out_dir, [w for w in set_args if w != "--no-validate"])


def _stages_from_argv_json(data: list[dict[str, Any]], out_dir: Path) -> list[Stage]:
    stages = []
    for obj in data:
        cmds = [Command(c.get("program", "other"), str(c.get("version", "")), list(c["argv"]),
                        c.get("config_dir"), c.get("config_name"), where="--argv")
                for c in obj.get("commands", [])]
        stages.append(Stage(obj["recipe"], obj.get("file", ""), obj["stage"], obj.get("kind", ""),
                            obj.get("framework", ""), str(obj.get("framework_version", "")), cmds,
                            out_dir / obj["stage"]))
    return stages


# --- the rendered files ------------------------------------------------------------------------

# Program of an entry script or binary (by its file name; metaseq's is metaseq/cli/train.py).
def classify(entry: str, framework: str) -> str:
    base = os.path.basename(entry)
    if base == "megatron_gpt_pretraining.py":
        return "nemo"
    if base == "pretrain_gpt.py":
        return "megatron-lm"
    if base == "run_script.py" and framework == "megatron-bridge":
        return "megatron-bridge"
    if entry.endswith("metaseq/cli/train.py") or (framework == "metaseq" and base == "train.py"):
        return "metaseq"
    if base == "preprocess_data_for_megatron.py":
        return "nemo-preprocess"
    if base == "preprocess_data.py":
        return "megatron-preprocess"
    if re.fullmatch(r"[a-z_]+_perf(_mpi)?", base):
        return "nccl-tests"
    return "other"


# The version each framework's oracle is named by, when only the rendered files are there.
FIXED_VERSIONS = {"megatron-lm": "e958b2ca", "metaseq": "f7ffa5f", "megatron-bridge": "06f25c22"}
ORACLE_VERSIONS = {"megatron-lm": set(oracles.MEGATRON_REFS), "metaseq": set(oracles.METASEQ_REFS),
                   "megatron-bridge": {"06f25c22"}}
NCCL_TESTS_VERSION = "2.19.6"


def framework_version(recipe_file: Path, framework: str) -> str:
    """NeMo: the version of the recipes/common/nemo-<version>.yaml base in the extends chain."""
    if framework in FIXED_VERSIONS:
        return FIXED_VERSIONS[framework]
    seen: set[Path] = set()
    todo = [recipe_file.resolve()]
    while todo:
        path = todo.pop()
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        m = re.fullmatch(rf"{re.escape(framework)}-(\d\d\.\d\d)\.yaml", path.name)
        if m:
            return m.group(1)
        text = path.read_text(encoding="utf-8")
        ext = re.search(r"^extends:\s*(.*)$", text, re.M)
        if ext:
            for item in re.findall(r"[^\[\],\s]+\.ya?ml", ext.group(1)):
                todo.append((path.parent / item).resolve())
    return ""


def _stages_from_files(binary: str, recipe: str, out_dir: Path, set_args: list[str]) -> list[Stage]:
    res = _run([binary, "--json", "show", recipe, *set_args])
    if res.returncode != 0:
        raise RenderError(f"trainbench show {recipe} failed: {res.stderr.strip()}")
    r = json.loads(res.stdout)
    r = r.get("recipe", r)
    framework = r.get("framework", "")
    version = str(r.get("framework_version") or "")
    if not version or (framework in FIXED_VERSIONS and version not in ORACLE_VERSIONS[framework]):
        version = framework_version(Path(recipe), framework)
    kinds = {s["name"]: s["kind"] for s in r.get("stages") or []} or {"train": "train"}
    stages = []
    for name, kind in kinds.items():
        stage_dir = out_dir / name
        if not stage_dir.is_dir():
            raise RenderError(f"{recipe}: no rendered directory for stage {name} in {out_dir}")
        cmds: list[Command] = []
        for cfg in sorted(stage_dir.rglob("training-config.yaml"))[:1]:
            cmds += _commands_from_training_config(cfg, framework, version, r)
        if not cmds:
            for script in sorted(stage_dir.glob("*.sbatch")):
                cmds += _commands_from_script(script, framework, version, r)
        stages.append(Stage(r.get("name", ""), recipe, name, kind, framework, version, cmds, stage_dir))
    return stages


def _version_for(program: str, framework: str, version: str, image: str | None) -> str:
    if program == "nccl-tests":
        return NCCL_TESTS_VERSION
    if program == "nemo-preprocess":
        # the NeMo of the container the command runs in (e.g. nemo+24.05.sqsh, ...:22.06-...)
        m = re.search(r"(?:nemo|bignlp-training|nemofw-training)[^/]*?[:+](\d\d\.\d\d)", image or "")
        if m:
            return m.group(1)
        return version if framework == "nemo" else ""
    if program == "megatron-preprocess":
        return FIXED_VERSIONS["megatron-lm"]
    return version


def _commands_from_training_config(path: Path, framework: str, version: str, recipe: dict) -> list[Command]:
    import yaml  # the venv's PyYAML

    doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    argv = [str(w) for w in doc.get("launch_argv") or []]
    if not argv:
        return []
    return [_command(argv, framework, version, recipe.get("container", {}).get("image"), f"{path}:launch_argv")]


def _command(words: list[str], framework: str, version: str, image: str | None, where: str) -> Command:
    """words: a launcher line (python3 [-u] X.py ..., torchrun ... X.py ..., or a binary ...)."""
    # The validate stage's HPC-X wrapper: bash -c '<load HPC-X, exec "$@">' tb-hpcx HPCX PROGRAM ARGS...
    if len(words) > 5 and words[0] == "bash" and words[1] == "-c" and words[3] == "tb-hpcx":
        words = words[5:]
    i = 0
    if words and os.path.basename(words[0]) in ("python", "python3", "torchrun") or \
            (words and re.fullmatch(r"python3(\.\d+)?", os.path.basename(words[0]))):
        i = 1
        while i < len(words) and not words[i].endswith(".py"):
            i += 1
        if i == len(words):
            i = 0
    argv = words[i:]
    program = classify(argv[0], framework) if argv else "other"
    cmd = Command(program, _version_for(program, framework, version, image), argv, where=where)
    if program == "nemo":
        for j, w in enumerate(argv[1:], 1):
            if w.startswith("--config-path="):
                cmd.config_dir = w.split("=", 1)[1]
            elif w.startswith("--config-name="):
                cmd.config_name = w.split("=", 1)[1]
            elif w in ("--config-path", "-cp") and j + 1 < len(argv):
                cmd.config_dir = argv[j + 1]
            elif w in ("--config-name", "-cn") and j + 1 < len(argv):
                cmd.config_name = argv[j + 1]
    return cmd


# srun's short options that take a value (srun(1)); long ones are rendered as --opt=value.
SRUN_SHORT_WITH_VALUE = set("AbBcCDdeGiJLmMNnopqrSTtWwx")
SHELL_OPERATORS = {";", "&", "&&", "||", "|", ">", ">>", "<", ">&", "<&", "(", ")", "2>", "&>"}


def _logical_lines(text: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    buf, start = "", 0
    for n, line in enumerate(text.splitlines(), 1):
        if not buf:
            start = n
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        out.append((start, buf + line))
        buf = ""
    if buf:
        out.append((start, buf))
    return out


def _commands_from_script(path: Path, framework: str, version: str, recipe: dict) -> list[Command]:
    cmds = []
    for lineno, line in _logical_lines(path.read_text(encoding="utf-8")):
        if line.lstrip().startswith("#") or not re.search(r"(^|[\s;!])srun\s", line):
            continue
        lex = shlex.shlex(line, posix=True, punctuation_chars=True)
        lex.whitespace_split = True
        lex.commenters = ""
        try:
            words = list(lex)
        except ValueError as e:
            raise RenderError(f"{path}:{lineno}: cannot split the shell line: {e}") from e
        if "srun" not in words:
            continue
        words = words[words.index("srun") + 1:]
        end = next((k for k, w in enumerate(words) if w in SHELL_OPERATORS), len(words))
        words = words[:end]
        image = None
        i = 0
        while i < len(words) and words[i].startswith("-"):
            w = words[i]
            if w.startswith("--container-image="):
                image = w.split("=", 1)[1]
            if not w.startswith("--") and len(w) == 2 and w[1] in SRUN_SHORT_WITH_VALUE:
                i += 1
            i += 1
        # no --container-image: the command runs on the node itself, not in the recipe's image
        cmds.append(_command(words[i:], framework, version, image, f"{path}:{lineno}"))
    return cmds


# --- the launchers in front of the programs (torchrun, srun) --------------------------------------

def launcher_commands(stage_dir: Path, torch_version: str, slurm_version: str) -> list[Command]:
    """srun's own options and torchrun's own options of every line of the stage's rendered shell
    files (job.sbatch, launch.sh, run.sh, ...): argv = [launcher, *its options], up to the first
    word that is not an option of it (srun: the program; torchrun: the .py entry or -m module)."""
    cmds: list[Command] = []
    for path in sorted(p for p in stage_dir.rglob("*") if p.is_file() and p.suffix in (".sbatch", ".sh")):
        for lineno, line in _logical_lines(path.read_text(encoding="utf-8", errors="replace")):
            if line.lstrip().startswith("#") or not re.search(r"(^|[\s;!(])(srun|torchrun)\s", line):
                continue
            lex = shlex.shlex(line, posix=True, punctuation_chars=True)
            lex.whitespace_split = True
            lex.commenters = ""
            try:
                words = list(lex)
            except ValueError:
                continue  # not a plain command line (a heredoc, a quoted script): the program checks cover it
            for n, w in enumerate(words):
                if w == "srun":
                    opts = _leading_options(words[n + 1:], SRUN_SHORT_WITH_VALUE)
                    cmds.append(Command("srun", slurm_version, ["srun", *opts], where=f"{path}:{lineno}"))
                elif w == "torchrun":
                    rest = words[n + 1:]
                    # the entry: a .py file, or the module after torchrun's -m/--module flag
                    end = next((k for k, x in enumerate(rest) if x.endswith(".py") or x in SHELL_OPERATORS
                                or (k > 0 and rest[k - 1] in ("-m", "--module"))), len(rest))
                    cmds.append(Command("torchrun", torch_version, ["torchrun", *rest[:end]], where=f"{path}:{lineno}"))
    return cmds


def _leading_options(words: list[str], short_with_value: set[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(words) and words[i].startswith("-") and words[i] not in SHELL_OPERATORS:
        out.append(words[i])
        if not words[i].startswith("--") and len(words[i]) == 2 and words[i][1] in short_with_value and i + 1 < len(words):
            out.append(words[i + 1])
            i += 1
        i += 1
    return out
