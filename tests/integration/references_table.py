#!/usr/bin/env python3
"""The published-references table of docs/metrics.md, from `trainbench list references --json`.

    references_table.py BINARY DOC [--update]

Prints nothing and exits 0 when DOC's block between the `<!-- references -->` and
`<!-- references end -->` lines equals the table built from the binary's rows; else prints a
diff and exits 1. --update rewrites the block (TRAINBENCH_UPDATE_GOLDEN=1 in the test).
"""
import difflib
import json
import pathlib
import subprocess
import sys

BEGIN, END = "<!-- references -->", "<!-- references end -->"


def table(binary):
    rows = json.loads(subprocess.run([binary, "list", "references", "--json"], check=True, capture_output=True,
                                     text=True).stdout)
    out = ["| reference | model | GPUs | precision | tokens/s/GPU | published TFLOPS/GPU | trainbench | difference "
           "| convention |", "|---|---|---|---|---:|---:|---:|---:|---|"]
    for r in rows:
        ours = r.get("reproduced_tflops_per_gpu")
        mine = f"{ours:.1f}" if ours is not None else "—"
        diff = f"{100 * r['reproduced_difference']:+.2f} %" if ours is not None else r["problem"]
        if not r["reproduced"]:
            diff += " (explained below)"
        out.append(f"| `{r['id']}` | {r['model']} | {r['gpu']} × {r['gpus']} | {r['precision']} | "
                   f"{r['tokens_per_s_per_gpu']:g} | {r['tflops_per_gpu']:g} | {mine} | {diff} | `{r['convention']}` |")
    return out


def main():
    binary, doc = sys.argv[1], pathlib.Path(sys.argv[2])
    lines = doc.read_text().split("\n")
    begin, end = lines.index(BEGIN), lines.index(END)
    want = table(binary)
    if lines[begin + 1:end] == want:
        return 0
    if "--update" in sys.argv:
        doc.write_text("\n".join(lines[:begin + 1] + want + lines[end:]))
        print(f"updated the references table of {doc}")
        return 0
    sys.stdout.writelines(difflib.unified_diff([x + "\n" for x in lines[begin + 1:end]], [x + "\n" for x in want],
                                               f"{doc} (references table)", "trainbench list references"))
    return 1


if __name__ == "__main__":
    sys.exit(main())
