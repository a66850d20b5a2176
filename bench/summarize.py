#!/usr/bin/env python3
"""Turns bench/run's hyperfine --export-json files into the markdown tables of docs/performance.md.
   summarize.py RESULTS_DIR INPUT_DIR"""
import json, os, re, sys

res, inp = sys.argv[1], sys.argv[2]


def load(name):
    p = os.path.join(res, name + ".json")
    try:
        return json.load(open(p))["results"][0]
    except (OSError, ValueError, KeyError, IndexError):  # missing, or the command failed
        return None


def kv(fname):
    d = {}
    p = os.path.join(res, fname)
    if os.path.exists(p):
        for line in open(p):
            k, _, v = line.rstrip("\n").partition(" ")
            d[k] = v
    return d


meta, rss, slurm = kv("meta.txt"), kv("rss.txt"), kv("slurm.txt")
names = sorted(f[:-5] for f in os.listdir(res) if f.endswith(".json") and load(f[:-5]))


def ms(r):
    return f"{r['median'] * 1e3:.1f} | {r['min'] * 1e3:.1f}..{r['max'] * 1e3:.1f} | {len(r['times'])}"


def status(ok):
    return "met" if ok else "**missed**"


print(f"Machine: {meta.get('nproc')} cores, {meta.get('cpu')}; load average {meta.get('load_before')} "
      f"before, {meta.get('load_after')} after; {meta.get('date')}, commit {meta.get('commit')}.\n")

print("| what | median ms | min..max ms | runs | target |")
print("|---|---:|---:|---:|---|")
rows = [("start_version", "`trainbench --version`", lambda r: f"< 5 ms: {status(r['median'] < 0.005)}"),
        ("start_validate_all", "`trainbench validate --all recipes/`", lambda r: f"< 50 ms: {status(r['median'] < 0.05)}")]
rows += [(n, "`render " + n[len("render_"):].replace("__", "/") + ".yaml --stdout`", lambda r: "")
         for n in names if n.startswith("render_")]
rows += [("sweep_0100_dry", "`sweep` 100 points `--dry-run`", lambda r: ""),
         ("sweep_1000_dry", "`sweep` 1,000 points `--dry-run`", lambda r: f"< 2 s: {status(r['median'] < 2)}"),
         ("sweep_10000_dry", "`sweep` 10,000 points `--dry-run`", lambda r: ""),
         ("sweep_1000_render", "`sweep` 1,000 points `--dry-run -o DIR` (renders every point)", lambda r: ""),
         ("status_poll_trainbench", f"`trainbench status` over {slurm.get('submit_total_s', '? ').split()[0]} tracked Slurm runs", lambda r: ""),
         ("status_poll_squeue", "`squeue` of the same jobs (the scheduler's own floor)", lambda r: "")]
for name, label, target in rows:
    r = load(name)
    if r:
        print(f"| {label} | {ms(r)} | {target(r)} |")

labels = {"dllogger": "DLLogger", "tfevents": "TensorBoard (CRC checked)", "megatron": "Megatron", "fairseq": "fairseq json"}
targets = {"dllogger": 1000, "tfevents": 1000}
parse = {}
for n in names:
    m = re.match(r"parse_(\w+?)_(\d{4})_(\w+)$", n)
    if m:
        parse.setdefault((m.group(1), int(m.group(2))), {})[m.group(3)] = load(n)


def size_of(fmt, mb):
    f = os.path.join(inp, f"{fmt}-{mb}") if fmt != "tfevents" else os.path.join(inp, f"events.out.tfevents.1727486460.bench-{mb}")
    return os.path.getsize(f) / 1e6 if os.path.exists(f) else mb * 1.048576


print("\n| format | size MB | tool | median s | MB/s median | MB/s min..max | runs | peak RSS MB | target |")
print("|---|---:|---|---:|---:|---:|---:|---:|---|")
for (fmt, mb), tools in sorted(parse.items()):
    size = size_of(fmt, mb)
    for tool in ("trainbench", "cat", "python", "jq"):
        r = tools.get(tool)
        if not r:
            continue
        mbs = size / r["median"]
        k = f"parse_{fmt}_{mb:04d}_{tool}"
        peak = f"{int(rss[k]) / 1024:.0f}" if k in rss and rss[k] else "–"
        tgt = ""
        if tool == "trainbench" and fmt in targets and mb >= 100:
            tgt = f"≥ 1000 MB/s: {status(mbs >= targets[fmt])}"
        print(f"| {labels[fmt]} | {size:.0f} | {tool} | {r['median']:.3f} | {mbs:.0f} | "
              f"{size / r['max']:.0f}..{size / r['min']:.0f} | {len(r['times'])} | {peak} | {tgt} |")
for k in ("parse_dllogger_0100_onetag",):
    if k in rss and rss[k]:
        print(f"\nPeak RSS of `parse dllogger-100 --tags step_time_s` (one series kept): {int(rss[k]) / 1024:.0f} MB")

print("\nGrowth with input size (trainbench parse): time per MB should be constant (linear time), peak RSS "
      "should follow the number of points kept, not the bytes read.\n")
print("| format | size MB | median s | ms per MB | peak RSS MB |")
print("|---|---:|---:|---:|---:|")
for (fmt, mb), tools in sorted(parse.items()):
    r = tools.get("trainbench")
    if r:
        size = size_of(fmt, mb)
        k = f"parse_{fmt}_{mb:04d}_trainbench"
        peak = f"{int(rss[k]) / 1024:.0f}" if rss.get(k) else "–"
        print(f"| {labels[fmt]} | {size:.0f} | {r['median']:.3f} | {r['median'] * 1e3 / size:.2f} | {peak} |")

if slurm:
    print("\nStatus poll: " + ", ".join(f"{k} = {v}" for k, v in slurm.items()))
    calls = int(slurm.get("calls_squeue", "-1"))
    print(f"\nOne scheduler query per poll: {status(calls == 1)} ({calls} squeue call(s) for one `trainbench status`).")
