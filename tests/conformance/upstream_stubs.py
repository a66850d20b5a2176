"""Imports one unmodified upstream file with stand-ins for what its imports pull in.

The FLOPs functions in shared/reference live in files that import torch, megatron.core,
transformer_engine and more at module level; the functions themselves use none of it. A
catch-all import finder answers those imports with stand-in modules whose every attribute is a
callable, subscriptable, iterable placeholder, and `overrides` gives the few names the FLOPs
code does read (flops_oracle.py). Nothing upstream is copied: the file runs from where it is.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import logging
import pathlib
import sys
import types


class _Any:
    """A stand-in for whatever an upstream module imports that its FLOPs code never touches."""

    def __init__(self, *a, **k):
        pass

    def __call__(self, *a, **k):
        return _Any()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Any()

    def __mro_entries__(self, bases):
        return (object,)

    def __getitem__(self, key):
        return _Any()

    def __or__(self, other):
        return _Any()

    __ror__ = __or__

    def __iter__(self):
        return iter(())


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Any()


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, prefixes, skip, overrides):
        self.prefixes, self.skip, self.overrides = prefixes, skip, overrides

    def find_spec(self, name, path, target=None):
        if name not in self.skip and any(name == p or name.startswith(p + ".") for p in self.prefixes):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        return _StubModule(spec.name)

    def exec_module(self, module):
        module.__path__ = []
        for key, value in self.overrides.get(module.__name__, {}).items():
            setattr(module, key, value)


STUBBED = ["megatron", "nemo", "torch", "torchtitan", "transformer_engine", "apex", "wandb", "einops",
           "nvidia_resiliency_ext", "onelogger", "one_logger_utils", "opentelemetry", "numpy", "tensorstore"]


def load_upstream(path: pathlib.Path, module_name: str, overrides=None):
    """Imports one upstream file as `module_name`, its imports answered by stand-ins."""
    for key in [k for k in sys.modules if k.split(".")[0] in STUBBED]:
        del sys.modules[key]
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _StubFinder)]
    sys.meta_path.insert(0, _StubFinder(STUBBED, {module_name}, overrides or {}))
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    spec.loader.exec_module(module)
    root.handlers, root.level = handlers, level  # (Megatron's training.py installs a handler at import)
    return module
