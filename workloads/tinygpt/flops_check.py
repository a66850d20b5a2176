#!/usr/bin/python3
"""flops_check: trainbench's FLOPs per step against PyTorch's own count of one
training step of the tinygpt model (docs/workload.md "Checking the FLOPs").

PyTorch counts what the step executes: torch.utils.flop_counter.FlopCounterMode
(PyTorch 2.1 and later) counts every matrix multiply (2·m·n·k) and the fused
attention kernels; PyTorch 1.13 (Debian 12's python3-torch) has no FlopCounterMode,
and there the autograd profiler's FLOP estimates of the matrix multiplies
(torch.profiler with_flops, aten::mm/addmm/bmm/baddbmm: 2·m·n·k too) are used.
Neither counts element-wise work (LayerNorm, GELU, softmax, the optimizer).

From the count this script derives what each FLOPs convention should give,
without any formula of trainbench's:
  A  = the attention core's forward (QKᵀ and AV, full s x s: neither counter
       halves it for a causal mask). With written-out attention the count holds
       A forward and 2A backward; FlopCounterMode counts a fused (SDPA) backward
       as 2.5A, because flash attention recomputes QKᵀ there.
  G  = every other matrix multiply of the step (the linear layers and the LM head,
       forward and backward = 3x forward).
  H  = the LM head alone: the same step of the model with 0 layers.
  model FLOPs, full attention   = G + 3A
  model FLOPs, causal attention = G + 1.5A
  with full recompute           = 4/3 (G + 3A - H) + H (each layer's forward runs twice)
and compares them with trainbench's FLOPs per step, read from `trainbench plan
--json` (--plan-json): exit 0 when every convention matches to 1e-9, 1 otherwise.
"""

import argparse
import json
import math
import os
import sys

# The one place that names trainbench's FLOPs conventions (update it when they are renamed):
# what each one counts, in the terms of the docstring above.
CONVENTIONS = {
    "megatron-2024": "full",      # Megatron-LM 2024: full s^2 attention, no recompute
    "megatron-2025-03": "causal",  # Megatron-LM since 2025-03-06: causal attention halved
    "nemo-2025-08": "causal",     # NeMo's gpt3 formula since 2025-08-09 (f = 4h, MHA: the shapes here)
    "nemo-2024": "full",          # NeMo's gpt3 formula before 2025-08-09: full s^2 attention
    "narayanan2021": "recompute",  # Narayanan et al. 2021: full attention, full activation recompute
}
# Conventions with no formula of the shape: not compared, for this reason.
NOT_COMPARED = {"gpu-recipes": "a table of constants per catalog model; no formula of the shape"}

EXPECTED = {
    "full": "G + 3A (full attention)",
    "causal": "G + 1.5A (causal attention)",
    "recompute": "4/3 (G + 3A - H) + H (recompute)",
}
TOLERANCE = 1e-9

MATMUL_OPS = ("mm", "addmm", "bmm", "baddbmm")


def parse_args(argv):
    p = argparse.ArgumentParser(prog="flops_check", description=__doc__.split("\n\n")[0])
    p.add_argument("--plan-json", required=True, help="output of `trainbench plan RECIPE --json` for this shape")
    p.add_argument("--layers", type=int, required=True)
    p.add_argument("--hidden", type=int, required=True)
    p.add_argument("--heads", type=int, required=True)
    p.add_argument("--ffn", type=int, required=True)
    p.add_argument("--seq-len", type=int, required=True)
    p.add_argument("--vocab", type=int, required=True, help="the tokenizer's vocabulary")
    p.add_argument("--pad-vocab-to", type=int, default=1, help="as train.py (default 1)")
    p.add_argument("--batch", type=int, required=True, help="sequences in the step (the plan's global batch)")
    p.add_argument("--attention", choices=["math", "sdpa", "all"], default="all",
                   help="attention to count (all: every kind this PyTorch has; default)")
    p.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    p.add_argument("--precision", choices=["fp32", "bf16"], default="fp32")
    p.add_argument("--counter", choices=["auto", "flopcounter", "profiler"], default="auto",
                   help="auto: FlopCounterMode where PyTorch has it, else the profiler")
    p.add_argument("--json", metavar="FILE", help="also write the comparison as JSON")
    return p.parse_args(argv)


def op_name(op):
    """'mm' of aten.mm.default / aten::mm; the op's name without namespace and overload."""
    text = str(op)
    text = text.split("::")[-1]
    if text.startswith("aten."):
        text = text[len("aten."):]
    return text.split(".")[0]


def classify(name):
    if name in MATMUL_OPS:
        return "matmul_bmm" if name in ("bmm", "baddbmm") else "matmul"
    if "attention" in name:
        return "attention_backward" if "backward" in name else "attention_forward"
    return "other"


def count_step(torch, counter, model, tokens, vocab_rows, precision, device):
    """{op name: FLOPs} of one training step (forward, loss, backward, optimizer step)."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    inputs, targets = tokens[:, :-1], tokens[:, 1:]

    def step():
        optimizer.zero_grad(set_to_none=True)
        if precision == "bf16":
            with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
                logits = model(inputs)
        else:
            logits = model(inputs)
        loss = torch.nn.functional.cross_entropy(logits.float().reshape(-1, vocab_rows), targets.reshape(-1))
        loss.backward()
        optimizer.step()

    counts = {}
    if counter == "flopcounter":
        from torch.utils.flop_counter import FlopCounterMode
        with FlopCounterMode(display=False) as fc:
            step()
        for op, flops in fc.get_flop_counts().get("Global", {}).items():
            counts[op_name(op)] = counts.get(op_name(op), 0) + int(flops)
    else:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU], with_flops=True) as prof:
            step()
        for event in prof.events():
            name = op_name(event.name)
            if event.flops and name in MATMUL_OPS:  # the profiler also estimates element-wise ops: left out
                counts[name] = counts.get(name, 0) + int(event.flops)
    return counts


def decompose(counts, attention):
    """G, A and the counted attention backward of one step's op counts."""
    by = {"matmul": 0, "matmul_bmm": 0, "attention_forward": 0, "attention_backward": 0, "other": 0}
    for name, flops in counts.items():
        by[classify(name)] += flops
    if attention == "math":
        # QKᵀ and AV are the only batched matmuls: forward A, backward 2A (two products each)
        a = by["matmul_bmm"] / 3.0
        return {"total": sum(counts.values()), "G": float(by["matmul"]), "A": a, "A_backward": 2 * a,
                "other": by["other"]}
    return {"total": sum(counts.values()), "G": float(by["matmul"] + by["matmul_bmm"]),
            "A": float(by["attention_forward"]), "A_backward": float(by["attention_backward"]),
            "other": by["other"]}


def expected_values(parts, head):
    g, a = parts["G"], parts["A"]
    model_full = g + 3 * a
    return {"full": model_full, "causal": g + 1.5 * a, "recompute": 4.0 / 3.0 * (model_full - head) + head}


def plan_flops(plan):
    rows = {}
    for row in plan.get("flops", []):
        if row.get("per_step") is not None:
            rows[row["convention"]] = float(row["per_step"])
    return rows


def compare(plan, parts, head, counter_label):
    """Rows of the comparison and whether every compared convention matched."""
    trainbench = plan_flops(plan)
    expected = expected_values(parts, head)
    rows, ok = [], True
    for convention, kind in CONVENTIONS.items():
        if convention not in trainbench:
            rows.append({"convention": convention, "status": "MISSING",
                         "message": f"trainbench plan --json has no FLOPs for '{convention}' (it has "
                                    f"{', '.join(sorted(trainbench)) or 'none'}): update CONVENTIONS"})
            ok = False
            continue
        ratio = trainbench[convention] / expected[kind]
        good = abs(ratio - 1.0) <= TOLERANCE
        ok = ok and good
        rows.append({"convention": convention, "counts": kind, "trainbench_per_step": trainbench[convention],
                     "expected_from_count": expected[kind], "expected_rule": EXPECTED[kind], "ratio": ratio,
                     "raw_count_over_trainbench": parts["total"] / trainbench[convention],
                     "status": "ok" if good else "DIFF", "counter": counter_label})
    for convention, why in NOT_COMPARED.items():
        rows.append({"convention": convention, "status": "not compared", "message": why})
    return rows, ok


def print_rows(rows):
    print(f"  {'convention':<14} {'trainbench/step':>16} {'from the count':>16} {'ratio':>12}  rule")
    for r in rows:
        if "ratio" in r:
            print(f"  {r['convention']:<14} {r['trainbench_per_step']:>16.6e} {r['expected_from_count']:>16.6e} "
                  f"{r['ratio']:>12.9f}  {r['expected_rule']}  {r['status']}")
        else:
            print(f"  {r['convention']:<14} {r['status']}: {r['message']}")


def check_plan_matches(plan, args, parameters):
    """The plan must be for the same shape as the model counted here."""
    problems = []
    if plan.get("seq_length") != args.seq_len:
        problems.append(f"sequence length {plan.get('seq_length')} vs {args.seq_len}")
    if plan.get("batch", {}).get("global") != args.batch:
        problems.append(f"global batch {plan.get('batch', {}).get('global')} vs {args.batch}")
    if plan.get("parameters") is not None and int(plan["parameters"]) != parameters:
        problems.append(f"{int(plan['parameters'])} parameters vs the model's {parameters}")
    if problems:
        raise SystemExit(f"flops_check: error: the plan is not for this shape: {'; '.join(problems)}")


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    with open(args.plan_json, encoding="utf-8") as f:
        plan = json.load(f)
    import torch
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from model import TinyGPT, padded_vocab

    have_counter = _has_flop_counter()
    counter = args.counter if args.counter != "auto" else ("flopcounter" if have_counter else "profiler")
    if counter == "flopcounter" and not have_counter:
        raise SystemExit(f"flops_check: error: PyTorch {torch.__version__} has no torch.utils.flop_counter")
    has_sdpa = hasattr(torch.nn.functional, "scaled_dot_product_attention")
    kinds = ["math", "sdpa"] if args.attention == "all" else [args.attention]
    if "sdpa" in kinds and not has_sdpa:
        if args.attention == "sdpa":
            raise SystemExit(f"flops_check: error: PyTorch {torch.__version__} has no scaled_dot_product_attention")
        kinds.remove("sdpa")
    device = torch.device(args.device)
    rows_v = padded_vocab(args.vocab, args.pad_vocab_to)
    label = ("FlopCounterMode" if counter == "flopcounter" else "the autograd profiler's FLOP estimates") + \
        f" (PyTorch {torch.__version__}, {device.type}, {args.precision})"
    g = torch.Generator().manual_seed(0)
    tokens = torch.randint(0, args.vocab, (args.batch, args.seq_len + 1), generator=g).to(device)

    def model_of(layers, attention):
        torch.manual_seed(0)
        m = TinyGPT(layers, args.hidden, args.heads, args.ffn, args.seq_len, rows_v, attention).to(device)
        m.mask = m.mask.to(device)
        return m

    head_counts = count_step(torch, counter, model_of(0, "math"), tokens, rows_v, args.precision, device)
    head = float(sum(head_counts.values()))
    report = {"counter": label, "shape": vars(args), "head": head, "attention": {}}
    ok = True
    print(f"flops_check: one training step of {args.batch} x {args.seq_len} tokens, {args.layers} layers, hidden "
          f"{args.hidden}, {args.heads} heads, ffn {args.ffn}, vocab {args.vocab} ({rows_v} rows), counted by {label}")
    for attention in kinds:
        model = model_of(args.layers, attention)
        check_plan_matches(plan, args, sum(p.numel() for p in model.parameters()))
        counts = count_step(torch, counter, model, tokens, rows_v, args.precision, device)
        parts = decompose(counts, attention)
        if attention == "sdpa" and parts["A"] == 0:
            # e.g. PyTorch 2.x on the CPU: its flash kernel for the CPU has no FLOP formula
            print(f"attention sdpa: NOT COUNTED: the counter has no formula for the attention kernel this "
                  f"PyTorch ran on {device.type} (ops counted: {', '.join(sorted(counts))}); not compared")
            report["attention"][attention] = {"counts": counts, "parts": parts, "rows": [], "not_counted": True}
            continue
        rows, good = compare(plan, parts, head, label)
        ok = ok and good
        backward = parts["A_backward"] / parts["A"] if parts["A"] else float("nan")
        print(f"attention {attention}: counted {parts['total']:.6e} = G {parts['G']:.6e} + A {parts['A']:.6e} + "
              f"attention backward {parts['A_backward']:.6e} ({backward:.2f} x A); LM head alone H {head:.6e}")
        if parts["other"]:
            print(f"  (also {parts['other']:.6e} FLOPs of other ops, left out)")
        print_rows(rows)
        raw = {r["convention"]: r["raw_count_over_trainbench"] for r in rows if "raw_count_over_trainbench" in r}
        print("  the raw count over trainbench's: " + ", ".join(f"{k} {v:.6f}" for k, v in raw.items()))
        if attention == "sdpa" and counter == "flopcounter" and not math.isclose(backward, 2.5, rel_tol=1e-12):
            print(f"  DIFF: FlopCounterMode counted the fused attention backward as {backward:.4f} x its forward, "
                  "not 2.5 (forward 2 products, backward 5 with the recompute of QKᵀ)")
            ok = False
        if attention == "math" and parts["total"] != round(parts["G"] + 3 * parts["A"]):
            ok = False
        report["attention"][attention] = {"counts": counts, "parts": parts, "rows": rows}
    report["ok"] = ok
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=2)
    print("flops_check: " + ("every convention matches the count" if ok else "MISMATCH (see DIFF above)"))
    return 0 if ok else 1


def _has_flop_counter():
    try:
        import torch.utils.flop_counter  # noqa: F401
        return True
    except ImportError:
        return False


if __name__ == "__main__":
    sys.exit(main())
