#!/usr/bin/env python3
"""Checks that the modules of trainbench depend on each other one way only.

The order of the layers is the order of the trainbench_module() calls in
src/CMakeLists.txt (the one place it is written down). This script fails when
  - a file of src/<module>/, include/trainbench/<module>.hpp or its parts
    include/trainbench/<module>/*.hpp includes the public header of a later
    module (#include <trainbench/<later>.hpp>),
  - a file outside a module includes a part of that module's public header
    (#include <trainbench/<other>/part.hpp>): the module's one header is
    <trainbench/<other>.hpp>, which includes its parts,
  - a file includes another module's private header (#include "<other>/...")
    or a header under src/ that is not in a module folder,
  - a file of a module with a narrow door (NARROW below: the CLI) includes the
    public header of a module other than the ones it is allowed (and core),
    even an earlier one: every command reaches the domain modules through
    pipeline, and the values it prints through report,
  - a module's DEPS in src/CMakeLists.txt name a later module, name a module it
    does not include (an edge the code does not use), or miss one it includes
    (directly or through its DEPS),
  - the table of layers in docs/architecture.md lists other modules or another
    order.
Usage: check-layering.py [SOURCE_DIR]   (default: the parent of scripts/)
"""
import pathlib
import re
import sys

MODULE_CALL = re.compile(r"^trainbench_module\((\w+)(.*)\)\s*$")
PUBLIC_INCLUDE = re.compile(r'^\s*#\s*include\s*<trainbench/(\w+)(/[\w/]+)?\.hpp>')
PRIVATE_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
DOC_ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*(\w+)\s*\|")
# Modules whose files may include only these modules' public headers (and core's): the CLI
# parses options, calls the use cases of pipeline and prints what report makes of the value.
NARROW = {"cli": ("pipeline", "report")}


def read_modules(root):
    """[(name, [deps])] in declaration order from src/CMakeLists.txt."""
    modules = []
    for line in (root / "src" / "CMakeLists.txt").read_text().splitlines():
        m = MODULE_CALL.match(line.strip())
        if not m:
            continue
        deps = re.search(r"DEPS\s+(.*?)(?:\s+LIBS\b|$)", m.group(2).strip())
        names = [d[len("tb_"):] for d in deps.group(1).split()] if deps else []
        modules.append((m.group(1), names))
    return modules


def module_files(root, module):
    files = sorted(p for p in (root / "src" / module).rglob("*") if p.suffix in (".cpp", ".hpp"))
    header = root / "include" / "trainbench" / f"{module}.hpp"
    if header.exists():
        files.append(header)
    parts = root / "include" / "trainbench" / module
    files.extend(sorted(parts.rglob("*.hpp")) if parts.is_dir() else [])
    return files


def check(root):
    problems = []
    modules = read_modules(root)
    order = {name: i for i, (name, _) in enumerate(modules)}
    used = {name: set() for name in order}
    for name, _ in modules:
        for f in module_files(root, name):
            rel = f.relative_to(root)
            for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
                pub = PUBLIC_INCLUDE.match(line)
                if pub:
                    other = pub.group(1)
                    if pub.group(2) and other != name:
                        problems.append(f"{rel}:{n}: includes <trainbench/{other}{pub.group(2)}.hpp>, a part of "
                                        f"the header of '{other}'; include <trainbench/{other}.hpp>")
                        continue
                    if other not in order:
                        problems.append(f"{rel}:{n}: includes <trainbench/{other}.hpp>, which is no module")
                    elif order[other] > order[name]:
                        problems.append(f"{rel}:{n}: module '{name}' (layer {order[name] + 1}) includes the later "
                                        f"module '{other}' (layer {order[other] + 1})")
                    elif other != name:
                        used[name].add(other)
                        if name in NARROW and other not in NARROW[name] + ("core",):
                            problems.append(f"{rel}:{n}: '{name}' includes <trainbench/{other}.hpp>; its files "
                                            f"include only " + ", ".join(NARROW[name]) + " and core (what a "
                                            f"command needs of '{other}' comes through pipeline.hpp)")
                    continue
                priv = PRIVATE_INCLUDE.match(line)
                if priv:
                    owner = priv.group(1).split("/")[0] if "/" in priv.group(1) else None
                    if owner is None:
                        continue  # a header next to the file (same folder)
                    if owner != name:
                        problems.append(f"{rel}:{n}: module '{name}' includes \"{priv.group(1)}\", a private "
                                        f"header of '{owner}'; use <trainbench/{owner}.hpp> or keep it inside")
    for name, deps in modules:
        closure, todo = set(), list(deps)
        while todo:
            d = todo.pop()
            if d in closure or d not in order:
                continue
            closure.add(d)
            todo.extend(dict(modules)[d])
        for d in deps:
            if d not in order:
                problems.append(f"src/CMakeLists.txt: '{name}' depends on tb_{d}, which is no module")
            elif order[d] >= order[name]:
                problems.append(f"src/CMakeLists.txt: '{name}' depends on the later module '{d}'")
            elif d not in used[name]:
                problems.append(f"src/CMakeLists.txt: '{name}' depends on '{d}' but includes nothing of it")
        for d in sorted(used[name] - closure):
            problems.append(f"src/CMakeLists.txt: '{name}' includes '{d}' but does not depend on it (DEPS)")
    documented = []
    for line in (root / "docs" / "architecture.md").read_text().splitlines():
        row = DOC_ROW.match(line)
        if row:
            documented.append(row.group(2))
    if documented != [name for name, _ in modules]:
        problems.append("docs/architecture.md: the table of layers lists " + ", ".join(documented) +
                        "; src/CMakeLists.txt declares " + ", ".join(name for name, _ in modules))
    return problems


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} layering problem(s); the order is src/CMakeLists.txt's, see docs/architecture.md")
        return 1
    print(f"layering ok: {len(read_modules(root))} modules, each includes only earlier ones")
    return 0


if __name__ == "__main__":
    sys.exit(main())
