#!/usr/bin/env python3
"""Markdown table of bench/peers.sh results: each trainbench figure beside its peer."""
import json
import os
import sys

res = sys.argv[1]


def median(name):
    path = os.path.join(res, name + ".json")
    if not os.path.exists(path):
        return None
    r = json.load(open(path))["results"][0]
    return r["median"], r["min"], r["max"], len(r["times"]), r.get("user"), r.get("system")


meta = dict(line.split(" ", 1) for line in open(os.path.join(res, "meta.txt")).read().splitlines() if " " in line)
rss = {}
if os.path.exists(os.path.join(res, "rss.txt")):
    for line in open(os.path.join(res, "rss.txt")):
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            rss[parts[0]] = int(parts[1]) / 1024.0
mb = int(meta.get("bytes", "0")) / 1e6

print(f"Measured {meta.get('date')} at commit {meta.get('commit')}; load average {meta.get('load_before')} "
      f"before, {meta.get('load_after')} after; log {mb:.1f} MB.\n")
print("| work | tool | median s | min..max s | runs | user+sys s | MB/s (median) | peak RSS MiB | vs peer |")
print("|---|---|---:|---:|---:|---:|---:|---:|---|")
rows = [
    ("one job rendered (seed 001: GPT-3 5B, 2 nodes)", "NeMo launcher 23.07 dry run (`NEMO_LAUNCHER_DEBUG=1`)", "launcher_render", False, None),
    ("", "`trainbench render -o`", "render_seed001", False, "launcher_render"),
    ("164 MB-class DLLogger, MFU report", "gpu-recipes tool (python3)", "gpu_recipes_tool", True, None),
    ("", "`trainbench report --flops gpu-recipes`", "report_gpu_recipes", True, "gpu_recipes_tool"),
    ("", "`trainbench report --flops megatron`", "report_megatron", True, "gpu_recipes_tool"),
    ("", "jq (step times only)", "jq_step_times", True, None),
    ("", "cat", "cat_log", True, None),
    ("same log, `parse --json`", "`trainbench parse --json`", "parse_json_160", True, None),
    ("1 GiB DLLogger, `parse --json`", "`trainbench parse --json`", "parse_json_1024", False, None),
    ("1,000 sweep points to disk", "Ramble `workspace setup --dry-run`", "ramble_1000_setup", False, None),
    ("", "`trainbench sweep --dry-run -o` (replacing the previous tree)", "sweep_1000_render", False, "ramble_1000_setup"),
    ("", "`trainbench sweep --dry-run -o` (a new directory)", "sweep_1000_new_dir", False, "ramble_1000_setup"),
    ("10,000 sweep points to disk", "`trainbench sweep --dry-run -o`", "sweep_10000_render", False, None),
    ("Megatron-Bridge log, dgxc window", "dgxc-benchmarking `pretrain_log_parser.py` (python3)", "dgxc_parser",
     "bytes_megatron-bridge", None),
    ("", "`trainbench report --window dgxc`", "report_bridge", "bytes_megatron-bridge", "dgxc_parser"),
    ("1 GiB Megatron-Bridge log", "`trainbench report --window dgxc`", "report_bridge_1024", False, None),
    ("TorchTitan log (coloured)", "`trainbench report --flops torchtitan-2026-08`", "report_titan",
     "bytes_torchtitan", None),
    ("1 GiB TorchTitan log", "`trainbench report`", "report_titan_1024", False, None),
    ("MLPerf `:::MLLOG` log", "MLCommons `ruleset_600.py` (python3)", "mlperf_ruleset_parser", "bytes_mlperf", None),
    ("", "`trainbench parse --format mlperf --json`", "parse_mlperf", "bytes_mlperf", "mlperf_ruleset_parser"),
    ("1 GiB MLPerf log", "`trainbench parse --json`", "parse_mlperf_1024", False, None),
]
for work, tool, key, is_log, peer in rows:
    m = median(key)
    r = rss.get(key)
    if not m and r is None:
        continue
    if m:
        med, lo, hi, n, user, system = m
        cpu = f"{user + system:.3f}" if user is not None else "-"
        size = int(meta.get(is_log, "0")) / 1e6 if isinstance(is_log, str) else mb
        speed = f"{size / med:.0f}" if is_log else "-"
        ratio = "-"
        pm = median(peer) if peer else None
        if pm:
            ratio = f"{pm[0] / med:.1f}x faster"
        print(f"| {work} | {tool} | {med:.3f} | {lo:.3f}..{hi:.3f} | {n} | {cpu} | {speed} | "
              f"{'-' if r is None else f'{r:.1f}'} | {ratio} |")
    else:
        print(f"| {work} | {tool} | - | - | - | - | - | {r:.1f} | - |")
