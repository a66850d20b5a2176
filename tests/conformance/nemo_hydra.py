"""Composing a NeMo launch the way NeMo does it: Hydra 1.3 compose() of the config file the command
names (--config-path/--config-name), or of NeMo's own megatron_gpt_config.yaml when it names
none (what `@hydra_runner(config_path="conf", config_name="megatron_gpt_config")` in
megatron_gpt_pretraining.py loads), with the command's overrides."""
from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

# Shell variables in override values ($NNODES, ${TRAINBENCH_RUN_DIR}, $((...))): they are
# expanded by the shell at run time; here they become a dummy word (or a known value), since
# Hydra would read ${NAME} as an interpolation. Dotted ${a.b} (a real interpolation) is kept.
SHELL_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}|\$([A-Za-z_][A-Za-z0-9_]*)|\$\(\([^)]*\)\)")


def neutralize(override: str, known: dict[str, str] | None = None) -> str:
    key, eq, value = override.partition("=")
    if not eq:
        return override

    def sub(m: re.Match) -> str:
        name = m.group(1) or m.group(2)
        if name and known and name in known:
            return str(known[name])
        return f"__{name or 'EXPR'}__"

    return key + eq + SHELL_VAR.sub(sub, value)


def register_resolvers() -> None:
    """`multiply`, as NeMo's hydra_runner and the launchers register it (product of its args)."""
    from omegaconf import OmegaConf

    def multiply(*args):
        out = 1
        for a in args:
            out *= a
        return out

    if not OmegaConf.has_resolver("multiply"):
        OmegaConf.register_new_resolver("multiply", multiply)


@contextlib.contextmanager
def nemo_default_conf(gpt_config: Path) -> Iterator[Path]:
    """A temporary copy of NeMo's conf/ folder (megatron_gpt_config.yaml and, where the
    reference has it, the tp_overlap/ group its defaults list names)."""
    with tempfile.TemporaryDirectory(prefix="tb-nemo-conf-") as tmp:
        dest = Path(tmp) / "conf"
        shutil.copytree(gpt_config.parent, dest)
        yield dest


def compose(config_dir: Path, config_name: str, overrides: list[str]):
    """hydra.compose() in a fresh Hydra; raises what Hydra raises."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(config_dir.resolve()), version_base=None):
        return hydra_compose(config_name=config_name, overrides=list(overrides))


def first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    msg = " ".join(lines[:2])
    return f"{type(exc).__name__}: {msg}"


def _applies(base, override: str) -> bool:
    """Whether one override applies to an already composed config, the way Hydra applies config
    overrides after the defaults list (struct mode: a new key needs '+'). A quick pre-check:
    every failure it finds is confirmed with a real compose()."""
    import copy

    from hydra._internal.config_loader_impl import ConfigLoaderImpl
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from omegaconf import OmegaConf

    try:
        parsed = OverridesParser.create().parse_overrides([override])
        cfg = copy.deepcopy(base)
        OmegaConf.set_struct(cfg, True)
        ConfigLoaderImpl._apply_overrides_to_config(parsed, cfg)
        return True
    except Exception:  # noqa: BLE001
        return False


def compose_each(config_dir: Path, config_name: str, overrides: list[str]):
    """Compose with all overrides; when that fails, find every override that fails on its own
    and compose with the others. Returns (config or None, [(override, error)])."""
    try:
        return compose(config_dir, config_name, overrides), []
    except Exception as whole:  # noqa: BLE001 - Hydra/OmegaConf raise several kinds
        try:
            base = compose(config_dir, config_name, [])
        except Exception as e:  # noqa: BLE001
            return None, [("(the config itself)", first_line(e))]
        suspects = [o for o in overrides if not _applies(base, o)]
        failures = []
        for o in suspects:
            try:
                compose(config_dir, config_name, [o])
            except Exception as e:  # noqa: BLE001
                failures.append((o, first_line(e)))
        good = [o for o in overrides if o not in {f for f, _ in failures}]
        try:
            return compose(config_dir, config_name, good), failures
        except Exception:  # noqa: BLE001 - the pre-check missed one: ask compose() about each
            pass
        failures = []
        for o in overrides:
            try:
                compose(config_dir, config_name, [o])
            except Exception as e:  # noqa: BLE001
                failures.append((o, first_line(e)))
        if not failures:
            return None, [("(all overrides together)", first_line(whole))]
        good = [o for o in overrides if o not in {f for f, _ in failures}]
        try:
            return compose(config_dir, config_name, good), failures
        except Exception as e:  # noqa: BLE001
            return None, failures + [("(the remaining overrides)", first_line(e))]
