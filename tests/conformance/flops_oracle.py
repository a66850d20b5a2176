#!/usr/bin/env python3
"""FLOPs conventions against the upstream functions that define them, run on the same shapes.

For each shipped catalog model in CATALOG_RUNS (GPT-3 175B at TP 4 and 8, Llama 3.1 8B/70B/405B,
Mixtral 8x7B and 8x22B, Qwen3-30B-A3B and 235B-A22B, DeepSeek-V3: recipes/catalog/models/*.yaml,
read by this script and by trainbench alike) and two synthetic MoE models, this script
  1. asks `trainbench flops --model NAME --seq S --tp T --json` for its FLOPs per sample under
     every dated convention (a synthetic model is written as a catalog model to a temporary
     directory given with --recipes), and
  2. imports the unmodified upstream files in shared/reference/ (README "Today's workloads")
     with stand-ins for the modules they import but the FLOPs code never uses (a catch-all
     import finder) or that are not in the reference (NeMo's vocabulary map, Megatron's
     vocabulary padding, torch.nn's Embedding), calls each upstream FLOPs function on the shape
     with batch 1, and compares.
Nothing upstream is copied into the repository: the functions run from shared/reference.

    flops_oracle.py [--reference DIR] [--binary PATH] [-v]

Exit 0: every convention equals its upstream function on every shape (relative difference
<= 1e-15, a few units in the last place; the printed maximum is what was seen). Exit 1: a difference, with the shape, the
convention and both numbers. Exit 125: shared/reference is absent (the test is skipped).
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import pathlib
import subprocess
import sys
import tempfile
import types

HERE = pathlib.Path(__file__).resolve().parent
TOLERANCE = 1e-15  # a few units in the last place: the same number, as two float orders compute it

# ---------------------------------------------------------------- shapes (catalog model keys)
# The shipped catalog models, read from recipes/catalog/models/<name>.yaml (each file cites the
# published configuration it comes from), at the TP given here (Megatron pads the vocabulary with
# it) and the model's own sequence length. trainbench reads the same files.
CATALOG = HERE.parents[1] / "recipes"
CATALOG_RUNS = [("gpt3-175b", 4), ("gpt3-175b", 8), ("llama3.1-8b", 1), ("llama3.1-70b", 4),
                ("llama3.1-405b", 8), ("mixtral-8x7b", 1), ("mixtral-8x22b", 2), ("qwen3-30b-a3b", 1),
                ("qwen3-235b-a22b", 4), ("deepseek-v3", 1)]
# catalog::Model's defaults for keys a model file leaves out (include/trainbench/catalog.hpp).
CATALOG_DEFAULTS = dict(activation="gelu", position="learned", norm="layernorm", linear_bias=True,
                        tied_embeddings=True, seq_length=2048, attention="mha", moe_layer_freq=1)
# Two synthetic models exercise what no published one does (moe_layer_freq 2, tied embeddings
# with shared experts and MTP, MLA without a q LoRA rank); they are written to a temporary
# catalog directory given to trainbench with --recipes.
LLAMA = dict(activation="swiglu", position="rope", norm="rmsnorm", linear_bias=False, tied_embeddings=False)
SYNTHETIC = [
    dict(name="testmoe-every2", family="qwen3", layers=12, hidden=1024, heads=16, kv_heads=4, ffn=4096,
         vocab=32000, seq_length=2048, tp=2, experts=16, moe_top_k=4, moe_ffn=512, moe_shared_experts=2,
         moe_shared_ffn=512, moe_layer_freq=2, mtp_layers=2,
         **dict(LLAMA, tied_embeddings=True)),
    dict(name="testmla-noqlora", family="deepseek", layers=8, hidden=2048, heads=16, ffn=8192, vocab=102400,
         seq_length=4096, tp=1, experts=64, moe_top_k=6, moe_ffn=1408, moe_shared_experts=2, moe_shared_ffn=1408,
         moe_dense_layers=1, attention="mla", kv_lora_rank=512, qk_head_dim=128, qk_rope_head_dim=64,
         v_head_dim=128, qk_norm=True, **LLAMA),
]


def catalog_shape(name, tp):
    """A shipped catalog model as the upstream calls below read it: its file, catalog defaults filled in."""
    import yaml  # PyYAML (Debian python3-yaml), only here: the synthetic shapes need none

    model = yaml.safe_load((CATALOG / "catalog" / "models" / f"{name}.yaml").read_text())
    shape = dict(CATALOG_DEFAULTS, **model, tp=tp, catalog=True)
    shape.setdefault("ffn", 4 * shape["hidden"])
    if shape.get("experts"):
        shape.setdefault("moe_ffn", shape["ffn"])
    return shape


def all_shapes():
    return [catalog_shape(name, tp) for name, tp in CATALOG_RUNS] + [dict(s, catalog=False) for s in SYNTHETIC]


def g(shape, key, default=0):
    return shape.get(key, default)


def moe_pattern(shape):
    if not g(shape, "experts"):
        return [0] * shape["layers"]
    freq = max(g(shape, "moe_layer_freq", 1), 1)
    return [1 if i >= g(shape, "moe_dense_layers") and i % freq == 0 else 0 for i in range(shape["layers"])]


def kv_channels(shape):
    return g(shape, "head_dim") or shape["hidden"] // shape["heads"]


def shared_size(shape):
    return g(shape, "moe_shared_experts") * (g(shape, "moe_shared_ffn") or g(shape, "moe_ffn"))


def padded(vocab, divisor, tp):  # Megatron's vocabulary padding (not in the reference: a stand-in)
    multiple = divisor * tp
    return -(-vocab // multiple) * multiple


# ---------------------------------------------------------------- importing upstream files
sys.path.insert(0, str(HERE))
from upstream_stubs import load_upstream  # noqa: E402  (the stand-in import machinery)


class Silu:  # torch.nn.functional.silu, compared by identity only
    pass


class Embedding:  # torch.nn.Embedding, checked with isinstance only
    def __init__(self, *params):
        self.params = list(params)

    def parameters(self):
        return iter(self.params)


class Param:
    def __init__(self, n):
        self.n = n

    def numel(self):
        return self.n


def vocab_padding_standin(vocab_size, make_vocab_size_divisible_by, tensor_model_parallel_size, logging_enabled=True):
    return padded(vocab_size, make_vocab_size_divisible_by, tensor_model_parallel_size)


def quiet_logger(name):
    logger = logging.getLogger(name)
    logger.propagate = False
    logger.addHandler(logging.NullHandler())
    return logger


def load_all(ref: pathlib.Path):
    ns = types.SimpleNamespace
    mods = {}
    mega = {"megatron.training.utils": {"is_hybrid_model": lambda args: False},
            "megatron.core.models.gpt.experimental_attention_variant_module_specs":
                {"is_linear_attention_variant": lambda v: False, "is_gated_delta_net_variant": lambda v: False}}
    training = "megatron.training.training"
    mods["megatron-2025-03"] = load_upstream(ref / "Megatron-LM@d98e8a64" / "megatron/training/training.py",
                                             training, mega)
    mods["megatron-2024"] = load_upstream(ref / "Megatron-LM@fdfcef87" / "megatron/training/training.py", training)
    vocab_map = {"gpt3": 51200, "llama2": 32000, "llama3": 128256, "nemotron": 256000, "bert": 29000,
                 "mixtral": 32000}  # perf_metrics_utils.LLM_VOCAB_SIZE_MAP (metrics.md §2; not in the reference)
    nemo = {"nemo.collections.common.parts.perf_metrics_utils": {"LLM_VOCAB_SIZE_MAP": vocab_map}}
    mods["nemo-2025-08"] = load_upstream(ref / "NeMo@8cfedd72/nemo/utils/flops_formulas.py",
                                         "nemo.utils.flops_formulas", nemo)
    mods["nemo-2024"] = load_upstream(ref / "NeMo@539b81ec/nemo/utils/flops_formulas.py",
                                      "nemo.utils.flops_formulas", nemo)
    bridge = {"megatron.bridge.utils.vocab_utils": {"calculate_padded_vocab_size": vocab_padding_standin},
              "megatron.bridge.peft.lora": {"LoRA": type("LoRA", (), {})},
              "torch.nn.functional": {"silu": Silu},
              "megatron.core.models.gpt.experimental_attention_variant_module_specs":
                  {"is_gated_delta_net_variant": lambda v: False}}
    flop_utils = "src/megatron/bridge/training/utils/flop_utils.py"
    mods["megatron-bridge-2026@067f987d"] = load_upstream(ref / "Megatron-Bridge@067f987d" / flop_utils,
                                                          "megatron.bridge.training.utils.flop_utils", bridge)
    mods["megatron-bridge-2026@06f25c22"] = load_upstream(ref / "Megatron-Bridge@06f25c22" / flop_utils,
                                                          "megatron.bridge.training.utils.flop_utils", bridge)
    titan = {"torch.nn": {"Embedding": Embedding}, "torch": {"nn": ns(Embedding=Embedding)},
             "torchtitan.tools.logging": {"logger": quiet_logger("torchtitan")}}
    mods["torchtitan-2026-08"] = load_upstream(ref / "torchtitan@b5bcd76c/torchtitan/models/utils.py",
                                               "torchtitan.models.utils", titan)
    mods["torchtitan-2026-02"] = load_upstream(ref / "torchtitan@v0.2.2/torchtitan/models/utils.py",
                                               "torchtitan.models.utils", titan)
    data_defs = "src/utils/training_metrics/src/data_defs.py"
    mods["gpu-recipes-2025-05"] = load_upstream(ref / "gpu-recipes@2e1fd5ef" / data_defs, "data_defs")
    mods["gpu-recipes-2024-10"] = load_upstream(ref / "gpu-recipes@24ba6df" / data_defs, "data_defs")
    return mods


# ---------------------------------------------------------------- the upstream calls
def megatron_args(shape):
    mla = g(shape, "attention", "mha") == "mla"
    experts = g(shape, "experts")
    dense_first = g(shape, "moe_dense_layers")
    return types.SimpleNamespace(
        seq_length=shape["seq_length"], hidden_size=shape["hidden"], num_layers=shape["layers"],
        num_attention_heads=shape["heads"], kv_channels=kv_channels(shape) if not mla else shape["hidden"] // shape["heads"],
        group_query_attention=g(shape, "kv_heads") not in (0, shape["heads"]),
        num_query_groups=g(shape, "kv_heads") or None, ffn_hidden_size=shape["ffn"],
        swiglu=shape["activation"] == "swiglu",
        num_experts=experts or None, moe_router_topk=g(shape, "moe_top_k") or 2,
        moe_layer_freq=moe_pattern(shape) if dense_first else g(shape, "moe_layer_freq", 1),
        moe_ffn_hidden_size=g(shape, "moe_ffn") or None,
        moe_shared_expert_intermediate_size=shared_size(shape) or None, moe_latent_size=None,
        mtp_num_layers=g(shape, "mtp_layers") or None,
        multi_latent_attention=mla, q_lora_rank=g(shape, "q_lora_rank") or None,
        kv_lora_rank=g(shape, "kv_lora_rank"), qk_head_dim=g(shape, "qk_head_dim"),
        qk_pos_emb_head_dim=g(shape, "qk_rope_head_dim"), v_head_dim=g(shape, "v_head_dim"),
        attention_output_gate=False, experimental_attention_variant=None,
        padded_vocab_size=padded(shape["vocab"], 128, shape["tp"]))


def bridge_cfg(shape):
    a = megatron_args(shape)
    model = types.SimpleNamespace(
        kv_channels=a.kv_channels, num_attention_heads=a.num_attention_heads,
        num_query_groups=a.num_query_groups if a.group_query_attention else None, hidden_size=a.hidden_size,
        num_layers=a.num_layers, seq_length=a.seq_length, ffn_hidden_size=a.ffn_hidden_size,
        num_moe_experts=a.num_experts, moe_layer_freq=a.moe_layer_freq, moe_router_topk=a.moe_router_topk,
        mtp_num_layers=a.mtp_num_layers, moe_ffn_hidden_size=a.moe_ffn_hidden_size,
        moe_shared_expert_intermediate_size=a.moe_shared_expert_intermediate_size,
        gated_linear_unit=a.swiglu, activation_func=Silu if a.swiglu else object(),
        multi_latent_attention=a.multi_latent_attention, q_lora_rank=a.q_lora_rank, kv_lora_rank=a.kv_lora_rank,
        qk_head_dim=a.qk_head_dim, qk_pos_emb_head_dim=a.qk_pos_emb_head_dim, v_head_dim=a.v_head_dim,
        vocab_size=shape["vocab"], make_vocab_size_divisible_by=128, tensor_model_parallel_size=shape["tp"])
    return types.SimpleNamespace(model=model)


def nemo_family(shape):
    """NeMo's callback takes the formula whose key is in the model's name; trainbench looks in the
    catalog family too (a model named otherwise, of family qwen3, is counted by NeMo's qwen3)."""
    words = shape["name"].replace("-", "").replace(".", "") + " " + shape["family"]
    for key in ("gpt3", "llama3", "mixtral", "qwen3", "deepseekv3"):
        if key in words:
            return key
    return None


def nemo_value(module, shape):
    family = nemo_family(shape)
    if family is None:
        return None
    cfg = module.FLOPSConfig(
        gbs=1, enc_seq_len=shape["seq_length"], hs=shape["hidden"], layers=shape["layers"], ffn_hs=shape["ffn"],
        attention_heads=shape["heads"], moe_router_topk=g(shape, "moe_top_k") or None,
        query_groups=g(shape, "kv_heads") or shape["heads"], vocab_size=shape["vocab"],
        q_lora_rank=g(shape, "q_lora_rank") or None, kv_lora_rank=g(shape, "kv_lora_rank") or None,
        qk_head_dim=g(shape, "qk_head_dim") or None, qk_pos_emb_head_dim=g(shape, "qk_rope_head_dim") or None,
        v_head_dim=g(shape, "v_head_dim") or None, moe_layer_freq=moe_pattern(shape),
        moe_shared_expert_intermediate_size=shared_size(shape) or None, moe_ffn_hidden_size=g(shape, "moe_ffn") or None,
        mtp_num_layers=g(shape, "mtp_layers") or None)
    return getattr(module, family)(cfg)


# TorchTitan counts the parameters of its modules; this stand-in model holds parameters named
# and sized as torchtitan's llama3/qwen3/deepseek_v3 modules hold them (model.py of each).
def titan_model(shape, expert_key):
    h, n, d = shape["hidden"], shape["heads"], kv_channels(shape)
    kv = g(shape, "kv_heads") or n
    bias = g(shape, "linear_bias", False)
    norm = h if shape["norm"] == "rmsnorm" else 2 * h
    gemms = 3 if shape["activation"] == "swiglu" else 2
    named = [("tok_embeddings.weight", shape["vocab"] * h)]
    if shape["position"] == "learned":
        named.append(("pos_embeddings.weight", shape["seq_length"] * h))
    for i, moe in enumerate(moe_pattern(shape)):
        p = f"layers.{i}."
        if g(shape, "attention", "mha") == "mla":
            ql, kvl = g(shape, "q_lora_rank"), g(shape, "kv_lora_rank")
            qk, pe, v = shape["qk_head_dim"], shape["qk_rope_head_dim"], shape["v_head_dim"]
            if ql:
                named += [(p + "attention.wq_a.weight", h * ql), (p + "attention.q_norm.weight", ql),
                          (p + "attention.wq_b.weight", ql * n * (qk + pe))]
            else:
                named.append((p + "attention.wq.weight", h * n * (qk + pe)))
            named += [(p + "attention.wkv_a.weight", h * (kvl + pe)), (p + "attention.kv_norm.weight", kvl),
                      (p + "attention.wkv_b.weight", kvl * n * (qk + v)), (p + "attention.wo.weight", n * v * h)]
        else:
            named += [(p + "attention.wq.weight", h * n * d), (p + "attention.wk.weight", h * kv * d),
                      (p + "attention.wv.weight", h * kv * d), (p + "attention.wo.weight", n * d * h)]
            if g(shape, "qk_norm", False):
                named += [(p + "attention.q_norm.weight", d), (p + "attention.k_norm.weight", d)]
            if bias:
                named += [(p + "attention.wqkv.bias", n * d + 2 * kv * d), (p + "attention.wo.bias", h)]
        named += [(p + "attention_norm.weight", norm), (p + "ffn_norm.weight", norm)]
        if moe:
            e, f = shape["experts"], shape["moe_ffn"]
            named += [(p + "moe.router.gate.weight", h * e),
                      (p + f"moe.{expert_key}.w13", e * (gemms - 1) * h * f), (p + f"moe.{expert_key}.w2", e * f * h)]
            if shared_size(shape):
                named.append((p + "moe.shared_experts.w", gemms * h * shared_size(shape)))
        else:
            named.append((p + "feed_forward.w", gemms * h * shape["ffn"] + ((shape["ffn"] + h) if bias else 0)))
    named.append(("norm.weight", norm))
    if not shape["tied_embeddings"]:
        named.append(("output.weight", h * shape["vocab"]))
    params = [(name, Param(size)) for name, size in named]
    embeddings = [Embedding(p) for name, p in params if "embedding" in name]
    rest = [types.SimpleNamespace(parameters=lambda p=p: iter([p])) for name, p in params if "embedding" not in name]
    return types.SimpleNamespace(parameters=lambda: iter([p for _, p in params]),
                                 named_parameters=lambda: iter(params),
                                 children=lambda: iter(embeddings + rest))


def titan_value(module, shape, new_api):
    mla = g(shape, "attention", "mha") == "mla"
    moe = g(shape, "experts") > 0
    if mla:
        head_dims = shape["qk_head_dim"] + shape["qk_rope_head_dim"] + shape["v_head_dim"]
    elif moe:
        head_dims = 2 * kv_channels(shape)  # qwen3's model.py: 2 * head_dim
    else:
        head_dims = 2 * (shape["hidden"] // shape["heads"])  # llama3's model.py: 2 * (dim // n_heads)
    tied, seq, L, n = shape["tied_embeddings"], shape["seq_length"], shape["layers"], shape["heads"]
    ns = types.SimpleNamespace
    model = titan_model(shape, "routed_experts" if new_api else "experts")
    if new_api and not moe:
        _, per_token = module.get_dense_model_nparams_and_flops(model, L, n, head_dims, seq, tied)
    elif new_api:
        moe_cfg = ns(router=ns(top_k=shape["moe_top_k"]), num_experts=shape["experts"])
        layers = [ns(moe=moe_cfg if m else None, attention=object()) for m in moe_pattern(shape)]
        _, per_token = module.get_moe_model_nparams_and_flops(ns(layers=layers, enable_weight_tying=tied), model, n,
                                                               head_dims, seq)
    else:
        args = ns(n_layers=L, n_heads=n, enable_weight_tying=tied,
                  moe_args=ns(top_k=g(shape, "moe_top_k"), num_experts=g(shape, "experts")))
        fn = module.get_moe_model_nparams_and_flops if moe else module.get_dense_model_nparams_and_flops
        _, per_token = fn(args, model, head_dims, seq)
    return per_token * seq


def upstream_values(mods, shape):
    """{convention: [(which upstream, FLOPs per sample or None when it has no formula)]}"""
    out = {}
    out["megatron-2025-03"] = [("Megatron-LM@d98e8a64", mods["megatron-2025-03"].num_floating_point_operations(
        megatron_args(shape), 1))]
    out["megatron-2024"] = [("Megatron-LM@fdfcef87", mods["megatron-2024"].num_floating_point_operations(
        megatron_args(shape), 1))]
    out["megatron-bridge-2026"] = [
        (f"Megatron-Bridge@{c}", mods[f"megatron-bridge-2026@{c}"].num_floating_point_operations(bridge_cfg(shape), 1))
        for c in ("067f987d", "06f25c22")]
    out["nemo-2025-08"] = [("NeMo@8cfedd72", nemo_value(mods["nemo-2025-08"], shape))]
    out["nemo-2024"] = [("NeMo@539b81ec", nemo_value(mods["nemo-2024"], shape))]
    out["torchtitan-2026-08"] = [("torchtitan@b5bcd76c", titan_value(mods["torchtitan-2026-08"], shape, True))]
    out["torchtitan-2026-02"] = [("torchtitan@v0.2.2", titan_value(mods["torchtitan-2026-02"], shape, False))]
    for conv, commit in (("gpu-recipes-2025-05", "2e1fd5ef"), ("gpu-recipes-2024-10", "24ba6df")):
        out[conv] = [(f"gpu-recipes@{commit}", mods[conv].MODEL_FLOPS_PER_SAMPLE.get(shape["name"]))]
    return out


# ---------------------------------------------------------------- trainbench
def model_yaml(shape):
    text = lambda v: ("true" if v else "false") if isinstance(v, bool) else v  # noqa: E731
    return "".join(f"{k}: {text(v)}\n" for k, v in shape.items() if k not in ("tp", "catalog"))


def trainbench_values(binary, shape, recipes):
    """trainbench's FLOPs per sample under every convention: a shipped model from the repository's
    catalog, a synthetic one from `recipes` (a temporary catalog directory holding only it)."""
    models = recipes / "catalog" / "models"
    models.mkdir(parents=True, exist_ok=True)
    for old in models.glob("*.yaml"):
        old.unlink()
    if not shape["catalog"]:
        (models / f"{shape['name']}.yaml").write_text(model_yaml(shape))
    extra = CATALOG if shape["catalog"] else recipes
    out = subprocess.run([binary, "--recipes", str(extra), "flops", "--model", shape["name"], "--seq",
                          str(shape["seq_length"]), "--tp", str(shape["tp"]), "--json"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"trainbench flops failed for {shape['name']}: {out.stderr}")
    return {c["name"]: c.get("flops_per_sample") for c in json.loads(out.stdout)["conventions"]}


def compare_shape(mods, binary, shape, tmp, verbose):
    """(failures, compared, worst, line): one shape under every convention against upstream."""
    failures, compared, worst, agreed, refused = [], 0, 0.0, [], []
    ours = trainbench_values(binary, shape, tmp)
    for conv, answers in upstream_values(mods, shape).items():
        ok = True
        for who, theirs in answers:
            mine = ours.get(conv)
            label = f"{shape['name']} (s {shape['seq_length']}, TP {shape['tp']}) {conv} vs {who}"
            if theirs is None:  # upstream has no formula for it: trainbench must refuse too
                if mine is not None:
                    failures.append(f"{label}: upstream has no value, trainbench gives {mine!r}")
                else:
                    refused.append(conv)
                ok = False
                continue
            if mine is None:
                failures.append(f"{label}: trainbench gives no value, upstream {theirs!r}")
                ok = False
                continue
            diff = abs(mine - theirs) / abs(theirs)
            worst = max(worst, diff)
            compared += 1
            if verbose:
                print(f"{label}: {theirs!r} / {mine!r} ({diff:.1e})")
            if diff > TOLERANCE:
                failures.append(f"{label}: upstream {theirs!r}, trainbench {mine!r} (relative {diff:.3e})")
                ok = False
        if ok:
            agreed.append(conv)
    where = "catalog" if shape["catalog"] else "synthetic"
    line = f"{shape['name']} ({where}, s {shape['seq_length']}, TP {shape['tp']}): equal under {', '.join(agreed)}"
    if refused:
        line += f"; no formula upstream nor in trainbench: {', '.join(sorted(set(refused)))}"
    return failures, compared, worst, line


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_ref = os.environ.get("TRAINBENCH_SHARED_DIR", str(HERE.parents[2] / "shared")) + "/reference"
    ap.add_argument("--reference", default=default_ref)
    ap.add_argument("--binary", default=os.environ.get("TRAINBENCH_BINARY", "trainbench"))
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    ref = pathlib.Path(a.reference)
    if not (ref / "Megatron-LM@d98e8a64").is_dir():
        print(f"skipped: no upstream reference at {ref}")
        return 125
    mods = load_all(ref)
    shapes = all_shapes()
    failures, compared, worst = [], 0, 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for shape in shapes:
            f, n, w, line = compare_shape(mods, a.binary, shape, pathlib.Path(tmp), a.verbose)
            failures += f
            compared += n
            worst = max(worst, w)
            print(line)
    for f in failures:
        print("DIFFERS:", f)
    print(f"{compared} values compared on {len(shapes)} shapes, largest relative difference {worst:.1e}; "
          f"{len(failures)} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
