#!/usr/bin/env python3
"""Lengths of the functions in src/ and of the command files, from a brace counter.

A function is a brace block opened at namespace or class scope after a `)`
(with optional const/noexcept/override/-> type, or a constructor's
initialiser list); its length runs from the first line of its declaration to
its closing brace. Comments, strings and character literals are blanked first,
so braces inside them do not count. Lambdas and local classes count as part of
the function around them.

Usage: function-lengths.py [--max-function N] [--max-command N] [--top K] [ROOT]
Prints the K longest functions and the largest src/cli/*_command.cpp; exits 1
when a function is over N lines (default 80) or a command file over N lines
(default 200).
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


def functions(path):
    """[(length, first line, name)] of the functions in one file."""
    text = blank(path.read_text(errors="replace"))
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
            # A preprocessor line or an access specifier ends the declaration head.
            if c == ":" and re.search(r"\b(?:public|private|protected)\s*:$", head):
                head, head_start = "", None
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-function", type=int, default=80)
    ap.add_argument("--max-command", type=int, default=200)
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("root", nargs="?", default=str(pathlib.Path(__file__).resolve().parent.parent))
    a = ap.parse_args()
    root = pathlib.Path(a.root)
    found = []
    for f in sorted((root / "src").rglob("*")):
        if f.suffix in (".cpp", ".hpp"):
            text = f.read_text(errors="replace")
            # preprocessor lines can hold braces only in macros; drop them.
            found += [(n, f.relative_to(root), s, name) for n, s, name in functions(f)]
    found.sort(key=lambda x: (-x[0], str(x[1]), x[2]))
    print(f"{len(found)} functions in src/; the {a.top} longest:")
    for n, f, s, name in found[:a.top]:
        print(f"  {n:4d}  {f}:{s}  {name}")
    commands = sorted(((len(f.read_text().splitlines()), f.relative_to(root))
                       for f in (root / "src" / "cli").glob("*_command.cpp")), reverse=True)
    print("largest command files:")
    for n, f in commands[:5]:
        print(f"  {n:4d}  {f}")
    over = [x for x in found if x[0] > a.max_function]
    big = [x for x in commands if x[0] > a.max_command]
    print(f"{len(over)} function(s) over {a.max_function} lines; {len(big)} command file(s) over {a.max_command} lines")
    return 1 if over or big else 0


if __name__ == "__main__":
    sys.exit(main())
