#!/usr/bin/env python3
"""Lengths of the functions in src/ and include/ and of the command files, from a brace counter.

A function is a brace block opened at namespace or class scope after a `)`
(with optional const/noexcept/override/-> type, or a constructor's
initialiser list); its length runs from the first line of its declaration to
its closing brace. Comments, strings and character literals are blanked first,
so braces inside them do not count, and then preprocessor lines (with their
backslash continuations), so an `#include` never becomes part of the next
declaration head. Lambdas and local classes count as part of the function
around them.

Usage: function-lengths.py [--max-function N] [--max-command N] [--top K]
                           [--exceptions FILE] [ROOT]
Prints the K longest functions and the largest src/cli/*_command.cpp; exits 1
when a function is over N lines (default 80) or a command file over N lines
(default 200). FILE (default scripts/function-length-exceptions.txt) lists the
functions allowed to be longer, one a line: `PATH NAME LINES REASON`; such a
function fails when it grows past LINES, and an entry that matches no function
over N lines fails too (remove it once the function is shortened).
"""
import argparse
import pathlib
import re
import sys

HEAD_FUNCTION = re.compile(
    r"\)\s*(?:const\b|noexcept\b(?:\([^)]*\))?|override\b|final\b|mutable\b|&&?|\s)*(?:->[^;{}]*)?$")
CONTROL = re.compile(r"^(?:if|for|while|switch|catch|else\s+if|do|return|sizeof|decltype)\b")
INIT_LIST = re.compile(r"\)\s*(?:noexcept\s*)?:\s*[\w:<>]+\s*[({]")


def blank(text):
    """Text with comments and string/char literals replaced by spaces (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # digit separator 1'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def blank_preprocessor(text):
    """Text with preprocessor lines (and their `\\` continuations) replaced by spaces."""
    out, continued = [], False
    for line in text.split("\n"):
        if continued or line.lstrip().startswith("#"):
            continued = line.rstrip().endswith("\\")
            out.append(" " * len(line))
        else:
            out.append(line)
    return "\n".join(out)


def functions(path):
    """[(length, first line, name)] of the functions in one file."""
    return functions_in(path.read_text(errors="replace"))


def functions_in(source):
    """[(length, first line, name)] of the functions in a C++ source text."""
    text = blank_preprocessor(blank(source))
    result, stack = [], []  # stack of (kind, start line, name)
    head_start, head = None, ""
    line = 1
    for c in text:
        if c == "\n":
            line += 1
            head += " "
            continue
        if c == "{":
            h = head.strip()
            enclosing = stack[-1][0] if stack else "namespace"
            if enclosing in ("namespace", "class") and (HEAD_FUNCTION.search(h) or INIT_LIST.search(h)) \
                    and not CONTROL.match(h) and "=" not in h.split("(")[0]:
                name = re.findall(r"([~\w:]+(?:operator\W+)?)\s*\(", h)
                stack.append(("function", head_start or line, name[0] if name else "?"))
            elif re.match(r"^(?:namespace|extern\b)", h) or (h == "" and enclosing == "namespace"):
                stack.append(("namespace", line, ""))
            elif re.search(r"\b(?:class|struct|union|enum)\b", h) and "(" not in h:
                stack.append(("class", line, ""))
            else:
                stack.append(("block", line, ""))
            head, head_start = "", None
        elif c == "}":
            if stack:
                kind, start, name = stack.pop()
                if kind == "function":
                    result.append((line - start + 1, start, name))
            head, head_start = "", None
        elif c == ";":
            head, head_start = "", None
        else:
            if head_start is None and not c.isspace():
                head_start = line
            head += c
            # An access specifier ends the declaration head.
            if c == ":" and re.search(r"\b(?:public|private|protected)\s*:$", head):
                head, head_start = "", None
    return result


def read_exceptions(path):
    """{(path, name): (lines, reason)} from the exceptions file; raises ValueError on a bad line."""
    allowed = {}
    if not path.exists():
        return allowed
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split(None, 3)
        if len(fields) < 4 or not fields[2].isdigit():
            raise ValueError(f"{path}:{number}: want 'PATH NAME LINES REASON', got: {line}")
        allowed[(fields[0], fields[1])] = (int(fields[2]), fields[3])
    return allowed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-function", type=int, default=80)
    ap.add_argument("--max-command", type=int, default=200)
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--exceptions", help="default: ROOT/scripts/function-length-exceptions.txt")
    ap.add_argument("root", nargs="?", default=str(pathlib.Path(__file__).resolve().parent.parent))
    a = ap.parse_args()
    root = pathlib.Path(a.root)
    exceptions_file = pathlib.Path(a.exceptions) if a.exceptions else root / "scripts" / "function-length-exceptions.txt"
    try:
        allowed = read_exceptions(exceptions_file)
    except ValueError as e:
        print(f"error: {e}")
        return 1
    found = []
    for f in sorted([*(root / "src").rglob("*"), *(root / "include").rglob("*")]):
        if f.suffix in (".cpp", ".hpp"):
            found += [(n, f.relative_to(root).as_posix(), s, name) for n, s, name in functions(f)]
    found.sort(key=lambda x: (-x[0], x[1], x[2]))
    print(f"{len(found)} functions in src/ and include/; the {a.top} longest:")
    for n, f, s, name in found[:a.top]:
        print(f"  {n:4d}  {f}:{s}  {name}")
    commands = sorted(((len(f.read_text().splitlines()), f.relative_to(root))
                       for f in (root / "src" / "cli").glob("*_command.cpp")), reverse=True)
    print("largest command files:")
    for n, f in commands[:5]:
        print(f"  {n:4d}  {f}")
    over = [x for x in found if x[0] > a.max_function]
    failures, used = [], set()
    for n, f, s, name in over:
        limit = allowed.get((f, name))
        if limit is None:
            failures.append(f"{f}:{s}: {name} is {n} lines, over {a.max_function} "
                            f"(shorten it; {exceptions_file.name} lists the only exceptions)")
        elif n > limit[0]:
            failures.append(f"{f}:{s}: {name} is {n} lines, more than the {limit[0]} its exception allows")
        used.add((f, name))
    for (f, name), (limit, _) in sorted(allowed.items()):
        if (f, name) not in used:
            failures.append(f"{exceptions_file.name}: {f} {name} is no longer over {a.max_function} lines "
                            f"(or no longer there): remove its entry")
    big = [x for x in commands if x[0] > a.max_command]
    for n, f in big:
        failures.append(f"{f}: {n} lines, over {a.max_command} for a command file")
    listed = sum(1 for x in over if (x[1], x[3]) in allowed)
    print(f"{len(over)} function(s) over {a.max_function} lines, {listed} of them listed in "
          f"{exceptions_file.name}; {len(big)} command file(s) over {a.max_command} lines")
    for line in failures:
        print(f"FAIL: {line}")
    return 1 if failures else 0

if __name__ == "__main__":
    sys.exit(main())
