#!/usr/bin/env python3
"""The end of scripts/test.sh: what ran, and every skipped test with the reason it printed.

Reads the JUnit file that `ctest --output-junit FILE` wrote. A skipped test is one that
exited with its SKIP_RETURN_CODE (125, the integration tests) or printed its
SKIP_REGULAR_EXPRESSION (GoogleTest's GTEST_SKIP); its reason is the line it printed to say
why (GoogleTest's message after "Skipped", else the last line that says "skip", else its
last line). Tests that did not run because a fixture failed are listed apart: ctest already
counts them as failures.

Under CI=true (or with --ci) a skipped test fails the run unless a pattern of the allow-list
(default tests/skip-allowlist.txt: `GLOB  REASON` lines, GLOB an fnmatch pattern over the
full ctest name) names it. A REASON that starts with `[when: REGEX]` allows the skip only when
the reason the test printed matches REGEX (a test allowed to skip for one cause, say a missing
folder, still fails CI when it skips for another).

Usage: test-summary.py JUNIT_XML [--allowlist FILE] [--ci]
Exit 0, or 1 when CI mode finds a skip that is not allowed (or the file cannot be read).
"""
import argparse
import fnmatch
import os
import pathlib
import re
import sys
import xml.etree.ElementTree as ET

SKIP_MESSAGES = ("SKIP_RETURN_CODE", "SKIP_REGULAR_EXPRESSION_MATCHED")


def reason_of(output):
    """The line a skipped test printed to say why."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for i, line in enumerate(lines):  # GoogleTest: "file:line: Skipped" then the message
        if re.search(r"(^|: )Skipped$", line) and i + 1 < len(lines) and not lines[i + 1].startswith("["):
            return lines[i + 1]
    said = [line for line in lines if re.search(r"\bskip", line, re.IGNORECASE) and "[  SKIPPED ]" not in line]
    reason = said[-1] if said else (lines[-1] if lines else "(printed nothing)")
    return reason if len(reason) <= 300 else reason[:297] + "..."


WHEN = re.compile(r"^\[when: (.+?)\]\s*(.*)$")


def read_allowlist(path):
    """[(glob, condition regex or None, reason)]; raises ValueError on a line without a reason."""
    entries = []
    if not path.exists():
        return entries
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split(None, 1)
        if len(fields) < 2:
            raise ValueError(f"{path}:{number}: want 'GLOB  REASON', got: {line}")
        reason, condition = fields[1].strip(), None
        when = WHEN.match(reason)
        if when:
            try:
                condition = re.compile(when.group(1))
            except re.error as e:
                raise ValueError(f"{path}:{number}: bad [when: REGEX]: {e}") from e
            reason = when.group(2)
            if not reason:
                raise ValueError(f"{path}:{number}: want a reason after [when: REGEX], got: {line}")
        entries.append((fields[0], condition, reason))
    return entries


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser()
    ap.add_argument("junit")
    ap.add_argument("--allowlist", default=str(root / "tests" / "skip-allowlist.txt"))
    ap.add_argument("--ci", action="store_true", help="fail on a skip not in the allow-list (default: CI=true)")
    a = ap.parse_args()
    ci = a.ci or os.environ.get("CI", "").lower() == "true"
    try:
        cases = ET.parse(a.junit).getroot().iter("testcase")
        allow = read_allowlist(pathlib.Path(a.allowlist))
    except (OSError, ET.ParseError, ValueError) as e:
        print(f"== test summary: cannot read the results: {e}")
        return 1

    passed, failed, skipped, not_run = [], [], [], []
    for case in cases:
        name = case.get("name", "?")
        out = case.findtext("system-out") or ""
        skip = case.find("skipped")
        if case.get("status") == "fail" or case.find("failure") is not None:
            failed.append(name)
        elif skip is not None and skip.get("message", "").startswith(SKIP_MESSAGES):
            skipped.append((name, reason_of(out)))
        elif case.get("status") in ("notrun", "disabled") or skip is not None:
            not_run.append((name, skip.get("message", "") if skip is not None else case.get("status")))
        else:
            passed.append(name)

    total = len(passed) + len(failed) + len(skipped) + len(not_run)
    print(f"== test summary: {total} tests: {len(passed)} passed, {len(failed)} failed, "
          f"{len(skipped)} skipped, {len(not_run)} not run")
    for name in failed:
        print(f"  FAILED   {name}")
    for name, why in not_run:
        print(f"  NOT RUN  {name}: {why}")
    refused = []
    if skipped:
        print(f"skipped ({len(skipped)}), each with its reason:")
    for name, why in skipped:
        allowed = next((r for g, c, r in allow
                        if fnmatch.fnmatchcase(name, g) and (c is None or c.search(why))), None)
        print(f"  SKIPPED  {name}: {why}")
        if allowed is not None:
            print(f"           allowed to skip in CI ({pathlib.Path(a.allowlist).name}): {allowed}")
        elif ci:
            refused.append(name)
    if not skipped:
        print("skipped: none")
    if refused:
        print(f"CI=true: {len(refused)} skipped test(s) not in {pathlib.Path(a.allowlist).name}, so the run fails: "
              + ", ".join(refused))
        print("  make each one run here (the reason above says what it lacks; scripts/setup.sh --test "
              "installs the test tools), or allow it there with the reason")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
